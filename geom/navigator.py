"""The navigator: shortest legal paths for one mover on one table (rulebook §4.3, §4.6,
§8.5.3, FAQ "측정과 이동").

A `Navigator` holds the free space (`geom.freespace`) and the static tangent graph
(`geom.navgraph`) of one mover's centre; every path question about that mover on that table
is a query on it. Flying units move point to point, ignoring terrain and models (§8.5.3).

Exactness: among polygonal terrain and disc bases, paths are exact up to floating point
(`error_bound` 1e-6"). Oval bases are replaced by circumscribed polygons (a legal
over-approximation); on a table with ovals the query is repeated on the inscribed polygons,
which gives a lower bound, and `error_bound` is the certified gap between the two (refined until
it is ≤ 0.01" or reports what it reached).

A start or an end may legally lie inside a clearance zone: a base may overhang the edge of a top
(FAQ), and a gap is about passing, not stopping (§4.6). Such a point is joined to the free space
by the shortest straight step that crosses no obstacle itself (`Navigator.escape`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray
from scipy.sparse.csgraph import dijkstra
from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry

from .freespace import TWO_PI, FreeSpace
from .model import Battlefield, Point, Unit
from .navgraph import TangentGraph
from .obstacles import Obstacle, is_level, movement_obstacles
from .paths import EXACT_BOUND, Arc, Path, Piece, Segment, joined, polyline

TARGET_BOUND = 0.01


def _xy(p: Sequence[float]) -> Point:
    return (float(p[0]), float(p[1]))


@dataclass
class Navigator:
    """Everything needed to answer path questions for one mover on one battlefield.

    Building it costs the tangent graph (tens to hundreds of ms on a full table); each query
    then costs a few ms. Module-level functions build one per call; keep one to ask many.
    """

    bf: Battlefield
    unit: Unit
    ignore_models: tuple[str, ...] = ()
    gap: float | None = None
    oval_sides: int = 0
    fs: FreeSpace = field(init=False)
    graph: TangentGraph = field(init=False)
    _inner: Navigator | None = field(default=None, init=False, repr=False)
    _inner_mode: bool = field(default=False, init=False, repr=False)

    def __post_init__(self) -> None:
        gap = self.unit.gap_clearance if self.gap is None else self.gap
        c = gap / 2
        t = self.bf.table
        if self.unit.flying:
            obstacles: list[Obstacle] = []
        else:
            obstacles = movement_obstacles(self.bf, self.unit,
                                           ignore_models=self.ignore_models, gap=gap)
            if self.oval_sides:
                obstacles = [self._resample_oval(o) for o in obstacles]
        self.fs = FreeSpace(obstacles, (c, c, t.width - c, t.depth - c), c)
        self.graph = TangentGraph.build(self.fs)

    def _resample_oval(self, o: Obstacle) -> Obstacle:
        if o.exact or not o.ref.startswith("model/"):
            return o
        ref = o.ref[len("model/"):]
        uid, _, mid = ref.partition("/")
        e = self.bf.unit(uid).model(mid).ellipse
        return replace(o, core=e.polygon(self.oval_sides, outer=True),
                       inner=e.polygon(self.oval_sides))

    @property
    def inexact(self) -> bool:
        return any(not o.exact for o in self.fs.obstacles)

    def inner(self) -> Navigator:
        """The same table with oval cores inscribed: its paths give lower bounds."""
        if self._inner is None:
            nav = Navigator.__new__(Navigator)
            nav.bf, nav.unit, nav.ignore_models, nav.gap = (
                self.bf, self.unit, self.ignore_models, self.gap)
            nav.oval_sides = self.oval_sides
            obs = [o if o.exact else replace(o, core=o.inner, exact=True)
                   for o in self.fs.obstacles]
            nav.fs = FreeSpace(obs, self.fs.rect, self.fs.clearance)
            nav.graph = TangentGraph.build(nav.fs)
            nav._inner = None
            nav._inner_mode = True
            self._inner = nav
        return self._inner

    # ---- shared search machinery ----------------------------------------------------------
    def _search(self, start: Point, goal: Point | None) -> _Search:
        g = self.graph
        N = g.n_nodes
        ks, rs, ps, ds = g.attach(start)
        if goal is not None:
            kg, rg, pg, dg = g.attach(goal)
        else:
            kg, rg, pg, dg = (np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros((0, 2)),
                              np.zeros(0))
        ns, ng = len(ks), len(kg)
        S, G = N + ns + ng, N + ns + ng + 1
        circle = np.concatenate([g.node_circle, ks, kg])
        rel = np.concatenate([g.node_rel, rs, rg])
        xy = np.vstack([g.node_xy, ps, pg, [start], [goal if goal is not None else start]])
        query = np.zeros(len(circle), dtype=bool)
        query[N:] = True
        au, av, aw = g.arc_edges(circle, rel, query)
        eu = np.concatenate([au, np.full(ns, S), np.full(ng, G)])
        ev = np.concatenate([av, np.arange(N, N + ns), np.arange(N + ns, N + ns + ng)])
        ew = np.concatenate([aw, np.maximum(ds, 1e-12), np.maximum(dg, 1e-12)])
        M = g.matrix(eu, ev, ew, G + 1)
        dist, pred = dijkstra(M, directed=False, indices=S, return_predecessors=True)
        return _Search(self, S, G, circle, rel, xy, dist, pred)

    def start_blockers(self, p: Point) -> list[str]:
        return self.fs.blockers(SPoint(p))

    # ---- shortest path ----------------------------------------------------------------------
    def shortest_path(self, start: Point, goal: Point) -> Path | None:
        start, goal = _xy(start), _xy(goal)
        if self.unit.flying:
            return self._finish(Path((start, goal), math.dist(start, goal),
                                     (Segment(start, goal),), flying=True))
        es, eg = self.escape(start), self.escape(goal)
        if es is None or eg is None:
            return None
        s1, g1 = es[0], eg[0]
        if self.fs.segments_clear(np.array([s1]), np.array([g1]))[0]:
            path: Path | None = Path((s1, g1), math.dist(s1, g1), (Segment(s1, g1),))
        else:
            s = self._search(s1, g1)
            path = s.path_to(s.G) if np.isfinite(s.dist[s.G]) else None
        if path is not None:
            path = joined(start, path, goal)
        return self._certify(path, lambda nav: nav.shortest_path(start, goal))

    # A start or end may legally lie inside a clearance zone: a base may overhang the edge of
    # a top (FAQ), and a gap is about passing, not stopping (§4.6). Such a point is joined to
    # the free space by the shortest straight step that crosses no obstacle itself.
    def escape(self, p: Point) -> tuple[Point, float] | None:
        """The nearest free point q reachable from p by a straight step crossing no obstacle
        (no core, no base), and |pq|; (p, 0) when p is free; None when there is none."""
        fs = self.fs
        if fs.points_clear(np.array([p]))[0]:
            return p, 0.0
        if not fs.in_rect(np.array([p]), tol=fs.clearance)[0]:
            return None
        cands: list[NDArray[np.float64]] = []
        _, js = fs.blocked_pairs(np.array([SPoint(p)], dtype=object))
        for j in set(js.tolist()):
            core = fs.cores[j]
            q = np.array(shapely.get_coordinates(shapely.shortest_line(core, SPoint(p)))[0])
            v = np.array(p) - q
            n = float(np.hypot(*v))
            if n > 1e-12:
                cands.append((q + v / n * (fs.rho[j] + 1e-6))[None, :])
        th = np.linspace(0, TWO_PI, 96, endpoint=False)
        ring = np.column_stack((np.cos(th), np.sin(th)))
        for rad in (0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0):
            cands.append(np.array(p) + rad * fs.clearance * ring)
        x0, y0, x1, y1 = fs.rect
        cands.append(np.array([[min(max(p[0], x0), x1), min(max(p[1], y0), y1)]]))
        Q = np.vstack(cands)
        Q = Q[fs.points_clear(Q)]
        if not len(Q):
            return None
        order = np.argsort(np.hypot(Q[:, 0] - p[0], Q[:, 1] - p[1]))
        Q = Q[order]
        ok = self._hard_clear(p, Q)
        if not ok.any():
            return None
        q = Q[np.argmax(ok)]
        return _xy(q), math.dist(p, _xy(q))

    def _hard_clear(self, p: Point, Q: NDArray[np.float64]) -> NDArray[np.bool_]:
        """Segments p→Q[i] that cross no obstacle itself (a core, or a base for disc cores)."""
        fs = self.fs
        lines = shapely.linestrings(np.stack([np.repeat([p], len(Q), axis=0), Q], axis=1))
        ok = np.ones(len(Q), dtype=bool)
        if not len(fs.obstacles):
            return ok
        i, j = fs.tree.query(lines, predicate="dwithin", distance=fs.rho_max)
        if len(i):
            d = shapely.distance(lines[i], fs.cores[j])
            is_pt = shapely.get_type_id(fs.cores[j]) == 0
            hard = np.where(is_pt, fs.rho[j] - fs.clearance, 0.0)
            ok[i[d <= hard + 1e-9]] = False
        return ok

    def _certify(self, path: Path | None, again: Any) -> Path | None:
        if path is None or self._inner_mode or not self.inexact:
            return self._finish(path) if path is not None else None
        low = again(self.inner())
        bound = path.length - low.length if low is not None else math.inf
        bound = max(bound, 0.0) + EXACT_BOUND
        sides = self.oval_sides or 96
        if bound > TARGET_BOUND and sides < 768:
            finer = Navigator(self.bf, self.unit, self.ignore_models, self.gap,
                              oval_sides=sides * 2)
            refined: Path | None = again(finer)
            return refined if refined is not None else self._finish(
                replace(path, error_bound=bound))
        return self._finish(replace(path, error_bound=bound))

    def _finish(self, path: Path) -> Path:
        if self._inner_mode:
            return path
        line = path.line()
        grass: list[str] = []
        levels: list[str] = []
        if not path.flying:
            order: list[tuple[float, str]] = []
            for p in self.bf.terrain:
                if not (p.grass or is_level(p)):
                    continue
                if not shapely.relate_pattern(line, p.footprint, "T********"):
                    continue
                if p.grass:
                    grass.append(p.id)
                else:
                    inside = shapely.get_coordinates(line.intersection(p.footprint))
                    order.append((min(line.project(SPoint(c)) for c in inside), p.id))
            levels = [pid for _, pid in sorted(order)]
        return replace(path, grass=tuple(grass), levels=tuple(levels))

    # ---- questions answered by other modules, on this navigator ------------------------------
    def path_to_region(self, start: Point, region: BaseGeometry) -> Path | None:
        """Shortest legal path from `start` to the nearest point of `region` (legal ends)."""
        from .region_path import path_to_region

        return path_to_region(self, start, region)

    def travel_region(self, start: Point, allowance: float, rays: int = 1440) -> BaseGeometry:
        """Points the centre can reach by a legal path no longer than `allowance`."""
        from .reach import travel_region

        return travel_region(self, start, allowance, rays)


@dataclass
class _Search:
    nav: Navigator
    S: int
    G: int
    circle: NDArray[np.int64]
    rel: NDArray[np.float64]
    xy: NDArray[np.float64]
    dist: NDArray[np.float64]
    pred: NDArray[np.int32]

    def chain(self, node: int) -> list[int]:
        out = [node]
        while out[-1] != self.S:
            p = int(self.pred[out[-1]])
            if p < 0:
                raise RuntimeError("broken predecessor chain")
            out.append(p)
        return out[::-1]

    def _arc(self, a: int, b: int, length: float) -> Arc:
        C = self.nav.fs.circles
        k = int(self.circle[a])
        ra, rb = float(self.rel[a]), float(self.rel[b])
        r = float(C.r[k])
        cands = [rb - ra]
        if C.span[k] >= TWO_PI - 1e-9:
            cands += [rb - ra - TWO_PI, rb - ra + TWO_PI]
        sweep = min(cands, key=lambda d: abs(r * abs(d) - length))
        return Arc((float(C.x[k]), float(C.y[k])), r, float(C.start[k]) + ra, sweep)

    def pieces(self, nodes: list[int]) -> list[Piece]:
        out: list[Piece] = []
        n_circ = len(self.circle)
        for a, b in zip(nodes[:-1], nodes[1:], strict=True):
            w = float(self.dist[b] - self.dist[a])
            if a < n_circ and b < n_circ and self.circle[a] == self.circle[b]:
                out.append(self._arc(a, b, w))
            else:
                out.append(Segment(_xy(self.xy[a]), _xy(self.xy[b])))
        return out

    def path_to(self, node: int) -> Path:
        nodes = self.chain(node)
        pieces = self.pieces(nodes)
        return Path(polyline(pieces, _xy(self.xy[self.S])), float(self.dist[node]),
                    tuple(pieces))

    # The last leg of a shortest path to a region leaves a corner circle tangentially (or the
    # start) and meets the region at a local minimum of the distance along the leg: a vertex
    # of the region, the foot of a perpendicular on one of its edges, or a point where the
    # circle itself enters the region. Enumerating those per circle, cheapest bound first,
