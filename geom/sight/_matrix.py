"""Sight for every pair of two lists of models or markers at once (rulebook §7.1, §7.1.1, §7.1.4,
keyword HIDDEN, §8.9.1): the batch behind units, armies and surveys.

`sight_matrix(ctx, As, Bs)` works on sparse rows, never on dense (pair × piece) arrays:

1. per object: its `Viewer` and the pieces within 1" of it (tree queries, cached per table);
2. per pair: base-to-base distances, then the elevation dead zone and HIDDEN (both only read the
   few pieces of each model's stack);
3. for the pairs still open, the (pair, obstacle) rows of obstacles that can stand between them,
   from one bulk STRtree query and a box test, and the cover rules on those rows only — pieces
   far from a pair are never looked at;
4. the exact search (`geom.lines._segments.search_jobs`) for every pair with a blocking obstacle, many
   pairs at once (`PAIR_BLOCK` at a time, so the rows held stay bounded): centre line, separator
   proof, candidate lines.

The resulting `SightMatrix` holds the answers (`code`, `witness`, `how`, `dist`) and builds the
verdict of any pair on demand (`geom.sight._verdict`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely

from ..lines import search_jobs
from ..model import Marker, Model
from ..tolerance import QUERY_MARGIN, TOLERANCE
from . import _cover as cover
from ._cover import CLOSE_QUARTERS, HIDDEN_RANGE, Viewer
from ._table import SightContext, ViewerArrays, member

VISIBLE, HIDDEN, DEAD_ZONE, BLOCKED = 0, 1, 2, 3


PAIR_BLOCK = 1 << 13  # pairs searched together: bounds the (pair, obstacle) rows held at once


@dataclass
class SightMatrix:
    """Answers for every pair (i, j): object i of `a` looking at object j of `b`. Memory is
    these (na, nb) arrays; the obstacles behind a pair's answer are found again when a verdict
    asks for them (`blocking_rows`)."""

    ctx: SightContext
    a: list[Viewer]
    b: list[Viewer]
    A: ViewerArrays
    B: ViewerArrays
    code: np.ndarray  # VISIBLE | HIDDEN | DEAD_ZONE | BLOCKED
    witness: np.ndarray  # (na, nb, 2, 2), NaN where not visible
    how: np.ndarray  # (na, nb) how the exact search decided (geom.lines._segments; 0: not asked)
    dist: np.ndarray
    cq: np.ndarray
    # taken out of a larger matrix (`sub`): (that matrix, its rows, its cols), whose blocked
    # pieces are found once for all the matrices taken out of it
    within: tuple[SightMatrix, np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _blocked: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = field(
        default=None, repr=False)

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
        """Obstacle rows that block for the pair and may stand between the bases (sorted)."""
        return blocking_rows(self.ctx, self.A, self.B, np.array([i]), np.array([j]),
                             self.cq[i, j][None])[1]

    def sub(self, rows: Sequence[int], cols: Sequence[int]) -> SightMatrix:
        """The answers for objects `rows` of `a` looking at objects `cols` of `b`: the same
        answers as asking for those objects alone (a unit out of a whole army's matrix)."""
        r, c = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
        K = len(self.ctx.pieces)
        g = np.ix_(r, c)
        return SightMatrix(self.ctx, [self.a[i] for i in r], [self.b[j] for j in c],
                           self.A.take(r, K), self.B.take(c, K), self.code[g],
                           self.witness[g], self.how[g], self.dist[g], self.cq[g],
                           within=(self, r, c))

    def blocked_pieces(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """For every BLOCKED pair at once: (pair rows i, j, piece k, full) — the pieces that
        block for the pair between the two bases (what `blocking(i, j)` names, pair by pair)
        and whether each gives full cover (else direct). One bulk query instead of a tree query
        per pair, for unit-level verdicts over many pairs; for a matrix taken out of another,
        that matrix's rows for these pairs)."""
        if self._blocked is None:
            self._blocked = self._find_blocked() if self.within is None else self._taken()
        return self._blocked

    def _taken(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        assert self.within is not None
        whole, r, c = self.within
        ii, jj, ks, full = whole.blocked_pieces()
        ri = np.full(len(whole.a), -1, dtype=np.int64)
        ri[r] = np.arange(len(r))
        ci = np.full(len(whole.b), -1, dtype=np.int64)
        ci[c] = np.arange(len(c))
        keep = (ri[ii] >= 0) & (ci[jj] >= 0)
        i2, j2, k2, f2 = ri[ii[keep]], ci[jj[keep]], ks[keep], full[keep]
        o = np.lexsort((k2, j2, i2))  # the order the pair-by-pair query gives
        return i2[o], j2[o], k2[o], f2[o]

    def _find_blocked(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        ctx = self.ctx
        ii, jj = np.nonzero(self.code == BLOCKED)
        empty = np.zeros(0, dtype=np.int64)
        if not len(ii) or ctx.obstacles.tree is None:
            return empty, empty, empty, np.zeros(0, dtype=bool)
        cq = self.cq[ii, jj]
        p, o = blocking_rows(ctx, self.A, self.B, ii, jj, cq)
        # within reach of hull(a ∪ b), as `geom.lines._segments.corridor` asks it pair by pair
        ca, cb = self.A.frames.c[ii], self.B.frames.c[jj]
        same = np.all(ca == cb, axis=1)
        lines = np.where(same, shapely.points(ca), shapely.linestrings(
            np.stack([ca, cb], axis=1)))
        reach = np.maximum(self.A.frames.a[ii], self.B.frames.a[jj]) + QUERY_MARGIN
        q, h = ctx.obstacles.tree.query(lines, predicate="dwithin", distance=reach)
        n = len(ctx.obstacles)
        keep = np.isin(p * n + o, q * n + h)
        p, o = p[keep], o[keep]
        mem = ctx.members[o]
        rows = np.repeat(p, mem.shape[1])
        ks = mem.ravel()
        rows, ks = rows[ks >= 0], ks[ks >= 0]
        key = np.unique(rows * len(ctx.pieces) + ks)
        rows, ks = key // len(ctx.pieces), key % len(ctx.pieces)
        full, _ = ctx.cover_rows(self.A, self.B, ii[rows], jj[rows], ks, cq[rows])
        return ii[rows], jj[rows], ks, full


def blocking_rows(ctx: SightContext, A: ViewerArrays, B: ViewerArrays, ii: np.ndarray,
                  jj: np.ndarray, cq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pair, obstacle) rows, sorted, for the pairs (ii[p], jj[p]): the obstacles that may stand
    between the two bases (`SightContext.corridor_rows`) and block for the pair."""
    ca, cb = A.frames.c[ii], B.frames.c[jj]
    r = np.maximum(A.frames.a[ii], B.frames.a[jj]) + QUERY_MARGIN
    p, o = ctx.corridor_rows(ca, cb, r)
    if len(p):
        keep = ctx.obstacle_blocks(A, B, ii[p], jj[p], o, cq[p])
        p, o = p[keep], o[keep]
    return p, o


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
    how = np.zeros((na, nb), dtype=np.int8)

    open_i, open_j = np.nonzero(code == VISIBLE)
    witness[open_i, open_j, 0] = A.frames.c[open_i]
    witness[open_i, open_j, 1] = B.frames.c[open_j]
    for s in range(0, len(open_i), PAIR_BLOCK):
        ii, jj = open_i[s:s + PAIR_BLOCK], open_j[s:s + PAIR_BLOCK]
        p, o = blocking_rows(ctx, A, B, ii, jj, cq[ii, jj])
        jobs, start = np.unique(p, return_index=True)
        if not len(jobs):
            continue
        res = search_jobs(A.frames.take(ii[jobs]), B.frames.take(jj[jobs]), ctx.obstacles,
                          np.append(start, len(p)).astype(np.int64), o)
        ji, jj_ = ii[jobs], jj[jobs]
        clear = res.clear
        witness[ji, jj_] = res.witness
        how[ji, jj_] = res.how
        code[ji[~clear], jj_[~clear]] = BLOCKED
    return SightMatrix(ctx, va, vb, A, B, code, witness, how, dist, cq)
