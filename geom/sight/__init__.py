"""Sight: line of sight and cover between models, markers, units and armies, exactly and with
a witness (rulebook §7.1, §7.1.1 full cover, direct cover, elevation dead zone and close
quarters, §7.1.2 effective size and top-down perspective, §7.1.3 high ground cover, §7.1.4
flying units, keywords HIDDEN and VISIBLE, §8.9.1 markers in sight, §8.7.3/§8.7.4 who may
shoot; decisions: docs/rules.md#footprints, docs/rules.md#dead-zone, docs/rules.md#hidden).

This wing decides whether A sees B: whether some segment from A's base to B's base crosses no
piece that blocks for this pair, and whether the dead zone or HIDDEN forbids it. Every visible
verdict carries its witness segment, every blocked one an irreducible set of blocking pieces.
It decides the *rules* (which pieces block, and why); the geometry is `geom.lines`'.

Modules:

- `_sight`: the questions players ask — one pair (`line_of_sight`), a unit at a unit, an army
  at an army (`unit_sight`, `army_sight`, `enemy_unit_sight`);
- `_cover`: which pieces block for a pair, and why (full and direct cover, close quarters, the
  dead zone, high ground cover, HIDDEN), for one pair or many rows at once;
- `_table`: the table prepared once for many questions (`SightContext`: pieces, obstacles,
  trees, per-object caches);
- `_matrix`: every pair of two lists at once, on sparse rows (`sight_matrix`, `SightMatrix`) —
  the batch behind units, armies and surveys;
- `_pair`: one question on a prepared table, fast (`SightContext.line_of_sight`);
- `_verdict`: the rule, reason and blocking pieces of one pair, worked out when first read
  (`LazyVerdict`).

Imports: the root modules and `geom.lines` (before it in the wing order: tolerance, errors,
model, verdict, bases, distance, elevation, lines, engagement); no later wing.
"""

from ._cover import (
    Viewer,
    as_model,
    can_block,
    high_ground_cover,
    piece_blocks,
    viewer,
)
from ._matrix import (
    BLOCKED,
    DEAD_ZONE,
    HIDDEN,
    PAIR_BLOCK,
    VISIBLE,
    SightMatrix,
    blocking_rows,
    sight_matrix,
)
from ._pair import (
    pair_sight,
)
from ._sight import (
    army_sight,
    enemy_unit_sight,
    line_of_sight,
    sees,
    unit_sight,
)
from ._table import (
    SightContext,
    member,
)
from ._verdict import (
    Segment,
    blocking_pieces,
    explain,
    pair_verdict,
)

__all__ = [
    "BLOCKED",
    "DEAD_ZONE",
    "HIDDEN",
    "PAIR_BLOCK",
    "Segment",
    "SightContext",
    "SightMatrix",
    "VISIBLE",
    "Viewer",
    "army_sight",
    "as_model",
    "blocking_pieces",
    "blocking_rows",
    "can_block",
    "enemy_unit_sight",
    "explain",
    "high_ground_cover",
    "line_of_sight",
    "member",
    "pair_sight",
    "pair_verdict",
    "piece_blocks",
    "sees",
    "sight_matrix",
    "unit_sight",
    "viewer",
]
