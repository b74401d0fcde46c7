"""Paths: shortest legal paths of a leading model's centre — free space, gaps, the tangent
graph, searches, the navigator and the end sets a path may end in (rulebook §4.3 moving,
§4.6 gaps, §8.5.3 movement and terrain, §8.7.7 a charge measured along the real path, FAQ
"측정과 이동"; decisions: docs/rules.md#gap-clearance, docs/rules.md#connected-tops,
docs/rules.md#raptor-variant).

This wing decides how far a leading model must travel to get somewhere: which pieces and
models stop it, where its centre may be while moving (gap clearance: two clearances, not one),
and the exact shortest path to a point or to a set of legal ends, with its length and error
bound. It does not decide whether an end is legal — `geom.movement` and `geom.combat` build the
end sets and re-check each end.

Modules:

- `_navigator`: one mover on one table (`Navigator`, `navigator_for`): every path question,
  and the step out of a clearance zone (`Navigator.escape`);
- `_obstacles`: what stops a moving leading model (`movement_obstacles`), levels and
  connected tops, Raptor variant;
- `_freespace`: the free space of the centre — the table box less the clearance zones
  (`FreeSpace`), and whether a point or a segment is clear;
- `_circles`: the pieces its boundary is made of — corner circles, core outlines and each
  circle's free and blocked arcs (`ArcMap`, `circle_events`);
- `_gaps`: gap clearance as the rulebook means it (a base in a gap keeps half the width;
  `gaps_passed`, `line_blockers`);
- `_pieces`: how many separate pieces of material a base meets, by distances alone;
- `_navgraph`: the tangent graph, lazy (`LazyGraph`) and eager (`TangentGraph`, the reference);
- `_search`: Dijkstra / A* on the lazy graph towards a question's terminals (`Search`);
- `_goals`: the question "shortest path to any of these end sets" (`EndQuestion`) and its
  terminals;
- `_point_goals`: paths to given points (a goal, or sampled ends);
- `_region_path`: the shortest legal path to a set of ends (`path_to_ends`, `path_to_region`),
  stepped ends inside clearance zones included;
- `_straight_legs`: a question a straight leg decides, answered without a search;
- `_endset`: sets of legal end positions described exactly (`EndSet`) and their boundary
  pieces (`Primitives`);
- `_end_shapes`: the shapes end sets are made of (`Disc`, `Grown`, `Curve`, `Framed`) and
  their membership tests, one at a time or batched (`ShapeTests`);
- `_crossings`: where the boundary pieces of an end set cross, and where a last leg can meet
  them, in closed form;
- `_path`: a path of segments and arcs (`Path`), whose length is the distance moved;
- `_reach`: where a centre can get to within an allowance (`travel_region`, an inner
  approximation);
- `_tops`: which standable tops a ground unit can reach (`reachable_tops`,
  `unreachable_tops`).

Imports: the root modules (before it in the wing order: tolerance, errors, model, verdict,
bases, distance, elevation, lines, engagement, sight, templates); no later wing.
"""

from ._crossings import (
    nearest_members,
    vertices,
)
from ._end_shapes import (
    Arr,
    Curve,
    Disc,
    Framed,
    Grown,
    Shape,
    distance_outside,
)
from ._endset import (
    EndSet,
    Primitives,
    clip,
)
from ._freespace import (
    FreeSpace,
)
from ._gaps import (
    GapPassed,
    gaps_passed,
    line_blockers,
    point_in_narrow_gap,
)
from ._goals import (
    Accept,
    EndQuestion,
    PathAccept,
    reach_box,
)
from ._navgraph import (
    LazyGraph,
    TangentGraph,
)
from ._navigator import (
    ESCAPE_CHUNK,
    Navigator,
    as_point,
    navigator_for,
)
from ._obstacles import (
    OVAL_SIDES,
    Obstacle,
    connected_tops,
    is_level,
    movement_obstacles,
)
from ._path import (
    Arc,
    Path,
    Piece,
    Segment,
    cut,
    joined,
    polyline,
)
from ._pieces import (
    Pieces,
)
from ._point_goals import (
    FixedEnds,
)
from ._reach import (
    travel_region,
)
from ._region_path import (
    STEP_SAMPLE,
    EndPath,
    path_to_ends,
    path_to_region,
    stepped_needed,
)
from ._search import (
    MAX_STARTS,
    START,
    Found,
    Question,
    Search,
)
from ._straight_legs import (
    straight_first,
)
from ._tops import (
    reachable_tops,
    unreachable_tops,
)

__all__ = [
    "Accept",
    "Arc",
    "Arr",
    "Curve",
    "Disc",
    "ESCAPE_CHUNK",
    "EndPath",
    "EndQuestion",
    "EndSet",
    "FixedEnds",
    "Found",
    "Framed",
    "FreeSpace",
    "GapPassed",
    "Grown",
    "LazyGraph",
    "MAX_STARTS",
    "Navigator",
    "OVAL_SIDES",
    "Obstacle",
    "Path",
    "PathAccept",
    "Piece",
    "Pieces",
    "Primitives",
    "Question",
    "START",
    "STEP_SAMPLE",
    "Search",
    "Segment",
    "Shape",
    "TangentGraph",
    "as_point",
    "clip",
    "connected_tops",
    "cut",
    "distance_outside",
    "gaps_passed",
    "is_level",
    "joined",
    "line_blockers",
    "movement_obstacles",
    "navigator_for",
    "nearest_members",
    "path_to_ends",
    "path_to_region",
    "point_in_narrow_gap",
    "polyline",
    "reach_box",
    "reachable_tops",
    "stepped_needed",
    "straight_first",
    "travel_region",
    "unreachable_tops",
    "vertices",
]
