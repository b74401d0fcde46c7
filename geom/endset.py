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
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

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
CURVE_SAMPLES = 360  # normal directions sampled on a convex curve before bisection


@dataclass(frozen=True)
class Disc:
    cx: float
    cy: float
    r: float


@dataclass(frozen=True)
class Grown:
    core: BaseGeometry
    r: float = 0.0

    @cached_property
    def bounds(self) -> tuple[float, float, float, float]:
        x0, y0, x1, y1 = self.core.bounds
        return (x0, y0, x1, y1)


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
            return point_distance(self.ellipse0, pts) - self.d

        def g(psi: Arr) -> Arr:
            _, h = self.support(psi)
            return pts[:, 0, None] * np.cos(psi) + pts[:, 1, None] * np.sin(psi) - h

        if not len(pts):
            return np.zeros(0)
        _, best, _ = maximise_periodic_batch(g, len(pts))
        return best

    def implicit(self, pts: Arr) -> Arr:
        """A function of the point that is 0 exactly on the curve, negative inside (for root
        finding: closed forms where they exist)."""
        pts = np.asarray(pts, dtype=float).reshape(-1, 2)
        if len(self.sigmas) == 1 and self.d == 0:
            e = self.ellipse0
            c, s = math.cos(e.theta), math.sin(e.theta)
            dx, dy = pts[:, 0] - self.cx, pts[:, 1] - self.cy
            u, v = (c * dx + s * dy) / e.a, (-s * dx + c * dy) / e.b
            return (np.hypot(u, v) - 1.0) * e.b
        return self.separation(pts)

    @cached_property
    def ellipse0(self) -> Ellipse:
        """The (first) ellipse, placed at the centre."""
        sxx, sxy, syy = self.sigmas[0]
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
    # points far from the core's box are at least their distance to the box away
    x0, y0, x1, y1 = shape.bounds
    box_d = np.hypot(np.maximum(np.maximum(x0 - pts[:, 0], pts[:, 0] - x1), 0.0),
                     np.maximum(np.maximum(y0 - pts[:, 1], pts[:, 1] - y1), 0.0))
    d = box_d.copy()
    near = np.nonzero(box_d <= shape.r + 10 * TOLERANCE)[0]
    if len(near):
        d[near] = shapely.distance(shapely.points(pts[near]), shape.core)
    return d - shape.r


def shape_bounds(shape: Shape) -> tuple[float, float, float, float]:
    if isinstance(shape, Disc):
        return (shape.cx - shape.r, shape.cy - shape.r, shape.cx + shape.r, shape.cy + shape.r)
    if isinstance(shape, Curve):
        z, _ = shape.support(np.array([0.0, math.pi / 2, math.pi, 1.5 * math.pi]))
        return (float(z[2, 0]), float(z[3, 1]), float(z[0, 0]), float(z[1, 1]))
    x0, y0, x1, y1 = shape.bounds if isinstance(shape, Grown) else shape.core.bounds
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
            bs = np.array([shape_bounds(s) for s in group])
            x0, y0 = max(x0, bs[:, 0].min()), max(y0, bs[:, 1].min())
            x1, y1 = min(x1, bs[:, 2].max()), min(y1, bs[:, 3].max())
        if x0 > x1 + TOLERANCE or y0 > y1 + TOLERANCE:
            return None
        return (x0, y0, x1, y1)

    def near(self, w: tuple[float, float, float, float]) -> EndSet:
        """The same set inside window w, without the shapes that cannot reach into it."""
        def meets(shape: Shape) -> bool:
            x0, y0, x1, y1 = shape_bounds(shape)
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
    # likewise the vertex curves of one footprint grown by an oval base
    curve_group: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.group) != len(self.segments):
            self.group = np.full(len(self.segments), -1, dtype=np.int64)
        if len(self.curve_group) != len(self.curves):
            self.curve_group = [-1] * len(self.curves)

    def extend(self, other: Primitives) -> None:
        base = max([int(self.group.max()) if len(self.group) else -1, *self.curve_group, -1]) + 1
        g = other.group.copy()
        g[g >= 0] += base
        self.circles = np.vstack([self.circles, other.circles])
        self.segments = np.vstack([self.segments, other.segments])
        self.group = np.concatenate([self.group, g])
        self.curves += other.curves
        self.curve_group += [c + base if c >= 0 else -1 for c in other.curve_group]
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
        ends = xy[:-1] if len(xy) > 1 and np.allclose(xy[0], xy[-1]) else xy
        curves += [Curve(float(x), float(y), (sig,), 0.0) for x, y in ends]
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
    return Primitives(segments=np.vstack(segs) if segs else np.zeros((0, 4)), curves=curves,
                      curve_group=[0] * len(curves))


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
    keep_v = [i for i, cv in enumerate(p.curves) if not ((b := shape_bounds(cv))[2] < x0
                                                        or b[0] > x1 or b[3] < y0 or b[1] > y1)]
    return Primitives(c[keep_c], s[keep_s], [p.curves[i] for i in keep_v], pts[keep_p],
                      p.group[keep_s], [p.curve_group[i] for i in keep_v])


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
    rows, psi = curve_roots_rows(lambda t: f(t.ravel()).reshape(t.shape), 1, n)
    return psi


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
        w = np.sqrt(np.maximum(sxx * nx * nx + 2 * sxy * nx * ny + syy * ny * ny, 1e-300))
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
    sg, L = sg[L > 1e-12], L[L > 1e-12]
    if len(sg):
        u = (sg[:, 2:] - sg[:, :2]) / L[:, None]
        m = np.column_stack((-u[:, 1], u[:, 0]))

        def f_line(t: Arr) -> Arr:
            zx, zy = _support_rows(cv, t)
            return (zx - sg[:, 0, None]) * m[:, 0, None] + (zy - sg[:, 1, None]) * m[:, 1, None]

        rows, psi = curve_roots_rows(f_line, len(sg))
        z = cv.support(psi)[0]
        t = ((z - sg[rows, :2]) * u[rows]).sum(axis=1)
        out.append(z[(t >= -1e-9) & (t <= L[rows] + 1e-9)])
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
        ok = D > 1e-12
        u = d[ok] / D[ok, None]
        out += [c[ok, :2] + c[ok, 2:3] * u, c[ok, :2] - c[ok, 2:3] * u]
    sg = p.segments
    if len(sg):
        p0, dv = sg[:, :2], sg[:, 2:] - sg[:, :2]
        L2 = np.maximum((dv * dv).sum(axis=1), 1e-24)
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
    p = Primitives()
    for shape in es.shapes():
        p.extend(shape_primitives(shape))
    p.extend(box_primitives(es.box))
    if extra is not None:
        p.extend(extra)
    p = clip(p, w, 1e-6)
    s = np.asarray(toward, dtype=float)
    cand = es.nudge(np.vstack([vertices(p), feet(p, s), s[None, :]]))
    cand = cand[es.contains(cand)]
    yield from cand[np.argsort(np.hypot(*(cand - s).T), kind="stable")]
    xs = np.arange(w[0], w[2] + grid, grid)
    ys = np.arange(w[1], w[3] + grid, grid)
    g = np.column_stack([a.ravel() for a in np.meshgrid(xs, ys)])
    g = g[es.contains(g)]
    yield from g[np.argsort(np.hypot(*(g - s).T), kind="stable")]
