"""Lines against bases: chords, gap segments and tangents of discs and ovals, vectorised over many
bases at once (rulebook §7.1: sight is drawn "from any point of one base to any point of the
other"; §7.2.1 and §8.7.6 ask the same of shorter and template lines).

Every function works row by row: row k of its line arrays goes with row k of its `Frames`. A base
is handled through the affine map that takes it onto the unit circle, ``x' = M (x − c)``: lines
stay lines and tangency is preserved, so discs and ovals share one algebra.

- `chords` / `gaps`: the chord of a line with a base, and the *gap segment* of a line meeting both
  bases — from the inner end of one chord to the inner end of the other. Every a-to-b segment on
  the line contains it, so the line carries a clear segment iff its gap segment is clear.
- `tangents_from`: the two tangents from a point to a base (the rim tangent for a rim point).
- `common_tangents`: the four common tangents of two disjoint bases — closed forms for two discs;
  for ovals the real roots of one quartic (in the frame where a is the unit circle, the tangent
  n·x = 1 touches b iff (1 − n·c)² = nᵀSn, a quartic in u = tan(t/2)), all rows' quartics solved
  at once as companion-matrix eigenvalues and polished by Newton steps.
- `rim_edge_points`: where polygon edges cross a base's rim.

>>> from geom.model import Ellipse
>>> fa, fb = Frames.of([Ellipse(0, 0, 1, 1)]), Frames.of([Ellipse(10, 0, 1, 1)])
>>> P, D, ok = common_tangents(fa, fb)
>>> int(ok.sum()), sorted(round(float(abs(d[1] / d[0])), 6) for d in D[0])
(4, [0.0, 0.0, 0.204124, 0.204124])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..model import Ellipse
from ..tolerance import (
    DIVISION_FLOOR,
    REAL_ROOT,
    ROUND_OFF,
    ROUND_OFF_RELATIVE,
    SAME_AXES,
    ZERO_LENGTH,
)

TANGENT_SLACK = 1e-9  # a line within this of a unit circle (in its frame) touches it


@dataclass(frozen=True)
class Frames:
    """n bases as affine maps onto the unit circle: x' = M (x − c)."""

    c: np.ndarray  # (n, 2)
    M: np.ndarray  # (n, 2, 2)
    Minv: np.ndarray  # (n, 2, 2)
    Sigma: np.ndarray  # (n, 2, 2) Minv Minvᵀ: support function h(n) = n·c + sqrt(nᵀΣn)
    a: np.ndarray  # (n,) semi-axes and orientation, to rebuild the Ellipse
    b: np.ndarray
    theta: np.ndarray
    disc: np.ndarray  # (n,) a == b

    @classmethod
    def of(cls, es: Sequence[Ellipse]) -> Frames:
        n = len(es)
        arr = np.array([(e.cx, e.cy, e.a, e.b, e.theta) for e in es], dtype=float).reshape(n, 5)
        return cls.from_arrays(arr[:, :2], arr[:, 2], arr[:, 3], arr[:, 4])

    @classmethod
    def from_arrays(cls, c: np.ndarray, a: np.ndarray, b: np.ndarray, theta: np.ndarray
                    ) -> Frames:
        co, si = np.cos(theta), np.sin(theta)
        Minv = np.stack([np.stack([co * a, -si * b], axis=1), np.stack([si * a, co * b], axis=1)],
                        axis=1)
        M = np.stack([np.stack([co / a, si / a], axis=1), np.stack([-si / b, co / b], axis=1)],
                     axis=1)
        return cls(np.asarray(c, dtype=float).reshape(-1, 2), M, Minv,
                   np.einsum("kij,klj->kil", Minv, Minv), a, b, theta, np.abs(a - b) < SAME_AXES)

    def __len__(self) -> int:
        return len(self.a)

    def take(self, idx: np.ndarray) -> Frames:
        return Frames(self.c[idx], self.M[idx], self.Minv[idx], self.Sigma[idx], self.a[idx],
                      self.b[idx], self.theta[idx], self.disc[idx])

    def ellipse(self, k: int) -> Ellipse:
        return Ellipse(float(self.c[k, 0]), float(self.c[k, 1]), float(self.a[k]),
                       float(self.b[k]), float(self.theta[k]))


def apply(M: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Row-wise M[k] @ v[k] for 2×2 matrices (explicit: cheaper than einsum at this size)."""
    return np.stack([M[:, 0, 0] * v[:, 0] + M[:, 0, 1] * v[:, 1],
                     M[:, 1, 0] * v[:, 0] + M[:, 1, 1] * v[:, 1]], axis=1)


def chords(f: Frames, P: np.ndarray, D: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Chord [t1, t2] of each line P + t D with its base; `ok` False where the line misses."""
    p = apply(f.M, P - f.c)
    d = apply(f.M, D)
    dd = d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        t0 = -(p[:, 0] * d[:, 0] + p[:, 1] * d[:, 1]) / dd
        fx, fy = p[:, 0] + t0 * d[:, 0], p[:, 1] + t0 * d[:, 1]
        delta2 = fx * fx + fy * fy
        half = np.sqrt(np.maximum(0.0, 1.0 - delta2) / dd)
    ok = delta2 <= (1.0 + TANGENT_SLACK) ** 2
    return t0 - half, t0 + half, ok


def gaps(fa: Frames, fb: Frames, P: np.ndarray, D: np.ndarray
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Gap segments (n, 2, 2) from a's chord to b's chord on each line, a validity mask, and the
    parameters (lo ≤ hi, in units of ``|D|``) of the gap's two ends along P + t D."""
    a1, a2, oka = chords(fa, P, D)
    b1, b2, okb = chords(fb, P, D)
    fwd = a2 <= b1
    ok = oka & okb & (fwd | (b2 <= a1))
    ta = np.where(fwd, a2, a1)
    tb = np.where(fwd, b1, b2)
    seg = np.stack([P + ta[:, None] * D, P + tb[:, None] * D], axis=1)
    return seg, ok, np.minimum(ta, tb), np.maximum(ta, tb)


def tangents_from(f: Frames, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The lines through each point X[k] tangent to base k: rows 2k and 2k + 1 (P = X, direction
    D); `ok` False for a point inside the base. A point on the rim gets the rim tangent twice."""
    x = apply(f.M, X - f.c)
    rho = np.hypot(x[:, 0], x[:, 1])
    ok = rho >= 1.0 - ROUND_OFF
    alpha = np.arctan2(x[:, 1], x[:, 0])
    beta = np.arccos(np.minimum(1.0, 1.0 / np.where(rho > 0, rho, 1.0)))
    rim_d = apply(f.Minv, np.column_stack((-x[:, 1], x[:, 0])))
    Ds = []
    for sgn in (1.0, -1.0):
        ang = alpha + sgn * beta
        T = f.c + apply(f.Minv, np.column_stack((np.cos(ang), np.sin(ang))))
        D = T - X
        rim = np.hypot(D[:, 0], D[:, 1]) < ZERO_LENGTH
        Ds.append(np.where(rim[:, None], rim_d, D))
    n = len(X)
    D = np.empty((2 * n, 2))
    D[0::2], D[1::2] = Ds
    return np.repeat(X, 2, axis=0), D, np.repeat(ok, 2)


def _disc_tangents(ca: np.ndarray, cb: np.ndarray, ra: np.ndarray, rb: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    v = cb - ca
    d = np.hypot(v[:, 0], v[:, 1])
    safe = np.where(d > ZERO_LENGTH, d, 1.0)
    e = v / safe[:, None]
    ep = np.column_stack((-e[:, 1], e[:, 0]))
    ns, oks = [], []
    for k in ((ra - rb) / safe, (ra + rb) / safe):  # outer, inner
        s = np.sqrt(np.maximum(0.0, 1 - k * k))
        for sgn in (1.0, -1.0):
            ns.append(k[:, None] * e + (sgn * s)[:, None] * ep)
            oks.append((np.abs(k) <= 1.0) & (d > ZERO_LENGTH))
    n = np.stack(ns, axis=1)  # (m, 4, 2)
    P = ca[:, None, :] + ra[:, None, None] * n
    return P, np.stack([-n[..., 1], n[..., 0]], axis=-1), np.stack(oks, axis=1)


def _quartic_roots(coeffs: np.ndarray) -> np.ndarray:
    """(m, 4) angles t of the real roots u = tan(t/2) of each row's quartic; NaN pads."""
    m = len(coeffs)
    out = np.full((m, 4), np.nan)
    scale = np.max(np.abs(coeffs), axis=1)
    scale = np.where(scale > 0, scale, 1.0)
    lead = np.abs(coeffs[:, 0]) > ROUND_OFF_RELATIVE * scale
    rows = np.nonzero(lead)[0]
    if len(rows):
        comp = np.zeros((len(rows), 4, 4))
        comp[:, 0, :] = -coeffs[rows, 1:] / coeffs[rows, :1]
        comp[:, 1, 0] = comp[:, 2, 1] = comp[:, 3, 2] = 1.0
        roots = np.linalg.eigvals(comp)
        real = np.abs(roots.imag) <= REAL_ROOT * (1 + np.abs(roots.real))
        out[rows] = np.where(real, 2 * np.arctan(roots.real), np.nan)
    for r in np.nonzero(~lead)[0].tolist():  # a root at u = ∞ (t = π): rare, one by one
        roots = np.roots(coeffs[r])
        real = roots[np.abs(roots.imag) <= REAL_ROOT * (1 + np.abs(roots.real))].real
        t = [*(2 * np.arctan(real)).tolist(), math.pi][:4]
        out[r, :len(t)] = t
    return out


def _oval_tangents(fa: Frames, fb: Frames) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    c = apply(fa.M, fb.c - fa.c)
    S = np.einsum("kij,kjl,kml->kim", fa.M, fb.Sigma, fa.M)
    x0, y0 = c[:, 0], c[:, 1]
    qa, qb, qc = x0 * x0 - S[:, 0, 0], 2 * (x0 * y0 - S[:, 0, 1]), y0 * y0 - S[:, 1, 1]
    # (1+u²)² [Q(cos, sin) + L(cos, sin) + 1] with cos = (1−u²)/(1+u²), sin = 2u/(1+u²)
    coeffs = np.stack([qa + 2 * x0 + 1, -2 * qb - 4 * y0, -2 * qa + 4 * qc + 2, 2 * qb - 4 * y0,
                       qa - 2 * x0 + 1], axis=1)
    t = _quartic_roots(coeffs)
    ok = ~np.isnan(t)
    t = np.where(ok, t, 0.0)
    s00, s01, s11 = S[:, 0, 0, None], S[:, 0, 1, None], S[:, 1, 1, None]
    for _ in range(3):  # Newton on (1 − n·c)² − nᵀSn
        co, si = np.cos(t), np.sin(t)
        lin = 1 - co * x0[:, None] - si * y0[:, None]
        quad = s00 * co * co + 2 * s01 * co * si + s11 * si * si
        dlin = si * x0[:, None] - co * y0[:, None]
        dquad = 2 * (s11 - s00) * co * si + 2 * s01 * (co * co - si * si)
        val, der = lin * lin - quad, 2 * lin * dlin - dquad
        step = np.where(np.abs(der) > DIVISION_FLOOR, val / np.where(der == 0, 1.0, der), 0.0)
        t = t - np.clip(step, -0.1, 0.1)
    n = np.stack([np.cos(t), np.sin(t)], axis=-1)  # (m, 4, 2)
    P = fa.c[:, None, :] + np.einsum("kij,kmj->kmi", fa.Minv, n)
    perp = np.stack([-n[..., 1], n[..., 0]], axis=-1)
    return P, np.einsum("kij,kmj->kmi", fa.Minv, perp), ok


def common_tangents(fa: Frames, fb: Frames) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The common tangent lines of each pair of bases (row k: fa[k], fb[k]): P (n, 4, 2) on a,
    direction D (n, 4, 2), and `ok` (n, 4) marking the lines that exist (4 for disjoint bases)."""
    n = len(fa)
    P, D = np.zeros((n, 4, 2)), np.zeros((n, 4, 2))
    ok = np.zeros((n, 4), dtype=bool)
    disc = fa.disc & fb.disc
    if disc.any():
        P[disc], D[disc], ok[disc] = _disc_tangents(fa.c[disc], fb.c[disc], fa.a[disc],
                                                    fb.a[disc])
    if (~disc).any():
        ov = np.nonzero(~disc)[0]
        P[ov], D[ov], ok[ov] = _oval_tangents(fa.take(ov), fb.take(ov))
    return P, D, ok


def outer_sides(fa: Frames, fb: Frames) -> tuple[np.ndarray, np.ndarray]:
    """(n, 2, 2, 2): the gap segments of the two outer common tangents — the two sides of
    hull(a ∪ b) between the bases, tangent point on a first — and a mask of the rows where both
    were found. Two discs: closed form (the tangent points are ca + ra·n and cb + rb·n for the
    outward normals n); otherwise from `common_tangents`."""
    n = len(fa)
    if n == 1 and fa.disc[0] and fb.disc[0]:  # one pair of discs (a single question): scalars
        (ax, ay), (bx, by), r1, r2 = fa.c[0], fb.c[0], float(fa.a[0]), float(fb.a[0])
        dd = math.hypot(bx - ax, by - ay)
        kk = (r1 - r2) / dd if dd > 0 else 2.0
        if abs(kk) >= 1.0:
            return np.full((1, 2, 2, 2), np.nan), np.zeros(1, dtype=bool)
        ex, ey, ww = (bx - ax) / dd, (by - ay) / dd, math.sqrt(1 - kk * kk)
        ns = [(kk * ex - sgn * ww * ey, kk * ey + sgn * ww * ex) for sgn in (1.0, -1.0)]
        return (np.array([[[ax + r1 * nx, ay + r1 * ny], [bx + r2 * nx, by + r2 * ny]]
                          for nx, ny in ns]).reshape(1, 2, 2, 2), np.ones(1, dtype=bool))
    sides = np.full((n, 2, 2, 2), np.nan)
    good = np.zeros(n, dtype=bool)
    disc = fa.disc & fb.disc
    if disc.all():
        rows: slice | np.ndarray = slice(None)
    else:
        rows = np.nonzero(disc)[0]
    if disc.any():
        ca, cb, ra, rb = fa.c[rows], fb.c[rows], fa.a[rows], fb.a[rows]
        v = cb - ca
        d = np.hypot(v[:, 0], v[:, 1])
        safe = np.where(d > 0, d, 1.0)
        e = v / safe[:, None]
        k = (ra - rb) / safe
        w = np.sqrt(np.maximum(0.0, 1 - k * k))
        nk = k[:, None] * e
        nw = w[:, None] * np.stack([-e[:, 1], e[:, 0]], axis=1)
        N = np.stack([nk + nw, nk - nw], axis=1)  # the two outward normals
        sides[rows] = np.stack([ca[:, None, :] + ra[:, None, None] * N,
                                cb[:, None, :] + rb[:, None, None] * N], axis=2)
        good[rows] = (d > 0) & (np.abs(k) < 1.0)
        if disc.all():
            return sides, good
    ov = np.nonzero(~disc)[0]
    if len(ov):
        fa_o, fb_o = fa.take(ov), fb.take(ov)
        P, D, ok = common_tangents(fa_o, fb_o)
        N = np.stack([-D[..., 1], D[..., 0]], axis=-1)
        sa = np.einsum("kmj,kmj->km", N, fa_o.c[:, None, :] - P)
        sb = np.einsum("kmj,kmj->km", N, fb_o.c[:, None, :] - P)
        outer = ok & (np.sign(sa) == np.sign(sb))
        two = np.nonzero(outer.sum(axis=1) == 2)[0]
        if len(two):
            pick = np.argsort(~outer[two], axis=1, kind="stable")[:, :2]
            Pp = np.take_along_axis(P[two], pick[..., None], axis=1).reshape(-1, 2)
            Dp = np.take_along_axis(D[two], pick[..., None], axis=1).reshape(-1, 2)
            twice = np.repeat(two, 2)
            seg, gok, _, _ = gaps(fa_o.take(twice), fb_o.take(twice), Pp, Dp)
            both = gok.reshape(-1, 2).all(axis=1)
            sides[ov[two[both]]] = seg.reshape(-1, 2, 2, 2)[both]
            good[ov[two[both]]] = True
    return sides, good


def rim_edge_points(f: Frames, A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points where edge A[k]→B[k] crosses the rim of base k, and the row each came from."""
    p = apply(f.M, A - f.c)
    d = apply(f.M, B - A)
    aa = d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1]
    bb = p[:, 0] * d[:, 0] + p[:, 1] * d[:, 1]
    cc = p[:, 0] * p[:, 0] + p[:, 1] * p[:, 1] - 1.0
    disc = bb * bb - aa * cc
    good = (disc >= 0) & (aa > 0)
    sq = np.sqrt(np.where(good, disc, 0.0))
    pts, src = [], []
    for sgn in (-1.0, 1.0):
        t = (-bb + sgn * sq) / np.where(aa > 0, aa, 1.0)
        m = good & (t >= 0) & (t <= 1)
        pts.append(A[m] + t[m, None] * (B[m] - A[m]))
        src.append(np.nonzero(m)[0])
    return np.vstack(pts), np.concatenate(src)

