"""The finite set of candidate lines that decides whether a clear segment joins two bases
(rulebook §7.1 "a line from any point of one base to any point of the other"; §7.2.1, §8.7.6).
Why this set suffices is argued in `geom.lines._segments`; this module builds it, for many jobs (pairs
of bases, each with its own obstacles) at once.

Pins — the points X that can hold a clear line in place:
- convex corners of the obstacles (shrunk by the tolerance, `geom.lines._line_obstacles`) within reach of the
  hull of the two bases — a line through a reflex corner enters the obstacle on one side of it,
  so it can only be clear when the corner ends the gap, i.e. lies on a rim (kept then);
- points where an obstacle edge crosses a base's rim (a gap's end lying on an edge);
- minus points strictly inside another obstacle of the same job (every line through them is
  stopped there), and duplicates.

Lines (`stage_one`, then `stage_two` only for jobs still open):
1. the four common tangents of the bases; the tangents from each pin to each base; the lines
   along the obstacle edges at each corner pin;
2. the lines through two pins of the same job (in blocks, so memory stays bounded); with a
   length bound also, through each pin, the lines that locally minimise the gap's length.
A line whose pin does not lie on its own gap segment is dropped before any clearance test: that
pin constrains nothing there, and the line is among the candidates only for that pin. So is a
line that cuts into an obstacle at a corner pin lying inside its gap (`supporting`): it is
stopped there. Both tests are local and cheap, and they remove most lines on a table of many
small corners (a toothed wall) before the clearance tests.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import shapely

from ..tolerance import ROUNDING_RELATIVE, TOLERANCE, ZERO_LENGTH
from ._line_obstacles import PreparedObstacles, ranges
from ._tangents import Frames, apply, gaps, rim_edge_points, tangents_from

PIN_SLACK = 1e-7  # inches: a pin this close to its gap segment counts as on it
LINE_BUDGET = 1 << 14  # candidate lines per block in stage two


@dataclass(frozen=True)
class Lines:
    """Candidate lines P + t D (D a unit vector), each for job `job`; `pin`: the line's first
    pin is P itself (t = 0); `pin2`: t of a second pin (NaN when none); `vert1`, `vert2`: the
    obstacle corners those pins are (−1: not a corner)."""

    P: np.ndarray
    D: np.ndarray
    job: np.ndarray
    pin: np.ndarray
    pin2: np.ndarray
    vert1: np.ndarray
    vert2: np.ndarray

    @classmethod
    def make(cls, P: np.ndarray, D: np.ndarray, job: np.ndarray, pin: bool,
             pin2: np.ndarray | None = None, vert1: np.ndarray | None = None,
             vert2: np.ndarray | None = None) -> Lines:
        norm = np.hypot(D[:, 0], D[:, 1])
        good = norm > ZERO_LENGTH
        n = len(P)
        none = np.full(n, -1, dtype=np.int64)
        p2 = np.full(n, np.nan) if pin2 is None else pin2
        v1 = none if vert1 is None else vert1
        v2 = none if vert2 is None else vert2
        return cls(P[good], D[good] / norm[good, None], job[good],
                   np.full(int(good.sum()), pin, dtype=bool), p2[good], v1[good], v2[good])

    @classmethod
    def concat(cls, parts: list[Lines]) -> Lines:
        return cls(*(np.concatenate([getattr(x, f) for x in parts])
                     for f in ("P", "D", "job", "pin", "pin2", "vert1", "vert2")))

    def __len__(self) -> int:
        return len(self.job)

    def gaps(self, fa: Frames, fb: Frames, obs: PreparedObstacles | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
        """Gap segments of the lines and which lines are kept: they meet both bases, every pin
        lies on the gap (within `PIN_SLACK`), and at a corner pin inside the gap the line does
        not cut into the corner (`obs` given; see `supporting`)."""
        seg, ok, lo, hi = gaps(fa.take(self.job), fb.take(self.job), self.P, self.D)
        ok &= ~self.pin | ((lo <= PIN_SLACK) & (hi >= -PIN_SLACK))
        p2 = self.pin2
        has2 = ~np.isnan(p2)
        ok &= ~has2 | ((lo <= p2 + PIN_SLACK) & (hi >= p2 - PIN_SLACK))
        if obs is not None:
            inner = ok & self.pin & (self.vert1 >= 0) & (lo < -PIN_SLACK) & (hi > PIN_SLACK)
            k = np.nonzero(inner)[0]
            ok[k] &= supporting(obs, self.vert1[k], self.D[k])
            inner = ok & has2 & (self.vert2 >= 0) & (lo < p2 - PIN_SLACK) & (hi > p2 + PIN_SLACK)
            k = np.nonzero(inner)[0]
            ok[k] &= supporting(obs, self.vert2[k], self.D[k])
        return seg, ok


def supporting(obs: PreparedObstacles, vert: np.ndarray, D: np.ndarray) -> np.ndarray:
    """Does the line through corner `vert` in direction D keep clear of the obstacle near the
    corner? It does iff the corner's two neighbours are not strictly on opposite sides of it (at
    a convex corner the obstacle lies in the wedge between its edges); a line that passes a
    corner strictly inside its gap segment and cuts into it is stopped there, so it is no
    candidate. Near-zero turns count as "on the line"."""
    X = obs.verts[vert]
    u, w = obs.vert_prev[vert] - X, obs.vert_next[vert] - X
    cu = D[:, 0] * u[:, 1] - D[:, 1] * u[:, 0]
    cw = D[:, 0] * w[:, 1] - D[:, 1] * w[:, 0]
    tu = ROUNDING_RELATIVE * np.hypot(u[:, 0], u[:, 1])
    tw = ROUNDING_RELATIVE * np.hypot(w[:, 0], w[:, 1])
    return ~(((cu > tu) & (cw < -tw)) | ((cu < -tu) & (cw > tw)))


@dataclass(frozen=True)
class Pins:
    """Pins sorted by job: job j's are ``X[ptr[j]:ptr[j + 1]]``; `vert` is the corner's row in
    `PreparedObstacles.verts` (−1 for a rim crossing)."""

    X: np.ndarray
    job: np.ndarray
    vert: np.ndarray
    ptr: np.ndarray


def _segment_distance(X: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    d = q - p
    dd = d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]
    t = np.clip(np.einsum("ij,ij->i", X - p, d) / np.where(dd > 0, dd, 1.0), 0.0, 1.0)
    foot = p + t[:, None] * d
    return np.hypot(X[:, 0] - foot[:, 0], X[:, 1] - foot[:, 1])


def _in_frame_radius(f: Frames, X: np.ndarray) -> np.ndarray:
    x = apply(f.M, X - f.c)
    return np.hypot(x[:, 0], x[:, 1])


def _unique_rows(keys: np.ndarray) -> np.ndarray:
    """Indices of the first occurrence of each distinct row of an int64 key matrix."""
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64)
    _, first = np.unique(keys, axis=0, return_index=True)
    return np.sort(first)


def make_pins(obs: PreparedObstacles, fa: Frames, fb: Frames, jobs: np.ndarray,
              job_ptr: np.ndarray, job_rows: np.ndarray) -> Pins:
    """Pins of the given jobs (see the module docstring); `fa`, `fb` are per job."""
    n_jobs = len(job_ptr) - 1
    counts = job_ptr[jobs + 1] - job_ptr[jobs]
    rows = job_rows[ranges(job_ptr[jobs], counts)]
    row_job = np.repeat(jobs, counts)
    vcount = obs.vert_ptr[rows + 1] - obs.vert_ptr[rows]
    v = ranges(obs.vert_ptr[rows], vcount)
    vjob = np.repeat(row_job, vcount)
    X, nxt, prv = obs.verts[v], obs.vert_next[v], obs.vert_prev[v]

    rim_pts, rim_job = [], []
    for f in (fa, fb):  # only edges that come within reach of the base's rim
        c, r = f.c[vjob], f.a[vjob]
        lo, hi = np.minimum(X, nxt), np.maximum(X, nxt)
        near = np.all((lo <= c + r[:, None]) & (hi >= c - r[:, None]), axis=1)
        if near.any():
            idx = np.nonzero(near)[0]
            pts, src = rim_edge_points(f.take(vjob[idx]), X[idx], nxt[idx])
            rim_pts.append(pts)
            rim_job.append(vjob[idx][src])

    fj_a, fj_b = fa.take(vjob), fb.take(vjob)
    reach = np.maximum(fa.a, fb.a)[vjob] + TOLERANCE
    keep = _segment_distance(X, fj_a.c, fj_b.c) <= reach
    on_rim = (_in_frame_radius(fj_a, X) <= 1 + TOLERANCE) | (_in_frame_radius(fj_b, X) <= 1 + TOLERANCE)
    keep &= obs.vert_convex[v] | on_rim
    # one corner per place and pair of edge directions (seam joins repeat their members' corners)
    q = np.round(np.column_stack((X, _unit(nxt - X), _unit(prv - X))) * 1e9).astype(np.int64)
    k = np.nonzero(keep)[0]
    k = k[_unique_rows(np.column_stack((vjob[k], q[k])))]
    allX = [X[k]]
    alljob = [vjob[k]]
    allvert = [v[k]]
    if rim_pts:
        RX, RJ = np.vstack(rim_pts), np.concatenate(rim_job)
        u = _unique_rows(np.column_stack((RJ, np.round(RX * 1e9).astype(np.int64))))
        allX.append(RX[u])
        alljob.append(RJ[u])
        allvert.append(np.full(len(u), -1, dtype=np.int64))
    PX, PJ, PV = np.vstack(allX), np.concatenate(alljob), np.concatenate(allvert)
    PX, PJ, PV = _drop_buried(obs, PX, PJ, PV, job_ptr, job_rows)
    order = np.argsort(PJ, kind="stable")
    PX, PJ, PV = PX[order], PJ[order], PV[order]
    ptr = np.concatenate([[0], np.cumsum(np.bincount(PJ, minlength=n_jobs))]).astype(np.int64)
    return Pins(PX, PJ, PV, ptr)


def _unit(v: np.ndarray) -> np.ndarray:
    n = np.hypot(v[:, 0], v[:, 1])
    return v / np.where(n > 0, n, 1.0)[:, None]


def _drop_buried(obs: PreparedObstacles, X: np.ndarray, job: np.ndarray, vert: np.ndarray,
                 job_ptr: np.ndarray, job_rows: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Drop pins strictly inside another obstacle of their job: every line through such a point
    crosses that obstacle there."""
    if len(X) == 0 or obs.tree is None:
        return X, job, vert
    pi, oi = obs.tree.query(shapely.points(X), predicate="within")
    if len(pi) == 0:
        return X, job, vert
    n_rows = max(len(obs), 1)
    member = np.sort(np.repeat(np.arange(len(job_ptr) - 1), np.diff(job_ptr)) * n_rows
                     + job_rows)
    key = job[pi] * n_rows + oi
    at = np.minimum(np.searchsorted(member, key), max(len(member) - 1, 0))
    hit = len(member) > 0
    buried = np.zeros(len(X), dtype=bool)
    if hit:
        buried[pi[member[at] == key]] = True
    return X[~buried], job[~buried], vert[~buried]


def stage_one(obs: PreparedObstacles, fa: Frames, fb: Frames, jobs: np.ndarray, pins: Pins,
              tangents: tuple[np.ndarray, np.ndarray, np.ndarray]) -> Lines:
    """Common tangents of each job's bases (`tangents`, rows aligned with `jobs`), tangents from
    every pin to each base, and the lines along the edges at every corner pin."""
    P, D, ok = tangents
    parts = [Lines.make(P[ok], D[ok], np.repeat(jobs, 4).reshape(-1, 4)[ok], pin=False)]
    for f in (fa, fb):
        TP, TD, tok = tangents_from(f.take(pins.job), pins.X)
        parts.append(Lines.make(TP[tok], TD[tok], np.repeat(pins.job, 2)[tok], pin=True,
                                vert1=np.repeat(pins.vert, 2)[tok]))
    corner = pins.vert >= 0
    vx, vj, vi = pins.X[corner], pins.job[corner], pins.vert[corner]
    for nbr in (obs.vert_next, obs.vert_prev):
        parts.append(Lines.make(vx, nbr[vi] - vx, vj, pin=True))
    return Lines.concat(parts)


def stage_two(pins: Pins, jobs: np.ndarray, done: np.ndarray) -> Iterator[Lines]:
    """Lines through two pins of one job, in blocks of about `LINE_BUDGET` lines; jobs marked
    `done` (by earlier blocks) are skipped."""
    buf: list[Lines] = []
    size = 0
    for j in jobs.tolist():
        s, e = int(pins.ptr[j]), int(pins.ptr[j + 1])
        m = e - s
        if m < 2:
            continue
        X = pins.X[s:e]
        step = max(1, LINE_BUDGET // m)
        for i0 in range(0, m - 1, step):
            if done[j]:
                break
            i1 = min(m - 1, i0 + step)
            ii = np.repeat(np.arange(i0, i1), m - 1 - np.arange(i0, i1))
            kk = ranges(np.arange(i0, i1) + 1, m - 1 - np.arange(i0, i1))
            d = X[kk] - X[ii]
            length = np.hypot(d[:, 0], d[:, 1])
            V = pins.vert[s:e]
            buf.append(Lines.make(X[ii], d, np.full(len(ii), j), pin=True, pin2=length,
                                  vert1=V[ii], vert2=V[kk]))
            size += len(ii)
            if size >= LINE_BUDGET:
                yield Lines.concat(buf)
                buf, size = [], 0
    if buf:
        yield Lines.concat(buf)


def through_pin_minima(fa: Frames, fb: Frames, pins: Pins) -> tuple[np.ndarray, np.ndarray]:
    """For each pin: the gap segments of the lines through it that are local minima of the gap
    length (64 directions, then golden-section refinement of each sampled local minimum to
    1e-10 rad), and their jobs. The gap length through a point is smooth and has one or two
    minima in practice; minima closer than the sampling step could merge."""
    if len(pins.X) == 0:
        return np.zeros((0, 2, 2)), np.zeros(0, dtype=np.int64)
    k = 64
    phi = np.linspace(0, math.pi, k, endpoint=False)

    def lengths(P: np.ndarray, job: np.ndarray, ang: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        none = np.full(len(P), -1, dtype=np.int64)
        lines = Lines(P, np.column_stack((np.cos(ang), np.sin(ang))), job,
                      np.ones(len(P), dtype=bool), np.full(len(P), np.nan), none, none)
        seg, ok = lines.gaps(fa, fb)
        L = np.hypot(*(seg[:, 1] - seg[:, 0]).T)
        return np.where(ok, L, np.inf), seg, ok

    P = np.repeat(pins.X, k, axis=0)
    L = lengths(P, np.repeat(pins.job, k), np.tile(phi, len(pins.X)))[0].reshape(-1, k)
    left, right = np.roll(L, 1, axis=1), np.roll(L, -1, axis=1)
    xi, ti = np.nonzero(np.isfinite(L) & (L <= left) & (L <= right))
    if len(xi) == 0:
        return np.zeros((0, 2, 2)), np.zeros(0, dtype=np.int64)
    step = math.pi / k
    Pm, Jm = pins.X[xi], pins.job[xi]
    lo, hi = phi[ti] - step, phi[ti] + step
    g = (math.sqrt(5) - 1) / 2
    x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
    f1, f2 = lengths(Pm, Jm, x1)[0], lengths(Pm, Jm, x2)[0]
    for _ in range(45):  # (2 step)·0.618^45 < 1e-10 rad
        left_side = f1 < f2  # minimising: the minimum is in [lo, x2]
        hi = np.where(left_side, x2, hi)
        lo = np.where(left_side, lo, x1)
        nx1 = np.where(left_side, hi - g * (hi - lo), x2)
        nx2 = np.where(left_side, x1, lo + g * (hi - lo))
        nf1 = np.where(left_side, lengths(Pm, Jm, nx1)[0], f2)
        nf2 = np.where(left_side, f1, lengths(Pm, Jm, nx2)[0])
        x1, x2, f1, f2 = nx1, nx2, nf1, nf2
    Lf, seg, ok = lengths(Pm, Jm, (lo + hi) / 2)
    good = np.isfinite(Lf) & ok
    return seg[good], Jm[good]
