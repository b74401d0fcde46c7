"""Exact geometry of bases: discs and ovals (ellipses), for distances (rulebook §4.1, §4.2).

Guarantees, per function:

- disc answers are closed forms (exact to rounding);
- point-to-oval distance solves the normal-equation root by Newton's method, started where it
  converges monotonically, to double precision;
- whether an oval meets a geometry is decided exactly in the oval's unit-circle frame (an affine
  map keeps incidence, so "meets" becomes "the geometry comes within 1 of the origin");
- oval-to-oval distance is the separating-axis maximum of (min_B n·x − max_A n·x) over unit
  directions n, with the closed-form support function of an ellipse; oval-to-geometry distance
  minimises the distance from the rim point E(t). Both: 256 samples, then golden-section
  refinement of the three best brackets to ~1e-12; for disjoint convex shapes that is accurate
  to far better than 1e-6".

>>> from geom.model import Ellipse
>>> round(ellipse_distance(Ellipse(0, 0, 1, 1), Ellipse(5, 0, 1, 1)), 9)
3.0
>>> round(ellipse_distance(Ellipse(0, 0, 2, 1), Ellipse(5, 0, 1, 1)), 9)
2.0
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import shapely
from shapely import affinity
from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry

from .model import Battlefield, Ellipse, TerrainPiece
from .tolerance import DIVISION_FLOOR, GOLDEN_STEP, HULL_AREA_SLACK, NEWTON_CONVERGED, TOLERANCE

_SAMPLES = 256
_GOLDEN = (math.sqrt(5) - 1) / 2


def boundary_points(e: Ellipse, t: np.ndarray) -> np.ndarray:
    """Points E(t) on the base's rim, shape (len(t), 2)."""
    c, s = math.cos(e.theta), math.sin(e.theta)
    x, y = e.a * np.cos(t), e.b * np.sin(t)
    return np.column_stack((e.cx + c * x - s * y, e.cy + s * x + c * y))


def half_extents(e: Ellipse) -> tuple[float, float]:
    """Half width and half depth of the base along the table's axes (exact for an ellipse)."""
    c, s = math.cos(e.theta), math.sin(e.theta)
    return math.sqrt((e.a * c) ** 2 + (e.b * s) ** 2), math.sqrt((e.a * s) ** 2 + (e.b * c) ** 2)


def to_local(e: Ellipse, pts: np.ndarray) -> np.ndarray:
    """World points into the ellipse's own frame (centre at origin, long axis on x)."""
    c, s = math.cos(e.theta), math.sin(e.theta)
    dx, dy = pts[:, 0] - e.cx, pts[:, 1] - e.cy
    return np.column_stack((c * dx + s * dy, -s * dx + c * dy))


def point_distance(e: Ellipse, pts: np.ndarray | tuple[float, float]) -> np.ndarray:
    """Distance from each point to the base (0 inside). Vectorised over points."""
    p = np.atleast_2d(np.asarray(pts, dtype=float))
    if e.is_disc:
        d = np.hypot(p[:, 0] - e.cx, p[:, 1] - e.cy) - e.a
        return np.maximum(d, 0.0)
    loc = np.abs(to_local(e, p))
    y0, y1 = loc[:, 0], loc[:, 1]
    a, b = e.a, e.b
    inside = (y0 / a) ** 2 + (y1 / b) ** 2 <= 1.0
    # Closest rim point is (a²y0/(t+a²), b²y1/(t+b²)) for the root t>0 of
    # F(t) = (a y0/(t+a²))² + (b y1/(t+b²))² − 1, which is convex and decreasing for t > −b².
    # Newton's method started left of the root converges monotonically (and quadratically
    # near it); sqrt(a²y0² + b²y1²) − a² is such a start, as F ≥ 0 there.
    r = np.sqrt((a * y0) ** 2 + (b * y1) ** 2)
    t = np.maximum(0.0, r - a * a)
    for _ in range(40):
        pa, pb = a * y0 / (t + a * a), b * y1 / (t + b * b)
        f = pa * pa + pb * pb - 1
        df = -2 * (pa * pa / (t + a * a) + pb * pb / (t + b * b))
        # at the root to the last bit F may come out a hair below 0 with F' subnormal: the
        # step overflows to −∞ and is clamped to 0 below (converged), so no warning is due
        with np.errstate(over="ignore"):
            step = np.where(df < 0, -f / np.where(df < 0, df, -1.0), 0.0)
        step = np.where(inside, 0.0, np.maximum(step, 0.0))
        t = t + step
        if float(np.max(step / np.maximum(t, DIVISION_FLOOR), initial=0.0)) < NEWTON_CONVERGED:
            break
    qx, qy = a * a * y0 / (t + a * a), b * b * y1 / (t + b * b)
    d = np.hypot(y0 - qx, y1 - qy)
    return np.where(inside, 0.0, d)


def _refine(f: Callable[[float], float], t0: float, h: float, maximise: bool) -> tuple[float, float]:
    sign = -1.0 if maximise else 1.0
    lo, hi = t0 - h, t0 + h
    x1 = hi - _GOLDEN * (hi - lo)
    x2 = lo + _GOLDEN * (hi - lo)
    f1, f2 = sign * f(x1), sign * f(x2)
    while hi - lo > GOLDEN_STEP:
        if f1 < f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - _GOLDEN * (hi - lo)
            f1 = sign * f(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + _GOLDEN * (hi - lo)
            f2 = sign * f(x2)
    t = (lo + hi) / 2
    return t, f(t)


def optimise_on_rim(f_vec: Callable[[np.ndarray], np.ndarray], maximise: bool = False,
                    samples: int = _SAMPLES) -> tuple[float, float]:
    """Global min (or max) over t ∈ [0, 2π) of a smooth periodic function: dense sampling,
    then golden-section refinement of the three best local candidates."""
    t = np.linspace(0, 2 * math.pi, samples, endpoint=False)
    v = f_vec(t)
    order = np.argsort(-v if maximise else v)[:3]
    h = 2 * math.pi / samples

    def scalar(x: float) -> float:
        return float(f_vec(np.array([x]))[0])

    best_t, best_v = float(t[order[0]]), float(v[order[0]])
    for i in order:
        ti, vi = _refine(scalar, float(t[i]), h, maximise)
        if (vi > best_v) if maximise else (vi < best_v):
            best_t, best_v = ti, vi
    return best_t, best_v


def maximise_periodic_batch(g: Callable[[np.ndarray], np.ndarray], n: int,
                            samples: int = 256) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row-wise global maximum over ψ ∈ [0, 2π) of a smooth periodic g (n rows): `samples`
    samples, then golden-section refinement of the three best local maxima of each row to
    2h·0.618⁶⁰ < 1e-13 rad. Returns (ψ*, g(ψ*), the sampled values)."""
    grid = np.broadcast_to(np.linspace(0, 2 * math.pi, samples, endpoint=False), (n, samples))
    val = g(grid)
    peaks = (val >= np.roll(val, 1, axis=1)) & (val >= np.roll(val, -1, axis=1))
    top = np.argsort(-np.where(peaks, val, -np.inf), axis=1)[:, :3]
    h = 2 * math.pi / samples
    lo = grid[np.arange(n)[:, None], top] - h
    hi = lo + 2 * h
    x1, x2 = hi - _GOLDEN * (hi - lo), lo + _GOLDEN * (hi - lo)
    f1, f2 = g(x1), g(x2)
    for _ in range(60):
        keep_left = f1 > f2  # maximising: the peak is in [lo, x2]
        hi = np.where(keep_left, x2, hi)
        lo = np.where(keep_left, lo, x1)
        nx1 = np.where(keep_left, hi - _GOLDEN * (hi - lo), x2)
        nx2 = np.where(keep_left, x1, lo + _GOLDEN * (hi - lo))
        nf1 = np.where(keep_left, g(nx1), f2)
        nf2 = np.where(keep_left, f1, g(nx2))
        x1, x2, f1, f2 = nx1, nx2, nf1, nf2
    best = (lo + hi) / 2
    bv = g(best)
    k = np.argmax(bv, axis=1)
    rows = np.arange(n)
    return best[rows, k], bv[rows, k], val


def _sigma(e: Ellipse) -> np.ndarray:
    c, s = math.cos(e.theta), math.sin(e.theta)
    L = np.array([[c * e.a, -s * e.b], [s * e.a, c * e.b]])
    return L @ L.T


def ellipse_distances(a: Sequence[Ellipse], b: Sequence[Ellipse]
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distances between bases a[i] and b[i] (0 when they meet) and nearest points, vectorised.

    For disjoint convex sets dist(A, B) = max over unit n of (min_B n·x − max_A n·x), with the
    closed-form support function of an ellipse h(n) = n·c + sqrt(nᵀΣn). The maximum over the
    angle of n is found by 256 samples and golden-section refinement of the three best local
    maxima to 1e-12 rad (the value is then exact to rounding: its error is quadratic in the
    angle error). The nearest points are the support points at the optimal n. Discs: closed form.
    """
    n = len(a)
    ca = np.array([[e.cx, e.cy] for e in a], dtype=float).reshape(n, 2)
    cb = np.array([[e.cx, e.cy] for e in b], dtype=float).reshape(n, 2)
    Sa = np.array([_sigma(e) for e in a]).reshape(n, 2, 2)
    Sb = np.array([_sigma(e) for e in b]).reshape(n, 2, 2)
    v = cb - ca

    def g(psi: np.ndarray) -> np.ndarray:  # psi (n, m)
        nx, ny = np.cos(psi), np.sin(psi)
        ra = np.sqrt(Sa[:, 0, 0, None] * nx * nx + 2 * Sa[:, 0, 1, None] * nx * ny
                     + Sa[:, 1, 1, None] * ny * ny)
        rb = np.sqrt(Sb[:, 0, 0, None] * nx * nx + 2 * Sb[:, 0, 1, None] * nx * ny
                     + Sb[:, 1, 1, None] * ny * ny)
        return v[:, 0, None] * nx + v[:, 1, None] * ny - ra - rb

    psi, bv, _ = maximise_periodic_batch(g, n)
    dist = np.maximum(0.0, bv)
    nrm = np.column_stack((np.cos(psi), np.sin(psi)))
    sa = np.sqrt(np.einsum("ij,ijk,ik->i", nrm, Sa, nrm))
    sb = np.sqrt(np.einsum("ij,ijk,ik->i", nrm, Sb, nrm))
    p = ca + np.einsum("ijk,ik->ij", Sa, nrm) / sa[:, None]
    q = cb - np.einsum("ijk,ik->ij", Sb, nrm) / sb[:, None]
    disc = np.array([e.is_disc for e in a], dtype=bool) & np.array([e.is_disc for e in b],
                                                                     dtype=bool)
    if disc.any():  # closed form
        ra = np.array([e.a for e in a])[disc]
        rb = np.array([e.a for e in b])[disc]
        d = np.hypot(v[disc, 0], v[disc, 1])
        u = np.where(d[:, None] > 0, v[disc] / np.where(d > 0, d, 1.0)[:, None], [1.0, 0.0])
        dist[disc] = np.maximum(0.0, d - ra - rb)
        p[disc] = ca[disc] + ra[:, None] * u
        q[disc] = cb[disc] - rb[:, None] * u
    return dist, p, q


def ellipse_convex_distances(ellipses: Sequence[Ellipse], parts: np.ndarray) -> np.ndarray:
    """Distance from base k to convex polygon parts[k] ((n, m, 2) vertex arrays, padding by
    repeating a vertex is harmless), 0 when they meet. As `ellipse_distances`: the maximum over
    unit n of (min over the polygon of n·x − h_base(n)), 256 directions then golden-section
    refinement of the three best local maxima; exact to rounding."""
    n = len(ellipses)
    if n == 0:
        return np.zeros(0)
    c = np.array([[e.cx, e.cy] for e in ellipses], dtype=float).reshape(n, 2)
    S = np.array([_sigma(e) for e in ellipses]).reshape(n, 2, 2)
    rel = parts - c[:, None, :]  # polygon relative to the base centre

    def g(psi: np.ndarray) -> np.ndarray:  # psi (n, j)
        x, y = np.cos(psi), np.sin(psi)
        low = (rel[:, None, :, 0] * x[..., None] + rel[:, None, :, 1] * y[..., None]).min(axis=2)
        sup = np.sqrt(S[:, 0, 0, None] * x * x + 2 * S[:, 0, 1, None] * x * y
                      + S[:, 1, 1, None] * y * y)
        return low - sup

    _, bv, val = maximise_periodic_batch(g, n)
    best = np.maximum(bv, val.max(axis=1))
    return np.maximum(0.0, best)


def frame_matrix(e: Ellipse) -> tuple[float, float, float, float, float, float]:
    """Affine map (shapely order a,b,d,e,xoff,yoff) taking e to the unit circle at the origin."""
    c, s = math.cos(e.theta), math.sin(e.theta)
    m00, m01 = c / e.a, s / e.a
    m10, m11 = -s / e.b, c / e.b
    return (m00, m01, m10, m11, -(m00 * e.cx + m01 * e.cy), -(m10 * e.cx + m11 * e.cy))


def ellipse_distance(a: Ellipse, b: Ellipse) -> float:
    """Shortest distance between two bases (0 when they overlap). An oval and a disc: the
    distance from the disc's centre to the oval, less its radius (a Minkowski sum), by the
    point-to-oval Newton solve — cheaper than the separating-axis search."""
    if a.is_disc and b.is_disc:
        return max(0.0, math.hypot(a.cx - b.cx, a.cy - b.cy) - a.a - b.a)
    if a.is_disc or b.is_disc:
        disc, oval = (a, b) if a.is_disc else (b, a)
        return max(0.0, float(point_distance(oval, disc.centre)[0]) - disc.a)
    return float(ellipse_distances([a], [b])[0][0])


def geometry_meets(e: Ellipse, g: BaseGeometry, tol: float = 0.0) -> bool:
    """Does the base meet (overlap or touch within tol) a shapely geometry?"""
    if e.is_disc:
        return float(shapely.distance(SPoint(e.centre), g)) <= e.a + tol
    if tol:
        return ellipse_geometry_distance(e, g) <= tol
    img = affinity.affine_transform(g, list(frame_matrix(e)))
    return float(shapely.distance(SPoint(0, 0), img)) <= 1.0


def ellipse_geometry_distance(e: Ellipse, g: BaseGeometry) -> float:
    """Shortest distance from a base to any shapely geometry (0 when they meet)."""
    if g.is_empty:
        return math.inf
    if e.is_disc:
        return max(0.0, float(shapely.distance(SPoint(e.centre), g)) - e.a)
    if geometry_meets(e, g):
        return 0.0
    shapely.prepare(g)

    def f(t: np.ndarray) -> np.ndarray:
        return np.asarray(shapely.distance(shapely.points(boundary_points(e, t)), g), dtype=float)

    return max(0.0, optimise_on_rim(f)[1])


def max_distance_to_point(e: Ellipse, p: tuple[float, float]) -> float:
    """Distance from p to the farthest point of the base."""
    if e.is_disc:
        return math.hypot(e.cx - p[0], e.cy - p[1]) + e.a

    def f(t: np.ndarray) -> np.ndarray:
        q = boundary_points(e, t)
        return np.hypot(q[:, 0] - p[0], q[:, 1] - p[1])

    return optimise_on_rim(f, maximise=True)[1]


def max_distance_to_ellipse(a: Ellipse, b: Ellipse) -> float:
    """max over points p of base a of dist(p, base b). Exact on the rim: the distance to a
    convex set is convex, so its maximum over a convex base lies on the rim."""
    if a.is_disc and b.is_disc:
        return max(0.0, math.hypot(a.cx - b.cx, a.cy - b.cy) + a.a - b.a)
    return optimise_on_rim(lambda t: point_distance(b, boundary_points(a, t)), maximise=True)[1]


def max_distance_to_geometry(e: Ellipse, g: BaseGeometry) -> float:
    """max over points p of the base of dist(p, g).

    For convex g the maximum lies on the rim (exact as above). For non-convex g an interior
    point can be farther, so the rim answer is checked against concentric inner rims too.
    """
    shapely.prepare(g)

    def rim(scale: float) -> Callable[[np.ndarray], np.ndarray]:
        inner = Ellipse(e.cx, e.cy, e.a * scale, e.b * scale, e.theta)

        def f(t: np.ndarray) -> np.ndarray:
            pts = shapely.points(boundary_points(inner, t))
            return np.asarray(shapely.distance(pts, g), dtype=float)

        return f

    best = optimise_on_rim(rim(1.0), maximise=True)[1]
    convex = abs(g.convex_hull.area - g.area) <= HULL_AREA_SLACK and g.geom_type in ("Polygon", "Point")
    if not convex:
        for k in range(1, 16):
            best = max(best, optimise_on_rim(rim(1 - k / 16), maximise=True, samples=64)[1])
        best = max(best, float(shapely.distance(SPoint(e.centre), g)))
    return best


def piece_boxes(bf: Battlefield) -> np.ndarray:
    """(n, 4) bounding boxes (x0, y0, x1, y1) of the battlefield's footprints, in terrain
    order, kept with the battlefield."""
    kept = bf.prepared
    if kept.piece_boxes is None:
        kept.piece_boxes = np.array([p.footprint.bounds for p in bf.terrain],
                                    dtype=float).reshape(-1, 4)
    return kept.piece_boxes


def overlaps_piece(bf: Battlefield, e: Ellipse, p: TerrainPiece) -> bool:
    """Positive-area overlap between a base and a piece of `bf`'s footprint (touching is fine:
    the footprint is shrunk by the tolerance, §8.5.3), with a quick reject on the bounding box
    and the shrunk footprint kept with the battlefield. The end-position rules and the
    scenario loader share it.

    >>> from shapely.geometry import box
    >>> from geom.model import Battlefield, Table, TerrainPiece
    >>> bf = Battlefield(Table(12, 12), terrain=(TerrainPiece("crate", 1, box(4, 4, 6, 6)),))
    >>> crate = bf.terrain[0]
    >>> overlaps_piece(bf, Ellipse(3, 5, 1, 1), crate), overlaps_piece(bf, Ellipse(3.1, 5, 1, 1), crate)
    (False, True)
    """
    x0, y0, x1, y1 = p.footprint.bounds
    if e.cx + e.a <= x0 or e.cx - e.a >= x1 or e.cy + e.a <= y0 or e.cy - e.a >= y1:
        return False
    kept = bf.prepared.shrunk_footprints
    shrunk = kept.get(p.id)
    if shrunk is None:
        shrunk = kept[p.id] = p.footprint.buffer(-TOLERANCE)
    return not shrunk.is_empty and geometry_meets(e, shrunk)


def boxes_near(boxes: np.ndarray, e: Ellipse, reach: float = 0.0) -> np.ndarray:
    """Which boxes come within `reach` of the base's bounding box: a geometry within `reach`
    of the base has such a box, so exact distances need only be measured for these.

    >>> boxes_near(np.array([[2.0, 0, 3, 1], [5.0, 0, 6, 1]]), Ellipse(0, 0, 1, 1), 1.0)
    array([ True, False])
    """
    r = max(e.a, e.b) + reach
    return ((boxes[:, 0] <= e.cx + r) & (boxes[:, 2] >= e.cx - r)
            & (boxes[:, 1] <= e.cy + r) & (boxes[:, 3] >= e.cy - r))
