"""The shapes end sets are made of, and how far a point lies outside each (rulebook §8.5.3,
§8.7.7 step 3, §7.2): the membership tests of `geom.paths._endset`, one shape at a time
(`outside_distance`, the reference) or many at once (`ShapeTests`: the same distances, batched).

- `Disc`: a closed disc — the centres at which a disc base is within d of another disc base;
- `Grown`: a geometry grown by a radius — a disc base overlapping a footprint (radius r), a
  polygon of centres (radius 0);
- `Curve`: a convex set given by its support function, the Minkowski sum of centred ellipses
  and a disc — the centres at which an oval base comes within d of another base;
- `Framed`: a footprint grown by an oval base, decided in the base's own frame.

The tolerance of 1e-6" is always on the side of the rule's wording: a distance exactly at a
limit meets it, touching is not overlapping, and exactly 1" from an enemy is within its
engagement range.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely import affinity
from shapely.geometry.base import BaseGeometry

from ..bases import maximise_periodic_batch, point_distance
from ..model import Ellipse
from ..tolerance import DIVISION_FLOOR, TOLERANCE

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
        return Curve(centre[0], centre[1], tuple(quadratic_form(e) for e in ellipses if not e.is_disc),
                     d + sum(e.a for e in ellipses if e.is_disc))

    def support(self, psi: Arr) -> tuple[Arr, Arr]:
        """Boundary point z(ψ) with outward normal (cos ψ, sin ψ), and h(ψ) = n·z."""
        nx, ny = np.cos(psi), np.sin(psi)
        zx = np.full(np.shape(psi), self.cx) + self.d * nx
        zy = np.full(np.shape(psi), self.cy) + self.d * ny
        for sxx, sxy, syy in self.sigmas:
            w = np.sqrt(np.maximum(sxx * nx * nx + 2 * sxy * nx * ny + syy * ny * ny, DIVISION_FLOOR))
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


def quadratic_form(e: Ellipse) -> tuple[float, float, float]:
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


def outside_distance(shape: Shape, pts: Arr) -> Arr:
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


def distance_outside(shape: Shape, pts: Arr) -> Arr:
    """How far each point (n, 2) lies outside the shape (negative inside, for discs and
    curves) — the distance membership is decided on."""
    return outside_distance(shape, np.asarray(pts, dtype=float).reshape(-1, 2))


def shape_bounds(shape: Shape) -> tuple[float, float, float, float]:
    if isinstance(shape, Disc):
        return (shape.cx - shape.r, shape.cy - shape.r, shape.cx + shape.r, shape.cy + shape.r)
    if isinstance(shape, Curve):
        z, _ = shape.support(np.array([0.0, math.pi / 2, math.pi, 1.5 * math.pi]))
        return (float(z[2, 0]), float(z[3, 1]), float(z[0, 0]), float(z[1, 1]))
    x0, y0, x1, y1 = shape.bounds if isinstance(shape, Grown) else shape.core.bounds
    pad = shape.base.a if isinstance(shape, Framed) else shape.r
    return (x0 - pad, y0 - pad, x1 + pad, y1 + pad)


class ShapeTests:
    """Shapes tested together: the discs in one array operation, the grown footprints in one
    GEOS call for the pairs whose boxes come near, the rest one at a time — the same distances
    `outside_distance` gives, with the same tolerances."""

    def __init__(self, discs: Arr, disc_closed: NDArray[np.bool_], grown: list[Grown],
                 grown_closed: NDArray[np.bool_], others: Sequence[tuple[Shape, bool]]) -> None:
        self.discs, self.disc_closed = discs, disc_closed
        self.cores = np.array([g.core for g in grown], dtype=object)
        self.boxes = np.array([g.bounds for g in grown], dtype=float).reshape(-1, 4)
        self.radii = np.array([g.r for g in grown], dtype=float)
        self.grown_closed = grown_closed
        self.others = others
        self._prepared = False

    @staticmethod
    def of(shapes: Sequence[Shape], closed: Sequence[bool]) -> ShapeTests:
        discs = [(s, c) for s, c in zip(shapes, closed, strict=True) if isinstance(s, Disc)]
        grown = [(s, c) for s, c in zip(shapes, closed, strict=True) if isinstance(s, Grown)]
        others: list[tuple[Shape, bool]] = [(s, c) for s, c in zip(shapes, closed, strict=True)
                                            if not isinstance(s, Disc | Grown)]
        return ShapeTests(
            np.array([(s.cx, s.cy, s.r) for s, _ in discs], dtype=float).reshape(-1, 3),
            np.array([c for _, c in discs], dtype=bool), [s for s, _ in grown],
            np.array([c for _, c in grown], dtype=bool), others)

    def disc_distances(self, pts: Arr) -> Arr:
        """(n, discs): how far outside each disc (`outside_distance`)."""
        c = self.discs
        return np.hypot(pts[:, 0, None] - c[None, :, 0], pts[:, 1, None] - c[None, :, 1]) \
            - c[None, :, 2]

    def _box_distances(self, pts: Arr) -> Arr:
        """(n, grown): distance from each point to each core's bounding box."""
        b = self.boxes
        px, py = pts[:, 0, None], pts[:, 1, None]
        return np.hypot(np.maximum(np.maximum(b[None, :, 0] - px, px - b[None, :, 2]), 0.0),
                        np.maximum(np.maximum(b[None, :, 1] - py, py - b[None, :, 3]), 0.0))

    def grown_distances(self, pts: Arr) -> Arr:
        """(n, grown): how far outside each grown footprint (`outside_distance`: exact where the
        core's box comes within the radius, else the distance to the box)."""
        d = self._box_distances(pts)
        i, j = np.nonzero(d <= self.radii[None, :] + 10 * TOLERANCE)
        if len(i):
            d[i, j] = shapely.distance(shapely.points(pts[i]), self.cores[j])
        return d - self.radii[None, :]

    def grown_within(self, pts: Arr, cols: NDArray[np.bool_] | None = None
                     ) -> NDArray[np.bool_]:
        """(n,): within the tolerance of some grown footprint (of those `cols` picks) — what
        `grown_distances(pts) <= TOLERANCE` says, by a distance-within test on the prepared
        cores, which stops as soon as it knows (a long zone boundary is not walked point by
        point)."""
        r = self.radii
        near = self._box_distances(pts) <= r[None, :] + TOLERANCE
        if cols is not None:
            near &= cols[None, :]
        i, j = np.nonzero(near)
        out = np.zeros(len(pts), dtype=bool)
        if len(i):
            if not self._prepared:
                shapely.prepare(self.cores)
                self._prepared = True
            hit = shapely.dwithin(self.cores[j], shapely.points(pts[i]), r[j] + TOLERANCE)
            out[i[hit]] = True
        return out

    def inside(self, pts: Arr) -> NDArray[np.bool_]:
        """In some shape (within the tolerance)."""
        inside = np.zeros(len(pts), dtype=bool)
        if len(self.discs):
            inside |= (self.disc_distances(pts) <= TOLERANCE).any(axis=1)
        if len(self.radii):
            todo = np.nonzero(~inside)[0]
            if len(todo):
                inside[todo] = self.grown_within(pts[todo])
        for s, _ in self.others:
            todo = np.nonzero(~inside)[0]
            if not len(todo):
                break
            inside[todo] |= outside_distance(s, pts[todo]) <= TOLERANCE
        return inside

    def clear_of(self, pts: Arr) -> NDArray[np.bool_]:
        """In no shape: a closed one excludes its boundary, an open one only its inside."""
        ok = np.ones(len(pts), dtype=bool)
        if len(self.discs):
            d = self.disc_distances(pts)
            ok &= ~np.where(self.disc_closed[None, :], d <= TOLERANCE, d < -TOLERANCE).any(axis=1)
        if len(self.radii):
            idx = np.nonzero(ok)[0]
            if len(idx) and self.grown_closed.any():  # closed: out by more than the tolerance
                ok[idx] = ~self.grown_within(pts[idx], self.grown_closed)
            idx = np.nonzero(ok)[0]
            if len(idx) and not self.grown_closed.all():  # open: not inside by more
                d = self.grown_distances(pts[idx])
                ok[idx] = ~((d < -TOLERANCE) & ~self.grown_closed[None, :]).any(axis=1)
        for s, closed in self.others:
            idx = np.nonzero(ok)[0]
            if not len(idx):
                break
            d = outside_distance(s, pts[idx])
            ok[idx] = d > TOLERANCE if closed else d >= -TOLERANCE
        return ok


@dataclass
class SetTests:
    """An end set's membership tests, prepared once: its include groups (in some shape of
    each) and its exclusions (in none)."""

    include: list[ShapeTests]
    exclude: list[ShapeTests]

    @staticmethod
    def of(include: Sequence[Sequence[Shape]], exclude: Sequence[Shape],
           closed: Sequence[bool]) -> SetTests:
        return SetTests([ShapeTests.of(g, [False] * len(g)) for g in include],
                        [ShapeTests.of(exclude, closed)] if exclude else [])
