"""The navigator: shortest legal paths for one mover on one table (rulebook §4.3, §4.6,
§8.5.3, FAQ "측정과 이동").

A `Navigator` holds the free space (`geom.paths._freespace`) and the static tangent graph
(`geom.paths._navgraph`) of one mover's centre; every path question about that mover on that table
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
from shapely.geometry import Point as SPoint

from ..model import Battlefield, Point, Unit
from ..tolerance import ESCAPE_MARGIN, ROUNDING, ZERO_LENGTH
from ._circles import TWO_PI
from ._freespace import FreeSpace
from ._navgraph import LazyGraph
from ._obstacles import OVAL_SIDES, Obstacle, is_level, movement_obstacles
from ._path import EXACT_BOUND, Path, Segment, joined
from ._point_goals import FixedEnds
from ._search import Search

TARGET_BOUND = 0.01
SEARCHES_KEPT = 32  # searches a navigator keeps, by start
ESCAPES_KEPT = 4096  # steps out of clearance zones a navigator keeps, by point
ESCAPE_CHUNK = 32  # escape candidates tested for a clear step at a time, nearest first
FIXED_KEPT = 64  # questions about given points a navigator keeps


def as_point(p: Sequence[float]) -> Point:
    return (float(p[0]), float(p[1]))


@dataclass
class Navigator:
    """Everything needed to answer path questions for one mover on one battlefield.

    Building one costs the free space and its free arcs (a few ms on a full table); the tangent
    graph grows lazily where questions go and is kept, as are the searches from the last
    starts asked about. `navigator_for` keeps one per (battlefield, mover) for every caller.
    """

    bf: Battlefield
    unit: Unit
    ignore_models: tuple[str, ...] = ()
    gap: float | None = None
    oval_sides: int = 0
    fs: FreeSpace = field(init=False)
    graph: LazyGraph = field(init=False)
    _inner: Navigator | None = field(default=None, init=False, repr=False)
    _searches: dict[tuple[tuple[Point, ...], tuple[float, ...]], Search] = field(
        default_factory=dict, init=False, repr=False)
    inner_mode: bool = field(default=False, init=False, repr=False)
    _escapes: dict[Point, tuple[Point, float] | None] = field(default_factory=dict, init=False,
                                                            repr=False)
    _fixed: dict[tuple[bytes, bytes], FixedEnds] = field(default_factory=dict, init=False,
                                                         repr=False)

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
        # GEOMETRY-RULES §6 (revised): the base keeps off every obstacle except in a gap, and
        # stays wholly over the table. An oval mover is taken as its circumscribed disc (a
        # legal bound: it never overlaps what the disc does not).
        r = 0.0 if self.unit.flying else max((m.base.a for m in self.unit.models), default=0.0)
        e = max(c, r)
        self.fs = FreeSpace(obstacles, (e, e, t.width - e, t.depth - e), c, r)
        self.graph = LazyGraph(self.fs)

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
            nav.fs = FreeSpace(obs, self.fs.rect, self.fs.clearance, self.fs.radius)
            nav.graph = LazyGraph(nav.fs)
            nav._searches = {}
            nav._escapes = {}
            nav._inner = None
            nav.inner_mode = True
            self._inner = nav
        return self._inner

    # ---- searches -------------------------------------------------------------------------
    def search(self, start: Point | Sequence[Point], offsets: Sequence[float] | None = None
               ) -> Search:
        """The search from `start` (a free point; or from several, each with the cost already
        spent reaching it), kept for later questions from it."""
        raw = [start] if isinstance(start[0], int | float) else list(start)  # type: ignore[list-item]
        starts = tuple(as_point(p) for p in raw)  # type: ignore[arg-type]
        offs = tuple(float(o) for o in offsets) if offsets is not None else (0.0,) * len(starts)
        key = (starts, offs)
        got = self._searches.get(key)
        if got is None:
            if len(self._searches) >= SEARCHES_KEPT:
                self._searches.pop(next(iter(self._searches)))
            got = self._searches[key] = Search(self.graph, list(starts), list(offs))
        return got

    def fixed_ends(self, points: NDArray[np.float64], extra: NDArray[np.float64]) -> FixedEnds:
        """The question "paths to these points (then `extra` more)", kept by its points: the
        sampled stepped ends of a charge are asked again by the next charge on the table,
        and the kept question keeps its terminals and what searches found of their legs."""
        key = (np.ascontiguousarray(points, dtype=float).tobytes(),
               np.ascontiguousarray(extra, dtype=float).tobytes())
        got = self._fixed.get(key)
        if got is None:
            if len(self._fixed) >= FIXED_KEPT:
                self._fixed.pop(next(iter(self._fixed)))
            got = self._fixed[key] = FixedEnds(points, extra)
        return got

    def start_blockers(self, p: Point) -> list[str]:
        return self.fs.blockers(SPoint(p))

    # ---- shortest path ----------------------------------------------------------------------
    def shortest_path(self, start: Point, goal: Point) -> Path | None:
        start, goal = as_point(start), as_point(goal)
        if self.unit.flying:
            return self.finish(Path((start, goal), math.dist(start, goal),
                                     (Segment(start, goal),), flying=True))
        es, eg = self.escape(start), self.escape(goal)
        if es is None or eg is None:
            return None
        s1, g1 = es[0], eg[0]
        if self.fs.segments_clear(np.array([s1]), np.array([g1]))[0]:
            path: Path | None = Path((s1, g1), math.dist(s1, g1), (Segment(s1, g1),))
        else:
            found = self.search(s1).ask(FixedEnds(np.array([g1])))
            path = found.path if found is not None else None
        if path is not None:
            path = joined(start, path, goal)
        return self._certify(path, lambda nav: nav.shortest_path(start, goal))

    # A start or end may legally lie inside a clearance zone: a base may overhang the edge of
    # a top (FAQ), and a gap is about passing, not stopping (§4.6). Such a point is joined to
    # the free space by the shortest straight step that crosses no obstacle itself.
    def escape(self, p: Point) -> tuple[Point, float] | None:
        """The nearest free point q reachable from p by a straight step crossing no obstacle
        (no core, no base), and ``|pq|``; (p, 0) when p is free; None when there is none. Kept
        by point: every question from one start asks it again."""
        key = (float(p[0]), float(p[1]))
        if key in self._escapes:
            return self._escapes[key]
        if len(self._escapes) >= ESCAPES_KEPT:
            self._escapes.clear()
        got = self._escapes[key] = self._escape(key)
        return got

    def escapes(self, pts: Sequence[Point]) -> list[tuple[Point, float] | None]:
        """`escape` of many points (the sampled stepped ends of `geom.paths._region_path`):
        the same answers, their clearance tests made side by side — a few calls of many
        points instead of a few of 32 per point (each point's and each step's test is its
        own, so testing them together changes none)."""
        keys = [(float(p[0]), float(p[1])) for p in pts]
        got = {k: self._escapes[k] for k in keys if k in self._escapes}
        todo = [k for k in dict.fromkeys(keys) if k not in got]
        if todo:
            got.update(zip(todo, self._escape_all(todo), strict=True))
            for k in todo:
                if len(self._escapes) >= ESCAPES_KEPT:
                    self._escapes.clear()
                self._escapes[k] = got[k]
        return [got[k] for k in keys]

    def _escape(self, p: Point) -> tuple[Point, float] | None:
        return self._escape_all([p])[0]

    def _escape_all(self, pts: list[Point]) -> list[tuple[Point, float] | None]:
        fs = self.fs
        P = np.array(pts, dtype=float).reshape(-1, 2)
        out: list[tuple[Point, float] | None] = [None] * len(pts)
        free = fs.points_clear(P)
        near = fs.in_rect(P, tol=fs.clearance)
        cands = {n: self._escape_candidates(p) for n, p in enumerate(pts)
                 if not free[n] and near[n]}
        for n in np.flatnonzero(free).tolist():
            out[n] = (pts[n], 0.0)
        # the nearest free candidate whose step crosses no obstacle: tested nearest first, a
        # chunk at a time (each point's and each segment's test is its own, so the first
        # found is the one a test of all would pick), instead of a thousand points (each
        # perhaps a base-in-a-gap test) and segments for every escape; the k-th chunks of
        # every point still looking are tested together
        k = 0
        while cands:
            rows = [(n, Q[k:k + ESCAPE_CHUNK]) for n, Q in cands.items() if k < len(Q)]
            if not rows:
                break
            ok = fs.points_clear(np.vstack([c for _, c in rows]))
            starts: list[NDArray[np.float64]] = []
            ends: list[NDArray[np.float64]] = []
            whose: list[int] = []
            at = 0
            for n, c in rows:
                c_free = c[ok[at:at + len(c)]]
                at += len(c)
                starts.append(np.repeat([pts[n]], len(c_free), axis=0))
                ends.append(c_free)
                whose += [n] * len(c_free)
            if whose:
                hard = self._hard_clear(np.vstack(starts), np.vstack(ends))
                Q = np.vstack(ends)
                for m in np.flatnonzero(hard).tolist():
                    n = whose[m]
                    if n in cands:  # the first clear one of its chunk: the nearest
                        q = as_point(Q[m])
                        out[n] = (q, math.dist(pts[n], q))
                        del cands[n]
            k += ESCAPE_CHUNK
        return out

    def _escape_candidates(self, p: Point) -> NDArray[np.float64]:
        """Where a step out of the zones from p may end, nearest first: out of each zone p
        lies in along its shortest line, rings about p, and the nearest point of the table."""
        fs = self.fs
        cands: list[NDArray[np.float64]] = []
        sp = SPoint(p)
        js = fs.tree.query(sp, predicate="dwithin", distance=fs.rho_r_max)
        for j in js.tolist():
            core = fs.cores[j]
            if float(shapely.distance(core, sp)) >= fs.rho_r[j]:
                continue
            q = np.array(shapely.get_coordinates(shapely.shortest_line(core, sp))[0])
            v = np.array(p) - q
            n = float(np.hypot(*v))
            if n > ZERO_LENGTH:
                # out of the gap clearance, or out of the base zone (geom.paths._gaps)
                for rho in {float(fs.rho[j]), float(fs.rho_r[j])}:
                    cands.append((q + v / n * (rho + ESCAPE_MARGIN))[None, :])
        th = np.linspace(0, TWO_PI, 96, endpoint=False)
        ring = np.column_stack((np.cos(th), np.sin(th)))
        for rad in (0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0):
            cands.append(np.array(p) + rad * fs.clearance * ring)
        x0, y0, x1, y1 = fs.rect
        cands.append(np.array([[min(max(p[0], x0), x1), min(max(p[1], y0), y1)]]))
        Q = np.vstack(cands)
        return Q[np.argsort(np.hypot(Q[:, 0] - p[0], Q[:, 1] - p[1]), kind="stable")]

    def _hard_clear(self, P: NDArray[np.float64], Q: NDArray[np.float64]) -> NDArray[np.bool_]:
        """Segments P[i]→Q[i] that cross no obstacle itself (a core, or a base for disc
        cores)."""
        fs = self.fs
        lines = shapely.linestrings(np.stack([P, Q], axis=1))
        ok = np.ones(len(Q), dtype=bool)
        if not len(fs.obstacles):
            return ok
        i, j = fs.tree.query(lines, predicate="dwithin", distance=fs.rho_max)
        if len(i):
            d = shapely.distance(lines[i], fs.cores[j])
            is_pt = shapely.get_type_id(fs.cores[j]) == 0
            hard = np.where(is_pt, fs.rho[j] - fs.clearance, 0.0)
            ok[i[d <= hard + ROUNDING]] = False
        return ok

    def _certify(self, path: Path | None, again: Any) -> Path | None:
        if path is None or self.inner_mode or not self.inexact:
            return self.finish(path) if path is not None else None
        low = again(self.inner())
        bound = path.length - low.length if low is not None else math.inf
        bound = max(bound, 0.0) + EXACT_BOUND
        sides = self.oval_sides or 96
        if bound > TARGET_BOUND and sides < 768:
            finer = Navigator(self.bf, self.unit, self.ignore_models, self.gap,
                              oval_sides=sides * 2)
            refined: Path | None = again(finer)
            return refined if refined is not None else self.finish(
                replace(path, error_bound=bound))
        return self.finish(replace(path, error_bound=bound))

    def finish(self, path: Path) -> Path:
        if self.inner_mode:
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


def navigator_for(bf: Battlefield, unit: Unit, ignore_models: Sequence[str] = (),
                  gap: float | None = None, oval_sides: int = 0) -> Navigator:
    """The navigator of `unit` on `bf`, built once and kept with the battlefield: every
    question of one command about that mover shares its graph and searches. `oval_sides`
    above the default polygonises oval bases among the obstacles more finely."""
    if oval_sides <= OVAL_SIDES:
        oval_sides = 0
    key = ("navigator", unit.id, unit.size, unit.gap_clearance, unit.flying,
           tuple(sorted(ignore_models)), gap, oval_sides)
    kept = bf.prepared.navigators
    got = kept.get(key)
    if got is None or got.unit is not unit:
        if oval_sides and not any(not o.exact for o in
                                  navigator_for(bf, unit, ignore_models, gap).fs.obstacles):
            return navigator_for(bf, unit, ignore_models, gap)  # no ovals: nothing to refine
        got = Navigator(bf, unit, tuple(ignore_models), gap, oval_sides)
        kept[key] = got
    return got
