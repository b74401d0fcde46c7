"""Legal movement of a leading model (GEOMETRY-RULES §6; rulebook §4.3, §4.6, §8.5.3–8.5.5,
FAQ "측정과 이동").

- The leading model's centre follows the shortest legal path through `freespace.FreeSpace`
  (gap clearance, walls at the edges of raised tops, access points, other units' bases).
  A base that only translates moves every one of its points along a translate of the centre's
  path, so "no point of the base moves further than the allowance" is exactly "the centre path
  is no longer than the allowance": path length of the base = centre path length.
- Allowance: the unit's Speed; a split Speed "4/7" gives the second value to a one-model unit
  (§5.1, `Speed.for_models`). Moving 0" is not a move (FAQ).
- Flying units move point to point, ignoring terrain and models on the way (§8.5.3).
- End position (`end_position_ok`): whole base on the table; no overlap with any terrain
  footprint (Size 0 and 1 and tokens included; GRASS may be ended on and is destroyed) unless
  standing on a top reached legally; no overlap with any other base; a ground model not within
  1" of an enemy GROUND model; a flying model at least 1" from enemy flying models (it may touch
  ground models).
- GRASS is destroyed when the leading model's path crosses it or a model ends on it; flying
  models passing over do not destroy it (§8.5.3).

Error bound (see docs/movement.md): paths among polygonal terrain and disc bases are exact up
to floating point (reported `error_bound` 1e-6"). Oval bases are replaced by circumscribed
polygons (a legal over-approximation); when a table has ovals the search is repeated with the
inscribed polygons, which gives a lower bound, and `error_bound` is the certified gap between
the two (the search is refined until it is ≤ 0.01" or reports what it reached).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import shapely
from numpy.typing import NDArray
from scipy.sparse.csgraph import dijkstra
from shapely.geometry import LineString, Polygon, box
from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry

from . import bases
from .distance import distance as base_distance
from .elevation import top_at
from .errors import TmgError
from .freespace import (
    TWO_PI,
    FreeSpace,
    Obstacle,
    TangentGraph,
    is_level,
    movement_obstacles,
    rel_angle,
)
from .model import TOLERANCE, Battlefield, Model, Point, TerrainPiece, Unit
from .verdict import Verdict

EXACT_BOUND = 1e-6
TARGET_BOUND = 0.01
ZONE_QUAD_SEGS = 32  # zones cut from target regions: circumscribed, at least 128-gons
TARGET_CUT_BOUND = 0.004  # worst-case length lost to that polygonisation (see Navigator._target)
STEP_SAMPLE = 0.05       # spacing of sampled ends inside clearance zones (Navigator._stepped_end)
STEP_SAMPLES_MAX = 240
ARC_SAG = 1e-3       # display polyline: chords within 0.001" of the true arcs
RULE_MOVE = "8.5.3 resolving a move"
RULE_GAP = "4.6 gap clearance"


# --------------------------------------------------------------------------- paths

@dataclass(frozen=True)
class Segment:
    a: Point
    b: Point

    @property
    def length(self) -> float:
        return math.dist(self.a, self.b)


@dataclass(frozen=True)
class Arc:
    """Part of a corner circle: from angle `start` turning by `sweep` (radians, + = CCW)."""

    centre: Point
    radius: float
    start: float
    sweep: float

    @property
    def length(self) -> float:
        return self.radius * abs(self.sweep)

    def points(self, sag: float = ARC_SAG) -> list[Point]:
        step = 2 * math.acos(max(-1.0, 1 - sag / self.radius)) if self.radius > sag else math.pi
        n = max(1, math.ceil(abs(self.sweep) / max(step, 1e-9)))
        cx, cy = self.centre
        return [(cx + self.radius * math.cos(self.start + self.sweep * i / n),
                 cy + self.radius * math.sin(self.start + self.sweep * i / n))
                for i in range(n + 1)]


Piece = Segment | Arc


@dataclass(frozen=True)
class Path:
    """A leading model's centre path: straight segments and arcs around corners.

    `points` is a polyline through the path (arcs drawn by chords within 0.001"); `length` is
    the exact length of the curved path; the true shortest legal path is no shorter than
    `length - error_bound`. `grass` lists GRASS pieces the path crosses (destroyed unless the
    mover flies); `levels` the tops (terrain ids) the path passes over, in order.
    """

    points: tuple[Point, ...]
    length: float
    pieces: tuple[Piece, ...] = ()
    error_bound: float = EXACT_BOUND
    flying: bool = False
    grass: tuple[str, ...] = ()
    levels: tuple[str, ...] = ()

    @property
    def start(self) -> Point:
        return self.points[0]

    @property
    def end(self) -> Point:
        return self.points[-1]

    def reversed(self) -> Path:
        pieces = tuple(Segment(pc.b, pc.a) if isinstance(pc, Segment) else
                       Arc(pc.centre, pc.radius, pc.start + pc.sweep, -pc.sweep)
                       for pc in reversed(self.pieces))
        return replace(self, points=tuple(reversed(self.points)), pieces=pieces,
                       levels=tuple(reversed(self.levels)))

    def line(self) -> LineString | SPoint:
        return LineString(self.points) if len(self.points) > 1 else SPoint(self.points[0])

    def to_json(self) -> dict[str, Any]:
        return {"points": [list(p) for p in self.points], "length": self.length,
                "error_bound": self.error_bound, "grass": list(self.grass),
                "levels": list(self.levels)}


def _polyline(pieces: Sequence[Piece], start: Point) -> tuple[Point, ...]:
    pts: list[Point] = [start]
    for pc in pieces:
        new = [pc.b] if isinstance(pc, Segment) else pc.points()[1:]
        for p in new:
            if math.dist(p, pts[-1]) > 1e-12:
                pts.append(p)
    return tuple(pts)


def _joined(start: Point, path: Path, goal: Point | None) -> Path:
    """`path` with straight steps added from `start` and to `goal` where they differ."""
    pieces = list(path.pieces)
    pts = list(path.points)
    length = path.length
    if math.dist(start, pts[0]) > 1e-12:
        pieces.insert(0, Segment(start, pts[0]))
        pts.insert(0, start)
        length += math.dist(start, pts[1])
    if goal is not None and math.dist(goal, pts[-1]) > 1e-12:
        pieces.append(Segment(pts[-1], goal))
        length += math.dist(pts[-1], goal)
        pts.append(goal)
    return replace(path, points=tuple(pts), pieces=tuple(pieces), length=length)


# --------------------------------------------------------------------------- navigator

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
            path = _joined(start, path, goal)
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

    # ---- path to a region -------------------------------------------------------------------
    def path_to_region(self, start: Point, region: BaseGeometry) -> Path | None:
        start = _xy(start)
        if region is None or region.is_empty:
            return None
        if self.unit.flying:
            t = self.bf.table
            reg = region.intersection(box(0, 0, t.width, t.depth))
            if reg.is_empty:
                return None
            line = shapely.shortest_line(SPoint(start), reg)
            end = _xy(line.coords[-1])
            return self._finish(Path((start, end), math.dist(start, end),
                                     (Segment(start, end),), flying=True))
        if region.covers(SPoint(start)):
            return self._finish(Path((start,), 0.0))
        es = self.escape(start)
        if es is None:
            return None
        s1 = es[0]
        target, cut_bound = self._target(region)
        path: Path | None = None
        if target.is_empty:
            pass
        elif target.covers(SPoint(s1)):
            path = Path((s1,), 0.0)
        else:
            path = self._search(s1, None).best_to_region(target)
        if path is not None:
            path = _joined(start, replace(path, error_bound=path.error_bound + cut_bound), None)
        stepped = self._stepped_end(start, region, target)
        if stepped is not None and (path is None or stepped.length < path.length - EXACT_BOUND):
            return stepped
        return self._certify(path, lambda nav: nav.path_to_region(start, region))

    # The gap rule is about passing between obstacles, not about stopping (§4.6): an end inside
    # the clearance zone of a single obstacle (base contact with an enemy for a Size-3 model on a
    # base smaller than 3", a base overhanging a top's edge) is a legal end that `shortest_path`
    # reaches by a straight step from the free space (`escape`). `_target` cuts those ends out of
    # the region, so they are searched here, by sampling the boundary of the part cut away (the
    # cheapest such end lies on it: moving an end towards its escape point shortens the step).
    def _stepped_end(self, start: Point, region: BaseGeometry, target: BaseGeometry
                     ) -> Path | None:
        t = self.bf.table
        inside = region.intersection(box(0, 0, t.width, t.depth)).difference(target)
        if inside.is_empty or inside.area < 1e-8:
            return None
        # Only ends where the mover's base overlaps no obstacle itself (a base off the table,
        # on a wall, on another base, across a top's edge is no legal end whatever the region
        # says). With a base radius ≥ the clearance, as for every catalogue unit, nothing is
        # left and this search costs nothing.
        fs = self.fs
        r = max(m.base.a for m in self.unit.models)
        rim = box(r, r, t.width - r, t.depth - r) if 2 * r < min(t.width, t.depth) else Polygon()
        hard = [shapely.buffer(fs.cores[j], (fs.rho[j] - fs.clearance
                                             if shapely.get_type_id(fs.cores[j]) == 0 else 0.0)
                               + r - 1e-9, quad_segs=32)
                for j in fs.tree.query(inside, predicate="dwithin",
                                       distance=fs.rho_max + r)]
        inside = inside.intersection(rim)
        if hard:
            inside = inside.difference(shapely.union_all(hard))
        if inside.is_empty or inside.area < 1e-8:
            return None
        shapely.prepare(region)

        def best_of(points: NDArray[np.float64]) -> tuple[float, Path | None, int]:
            best, best_p, best_i = math.inf, None, -1
            for i, q in enumerate(points):
                if not region.covers(SPoint(q)):
                    continue
                p = self.shortest_path(start, _xy(q))
                if p is not None and p.length < best:
                    best, best_p, best_i = p.length, p, i
            return best, best_p, best_i

        ring = inside.boundary
        total = float(ring.length)
        h = max(STEP_SAMPLE, total / STEP_SAMPLES_MAX)
        ts = np.arange(0.0, total, h)
        pts = shapely.get_coordinates(shapely.line_interpolate_point(ring, ts))
        pts = np.vstack([pts, shapely.get_coordinates(inside)])
        best, best_p, i = best_of(pts)
        if best_p is None:
            return None
        if i < len(ts):  # refine along the boundary around the best sample
            fine = np.clip(ts[i] + np.linspace(-h, h, 41), 0.0, total)
            f_best, f_p, _ = best_of(shapely.get_coordinates(
                shapely.line_interpolate_point(ring, fine)))
            if f_p is not None and f_best < best:
                best_p = f_p
            h = 2 * h / 40
        # sampled, not exact: a sample spacing h may miss up to ~h of length (the step's length
        # changes at most about as fast as the end moves along the boundary)
        return replace(best_p, error_bound=best_p.error_bound + h)

    def _target(self, region: BaseGeometry) -> tuple[BaseGeometry, float]:
        """The region less the clearance zones (circumscribed polygons) and off-table parts."""
        x0, y0, x1, y1 = self.fs.rect
        reg = region.intersection(box(x0, y0, x1, y1))
        if reg.is_empty or not len(self.fs.obstacles):
            return reg, 0.0
        k0 = 1 / math.cos(math.pi / (4 * ZONE_QUAD_SEGS))
        idx = self.fs.tree.query(reg, predicate="dwithin", distance=self.fs.rho_max * k0)
        if len(idx) == 0:
            return reg, 0.0
        # The circumscribed zones stand out from the true ones by δ = ρ(sec(π/4q) − 1) radially,
        # but where the region's edge meets a zone at a grazing angle the cut end moves along
        # that edge by up to sqrt(2ρδ + δ²) (the chord of a circle grown by δ at tangency).
        # Pick q so that this worst case stays within TARGET_CUT_BOUND.
        rho = float(self.fs.rho[idx].max())
        q = max(ZONE_QUAD_SEGS, math.ceil(math.pi * rho / (4 * TARGET_CUT_BOUND)))
        k = 1 / math.cos(math.pi / (4 * q))
        zones = [self.fs.cores[j].buffer(self.fs.rho[j] * k, quad_segs=q) for j in idx]
        cut = reg.difference(shapely.union_all(zones))
        delta = rho * (k - 1)
        return cut, math.sqrt(2 * rho * delta + delta * delta)

    # ---- reach --------------------------------------------------------------------------
    def travel_region(self, start: Point, allowance: float, rays: int = 1440) -> BaseGeometry:
        """Points the centre can reach by a legal path no longer than `allowance` (inner
        approximation: visibility fans cast from the start and from departure points along
        the corner circles; see docs/movement.md for its accuracy)."""
        start = _xy(start)
        L = float(allowance)
        if L <= 0:
            return Polygon()
        if self.unit.flying:
            t = self.bf.table
            return SPoint(start).buffer(L, quad_segs=64).intersection(box(0, 0, t.width, t.depth))
        es = self.escape(start)
        if es is None or es[1] >= L:
            return Polygon()
        start, L = es[0], L - es[1]
        caster = _RayCaster(self.fs)
        parts: list[BaseGeometry] = [caster.star(start, L, rays)]
        s = self._search(start, None)
        finite = np.isfinite(s.dist) & (s.dist < L)
        nodes = np.nonzero(finite[: len(s.circle)])[0]
        for k in np.unique(s.circle[nodes]):
            on = nodes[s.circle[nodes] == k]
            parts.extend(caster.fans(self, int(k), s.rel[on], s.dist[on], L))
        region = shapely.union_all([p for p in parts if not p.is_empty])
        x0, y0, x1, y1 = self.fs.rect
        return region.intersection(box(x0, y0, x1, y1)).buffer(0)


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
        return Path(_polyline(pieces, _xy(self.xy[self.S])), float(self.dist[node]),
                    tuple(pieces))

    # The last leg of a shortest path to a region leaves a corner circle tangentially (or the
    # start) and meets the region at a local minimum of the distance along the leg: a vertex
    # of the region, the foot of a perpendicular on one of its edges, or a point where the
    # circle itself enters the region. Enumerating those per circle, cheapest bound first,
    # finds the exact optimum.
    def best_to_region(self, target: BaseGeometry) -> Path | None:
        fs = self.nav.fs
        C = fs.circles
        verts, edges = _region_features(target)
        shapely.prepare(target)
        best = math.inf
        best_path: Path | None = None
        n_circ = len(self.circle)
        node_ids = np.nonzero(np.isfinite(self.dist[:n_circ]))[0]
        # quick upper bounds: nearest region point straight from a reached node (or start)
        cand = np.concatenate([[self.S], node_ids])
        pts = self.xy[cand]
        dreg = np.asarray(shapely.distance(shapely.points(pts), target), dtype=float)
        lb = self.dist[cand] + dreg
        order = np.argsort(lb)
        for chunk_start in range(0, len(order), 64):
            chunk = order[chunk_start:chunk_start + 64]
            if lb[chunk[0]] >= best:
                break
            lines = shapely.shortest_line(shapely.points(pts[chunk]), target)
            ends = shapely.get_coordinates(lines).reshape(-1, 2, 2)[:, 1]
            clear = fs.segments_clear(pts[chunk], ends)
            for i in np.nonzero(clear)[0]:
                val = lb[chunk[i]]
                if val < best:
                    best = float(val)
                    best_path = self._finish_leg(int(cand[chunk[i]]), None, _xy(ends[i]))
                break
        # exact: legs from the start to region vertices and perpendicular feet
        s = self.xy[self.S]
        e_pts, e_len = _leg_targets(s[None, :], verts, edges)
        if len(e_len):
            o = np.argsort(e_len[0])
            o = o[e_len[0][o] < best]
            if len(o):
                clear = fs.segments_clear(np.repeat(s[None, :], len(o), axis=0), e_pts[0][o])
                hit = np.nonzero(clear)[0]
                if len(hit):
                    i = o[hit[0]]
                    best = float(e_len[0][i])
                    best_path = self._finish_leg(self.S, None, _xy(e_pts[0][i]))
        # exact: legs leaving each reached corner circle tangentially
        if not len(node_ids) or not len(C):
            return best_path
        circles = np.unique(self.circle[node_ids])
        dmin = np.full(len(C), np.inf)
        np.minimum.at(dmin, self.circle[node_ids], self.dist[node_ids])
        cdist = np.asarray(shapely.distance(shapely.points(np.column_stack((C.x, C.y))[circles]),
                                            target), dtype=float)
        clb = dmin[circles] + np.maximum(0.0, cdist - C.r[circles])
        heap = [(float(v), int(k)) for v, k in zip(clb, circles, strict=True)]
        heapq.heapify(heap)
        while heap:
            v, k = heapq.heappop(heap)
            if v >= best:
                break
            res = self._circle_legs(k, node_ids, verts, edges, best)
            if res is not None:
                best, best_path = res
        return best_path

    def _circle_legs(self, k: int, node_ids: NDArray[np.int64], verts: NDArray[np.float64],
                     edges: NDArray[np.float64], best: float) -> tuple[float, Path] | None:
        fs = self.nav.fs
        C = fs.circles
        cx, cy, r = float(C.x[k]), float(C.y[k]), float(C.r[k])
        c = np.array([cx, cy])
        th: list[NDArray[np.float64]] = []
        ends: list[NDArray[np.float64]] = []
        if len(verts):  # tangents from region vertices to this circle
            d = verts - c
            D = np.hypot(d[:, 0], d[:, 1])
            ok = D > r + 1e-12
            phi = np.arctan2(d[ok, 1], d[ok, 0])
            a = np.arccos(np.clip(r / D[ok], -1, 1))
            for sgn in (1.0, -1.0):
                th.append(phi + sgn * a)
                ends.append(verts[ok])
        if len(edges):
            p0, p1 = edges[:, 0:2], edges[:, 2:4]
            dv = p1 - p0
            L = np.hypot(dv[:, 0], dv[:, 1])
            good = L > 1e-12
            p0, dv, L = p0[good], dv[good], L[good]
            u = dv / L[:, None]
            for sgn in (1.0, -1.0):  # tangency points whose leg is perpendicular to an edge
                q = c + sgn * r * u
                t = ((q - p0) * u).sum(axis=1)
                inside = (t >= -1e-12) & (t <= L + 1e-12)
                foot = p0 + np.clip(t, 0, L)[:, None] * u
                th.append(np.arctan2(sgn * u[inside, 1], sgn * u[inside, 0]))
                ends.append(foot[inside])
            # where the circle itself crosses an edge of the region (leg of length 0)
            w = p0 - c
            b = (w * u).sum(axis=1)
            cc = (w * w).sum(axis=1) - r * r
            disc = b * b - cc
            ok = disc >= 0
            sq = np.sqrt(np.where(ok, disc, 0))
            for t in (-b - sq, -b + sq):
                inside = ok & (t >= -1e-12) & (t <= L + 1e-12)
                pt = p0[inside] + t[inside, None] * u[inside]
                th.append(np.arctan2(pt[:, 1] - cy, pt[:, 0] - cx))
                ends.append(pt)
        if not th:
            return None
        theta = np.concatenate(th)
        end = np.vstack(ends)
        rel = rel_angle(theta, np.full(len(theta), C.start[k]))
        ok = rel <= C.span[k] + 1e-9
        rel = np.minimum(rel, C.span[k])
        kk = np.full(len(rel), k)
        ok &= self.nav.graph.arcs.point_free(kk, rel)
        if not ok.any():
            return None
        rel, end, theta = rel[ok], end[ok], theta[ok]
        dep = np.column_stack((cx + r * np.cos(theta), cy + r * np.sin(theta)))
        leg = np.hypot(*(end - dep).T)
        # cost of reaching each departure point along the circle from a reached node
        on = node_ids[self.circle[node_ids] == k]
        arcs = self.nav.graph.arcs
        full = C.span[k] >= TWO_PI - 1e-9
        best_d = np.full(len(rel), np.inf)
        best_a = np.full(len(rel), -1)
        for a in on:
            ra, da = float(self.rel[a]), float(self.dist[a])
            lo, hi = np.minimum(rel, ra), np.maximum(rel, ra)
            kk = np.full(len(rel), k)
            free = arcs.arc_free(kk, lo, hi)
            cost = np.where(free, da + r * (hi - lo), np.inf)
            if full:
                wfree = arcs.wrap_free(kk, hi, lo)
                cost = np.minimum(cost, np.where(wfree, da + r * (TWO_PI - (hi - lo)), np.inf))
            better = cost < best_d
            best_d = np.where(better, cost, best_d)
            best_a = np.where(better, a, best_a)
        total = best_d + leg
        order = np.argsort(total)
        order = order[total[order] < best]
        if not len(order):
            return None
        for chunk_start in range(0, len(order), 32):
            chunk = order[chunk_start:chunk_start + 32]
            clear = fs.segments_clear(dep[chunk], end[chunk])
            hit = np.nonzero(clear)[0]
            if len(hit):
                i = chunk[hit[0]]
                a = int(best_a[i])
                arc_len = float(best_d[i] - self.dist[a])
                path = self._finish_leg(a, (k, float(rel[i]), arc_len), _xy(end[i]))
                return float(total[i]), path
        return None

    def _finish_leg(self, node: int, arc: tuple[int, float, float] | None,
                    end: Point) -> Path:
        nodes = self.chain(node)
        pieces = self.pieces(nodes)
        length = float(self.dist[node])
        here = _xy(self.xy[node])
        if arc is not None:
            k, rel_u, arc_len = arc
            C = self.nav.fs.circles
            r = float(C.r[k])
            ra = float(self.rel[node])
            cands = [rel_u - ra]
            if C.span[k] >= TWO_PI - 1e-9:
                cands += [rel_u - ra - TWO_PI, rel_u - ra + TWO_PI]
            sweep = min(cands, key=lambda d: abs(r * abs(d) - arc_len))
            arc_piece = Arc((float(C.x[k]), float(C.y[k])), r, float(C.start[k]) + ra, sweep)
            if arc_piece.length > 0:
                pieces.append(arc_piece)
            length += arc_piece.length
            th = float(C.start[k]) + rel_u
            here = (float(C.x[k]) + r * math.cos(th), float(C.y[k]) + r * math.sin(th))
        if math.dist(here, end) > 1e-12:
            pieces.append(Segment(here, end))
            length += math.dist(here, end)
        return Path(_polyline(pieces, _xy(self.xy[self.S])), length, tuple(pieces))


def _region_features(g: BaseGeometry) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Vertices and boundary edges (x0, y0, x1, y1) of a region."""
    if g.geom_type in ("Point", "MultiPoint"):
        return shapely.get_coordinates(g)[:, :2], np.zeros((0, 4))
    bnd = g.boundary if g.geom_type in ("Polygon", "MultiPolygon") else g
    verts: list[NDArray[np.float64]] = []
    edges: list[NDArray[np.float64]] = []
    for part in getattr(bnd, "geoms", [bnd]):
        if part.geom_type == "Point":
            verts.append(np.array([[part.x, part.y]]))
            continue
        xy = np.asarray(part.coords)[:, :2]
        verts.append(xy)
        if len(xy) > 1:
            edges.append(np.hstack([xy[:-1], xy[1:]]))
    if g.geom_type == "GeometryCollection":
        vv, ee = zip(*(_region_features(p) for p in g.geoms), strict=True)
        return np.vstack(vv) if vv else np.zeros((0, 2)), np.vstack(ee) if ee else np.zeros(
            (0, 4))
    v = np.vstack(verts) if verts else np.zeros((0, 2))
    e = np.vstack(edges) if edges else np.zeros((0, 4))
    return v, e


def _leg_targets(src: NDArray[np.float64], verts: NDArray[np.float64],
                 edges: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """For each source point: region vertices and perpendicular feet on region edges, as
    (n_src, n_cand, 2) points and (n_src, n_cand) distances."""
    cands = [np.repeat(verts[None, :, :], len(src), axis=0)]
    if len(edges):
        p0, p1 = edges[:, 0:2], edges[:, 2:4]
        dv = p1 - p0
        L2 = np.maximum((dv * dv).sum(axis=1), 1e-24)
        t = (((src[:, None, :] - p0[None]) * dv[None]).sum(axis=2)) / L2[None]
        foot = p0[None] + np.clip(t, 0, 1)[:, :, None] * dv[None]
        cands.append(foot)
    pts = np.concatenate(cands, axis=1)
    d = np.hypot(pts[..., 0] - src[:, None, 0], pts[..., 1] - src[:, None, 1])
    return pts, d


class _RayCaster:
    """First entry of rays into clearance zones: exact against offset edges and circles."""

    def __init__(self, fs: FreeSpace) -> None:
        self.fs = fs
        e = fs.edges
        if len(e):
            d = e[:, 2:4] - e[:, 0:2]
            L = np.hypot(d[:, 0], d[:, 1])
            good = L > 1e-12
            e, d, L, rho = e[good], d[good], L[good], fs.edge_rho[good]
            u = d / L[:, None]
            n = np.column_stack((-u[:, 1], u[:, 0]))
            self.lp = np.vstack([e[:, 0:2] + rho[:, None] * n, e[:, 0:2] - rho[:, None] * n])
            self.lu = np.vstack([u, u])
            self.lL = np.concatenate([L, L])
        else:
            self.lp = np.zeros((0, 2))
            self.lu = np.zeros((0, 2))
            self.lL = np.zeros(0)
        self.cc = fs.verts
        self.cr = fs.vert_rho

    def hits(self, origin: NDArray[np.float64], dirs: NDArray[np.float64]) -> NDArray[
            np.float64]:
        """Distance along each ray (origin[i], dirs[i]) to the first clearance zone entry or
        the table box edge."""
        n = len(dirs)
        best = np.full(n, np.inf)
        tiny = 1e-9
        ox, oy = origin[:, 0:1], origin[:, 1:2]
        dx, dy = dirs[:, 0:1], dirs[:, 1:2]
        if len(self.cc):
            wx = ox - self.cc[None, :, 0]
            wy = oy - self.cc[None, :, 1]
            b = wx * dx + wy * dy
            c = wx * wx + wy * wy - self.cr[None, :] ** 2
            disc = b * b - c
            ok = disc > 1e-12
            t = -b - np.sqrt(np.where(ok, disc, 0))
            t = np.where(ok & (t > tiny), t, np.where(ok & (c < -1e-9), 0.0, np.inf))
            best = np.minimum(best, t.min(axis=1))
        if len(self.lp):
            nx, ny = -self.lu[None, :, 1], self.lu[None, :, 0]
            den = dx * nx + dy * ny
            num = (self.lp[None, :, 0] - ox) * nx + (self.lp[None, :, 1] - oy) * ny
            with np.errstate(divide="ignore", invalid="ignore"):
                t = num / den
                px = ox + t * dx - self.lp[None, :, 0]
                py = oy + t * dy - self.lp[None, :, 1]
                s = px * self.lu[None, :, 0] + py * self.lu[None, :, 1]
            ok = (np.abs(den) > 1e-12) & (t > tiny) & (s >= 0) & (s <= self.lL[None, :])
            best = np.minimum(best, np.where(ok, t, np.inf).min(axis=1))
        x0, y0, x1, y1 = self.fs.rect
        with np.errstate(divide="ignore", invalid="ignore"):
            tx = np.where(dirs[:, 0] > 0, (x1 - origin[:, 0]) / dirs[:, 0],
                          np.where(dirs[:, 0] < 0, (x0 - origin[:, 0]) / dirs[:, 0], np.inf))
            ty = np.where(dirs[:, 1] > 0, (y1 - origin[:, 1]) / dirs[:, 1],
                          np.where(dirs[:, 1] < 0, (y0 - origin[:, 1]) / dirs[:, 1], np.inf))
        return np.maximum(np.minimum(best, np.minimum(tx, ty)), 0.0)

    def star(self, s: Point, L: float, rays: int) -> BaseGeometry:
        th = np.linspace(0, TWO_PI, rays, endpoint=False)
        dirs = np.column_stack((np.cos(th), np.sin(th)))
        h = np.minimum(self.hits(np.repeat(np.array([s]), rays, axis=0), dirs), L)
        m = np.minimum(h, np.roll(h, -1))  # sector i spans rays i..i+1
        th2 = np.roll(th, -1)
        pts = np.empty((2 * rays, 2))
        pts[0::2] = np.column_stack((s[0] + m * np.cos(th), s[1] + m * np.sin(th)))
        pts[1::2] = np.column_stack((s[0] + m * np.cos(th2), s[1] + m * np.sin(th2)))
        poly = Polygon(pts)
        if not poly.is_valid:
            poly = shapely.make_valid(poly)
        return poly.union(SPoint(s).buffer(0)) if poly.is_empty else poly

    def fans(self, nav: Navigator, k: int, rel_nodes: NDArray[np.float64],
             d_nodes: NDArray[np.float64], L: float) -> list[BaseGeometry]:
        """Regions swept by legs leaving circle k tangentially, both ways round."""
        fs = nav.fs
        C = fs.circles
        arcs = nav.graph.arcs
        r = float(C.r[k])
        span = float(C.span[k])
        full = span >= TWO_PI - 1e-9
        step = min(0.02 / r, math.pi / 90)
        n = max(2, math.ceil(span / step) + 1)
        rel = np.linspace(0, span, n, endpoint=not full)
        kk = np.full(len(rel), k)
        out: list[BaseGeometry] = []
        for sgn in (1.0, -1.0):  # CCW departures come from nodes behind, CW from ahead
            best = np.full(len(rel), np.inf)
            for ra, da in zip(rel_nodes, d_nodes, strict=True):
                if sgn > 0:
                    fwd = rel >= ra
                    lo, hi = np.where(fwd, ra, 0.0), np.where(fwd, rel, 0.0)
                    cost = np.where(fwd & arcs.arc_free(kk, lo, hi), da + r * (rel - ra), np.inf)
                    if full:
                        back = ~fwd
                        wf = arcs.wrap_free(kk, np.full(len(rel), ra), rel)
                        cost = np.minimum(cost, np.where(back & wf,
                                                         da + r * (TWO_PI - ra + rel), np.inf))
                else:
                    fwd = rel <= ra
                    lo, hi = np.where(fwd, rel, 0.0), np.where(fwd, ra, 0.0)
                    cost = np.where(fwd & arcs.arc_free(kk, lo, hi), da + r * (ra - rel), np.inf)
                    if full:
                        back = ~fwd
                        wf = arcs.wrap_free(kk, rel, np.full(len(rel), ra))
                        cost = np.minimum(cost, np.where(back & wf,
                                                         da + r * (TWO_PI - rel + ra), np.inf))
                best = np.minimum(best, cost)
            th = C.start[k] + rel
            dep = np.column_stack((C.x[k] + r * np.cos(th), C.y[k] + r * np.sin(th)))
            dirs = sgn * np.column_stack((-np.sin(th), np.cos(th)))
            room = L - best
            good = np.isfinite(best) & (room > 0)
            if good.sum() < 1:
                continue
            reach = np.zeros(len(rel))
            gi = np.nonzero(good)[0]
            reach[gi] = np.minimum(self.hits(dep[gi], dirs[gi]), room[gi])
            pairs = np.nonzero(good[:-1] & good[1:])[0]
            if full and good[-1] and good[0]:
                pairs = np.concatenate([pairs, [len(rel) - 1]])
            for i in pairs:
                j = (i + 1) % len(rel)
                # the leg from between two samples may start up to r·Δ later: trim by it
                ln = min(reach[i], reach[j]) - r * abs(rel[j] - rel[i] if j else TWO_PI - rel[i])
                if ln <= 1e-9:
                    continue
                quad = Polygon([tuple(dep[i]), tuple(dep[i] + ln * dirs[i]),
                                tuple(dep[j] + ln * dirs[j]), tuple(dep[j])])
                if quad.is_valid and quad.area > 0:
                    out.append(quad)
        return out


# --------------------------------------------------------------------------- public API

def navigator(bf: Battlefield, unit: Unit, *, ignore_models: Collection[str] = ()) -> Navigator:
    return Navigator(bf, unit, tuple(ignore_models))


def shortest_path(bf: Battlefield, unit: Unit, start: Point, goal: Point, *,
                  ignore_models: Collection[str] = ()) -> Path | None:
    """Shortest legal centre path for `unit`'s leading model from start to goal, or None."""
    return navigator(bf, unit, ignore_models=ignore_models).shortest_path(start, goal)


def path_to_region(bf: Battlefield, unit: Unit, start: Point, region: BaseGeometry, *,
                   ignore_models: Collection[str] = ()) -> Path | None:
    """Shortest legal centre path from start to the nearest reachable point of `region`
    (a set of legal END positions for the leading model's centre), or None."""
    return navigator(bf, unit, ignore_models=ignore_models).path_to_region(start, region)


def allowance_of(unit: Unit) -> float:
    sp = unit.current_speed()
    if sp is None:
        raise TmgError("the unit has no Speed", obj=unit.id, field="speed")
    return float(sp)


def reach(bf: Battlefield, unit: Unit, start: Point, allowance: float, *,
          ignore_models: Collection[str] = (), model: Model | None = None) -> BaseGeometry:
    """Region the leading model's centre can end in: reachable within the allowance by a
    legal path, and a legal end position (`end_region`)."""
    nav = navigator(bf, unit, ignore_models=ignore_models)
    travel = nav.travel_region(start, allowance)
    mover = model or unit.leading_model
    return travel.intersection(end_region(bf, unit, mover)).buffer(0)


# --------------------------------------------------------------------------- end positions

def _chain(bf: Battlefield, p: TerrainPiece | None) -> set[str]:
    out: set[str] = set()
    while p is not None and p.id not in out:
        out.add(p.id)
        p = bf.piece(p.on) if p.on else None
    return out


def _portal_neighbours(bf: Battlefield, p: TerrainPiece) -> set[str]:
    """Tops joined to top p by an access point (e.g. a ramp and the hill it climbs)."""
    aps = [a for q in bf.terrain for a in q.access_points]
    out: set[str] = set()
    for q in bf.terrain:
        if q.id == p.id or not is_level(q):
            continue
        for a in aps:
            if a.intersects(p.footprint) and a.intersects(q.footprint):
                out.add(q.id)
    return out


def _overlaps(e: Any, g: BaseGeometry) -> bool:
    """Positive-area overlap between a base and a footprint (touching is fine)."""
    shrunk = g.buffer(-TOLERANCE)
    return not shrunk.is_empty and bases.geometry_meets(e, shrunk)


def end_position_ok(bf: Battlefield, unit: Unit, at: Point, *, model: Model | None = None,
                    engage_ok: Collection[str] = (), exclude: Collection[str] | None = None,
                    check_engagement: bool = True, any_top: bool = False) -> Verdict:
    """End position checks of GEOMETRY-RULES §6 for `model` (default: the leading model)
    placed with its centre at `at`. `engage_ok`: enemy unit ids whose engagement range the
    model may end in (e.g. charge targets). `exclude`: model refs / unit ids ignored for
    overlaps (default: the unit's own models, which are placed afterwards). `any_top`: any
    standable top may be stood on (PLACE ignores elevation), not only reachable ones."""
    mover = (model or unit.leading_model).moved_to(at)
    e = mover.ellipse
    t = bf.table
    skip = set(exclude) if exclude is not None else {unit.id}
    details: dict[str, Any] = {"at": list(at)}
    c, s = math.cos(e.theta), math.sin(e.theta)
    ex = math.sqrt((e.a * c) ** 2 + (e.b * s) ** 2)
    ey = math.sqrt((e.a * s) ** 2 + (e.b * c) ** 2)
    if (at[0] - ex < -TOLERANCE or at[1] - ey < -TOLERANCE or at[0] + ex > t.width + TOLERANCE
            or at[1] + ey > t.depth + TOLERANCE):
        return Verdict(False, RULE_MOVE, "the base would not be wholly on the table", at, details)
    top = top_at(bf, at)
    allowed: set[str] = set()
    if top is not None and (unit.flying or any_top or is_level(top)):
        allowed = _chain(bf, top) | _portal_neighbours(bf, top)
        details["standing_on"] = top.id
    grass: list[str] = []
    centre = SPoint(at)
    for p in bf.terrain:
        if p.footprint.distance(centre) >= e.a - TOLERANCE or not _overlaps(e, p.footprint):
            continue
        if p.grass:
            grass.append(p.id)
            continue
        if p.id in allowed:
            continue
        what = "token" if p.is_token else f"Size-{p.size} terrain"
        why = (" (a top reached only through its access points)" if is_level(p) else
               " (its top is not reachable: no access points)" if p.can_stand_on else "")
        return Verdict(False, RULE_MOVE, f"the base would overlap {what} {p.id!r}{why}", at,
                       {**details, "terrain": p.id})
    details["destroys_grass"] = grass
    for m in bf.models():
        if m.unit in skip or m.ref in skip or m.ref == mover.ref:
            continue
        if math.dist(m.at, at) >= e.a + m.base.a:
            continue
        if bases.ellipse_distance(e, m.ellipse) <= 0.0 and _bases_overlap(mover, m):
            return Verdict(False, RULE_MOVE, f"the base would overlap model {m.ref}", at,
                           {**details, "model": m.ref})
    if check_engagement:
        for m in bf.models():
            if m.owner == unit.owner or m.unit in engage_ok:
                continue
            if math.dist(m.at, at) > e.a + m.base.a + 1.0 + TOLERANCE:
                continue
            if unit.flying and m.flying:
                d = base_distance(mover, m)
                if d < 1.0 - TOLERANCE:
                    return Verdict(False, "8.5.3 flying units", f"it would end {d:.3f}\" from "
                                   f"enemy flying model {m.ref} (must be at least 1\")", at,
                                   {**details, "model": m.ref})
            elif not unit.flying and not m.flying:
                d = base_distance(mover, m)
                if d <= 1.0 + TOLERANCE:
                    return Verdict(False, "7.2 engagement range", f"it would end within 1\" "
                                   f"({d:.3f}\") of enemy ground model {m.ref}", at,
                                   {**details, "model": m.ref})
    where = f" on {top.id!r}" if top is not None and "standing_on" in details else ""
    return Verdict(True, RULE_MOVE, f"a legal end position{where}", at, details)


def _bases_overlap(a: Model, b: Model) -> bool:
    if a.base.is_disc and b.base.is_disc:
        return math.dist(a.at, b.at) < a.base.a + b.base.a - TOLERANCE
    shrunk = replace(a.ellipse, a=a.ellipse.a - TOLERANCE, b=a.ellipse.b - TOLERANCE)
    return bases.ellipse_distance(shrunk, b.ellipse) == 0.0


def end_region(bf: Battlefield, unit: Unit, model: Model, *,
               engage_ok: Collection[str] = ()) -> BaseGeometry:
    """Polygon of centre positions passing the end checks (an inner approximation: oval bases
    are treated as discs of their long semi-axis; arcs are circumscribed 128-gons)."""
    r = model.base.a
    t = bf.table
    ex = ey = r
    if not model.base.is_disc:
        e = model.ellipse
        c, s = math.cos(e.theta), math.sin(e.theta)
        ex = math.sqrt((e.a * c) ** 2 + (e.b * s) ** 2)
        ey = math.sqrt((e.a * s) ** 2 + (e.b * c) ** 2)
    if 2 * ex > t.width or 2 * ey > t.depth:
        return Polygon()
    region: BaseGeometry = box(ex, ey, t.width - ex, t.depth - ey)
    q = 32
    k = 1 / math.cos(math.pi / (4 * q))
    cuts: list[BaseGeometry] = []
    levels = {p.id: p for p in bf.terrain if is_level(p)}
    for p in bf.terrain:
        if p.grass:
            continue
        grown = p.footprint.buffer(r * k, quad_segs=q)
        # centres on a reachable top standing on (or being) p may overlap p
        keep = [levels[i].footprint for i in levels
                if p.id in _chain(bf, levels[i]) or p.id in _portal_neighbours(bf, levels[i])]
        if unit.flying:
            keep = [top.footprint for top in bf.terrain if top.can_stand_on
                    and p.id in _chain(bf, top)]
        if keep:
            grown = grown.difference(shapely.union_all(keep).buffer(-TOLERANCE))
        cuts.append(grown)
    for m in bf.models():
        if m.unit == unit.id:
            continue
        rr = r + m.base.a * (1 if m.base.is_disc else 1 / math.cos(math.pi / 64))
        if m.owner != unit.owner and m.unit not in engage_ok and (
                (not unit.flying and not m.flying) or (unit.flying and m.flying)):
            rr += 1.0
        cuts.append(SPoint(m.at).buffer(rr * k, quad_segs=q))
    if cuts:
        region = region.difference(shapely.union_all(cuts))
    return region


# --------------------------------------------------------------------------- move legality

@dataclass(frozen=True)
class MoveCheck:
    verdict: Verdict
    path: Path | None
    allowance: float
    reach: BaseGeometry | None = None


def check_move(bf: Battlefield, unit: Unit, model: Model, to: Point, *,
               allowance: float | None = None, ignore_models: Collection[str] = (),
               nav: Navigator | None = None, engage_ok: Collection[str] = ()) -> MoveCheck:
    """Can `model`, as the leading model of `unit`, move to `to` (§8.5.3)?

    The first failing reason is reported, in this order: no Speed, a 0" move, the end
    position, no legal path, path longer than the allowance.
    """
    to = _xy(to)
    if allowance is None:
        if unit.current_speed() is None:
            v = Verdict(False, RULE_MOVE, "the unit has no Speed and cannot move", None,
                        {"allowance": None})
            return MoveCheck(v, None, math.nan)
        allowance = allowance_of(unit)
    details: dict[str, Any] = {"allowance": allowance, "model": model.ref}
    if math.dist(model.at, to) <= TOLERANCE:
        return MoveCheck(Verdict(False, "FAQ moving 0\"", "moving 0\" is not a move (FAQ): the "
                                 "unit would have to hold instead", None, details), None,
                         allowance)
    if nav is None:
        nav = Navigator(bf, unit, tuple(ignore_models))
    path = nav.shortest_path(model.at, to)
    end = end_position_ok(bf, unit, to, model=model, engage_ok=engage_ok)
    grass = sorted(set(path.grass if path else ()) | set(end.details.get("destroys_grass", [])))
    details["destroys_grass"] = grass
    if path is not None:
        details["path_length"] = path.length
        details["error_bound"] = path.error_bound
    if not end.ok:
        return MoveCheck(Verdict(False, end.rule, end.reason, to, {**details, **end.details,
                                                                    "destroys_grass": grass}),
                         path, allowance)
    if path is None:
        if nav.escape(model.at) is None:
            why = ("the start is hemmed in: no straight step leads out of the clearance zone of "
                   f"{', '.join(nav.start_blockers(model.at))}")
        elif nav.escape(to) is None:
            why = (f"the end point cannot be reached: it is hemmed in by "
                   f"{', '.join(nav.start_blockers(to))}")
        else:
            blk = nav.fs.blockers(LineString([model.at, to]))
            why = ("no legal path: every way is closed by terrain, models or gaps too "
                   f"narrow for Size {unit.size}{' LARGE' if unit.large else ''}"
                   + (f" (the straight line is blocked by {', '.join(blk)})" if blk else ""))
        return MoveCheck(Verdict(False, RULE_GAP, why, None, details), None, allowance)
    if path.length > allowance + TOLERANCE:
        return MoveCheck(Verdict(False, RULE_MOVE, f"the shortest legal path is "
                                 f"{path.length:.3f}\", more than the allowance {allowance:g}\"",
                                 list(path.points), details), path, allowance)
    how = "flying point to point" if unit.flying else "by the shortest legal path"
    return MoveCheck(Verdict(True, RULE_MOVE, f"legal: {path.length:.3f}\" {how} within "
                             f"{allowance:g}\"", list(path.points), details), path, allowance)
