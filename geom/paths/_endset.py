"""Sets of legal end positions for a base's centre, described exactly (rulebook §8.5.3, §8.7.7
step 3, §7.2).

An `EndSet` is the centres x in a box (the base wholly on the table) that lie in some shape of
every `include` group (e.g. "engaged with some model of this target") and in no `exclude` shape
(e.g. "overlapping that wall", "within 1" of that undeclared enemy"). Shapes
(`geom.paths._end_shapes`) are

- `Disc`: a closed disc — the centres at which a disc base is within d of another disc base;
- `Grown`: a geometry grown by a radius — a disc base overlapping a footprint (radius r), a
  polygon of centres (radius 0);
- `Curve`: a convex set given by its support function, the Minkowski sum of centred ellipses
  and a disc — the centres at which an oval base comes within d of another base.

Membership is decided exactly (closed forms; GEOS distances; for curves the support-function
separation, maximised to 1e-12 rad; many points and shapes at once, `contains`, or one shape
at a time, `contains_one_by_one`, the reference), with the tolerance of 1e-6" always on the side of the
rule's wording: a distance exactly at a limit meets it, touching is not overlapping, and
exactly 1" from an enemy is within its engagement range.

The boundary of the set lies on the boundaries of its shapes: circles, segments and convex
curves (`Primitives`). The shortest path to the set ends at a boundary point where the last leg
meets it square, or at a vertex where two boundary pieces cross (`geom.paths._region_path`); those
points are computed in `geom.paths._crossings`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import NDArray
from shapely.geometry import LinearRing, LineString, Polygon
from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry

from ..model import Ellipse
from ..tolerance import (
    GRADIENT_STEP,
    SINGULAR,
    SLIDE_FIRST_STEP,
    TOLERANCE,
    WINDOW_MARGIN,
    ZERO_LENGTH,
)
from ._end_shapes import (
    Arr,
    Curve,
    Disc,
    Framed,
    SetTests,
    Shape,
    ShapeTests,
    outside_distance,
    quadratic_form,
    shape_bounds,
)

# names other modules import from here


@dataclass
class EndSet:
    """Legal ends: in `box`, in some shape of every include group, in no exclude shape.
    `closed[i]`: exclude shape i also excludes its boundary (e.g. within 1" of an enemy).

    A set may hold ends that are legal only once the move has destroyed some pieces (`assumes`:
    GRASS the leading model tramples, `geom.movement._destroyed`): its ends are then offered to a search
    that checks the path to each. `extra` shapes do not change membership; their boundaries are
    places where a shortest path may end (the centres at which the base starts to overlap an
    assumed piece). `rays`: circles (x, y, r) past which a last leg may run tangentially (the
    edge of the region a path must cross to trample an assumed piece)."""

    box: tuple[float, float, float, float]
    include: list[list[Shape]]
    exclude: list[Shape] = field(default_factory=list)
    closed: list[bool] = field(default_factory=list)
    name: str = ""
    assumes: frozenset[str] = frozenset()
    extra: list[Shape] = field(default_factory=list)
    rays: Arr = field(default_factory=lambda: np.zeros((0, 3)))

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
        return replace(self, include=[[s for s in g if meets(s)] for g in self.include],
                       exclude=[self.exclude[i] for i in keep],
                       closed=[self.closed[i] for i in keep],
                       extra=[s for s in self.extra if meets(s)])

    _tests: SetTests | None = field(default=None, init=False, repr=False, compare=False)

    def contains(self, pts: Arr) -> NDArray[np.bool_]:
        pts = np.asarray(pts, dtype=float).reshape(-1, 2)
        x0, y0, x1, y1 = self.box
        ok = ((pts[:, 0] >= x0 - TOLERANCE) & (pts[:, 0] <= x1 + TOLERANCE)
              & (pts[:, 1] >= y0 - TOLERANCE) & (pts[:, 1] <= y1 + TOLERANCE))
        if self._tests is None:
            self._tests = SetTests.of(self.include, self.exclude, self.closed)
        tests = self._tests
        for group in tests.include:
            idx = np.nonzero(ok)[0]
            if not len(idx):
                return ok
            ok[idx] = group.inside(pts[idx])
        for ex in tests.exclude:
            idx = np.nonzero(ok)[0]
            if not len(idx):
                break
            ok[idx] = ex.clear_of(pts[idx])
        return ok

    def contains_one_by_one(self, pts: Arr) -> NDArray[np.bool_]:
        """`contains`, one shape at a time (the reference the batched test is checked
        against)."""
        pts = np.asarray(pts, dtype=float).reshape(-1, 2)
        x0, y0, x1, y1 = self.box
        ok = ((pts[:, 0] >= x0 - TOLERANCE) & (pts[:, 0] <= x1 + TOLERANCE)
              & (pts[:, 1] >= y0 - TOLERANCE) & (pts[:, 1] <= y1 + TOLERANCE))
        for group in self.include:
            idx = np.nonzero(ok)[0]
            inside = np.zeros(len(idx), dtype=bool)
            for s in group:
                inside |= outside_distance(s, pts[idx]) <= TOLERANCE
            ok[idx] = inside
        for s, closed in zip(self.exclude, self.closed, strict=True):
            idx = np.nonzero(ok)[0]
            d = outside_distance(s, pts[idx])
            ok[idx] = d > TOLERANCE if closed else d >= -TOLERANCE
        return ok

    def in_groups(self, groups: Sequence[list[Shape]], pts: Arr) -> NDArray[np.bool_]:
        """Which points lie in some shape of every one of `groups` (as `contains` decides it)."""
        pts = np.asarray(pts, dtype=float).reshape(-1, 2)
        ok = np.ones(len(pts), dtype=bool)
        for g in groups:
            idx = np.nonzero(ok)[0]
            if not len(idx):
                break
            ok[idx] = ShapeTests.of(g, [False] * len(g)).inside(pts[idx])
        return ok

    def nudge(self, pts: Arr) -> Arr:
        """Points on the edge of a closed exclusion (exactly 1" from an undeclared enemy) are not
        in the set, though every point just beyond is: move them into the set by twice the
        tolerance, so that the nearest end is found where the rule's limit puts it. Where such
        an edge meets another boundary of the set (a corner: two enemies' ranges, a range and
        the edge of an include), the point is moved off both at once (`_off_edges`)."""
        out = np.array(pts, dtype=float).reshape(-1, 2)
        if not any(self.closed) or not len(out):
            return out
        idx = np.zeros(0, dtype=np.int64)
        for shape, closed in zip(self.exclude, self.closed, strict=True):
            if closed:
                d = outside_distance(shape, out)
                idx = np.union1d(idx, np.nonzero(np.abs(d) <= 10 * TOLERANCE)[0])
        if not len(idx):
            return out
        M = self._margins(out[idx])
        # a point far outside some condition is no end however it is moved
        keep = (M >= -10 * TOLERANCE).all(axis=1)
        idx, M = idx[keep], M[keep]
        if not len(idx):
            return out
        P = out[idx]
        tight = M < 2 * TOLERANCE
        n_tight = tight.sum(axis=1)
        # one tight condition, a closed range's edge: a step straight out of it (batched)
        one = np.nonzero(n_tight == 1)[0]
        if len(one):
            col = np.argmax(tight[one], axis=1)
            for c in np.unique(col):
                rows = one[col == c]
                g = self._gradient(P[rows], [int(c)])[:, 0, :]
                P[rows] += (2 * TOLERANCE - M[rows, c])[:, None] * g
        for r in np.nonzero(n_tight > 1)[0]:
            P[r] = self._off_edges(P[r], [int(c) for c in np.nonzero(tight[r])[0]])
        out[idx] = P
        return out

    def _margins(self, P: Arr, cols: Sequence[int] | None = None) -> Arr:
        """How far inside each of the set's conditions the points lie, one column each (the box's
        four sides, each include group, each exclusion; `cols` picks some): ≥ 0 where it holds,
        with the tolerance on the side the rule's wording puts it (as in `contains`)."""
        P = np.asarray(P, dtype=float).reshape(-1, 2)
        x0, y0, x1, y1 = self.box
        nb, ni = 4, len(self.include)
        which = range(nb + ni + len(self.exclude)) if cols is None else cols
        out = []
        for c in which:
            if c < nb:
                v = (P[:, 0] - x0, x1 - P[:, 0], P[:, 1] - y0, y1 - P[:, 1])[c] + TOLERANCE
            elif c < nb + ni:
                group = self.include[c - nb]
                v = (TOLERANCE - np.min([outside_distance(s, P) for s in group], axis=0) if group
                     else np.full(len(P), -np.inf))
            else:
                k = c - nb - ni
                d = outside_distance(self.exclude[k], P)
                v = d - TOLERANCE if self.closed[k] else d + TOLERANCE
            out.append(v)
        return np.column_stack(out) if out else np.zeros((len(P), 0))

    def _gradient(self, P: Arr, cols: Sequence[int], h: float = GRADIENT_STEP) -> Arr:
        """Unit gradients (n, len(cols), 2) of those margins, by central differences."""
        gx = (self._margins(P + (h, 0.0), cols) - self._margins(P - (h, 0.0), cols)) / (2 * h)
        gy = (self._margins(P + (0.0, h), cols) - self._margins(P - (0.0, h), cols)) / (2 * h)
        g = np.stack((gx, gy), axis=-1)
        return g / np.maximum(np.linalg.norm(g, axis=-1, keepdims=True), ZERO_LENGTH)

    def _off_edges(self, p: Arr, cols: list[int]) -> Arr:
        """p, on the boundaries `cols`, moved so that each is TOLERANCE behind it: up to 4
        Newton steps on the two tightest; where two boundaries touch head-on (two enemies'
        ranges just meeting) the way in runs along them, so the shortest step along their
        common tangent is found by doubling and bisection."""
        start = p
        g = np.zeros(2)
        for _ in range(4):
            m = self._margins(p, cols)[0]
            if (m >= TOLERANCE).all():
                break
            order = np.argsort(m)[:2]
            sel = [cols[i] for i in order]
            G = self._gradient(p, sel)[0]
            t = 2 * TOLERANCE - m[order]
            g = G[0]
            if len(sel) == 2 and abs(np.linalg.det(G)) > SINGULAR:
                p = p + np.linalg.solve(G, t)
            else:
                p = p + g * t[0]
        if (self._margins(p)[0] >= 0).all():
            return p
        along = np.array([-g[1], g[0]])
        lo = 0.0
        for step in SLIDE_FIRST_STEP * 2.0 ** np.arange(16):
            for side in (1.0, -1.0):
                if (self._margins(start + side * step * along)[0] >= 0).all():
                    hi = float(step)
                    for _ in range(24):  # the shortest such step, to 1e-7 of it
                        mid = (lo + hi) / 2
                        if (self._margins(start + side * mid * along)[0] >= 0).all():
                            hi = mid
                        else:
                            lo = mid
                    return start + side * hi * along
            lo = float(step)
        return p

    def pieces(self, w: tuple[float, float, float, float], extra: Primitives | None = None
               ) -> Primitives:
        """The boundary pieces of the set (and `extra` ones) that reach into window w."""
        p = Primitives()
        for shape in self.shapes():
            p.extend(shape_primitives(shape))
        p.extend(box_primitives(self.box))
        if extra is not None:
            p.extend(extra)
        return clip(p, w, WINDOW_MARGIN)

    def shapes(self) -> Iterable[Shape]:
        for group in self.include:
            yield from group
        yield from self.exclude
        yield from self.extra

    def with_group(self, group: list[Shape]) -> EndSet:
        """The same ends, also inside one of `group`'s shapes."""
        return replace(self, include=[*self.include, group])


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


def _edges(xy: Arr) -> tuple[Arr, Arr]:
    """The edges (x0, y0, x1, y1) of a polyline, zero-length ones dropped, and their unit
    normals."""
    e = np.hstack([xy[:-1], xy[1:]])
    d = e[:, 2:] - e[:, :2]
    L = np.hypot(d[:, 0], d[:, 1])
    e, d, L = e[L > ZERO_LENGTH], d[L > ZERO_LENGTH], L[L > ZERO_LENGTH]
    return e, np.column_stack((-d[:, 1], d[:, 0])) / L[:, None]


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
        e, n = _edges(xy)
        if r <= 0:
            segs.append(e)
            continue
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
    sig = quadratic_form(base)
    segs: list[Arr] = []
    curves: list[Curve] = []
    for xy in _rings(core):
        ends = xy[:-1] if len(xy) > 1 and np.allclose(xy[0], xy[-1]) else xy
        curves += [Curve(float(x), float(y), (sig,), 0.0) for x, y in ends]
        if len(xy) < 2:
            continue
        e, n = _edges(xy)
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
