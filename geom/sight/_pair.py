"""One sight question on a prepared table, fast (rulebook §7.1, §7.1.1, §7.1.4, keyword HIDDEN,
§8.9.1): what `pair_sight(ctx, a, b)` answers.

The same rules and the same exact search as the batch (`geom.sight._matrix`), without its
pairs × pieces machinery: the two objects' cached viewers and near pieces, scalar distance, dead
zone and HIDDEN tests, one tree query for the obstacles that can stand between the bases, the
cover rules on those few; then, when some of them block, the separator proof (it settles most
such pairs, and a proved pair needs no other test), the centre line, and only when that is
stopped the candidate lines. The verdict's rule, reason and blocking pieces are worked out when
first read (`geom.sight._verdict`), from a one-pair matrix built then; tests check that both paths
give the same answers.
"""

from __future__ import annotations

import numpy as np
import shapely

from .. import bases
from ..lines import pair_separated, search_jobs
from ..model import Marker, Model
from ..tolerance import BASES_TOUCH, QUERY_MARGIN, TOLERANCE
from ..verdict import Verdict
from ._cover import CLOSE_QUARTERS, HIDDEN_RANGE, piece_blocks
from ._matrix import BLOCKED, DEAD_ZONE, HIDDEN, VISIBLE, sight_matrix
from ._table import SightContext
from ._verdict import LazyVerdict, explain


def pair_code(ctx: SightContext, a: Model | Marker, b: Model | Marker
              ) -> tuple[int, np.ndarray | None, float]:
    """(code, witness segment or None, gap) for `a` looking at `b`; the gap is the base-to-base
    distance where it decided something, else a lower bound on it."""
    sa, sb = ctx.slots([a, b])
    va, vb = ctx.cached_viewers[sa], ctx.cached_viewers[sb]
    ea, eb = va.ellipse, vb.ellipse
    cd = float(np.hypot(ea.cx - eb.cx, ea.cy - eb.cy))
    lo, hi = max(0.0, cd - ea.a - eb.a), max(0.0, cd - ea.b - eb.b)  # bounds on the distance

    def within(limit: float) -> bool:
        nonlocal lo, hi
        if lo < hi and lo <= limit + TOLERANCE < hi:  # the bounds do not decide: measure
            lo = hi = bases.ellipse_distance(ea, eb)
        return hi <= limit + TOLERANCE

    cq = within(CLOSE_QUARTERS)
    if vb.hidden and not within(HIDDEN_RANGE):
        return HIDDEN, None, lo
    d = lo  # exact unless the bases are far apart ovals (then a lower bound; not needed)
    na, nb = ctx.near_set(sa), ctx.near_set(sb)
    for hi, gd, nh, ng in ((sa, sb, na, nb), (sb, sa, nb, na)):
        if ctx.zone_high[hi] and ctx.zone_ground[gd]:
            if any(p in ng and not (p in nh and cq) for p in ctx.zone_stack(hi)):
                return DEAD_ZONE, None, d
    obs = ctx.obstacles
    centre = np.array([[ea.cx, ea.cy], [eb.cx, eb.cy]])
    if obs.tree is None:
        return VISIBLE, centre, d
    line = shapely.linestrings(centre) if (ea.cx, ea.cy) != (eb.cx, eb.cy) else \
        shapely.points(centre[0])
    rows = obs.tree.query(line, predicate="dwithin", distance=max(ea.a, eb.a) + QUERY_MARGIN)
    under = ctx.under(sa) | ctx.under(sb)
    blocking = []
    for r in rows.tolist():
        for k in ctx.members[r]:
            if k >= 0 and (k in under or not ctx.blockable[k] or piece_blocks(
                    ctx.piece_eff[k], va.effective, vb.effective, k in na, k in nb, cq) is None):
                break
        else:
            blocking.append(r)
    if not blocking:
        return VISIBLE, centre, d
    rows = np.array(sorted(blocking), dtype=np.int64)
    fa, fb = ctx.frames(sa), ctx.frames(sb)
    # the separator first: most pairs with a blocking piece across the centre line are blocked,
    # and the proof makes the centre-line test unnecessary for them
    if d > BASES_TOUCH and pair_separated(fa, fb, rows, obs):
        return BLOCKED, None, d
    if not shapely.intersects(line, obs.tests[rows]).any():
        return VISIBLE, centre, d
    res = search_jobs(fa, fb, obs, np.array([0, len(rows)]), rows, quick=d <= BASES_TOUCH)
    return (VISIBLE, res.witness[0], d) if res.clear[0] else (BLOCKED, None, d)


def pair_sight(ctx: SightContext, a: Model | Marker, b: Model | Marker) -> Verdict:
    """Does `a` see `b`? `ok` and `witness` at once; the rest when first read."""
    code, w, _ = pair_code(ctx, a, b)
    seg = None if w is None else ((float(w[0, 0]), float(w[0, 1])),
                                  (float(w[1, 0]), float(w[1, 1])))
    return LazyVerdict(code == VISIBLE, seg,
                       lambda: explain(sight_matrix(ctx, [a], [b]), 0, 0, True, seg))
