"""Sets of legal end positions for a base's centre, described exactly (rulebook §8.5.3, §8.7.7
step 3, §7.2).

An `EndSet` is the centres x in a box (the base wholly on the table) that lie in some shape of
every `include` group (e.g. "engaged with some model of this target") and in no `exclude` shape
(e.g. "overlapping that wall", "within 1" of that undeclared enemy"). Shapes are

- `Disc`: a closed disc — the centres at which a disc base is within d of another disc base;
- `Grown`: a geometry grown by a radius — a disc base overlapping a footprint (radius r), a
  polygon of centres (radius 0);
- `Curve`: a convex set given by its support function, the Minkowski sum of centred ellipses
  and a disc — the centres at which an oval base comes within d of another base.

Membership is decided exactly (closed forms; GEOS distances; for curves the support-function
separation, maximised to 1e-12 rad), with the tolerance of 1e-6" always on the side of the
rule's wording: a distance exactly at a limit meets it, touching is not overlapping, and
exactly 1" from an enemy is within its engagement range.

The boundary of the set lies on the boundaries of its shapes: circles, segments and convex
curves (`Primitives`). The shortest path to the set ends at a boundary point where the last leg
meets it square, or at a vertex where two boundary pieces cross (`geom.region_path`), so those
points are all computed here in closed form (curves: sampled, then bisected to 1e-12).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely import affinity
from shapely.geometry import LinearRing, LineString, Polygon
from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry

from .bases import maximise_periodic_batch, point_distance
from .model import TOLERANCE, Ellipse

Arr = NDArray[np.float64]
CURVE_SAMPLES = 720  # normal directions sampled on a convex curve before bisection


@dataclass(frozen=True)
class Disc:
    cx: float
    cy: float
    r: float


@dataclass(frozen=True)
class Grown:
    core: BaseGeometry
    r: float = 0.0


@dataclass(frozen=True)
class Curve:
    """c ⊕ (ellipses given by their matrices Σ = L·Lᵀ) ⊕ disc(d)."""

    cx: float
    cy: float
    sigmas: tuple[tuple[float, float, float], ...]  # (Σxx, Σxy, Σyy) per ellipse
    d: float = 0.0

    @staticmethod
    def around(centre: tuple[float, float], ellipses: Sequence[Ellipse], d: float) -> Curve:
        """centre ⊕ the ellipses (centred at the origin) ⊕ disc(d); a disc adds its radius."""
        return Curve(centre[0], centre[1], tuple(_sigma(e) for e in ellipses if not e.is_disc),
                     d + sum(e.a for e in ellipses if e.is_disc))

    def support(self, psi: Arr) -> tuple[Arr, Arr]:
        """Boundary point z(ψ) with outward normal (cos ψ, sin ψ), and h(ψ) = n·z."""
        nx, ny = np.cos(psi), np.sin(psi)
        zx = np.full(np.shape(psi), self.cx) + self.d * nx
        zy = np.full(np.shape(psi), self.cy) + self.d * ny
        for sxx, sxy, syy in self.sigmas:
            w = np.sqrt(np.maximum(sxx * nx * nx + 2 * sxy * nx * ny + syy * ny * ny, 1e-300))
            zx = zx + (sxx * nx + sxy * ny) / w
            zy = zy + (sxy * nx + syy * ny) / w
        return np.stack((zx, zy), axis=-1), zx * nx + zy * ny

    def separation(self, pts: Arr) -> Arr:
        """max over unit n of (n·x − h(n)): the distance from x for x outside, −(depth) inside."""
        pts = np.asarray(pts, dtype=float).reshape(-1, 2)
        if not self.sigmas:
            return np.hypot(pts[:, 0] - self.cx, pts[:, 1] - self.cy) - self.d
        if len(self.sigmas) == 1 and self.d > 0:  # an ellipse grown by d: its distance − d
            return point_distance(self._ellipse(0), pts) - self.d

        def g(psi: Arr) -> Arr:
            _, h = self.support(psi)
            return pts[:, 0, None] * np.cos(psi) + pts[:, 1, None] * np.sin(psi) - h

        if not len(pts):
            return np.zeros(0)
        _, best, _ = maximise_periodic_batch(g, len(pts))
        return best

    def _ellipse(self, i: int) -> Ellipse:
        sxx, sxy, syy = self.sigmas[i]
        tr, det = sxx + syy, sxx * syy - sxy * sxy
        disc = math.sqrt(max(tr * tr / 4 - det, 0.0))
        l1, l2 = tr / 2 + disc, tr / 2 - disc
        theta = 0.5 * math.atan2(2 * sxy, sxx - syy)
        return Ellipse(self.cx, self.cy, math.sqrt(l1), math.sqrt(max(l2, 0.0)), theta)

    def nearest(self, p: tuple[float, float]) -> tuple[float, float]:
        """The boundary point nearest to p (p outside the set)."""
        pts = np.array([p], dtype=float)

        def g(psi: Arr) -> Arr:
            _, h = self.support(psi)
            return pts[:, 0, None] * np.cos(psi) + pts[:, 1, None] * np.sin(psi) - h

        psi, _, _ = maximise_periodic_batch(g, 1)
        z, _ = self.support(psi)
        return float(z[0, 0]), float(z[0, 1])


def _sigma(e: Ellipse) -> tuple[float, float, float]:
    c, s = math.cos(e.theta), math.sin(e.theta)
    a2, b2 = e.a * e.a, e.b * e.b
    return (a2 * c * c + b2 * s * s, (a2 - b2) * c * s, a2 * s * s + b2 * c * c)


@dataclass(frozen=True)
class Framed:
    """`core` ⊕ an oval base centred at the origin: the centres at which the base meets the
    core (decided in the base's own frame, where it is the unit circle)."""

    core: BaseGeometry
    base: Ellipse

    def frame(self) -> tuple[float, float, float, float]:
        c, s = math.cos(self.base.theta), math.sin(self.base.theta)
        return (c / self.base.a, s / self.base.a, -s / self.base.b, c / self.base.b)

    def distance(self, pts: Arr) -> Arr:
        """How far outside, in the frame's units (the base's semi-axes are 1)."""
        m00, m01, m10, m11 = self.frame()
        core = affinity.affine_transform(self.core, [m00, m01, m10, m11, 0.0, 0.0])
        q = np.column_stack((m00 * pts[:, 0] + m01 * pts[:, 1], m10 * pts[:, 0] + m11 * pts[:, 1]))
        return np.asarray(shapely.distance(shapely.points(q), core), dtype=float) - 1.0


Shape = Disc | Grown | Curve | Framed


def _distance(shape: Shape, pts: Arr) -> Arr:
    """How far each point is outside the shape (negative: inside, for discs and curves)."""
    if isinstance(shape, Disc):
        return np.hypot(pts[:, 0] - shape.cx, pts[:, 1] - shape.cy) - shape.r
    if isinstance(shape, Curve):
        return shape.separation(pts)
    if isinstance(shape, Framed):
        # frame units are inches divided by a semi-axis: scale back by the short one so that
        # the tolerance is never looser than in inches
        return shape.distance(pts) * shape.base.b
    d = np.asarray(shapely.distance(shapely.points(pts), shape.core), dtype=float)
    return d - shape.r


def _bounds(shape: Shape) -> tuple[float, float, float, float]:
    if isinstance(shape, Disc):
        return (shape.cx - shape.r, shape.cy - shape.r, shape.cx + shape.r, shape.cy + shape.r)
    if isinstance(shape, Curve):
        z, _ = shape.support(np.array([0.0, math.pi / 2, math.pi, 1.5 * math.pi]))
        return (float(z[2, 0]), float(z[3, 1]), float(z[0, 0]), float(z[1, 1]))
    x0, y0, x1, y1 = shape.core.bounds
    pad = shape.base.a if isinstance(shape, Framed) else shape.r
    return (x0 - pad, y0 - pad, x1 + pad, y1 + pad)


@dataclass
class EndSet:
    """Legal ends: in `box`, in some shape of every include group, in no exclude shape.
    `closed[i]`: exclude shape i also excludes its boundary (e.g. within 1" of an enemy)."""

    box: tuple[float, float, float, float]
    include: list[list[Shape]]
    exclude: list[Shape] = field(default_factory=list)
    closed: list[bool] = field(default_factory=list)
    name: str = ""

    def window(self) -> tuple[float, float, float, float] | None:
        """A box holding the whole set (None: the set is empty)."""
        x0, y0, x1, y1 = self.box
        for group in self.include:
            if not group:
                return None
            bs = np.array([_bounds(s) for s in group])
            x0, y0 = max(x0, bs[:, 0].min()), max(y0, bs[:, 1].min())
            x1, y1 = min(x1, bs[:, 2].max()), min(y1, bs[:, 3].max())
        if x0 > x1 + TOLERANCE or y0 > y1 + TOLERANCE:
            return None
        return (x0, y0, x1, y1)

    def near(self, w: tuple[float, float, float, float]) -> EndSet:
        """The same set inside window w, without the shapes that cannot reach into it."""
        def meets(shape: Shape) -> bool:
            x0, y0, x1, y1 = _bounds(shape)
            return not (x1 < w[0] - TOLERANCE or x0 > w[2] + TOLERANCE
                        or y1 < w[1] - TOLERANCE or y0 > w[3] + TOLERANCE)

        keep = [i for i, shape in enumerate(self.exclude) if meets(shape)]
        return EndSet(self.box, [[s for s in g if meets(s)] for g in self.include],
                      [self.exclude[i] for i in keep], [self.closed[i] for i in keep], self.name)

    def contains(self, pts: Arr) -> NDArray[np.bool_]:
        pts = np.asarray(pts, dtype=float).reshape(-1, 2)
        x0, y0, x1, y1 = self.box
        ok = ((pts[:, 0] >= x0 - TOLERANCE) & (pts[:, 0] <= x1 + TOLERANCE)
              & (pts[:, 1] >= y0 - TOLERANCE) & (pts[:, 1] <= y1 + TOLERANCE))
        for group in self.include:
            idx = np.nonzero(ok)[0]
            if not len(idx):
                return ok
            inside = np.zeros(len(idx), dtype=bool)
            for s in group:
                todo = np.nonzero(~inside)[0]
                if not len(todo):
                    break
                inside[todo] |= _distance(s, pts[idx[todo]]) <= TOLERANCE
            ok[idx] = inside
        for s, closed in zip(self.exclude, self.closed, strict=True):
            idx = np.nonzero(ok)[0]
            if not len(idx):
                break
            d = _distance(s, pts[idx])
            ok[idx] = d > TOLERANCE if closed else d >= -TOLERANCE
        return ok

    def nudge(self, pts: Arr) -> Arr:
        """Points on the edge of a closed exclusion (exactly 1" from an undeclared enemy) are not
        in the set, though every point just beyond is: move them out by twice the tolerance, so
        that the nearest end is found where the rule's limit puts it."""
        out = np.array(pts, dtype=float).reshape(-1, 2)
        for shape, closed in zip(self.exclude, self.closed, strict=True):
            if not closed or not len(out):
                continue
            d = _distance(shape, out)
            near = np.nonzero(np.abs(d) <= 10 * TOLERANCE)[0]
            if not len(near):
                continue
            h = 1e-7
            p = out[near]
            gx = (_distance(shape, p + (h, 0.0)) - _distance(shape, p - (h, 0.0))) / (2 * h)
            gy = (_distance(shape, p + (0.0, h)) - _distance(shape, p - (0.0, h))) / (2 * h)
            g = np.column_stack((gx, gy))
            g /= np.maximum(np.hypot(gx, gy), 1e-12)[:, None]
            out[near] = p + (2 * TOLERANCE - d[near])[:, None] * g
        return out

    def shapes(self) -> Iterable[Shape]:
        for group in self.include:
            yield from group
        yield from self.exclude


# --------------------------------------------------------------------------- boundary pieces

@dataclass
class Primitives:
    """Boundary pieces: circles (x, y, r), segments (x0, y0, x1, y1) and convex curves."""

    circles: Arr = field(default_factory=lambda: np.zeros((0, 3)))
    segments: Arr = field(default_factory=lambda: np.zeros((0, 4)))
    curves: list[Curve] = field(default_factory=list)
    points: Arr = field(default_factory=lambda: np.zeros((0, 2)))  # corners worth trying
    # segments of one polygon taken as it is never cross each other except at its own
    # vertices (in `points`): they share a group number ≥ 0 and are not paired
    group: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __post_init__(self) -> None:
        if len(self.group) != len(self.segments):
            self.group = np.full(len(self.segments), -1, dtype=np.int64)

    def extend(self, other: Primitives) -> None:
        g = other.group.copy()
        if len(g) and len(self.group):
            g[g >= 0] += max(int(self.group.max()), -1) + 1
        self.circles = np.vstack([self.circles, other.circles])
        self.segments = np.vstack([self.segments, other.segments])
        self.group = np.concatenate([self.group, g])
        self.curves += other.curves
        self.points = np.vstack([self.points, other.points])


def _rings(g: BaseGeometry) -> Iterable[NDArray[np.float64]]:
    for part in getattr(g, "geoms", [g]):
        if part.is_empty:
            continue
        if isinstance(part, Polygon):
            for ring in [part.exterior, *part.interiors]:
                yield np.asarray(ring.coords)[:, :2]
        elif isinstance(part, LineString | LinearRing):
            yield np.asarray(part.coords)[:, :2]
        elif part.geom_type == "GeometryCollection":
            yield from _rings(part)


def grown_primitives(core: BaseGeometry, r: float) -> Primitives:
    """Boundary pieces of {x : dist(x, core) ≤ r}: the core's edges offset by ±r and circles
    of radius r at its vertices (r = 0: the edges and vertices themselves)."""
    segs: list[Arr] = []
    verts: list[Arr] = []
    for part in getattr(core, "geoms", [core]):
        if isinstance(part, SPoint):
            verts.append(np.array([[part.x, part.y]]))
    for xy in _rings(core):
        verts.append(xy)
        if len(xy) < 2:
            continue
        e = np.hstack([xy[:-1], xy[1:]])
        d = e[:, 2:] - e[:, :2]
        L = np.hypot(d[:, 0], d[:, 1])
        e, d, L = e[L > 1e-12], d[L > 1e-12], L[L > 1e-12]
        if r <= 0:
            segs.append(e)
            continue
        n = np.column_stack((-d[:, 1], d[:, 0])) / L[:, None]
        for sgn in (1.0, -1.0):
            off = np.hstack([n, n]) * (sgn * r)
            segs.append(e + off)
    v = np.vstack(verts) if verts else np.zeros((0, 2))
    s = np.vstack(segs) if segs else np.zeros((0, 4))
    if r > 0:
        return Primitives(np.column_stack((v, np.full(len(v), r))), s, [], np.zeros((0, 2)))
    return Primitives(np.zeros((0, 3)), s, [], v, np.zeros(len(s), dtype=np.int64))


def framed_primitives(core: BaseGeometry, base: Ellipse) -> Primitives:
    """Boundary pieces of core ⊕ base: the core's edges moved out by the base's support point
    on either side, and the base around each vertex."""
    sig = _sigma(base)
    segs: list[Arr] = []
    curves: list[Curve] = []
    for xy in _rings(core):
        curves += [Curve(float(x), float(y), (sig,), 0.0) for x, y in xy]
        if len(xy) < 2:
            continue
        e = np.hstack([xy[:-1], xy[1:]])
        d = e[:, 2:] - e[:, :2]
        L = np.hypot(d[:, 0], d[:, 1])
        e, d, L = e[L > 1e-12], d[L > 1e-12], L[L > 1e-12]
        n = np.column_stack((-d[:, 1], d[:, 0])) / L[:, None]
        w = np.sqrt(sig[0] * n[:, 0] ** 2 + 2 * sig[1] * n[:, 0] * n[:, 1] + sig[2] * n[:, 1] ** 2)
        sup = np.column_stack((sig[0] * n[:, 0] + sig[1] * n[:, 1],
                               sig[1] * n[:, 0] + sig[2] * n[:, 1])) / w[:, None]
        for sgn in (1.0, -1.0):
            segs.append(e + sgn * np.hstack([sup, sup]))
    for part in getattr(core, "geoms", [core]):
        if isinstance(part, SPoint):
            curves.append(Curve(part.x, part.y, (sig,), 0.0))
    return Primitives(segments=np.vstack(segs) if segs else np.zeros((0, 4)), curves=curves)


def shape_primitives(shape: Shape) -> Primitives:
    if isinstance(shape, Framed):
        return framed_primitives(shape.core, shape.base)
    if isinstance(shape, Disc):
        return Primitives(np.array([[shape.cx, shape.cy, shape.r]]))
    if isinstance(shape, Curve):
        if not shape.sigmas:
            return Primitives(np.array([[shape.cx, shape.cy, shape.d]]))
        return Primitives(curves=[shape])
    return grown_primitives(shape.core, shape.r)


def box_primitives(box: tuple[float, float, float, float]) -> Primitives:
    x0, y0, x1, y1 = box
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    segs = np.hstack([corners, np.roll(corners, -1, axis=0)])
    return Primitives(segments=segs, points=corners)


def clip(p: Primitives, window: tuple[float, float, float, float], margin: float) -> Primitives:
    """The pieces that come within `margin` of the window."""
    x0, y0, x1, y1 = window
    x0, y0, x1, y1 = x0 - margin, y0 - margin, x1 + margin, y1 + margin
    c = p.circles
    cx = np.clip(c[:, 0], x0, x1)
    cy = np.clip(c[:, 1], y0, y1)
    keep_c = np.hypot(c[:, 0] - cx, c[:, 1] - cy) <= c[:, 2]
    s = p.segments
    keep_s = ~((np.maximum(s[:, 0], s[:, 2]) < x0) | (np.minimum(s[:, 0], s[:, 2]) > x1)
               | (np.maximum(s[:, 1], s[:, 3]) < y0) | (np.minimum(s[:, 1], s[:, 3]) > y1))
    pts = p.points
    keep_p = (pts[:, 0] >= x0) & (pts[:, 0] <= x1) & (pts[:, 1] >= y0) & (pts[:, 1] <= y1)
    return Primitives(c[keep_c], s[keep_s], list(p.curves), pts[keep_p], p.group[keep_s])


# --------------------------------------------------------------------------- crossings

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
    ok = (D > 1e-12) & (D <= ra + rb + 1e-12) & (D >= np.abs(ra - rb) - 1e-12)
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
                          distance=float(c[:, 2].max()) + 1e-9)
    p0 = s[j, :2]
    d = s[j, 2:] - p0
    L = np.hypot(d[:, 0], d[:, 1])
    good = L > 1e-12
    i, p0, d, L = i[good], p0[good], d[good], L[good]
    u = d / L[:, None]
    w = p0 - c[i, :2]
    b = (w * u).sum(axis=1)
    disc = b * b - ((w * w).sum(axis=1) - c[i, 2] ** 2)
    ok = disc >= -1e-12
    out = []
    sq = np.sqrt(np.maximum(disc, 0.0))
    for t in (-b - sq, -b + sq):
        inside = ok & (t >= -1e-9) & (t <= L + 1e-9)
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
    ok = np.abs(den) > 1e-14
    qp = q - p
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (qp[:, 0] * w[:, 1] - qp[:, 1] * w[:, 0]) / den
        u = (qp[:, 0] * r[:, 1] - qp[:, 1] * r[:, 0]) / den
    ok &= (t >= -1e-9) & (t <= 1 + 1e-9) & (u >= -1e-9) & (u <= 1 + 1e-9)
    return p[ok] + t[ok, None] * r[ok]


def curve_roots(f: Callable[[Arr], Arr], n: int = CURVE_SAMPLES) -> Arr:
    """Angles ψ in [0, 2π) where the periodic function f changes sign, bisected to 1e-13."""
    psi = np.linspace(0.0, 2 * math.pi, n + 1)
    v = f(psi)
    lo, hi = psi[:-1], psi[1:]
    flo, fhi = v[:-1], v[1:]
    ch = (np.sign(flo) != np.sign(fhi)) | (flo == 0)
    lo, hi, flo = lo[ch], hi[ch], flo[ch]
    for _ in range(48):
        mid = (lo + hi) / 2
        fm = f(mid)
        left = np.sign(fm) == np.sign(flo)
        lo = np.where(left, mid, lo)
        flo = np.where(left, fm, flo)
        hi = np.where(left, hi, mid)
    return (lo + hi) / 2



def curve_crossings(cv: Curve, p: Primitives) -> Arr:
    """Where the convex curve crosses the other pieces."""
    out: list[Arr] = []
    for x, y, r in p.circles:
        def f_circle(t: Arr, x: float = x, y: float = y, r: float = r) -> Arr:
            z = cv.support(t)[0]
            return np.hypot(z[:, 0] - x, z[:, 1] - y) - r

        out.append(cv.support(curve_roots(f_circle))[0])
    for x0, y0, x1, y1 in p.segments:
        d = np.array([x1 - x0, y1 - y0])
        L = float(np.hypot(*d))
        if L <= 1e-12:
            continue
        u = d / L
        m = np.array([-u[1], u[0]])

        def f_line(t: Arr, m: Arr = m, x0: float = x0, y0: float = y0) -> Arr:
            return np.asarray((cv.support(t)[0] - (x0, y0)) @ m)

        z = cv.support(curve_roots(f_line))[0]
        t = (z - (x0, y0)) @ u
        out.append(z[(t >= -1e-9) & (t <= L + 1e-9)])
    for other in p.curves:
        if other is cv:
            continue

        def f_curve(t: Arr, o: Curve = other) -> Arr:
            return o.separation(cv.support(t)[0])

        out.append(cv.support(curve_roots(f_curve, n=180))[0])
    return np.vstack(out) if out else np.zeros((0, 2))


def vertices(p: Primitives) -> Arr:
    """Every point where two boundary pieces cross, and the corners worth trying."""
    parts = [p.points, circle_circle(p.circles, p.circles),
             circle_segment(p.circles, p.segments),
             segment_segment(p.segments, p.segments, p.group, p.group)]
    for cv in p.curves:
        parts.append(curve_crossings(cv, p))
    return np.vstack(parts)
