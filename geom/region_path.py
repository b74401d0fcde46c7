"""The shortest legal path to a set of end positions (rulebook §4.3, §8.5.3, §8.7.7: a charge is
measured along the real path to the nearest legal end).

The last leg of a shortest path to a set E leaves the start, or leaves a corner circle
tangentially, and stops at a point of E's boundary where moving the end along the boundary
cannot shorten it: where the leg meets a boundary piece square (the foot of a perpendicular
on a segment; on a circle, the point on the line through its centre; on a convex curve, where
its normal points back along the leg), or at a vertex where two boundary pieces cross, or
where the corner circle itself enters E (a leg of length 0). E's boundary lies on the
boundaries of its shapes and of the free space (`geom.endset`), so every such point is computed
in closed form, for the start and for every corner circle the search reaches, and offered to
the search (`geom.pathsearch`) as a terminal. The cheapest one whose leg is clear is the exact
answer — no polygon stands in for a circle, so a distance exactly at a limit comes out at it.

Ends inside a clearance zone ("stepped" ends: the gap rule is about passing, not stopping,
§4.6; a base may overhang a top's edge, FAQ) are reached by a straight step from the free
space (`Navigator.escape`). They are found by sampling E's boundary inside the zones and
refining around the best sample; `error_bound` then carries the sample spacing.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray
from shapely.geometry import Point as SPoint
from shapely.geometry import box as sbox
from shapely.geometry.base import BaseGeometry

from .crossings import (
    cross_vertices,
    feet,
    legs_from_circle,
    nearest_members,
    ray_legs,
    vertices,
)
from .endset import (
    Arr,
    Disc,
    EndSet,
    Grown,
    Primitives,
    Shape,
    box_primitives,
    clip,
    grown_primitives,
    shape_primitives,
)
from .freespace import in_cone
from .model import Model, Point
from .navigator import Navigator, _xy
from .paths import EXACT_BOUND, Path, Segment, joined
from .pathsearch import FixedEnds, Question, Search, Terminals
from .straight_legs import straight_first

STEP_SAMPLE = 0.05       # spacing of sampled stepped ends on the boundary
STEP_SAMPLES_MAX = 400
STEP_REFINE = 2          # rounds of refinement around the best sampled stepped end

Accept = Callable[[int, Point], bool]
PathAccept = Callable[[EndSet, Point, Path], bool]  # an end of a set, judged with its path


@dataclass
class _Target:
    """One end set prepared for a search: its window, boundary pieces and crossing points."""

    ends: EndSet
    window: tuple[float, float, float, float]
    prims: Primitives
    verts: Arr
    crossings: Arr  # every crossing of the pieces, before the membership test
    # narrowed from target `parent` of the question it was narrowed from: the pieces and the
    # member crossings it added (`EndQuestion.narrowed`)
    parent: int = -1
    more: Primitives | None = None
    fresh: Arr | None = None

    @property
    def rays(self) -> Arr:
        return self.ends.rays


class EndQuestion(Question):
    """The question "shortest path to any of these end sets" (see the module docstring).
    `accept(tag, end)` may reject an end after all (an exact re-check); `path_accept(set,
    end, path)` judges an end of that set with the path from the real start (`join` makes that
    path of the search's)."""

    def __init__(self, nav: Navigator, ends: Sequence[EndSet], accept: Accept | None = None,
                 path_accept: PathAccept | None = None) -> None:
        self.nav = nav
        self.fs = nav.fs
        self.targets: list[_Target] = []
        self.check = accept
        self.path_check = path_accept
        self.join: Callable[[Path], Path] = lambda p: p
        self._from: tuple[tuple[Point, ...], Terminals | None] | None = None
        self._kept: dict[object, EndQuestion] = {}
        self._circles_of: object = None
        self._circles: dict[int, Terminals | None] = {}
        self._parent: EndQuestion | None = None  # narrowed from it, by `_groups`
        self._groups: Sequence[list[Shape]] = ()
        self._discs: list[Arr] = []  # groups of discs (x, y, r) every end lies in one of
        for es in ends:
            w = es.window()
            if w is None:
                continue
            es = es.near(w)
            p = es.pieces(w, self._free_space_pieces(w))
            raw = vertices(p)
            self.targets.append(_Target(es, w, p, self._members(es, raw), raw))

    def _members(self, es: EndSet, raw: Arr) -> Arr:
        v = es.nudge(raw)
        return v[self.member(es, v)] if len(v) else v

    def narrowed_once(self, key: object, groups: Sequence[list[Shape]]) -> EndQuestion:
        """`narrowed`, kept with this question under `key` (e.g. "in base contact", asked of
        every charge on the same ends)."""
        got = self._kept.get(key)
        if got is None:
            got = self._kept[key] = self.narrowed(groups)
        return got

    def narrowed(self, groups: Sequence[list[Shape]],
                 within: tuple[float, float, float, float] | None = None) -> EndQuestion:
        """The same question with every end also inside some shape of each group (e.g. "in
        base contact"): the sets' pieces and crossings are reused, only those of the new
        shapes are added. With `within` (a box: e.g. all a path under a bound can reach), only
        the ends inside it are asked about: the pieces that do not reach it bound none of
        them, and the crossings outside it are not tested."""
        q = EndQuestion(self.nav, [], self.check, self.path_check)
        q._parent, q._groups = self, groups
        q._discs = self._discs + [_disc_rows(g) for g in groups
                                  if g and all(isinstance(s, Disc) for s in g)]
        extra = Primitives()
        for g in groups:
            for shape in g:
                extra.extend(shape_primitives(shape))
        new = vertices(extra)
        for ti, t in enumerate(self.targets):
            es = t.ends
            for g in groups:
                es = es.with_group(g)
            w = es.window()
            if w is not None and within is not None:
                w = _meet(w, within)
            if w is None:
                continue
            # pieces that do not reach the narrowed window bound none of its ends
            own = clip(t.prims, w, 1e-6)
            more = extra if within is None else clip(extra, w, 1e-6)
            p = Primitives()
            p.extend(own)
            p.extend(more)
            fresh = np.vstack([new, cross_vertices(own, more)])
            verts = t.verts
            if within is not None:
                fresh, verts = _in_box(fresh, w), _in_box(verts, w)
            # the set's own crossings that were ends still are where they lie in every new
            # group: only the new crossings are tested in full
            kept = verts[es.in_groups(groups, verts)] if len(verts) else verts
            ends = q._members(es, fresh)
            q.targets.append(_Target(es, w, p, np.vstack([kept, ends]),
                                     np.vstack([t.crossings, fresh]), ti, more, ends))
        return q

    def _free_space_pieces(self, w: tuple[float, float, float, float]) -> Primitives:
        """The boundary of the free space near the window: offsets of obstacle cores."""
        fs = self.fs
        p = box_primitives(fs.rect)
        if len(fs.obstacles):
            for j in fs.tree.query(sbox(*w), predicate="dwithin", distance=fs.rho_max):
                p.extend(grown_primitives(fs.cores[j], float(fs.rho[j])))
        return p

    def member(self, es: EndSet, pts: Arr) -> NDArray[np.bool_]:
        ok = es.contains(pts)
        idx = np.nonzero(ok)[0]
        if len(idx):
            ok[idx] = self.fs.points_clear(pts[idx])
        return ok

    @property
    def empty(self) -> bool:
        return not self.targets

    def lower_bound(self, x: float, y: float) -> float:
        best = math.inf
        for t in self.targets:
            x0, y0, x1, y1 = t.window
            best = min(best, math.hypot(max(x0 - x, 0.0, x - x1), max(y0 - y, 0.0, y - y1)))
        return best

    def reach_bound(self, x: float, y: float) -> float:
        # every end lies in a disc of each group: no nearer than the farthest group's nearest
        best = self.lower_bound(x, y)
        for d in self._discs:
            best = max(best, float(np.min(np.hypot(d[:, 0] - x, d[:, 1] - y) - d[:, 2])))
        return best

    def bound_key(self) -> object:
        return ("windows", tuple(t.window for t in self.targets))

    def lower_bounds(self, xy: Arr) -> Arr:
        x, y = xy[:, 0], xy[:, 1]
        best = np.full(len(xy), math.inf)
        for t in self.targets:
            x0, y0, x1, y1 = t.window
            best = np.minimum(best, np.hypot(np.maximum(np.maximum(x0 - x, 0.0), x - x1),
                                             np.maximum(np.maximum(y0 - y, 0.0), y - y1)))
        return best

    def accept(self, s: Search | None, t: Terminals, i: int, path: Path) -> bool:
        e = (float(t.end[i, 0]), float(t.end[i, 1]))
        tag = int(t.tag[i])
        if self.check is not None and not self.check(tag, e):
            return False
        return self.path_check is None or self.path_check(self.targets[tag].ends, e,
                                                          self.join(path))

    # ---- terminals from the start ------------------------------------------------------------
    def start_terminals_at(self, starts: Sequence[Point]) -> Terminals | None:
        key = tuple((float(p[0]), float(p[1])) for p in starts)
        if self._from is not None and self._from[0] == key:
            return self._from[1]  # asked again from the same starts (the search after a
            # straight leg did not decide it)
        got = self._start_terminals(key)
        self._from = (key, got)
        return got

    def _start_terminals(self, starts: Sequence[Point]) -> Terminals | None:
        deps, ends, tags, origin = [], [], [], []
        for si, start in enumerate(starts):
            p = np.asarray(start)
            for ti, t in enumerate(self.targets):
                e = t.ends.nudge(feet(t.prims, p))
                e = np.vstack([t.verts, e[self.member(t.ends, e)]]) if len(e) else t.verts
                if len(t.rays):  # legs that graze the edge of what a path must cross
                    rd, re = ray_legs(p, 0.0, t.rays, t.prims)
                    re = t.ends.nudge(re)
                    ok = self.member(t.ends, re)
                    rd, re = rd[ok], re[ok]
                    ends.append(re)
                    deps.append(rd)
                    tags.append(np.full(len(re), ti))
                    origin.append(np.full(len(re), si))
                ends.append(e)
                deps.append(np.repeat(p[None, :], len(e), axis=0))
                tags.append(np.full(len(e), ti))
                origin.append(np.full(len(e), si))
        if not ends:
            return None
        e = np.vstack(ends)
        return Terminals(np.vstack(deps), e, np.zeros(len(e)),
                         np.concatenate(tags).astype(np.int64),
                         origin=np.concatenate(origin).astype(np.int64))

    # ---- terminals leaving corner circle k -------------------------------------------------
    def circle_terminals(self, s: Search, k: int) -> Terminals | None:
        # they depend on the question and the circle only: kept for every search of the
        # navigator's graph that reaches circle k (the question's ends never change)
        if self._circles_of is not s.graph:
            self._circles_of, self._circles = s.graph, {}
        if k not in self._circles:
            self._circles[k] = self._circle_terminals(s, k)
        return self._circles[k]

    def _circle_terminals(self, s: Search, k: int) -> Terminals | None:
        C = s.C
        o = np.array([C.x[k], C.y[k]])
        rho = float(C.r[k])
        deps, ends, tags = [], [], []
        # a narrowed question's legs are its parent's that end in the new groups (they passed
        # the cone and clearance tests there), and those of the pieces and crossings it added
        # (legs are found piece by piece, crossing by crossing)
        up = self._parent.circle_terminals(s, k) if self._parent is not None else None
        known: list[Terminals] = []
        for ti, t in enumerate(self.targets):
            prims, verts = t.prims, t.verts
            if t.parent >= 0:
                assert t.more is not None and t.fresh is not None
                prims, verts = t.more, t.fresh
                if up is not None:
                    rows = np.nonzero(up.tag == t.parent)[0]
                    rows = rows[t.ends.in_groups(self._groups, up.end[rows])]
                    if len(rows):
                        known.append(Terminals(up.dep[rows], up.end[rows], up.extra[rows],
                                               np.full(len(rows), ti, dtype=np.int64), k,
                                               up.dep_rel[rows]))
            d, e, fresh = legs_from_circle(o, rho, prims, verts, t.rays)
            if not len(e):
                continue
            ok = np.ones(len(e), dtype=bool)
            if fresh.any():
                idx = np.nonzero(fresh)[0]
                e[idx] = t.ends.nudge(e[idx])
                ok[idx] = self.member(t.ends, e[idx])
            deps.append(d[ok])
            ends.append(e[ok])
            tags.append(np.full(int(ok.sum()), ti))
        new = self._placed_on(s, k, o, deps, ends, tags)
        parts = known + ([new] if new is not None else [])
        if not parts:
            return None
        if len(parts) == 1:
            return parts[0]
        return Terminals(np.vstack([p.dep for p in parts]), np.vstack([p.end for p in parts]),
                         np.concatenate([p.extra for p in parts]),
                         np.concatenate([p.tag for p in parts]), k,
                         np.concatenate([p.dep_rel for p in parts]))

    def _placed_on(self, s: Search, k: int, o: Arr, deps: list[Arr], ends: list[Arr],
                   tags: list[Arr]) -> Terminals | None:
        """The legs that leave circle k where a search may: inside its cone, on the table and
        on a free stretch of the circle."""
        if not deps:
            return None
        C, fs, arcs = s.C, self.fs, s.graph.arcs
        dep, end = np.vstack(deps), np.vstack(ends)
        tag = np.concatenate(tags).astype(np.int64)
        th = np.arctan2(dep[:, 1] - o[1], dep[:, 0] - o[0])
        ok, rel = in_cone(C, np.full(len(th), k), th)
        ok &= fs.in_rect(dep)
        idx = np.nonzero(ok)[0]
        ok[idx] &= arcs.point_free(np.full(len(idx), k), rel[idx])
        if not ok.any():
            return None
        return Terminals(dep[ok], end[ok], np.zeros(int(ok.sum())), tag[ok], k, rel[ok])


def _disc_rows(group: Sequence[Shape]) -> Arr:
    """A group of discs as rows (x, y, r)."""
    return np.array([[s.cx, s.cy, s.r] for s in group if isinstance(s, Disc)], dtype=np.float64)


def _meet(a: tuple[float, float, float, float], b: tuple[float, float, float, float]
          ) -> tuple[float, float, float, float] | None:
    """The overlap of two boxes (None: they do not meet)."""
    x0, y0, x1, y1 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    return (x0, y0, x1, y1) if x0 <= x1 and y0 <= y1 else None


def _in_box(pts: Arr, w: tuple[float, float, float, float], margin: float = 1e-6) -> Arr:
    """The points inside box w (within `margin`)."""
    if not len(pts):
        return pts
    x, y = pts[:, 0], pts[:, 1]
    return pts[(x >= w[0] - margin) & (x <= w[2] + margin) & (y >= w[1] - margin)
               & (y <= w[3] + margin)]


def reach_box(start: Point, bound: float) -> tuple[float, float, float, float] | None:
    """The box of every point a path from `start` shorter than `bound` can reach (None: no
    bound), with a margin far beyond the clearance tolerance."""
    if not math.isfinite(bound):
        return None
    r = bound + 1e-6
    return (start[0] - r, start[1] - r, start[0] + r, start[1] + r)


# --------------------------------------------------------------------------- the answers

@dataclass(frozen=True)
class EndPath:
    """A shortest path to an end set: the path (start to end), which end set (`tag`) and
    whether the end is a stepped one."""

    path: Path
    tag: int
    stepped: bool = False
    origin: int = 0  # which of the starts asked about it leaves from

    @property
    def end(self) -> Point:
        return self.path.end


def path_to_ends(nav: Navigator, start: Point | Sequence[Point],
                 ends: Sequence[EndSet] | EndQuestion, *,
                 accept: Accept | None = None, bound: float = math.inf,
                 stepped: Sequence[EndSet] | None = None, step: float = STEP_SAMPLE,
                 certify: bool = True, path_accept: PathAccept | None = None,
                 fast: bool = True) -> EndPath | None:
    """Shortest legal path from `start` (or from the best of several starts) to a point of one
    of the end sets, shorter than `bound` (None if there is none). Exact for the shapes of
    `geom.endset`, up to the oval bounds of `Navigator` and the sample spacing of stepped ends
    (`error_bound`). Ends inside clearance zones are sought in `stepped` (default: the same
    sets; empty: none). A prepared `EndQuestion` (for the same navigator) may stand for the
    end sets. `path_accept` judges an end with the path that reaches it. With `fast`, a
    straight leg that decides the question is taken without a search
    (`geom.straight_legs.straight_first`; `fast=False`: always the search, the reference)."""
    raw = [start] if isinstance(start[0], int | float) else list(start)  # type: ignore[list-item]
    starts = [_xy(p) for p in raw]  # type: ignore[arg-type]
    if isinstance(ends, EndQuestion):
        q = ends
        q.check = accept
        q.path_check = path_accept
        ends = [t.ends for t in q.targets]
    else:
        q = EndQuestion(nav, ends, accept, path_accept) if not nav.unit.flying else \
            EndQuestion(nav, [])
    if nav.unit.flying:
        got = [(i, _flying(nav, p, ends, accept, bound)) for i, p in enumerate(starts)]
        best_f = min(((i, g) for i, g in got if g is not None), default=None,
                     key=lambda ig: ig[1].path.length)  # type: ignore[union-attr]
        return None if best_f is None else replace(best_f[1], origin=best_f[0])
    if q.empty:
        return None
    for i, p in enumerate(starts):
        for ti, t in enumerate(q.targets):
            if t.ends.contains(np.array([p]))[0] and (accept is None or accept(ti, p)) and (
                    path_accept is None or path_accept(t.ends, p, Path((p,), 0.0))):
                return EndPath(nav._finish(Path((p,), 0.0)), ti, origin=i)
    sq = q if stepped is None else EndQuestion(nav, stepped, accept, path_accept)
    if len(starts) > 1 and not sq.empty:  # stepped ends are sought from one start at a time
        each = [path_to_ends(nav, p, q, accept=accept, bound=bound, stepped=stepped, step=step,
                             certify=certify, path_accept=path_accept, fast=fast)
                for p in starts]
        pick = min(((i, e) for i, e in enumerate(each) if e is not None), default=None,
                   key=lambda ie: ie[1].path.length)  # type: ignore[union-attr]
        return None if pick is None else replace(pick[1], origin=pick[0])
    escapes = [(i, nav.escape(p)) for i, p in enumerate(starts)]
    valid = [(i, e) for i, e in escapes if e is not None]
    if not valid:
        return None
    firsts, offsets = [e[0] for _, e in valid], [e[1] for _, e in valid]
    real = {e[0]: starts[i] for i, e in valid}
    q.join = sq.join = lambda p: joined(real.get(p.start, p.start), p, None)
    decided, found = straight_first(nav.fs, q, firsts, offsets, bound) if fast else (False, None)
    if not decided:
        found = nav.search(firsts, offsets).ask(q, bound)
    best: EndPath | None = None
    if found is not None:
        i = valid[found.origin][0]
        best = EndPath(joined(starts[i], found.path, None), found.tag, origin=i)
    if not sq.empty:
        (i, (_, s_step)), = valid
        limit = best.path.length if best is not None else bound
        alt = _stepped(nav, nav.search(firsts, offsets), starts[i], s_step, sq, limit, accept,
                       step, path_accept)
        if alt is not None and (best is None or alt.path.length < best.path.length - EXACT_BOUND):
            best = alt
    if best is None:
        return None
    if not certify:
        return replace(best, path=nav._finish(best.path))
    windows = [t.window for t in q.targets]
    return replace(best, path=_certified(nav, best.path, starts[best.origin], ends, accept,
                                         windows, path_accept, fast))


def _certified(nav: Navigator, path: Path, start: Point, ends: Sequence[EndSet],
               accept: Accept | None, windows: Sequence[tuple[float, float, float, float]],
               path_accept: PathAccept | None = None, fast: bool = True) -> Path:
    """Oval bases among the obstacles: the same question on inscribed polygons bounds the
    error (`Navigator` docstring) — unless no oval comes near enough to matter: a shorter path
    would pass x with |start − x| + dist(x, ends) < the length found, and an oval's zone holds
    no such point when |start − core| + dist(core, window) − 2ρ is already longer."""
    if nav._inner_mode or not nav.inexact:
        return nav._finish(path)
    s = SPoint(start)
    wins = [sbox(*w) for w in windows]
    if all(o.exact or s.distance(o.core) + min(w.distance(o.core) for w in wins) - 2 * o.rho
           >= path.length + EXACT_BOUND for o in nav.fs.obstacles):
        return nav._finish(path)
    low = path_to_ends(nav.inner(), start, ends, accept=accept, stepped=(), certify=False,
                       path_accept=path_accept, fast=fast)
    bound = path.length - low.path.length if low is not None else math.inf
    return nav._finish(replace(path, error_bound=max(path.error_bound,
                                                     max(bound, 0.0) + EXACT_BOUND)))


def _flying(nav: Navigator, start: Point, ends: Sequence[EndSet], accept: Accept | None,
            bound: float) -> EndPath | None:
    """A flying mover goes straight: the nearest candidate end of any set."""
    best: tuple[float, int, Point] | None = None
    for ti, es in enumerate(ends):
        for e in itertools.islice(nearest_members(es, start), 2000):
            d = math.dist(start, (e[0], e[1]))
            if (best is not None and d >= best[0]) or d >= bound:
                break
            if accept is None or accept(ti, (float(e[0]), float(e[1]))):
                best = (d, ti, (float(e[0]), float(e[1])))
                break
    if best is None:
        return None
    d, ti, end = best
    path = Path((start, end), d, (Segment(start, end),), flying=True) if d > 0 else \
        Path((start,), 0.0, flying=True)
    return EndPath(nav._finish(path), ti)


# --------------------------------------------------------------------------- stepped ends

def _stepped(nav: Navigator, search: Search, start: Point, step0: float, q: EndQuestion,
             limit: float, accept: Accept | None, h: float = STEP_SAMPLE,
             path_accept: PathAccept | None = None) -> EndPath | None:
    """The best end inside a clearance zone (see the module docstring), if any beats
    `limit`."""
    fs = nav.fs
    best: EndPath | None = None
    for ti, t in enumerate(q.targets):
        pts, where = _boundary_samples(t, h)
        if not len(pts):
            continue
        inside = t.ends.contains(pts) & ~fs.points_clear(pts) & fs.in_rect(pts, fs.clearance)
        pts, where = pts[inside], where[inside]
        if not len(pts):
            continue
        for _ in range(STEP_REFINE + 1):
            got = _best_stepped(nav, search, start, step0, pts, ti, limit, accept, path_accept,
                                t.ends)
            if got is None:
                break
            i, ep = got
            if best is None or ep.path.length < best.path.length:
                best = replace(ep, path=replace(ep.path, error_bound=ep.path.error_bound + h))
                limit = min(limit, ep.path.length)
            # refine along the piece the best sample came from
            pts, where, h = _around(t, where[i], h)
            keep = t.ends.contains(pts) & ~fs.points_clear(pts)
            pts, where = pts[keep], where[keep]
            if not len(pts):
                break
    return best


def _best_stepped(nav: Navigator, search: Search, start: Point, step0: float, pts: Arr, ti: int,
                  limit: float, accept: Accept | None, path_accept: PathAccept | None = None,
                  es: EndSet | None = None) -> tuple[int, EndPath] | None:
    entries = []
    for i, e in enumerate(pts):
        esc = nav.escape((float(e[0]), float(e[1])))
        if esc is not None:
            entries.append((i, esc[0], esc[1]))
    if not entries:
        return None
    qs = np.array([x[1] for x in entries])
    steps = np.array([x[2] for x in entries])
    found = search.ask(FixedEnds(qs, steps), limit)
    if found is None:
        return None
    i, _, st = entries[found.tag]
    e = (float(pts[i, 0]), float(pts[i, 1]))
    if accept is not None and not accept(ti, e):
        return None
    p = joined(start, found.path, None)
    p = replace(p, points=(*p.points, e), pieces=(*p.pieces, Segment(p.end, e)),
                length=p.length + st)
    if path_accept is not None and es is not None and not path_accept(es, e, p):
        return None
    return i, EndPath(p, ti, stepped=True)


def _boundary_samples(t: _Target, h: float) -> tuple[Arr, NDArray[np.float64]]:
    """Points along the end set's boundary pieces, at spacing about h, with where they lie:
    (kind, piece index, parameter)."""
    pts: list[Arr] = []
    info: list[Arr] = []
    for i, (x, y, r) in enumerate(t.prims.circles):
        n = int(min(STEP_SAMPLES_MAX, max(8, math.ceil(2 * math.pi * r / h))))
        a = np.linspace(0, 2 * math.pi, n, endpoint=False)
        pts.append(np.column_stack((x + r * np.cos(a), y + r * np.sin(a))))
        info.append(np.column_stack((np.zeros(n), np.full(n, i), a)))
    for i, (x0, y0, x1, y1) in enumerate(t.prims.segments):
        L = math.hypot(x1 - x0, y1 - y0)
        n = int(min(STEP_SAMPLES_MAX, max(2, math.ceil(L / h) + 1)))
        u = np.linspace(0, 1, n)
        pts.append(np.column_stack((x0 + u * (x1 - x0), y0 + u * (y1 - y0))))
        info.append(np.column_stack((np.ones(n), np.full(n, i), u)))
    if not pts:
        return np.zeros((0, 2)), np.zeros((0, 3))
    return np.vstack(pts), np.vstack(info)


def _around(t: _Target, where: Arr, h: float) -> tuple[Arr, NDArray[np.float64], float]:
    kind, i, par = int(where[0]), int(where[1]), float(where[2])
    n = 41
    if kind == 0:
        x, y, r = t.prims.circles[i]
        a = par + np.linspace(-h / r, h / r, n)
        pts = np.column_stack((x + r * np.cos(a), y + r * np.sin(a)))
        info = np.column_stack((np.zeros(n), np.full(n, i), a))
    else:
        x0, y0, x1, y1 = t.prims.segments[i]
        L = max(math.hypot(x1 - x0, y1 - y0), 1e-12)
        u = np.clip(par + np.linspace(-h / L, h / L, n), 0, 1)
        pts = np.column_stack((x0 + u * (x1 - x0), y0 + u * (y1 - y0)))
        info = np.column_stack((np.ones(n), np.full(n, i), u))
    return pts, info, 2 * h / (n - 1)


def stepped_needed(nav: Navigator, lead: Model, sets: Sequence[EndSet]) -> bool:
    """Can a legal end lie inside a clearance zone? Only when the base is narrower than the
    clearance (the gap rule then keeps the centre further from a wall or a base than the base
    itself reaches), or near the edge of a top (a base may overhang it, FAQ)."""
    if min(lead.base.a, lead.base.b) < nav.fs.clearance - 1e-9:
        return True
    windows = [w for es in sets if (w := es.window()) is not None]
    return any(o.kind == "edge" and any(o.core.distance(sbox(*w)) < o.rho for w in windows)
               for o in nav.fs.obstacles)


# --------------------------------------------------------------------------- polygon regions

def path_to_region(nav: Navigator, start: Point, region: BaseGeometry) -> Path | None:
    """Shortest legal path from `start` to the nearest point of `region`, a polygon of legal
    END positions for the centre (ends where the mover's base would cross an obstacle itself
    are not offered)."""
    if region is None or region.is_empty:
        return None
    t = nav.bf.table
    r = max(m.base.a for m in nav.unit.models)
    fs = nav.fs
    excl: list[Shape] = []
    closed: list[bool] = []
    if not nav.unit.flying and len(fs.obstacles):
        # a base sitting on a wall, another base or across a top's edge is no end, whatever
        # the region says (only reachable by a stepped end, inside a clearance zone)
        for j in fs.tree.query(region, predicate="dwithin", distance=fs.rho_max + r):
            grow = (float(fs.rho[j]) - fs.clearance if fs.cores[j].geom_type == "Point"
                    else 0.0)
            excl.append(Grown(fs.cores[j], grow + r))
            closed.append(False)
    plain = EndSet((0.0, 0.0, t.width, t.depth), [[Grown(region, 0.0)]])
    hard = EndSet((r, r, t.width - r, t.depth - r), [[Grown(region, 0.0)]], excl, closed)
    got = path_to_ends(nav, start, [plain], stepped=[hard])
    return got.path if got is not None else None


