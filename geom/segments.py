"""Exact search for a clear segment joining two bases (GEOMETRY-RULES §4 sight, §5 engagement,
§10 templates; DESIGN-NOTES §1).

Question: is there a segment from a point of base ``a`` to a point of base ``b`` (discs or ovals)
that crosses no obstacle polygon, optionally of length ≤ ``max_length``? The answer is decided
from a finite set of candidate segments, so it is exact — not a verdict from sampled points.

What "crosses" means (GEOMETRY-RULES §0, tolerance ``TOLERANCE`` = 1e-6")
    A segment crosses an obstacle when it enters the obstacle shrunk by the tolerance,
    ``Q = O ⊖ 1e-6`` (inward offset with mitred corners). Grazing a corner or running along an
    edge therefore never crosses, and neither does cutting a corner by less than 1e-6".
    Candidates are built from the vertices of ``Q`` and a candidate is accepted when it misses
    ``Q ⊖ 1e-9``; the extra 1e-9" absorbs floating-point error of the construction (pinned lines
    pass through vertices of ``Q`` up to ~1e-13"), so a witness may enter ``Q`` by at most 1e-9".

Exactness argument (no length bound)
    Write a line as (φ, s): direction φ, offset s. Lines meeting both bases form a compact region
    R; since the bases are disjoint convex sets, the directions in R lie in an interval shorter
    than π. On a line L of R the two chords are disjoint, and every a-to-b segment on L contains
    the *gap segment* g(L) between the chords' inner ends; so L carries a clear segment iff g(L)
    misses int(Q) for every obstacle. The set G of such lines is closed, hence compact. Take the
    line L* of G with the least φ, and among those the least s. The constraints that can be
    tight at L* are: "L tangent to a", "L tangent to b", and "L passes through a point X" where X
    is a vertex of some Q or a point where a base's rim crosses an edge of Q (the gap's end lying
    on an edge). Each constraint is a curve s = f(φ), a graph over φ. If at most one curve passed
    through L*, G would contain lines of smaller φ beside L* (on the free side of that curve, or
    along it) — unless the only free directions through X are isolated, which happens exactly
    when L* runs along an edge of Q at X. So L* is one of:
      * the four common tangents of a and b;
      * the tangents from each point X to a and to b;
      * the line through two points X, Y;
      * the line along an edge of Q incident to a vertex X.
    Only points inside the convex hull of a ∪ b matter (every gap segment lies in it); obstacles
    that miss the hull are dropped. Each candidate's gap segment is tested; any clear one is a
    witness, and if none is clear no clear segment exists.

Exactness argument (with a length bound ℓ)
    The least-φ argument no longer closes, because "gap ≤ ℓ" is not a graph over φ. Instead take
    L* ∈ G minimising the gap length (it exists: G is compact). A clear segment of length ≤ ℓ
    exists iff |g(L*)| ≤ ℓ, since on each line the gap is the shortest a-to-b segment. At L*:
      * no constraint tight → L* is a local minimum of |p − q| over a × b, which for convex bases
        is the global one: the nearest-points segment;
      * only "tangent to a" (or b) tight → impossible: moving the line into a by ε moves the
        gap's a-end forward by ~√ε while the b-end moves by O(ε), so the gap shrinks;
      * only "through X" tight → L* is a local minimum of the gap length among lines through X
        (found by sampling 64 directions and golden-section refinement of every sampled local
        minimum to 1e-10 rad; minima closer together than the sampling step could merge — the
        gap length through X is smooth and in practice has one or two minima);
      * two constraints tight → one of the candidate lines listed above.
    So the candidates are those lines, the nearest-points segment, and the local minima through
    each X; the answer is the shortest clear candidate gap, compared with ℓ (+1e-6").

Quick paths (each keeps the answer exact)
    The centre-to-centre segment (or, with a bound, the nearest-points segment) is tried first.
    "Blocked" is proved at once when one convex part of an obstacle meets neither base but meets
    both outer common tangents' gap segments (the two sides of hull(a ∪ b) between the bases):
    the chord joining those points lies in the part and splits the hull into a side holding a
    and a side holding b. `separated_pairs` runs that proof for many pairs at once.

Implementation
    Obstacles are prepared once (`PreparedObstacles`): shrunk polygons, their convex parts
    (constrained Delaunay triangles when non-convex, fans of ≤ 6 vertices when large) as padded
    arrays, and candidate vertices; a query selects obstacles with a boolean mask. Segment tests
    are separating-axis tests vectorised over candidates × parts. Common tangents of two ovals
    are the real roots of one quartic (in the frame where a is the unit circle,
    (1 − n·c)² = nᵀSn), polished by Newton steps; of two discs, closed forms.

Overlapping bases (never a legal position) are answered by testing their common part
(a 64-gon approximation) and then the line candidates; the proof above assumes disjoint bases.
Bases that touch are joined by the zero-length segment at the contact point when it is clear.

>>> from shapely.geometry import box
>>> from geom.model import Ellipse
>>> a, b = Ellipse(0, 0, 0.5, 0.5), Ellipse(10, 0, 0.5, 0.5)
>>> find_clear_segment(a, b, [box(4, -3, 5, 3)]) is None
True
>>> seg = find_clear_segment(a, b, [box(4, -3, 5, 0.2)])   # a line passes above the wall
>>> seg is not None and seg[0][1] > 0.2 and seg[1][1] > 0.2
True
>>> find_clear_segment(a, b, [box(4, 0.6, 5, 3)], max_length=8.5)   # too far apart
>>> find_clear_segment(a, b, [box(4, 0.6, 5, 3)], max_length=9.0)
((0.5, 0.0), (9.5, 0.0))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from .bases import _sigma, ellipse_convex_distances, ellipse_distances  # noqa: F401
from .model import TOLERANCE, Ellipse, Point

SAFETY = 1e-9  # floating-point slack on top of TOLERANCE (see module docstring)
_TANGENT_SLACK = 1e-9  # a line within this of a unit circle (in its frame) touches it


# --------------------------------------------------------------------------- obstacles


@dataclass(frozen=True)
class Obstacle:
    """One obstacle prepared for the search.

    ``test`` is the polygon a clear segment must not meet (O shrunk by TOLERANCE + SAFETY), and
    ``parts`` its convex pieces (counter-clockwise rings; the polygon itself when convex, else a
    constrained Delaunay triangulation); ``verts``/``prev``/``next`` are the vertices of O shrunk
    by TOLERANCE and their ring neighbours (candidate lines pass through these and run along
    their edges)."""

    index: int
    test: BaseGeometry
    verts: np.ndarray
    prev: np.ndarray
    next: np.ndarray
    bounds: tuple[float, float, float, float]
    parts: tuple[np.ndarray, ...] = ()


def _polygons(g: BaseGeometry) -> list[Polygon]:
    return [p for p in getattr(g, "geoms", [g]) if p.geom_type == "Polygon" and not p.is_empty]


def _rings(g: BaseGeometry) -> list[np.ndarray]:
    out = []
    for poly in _polygons(g):
        for ring in [poly.exterior, *poly.interiors]:
            c = np.asarray(ring.coords)[:-1]
            if len(c) >= 3:
                out.append(c)
    return out


def _ccw(ring: np.ndarray) -> np.ndarray:
    x, y = ring[:, 0], ring[:, 1]
    area2 = float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))
    return ring if area2 > 0 else ring[::-1]


def _convex_parts(t: BaseGeometry) -> list[np.ndarray]:
    out = []
    for poly in _polygons(t):
        hull = poly.convex_hull
        if not poly.interiors and hull.area - poly.area <= 1e-12 * max(1.0, hull.area):
            ring = _ccw(np.asarray(poly.exterior.coords)[:-1])
            # fan it into convex chunks of at most 6 vertices (keeps the padded arrays small)
            k = 1
            while k < len(ring) - 1:
                j = min(k + 4, len(ring) - 1)
                out.append(np.vstack([ring[:1], ring[k:j + 1]]))
                k = j
            continue
        for tri in shapely.constrained_delaunay_triangles(poly).geoms:
            if tri.area > 0:
                out.append(_ccw(np.asarray(tri.exterior.coords)[:-1]))
    return out


def prepare_obstacle(index: int, poly: BaseGeometry) -> Obstacle | None:
    """Shrink and prepare one obstacle; None when nothing is left after shrinking by the
    tolerance (a sliver that can only be grazed)."""
    if poly.is_empty or poly.area <= 0:
        return None
    q = shapely.buffer(poly, -TOLERANCE, join_style="mitre", mitre_limit=10.0)
    t = shapely.buffer(poly, -(TOLERANCE + SAFETY), join_style="mitre", mitre_limit=10.0)
    if q.is_empty or t.is_empty:
        return None
    rings = _rings(q)
    parts = _convex_parts(t)
    if not rings or not parts:
        return None
    verts = np.vstack(rings)
    prev = np.vstack([np.roll(r, 1, axis=0) for r in rings])
    nxt = np.vstack([np.roll(r, -1, axis=0) for r in rings])
    shapely.prepare(t)
    return Obstacle(index, t, verts, prev, nxt, tuple(t.bounds), tuple(parts))


def _stack2(xs: list[np.ndarray]) -> np.ndarray:
    return np.vstack(xs) if xs else np.zeros((0, 2))


@dataclass(frozen=True)
class PreparedObstacles:
    """Obstacles prepared once and reused across many queries. `items[r].index` is the position
    of the obstacle in the input; a query selects obstacles by a boolean mask over `items`.

    Flat arrays for vectorised tests: convex parts (padded to the same vertex count; a padded
    edge has normal 0 and offset 1, so it never separates), and all candidate vertices."""

    items: tuple[Obstacle, ...]
    tests: np.ndarray  # shapely geometries, aligned with items
    boxes: np.ndarray  # (n, 4) bounds, aligned with items
    part_owner: np.ndarray  # (np,) row in items
    part_pts: np.ndarray  # (np, m, 2)
    part_n: np.ndarray  # (np, m, 2) outward edge normals
    part_c: np.ndarray  # (np, m) n·x ≤ c inside
    vert_owner: np.ndarray  # (nv,)
    verts: np.ndarray  # (nv, 2)
    vert_prev: np.ndarray
    vert_next: np.ndarray

    @classmethod
    def build(cls, polys: Sequence[BaseGeometry]) -> PreparedObstacles:
        return cls.from_items(
            tuple(o for i, p in enumerate(polys) if (o := prepare_obstacle(i, p)) is not None))

    @classmethod
    def from_items(cls, items: tuple[Obstacle, ...]) -> PreparedObstacles:
        tests = np.array([o.test for o in items], dtype=object)
        boxes = np.array([o.bounds for o in items], dtype=float).reshape(-1, 4)
        parts = [(r, part) for r, o in enumerate(items) for part in o.parts]
        m = max((len(pt) for _, pt in parts), default=3)
        n_p = len(parts)
        pts = np.zeros((n_p, m, 2))
        nrm = np.zeros((n_p, m, 2))
        off = np.ones((n_p, m))
        for k, (_, ring) in enumerate(parts):
            q = len(ring)
            pts[k, :q] = ring
            pts[k, q:] = ring[0]
            e = np.roll(ring, -1, axis=0) - ring
            nrm[k, :q] = np.column_stack((e[:, 1], -e[:, 0]))
            off[k, :q] = np.einsum("ij,ij->i", nrm[k, :q], ring)
        owner = np.array([r for r, _ in parts], dtype=np.int64).reshape(n_p)
        vo = [np.full(len(o.verts), r) for r, o in enumerate(items)]
        return cls(items, tests, boxes, owner, pts, nrm, off,
                   np.concatenate(vo).astype(np.int64) if vo else np.zeros(0, dtype=np.int64),
                   _stack2([o.verts for o in items]), _stack2([o.prev for o in items]),
                   _stack2([o.next for o in items]))

    def subset(self, indices: Sequence[int] | np.ndarray) -> PreparedObstacles:
        """The obstacles whose input index is in `indices`."""
        keep = set(int(i) for i in indices)
        return PreparedObstacles.from_items(tuple(o for o in self.items if o.index in keep))

    def mask(self, indices: Sequence[int] | np.ndarray) -> np.ndarray:
        """Boolean mask over `items` selecting the given input indices."""
        keep = set(int(i) for i in indices)
        return np.array([o.index in keep for o in self.items], dtype=bool).reshape(len(self.items))


# --------------------------------------------------------------------------- base frames


@dataclass(frozen=True)
class _Frame:
    """Affine map of a base onto the unit circle: x' = M (x − c)."""

    c: np.ndarray
    M: np.ndarray
    Minv: np.ndarray
    Sigma: np.ndarray  # Minv Minvᵀ: support function h(n) = n·c + sqrt(nᵀ Σ n)
    disc: bool
    r: float


def _frame(e: Ellipse) -> _Frame:
    c, s = math.cos(e.theta), math.sin(e.theta)
    Minv = np.array([[c * e.a, -s * e.b], [s * e.a, c * e.b]])
    M = np.array([[c / e.a, s / e.a], [-s / e.b, c / e.b]])
    return _Frame(np.array([e.cx, e.cy]), M, Minv, Minv @ Minv.T, e.is_disc, e.a)


def _chords(f: _Frame, P: np.ndarray, D: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Chord [t1, t2] of each line P + t D with the base; `ok` False where the line misses."""
    p = (P - f.c) @ f.M.T
    d = D @ f.M.T
    dd = np.einsum("ij,ij->i", d, d)
    t0 = -np.einsum("ij,ij->i", p, d) / dd
    foot = p + t0[:, None] * d
    delta2 = np.einsum("ij,ij->i", foot, foot)
    ok = delta2 <= (1.0 + _TANGENT_SLACK) ** 2
    half = np.sqrt(np.maximum(0.0, 1.0 - delta2) / dd)
    return t0 - half, t0 + half, ok


def _gaps(fa: _Frame, fb: _Frame, P: np.ndarray, D: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gap segments (n, 2, 2) from a's chord to b's chord on each line, and a validity mask."""
    a1, a2, oka = _chords(fa, P, D)
    b1, b2, okb = _chords(fb, P, D)
    fwd = a2 <= b1
    bwd = b2 <= a1
    ok = oka & okb & (fwd | bwd)
    ta = np.where(fwd, a2, a1)
    tb = np.where(fwd, b1, b2)
    seg = np.stack([P + ta[:, None] * D, P + tb[:, None] * D], axis=1)
    return seg, ok


def _tangents_from(f: _Frame, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lines (P, D) through each point X tangent to the base (two per outside point, the rim
    tangent for a point on the rim, none for a point inside)."""
    if len(X) == 0:
        return np.empty((0, 2)), np.empty((0, 2))
    x = (X - f.c) @ f.M.T
    rho = np.hypot(x[:, 0], x[:, 1])
    keep = rho >= 1.0 - 1e-12
    X, x, rho = X[keep], x[keep], rho[keep]
    alpha = np.arctan2(x[:, 1], x[:, 0])
    beta = np.arccos(np.minimum(1.0, 1.0 / rho))
    Ps, Ds = [], []
    for sgn in (1.0, -1.0):
        ang = alpha + sgn * beta
        t = np.column_stack((np.cos(ang), np.sin(ang)))
        T = f.c + t @ f.Minv.T
        D = T - X
        rim = np.hypot(D[:, 0], D[:, 1]) < 1e-12
        if rim.any():  # X on the rim: the tangent at X
            perp = np.column_stack((-x[rim, 1], x[rim, 0]))
            D[rim] = perp @ f.Minv.T
        Ps.append(X)
        Ds.append(D)
    return np.vstack(Ps), np.vstack(Ds)


def _support(f: _Frame, n: np.ndarray) -> np.ndarray:
    return n @ f.c + np.sqrt(np.einsum("ij,jk,ik->i", n, f.Sigma, n))


def _support_point(f: _Frame, n: np.ndarray) -> np.ndarray:
    s = np.sqrt(np.einsum("ij,jk,ik->i", n, f.Sigma, n))
    return f.c + (n @ f.Sigma.T) / s[:, None]


def _common_tangents(fa: _Frame, fb: _Frame) -> tuple[np.ndarray, np.ndarray]:
    """The common tangent lines (P on a, direction D) of two bases (4 when disjoint)."""
    if fa.disc and fb.disc:
        v = fb.c - fa.c
        d = float(np.hypot(*v))
        if d < 1e-12:
            return np.empty((0, 2)), np.empty((0, 2))
        e = v / d
        ep = np.array([-e[1], e[0]])
        ns = []
        for k in ((fa.r - fb.r) / d, (fa.r + fb.r) / d):  # outer, inner
            if abs(k) <= 1.0:
                s = math.sqrt(max(0.0, 1 - k * k))
                ns += [k * e + s * ep, k * e - s * ep]
        if not ns:
            return np.empty((0, 2)), np.empty((0, 2))
        n = np.array(ns)
        P = fa.c + fa.r * n
        return P, np.column_stack((-n[:, 1], n[:, 0]))
    # Ovals, in a's frame (a is the unit circle, b an ellipse with centre c and matrix S): the
    # tangent n·x = 1 of the circle (n = (cos t, sin t)) touches b iff 1 − n·c = ±sqrt(nᵀSn)
    # (+: b on the circle's side, outer tangent; −: inner), i.e. (1 − n·c)² = nᵀSn: a quartic in
    # u = tan(t/2). Its real roots, polished by Newton steps on t, are the common tangents.
    c = fa.M @ (fb.c - fa.c)
    S = fa.M @ fb.Sigma @ fa.M.T
    x0, y0 = float(c[0]), float(c[1])
    qa, qb, qc = x0 * x0 - S[0, 0], 2 * (x0 * y0 - S[0, 1]), y0 * y0 - S[1, 1]
    # (1+u²)² [Q(cos, sin) + L(cos, sin) + 1] with cos = (1−u²)/(1+u²), sin = 2u/(1+u²)
    coeffs = np.array([qa + 2 * x0 + 1, -2 * qb - 4 * y0, -2 * qa + 4 * qc + 2, 2 * qb - 4 * y0,
                       qa - 2 * x0 + 1])
    scale = float(np.max(np.abs(coeffs))) or 1.0
    roots = np.roots(coeffs)
    real = roots[np.abs(roots.imag) <= 1e-7 * (1 + np.abs(roots.real))].real
    t = list(2 * np.arctan(real))
    if abs(coeffs[0]) <= 1e-12 * scale:  # a root at u = ∞: t = π
        t.append(math.pi)
    if not t:
        return np.empty((0, 2)), np.empty((0, 2))
    tt = np.array(t)

    def f(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        co, si = np.cos(t), np.sin(t)
        lin = 1 - co * x0 - si * y0
        quad = S[0, 0] * co * co + 2 * S[0, 1] * co * si + S[1, 1] * si * si
        dlin = si * x0 - co * y0
        dquad = 2 * (S[1, 1] - S[0, 0]) * co * si + 2 * S[0, 1] * (co * co - si * si)
        return lin * lin - quad, 2 * lin * dlin - dquad

    for _ in range(3):
        val, der = f(tt)
        step = np.where(np.abs(der) > 1e-300, val / np.where(der == 0, 1.0, der), 0.0)
        tt = tt - np.clip(step, -0.1, 0.1)
    n = np.column_stack((np.cos(tt), np.sin(tt)))
    P = fa.c + n @ fa.Minv.T
    return P, np.column_stack((-n[:, 1], n[:, 0])) @ fa.Minv.T


def _rim_edge_points(f: _Frame, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Points where edges A→B cross the base's rim."""
    p = (A - f.c) @ f.M.T
    d = (B - A) @ f.M.T
    aa = np.einsum("ij,ij->i", d, d)
    bb = np.einsum("ij,ij->i", p, d)
    cc = np.einsum("ij,ij->i", p, p) - 1.0
    disc = bb * bb - aa * cc
    good = (disc >= 0) & (aa > 0)
    sq = np.sqrt(np.where(good, disc, 0.0))
    out = []
    for sgn in (-1.0, 1.0):
        t = (-bb + sgn * sq) / np.where(aa > 0, aa, 1.0)
        m = good & (t >= 0) & (t <= 1)
        out.append(A[m] + t[m, None] * (B[m] - A[m]))
    return np.vstack(out)


def nearest_points(a: Ellipse, b: Ellipse) -> tuple[np.ndarray, np.ndarray]:
    """Nearest points of two bases (for overlapping bases: two points of the overlap region's
    boundary at most ~1e-9 apart is not guaranteed — use `ellipse_distances` to test overlap)."""
    _, p, q = ellipse_distances([a], [b])
    return p[0], q[0]


def convex_parts(poly: BaseGeometry) -> list[np.ndarray]:
    """Convex pieces (counter-clockwise vertex arrays) whose union is the polygon."""
    return _convex_parts(poly)


# --------------------------------------------------------------------------- clearance tests


def _hits(segs: np.ndarray, pts: np.ndarray, nrm: np.ndarray, off: np.ndarray) -> np.ndarray:
    """(segments × convex parts) booleans: the closed segment meets the closed part.
    Separating-axis test: the part's edge normals and the segment's normal."""
    s, (p, m) = len(segs), off.shape
    if s == 0 or p == 0:
        return np.zeros((s, p), dtype=bool)
    p0, p1 = segs[:, 0], segs[:, 1]
    N = nrm.reshape(p * m, 2).T
    d = np.minimum(p0 @ N, p1 @ N).reshape(s, p, m)
    sep = (d > off[None]).any(axis=2)
    e = p1 - p0
    axis = np.column_stack((-e[:, 1], e[:, 0]))
    proj = (axis @ pts.reshape(p * m, 2).T).reshape(s, p, m)
    s0 = np.einsum("ij,ij->i", axis, p0)[:, None]
    sep |= (proj.max(axis=2) < s0) | (proj.min(axis=2) > s0)
    return ~sep


def segments_clear(segs: np.ndarray, obstacles: PreparedObstacles,
                   mask: np.ndarray | None = None) -> np.ndarray:
    """For each segment (n, 2, 2): True when it meets none of the (selected) obstacles."""
    sel = np.arange(len(obstacles.part_owner)) if mask is None else np.nonzero(
        mask[obstacles.part_owner])[0]
    hit = _hits(segs, obstacles.part_pts[sel], obstacles.part_n[sel], obstacles.part_c[sel])
    return np.asarray(~hit.any(axis=1), dtype=bool)


def crossing_matrix(segs: np.ndarray, obstacles: PreparedObstacles) -> np.ndarray:
    """(n segments × m obstacles) boolean: segment meets obstacle's test polygon."""
    hit = _hits(segs, obstacles.part_pts, obstacles.part_n, obstacles.part_c)
    out = np.zeros((len(segs), len(obstacles.items)), dtype=bool)
    for k, r in enumerate(obstacles.part_owner):
        out[:, r] |= hit[:, k]
    return out


# --------------------------------------------------------------------------- the search


@dataclass(frozen=True)
class SegmentSearch:
    """Outcome of a search: the witness (or None), the input indices of the obstacles that stand
    between the bases (meet a neighbourhood of their convex hull), and the number of candidate
    segments tested."""

    witness: tuple[Point, Point] | None
    between: tuple[int, ...]
    candidates: int

    @property
    def clear(self) -> bool:
        return self.witness is not None


def _as_tuple(seg: np.ndarray) -> tuple[Point, Point]:
    return ((float(seg[0, 0]), float(seg[0, 1])), (float(seg[1, 0]), float(seg[1, 1])))


def _through_point_minima(fa: _Frame, fb: _Frame, X: np.ndarray) -> np.ndarray:
    """For each point X: the gap segments of the lines through X that are local minima of the
    gap length (64 directions, then golden-section refinement of each sampled local minimum)."""
    if len(X) == 0:
        return np.empty((0, 2, 2))
    k = 64
    phi = np.linspace(0, math.pi, k, endpoint=False)

    def lengths(P: np.ndarray, ang: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        D = np.column_stack((np.cos(ang), np.sin(ang)))
        seg, ok = _gaps(fa, fb, P, D)
        L = np.hypot(*(seg[:, 1] - seg[:, 0]).T)
        return np.where(ok, L, np.inf), seg

    P = np.repeat(X, k, axis=0)
    ang = np.tile(phi, len(X))
    L, _ = lengths(P, ang)
    L = L.reshape(len(X), k)
    left, right = np.roll(L, 1, axis=1), np.roll(L, -1, axis=1)
    xi, ti = np.nonzero(np.isfinite(L) & (L <= left) & (L <= right))
    if len(xi) == 0:
        return np.empty((0, 2, 2))
    step = math.pi / k
    Pm = X[xi]
    lo, hi = phi[ti] - step, phi[ti] + step
    g = (math.sqrt(5) - 1) / 2
    x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
    f1, f2 = lengths(Pm, x1)[0], lengths(Pm, x2)[0]
    for _ in range(45):  # (2 step)·0.618^45 < 1e-10 rad
        keep_left = f1 < f2  # minimising: the minimum is in [lo, x2]
        hi = np.where(keep_left, x2, hi)
        lo = np.where(keep_left, lo, x1)
        nx1 = np.where(keep_left, hi - g * (hi - lo), x2)
        nx2 = np.where(keep_left, x1, lo + g * (hi - lo))
        nf1 = np.where(keep_left, lengths(Pm, nx1)[0], f2)
        nf2 = np.where(keep_left, f1, lengths(Pm, nx2)[0])
        x1, x2, f1, f2 = nx1, nx2, nf1, nf2
    Lf, seg = lengths(Pm, (lo + hi) / 2)
    return seg[np.isfinite(Lf)]


def _lines(P: np.ndarray, D: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    norm = np.hypot(D[:, 0], D[:, 1])
    good = norm > 1e-12
    return P[good], D[good] / norm[good, None]


def _stage_one(fa: _Frame, fb: _Frame, X: np.ndarray, vx: np.ndarray, vnbr: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Common tangents, tangents from each point, lines along edges at vertices."""
    parts = [_common_tangents(fa, fb), _tangents_from(fa, X), _tangents_from(fb, X),
             (vx, vnbr - vx)]
    return _lines(np.vstack([p for p, _ in parts]), np.vstack([d for _, d in parts]))


def _stage_two(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lines through two points."""
    if len(X) < 2:
        return np.empty((0, 2)), np.empty((0, 2))
    i, j = np.triu_indices(len(X), 1)
    return _lines(X[i], X[j] - X[i])


def _point_segment_distance(pts: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    d = q - p
    dd = float(d @ d)
    t = np.zeros(len(pts)) if dd == 0 else np.clip((pts - p) @ d / dd, 0.0, 1.0)
    foot = p + t[:, None] * d
    return np.hypot(pts[:, 0] - foot[:, 0], pts[:, 1] - foot[:, 1])


def search_clear_segment(a: Ellipse, b: Ellipse, obstacles: PreparedObstacles | Sequence[Polygon],
                         max_length: float | None = None, mask: np.ndarray | None = None,
                         quick_proof: bool = True) -> SegmentSearch:
    """The exact search described in the module docstring, with its bookkeeping.
    `mask`: boolean over `obstacles.items`, the obstacles to consider (default all);
    `quick_proof=False` skips the one-part separator test (the caller already tried it)."""
    obs = obstacles if isinstance(obstacles, PreparedObstacles) else PreparedObstacles.build(
        list(obstacles))
    fa, fb = _frame(a), _frame(b)
    ca, cb = fa.c, fb.c
    limit = None if max_length is None else max_length + TOLERANCE

    # Every gap segment lies in the hull of a ∪ b, which lies within r of the centre segment.
    r = max(a.a, b.a)
    n_items = len(obs.items)
    rows = np.arange(n_items) if mask is None else np.nonzero(mask)[0]
    if len(rows):
        lo = np.minimum(ca, cb) - r
        hi = np.maximum(ca, cb) + r
        bx = obs.boxes[rows]
        rows = rows[(bx[:, 0] <= hi[0]) & (bx[:, 2] >= lo[0]) & (bx[:, 1] <= hi[1])
                    & (bx[:, 3] >= lo[1])]
    if len(rows):
        centre_line = shapely.linestrings([ca, cb]) if np.any(ca != cb) else shapely.points(ca)
        near = np.asarray(shapely.dwithin(centre_line, obs.tests[rows], r + 1e-9), dtype=bool)
        rows = rows[near]
    rel = np.zeros(n_items, dtype=bool)
    rel[rows] = True
    between = tuple(obs.items[k].index for k in rows)

    cd = float(np.hypot(*(cb - ca)))
    if a.is_disc and b.is_disc:
        u = (cb - ca) / cd if cd > 0 else np.array([1.0, 0.0])
        gap = max(0.0, cd - a.a - b.a)
        p, q = ca + a.a * u, cb - b.a * u
    elif limit is None and cd - a.a - b.a > 1e-9:
        gap, p, q = cd - a.a - b.a, ca, cb  # clearly apart: the nearest points are not needed
    else:
        d, pp, qq = ellipse_distances([a], [b])
        gap, p, q = float(d[0]), pp[0], qq[0]
    if limit is not None and gap > limit:
        return SegmentSearch(None, between, 0)
    if gap <= 1e-9:
        w = _touching_witness(a, b, p, q, obs, rel)
        if w is not None:
            return SegmentSearch(w, between, 1)

    first = np.array([[p, q]]) if limit is not None else np.array([[ca, cb]])
    if not len(rows) or segments_clear(first, obs, rel)[0]:
        return SegmentSearch(_as_tuple(first[0]), between, 1)

    # Relevant points: vertices of the shrunk obstacles near the hull, and rim/edge crossings.
    vsel = np.nonzero(rel[obs.vert_owner])[0]
    V, Vp, Vn = obs.verts[vsel], obs.vert_prev[vsel], obs.vert_next[vsel]
    E0, E1 = V, Vn
    inside = _point_segment_distance(V, ca, cb) <= r + 1e-6
    V, Vp, Vn = V[inside], Vp[inside], Vn[inside]
    extra = [V]
    for f, e in ((fa, a), (fb, b)):  # only edges that come within reach of the base's rim
        lo_e, hi_e = np.minimum(E0, E1), np.maximum(E0, E1)
        near_e = np.all((lo_e <= f.c + e.a) & (hi_e >= f.c - e.a), axis=1)
        if near_e.any():
            extra.append(_rim_edge_points(f, E0[near_e], E1[near_e]))
    X = np.vstack(extra)
    rim_crossed = len(X) > len(V)
    if rim_crossed:
        X = np.unique(np.round(X, 12), axis=0)
    if quick_proof and not rim_crossed and _one_part_separates(fa, fb, obs, rel):
        return SegmentSearch(None, between, 3)
    count = 1
    stages = (_stage_one(fa, fb, X, np.vstack([V, V]), np.vstack([Vn, Vp])), _stage_two(X))
    for stage, (P, D) in enumerate(stages):
        segs, ok = _gaps(fa, fb, P, D)
        segs = segs[ok]
        if limit is not None:
            if stage == 1:  # the local minima of the gap length through each point
                segs = np.vstack([segs, _through_point_minima(fa, fb, X)])
            length = np.hypot(*(segs[:, 1] - segs[:, 0]).T)
            keep = length <= limit
            segs = segs[keep][np.argsort(length[keep], kind="stable")]
        count += len(segs)
        clear = segments_clear(segs, obs, rel)
        hit = np.nonzero(clear)[0]
        if len(hit):
            return SegmentSearch(_as_tuple(segs[hit[0]]), between, count)
    return SegmentSearch(None, between, count)


def _one_part_separates(fa: _Frame, fb: _Frame, obs: PreparedObstacles, rel: np.ndarray
                        ) -> bool:
    """A quick proof of "blocked" (obstacles meet no rim here): some convex part of an obstacle
    meets both outer common tangents' gap segments, the two sides of hull(a ∪ b) between the
    bases. The chord joining those two points lies in the part and splits the hull into a side
    holding a and a side holding b, so every a-to-b segment meets the part."""
    P, D = _common_tangents(fa, fb)
    if len(P) < 2:
        return False
    N = np.column_stack((-D[:, 1], D[:, 0]))
    sa = np.einsum("ij,ij->i", N, fa.c - P)
    sb = np.einsum("ij,ij->i", N, fb.c - P)
    outer = np.sign(sa) == np.sign(sb)
    if outer.sum() != 2:
        return False
    sides, ok = _gaps(fa, fb, P[outer], D[outer])
    if not ok.all():
        return False
    sel = np.nonzero(rel[obs.part_owner])[0]
    hit = _hits(sides, obs.part_pts[sel], obs.part_n[sel], obs.part_c[sel])
    return bool((hit[0] & hit[1]).any())


def _hits_paired(segs: np.ndarray, pts: np.ndarray, nrm: np.ndarray, off: np.ndarray
                 ) -> np.ndarray:
    """Row-wise `_hits`: segment k against convex part k, for k = 0..m-1."""
    p0, p1 = segs[:, 0], segs[:, 1]
    d = np.minimum(np.einsum("kj,kmj->km", p0, nrm), np.einsum("kj,kmj->km", p1, nrm))
    sep = (d > off).any(axis=1)
    e = p1 - p0
    axis = np.column_stack((-e[:, 1], e[:, 0]))
    proj = np.einsum("kj,kmj->km", axis, pts)
    s0 = np.einsum("kj,kj->k", axis, p0)[:, None]
    sep |= (proj.max(axis=1) < s0[:, 0]) | (proj.min(axis=1) > s0[:, 0])
    return ~sep


def _part_meets_base(c: np.ndarray, M: np.ndarray, pts: np.ndarray, nrm: np.ndarray,
                     off: np.ndarray) -> np.ndarray:
    """Row-wise: does convex part k meet the base with centre c[k] and frame map M[k]?
    In the base's frame the base is the unit disc: the part meets it iff the origin is inside
    the mapped part or within 1 of one of its edges."""
    inside = (np.einsum("kmj,kj->km", nrm, c) <= off).all(axis=1)
    q = np.einsum("kij,kmj->kmi", M, pts - c[:, None, :])
    r = np.roll(q, -1, axis=1)
    e = r - q
    ee = np.einsum("kmj,kmj->km", e, e)
    t = np.clip(-np.einsum("kmj,kmj->km", q, e) / np.where(ee > 0, ee, 1.0), 0.0, 1.0)
    foot = q + t[..., None] * e
    dist = np.sqrt(np.einsum("kmj,kmj->km", foot, foot)).min(axis=1)
    return inside | (dist <= 1.0 + 1e-12)


def _outer_sides(fa: Sequence[_Frame], fb: Sequence[_Frame]) -> np.ndarray:
    """(n, 2, 2, 2): for each pair of disjoint bases, the gap segments of the two outer common
    tangents (tangent point on a → tangent point on b); NaN where not found. Discs: closed form.
    Ovals: the outer tangents have normals n with h_a(n) = h_b(n) (support functions); the two
    roots are bracketed on 64 directions and bisected (pairs whose bracketing does not show
    exactly two roots are left NaN — callers then fall back to the full search)."""
    n = len(fa)
    out = np.full((n, 2, 2, 2), np.nan)
    if n == 0:
        return out
    ca = np.array([f.c for f in fa]).reshape(n, 2)
    cb = np.array([f.c for f in fb]).reshape(n, 2)
    disc = np.array([f.disc and g.disc for f, g in zip(fa, fb, strict=True)], dtype=bool)
    if disc.any():
        ra = np.array([f.r for f in fa])[disc]
        rb = np.array([g.r for g in fb])[disc]
        v = cb[disc] - ca[disc]
        d = np.hypot(v[:, 0], v[:, 1])
        k = (ra - rb) / np.where(d > 0, d, 1.0)
        ok = (d > 0) & (np.abs(k) < 1.0)
        e = v / np.where(d > 0, d, 1.0)[:, None]
        ep = np.column_stack((-e[:, 1], e[:, 0]))
        w = np.sqrt(np.maximum(0.0, 1 - k * k))
        rows = np.nonzero(disc)[0]
        for m, sgn in enumerate((1.0, -1.0)):
            nn = k[:, None] * e + (sgn * w)[:, None] * ep
            seg = np.stack([ca[disc] + ra[:, None] * nn, cb[disc] + rb[:, None] * nn], axis=1)
            out[rows[ok], m] = seg[ok]
    ov = np.nonzero(~disc)[0]
    if len(ov):
        Sa = np.array([fa[int(i)].Sigma for i in ov])
        Sb = np.array([fb[int(i)].Sigma for i in ov])
        va, vb = ca[ov], cb[ov]

        def f(t: np.ndarray) -> np.ndarray:  # t (m, j): h_a(n) − h_b(n)
            x, y = np.cos(t), np.sin(t)
            sa = np.sqrt(Sa[:, 0, 0, None] * x * x + 2 * Sa[:, 0, 1, None] * x * y
                         + Sa[:, 1, 1, None] * y * y)
            sb = np.sqrt(Sb[:, 0, 0, None] * x * x + 2 * Sb[:, 0, 1, None] * x * y
                         + Sb[:, 1, 1, None] * y * y)
            return (va[:, 0, None] - vb[:, 0, None]) * x + (va[:, 1, None] - vb[:, 1, None]) * y \
                + sa - sb

        grid = np.linspace(0, 2 * math.pi, 65)
        val = f(np.broadcast_to(grid, (len(ov), 65)))
        change = np.sign(val[:, :-1]) * np.sign(val[:, 1:]) < 0
        two = change.sum(axis=1) == 2
        if two.any():
            sel = np.nonzero(two)[0]
            idx = np.argsort(~change[sel], axis=1, kind="stable")[:, :2]
            lo = grid[idx]
            hi = grid[idx + 1]
            flo = np.take_along_axis(val[sel], idx, axis=1)
            Sa, Sb, va, vb = Sa[sel], Sb[sel], va[sel], vb[sel]
            for _ in range(55):
                mid = (lo + hi) / 2
                fm = f(mid)
                left = np.sign(fm) == np.sign(flo)
                lo = np.where(left, mid, lo)
                flo = np.where(left, fm, flo)
                hi = np.where(left, hi, mid)
            t = (lo + hi) / 2
            nx, ny = np.cos(t), np.sin(t)
            for m in range(2):
                nn = np.column_stack((nx[:, m], ny[:, m]))
                pa = va + np.einsum("kij,kj->ki", Sa, nn) / np.sqrt(
                    np.einsum("ki,kij,kj->k", nn, Sa, nn))[:, None]
                pb = vb + np.einsum("kij,kj->ki", Sb, nn) / np.sqrt(
                    np.einsum("ki,kij,kj->k", nn, Sb, nn))[:, None]
                out[ov[sel], m] = np.stack([pa, pb], axis=1)
    return out


def separated_pairs(a: Sequence[Ellipse], b: Sequence[Ellipse], obs: PreparedObstacles,
                    masks: np.ndarray) -> np.ndarray:
    """Batched quick proof of "blocked" for many pairs (a[k], b[k]) with obstacle masks
    masks[k] (over `obs.items`): True where one convex part of a selected obstacle meets
    neither base but meets both outer common tangents' gap segments (the sides of the hull of
    the two bases between them). The chord joining those two points lies in the part and
    splits the hull into a side holding a and a side holding b, so every segment from a to b
    meets the part. False says nothing (ask `search_clear_segment`). The bases must be
    disjoint."""
    n = len(a)
    out = np.zeros(n, dtype=bool)
    if n == 0 or len(obs.part_owner) == 0:
        return out
    fa = [_frame(e) for e in a]
    fb = [_frame(e) for e in b]
    sides = _outer_sides(fa, fb)
    good = ~np.isnan(sides).any(axis=(1, 2, 3))
    pi, qi = np.nonzero(masks[:, obs.part_owner] & good[:, None])
    if len(pi) == 0:
        return out
    # bounding boxes: a part far from both sides cannot meet them
    lo = np.minimum(sides.min(axis=2)[:, 0], sides.min(axis=2)[:, 1])
    hi = np.maximum(sides.max(axis=2)[:, 0], sides.max(axis=2)[:, 1])
    plo, phi = obs.part_pts.min(axis=1), obs.part_pts.max(axis=1)
    near = ((plo[qi] <= hi[pi]) & (phi[qi] >= lo[pi])).all(axis=1)
    pi, qi = pi[near], qi[near]
    if len(pi) == 0:
        return out
    pts, nrm, off = obs.part_pts[qi], obs.part_n[qi], obs.part_c[qi]
    hit = (_hits_paired(sides[pi, 0], pts, nrm, off) & _hits_paired(sides[pi, 1], pts, nrm, off))
    pi, qi, pts, nrm, off = pi[hit], qi[hit], pts[hit], nrm[hit], off[hit]
    if len(pi) == 0:
        return out
    ca = np.array([f.c for f in fa])[pi]
    cb = np.array([f.c for f in fb])[pi]
    Ma = np.array([f.M for f in fa])[pi]
    Mb = np.array([f.M for f in fb])[pi]
    free = ~_part_meets_base(ca, Ma, pts, nrm, off) & ~_part_meets_base(cb, Mb, pts, nrm, off)
    out[pi[free]] = True
    return out


def _touching_witness(a: Ellipse, b: Ellipse, p: np.ndarray, q: np.ndarray,
                      obs: PreparedObstacles, rel: np.ndarray) -> tuple[Point, Point] | None:
    """Touching or overlapping bases: a common point outside every obstacle is a (zero-length)
    witness."""
    pts = []
    lens = shapely.intersection(a.polygon(64), b.polygon(64))
    if not lens.is_empty and lens.area > 0:
        free = lens
        for k in np.nonzero(rel)[0]:
            free = shapely.difference(free, obs.items[k].test)
        if not free.is_empty:
            pts.append(np.asarray(free.representative_point().coords[0]))
    else:  # touching: the contact point
        pts.append((p + q) / 2)
    for pt in pts:
        if segments_clear(np.array([[pt, pt]]), obs, rel)[0]:
            t = (float(pt[0]), float(pt[1]))
            return (t, t)
    return None


def find_clear_segment(a: Ellipse, b: Ellipse, obstacles: Sequence[Polygon] | PreparedObstacles,
                       max_length: float | None = None) -> tuple[Point, Point] | None:
    """A segment from a point of base `a` to a point of base `b` that crosses no obstacle
    (grazing within 1e-6" is not crossing), of length ≤ `max_length` when given; None when no
    such segment exists. Exact: see the module docstring for the argument.

    Without `max_length`: the centre-to-centre segment when clear, else a clear candidate line's
    gap segment (it may graze corners). With `max_length`: the nearest-points segment when
    clear, else the shortest clear candidate of the first candidate stage that has one."""
    return search_clear_segment(a, b, obstacles, max_length).witness
