"""Exact geometry of bases: discs and ovals (ellipses), as GEOMETRY-RULES §0 and §3 need it.

Guarantees, per function:
- disc answers are closed forms (exact to rounding);
- point-to-oval distance solves the normal-equation root by bisection to double precision;
- whether an oval meets a geometry is decided exactly in the oval's unit-circle frame (an affine
  map keeps incidence, so "meets" becomes "the geometry comes within 1 of the origin");
- oval-to-geometry and oval-to-oval distances minimise a smooth function of the boundary
  parameter: 256 samples, then golden-section refinement of the three best brackets to 1e-12 in
  the parameter; for disjoint convex shapes that is accurate to far better than 1e-6".

>>> from geom.model import Ellipse
>>> round(ellipse_distance(Ellipse(0, 0, 1, 1), Ellipse(5, 0, 1, 1)), 9)
3.0
>>> round(ellipse_distance(Ellipse(0, 0, 2, 1), Ellipse(5, 0, 1, 1)), 9)
2.0
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import shapely
from shapely import affinity
from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry

from .model import TOLERANCE, Ellipse

_SAMPLES = 256
_GOLDEN = (math.sqrt(5) - 1) / 2


def boundary_points(e: Ellipse, t: np.ndarray) -> np.ndarray:
    """Points E(t) on the base's rim, shape (len(t), 2)."""
    c, s = math.cos(e.theta), math.sin(e.theta)
    x, y = e.a * np.cos(t), e.b * np.sin(t)
    return np.column_stack((e.cx + c * x - s * y, e.cy + s * x + c * y))


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
    # F(t) = (a y0/(t+a²))² + (b y1/(t+b²))² − 1, which is decreasing for t > −b².
    lo = np.zeros_like(y0)
    hi = np.sqrt((a * y0) ** 2 + (b * y1) ** 2) + 1e-12
    for _ in range(80):
        mid = (lo + hi) / 2
        f = (a * y0 / (mid + a * a)) ** 2 + (b * y1 / (mid + b * b)) ** 2 - 1
        lo = np.where(f > 0, mid, lo)
        hi = np.where(f > 0, hi, mid)
    t = (lo + hi) / 2
    qx, qy = a * a * y0 / (t + a * a), b * b * y1 / (t + b * b)
    d = np.hypot(y0 - qx, y1 - qy)
    return np.where(inside, 0.0, d)


def _refine(f: Callable[[float], float], t0: float, h: float, maximise: bool) -> tuple[float, float]:
    sign = -1.0 if maximise else 1.0
    lo, hi = t0 - h, t0 + h
    x1 = hi - _GOLDEN * (hi - lo)
    x2 = lo + _GOLDEN * (hi - lo)
    f1, f2 = sign * f(x1), sign * f(x2)
    while hi - lo > 1e-12:
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


def _frame_matrix(e: Ellipse) -> tuple[float, float, float, float, float, float]:
    """Affine map (shapely order a,b,d,e,xoff,yoff) taking e to the unit circle at the origin."""
    c, s = math.cos(e.theta), math.sin(e.theta)
    m00, m01 = c / e.a, s / e.a
    m10, m11 = -s / e.b, c / e.b
    return (m00, m01, m10, m11, -(m00 * e.cx + m01 * e.cy), -(m10 * e.cx + m11 * e.cy))


def _ellipse_in_frame(other: Ellipse, e: Ellipse) -> Ellipse:
    """The image of `other` under the map that takes `e` to the unit circle."""
    m00, m01, m10, m11, ox, oy = _frame_matrix(e)
    L = np.array([[m00, m01], [m10, m11]])
    c, s = math.cos(other.theta), math.sin(other.theta)
    M = L @ np.array([[c, -s], [s, c]]) @ np.diag([other.a, other.b])
    U, S, _ = np.linalg.svd(M)
    centre = L @ np.array(other.centre) + np.array([ox, oy])
    return Ellipse(float(centre[0]), float(centre[1]), float(S[0]), float(max(S[1], 1e-15)),
                   math.atan2(U[1, 0], U[0, 0]))


def ellipses_meet(a: Ellipse, b: Ellipse, tol: float = TOLERANCE) -> bool:
    """True when the two bases overlap or touch (within tol)."""
    if a.is_disc and b.is_disc:
        return math.hypot(a.cx - b.cx, a.cy - b.cy) <= a.a + b.a + tol
    return ellipse_distance(a, b) <= tol


def ellipse_distance(a: Ellipse, b: Ellipse) -> float:
    """Shortest distance between two bases (0 when they overlap)."""
    if a.is_disc and b.is_disc:
        return max(0.0, math.hypot(a.cx - b.cx, a.cy - b.cy) - a.a - b.a)
    if a.is_disc:
        a, b = b, a  # sample the oval's rim; the disc side is then closed form
    img = _ellipse_in_frame(a, b)
    if float(point_distance(img, (0.0, 0.0))[0]) <= 1.0:
        return 0.0
    _, v = optimise_on_rim(lambda t: point_distance(b, boundary_points(a, t)))
    return max(0.0, v)


def geometry_meets(e: Ellipse, g: BaseGeometry, tol: float = 0.0) -> bool:
    """Does the base meet (overlap or touch within tol) a shapely geometry?"""
    if e.is_disc:
        return float(shapely.distance(SPoint(e.centre), g)) <= e.a + tol
    if tol:
        return ellipse_geometry_distance(e, g) <= tol
    img = affinity.affine_transform(g, list(_frame_matrix(e)))
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
    convex = abs(g.convex_hull.area - g.area) <= 1e-9 and g.geom_type in ("Polygon", "Point")
    if not convex:
        for k in range(1, 16):
            best = max(best, optimise_on_rim(rim(1 - k / 16), maximise=True, samples=64)[1])
        best = max(best, float(shapely.distance(SPoint(e.centre), g)))
    return best
