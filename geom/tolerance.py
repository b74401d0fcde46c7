"""Every tolerance of the engine, named for what it decides (docs/rules.md#tolerance; each one is
listed there with its value, meaning, where it decides and why that size).

One constant is a rule: `TOLERANCE` (1e-6") is where a distance equals a threshold — a model
exactly 3" away is within 3" (§4.4, §8.9.1), a charge that needs exactly 7" succeeds (§8.7.7),
bases that touch are 0" apart and in base contact (§7.2), a line that grazes a corner does not
cross the piece (§7.1). Every other constant here is numerical: a slack that keeps floating-point
rounding from turning a touch into a crossing (or the reverse), the step a search refines to, the
margin that widens a query so that nothing at exactly a limit is lost, the floor that keeps a
quotient finite. None of them may move a verdict across a limit of the rules: each is far below
`TOLERANCE` where a verdict depends on it, or only widens a candidate set that an exact test then
decides.

Units: inches unless stated (rad for angles, square inches for areas; "relative" ones multiply a
scale). Two constants of equal value are kept apart when they mean different things, so that
either can change alone.

Tolerances that belong to one module's own method stay named beside it (the line kernel's
`SAFETY`, the free space's `CLEAR_TOL`, a charge's `INSET`, `TRAMPLE_DEPTH`, …); the same page
lists them too.

This module imports nothing from the project: `geom.model` and every wing import it.
"""

from __future__ import annotations

# --- the rule -------------------------------------------------------------------------------

#: grazing and touching: a distance within this of a limit meets it (docs/rules.md#tolerance)
TOLERANCE = 1e-6

# --- rounding: the noise allowed on a comparison of computed figures ------------------------

#: a length, distance or norm at most this is zero: a repeated point, a degenerate segment,
#: a direction that is no direction (also the floor that keeps a division by a length finite)
ZERO_LENGTH = 1e-12
#: the square of `ZERO_LENGTH`: floor of a squared length divided by
ZERO_LENGTH_SQUARED = 1e-24
#: positive floor that keeps a quotient or a square root finite where its argument is 0
DIVISION_FLOOR = 1e-300
#: an oval whose two axes differ by less than this is a disc
SAME_AXES = 1e-12
#: rounding of one closed-form computation (a discriminant, a circle-circle or point-circle
#: test, a radius in a base's unit frame, an angle inside an arc): figures within it are equal
ROUND_OFF = 1e-12
#: `ROUND_OFF` relative to the figures' scale (hull areas, cross products of edge vectors)
ROUND_OFF_RELATIVE = 1e-12
#: rounding of a figure computed through several steps (shapely distances, box and table
#: edges, sums of lengths): figures within it are equal
ROUNDING = 1e-9
#: `ROUNDING` relative to the figures' scale (a cross product against the lengths of its
#: vectors, a buffer distance)
ROUNDING_RELATIVE = 1e-9
#: two bases no more than this into each other (or apart) are touching, for the line kernel's
#: choice between its touching and its apart searches
BASES_TOUCH = 1e-9
#: a point whose distance from a circle's centre is within this of the radius is on the circle
ON_CIRCLE = 1e-9
#: slack on a parameter along a segment or ray (t in [-slack, L + slack] is on it; a hit
#: nearer than it is the ray's own start)
PARAMETER_SLACK = 1e-9
#: rad: a ring vertex turning by more than this is a corner (convex, or turning left or right)
CORNER_TURN = 1e-9
#: rad: an arc whose span is within this of 2π is a full circle
FULL_TURN_SLACK = 1e-9
#: square inches: a polygon whose convex hull exceeds it by at most this is convex
HULL_AREA_SLACK = 1e-9
#: square inches: overlaps thinner than this are touching, not overlapping
AREA_TOLERANCE = 1e-9
#: rad: floor of the chord angle an arc is drawn by (keeps the chord count finite)
MIN_CHORD_ANGLE = 1e-9
#: a cross product of two unit directions below this: the segments are parallel
SEGMENT_PARALLEL = 1e-14
#: a move's component across a gap-zone edge below this: the move runs along the edge
ZONE_PARALLEL = 1e-15
#: a discriminant of a line and a circle above this: the line crosses the circle (not tangent)
SECANT = 1e-15
#: a base's support point within this of a template's half-width lies on the template's edge
SUPPORT_SLACK = 1e-15
#: relative imaginary part of a polynomial root below which the root is real
REAL_ROOT = 1e-7
#: a 2×2 matrix of two boundary gradients whose determinant is below this is singular (the
#: boundaries meet head-on)
SINGULAR = 1e-6

# --- searches: the step a refinement stops at -----------------------------------------------

#: a golden-section bracket narrower than this has found its extremum
GOLDEN_STEP = 1e-12
#: a Newton iteration whose relative step is below this has converged
NEWTON_CONVERGED = 1e-15
#: step of the central differences a boundary's gradient is taken by
GRADIENT_STEP = 1e-7
#: first step of the doubling search along two boundaries that meet head-on
SLIDE_FIRST_STEP = 1e-6
#: spacing of the scan along the line of a move directly towards or away (§4.5), before the
#: first legal stretch is bisected
DIRECT_SCAN_STEP = 0.01

# --- margins: widen a candidate set that an exact test then decides --------------------------

#: added to a spatial-tree query distance so that an obstacle at exactly that distance is found
QUERY_MARGIN = 1e-9
#: pieces and points within this of a search window belong to it
WINDOW_MARGIN = 1e-6
#: how far past the edge of a clearance zone an escape candidate is put
ESCAPE_MARGIN = 1e-6
#: a base disc grown by this meets what it touches, for the one-part (arms of a U) gap test
GROWN_DISC = 1e-5
#: a halo this much wider than the engagement range around a target keeps every piece that
#: can stop a segment of exactly 1" (§7.2.1)
HALO_MARGIN = 0.01
#: the ring around a target that the leading model's path is measured to, this far past base
#: contact (§4.5)
RING_MARGIN = 0.01

# --- reports ----------------------------------------------------------------------------------

#: bases this close are in base contact when the rest of a charging unit is placed and
#: checked (§8.7.7: priority A, and the models that support one in contact)
CONTACT_SLACK = 1e-4
#: a move directly towards or away within this of its distance is reported as the full one
FULL_DISTANCE_SLACK = 0.01
