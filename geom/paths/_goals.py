"""The question "shortest legal path to any of these end sets", as a search asks it (rulebook
§4.3, §8.5.3, §8.7.7: a charge is measured along the real path to the nearest legal end).

The last leg of a shortest path to a set E leaves the start, or leaves a corner circle
tangentially, and stops at a point of E's boundary where moving the end along the boundary
cannot shorten it: where the leg meets a boundary piece square (the foot of a perpendicular
on a segment; on a circle, the point on the line through its centre; on a convex curve, where
its normal points back along the leg), or at a vertex where two boundary pieces cross, or
where the corner circle itself enters E (a leg of length 0). E's boundary lies on the
boundaries of its shapes and of the free space (`geom.paths._endset`), so every such point is computed
in closed form, for the start and for every corner circle the search reaches, and offered to
the search (`geom.paths._search`) as a terminal.

A question narrowed by more shapes (`EndQuestion.narrowed`: "within d of the targets") keeps
what its parent found — pieces, crossings, corner-circle legs — and adds only what the new
shapes bring; under a bound it asks only about the ends a path under it can reach.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from shapely.geometry import box as sbox

from ..model import Point
from ..tolerance import WINDOW_MARGIN
from ._circles import in_cone
from ._crossings import cross_vertices, feet, legs_from_circle, ray_legs, vertices
from ._end_shapes import Arr, Disc, Shape
from ._endset import EndSet, Primitives, box_primitives, clip, grown_primitives, shape_primitives
from ._navigator import Navigator
from ._path import Path
from ._search import KeptQuestion, Search, Terminals

Accept = Callable[[int, Point], bool]
PathAccept = Callable[[EndSet, Point, Path], bool]  # an end of a set, judged with its path


@dataclass
class EndTarget:
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
    # `geom.paths._region_path`: the boundary samples that may be stepped ends, by spacing
    # (with the free space they were judged in); they depend on neither the start nor the bound
    stepped: dict[float, tuple[object, Arr, Arr]] = field(default_factory=dict)

    @property
    def rays(self) -> Arr:
        return self.ends.rays


class EndQuestion(KeptQuestion):
    """The question "shortest path to any of these end sets" (see the module docstring).
    `accept(tag, end)` may reject an end after all (an exact re-check); `path_accept(set,
    end, path)` judges an end of that set with the path from the real start (`join` makes that
    path of the search's)."""

    def __init__(self, nav: Navigator, ends: Sequence[EndSet], accept: Accept | None = None,
                 path_accept: PathAccept | None = None) -> None:
        super().__init__()
        self.nav = nav
        self.fs = nav.fs
        self.targets: list[EndTarget] = []
        self.check = accept
        self.path_check = path_accept
        self.join: Callable[[Path], Path] = lambda p: p
        self._kept: dict[object, EndQuestion] = {}
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
            self.targets.append(EndTarget(es, w, p, self._members(es, raw), raw))

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
            own = clip(t.prims, w, WINDOW_MARGIN)
            more = extra if within is None else clip(extra, w, WINDOW_MARGIN)
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
            q.targets.append(EndTarget(es, w, p, np.vstack([kept, ends]),
                                     np.vstack([t.crossings, fresh]), ti, more, ends))
        return q

    def _free_space_pieces(self, w: tuple[float, float, float, float]) -> Primitives:
        """The boundary of the free space near the window: offsets of obstacle cores."""
        fs = self.fs
        p = box_primitives(fs.rect)
        if len(fs.obstacles):
            for j in fs.tree.query(sbox(*w), predicate="dwithin", distance=fs.rho_r_max):
                p.extend(grown_primitives(fs.cores[j], float(fs.rho[j])))
                if fs.two_clearances:  # the base zones bound it too (geom.paths._gaps)
                    p.extend(grown_primitives(fs.cores[j], float(fs.rho_r[j])))
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


def _in_box(pts: Arr, w: tuple[float, float, float, float], margin: float = WINDOW_MARGIN) -> Arr:
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
    r = bound + WINDOW_MARGIN
    return (start[0] - r, start[1] - r, start[0] + r, start[1] + r)
