"""One search from a start answers every path question about it (rulebook §4.3, §8.5.3,
§8.7.7: moves and charges are measured along the shortest legal path).

`Search` is Dijkstra's algorithm (A* when a question gives a lower bound) on the lazy tangent
graph (`geom.paths._navgraph.LazyGraph`). A question is a set of *terminals*: ends the path may stop
at, each reached by a last straight leg — from the start, or leaving a corner circle
tangentially at a given angle (`Terminals`). The search settles graph nodes in order of cost;
tangent segments and last legs are tested for clearance only when they come off the heap, so
edges a search never gets to are never tested. The first terminal to come off the heap with a
clear leg (and passing the question's own check) is the cheapest: with a lower bound that never
overestimates and never drops by more than the distance moved (a distance to a set does
neither), A* settles nodes with their true cost. The check sees the path, so a question may
accept an end for the way it is reached (an end legal once the path has trampled GRASS).

Nodes settled for one question stay settled for the next question from the same start, so a
charge asks for its end, its base-contact end and its "as close as possible" end from one
search.

Guarantee: the answer is the exact shortest path to the terminals offered, up to floating point
(tangent points, arcs and legs are closed forms; clearance tolerance `geom.paths._freespace.CLEAR_TOL`).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from ..model import Point
from ..tolerance import FULL_TURN_SLACK, ZERO_LENGTH
from ._circles import TWO_PI, in_cone
from ._end_shapes import Arr
from ._navgraph import LazyGraph, point_tangents
from ._path import Arc, Path, Piece, Segment, polyline

START = -1           # start i has key START − i
MAX_STARTS = 64
_QBASE = 100          # start tangents: key −(_QBASE + (2k + t)·MAX_STARTS + i)
_TBASE = 1 << 50      # terminals: key −(_TBASE + batch · _TSTRIDE + index)
_TSTRIDE = 1 << 24
# legs a question tests one run at a time; after that many (no answer yet: it may well test
# them all, a search with no legal end does) a run tests every untested leg of its terminal sets
PREFETCH_AFTER = 512
SEG, ARC, TERM = 0, 1, 2

LowerBound = Callable[[float, float], float]


def _row_ids(a: NDArray[np.int64]) -> NDArray[np.int64]:
    """An id for each row of a, the same for equal rows (0, 1, … in sorted order)."""
    n = len(a)
    if not n:
        return np.zeros(0, dtype=np.int64)
    o = np.lexsort(a.T[::-1])
    s = a[o]
    new = np.ones(n, dtype=bool)
    new[1:] = (s[1:] != s[:-1]).any(axis=1)
    ids = np.empty(n, dtype=np.int64)
    ids[o] = np.cumsum(new) - 1
    return ids


def is_start(key: int) -> bool:
    return START - MAX_STARTS < key <= START


@dataclass
class Terminals:
    """Candidate ends, each with its last leg: `dep` is where the leg starts (the start point,
    or a point on corner circle `circle` at relative angle `dep_rel`), `end` where it ends,
    `extra` what the path costs after the leg (a step into a clearance zone, 0 mostly). `tag`
    is the question's own label for each end."""

    dep: Arr
    end: Arr
    extra: Arr
    tag: NDArray[np.int64]
    circle: int = -1
    dep_rel: Arr = field(default_factory=lambda: np.zeros(0))
    origin: NDArray[np.int64] | None = None  # legs from the starts: which start
    # what the searches on graph `legs_of` found of each distinct last leg (0: not tested
    # yet, 1: clear, −1: blocked), terminal i's leg being `leg_of[i]` (the ends of several
    # sets share legs): a leg is a fixed segment, so a terminal offered again (from the other
    # node beside it, by another start's search, by the next question, for another set) is
    # never tested again, and a blocked one is not put on the heap again
    legs: NDArray[np.int8] | None = None
    legs_of: object = None
    leg_of: NDArray[np.int64] | None = None
    # False for a terminal with a twin after it (the same leg, set, extra cost and start): the
    # twin always comes off the heap just before it, at the same cost by the same way, and is
    # judged the same, so it alone is pushed (crossing points often repeat: many pieces cross
    # at one vertex)
    lead: NDArray[np.bool_] | None = None
    leg_row: NDArray[np.int64] | None = None  # a terminal of each leg (`Search._untested`)

    def __len__(self) -> int:
        return len(self.end)


class Question:
    """What a search is asked: which terminals there are, a lower bound on the cost still to
    come from a point, and a final check of a terminal (default: accept)."""

    def start_terminals(self, s: Search) -> Terminals | None:
        return self.start_terminals_at(s.starts)

    def start_terminals_at(self, starts: Sequence[Point]) -> Terminals | None:
        """The legs straight from the starts (start i: origin i)."""
        return None

    def circle_terminals(self, s: Search, k: int) -> Terminals | None:
        return None

    def lower_bound(self, x: float, y: float) -> float:
        return 0.0

    def lower_bounds(self, xy: Arr) -> Arr:
        """`lower_bound` at many points (n, 2) at once."""
        return np.array([self.lower_bound(float(x), float(y)) for x, y in xy])

    def reach_bound(self, x: float, y: float) -> float:
        """A lower bound on the cost still to come from a point, for deciding which corner
        circles are worth placing terminals on (not for ordering the heap: it may be dearer
        to compute than `lower_bound`, and tighter)."""
        return self.lower_bound(x, y)

    def bound_key(self) -> object:
        """Equal for questions with the same `lower_bound` (None: never assumed equal)."""
        return ("none",) if type(self).lower_bound is Question.lower_bound else None

    def accept(self, s: Search | None, t: Terminals, i: int, path: Path) -> bool:
        """A last check of terminal i, given the path that reaches it."""
        return True


STARTS_KEPT = 64  # sets of starts whose legs a kept question keeps


class KeptQuestion(Question):
    """A question whose ends never change, asked again by the next search (another leading
    model, the next charge on the table): the legs from each set of starts, and the terminals
    leaving each corner circle of one graph, depend on the question alone, so each is worked
    out once (`_start_terminals`, `_circle_terminals`) and kept with the question."""

    def __init__(self) -> None:
        self._from: dict[tuple[Point, ...], Terminals | None] = {}
        self._circles_of: object = None
        self._circles: dict[int, Terminals | None] = {}

    def start_terminals_at(self, starts: Sequence[Point]) -> Terminals | None:
        key = tuple((float(p[0]), float(p[1])) for p in starts)
        if key in self._from:
            return self._from[key]
        if len(self._from) >= STARTS_KEPT:
            self._from.clear()
        got = self._from[key] = self._start_terminals(key)
        return got

    def _start_terminals(self, starts: Sequence[Point]) -> Terminals | None:
        return None

    def circle_terminals(self, s: Search, k: int) -> Terminals | None:
        if self._circles_of is not s.graph:
            self._circles_of, self._circles = s.graph, {}
        if k not in self._circles:
            self._circles[k] = self._circle_terminals(s, k)
        return self._circles[k]

    def _circle_terminals(self, s: Search, k: int) -> Terminals | None:
        return None


@dataclass
class _View:
    """A corner circle as one search sees it: the graph's tangent points plus the start's."""

    rel: Arr
    key: NDArray[np.int64]
    xy: Arr
    partner: NDArray[np.int64]
    pxy: Arr
    pcircle: NDArray[np.int64]
    prel: Arr
    length: Arr
    free_next: NDArray[np.bool_]
    pos: dict[int, int]
    full: bool
    terms: Terminals | None = None
    ti: int = -1
    # the terminals between node i and node i + 1 (i = −1: before node 0) are
    # order[ptr[i + 1]:ptr[i + 2]], by_interval = (order, ptr); None: no terminals
    by_interval: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None
    # the last terminals placed between this circle's nodes (the nodes never change)
    placed: Terminals | None = None
    placed_ti: int = -1
    placed_by: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None
    ptr_list: list[int] | None = None  # by_interval's ptr as a list (for single nodes)
    ptr_of: NDArray[np.int64] | None = None


@dataclass
class _Batch:
    """Terminals pushed together, sorted by cost; `next`: the first not yet on the heap."""

    cost: list[float]
    key: list[int]
    pred: list[int]
    sweep: list[float]
    ti: int
    legs: NDArray[np.int8]  # the batch's Terminals' `legs` and `leg_of`: a terminal whose
    leg_of: NDArray[np.int64]  # leg is found blocked is skipped
    next: int = 0


@dataclass(frozen=True)
class Found:
    """The answer to a question: the terminal's batch and index, its cost and its path."""

    cost: float
    terminals: Terminals
    index: int
    path: Path
    origin: int = 0  # which start the path leaves from

    @property
    def end(self) -> Point:
        e = self.terminals.end[self.index]
        return (float(e[0]), float(e[1]))

    @property
    def tag(self) -> int:
        return int(self.terminals.tag[self.index])


class Search:
    """Shortest legal paths from one start on one lazy graph (see the module docstring)."""

    def __init__(self, graph: LazyGraph, start: Point | Sequence[Point],
                 offsets: Sequence[float] | None = None) -> None:
        """A search from one start, or from several at once (each with a cost already spent
        getting there, `offsets`): the answers then say which start they leave from."""
        self.graph = graph
        self.C = graph.C
        pts = [start] if isinstance(start[0], int | float) else list(start)  # type: ignore[list-item]
        self.starts = [(float(p[0]), float(p[1])) for p in pts]  # type: ignore[index]
        if len(self.starts) > MAX_STARTS:
            raise ValueError(f"at most {MAX_STARTS} starts")
        self.offsets = [0.0] * len(self.starts) if offsets is None else [float(o) for o in offsets]
        self.start = self.starts[0]
        self.cost: dict[int, float] = {START - i: self.offsets[i]
                                       for i in range(len(self.starts))}
        self.pred: dict[int, tuple[int, int, float]] = {}  # key → (pred key, kind, sweep)
        self.xy: dict[int, tuple[float, float]] = {START - i: p
                                                   for i, p in enumerate(self.starts)}
        self.where: dict[int, tuple[int, float]] = {}  # key → (circle, rel)
        self._best: dict[int, float] = {}
        # graph nodes, keyed by cost + the question's lower bound; and the terminals of the
        # question being asked (popped together in one order: the smaller head first)
        self._heap: list[tuple[float, float, int, int, int, float, int]] = []
        # the terminals: the head of each batch (`_push_terms`), as (cost, cost, key, pred,
        # TERM, sweep, batch of Terminals, batch of entries)
        self._theap: list[tuple[float, float, int, int, int, float, int, int]] = []
        self._batches: list[_Batch] = []
        self._bound_key: object = None
        self._views: dict[int, _View] = {}
        self._settled_on: dict[int, list[int]] = {}
        self._q: Question = Question()
        self._bound = math.inf
        self._reaching = 0.0
        self._tested = 0  # legs tested for the question being asked
        self._terms: list[Terminals] = []
        self._term_of: dict[int, tuple[int, int]] = {}
        for i in range(len(self.starts)):
            for key, d in self._attach_start(i):
                self._push(key, self.offsets[i] + d, START - i, SEG, 0.0)

    # ---- the start ---------------------------------------------------------------------------
    def _attach_start(self, si: int) -> list[tuple[int, float]]:
        C, fs, arcs = self.C, self.graph.fs, self.graph.arcs
        if si == 0:
            self._qnodes: dict[int, list[tuple[float, int, float, float, float, int]]] = {}
        if not len(C):
            return []
        start = self.starts[si]
        k, th, pts = point_tangents(C, start)
        ok, rel = in_cone(C, k, th)
        ok &= fs.in_rect(pts)
        idx = np.nonzero(ok)[0]
        ok[idx] &= arcs.point_free(k[idx], rel[idx])
        out: list[tuple[int, float]] = []
        n = len(k) // 2
        for i in np.nonzero(ok)[0]:
            kk = int(k[i])
            key = -(_QBASE + (2 * kk + (0 if i < n else 1)) * MAX_STARTS + si)
            d = math.hypot(pts[i, 0] - start[0], pts[i, 1] - start[1])
            self.xy[key] = (float(pts[i, 0]), float(pts[i, 1]))
            self.where[key] = (kk, float(rel[i]))
            self._qnodes.setdefault(kk, []).append((float(rel[i]), key, float(pts[i, 0]),
                                                    float(pts[i, 1]), d, si))
            out.append((key, d))
        return out

    # ---- the heap ----------------------------------------------------------------------------
    def _push(self, key: int, g: float, pred: int, kind: int, sweep: float, tag: int = 0
              ) -> None:
        """A graph node (SEG or ARC) onto the heap; terminals go through `_push_terms`."""
        if key in self.cost:
            return
        # a tangent segment not yet known to be clear may turn out blocked when popped,
        # so only entries known to be valid may shadow later, dearer ones
        if g >= self._best.get(key, math.inf):
            return
        if kind == ARC or (kind == SEG and not is_start(pred)
                           and self.graph.clear_known.get(key >> 1) is True):
            self._best[key] = g
        x, y = self.xy[key]
        f = g + self._q.lower_bound(x, y)
        heapq.heappush(self._heap, (f, g, key, pred, kind, sweep, tag))

    def _view(self, k: int) -> _View:
        v = self._views.get(k)
        if v is not None:
            return v
        nd = self.graph.nodes(k)
        q = self._qnodes.get(k, [])
        rel, key, xy = nd.rel, nd.key, nd.xy
        partner, pxy, pc, prel, length = nd.partner, nd.pxy, nd.pcircle, nd.prel, nd.length
        if q:
            qa = np.array(q)
            rel = np.concatenate([rel, qa[:, 0]])
            key = np.concatenate([key, qa[:, 1].astype(np.int64)])
            xy = np.vstack([xy, qa[:, 2:4]])
            partner = np.concatenate([partner, START - qa[:, 5].astype(np.int64)])
            pxy = np.vstack([pxy, np.array([self.starts[int(x)] for x in qa[:, 5]])])
            pc = np.concatenate([pc, np.full(len(q), -1)])
            prel = np.concatenate([prel, np.zeros(len(q))])
            length = np.concatenate([length, qa[:, 4]])
            o = np.argsort(rel, kind="stable")
            rel, key, xy, partner = rel[o], key[o], xy[o], partner[o]
            pxy, pc, prel, length = pxy[o], pc[o], prel[o], length[o]
        C, arcs = self.C, self.graph.arcs
        full = bool(C.span[k] >= TWO_PI - FULL_TURN_SLACK)
        n = len(rel)
        free = np.zeros(n, dtype=bool)
        if n > 1:
            kk = np.full(n - 1, k)
            free[:-1] = arcs.arc_free(kk, rel[:-1], rel[1:])
            if full:
                free[-1] = bool(arcs.wrap_free(np.array([k]), rel[-1:], rel[:1])[0])
        v = _View(rel, key, xy, partner, pxy, pc, prel, length, free,
                  {int(x): i for i, x in enumerate(key)}, full)
        self._views[k] = v
        self._add_circle_terms(k, v, self._reaching)
        return v

    def _add_circle_terms(self, k: int, v: _View, cost: float = 0.0) -> None:
        if not self._worth(k, cost):
            v.terms, v.by_interval = None, None
            return
        t = self._q.circle_terminals(self, k)
        if t is not None and t is v.placed:  # a kept question's terminals, placed already
            v.terms, v.by_interval, v.ti = t, v.placed_by, v.placed_ti
            return
        v.terms, v.by_interval = t, None
        if t is None or not len(t) or not len(v.rel):
            return
        v.ti = self._register(t)
        n = len(v.rel)
        iv = np.searchsorted(v.rel, t.dep_rel, side="right") - 1
        if v.full:
            iv = np.where(iv < 0, n - 1, iv)
        # interval −1: before the first node of a partial circle (reached from node 0 back)
        order = np.argsort(iv, kind="stable")
        ptr = np.zeros(n + 2, dtype=np.int64)
        np.cumsum(np.bincount(iv + 1, minlength=n + 1), out=ptr[1:])
        v.by_interval = (order, ptr)
        v.placed, v.placed_ti, v.placed_by = t, v.ti, v.by_interval

    def _legs(self, t: Terminals
              ) -> tuple[NDArray[np.int8], NDArray[np.int64], NDArray[np.bool_]]:
        """What is known of t's last legs on this search's graph, which leg each terminal's
        is, and which terminals are pushed (`Terminals.legs`, `leg_of`, `lead`)."""
        if t.leg_of is None or t.lead is None:  # bit for bit the same ends: the same segment
            n = len(t)
            t.leg_of = _row_ids(np.ascontiguousarray(np.hstack([t.dep, t.end])).view(np.int64))
            origin = t.origin if t.origin is not None else np.zeros(n, dtype=np.int64)
            twin = _row_ids(np.column_stack([t.leg_of, t.tag, origin,
                                             np.ascontiguousarray(t.extra).view(np.int64)]))
            last = np.full(int(twin.max()) + 1 if n else 0, -1, dtype=np.int64)
            np.maximum.at(last, twin, np.arange(n))  # the heap takes the larger index first
            t.lead = np.zeros(n, dtype=bool)
            t.lead[last] = True
        if t.legs is None or t.legs_of is not self.graph:
            n = int(t.leg_of.max()) + 1 if len(t.leg_of) else 0
            t.legs, t.legs_of = np.zeros(n, dtype=np.int8), self.graph
        return t.legs, t.leg_of, t.lead

    def _register(self, t: Terminals) -> int:
        self._terms.append(t)
        return len(self._terms) - 1

    # ---- settling ----------------------------------------------------------------------------
    def _expand(self, key: int, g: float) -> None:
        k, _ = self.where[key]
        self._reaching = g
        v = self._view(k)
        i = v.pos[key]
        n = len(v.rel)
        r = float(self.C.r[k])
        self._settled_on.setdefault(k, []).append(key)
        if r == 0.0 and v.full and bool(v.free_next.all()):
            self._expand_point(key, g, v)
            return
        for j, sweep, free in self._neighbours(v, i, n):
            if free:
                nk = int(v.key[j])
                self.xy.setdefault(nk, (float(v.xy[j, 0]), float(v.xy[j, 1])))
                self.where.setdefault(nk, (k, float(v.rel[j])))
                self._push(nk, g + r * abs(sweep), key, ARC, sweep)
        pk = int(v.partner[i])
        if not is_start(pk):
            self.xy.setdefault(pk, (float(v.pxy[i, 0]), float(v.pxy[i, 1])))
            self.where.setdefault(pk, (int(v.pcircle[i]), float(v.prel[i])))
            self._push(pk, g + float(v.length[i]), key, SEG, 0.0)
        self._push_circle_terms(k, v, i, g)

    def _expand_point(self, key: int, g: float, v: _View) -> None:
        """A pinch point (a circle of radius 0, free all round): turning there costs nothing,
        so reaching one of its nodes settles them all at once, and every tangent leaving it is
        pushed together — one by one, each node would go through the heap at the same cost."""
        k = self.where[key][0]
        settled = self._settled_on[k]
        cost, pred, xy, where = self.cost, self.pred, self.xy, self.where
        done = [v.pos[key]]
        for j in range(len(v.rel)):
            nk = int(v.key[j])
            if nk in cost:
                continue
            xy.setdefault(nk, (float(v.xy[j, 0]), float(v.xy[j, 1])))
            where.setdefault(nk, (k, float(v.rel[j])))
            cost[nk] = g
            pred[nk] = (key, ARC, 0.0)
            settled.append(nk)
            done.append(j)
        for j in done:
            pk = int(v.partner[j])
            if not is_start(pk):
                xy.setdefault(pk, (float(v.pxy[j, 0]), float(v.pxy[j, 1])))
                where.setdefault(pk, (int(v.pcircle[j]), float(v.prel[j])))
                self._push(pk, g + float(v.length[j]), int(v.key[j]), SEG, 0.0)
        nodes = np.sort(np.asarray(done, dtype=np.int64))
        self._push_circle_terms(k, v, nodes, np.full(len(nodes), g))

    def _neighbours(self, v: _View, i: int, n: int) -> list[tuple[int, float, bool]]:
        out: list[tuple[int, float, bool]] = []
        if n < 2:
            return out
        if i + 1 < n:
            out.append((i + 1, float(v.rel[i + 1] - v.rel[i]), bool(v.free_next[i])))
        elif v.full:
            out.append((0, float(TWO_PI - v.rel[i] + v.rel[0]), bool(v.free_next[n - 1])))
        if i > 0:
            out.append((i - 1, -float(v.rel[i] - v.rel[i - 1]), bool(v.free_next[i - 1])))
        elif v.full:
            out.append((n - 1, -float(TWO_PI - v.rel[n - 1] + v.rel[0]),
                        bool(v.free_next[n - 1])))
        return out

    def _push_circle_terms(self, k: int, v: _View, i: int | NDArray[np.int64], g: float | Arr
                           ) -> None:
        """Push the terminals on circle k next to settled nodes i (costs g): those between a
        node and its neighbours (any path to them along the circle passes one of the two)."""
        t = v.terms
        if t is None or v.by_interval is None:
            return
        order, ptr = v.by_interval
        n = len(v.rel)
        if isinstance(i, int):  # one node (most calls): no terminals beside it, no numpy
            pl = v.ptr_list if v.ptr_list is not None and v.ptr_of is ptr else self._ptr_list(v)
            b = i - 1 if i > 0 else (n - 1 if v.full else -1)
            if pl[i + 2] == pl[i + 1] and pl[b + 2] == pl[b + 1]:
                return
        nodes = np.atleast_1d(np.asarray(i, dtype=np.int64))
        costs = np.broadcast_to(np.asarray(g, dtype=float), nodes.shape)
        # each node with the interval ahead of it (forward) and the one behind it
        behind = np.where(nodes > 0, nodes - 1, n - 1 if v.full else -1)
        ivs = np.concatenate([nodes, behind]) + 1
        cnt = ptr[ivs + 1] - ptr[ivs]
        total = int(cnt.sum())
        if not total:
            return
        rep = np.repeat(np.arange(len(ivs)), cnt)
        first = np.cumsum(cnt) - cnt
        idx = order[ptr[ivs[rep]] + np.arange(total) - first[rep]]
        m = len(nodes)
        node = np.concatenate([nodes, nodes])[rep]
        forward = rep < m
        cost = np.concatenate([costs, costs])[rep]
        dep = t.dep_rel[idx]
        ra = v.rel[node]
        kk = np.full(len(idx), k)
        arcs = self.graph.arcs
        # counter-clockwise from the node (through 2π on a full circle), or clockwise
        wrap = np.where(forward, dep < ra, dep > ra)
        sweep = np.where(forward, np.where(wrap, dep + TWO_PI - ra, dep - ra),
                         -np.where(wrap, ra + TWO_PI - dep, ra - dep))
        lo = np.where(forward, ra, dep)
        hi = np.where(forward, dep, ra)
        if wrap.any():
            free = np.where(wrap, arcs.wrap_free(kk, lo, hi),
                            arcs.arc_free(kk, np.minimum(lo, hi), np.maximum(lo, hi)))
        else:  # no arc through 2π (the common case): lo ≤ hi throughout
            free = arcs.arc_free(kk, lo, hi)
        leg = np.hypot(*(t.end[idx] - t.dep[idx]).T)
        tot = cost + float(self.C.r[k]) * np.abs(sweep) + leg + t.extra[idx]
        legs, leg_of, lead = self._legs(t)
        j = np.nonzero(free & (tot < self._bound) & (legs[leg_of[idx]] >= 0) & lead[idx])[0]
        self._push_terms(tot[j], -(_TBASE + v.ti * _TSTRIDE + idx[j]), v.key[node[j]],
                         sweep[j], v.ti)

    @staticmethod
    def _ptr_list(v: _View) -> list[int]:
        assert v.by_interval is not None
        v.ptr_of = v.by_interval[1]
        v.ptr_list = v.ptr_of.tolist()
        return v.ptr_list

    def _push_terms(self, cost: Arr, keys: NDArray[np.int64], preds: NDArray[np.int64],
                    sweeps: Arr, ti: int) -> None:
        """Terminals onto the heap at once (a terminal's priority is its cost): sorted as the
        heap orders them, they wait in a batch of their own with only the cheapest on the heap
        (`_pop_term` puts the next one on) — most are never reached, so never made entries."""
        if not len(cost):
            return
        o = np.lexsort((keys, cost))  # the heap's order: cost, then key (unique)
        b = _Batch(cost[o].tolist(), keys[o].tolist(), preds[o].tolist(), sweeps[o].tolist(),
                   ti, *self._legs(self._terms[ti])[:2])
        self._batches.append(b)
        self._refill(b, len(self._batches) - 1)

    def _refill(self, b: _Batch, bi: int) -> None:
        i, n, legs, leg_of = b.next, len(b.cost), b.legs, b.leg_of
        # a terminal whose leg was found blocked since it was batched (from the other node
        # beside it, say) could only come off the heap to be dropped
        base = -_TBASE - b.ti * _TSTRIDE
        while i < n and legs[leg_of[base - b.key[i]]] < 0:
            i += 1
        if i < n:
            b.next = i + 1
            c = b.cost[i]
            heapq.heappush(self._theap, (c, c, b.key[i], b.pred[i], TERM, b.sweep[i], b.ti, bi))

    def _pop_term(self) -> tuple[float, float, int, int, int, float, int, int]:
        """The cheapest terminal waiting, the next of its batch put on the heap."""
        e = heapq.heappop(self._theap)
        self._refill(self._batches[e[7]], e[7])
        return e

    def ask(self, q: Question, bound: float = math.inf) -> Found | None:
        """The cheapest terminal of question `q` costing less than `bound`, or None."""
        self._q = q
        self._theap, self._batches = [], []
        self._tested = 0
        bk = q.bound_key()
        if bk is None or bk != self._bound_key:  # the frontier, re-keyed with q's lower bound
            cost = self.cost
            left = [e for e in self._heap if e[2] not in cost]
            if left:
                xy = self.xy
                f = (np.array([e[1] for e in left])
                     + q.lower_bounds(np.array([xy[e[2]] for e in left]))).tolist()
                left = [(fi, *e[1:]) for fi, e in zip(f, left, strict=True)]
            heapq.heapify(left)
            self._heap = left
            self._bound_key = bk
        self._bound = bound
        st = q.start_terminals(self)
        if st is not None and len(st):
            ti = self._register(st)
            origin = st.origin if st.origin is not None else np.zeros(len(st), dtype=np.int64)
            leg = np.hypot(*(st.end - st.dep).T) + st.extra
            tot = np.asarray(self.offsets)[origin] + leg
            # dearer ones could only come off after the bound; a known blocked leg never wins
            legs, leg_of, lead = self._legs(st)
            m = np.nonzero((tot < bound) & (legs[leg_of] >= 0) & lead)[0]
            self._push_terms(tot[m], -(_TBASE + ti * _TSTRIDE + m), START - origin[m],
                             np.zeros(len(m)), ti)
        for k, v in self._views.items():
            keys = self._settled_on.get(k, [])
            reached = min((self.cost[x] for x in keys), default=math.inf)
            if not keys or not self._worth(k, reached):
                v.terms, v.by_interval = None, None
                continue
            self._add_circle_terms(k, v, reached)
            pos = np.array([v.pos[x] for x in keys], dtype=np.int64)
            order = np.argsort(pos)
            self._push_circle_terms(k, v, pos[order],
                                    np.array([self.cost[x] for x in keys])[order])
        return self._run(bound)

    def _worth(self, k: int, cost: float) -> bool:
        """Could a leg leaving circle k, reached at `cost`, end under the bound?"""
        C = self.C
        return cost + max(0.0, self._q.reach_bound(float(C.x[k]), float(C.y[k])) - C.r[k]) \
            < self._bound

    def settle(self, bound: float) -> None:
        """Settle every node cheaper than `bound` (no terminals)."""
        self.ask(Question(), bound)

    def _run(self, bound: float) -> Found | None:
        heap, theap, graph = self._heap, self._theap, self.graph
        while heap or theap:
            src = theap if theap and (not heap or theap[0] < heap[0]) else heap
            if src[0][0] >= bound:
                return None
            if src is theap:
                found = self._terminal_run(self._pop_term(), bound)
                if found is not None:
                    return found
                continue
            f, g, key, pred, kind, sweep, tag = heapq.heappop(heap)
            if key in self.cost:
                continue
            if kind == SEG:
                p = np.asarray(self.xy[pred])
                q = np.asarray(self.xy[key])
                if is_start(pred):
                    ok = bool(graph.fs.segments_clear(p[None, :], q[None, :])[0])
                else:
                    ok = graph.segment_clear(key >> 1, p, q)
                if not ok:
                    continue
            self.cost[key] = g
            self.pred[key] = (pred, kind, sweep)
            self._expand(key, g)
        return None

    def _terminal_run(self, first: tuple[float, float, int, int, int, float, int, int],
                      bound: float) -> Found | None:
        """Terminals that come off the heap one after another are tested together (their
        legs in one clearance query); the first clear, accepted one in heap order wins."""
        heap, theap = self._heap, self._theap
        run = [first]
        while theap and theap[0][0] < bound and (not heap or theap[0] < heap[0]) \
                and len(run) < 256:
            run.append(self._pop_term())
        terms = [self._terms[e[6]] for e in run]
        index = [-e[2] - _TBASE - e[6] * _TSTRIDE for e in run]
        known = [self._legs(t) for t in terms]
        leg = [int(of[m]) for (_, of, _), m in zip(known, index, strict=True)]
        state = [int(legs[k]) for (legs, _, _), k in zip(known, leg, strict=True)]
        todo = [n for n, s in enumerate(state) if s == 0]
        if todo:  # only the legs no search of this graph has tested yet
            dep = [terms[n].dep[index[n]] for n in todo]
            end = [terms[n].end[index[n]] for n in todo]
            more = self._untested([terms[n] for n in todo]) \
                if self._tested >= PREFETCH_AFTER else []
            for t, rows in more:
                dep.extend(t.dep[rows])
                end.extend(t.end[rows])
            clear = self.graph.legs_clear(np.array(dep), np.array(end)).tolist()
            self._tested += len(clear)
            for n, c in zip(todo, clear[:len(todo)], strict=True):
                known[n][0][leg[n]] = state[n] = 1 if c else -1
            at = len(todo)
            for t, rows in more:
                legs, leg_of, _ = self._legs(t)
                legs[leg_of[rows]] = np.where(np.array(clear[at:at + len(rows)]), 1, -1)
                at += len(rows)
        for hit in [n for n, s in enumerate(state) if s == 1]:
            _, g, _, pred, _, sweep, ti, _ = run[hit]
            m, t = index[hit], terms[hit]
            path = self._path(pred, t, m, sweep)
            if self._q.accept(self, t, m, path):
                return Found(g, t, m, path, self._origin(pred))
        return None

    def _untested(self, terms: list[Terminals]) -> list[tuple[Terminals, NDArray[np.int64]]]:
        """For each of these terminal sets (once each), a row of every leg not tested yet."""
        out: list[tuple[Terminals, NDArray[np.int64]]] = []
        seen: set[int] = set()
        for t in terms:
            if id(t) in seen:
                continue
            seen.add(id(t))
            legs, leg_of, _ = self._legs(t)
            if t.leg_row is None or len(t.leg_row) != len(legs):
                t.leg_row = np.zeros(len(legs), dtype=np.int64)
                t.leg_row[leg_of[::-1]] = np.arange(len(leg_of) - 1, -1, -1)  # first row
            rows = t.leg_row[legs == 0]
            if len(rows):
                out.append((t, rows))
        return out

    # ---- answers -----------------------------------------------------------------------------
    def settled_on(self, k: int) -> tuple[Arr, Arr]:
        """Relative angles and costs of the settled nodes on circle k."""
        keys = self._settled_on.get(k, [])
        return (np.array([self.where[x][1] for x in keys]),
                np.array([self.cost[x] for x in keys]))

    def circles_reached(self) -> list[int]:
        return list(self._settled_on)

    def _arc(self, k: int, rel_from: float, sweep: float) -> Arc:
        C = self.C
        return Arc((float(C.x[k]), float(C.y[k])), float(C.r[k]),
                   float(C.start[k]) + rel_from, sweep)

    def _pieces(self, key: int) -> list[Piece]:
        out: list[Piece] = []
        while not is_start(key):
            pred, kind, sweep = self.pred[key]
            if kind == ARC:
                k, rel_from = self.where[pred]
                out.append(self._arc(k, rel_from, sweep))
            else:
                out.append(Segment(self.xy[pred], self.xy[key]))
            key = pred
        return out[::-1]

    def _origin(self, key: int) -> int:
        while not is_start(key):
            key = self.pred[key][0]
        return START - key

    def _path(self, pred: int, t: Terminals, m: int, sweep: float) -> Path:
        pieces = self._pieces(pred)
        if not is_start(pred) and sweep != 0.0:
            k, rel_from = self.where[pred]
            pieces.append(self._arc(k, rel_from, sweep))
        dep = (float(t.dep[m, 0]), float(t.dep[m, 1]))
        end = (float(t.end[m, 0]), float(t.end[m, 1]))
        if math.dist(dep, end) > ZERO_LENGTH:
            pieces.append(Segment(dep, end))
        length = sum(pc.length for pc in pieces)
        return Path(polyline(pieces, self.starts[self._origin(pred)]), length, tuple(pieces))
