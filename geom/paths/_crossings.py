"""Where the boundary pieces of an end set cross, and where a last leg can meet them (rulebook
§8.7.7 step 3; the geometry behind `geom.paths._region_path`).

Circles, segments and convex curves (`geom.paths._endset.Primitives`): their crossings in closed form
for circles and segments, and for curves by sampling the normal angle ψ and bisecting every sign
change to 1e-13 rad (`curve_roots_rows`, many functions at once); the points of each piece
nearest to a point (`feet`); the points of a set nearest to a point (`nearest_members`); and
the last legs that leave a corner circle towards the pieces (`legs_from_circle`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

import numpy as np
import shapely
from numpy.typing import NDArray

from ..tolerance import (
    DIVISION_FLOOR,
    ON_CIRCLE,
    PARAMETER_SLACK,
    QUERY_MARGIN,
    ROUND_OFF,
    SEGMENT_PARALLEL,
    ZERO_LENGTH,
    ZERO_LENGTH_SQUARED,
)
from ._end_shapes import CURVE_SAMPLES, Arr, Curve, shape_bounds
from ._endset import EndSet, Primitives


def _pairs(n: int, m: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    return np.repeat(np.arange(n), m), np.tile(np.arange(m), n)


def circle_circle(a: Arr, b: Arr) -> Arr:
    """Crossing points of every circle of a with every circle of b."""
    if not len(a) or not len(b):
        return np.zeros((0, 2))
    i, j = _pairs(len(a), len(b))
    dx, dy = b[j, 0] - a[i, 0], b[j, 1] - a[i, 1]
    D = np.hypot(dx, dy)
    ra, rb = a[i, 2], b[j, 2]
    ok = (D > ZERO_LENGTH) & (D <= ra + rb + ROUND_OFF) & (D >= np.abs(ra - rb) - ROUND_OFF)
    if not ok.any():
        return np.zeros((0, 2))
    i, dx, dy, D, ra, rb = i[ok], dx[ok], dy[ok], D[ok], ra[ok], rb[ok]
    t = (ra * ra - rb * rb + D * D) / (2 * D)
    h = np.sqrt(np.maximum(ra * ra - t * t, 0.0))
    mx, my = a[i, 0] + t * dx / D, a[i, 1] + t * dy / D
    ox, oy = -dy / D * h, dx / D * h
    return np.vstack([np.column_stack((mx + ox, my + oy)), np.column_stack((mx - ox, my - oy))])


def circle_segment(c: Arr, s: Arr) -> Arr:
    if not len(c) or not len(s):
        return np.zeros((0, 2))
    if len(c) * len(s) <= 4096:
        i, j = _pairs(len(c), len(s))
    else:
        tree = shapely.STRtree(shapely.linestrings(s.reshape(-1, 2, 2)))
        i, j = tree.query(shapely.points(c[:, :2]), predicate="dwithin",
                          distance=float(c[:, 2].max()) + QUERY_MARGIN)
    p0 = s[j, :2]
    d = s[j, 2:] - p0
    L = np.hypot(d[:, 0], d[:, 1])
    good = L > ZERO_LENGTH
    i, p0, d, L = i[good], p0[good], d[good], L[good]
    u = d / L[:, None]
    w = p0 - c[i, :2]
    b = (w * u).sum(axis=1)
    disc = b * b - ((w * w).sum(axis=1) - c[i, 2] ** 2)
    ok = disc >= -ROUND_OFF
    out = []
    sq = np.sqrt(np.maximum(disc, 0.0))
    for t in (-b - sq, -b + sq):
        inside = ok & (t >= -PARAMETER_SLACK) & (t <= L + PARAMETER_SLACK)
        out.append(p0[inside] + t[inside, None] * u[inside])
    return np.vstack(out)


def _segment_pairs(s: Arr, z: Arr) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Pairs of segments whose boxes meet (an STR-tree query, not all pairs)."""
    if len(s) * len(z) <= 4096:
        return _pairs(len(s), len(z))
    tree = shapely.STRtree(shapely.linestrings(z.reshape(-1, 2, 2)))
    i, j = tree.query(shapely.linestrings(s.reshape(-1, 2, 2)), predicate="intersects")
    return i.astype(np.int64), j.astype(np.int64)


def segment_segment(s: Arr, z: Arr, gs: NDArray[np.int64] | None = None,
                    gz: NDArray[np.int64] | None = None) -> Arr:
    if not len(s) or not len(z):
        return np.zeros((0, 2))
    i, j = _segment_pairs(s, z)
    if gs is not None and gz is not None:  # not two edges of one polygon
        ok = (gs[i] < 0) | (gs[i] != gz[j])
        i, j = i[ok], j[ok]
    p, r = s[i, :2], s[i, 2:] - s[i, :2]
    q, w = z[j, :2], z[j, 2:] - z[j, :2]
    den = r[:, 0] * w[:, 1] - r[:, 1] * w[:, 0]
    ok = np.abs(den) > SEGMENT_PARALLEL
    qp = q - p
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (qp[:, 0] * w[:, 1] - qp[:, 1] * w[:, 0]) / den
        u = (qp[:, 0] * r[:, 1] - qp[:, 1] * r[:, 0]) / den
    ok &= (t >= -PARAMETER_SLACK) & (t <= 1 + PARAMETER_SLACK) & (u >= -PARAMETER_SLACK) & (u <= 1 + PARAMETER_SLACK)
    return p[ok] + t[ok, None] * r[ok]


def curve_roots_rows(f: Callable[[Arr], Arr], m: int, n: int = CURVE_SAMPLES
                     ) -> tuple[NDArray[np.int64], Arr]:
    """For m periodic functions at once (f maps angles of shape (m, k) to values of that
    shape): the (row, ψ) of every sign change, bisected to 1e-13."""
    grid = np.broadcast_to(np.linspace(0.0, 2 * math.pi, n + 1), (m, n + 1))
    v = f(np.ascontiguousarray(grid))
    flo, fhi = v[:, :-1], v[:, 1:]
    ch = (np.sign(flo) != np.sign(fhi)) | (flo == 0)
    rows, cols = np.nonzero(ch)
    if not len(rows):
        return rows.astype(np.int64), np.zeros(0)
    lo, hi, fl = grid[rows, cols], grid[rows, cols + 1], flo[rows, cols]
    order = np.argsort(rows, kind="stable")
    rows, lo, hi, fl = rows[order], lo[order], hi[order], fl[order]
    counts = np.bincount(rows, minlength=m)
    width = int(counts.max())
    # pad to (m, width) so that f sees whole rows
    pos = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
    L = np.zeros((m, width))
    H = np.zeros((m, width))
    FL = np.ones((m, width))
    L[rows, pos], H[rows, pos], FL[rows, pos] = lo, hi, fl
    for _ in range(45):
        mid = (L + H) / 2
        fm = f(mid)
        left = np.sign(fm) == np.sign(FL)
        L = np.where(left, mid, L)
        FL = np.where(left, fm, FL)
        H = np.where(left, H, mid)
    return rows.astype(np.int64), ((L + H) / 2)[rows, pos]


def support_many(curves: Sequence[Curve], psi: Arr) -> tuple[Arr, Arr]:
    """Boundary points z(ψ) of many curves at once: row i of `psi` belongs to curves[i]."""
    m = len(curves)
    cx = np.array([c.cx for c in curves])[:, None]
    cy = np.array([c.cy for c in curves])[:, None]
    d = np.array([c.d for c in curves])[:, None]
    nx, ny = np.cos(psi), np.sin(psi)
    zx, zy = cx + d * nx, cy + d * ny
    for k in range(max((len(c.sigmas) for c in curves), default=0)):
        sg = np.array([c.sigmas[k] if len(c.sigmas) > k else (0.0, 0.0, 0.0) for c in curves])
        sxx, sxy, syy = sg[:, 0, None], sg[:, 1, None], sg[:, 2, None]
        w = np.sqrt(np.maximum(sxx * nx * nx + 2 * sxy * nx * ny + syy * ny * ny, DIVISION_FLOOR))
        has = np.any(sg != 0, axis=1)[:, None]
        zx = zx + np.where(has, (sxx * nx + sxy * ny) / w, 0.0)
        zy = zy + np.where(has, (sxy * nx + syy * ny) / w, 0.0)
    assert zx.shape[0] == m
    return zx, zy


def _support_rows(cv: Curve, psi: Arr) -> tuple[Arr, Arr]:
    z, _ = cv.support(psi.ravel())
    return z[:, 0].reshape(psi.shape), z[:, 1].reshape(psi.shape)


def curve_crossings(cv: Curve, p: Primitives, group: int = -1, after: int = -1) -> Arr:
    """Where the convex curve crosses the other pieces (pieces out of its box, curves of its
    own group and curves listed before index `after` + 1, skipped)."""
    out: list[Arr] = []
    bx0, by0, bx1, by1 = shape_bounds(cv)
    c = p.circles
    c = c[(c[:, 0] + c[:, 2] >= bx0) & (c[:, 0] - c[:, 2] <= bx1)
          & (c[:, 1] + c[:, 2] >= by0) & (c[:, 1] - c[:, 2] <= by1)]
    if len(c):
        def f_circle(t: Arr) -> Arr:
            zx, zy = _support_rows(cv, t)
            return np.hypot(zx - c[:, 0, None], zy - c[:, 1, None]) - c[:, 2, None]

        _, psi = curve_roots_rows(f_circle, len(c))
        out.append(cv.support(psi)[0])
    sg = p.segments
    sg = sg[(np.maximum(sg[:, 0], sg[:, 2]) >= bx0) & (np.minimum(sg[:, 0], sg[:, 2]) <= bx1)
            & (np.maximum(sg[:, 1], sg[:, 3]) >= by0) & (np.minimum(sg[:, 1], sg[:, 3]) <= by1)]
    L = np.hypot(sg[:, 2] - sg[:, 0], sg[:, 3] - sg[:, 1])
    sg, L = sg[L > ZERO_LENGTH], L[L > ZERO_LENGTH]
    if len(sg):
        u = (sg[:, 2:] - sg[:, :2]) / L[:, None]
        m = np.column_stack((-u[:, 1], u[:, 0]))

        def f_line(t: Arr) -> Arr:
            zx, zy = _support_rows(cv, t)
            return (zx - sg[:, 0, None]) * m[:, 0, None] + (zy - sg[:, 1, None]) * m[:, 1, None]

        rows, psi = curve_roots_rows(f_line, len(sg))
        z = cv.support(psi)[0]
        t = ((z - sg[rows, :2]) * u[rows]).sum(axis=1)
        out.append(z[(t >= -PARAMETER_SLACK) & (t <= L[rows] + PARAMETER_SLACK)])
    others = []
    for i, (other, og) in enumerate(zip(p.curves, p.curve_group, strict=True)):
        if other is cv or (group >= 0 and og == group) or i <= after:
            continue
        ox0, oy0, ox1, oy1 = shape_bounds(other)
        if not (ox1 < bx0 or ox0 > bx1 or oy1 < by0 or oy0 > by1):
            others.append(other)
    plain = [o for o in others if len(o.sigmas) == 1 and o.d == 0]
    if plain:  # plain ellipses: one batched closed form
        el = [o.ellipse0 for o in plain]
        ex = np.array([[e.cx, e.cy, e.a, e.b, math.cos(e.theta), math.sin(e.theta)]
                       for e in el])

        def f_ellipses(t: Arr) -> Arr:
            zx, zy = _support_rows(cv, t)
            dx, dy = zx - ex[:, 0, None], zy - ex[:, 1, None]
            u = (ex[:, 4, None] * dx + ex[:, 5, None] * dy) / ex[:, 2, None]
            v = (-ex[:, 5, None] * dx + ex[:, 4, None] * dy) / ex[:, 3, None]
            return (np.hypot(u, v) - 1.0) * ex[:, 3, None]

        _, psi = curve_roots_rows(f_ellipses, len(plain), 180)
        out.append(cv.support(psi)[0])
    for other in others:
        if other in plain:
            continue

        def f_curve(t: Arr, o: Curve = other) -> Arr:
            zx, zy = _support_rows(cv, t)
            return o.implicit(np.column_stack((zx.ravel(), zy.ravel()))).reshape(t.shape)

        _, psi = curve_roots_rows(f_curve, 1, 180)
        out.append(cv.support(psi)[0])
    return np.vstack(out) if out else np.zeros((0, 2))


def feet(p: Primitives, s: Arr) -> Arr:
    """The points of each boundary piece where a straight leg from s meets it square."""
    out: list[Arr] = []
    c = p.circles
    if len(c):
        d = s - c[:, :2]
        D = np.hypot(d[:, 0], d[:, 1])
        ok = D > ZERO_LENGTH
        u = d[ok] / D[ok, None]
        out += [c[ok, :2] + c[ok, 2:3] * u, c[ok, :2] - c[ok, 2:3] * u]
    sg = p.segments
    if len(sg):
        p0, dv = sg[:, :2], sg[:, 2:] - sg[:, :2]
        L2 = np.maximum((dv * dv).sum(axis=1), ZERO_LENGTH_SQUARED)
        t = np.clip(((s - p0) * dv).sum(axis=1) / L2, 0.0, 1.0)
        out.append(p0 + t[:, None] * dv)
    for cv in p.curves:
        if cv.separation(s[None, :])[0] > 0:
            out.append(np.array([cv.nearest((float(s[0]), float(s[1])))]))
    return np.vstack(out) if out else np.zeros((0, 2))


def vertices(p: Primitives) -> Arr:
    """Every point where two boundary pieces cross, and the corners worth trying."""
    parts = [p.points, circle_circle(p.circles, p.circles),
             circle_segment(p.circles, p.segments),
             segment_segment(p.segments, p.segments, p.group, p.group)]
    # each pair of curves once, the one with a closed form as the one sampled
    order = sorted(range(len(p.curves)),
                   key=lambda i: len(p.curves[i].sigmas) == 1 and p.curves[i].d == 0)
    q = replace(p, curves=[p.curves[i] for i in order],
                curve_group=[p.curve_group[i] for i in order])
    for i, (cv, g) in enumerate(zip(q.curves, q.curve_group, strict=True)):
        parts.append(curve_crossings(cv, q, g, after=i))
    return np.vstack(parts)


def cross_vertices(a: Primitives, b: Primitives) -> Arr:
    """Where a piece of `a` crosses a piece of `b`, and b's corners: with `vertices` of each,
    the vertices of the two together (a set narrowed by a new include group reuses its own)."""
    parts = [b.points, circle_circle(a.circles, b.circles), circle_segment(a.circles, b.segments),
             circle_segment(b.circles, a.segments), segment_segment(a.segments, b.segments)]
    plain_b = Primitives(b.circles, b.segments)
    parts += [curve_crossings(cv, a) for cv in b.curves]
    parts += [curve_crossings(cv, plain_b) for cv in a.curves]
    return np.vstack(parts)


def nearest_members(es: EndSet, toward: tuple[float, float], grid: float = 0.125,
                    extra: Primitives | None = None) -> Iterator[Arr]:
    """Points of the set by distance from `toward`: first every point where the distance can
    be least (the nearest points of the boundary pieces, their crossings, `toward` itself),
    then — only if the caller asks for more — a grid of the window at spacing `grid` (for
    callers whose own test rejects those)."""
    w = es.window()
    if w is None:
        return
    es = es.near(w)
    p = es.pieces(w, extra)
    s = np.asarray(toward, dtype=float)
    cand = es.nudge(np.vstack([vertices(p), feet(p, s), s[None, :]]))
    cand = cand[es.contains(cand)]
    yield from cand[np.argsort(np.hypot(*(cand - s).T), kind="stable")]
    xs = np.arange(w[0], w[2] + grid, grid)
    ys = np.arange(w[1], w[3] + grid, grid)
    g = np.column_stack([a.ravel() for a in np.meshgrid(xs, ys)])
    g = g[es.contains(g)]
    yield from g[np.argsort(np.hypot(*(g - s).T), kind="stable")]


# --------------------------------------------------------------------------- rays

def ray_crossings(o: Arr, u: Arr, p: Primitives, reach: float = 1e4
                  ) -> tuple[NDArray[np.int64], Arr]:
    """Where the rays o[k] + t·u[k] (unit u, 0 ≤ t ≤ reach) cross the boundary pieces: the ray
    of each crossing and the point (closed forms for circles and segments, bisection to 1e-13
    rad for curves)."""
    idx: list[NDArray[np.int64]] = []
    pts: list[Arr] = []
    n = len(o)
    c = p.circles
    if n and len(c):
        k, j = _pairs(n, len(c))
        w = o[k] - c[j, :2]
        b = (w * u[k]).sum(axis=1)
        disc = b * b - ((w * w).sum(axis=1) - c[j, 2] ** 2)
        ok = disc >= -ROUND_OFF
        sq = np.sqrt(np.maximum(disc, 0.0))
        for t in (-b - sq, -b + sq):
            inside = ok & (t >= -PARAMETER_SLACK) & (t <= reach)
            idx.append(k[inside])
            pts.append(o[k[inside]] + t[inside, None] * u[k[inside]])
    sg = p.segments
    if n and len(sg):
        k, j = _pairs(n, len(sg))
        q, w, r = sg[j, :2], sg[j, 2:] - sg[j, :2], u[k]
        den = r[:, 0] * w[:, 1] - r[:, 1] * w[:, 0]
        qp = q - o[k]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (qp[:, 0] * w[:, 1] - qp[:, 1] * w[:, 0]) / den
            s = (qp[:, 0] * r[:, 1] - qp[:, 1] * r[:, 0]) / den
        ok = (np.abs(den) > SEGMENT_PARALLEL) & (t >= -PARAMETER_SLACK) & (t <= reach) & (s >= -PARAMETER_SLACK) & (s <= 1 + PARAMETER_SLACK)
        idx.append(k[ok])
        pts.append(o[k[ok]] + t[ok, None] * r[ok])
    if n and p.curves:
        m = np.column_stack((-u[:, 1], u[:, 0]))
        for cv in p.curves:
            def f(psi: Arr, cv: Curve = cv) -> Arr:
                zx, zy = _support_rows(cv, psi)
                return (zx - o[:, 0, None]) * m[:, 0, None] + (zy - o[:, 1, None]) * m[:, 1, None]

            rows, psi = curve_roots_rows(f, n)
            if not len(rows):
                continue
            z = cv.support(psi)[0]
            t = ((z - o[rows]) * u[rows]).sum(axis=1)
            ok = (t >= -PARAMETER_SLACK) & (t <= reach)
            idx.append(rows[ok])
            pts.append(z[ok])
    if not idx:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 2))
    return np.concatenate(idx).astype(np.int64), np.vstack(pts)


def tangent_rays(o: Arr, rho: float, circles: Arr) -> tuple[Arr, Arr]:
    """The common tangents of the circle (o, rho) — a point when rho = 0 — and each of
    `circles` (x, y, r): for each, where it leaves (o, rho) and where it touches the other
    circle (up to four per circle; two from a point)."""
    if not len(circles):
        return np.zeros((0, 2)), np.zeros((0, 2))
    d = circles[:, :2] - o
    D = np.hypot(d[:, 0], d[:, 1])
    psi = np.arctan2(d[:, 1], d[:, 0])
    r = circles[:, 2]
    deps: list[Arr] = []
    tps: list[Arr] = []
    kinds = [(rho - r, 0.0)] if rho <= 0 else [(rho - r, 0.0), (rho + r, math.pi)]
    for num, flip in kinds:
        ok = D > np.abs(num) + ROUND_OFF
        a = np.arccos(np.clip(num[ok] / D[ok], -1, 1))
        for sgn in (1.0, -1.0):
            th = psi[ok] + sgn * a
            deps.append(o + rho * np.column_stack((np.cos(th), np.sin(th))))
            tps.append(circles[ok, :2] + r[ok, None] * np.column_stack((np.cos(th + flip),
                                                                        np.sin(th + flip))))
    return np.vstack(deps), np.vstack(tps)


def ray_legs(o: Arr, rho: float, circles: Arr, p: Primitives) -> tuple[Arr, Arr]:
    """Last legs that leave the circle (o, rho) (or the point o) tangentially, pass tangent to
    one of `circles` and stop where they touch it or cross a boundary piece beyond it: (where
    each leaves, where it ends)."""
    dep, tp = tangent_rays(o, rho, circles)
    if not len(dep):
        return dep, tp
    v = tp - dep
    L = np.hypot(v[:, 0], v[:, 1])
    keep = L > ZERO_LENGTH
    dep, tp, v, L = dep[keep], tp[keep], v[keep], L[keep]
    u = v / L[:, None]
    k, x = ray_crossings(tp, u, p)
    return np.vstack([dep, dep[k]]), np.vstack([tp, x])


def legs_from_circle(o: Arr, rho: float, p: Primitives, verts: Arr,
                      rays: Arr | None = None) -> tuple[Arr, Arr, NDArray[np.bool_]]:
    """Departure points on circle (o, rho) and ends of the legs that leave it tangentially and
    may be shortest (see `geom.paths._region_path`). `fresh`: the end still needs a membership
    test (the crossing points `verts` passed it already)."""
    deps: list[Arr] = []
    ends: list[Arr] = []
    fresh: list[NDArray[np.bool_]] = []

    def add(d: Arr, e: Arr, new: bool) -> None:
        deps.append(d)
        ends.append(e)
        fresh.append(np.full(len(e), new))

    if len(verts):  # tangents from the crossing points
        d = verts - o
        D = np.hypot(d[:, 0], d[:, 1])
        ok = D > rho + ON_CIRCLE
        phi = np.arctan2(d[ok, 1], d[ok, 0])
        a = np.arccos(np.clip(rho / D[ok], -1, 1))
        for sgn in (1.0, -1.0):
            add(o + rho * np.column_stack((np.cos(phi + sgn * a), np.sin(phi + sgn * a))),
                verts[ok], False)
        on = np.abs(D - rho) <= ON_CIRCLE
        add(verts[on], verts[on], False)
    sg = p.segments
    if len(sg):  # legs square to a segment
        p0, dv = sg[:, :2], sg[:, 2:] - sg[:, :2]
        L = np.hypot(dv[:, 0], dv[:, 1])
        good = L > ZERO_LENGTH
        p0, dv, L = p0[good], dv[good], L[good]
        u = dv / L[:, None]
        for sgn in (1.0, -1.0):
            dep = o + sgn * rho * u
            t = ((dep - p0) * u).sum(axis=1)
            inside = (t >= -PARAMETER_SLACK) & (t <= L + PARAMETER_SLACK)
            add(dep[inside], (p0 + t[:, None] * u)[inside], True)
        cs = circle_segment(np.array([[o[0], o[1], rho]]), sg)
        add(cs, cs, True)
    c = p.circles
    if len(c):  # legs along a line through a circle's centre
        d = c[:, :2] - o
        D = np.hypot(d[:, 0], d[:, 1])
        ok = D > rho + ON_CIRCLE
        q, sig, D = c[ok, :2], c[ok, 2], D[ok]
        phi = np.arctan2(q[:, 1] - o[1], q[:, 0] - o[0])
        a = np.arccos(np.clip(rho / D, -1, 1))
        for sgn in (1.0, -1.0):
            dep = o + rho * np.column_stack((np.cos(phi + sgn * a), np.sin(phi + sgn * a)))
            w = dep - q
            w = w / np.maximum(np.hypot(w[:, 0], w[:, 1]), DIVISION_FLOOR)[:, None]
            for side in (1.0, -1.0):
                add(dep, q + side * sig[:, None] * w, True)
        cc = circle_circle(np.array([[o[0], o[1], rho]]), c)
        add(cc, cc, True)
    if p.curves:  # legs along a curve's normal, tangent to the circle: all curves at once
        cvs = [cv for cv in p.curves for _ in (0, 1)]
        offset = np.tile([rho, -rho], len(p.curves))[:, None]

        def f(t: Arr) -> Arr:
            zx, zy = support_many(cvs, t)
            return np.cos(t) * (o[1] - zy) - np.sin(t) * (o[0] - zx) - offset

        rows, psi = curve_roots_rows(f, len(cvs))
        if len(rows):
            zx, zy = support_many([cvs[r] for r in rows], psi[:, None])
            z = np.column_stack((zx[:, 0], zy[:, 0]))
            n = np.column_stack((np.cos(psi), np.sin(psi)))
            add(z + ((o - z) * n).sum(axis=1)[:, None] * n, z, True)
        circ = Primitives(circles=np.array([[o[0], o[1], rho]]))
        for cv in p.curves:
            bx0, by0, bx1, by1 = shape_bounds(cv)
            if bx0 - rho <= o[0] <= bx1 + rho and by0 - rho <= o[1] <= by1 + rho:
                cx = curve_crossings(cv, circ)
                add(cx, cx, True)
    if rays is not None and len(rays):  # legs tangent to the circles of `rays`
        rd, re = ray_legs(o, rho, rays, p)
        add(rd, re, True)
    if not ends:
        return np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0, dtype=bool)
    return np.vstack(deps), np.vstack(ends), np.concatenate(fresh)
