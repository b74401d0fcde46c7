"""Lines: the exact clear-segment kernel that sight, engagement and templates share (rulebook
§7.1 "a line from any point of one base to any point of the other", §7.2.1 "no terrain of
Size 2+ between them", §8.7.6 step 3 "a line not stopped by terrain"; docs/rules.md#tolerance,
docs/rules.md#seams).

This wing decides one geometric question: does some straight segment join two bases (discs or
ovals) without crossing any of the given obstacles, optionally no longer than a bound — and if
so, which segment (the witness). The answer is exact: it comes from a finite set of candidate
lines, never from sampled points. Which pieces are obstacles is not decided here: each rule
(`geom.sight`, `geom.engagement`, `geom.templates`) passes the pieces its rule selects.

Modules:

- `_segments`: the exact search (`find_clear_segment` for one pair, `search_jobs` for many),
  with the argument why its candidate set suffices, with and without a length bound;
- `_candidates`: the candidate lines themselves — pins (convex corners, edge-rim crossings) and
  the tangents, pin-to-pin lines and length minima through them, built for many jobs at once;
- `_line_obstacles`: what "crosses terrain" means (the footprint shrunk by the 1e-6" tolerance)
  and the prepared obstacles (`PreparedObstacles`) that test many segments at once, in bounded
  blocks;
- `_seams`: pieces whose footprints touch are joined first (`close_seams`), so no line slips
  through the seam between two sections of one wall;
- `_separator`: the quick proof of "blocked" — one convex part that cuts the two bases apart;
- `_tangents`: chords, gap segments, tangents and common tangents of discs and ovals,
  vectorised over many bases (`Frames`).

Imports: only the root modules before it in the wing order (`geom.tolerance`, `geom.errors`,
`geom.model`, `geom.verdict`, `geom.bases`, `geom.distance`, `geom.elevation`); no other wing.
"""

from ._candidates import (
    LINE_BUDGET,
    stage_two,
    supporting,
)
from ._line_obstacles import (
    EX,
    MANY_PARTS,
    ROW_BUDGET,
    C,
    Jobs,
    PreparedObstacles,
    X,
    Y,
    convex_parts,
    job_parts,
    ranges,
    row_blocks,
    segments_clear,
)
from ._seams import (
    close_seams,
    closing,
    line_obstacles,
)
from ._segments import (
    BLOCKED,
    FIRST,
    FOUND,
    SEPARATED,
    VERTEX_BUDGET,
    corridor,
    find_clear_segment,
    nearest_points,
    open_disc_segment,
    search_clear_segment,
    search_jobs,
)
from ._separator import (
    pair_separated,
    separated,
)
from ._tangents import (
    Frames,
    apply,
    chords,
    gaps,
)

__all__ = [
    "BLOCKED",
    "C",
    "EX",
    "FIRST",
    "FOUND",
    "Frames",
    "Jobs",
    "LINE_BUDGET",
    "MANY_PARTS",
    "PreparedObstacles",
    "ROW_BUDGET",
    "SEPARATED",
    "VERTEX_BUDGET",
    "X",
    "Y",
    "apply",
    "chords",
    "close_seams",
    "closing",
    "convex_parts",
    "corridor",
    "find_clear_segment",
    "gaps",
    "job_parts",
    "line_obstacles",
    "nearest_points",
    "open_disc_segment",
    "pair_separated",
    "ranges",
    "row_blocks",
    "search_clear_segment",
    "search_jobs",
    "segments_clear",
    "separated",
    "stage_two",
    "supporting",
]
