"""The free space of a leading model's centre: where it may be while moving (rulebook §4.3,
§4.6, §8.5.3).

The free space is the table box (the centre stays a clearance `c` inside the table edges) less
the clearance zones of the movement obstacles (`geom.paths._obstacles`). It is bounded by straight
offsets of core edges and by arcs of "corner circles" (radius ρ around each convex core vertex,
or around a disc base's centre). Shortest paths in such a domain consist of segments tangent to
corner circles and arcs along them (`geom.paths._navgraph`).

Guarantees: clearance of a point or segment is decided with GEOS distances (exact to floating
point, tolerance `CLEAR_TOL`, so that a tangent segment touching its own circle is clear); the
free and blocked parts of every corner circle (`ArcMap`) are found exactly from its
intersections with every other offset edge and corner circle and with the table box.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry.base import BaseGeometry

from ..tolerance import ZERO_LENGTH
from ._circles import (
    CLEAR_TOL,
    Arr,
    Circles,
    CoreOutlines,
    circle_events,
    core_outlines,
    corner_circles,
)
from ._gaps import GapModel, gap_circles
from ._obstacles import Obstacle


@dataclass
class FreeSpace:
    """The free space of one mover's centre: obstacles, table rectangle, clearance tests."""

    obstacles: list[Obstacle]
    rect: tuple[float, float, float, float]  # centre box: xmin, ymin, xmax, ymax
    clearance: float
    radius: float = 0.0  # the mover's base radius r: with r > c, the two-clearance rule
    cores: NDArray[np.object_] = field(init=False)
    rho: Arr = field(init=False)
    tree: shapely.STRtree = field(init=False)

    def __post_init__(self) -> None:
        self.cores = np.array([o.core for o in self.obstacles], dtype=object)
        self.rho = np.array([o.rho for o in self.obstacles], dtype=float)
        for g in self.cores:
            shapely.prepare(g)
        self.tree = shapely.STRtree(self.cores)
        self.rho_max = float(self.rho.max()) if len(self.rho) else 0.0
        # GEOMETRY-RULES §6 (revised): off a gap the whole base keeps off every obstacle, so
        # each obstacle also has a base zone {dist(x, core) < ρ + r − c} ("lone" zone)
        self.grow = max(self.radius - self.clearance, 0.0)
        self.rho_r = self.rho + self.grow
        self.rho_r_max = self.rho_max + self.grow

    @property
    def two_clearances(self) -> bool:
        return self.grow > 0.0 and len(self.obstacles) > 0

    # the corner circles and core edges only serve the tangent graph: built when first asked
    @cached_property
    def circles(self) -> Circles:
        if not self.two_clearances:
            return corner_circles(self.obstacles)
        return gap_circles(self)

    @cached_property
    def gaps(self) -> GapModel:
        return GapModel.build(self)

    @cached_property
    def outlines(self) -> CoreOutlines:
        return core_outlines(self.obstacles)

    @cached_property
    def _edges_vertices(self) -> tuple[Arr, Arr, Arr, Arr]:
        co = self.outlines
        e, er, v, vr = co.edges, co.edge_rho, co.verts, co.vert_rho
        if self.two_clearances:
            # the state of a circle also changes where it crosses a base zone's boundary
            e, v = np.vstack([e, e]), np.vstack([v, v])
            er, vr = np.concatenate([er, er + self.grow]), np.concatenate([vr, vr + self.grow])
            # and where its rim passes a corner of a non-convex part's outline (geom.paths._gaps)
            corners = self.gaps.corners
            v = np.vstack([v, corners])
            vr = np.concatenate([vr, np.full(len(corners), self.radius)])
        return e, er, v, vr

    @cached_property
    def offset_edges(self) -> tuple[Arr, Arr, Arr, Arr, Arr]:
        """The core edges of non-zero length, as the arc events and the ray caster offset
        them: (edges, unit directions u, left normals n, lengths, clearance radii ρ)."""
        e = self.edges
        d = e[:, 2:4] - e[:, 0:2]
        L = np.hypot(d[:, 0], d[:, 1])
        good = L > ZERO_LENGTH
        e, d, L, rho = e[good], d[good], L[good], self.edge_rho[good]
        u = d / L[:, None]
        return e, u, np.column_stack((-u[:, 1], u[:, 0])), L, rho

    @property
    def edges(self) -> Arr:
        return self._edges_vertices[0]

    @property
    def edge_rho(self) -> Arr:
        return self._edges_vertices[1]

    @property
    def verts(self) -> Arr:
        return self._edges_vertices[2]

    @property
    def vert_rho(self) -> Arr:
        return self._edges_vertices[3]

    # ---- clearance tests ------------------------------------------------------------------
    def in_rect(self, p: Arr, tol: float = CLEAR_TOL) -> NDArray[np.bool_]:
        x0, y0, x1, y1 = self.rect
        return ((p[:, 0] >= x0 - tol) & (p[:, 0] <= x1 + tol)
                & (p[:, 1] >= y0 - tol) & (p[:, 1] <= y1 + tol))

    def blocked_pairs(self, geoms: NDArray[np.object_]) -> tuple[NDArray[np.int64],
                                                                    NDArray[np.int64]]:
        if not len(self.obstacles) or not len(geoms):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        i, j = self.tree.query(geoms, predicate="dwithin", distance=self.rho_max)
        if len(i) == 0:
            return i, j
        d = shapely.distance(geoms[i], self.cores[j])
        hit = d < self.rho[j] - CLEAR_TOL
        return i[hit], j[hit]

    def segments_clear(self, p: Arr, q: Arr) -> NDArray[np.bool_]:
        """For each segment p[k]→q[k]: does it keep the clearance from every obstacle and
        stay on the table box? (The box is convex, so its ends being inside suffices.)"""
        p = np.asarray(p, dtype=float).reshape(-1, 2)
        q = np.asarray(q, dtype=float).reshape(-1, 2)
        ok = self.in_rect(p) & self.in_rect(q)
        idx = np.nonzero(ok)[0]
        if len(idx) == 0:
            return ok
        same = np.hypot(*(p[idx] - q[idx]).T) < ZERO_LENGTH
        geoms = np.empty(len(idx), dtype=object)
        if same.any():
            geoms[same] = shapely.points(p[idx][same])
        if (~same).any():
            geoms[~same] = shapely.linestrings(
                np.stack([p[idx][~same], q[idx][~same]], axis=1))
        if not self.two_clearances:
            bi, _ = self.blocked_pairs(geoms)
            ok[idx[bi]] = False
            return ok
        zp = self._zone_pairs(geoms, idx, ok)
        return ok & self.gaps.segments_ok(p, q, ok, zp)

    def _zone_pairs(self, geoms: NDArray[np.object_], idx: NDArray[np.int64],
                    ok: NDArray[np.bool_]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """One tree query for both clearances: marks geoms (items idx) that enter a
        c-zone not `ok`, and returns the (item, obstacle) pairs of base zones entered."""
        if not len(self.obstacles):
            z = np.zeros(0, dtype=np.int64)
            return z, z
        i, j = self.tree.query(geoms, predicate="dwithin", distance=self.rho_r_max)
        if not len(i):
            return i.astype(np.int64), j.astype(np.int64)
        d = shapely.distance(geoms[i], self.cores[j])
        ok[idx[i[d < self.rho[j] - CLEAR_TOL]]] = False
        zone = d < self.rho_r[j] - CLEAR_TOL
        return idx[i[zone]], j[zone].astype(np.int64)

    def points_clear(self, p: Arr) -> NDArray[np.bool_]:
        p = np.asarray(p, dtype=float).reshape(-1, 2)
        ok = self.in_rect(p)
        idx = np.nonzero(ok)[0]
        if not self.two_clearances:
            if len(idx):
                bi, _ = self.blocked_pairs(shapely.points(p[idx]))
                ok[idx[bi]] = False
            return ok
        if not len(idx):
            return ok
        zp = self._zone_pairs(shapely.points(p[idx]), idx, ok)
        return ok & self.gaps.points_ok(p, ok, zp)

    def blockers(self, geom: BaseGeometry) -> list[str]:
        """Refs of the obstacles whose clearance zone `geom` enters."""
        bi, bj = self.blocked_pairs(np.array([geom], dtype=object))
        return sorted({self.obstacles[j].ref for j in bj})

    # ---- arcs -------------------------------------------------------------------------------
    def arc_events(self) -> tuple[NDArray[np.int64], Arr]:
        """(circle index, relative angle) of every point where a corner circle meets another
        obstacle's offset edge or corner circle, or the table box: the free/blocked state of
        a circle can only change there. Only nearby pairs are tested (a k-d tree finds the
        vertices and edges within reach of each circle), so the cost grows with the pairs
        that meet, not with the square of the obstacles."""
        return circle_events(self, self.circles)
