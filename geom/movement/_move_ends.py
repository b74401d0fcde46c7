"""The legal ends of a normal move's leading model as exact end sets (rulebook §8.5.3, §8.5.4,
§8.8.1 step 1, FAQ "측정과 이동").

Disengage and close ranks are normal moves: the leading model may end on the mat or on any top
(a standable piece that is a level of its own, `geom.paths._obstacles.is_level`) — the top it stands on
included: it may stay on it or move across it — and the path decides whether it gets there
(walls at the edges of tops, access points, `geom.paths._navigator`). For each such surface the ends
are an `geom.paths._endset.EndSet`:

- the whole base on the table (the box);
- on a top, the centre on that top (not under a higher one);
- overlapping no footprint but that top's own stack (GRASS, and a LARGE unit's Size-0/1
  pieces, may be ended on: `geom.movement._destroyed`), and no base of another unit nor any base listed
  as staying put (open: touching is fine);
- not within `keep_clear` of the models to `avoid` (closed: exactly 1" is within engagement
  range, §7.2);
- inside one shape of every extra include group the caller gives (e.g. "closer to the enemy").

No margin is taken anywhere: every end a search offers is re-checked exactly by the caller
(`geom.movement._end_position.end_position_ok` or the rule's own check).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .. import bases
from ..model import Battlefield, Model, Unit
from ..paths import Disc, EndSet, Grown, Shape
from ._centre_zones import mover_base
from ._charge_ends import base_reach, grown_by_base
from ._charge_region import Surface, level_tops, top_area
from ._destroyed import ends_over
from ._end_position import may_overlap

Groups = Callable[[Surface], list[list[Shape]] | None]


def move_end_sets(bf: Battlefield, unit: Unit, mover: Model, *, within: float,
                  avoid: Sequence[Model] = (), keep_clear: float = 1.0,
                  staying: Sequence[Model] = (), groups: Groups | None = None,
                  name: str = "") -> list[EndSet]:
    """The end sets (see the module docstring) of `mover` leading `unit`, for ends no farther
    than `within` from where it stands (no path is shorter than the straight line). `groups`
    gives a surface's extra include groups (None: no end on that surface)."""
    K = mover_base(mover)
    ex, ey = bases.half_extents(K)
    t = bf.table
    box = (ex, ey, t.width - ex, t.depth - ey)
    reach = Disc(mover.at[0], mover.at[1], within)
    others = [m for m in bf.models() if m.unit != unit.id]
    out: list[EndSet] = []
    for top in [None, *level_tops(bf)]:
        extra = groups(top) if groups is not None else []
        if extra is None:
            continue
        ok = may_overlap(bf, top)
        excl: list[Shape] = [grown_by_base(p.footprint, K) for p in bf.terrain
                             if not ends_over(unit, p) and p.id not in ok]
        excl += [base_reach(K, m.ellipse, m.at, 0.0) for m in [*others, *staying]]
        closed = [False] * len(excl)
        excl += [base_reach(K, m.ellipse, m.at, keep_clear) for m in avoid]
        closed += [True] * len(avoid)
        include: list[list[Shape]] = [[reach]]
        area = top_area(bf, top)
        if area is not None:
            include.append([Grown(area, 0.0)])
        es = EndSet(box, [*include, *extra], excl, closed, top.id if top else name or "mat")
        if es.window() is not None:
            out.append(es)
    return out
