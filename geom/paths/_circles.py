"""The pieces the free space's boundary is made of: corner circles, core outlines and the free arcs
of each circle (rulebook §4.3, §4.6, §8.5.3; the free space itself is `geom.paths._freespace`).

A movement obstacle's clearance zone is bounded by straight offsets of its core's edges and by
arcs of "corner circles" (radius ρ round each convex core vertex, or round a disc base's centre).
Shortest paths run along segments tangent to those circles and arcs of them
(`geom.paths._navgraph`), so the circles, where each one's state changes (`circle_events`) and
its free and blocked arcs (`ArcMap`) are what every search is built from.

Guarantees: the events of a circle are found exactly from its intersections with every other
offset edge and corner circle near it (a k-d tree finds those; the cost grows with the pairs that
meet, not with the square of the obstacles); `CLEAR_TOL` lets a tangent touch its own circle.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry import LinearRing, LineString, Polygon
from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry
from shapely.geometry.polygon import orient

from ..tolerance import (
    CORNER_TURN,
    FULL_TURN_SLACK,
    PARAMETER_SLACK,
    QUERY_MARGIN,
    ROUND_OFF,
    SECANT,
    ZERO_LENGTH,
)
from ._obstacles import Obstacle

if TYPE_CHECKING:
    from ._freespace import FreeSpace

TWO_PI = 2 * math.pi
CLEAR_TOL = 1e-7  # a tangent segment touches its circle exactly; fp noise must not block it

Arr = NDArray[np.float64]


# --------------------------------------------------------------------------- corner circles

def _polygon_rings(g: BaseGeometry) -> Iterable[NDArray[np.float64]]:
    """Rings of polygon parts, oriented so that the polygon lies on the left of each edge."""
    for poly in getattr(g, "geoms", [g]):
        if not isinstance(poly, Polygon) or poly.is_empty:
            continue
        poly = orient(poly, 1.0)
        for ring in [poly.exterior, *poly.interiors]:
            yield np.asarray(ring.coords)[:-1, :2]


def _lines(g: BaseGeometry) -> Iterable[tuple[NDArray[np.float64], bool]]:
    for line in getattr(g, "geoms", [g]):
        if isinstance(line, LineString | LinearRing) and not line.is_empty:
            xy = np.asarray(line.coords)[:, :2]
            closed = bool(line.is_closed and len(xy) > 3)
            yield (xy[:-1] if closed else xy), closed


def _dedupe(xy: NDArray[np.float64], closed: bool) -> NDArray[np.float64]:
    keep = np.ones(len(xy), dtype=bool)
    d = np.hypot(*np.diff(xy, axis=0).T)
    keep[1:] = d > ZERO_LENGTH
    xy = xy[keep]
    if closed and len(xy) > 1 and math.hypot(*(xy[0] - xy[-1])) <= ZERO_LENGTH:
        xy = xy[:-1]
    return xy


def _turns(xy: NDArray[np.float64], closed: bool) -> tuple[Arr, Arr, Arr]:
    """Direction angle of incoming / outgoing edge and signed turn at each vertex."""
    if closed:
        prev, nxt = np.roll(xy, 1, axis=0), np.roll(xy, -1, axis=0)
    else:
        prev, nxt = xy[:-2], xy[2:]
        xy = xy[1:-1]
    din, dout = xy - prev, nxt - xy
    a_in = np.arctan2(din[:, 1], din[:, 0])
    a_out = np.arctan2(dout[:, 1], dout[:, 0])
    cross = din[:, 0] * dout[:, 1] - din[:, 1] * dout[:, 0]
    dot = (din * dout).sum(axis=1)
    return a_in, a_out, np.arctan2(cross, dot)


@dataclass
class Circles:
    """Corner circles: centre, radius, the arc of directions (cone) on which the circle bounds
    the clearance zone of its own core (start angle, CCW span), and the obstacle index."""

    x: Arr
    y: Arr
    r: Arr
    start: Arr
    span: Arr
    obstacle: NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.x)


def corner_circles(obstacles: list[Obstacle]) -> Circles:
    xs: list[float] = []
    ys: list[float] = []
    rs: list[float] = []
    st: list[float] = []
    sp: list[float] = []
    ob: list[int] = []

    def add(x: Arr, y: Arr, start: Arr, span: Arr, rho: float, k: int) -> None:
        xs.extend(x.tolist())
        ys.extend(y.tolist())
        st.extend(np.mod(start, TWO_PI).tolist())
        sp.extend(span.tolist())
        rs.extend([rho] * len(x))
        ob.extend([k] * len(x))

    eps = CORNER_TURN
    parts = [(k, g) for k, o in enumerate(obstacles) for g in shapely.get_parts(o.core)]
    for k, g in parts:
        o = obstacles[k]
        if isinstance(g, SPoint):
            add(np.array([g.x]), np.array([g.y]), np.zeros(1), np.array([TWO_PI]), o.rho, k)
            continue
        if g.geom_type in ("Polygon", "MultiPolygon"):
            for ring in _polygon_rings(g):
                ring = _dedupe(ring, True)
                if len(ring) < 3:
                    continue
                a_in, _, turn = _turns(ring, True)
                convex = turn > eps
                add(ring[convex, 0], ring[convex, 1], a_in[convex] - math.pi / 2, turn[convex],
                    o.rho, k)
            continue
        for xy, closed in _lines(g):
            xy = _dedupe(xy, closed)
            if len(xy) < 2:
                if len(xy) == 1:
                    add(xy[:, 0], xy[:, 1], np.zeros(1), np.array([TWO_PI]), o.rho, k)
                continue
            if len(xy) >= 3 or closed:
                a_in, a_out, turn = _turns(xy, closed)
                inner = xy if closed else xy[1:-1]
                right = turn > eps
                left = turn < -eps
                add(inner[right, 0], inner[right, 1], a_in[right] - math.pi / 2, turn[right],
                    o.rho, k)
                add(inner[left, 0], inner[left, 1], a_out[left] + math.pi / 2, -turn[left],
                    o.rho, k)
            if not closed:
                d0 = xy[1] - xy[0]
                d1 = xy[-1] - xy[-2]
                a0 = math.atan2(d0[1], d0[0])
                a1 = math.atan2(d1[1], d1[0])
                add(xy[:1, 0], xy[:1, 1], np.array([a0 + math.pi / 2]), np.array([math.pi]),
                    o.rho, k)
                add(xy[-1:, 0], xy[-1:, 1], np.array([a1 - math.pi / 2]), np.array([math.pi]),
                    o.rho, k)
    return Circles(np.array(xs, dtype=float), np.array(ys, dtype=float),
                   np.array(rs, dtype=float), np.array(st, dtype=float),
                   np.array(sp, dtype=float), np.array(ob, dtype=np.int64))


@dataclass(frozen=True)
class CoreOutlines:
    """Every core edge (x0, y0, x1, y1) and vertex (x, y), each with its obstacle's rho and
    its obstacle (ascending) — for arc events, and for gap clearance's loci (geom.paths._gaps)."""

    edges: Arr
    edge_rho: Arr
    edge_of: NDArray[np.int64]
    verts: Arr
    vert_rho: Arr
    vert_of: NDArray[np.int64]


def core_outlines(obstacles: list[Obstacle]) -> CoreOutlines:
    edges: list[tuple[float, float, float, float, float, int]] = []
    verts: list[tuple[float, float, float, int]] = []
    for k, o in enumerate(obstacles):
        g = o.core
        if isinstance(g, SPoint):
            verts.append((g.x, g.y, o.rho, k))
            continue
        parts = [g] if not hasattr(g, "geoms") else list(g.geoms)
        for part in parts:
            rings = ([part.exterior, *part.interiors] if isinstance(part, Polygon) else [part])
            for ring in rings:
                xy = np.asarray(ring.coords)[:, :2]
                for (x0, y0), (x1, y1) in zip(xy[:-1], xy[1:], strict=True):
                    edges.append((x0, y0, x1, y1, o.rho, k))
                for x, y in xy:
                    verts.append((x, y, o.rho, k))
    e = np.array(edges, dtype=float).reshape(-1, 6)
    v = np.array(verts, dtype=float).reshape(-1, 4)
    return CoreOutlines(e[:, :4], e[:, 4], e[:, 5].astype(np.int64), v[:, :2], v[:, 2],
                        v[:, 3].astype(np.int64))


# --------------------------------------------------------------------------- angles

def rel_angle(theta: Arr, start: Arr) -> Arr:
    return np.mod(theta - start, TWO_PI)


def circle_events(self: FreeSpace, C: Circles) -> tuple[NDArray[np.int64], Arr]:
        """`FreeSpace.arc_events` for any set of circles `C` on this free space."""
        idx_parts: list[NDArray[np.int64]] = []
        ang_parts: list[Arr] = []
        if not len(C):
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        centres = np.column_stack((C.x, C.y))
        # circle / circle (every core vertex carries a circle of its obstacle's rho)
        if len(self.verts):
            k, m = _near_pairs(centres, C.r + float(self.vert_rho.max()), self.verts)
            dx, dy = self.verts[m, 0] - C.x[k], self.verts[m, 1] - C.y[k]
            D = np.hypot(dx, dy)
            rk, rv = C.r[k], self.vert_rho[m]
            ok = (D > np.abs(rk - rv) + ROUND_OFF) & (D < rk + rv - ROUND_OFF)
            k, D, dx, dy, rk, rv = k[ok], D[ok], dx[ok], dy[ok], rk[ok], rv[ok]
            if len(k):
                psi = np.arctan2(dy, dx)
                a = np.arccos(np.clip((rk ** 2 + D ** 2 - rv ** 2) / (2 * rk * D), -1, 1))
                idx_parts += [k, k]
                ang_parts += [psi + a, psi - a]
        # circle / offset lines of every core edge (both sides), limited to the edge's extent
        lines: list[tuple[NDArray[np.int64], Arr, Arr, Arr]] = []  # circle, p, u, length
        if len(self.edges):
            e, u, n, L, rho = self.offset_edges
            k, m = _near_segments(centres, C.r + float(rho.max()), e)
            for sgn in (1.0, -1.0):
                p = e[m, 0:2] + sgn * rho[m, None] * n[m]
                lines.append((k, p, u[m], L[m]))
        x0, y0, x1, y1 = self.rect
        big = 1e6
        box_p = np.array([[x0, -big], [x1, -big], [-big, y0], [-big, y1]])
        box_u = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [1.0, 0.0]])
        kb = np.repeat(np.arange(len(C)), 4)
        lines.append((kb, np.tile(box_p, (len(C), 1)), np.tile(box_u, (len(C), 1)),
                      np.full(4 * len(C), 2 * big)))
        for k, p, u, L in lines:
            wx, wy = p[:, 0] - C.x[k], p[:, 1] - C.y[k]
            b = wx * u[:, 0] + wy * u[:, 1]
            disc = b * b - (wx ** 2 + wy ** 2 - C.r[k] ** 2)
            ok = disc > SECANT
            k, p, u, L, b = k[ok], p[ok], u[ok], L[ok], b[ok]
            sq = np.sqrt(disc[ok])
            for t in (-b - sq, -b + sq):
                inside = (t >= -PARAMETER_SLACK) & (t <= L + PARAMETER_SLACK)
                kk = k[inside]
                px = p[inside, 0] + t[inside] * u[inside, 0] - C.x[kk]
                py = p[inside, 1] + t[inside] * u[inside, 1] - C.y[kk]
                idx_parts.append(kk)
                ang_parts.append(np.arctan2(py, px))
        idx = np.concatenate(idx_parts) if idx_parts else np.zeros(0, dtype=np.int64)
        ang = np.concatenate(ang_parts) if ang_parts else np.zeros(0)
        rel = rel_angle(ang, C.start[idx])
        keep = (rel > ROUND_OFF) & (rel < C.span[idx] - ROUND_OFF)
        return idx[keep], rel[keep]


def _near_segments(centres: Arr, radius: Arr, segs: Arr) -> tuple[NDArray[np.int64],
                                                                   NDArray[np.int64]]:
    """All (i, j) with segment j within radius[i] of centres[i] (an STR-tree query)."""
    if not len(centres) or not len(segs):
        z = np.zeros(0, dtype=np.int64)
        return z, z
    tree = shapely.STRtree(shapely.linestrings(segs.reshape(-1, 2, 2)))
    i, j = tree.query(shapely.points(centres), predicate="dwithin", distance=radius + QUERY_MARGIN)
    return i.astype(np.int64), j.astype(np.int64)


def _near_pairs(centres: Arr, radius: Arr, points: Arr) -> tuple[NDArray[np.int64],
                                                                  NDArray[np.int64]]:
    """All (i, j) with |centres[i] − points[j]| ≤ radius[i] (a k-d tree query)."""
    if not len(centres) or not len(points):
        z = np.zeros(0, dtype=np.int64)
        return z, z
    tree = shapely.STRtree(shapely.points(points))
    i, j = tree.query(shapely.points(centres), predicate="dwithin", distance=radius + QUERY_MARGIN)
    return i.astype(np.int64), j.astype(np.int64)


ARC_SLACK = 1e-7  # rad: a node this close to a break of its circle's free arcs lies on it


@dataclass
class ArcMap:
    """Free and blocked sub-arcs of every corner circle (within its cone).

    `breaks` holds, per circle k, the sorted relative angles 0 = b0 < … < bn = span[k] at
    `off[k]:off[k+1]`; sub-arc i of circle k (between consecutive breaks) is free iff
    `free[off[k] - k + i]`. Keys `k * 8 + angle` allow one global searchsorted.
    """

    keys: Arr
    off: NDArray[np.int64]
    free: NDArray[np.bool_]
    blocked_prefix: NDArray[np.int64]
    full: NDArray[np.bool_]  # full circles (disc bases): arcs may wrap through angle 0

    @staticmethod
    def build(fs: FreeSpace) -> ArcMap:
        C = fs.circles
        K = len(C)
        ev_idx, ev_rel = fs.arc_events()
        idx = np.concatenate([ev_idx, np.arange(K), np.arange(K)])
        rel = np.concatenate([ev_rel, np.zeros(K), C.span])
        order = np.lexsort((rel, idx))
        idx, rel = idx[order], rel[order]
        counts = np.bincount(idx, minlength=K)
        off = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        # sub-arcs: consecutive breaks of the same circle
        same = idx[1:] == idx[:-1]
        lo, hi, sk = rel[:-1][same], rel[1:][same], idx[:-1][same]
        mid = (lo + hi) / 2
        th = C.start[sk] + mid
        pts = np.column_stack((C.x[sk] + C.r[sk] * np.cos(th), C.y[sk] + C.r[sk] * np.sin(th)))
        free = fs.points_clear(pts) if len(pts) else np.zeros(0, dtype=bool)
        blocked = (~free).astype(np.int64)
        prefix = np.concatenate([[0], np.cumsum(blocked)])
        full = C.span >= TWO_PI - FULL_TURN_SLACK
        return ArcMap(idx * 8.0 + rel, off, free, prefix, full)

    def sub_index(self, k: NDArray[np.int64], rel: Arr, side: str) -> NDArray[np.int64]:
        """Global sub-arc index (into `free`) containing angle rel on circle k."""
        pos = np.searchsorted(self.keys, k * 8.0 + rel, side=side)  # type: ignore[call-overload]
        pos = np.clip(pos, self.off[k] + 1, self.off[k + 1] - 1)
        return pos - 1 - k  # break index → sub-arc index (one fewer sub-arc per circle)

    def arc_free(self, k: NDArray[np.int64], a: Arr, b: Arr) -> NDArray[np.bool_]:
        """Is the arc of circle k from relative angle a up to b (a ≤ b) free?"""
        # ARC_SLACK: an end that lies on a break (a pinch point, where the arc turns free) is
        # computed by another formula than the break, a few 1e-8 rad off; it belongs to the
        # free side
        i = self.sub_index(k, a + ARC_SLACK, "right")
        j = self.sub_index(k, b - ARC_SLACK, "left")
        j = np.maximum(i, j)
        return (self.blocked_prefix[j + 1] - self.blocked_prefix[i]) == 0

    def wrap_free(self, k: NDArray[np.int64], a: Arr, b: Arr) -> NDArray[np.bool_]:
        """On a full circle: is the arc from a up through 2π ≡ 0 to b (b ≤ a) free?"""
        span = np.full(len(k), TWO_PI)
        return self.arc_free(k, a, span) & self.arc_free(k, np.zeros(len(k)), b)

    def point_free(self, k: NDArray[np.int64], rel: Arr) -> NDArray[np.bool_]:
        i = self.sub_index(k, rel + ARC_SLACK, "right")
        j = self.sub_index(k, rel - ARC_SLACK, "left")
        return self.free[i] | self.free[j]



def in_cone(C: Circles, k: NDArray[np.int64], theta: Arr) -> tuple[NDArray[np.bool_], Arr]:
    """Is direction `theta` on circle k within the cone where the circle bounds its own zone?
    Also the angle relative to the cone's start (clamped onto the cone)."""
    rel = rel_angle(theta, C.start[k])
    span = C.span[k]
    # angles a hair below 0 wrap to ~2π: fold them back onto the cone's start
    near_start = rel > TWO_PI - FULL_TURN_SLACK
    rel = np.where(near_start, 0.0, rel)
    return (rel <= span + FULL_TURN_SLACK), np.minimum(rel, span)
