"""Where a base's centre may stand: Minkowski sums of bases with shapes (rulebook §4.1, §7.2).

The set of centres at which a base comes within d of a shape is the shape grown by the base
(and by d); the set at which the whole base lies inside a shape is the shape shrunk by it. For
discs these are buffers; an oval base is mapped to the unit circle by an affine map (which
keeps incidence), buffered there and mapped back. Every function says whether its polygon is an
inner approximation (inscribed arcs: every point truly qualifies) or an outer one
(circumscribed: every qualifying point is inside).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import shapely
from shapely import affinity
from shapely.geometry import Point as SPoint
from shapely.geometry import Polygon, box
from shapely.geometry.base import BaseGeometry

from ..engagement import ENGAGEMENT_RANGE
from ..model import Battlefield, Ellipse, Model
from ..tolerance import ROUND_OFF, ZERO_LENGTH_SQUARED

QUAD_SEGS = 32  # 128-gon arcs: inscribed error r(1 − cos(π/128)) ≈ 3e-4·r


def _k(e: Ellipse | None = None, quad_segs: int = QUAD_SEGS) -> float:
    """How much a circumscribed buffer's radius exceeds the inscribed one's."""
    return 1.0 / math.cos(math.pi / (4 * quad_segs))


def grow(g: BaseGeometry, base: Ellipse, extra: float = 0.0, outer: bool = False,
         quad_segs: int = QUAD_SEGS) -> BaseGeometry:
    """g ⊕ (base centred at the origin, grown by `extra`): the centres at which a base of that
    shape comes within `extra` of g. Inner (default) or outer polygonal approximation."""
    scale = _k(base, quad_segs) if outer else 1.0
    if base.is_disc:
        return g.buffer((base.a + extra) * scale, quad_segs=quad_segs)
    if extra:
        g = g.buffer(extra * scale, quad_segs=quad_segs)
    c, s = math.cos(base.theta), math.sin(base.theta)
    fwd = [c / base.a, s / base.a, -s / base.b, c / base.b, 0.0, 0.0]
    back = [c * base.a, -s * base.b, s * base.a, c * base.b, 0.0, 0.0]
    img = affinity.affine_transform(g, fwd).buffer(scale, quad_segs=quad_segs)
    return affinity.affine_transform(img, back)


def shrink(g: BaseGeometry, base: Ellipse) -> BaseGeometry:
    """g ⊖ base: centres at which the whole base lies inside g (inner approximation)."""
    k = _k(base)
    if base.is_disc:
        return g.buffer(-base.a * k, quad_segs=QUAD_SEGS)
    c, s = math.cos(base.theta), math.sin(base.theta)
    fwd = [c / base.a, s / base.a, -s / base.b, c / base.b, 0.0, 0.0]
    back = [c * base.a, -s * base.b, s * base.a, c * base.b, 0.0, 0.0]
    img = affinity.affine_transform(g, fwd).buffer(-k, quad_segs=QUAD_SEGS)
    return affinity.affine_transform(img, back)


def base_shape(e: Ellipse, outer: bool) -> Polygon:
    """A base as a polygon: the true disc/oval is between the inner and the outer one."""
    if e.is_disc:
        return SPoint(e.centre).buffer(e.a * (_k(e) if outer else 1.0), quad_segs=QUAD_SEGS)
    return e.polygon(4 * QUAD_SEGS, outer=outer)


def mover_base(m: Model) -> Ellipse:
    """The mover's base centred at the origin (orientation kept while moving)."""
    e = m.ellipse
    return Ellipse(0.0, 0.0, e.a, e.b, e.theta)


def on_table(bf: Battlefield, base: Ellipse) -> Polygon:
    """Centres at which the whole base is on the table (exact for an ellipse in a box)."""
    c, s = math.cos(base.theta), math.sin(base.theta)
    ex = math.sqrt((base.a * c) ** 2 + (base.b * s) ** 2)
    ey = math.sqrt((base.a * s) ** 2 + (base.b * c) ** 2)
    return box(ex, ey, bf.table.width - ex, bf.table.depth - ey)


ARC_POINTS = 9  # far arc of a shadow wedge: steps of at most π/8 (|sweep| < π)


def _wedges(P: np.ndarray, U: np.ndarray, V: np.ndarray, far: float) -> np.ndarray:
    """Shadow wedges: for each row, the region hidden by edge UV from point P — bounded by the
    edge, the rays P→U and P→V, and an arc of radius `far` around P. Vectorised."""
    au = np.arctan2(U[:, 1] - P[:, 1], U[:, 0] - P[:, 0])
    av = np.arctan2(V[:, 1] - P[:, 1], V[:, 0] - P[:, 0])
    sweep = (av - au + np.pi) % (2 * np.pi) - np.pi
    k = np.linspace(0.0, 1.0, ARC_POINTS)
    ang = av[:, None] - sweep[:, None] * k[None, :]  # from V's ray back to U's ray
    arc = np.stack((P[:, 0, None] + far * np.cos(ang), P[:, 1, None] + far * np.sin(ang)),
                   axis=-1)
    ring = np.concatenate((U[:, None, :], V[:, None, :], arc), axis=1)
    polys = shapely.polygons(ring)
    keep = np.abs(sweep) > ROUND_OFF  # p on the edge's line: the edge hides nothing of area
    polys[~keep] = None
    return polys


def reach_past(rim: np.ndarray, obstacles: Sequence[Polygon], reach: float,
               quad_segs: int = QUAD_SEGS, outer: bool = False) -> BaseGeometry:
    """Points q such that for some rim point p the segment pq is ≤ reach long and crosses no
    obstacle: ∪_p (disc(p, reach) − what the obstacles hide from p). Hiding is closed (grazing
    counts as hidden), so with inscribed discs this is an inner approximation; `outer` takes
    circumscribed discs (the caller then makes the obstacles smaller)."""
    r = reach * (_k(None, quad_segs) if outer else 1.0)
    discs = shapely.buffer(shapely.points(rim), r, quad_segs=quad_segs)
    if not obstacles:
        return shapely.union_all(discs)
    edges = []
    for o in obstacles:
        for ring in [o.exterior, *o.interiors]:
            c = np.asarray(ring.coords)
            edges.append(np.concatenate((c[:-1], c[1:]), axis=1))
    E = np.vstack(edges)  # (m, 4)
    coords = E.reshape(-1, 2)
    far = 2.0 * (reach + float(np.max(np.hypot(coords[:, 0, None] - rim[None, :, 0],
                                                coords[:, 1, None] - rim[None, :, 1])))) + 1.0
    n, m = len(rim), len(E)
    P = np.repeat(rim, m, axis=0)
    U, V = np.tile(E[:, :2], (n, 1)), np.tile(E[:, 2:], (n, 1))
    # an edge farther than `reach` from p hides nothing within reach of p
    d = V - U
    t = np.clip(((P - U) * d).sum(axis=1) / np.maximum((d * d).sum(axis=1), ZERO_LENGTH_SQUARED), 0, 1)
    near = np.hypot(*(U + t[:, None] * d - P).T) < r
    flat = np.full(n * m, None, dtype=object)
    if near.any():
        flat[near] = _wedges(P[near], U[near], V[near], far)
    W = flat.reshape(n, m)
    blocked = near.reshape(n, m).any(axis=1)
    obs = shapely.union_all(list(obstacles))
    hidden = shapely.union_all(np.concatenate((W[blocked], np.full((int(blocked.sum()), 1), obs)),
                                              axis=1), axis=1)
    seen = list(shapely.difference(discs[blocked], hidden)) + list(discs[~blocked])
    return shapely.union_all(seen)

def range_zone(mover: Model, other: Model, d: float = ENGAGEMENT_RANGE) -> BaseGeometry:
    """Centres at which the mover's base comes within d of `other`'s base — outer approx."""
    K = mover_base(mover)
    oe = other.ellipse
    if oe.is_disc and K.is_disc:
        return SPoint(oe.centre).buffer((oe.a + d + K.a) * _k(K), quad_segs=QUAD_SEGS)
    return grow(base_shape(oe, outer=True), K, d, outer=True)


def range_zone_inner(mover: Model, other: Model, d: float) -> BaseGeometry:
    K = mover_base(mover)
    oe = other.ellipse
    if oe.is_disc and K.is_disc:
        return SPoint(oe.centre).buffer(oe.a + d + K.a, quad_segs=QUAD_SEGS)
    return grow(base_shape(oe, outer=False), K, d)
