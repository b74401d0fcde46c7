"""Sight for every pair of two lists of models or markers at once (rulebook §7.1, §7.1.1, §7.1.4,
keyword HIDDEN, §8.9.1): the batch behind units, armies and surveys.

`sight_matrix(ctx, As, Bs)` works on sparse rows, never on dense (pair × piece) arrays:

1. per object: its `Viewer` and the pieces within 1" of it (tree queries, cached per table);
2. per pair: base-to-base distances, then the elevation dead zone and HIDDEN (both only read the
   few pieces of each model's stack);
3. for the pairs still open, the (pair, obstacle) rows of obstacles that can stand between them,
   from one bulk STRtree query and a box test, and the cover rules on those rows only — pieces
   far from a pair are never looked at;
4. the exact search (`geom.segments.search_jobs`) for every pair with a blocking obstacle, all
   pairs at once: centre line, separator proof, candidate lines.

The resulting `SightMatrix` holds the answers (`code`, `witness`, `dist`) and the blocking rows,
and builds the verdict of any pair on demand (`geom.sight_verdict`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import cover
from .cover import CLOSE_QUARTERS, HIDDEN_RANGE, Viewer
from .model import TOLERANCE, Marker, Model
from .segments import search_jobs
from .sight_table import SightContext, ViewerArrays, member

VISIBLE, HIDDEN, DEAD_ZONE, BLOCKED = 0, 1, 2, 3


@dataclass
class SightMatrix:
    """Answers for every pair (i, j): object i of `a` looking at object j of `b`.
    `rows_pair` (sorted keys i·nb + j) and `rows_obstacle` list, for every pair that was
    tested, the obstacles that block for it and may stand between the two bases."""

    ctx: SightContext
    a: list[Viewer]
    b: list[Viewer]
    A: ViewerArrays
    B: ViewerArrays
    code: np.ndarray  # VISIBLE | HIDDEN | DEAD_ZONE | BLOCKED
    witness: np.ndarray  # (na, nb, 2, 2), NaN where not visible
    dist: np.ndarray
    cq: np.ndarray
    rows_pair: np.ndarray
    rows_obstacle: np.ndarray

    @property
    def visible(self) -> np.ndarray:
        return self.code == VISIBLE

    def kinds(self, i: int, j: int) -> tuple[np.ndarray, np.ndarray]:
        """(full, direct) over every piece of the table, for the pair (i, j)."""
        k = np.arange(len(self.ctx.pieces))
        n = len(k)
        return self.ctx.cover_rows(self.A, self.B, np.full(n, i), np.full(n, j), k,
                                   np.full(n, bool(self.cq[i, j])))

    def kind(self, i: int, j: int, k: int) -> str | None:
        """'full', 'direct' or None: what piece k does for the pair (i, j)."""
        one = np.array([k])
        full, direct = self.ctx.cover_rows(self.A, self.B, np.array([i]), np.array([j]), one,
                                           np.array([bool(self.cq[i, j])]))
        return "full" if full[0] else "direct" if direct[0] else None

    def blocking_rows(self, i: int, j: int) -> np.ndarray:
        """Obstacle rows that block for the pair and may stand between the bases."""
        key = i * len(self.b) + j
        s, e = np.searchsorted(self.rows_pair, [key, key + 1])
        return self.rows_obstacle[s:e]

    def verdict(self, i: int, j: int, minimal: bool = True) -> Any:
        """The verdict for pair (i, j) with rule, reason, witness and blocking pieces; see
        `geom.sight_verdict.pair_verdict`."""
        from .sight_verdict import pair_verdict

        return pair_verdict(self, i, j, minimal)

    def blocking(self, i: int, j: int) -> list[str]:
        from .sight_verdict import blocking_pieces

        return blocking_pieces(self, i, j)


def dead_zone_mask(ctx: SightContext, A: ViewerArrays, B: ViewerArrays, cq: np.ndarray
                   ) -> np.ndarray:
    """(na, nb): the elevation dead zone stops sight between the pair — one is on high ground,
    the other at ground level within 1" of the foot of a piece of the high one's stack, and
    close quarters does not lift it for that piece (the high one also within 1" of it and the
    two within 3")."""
    K = len(ctx.pieces)
    out = np.zeros(cq.shape, dtype=bool)
    for H, G, hi_first in ((A, B, True), (B, A, False)):
        hi = np.nonzero(H.zone_high)[0]
        gd = np.nonzero(G.zone_ground)[0]
        if not len(hi) or not len(gd):
            continue
        close = cq[np.ix_(hi, gd)] if hi_first else cq[np.ix_(gd, hi)].T
        zone = np.zeros((len(hi), len(gd)), dtype=bool)
        for s in range(H.zone_stack.shape[1]):
            p = H.zone_stack[hi, s]
            valid = p >= 0
            pk = np.where(valid, p, 0)
            near_g = member(G.near, gd[None, :] * K + pk[:, None]) & valid[:, None]
            near_h = member(H.near, hi * K + pk)
            zone |= near_g & ~(near_h[:, None] & close)
        if hi_first:
            out[np.ix_(hi, gd)] |= zone
        else:
            out[np.ix_(gd, hi)] |= zone.T
    return out


def sight_matrix(ctx: SightContext, a: Sequence[Model | Marker], b: Sequence[Model | Marker],
                 upto: float = HIDDEN_RANGE) -> SightMatrix:
    """Sight from every object of `a` to every object of `b` (HIDDEN is the one rule that
    depends on the direction: a hidden object of `b` beyond 4" is not seen).
    `upto`: pair distances are exact at least up to this (for weapon ranges)."""
    va, A = ctx.prepare(a)
    vb, B = ctx.prepare(b)
    na, nb = len(va), len(vb)
    dist = cover.pair_distances([v.ellipse for v in va], [v.ellipse for v in vb],
                                max(upto, HIDDEN_RANGE, CLOSE_QUARTERS))
    cq = dist <= CLOSE_QUARTERS + TOLERANCE
    code = np.full((na, nb), VISIBLE, dtype=np.int8)
    code[dead_zone_mask(ctx, A, B, cq)] = DEAD_ZONE
    code[B.hidden[None, :] & (dist > HIDDEN_RANGE + TOLERANCE)] = HIDDEN
    witness = np.full((na, nb, 2, 2), np.nan)

    ii, jj = np.nonzero(code == VISIBLE)
    ca, cb = A.frames.c[ii], B.frames.c[jj]
    witness[ii, jj, 0], witness[ii, jj, 1] = ca, cb
    r = np.maximum(A.frames.a[ii], B.frames.a[jj]) + 1e-9
    p, o = ctx.corridor_rows(ca, cb, r)
    if len(p):
        keep = ctx.obstacle_blocks(A, B, ii[p], jj[p], o, cq[ii[p], jj[p]])
        p, o = p[keep], o[keep]
    jobs, start = np.unique(p, return_index=True)
    if len(jobs):
        job_ptr = np.append(start, len(p)).astype(np.int64)
        res = search_jobs(A.frames.take(ii[jobs]), B.frames.take(jj[jobs]), ctx.obstacles,
                          job_ptr, o)
        ji, jj_ = ii[jobs], jj[jobs]
        clear = res.clear
        witness[ji, jj_] = res.witness
        code[ji[~clear], jj_[~clear]] = BLOCKED
    return SightMatrix(ctx, va, vb, A, B, code, witness, dist, cq,
                       (ii[p] * nb + jj[p]).astype(np.int64), o)
