"""The tangent graph of a free space (rulebook §4.3, §4.6; the shortest legal path).

Shortest paths among obstacles with rounded corners run along segments tangent to two corner
circles and along free arcs of those circles. The graph's nodes are the tangent points of the
common tangents of two corner circles (each in the cone where its circle bounds its own
clearance zone, at a free point of it); its edges are those tangent segments, when free, and the
free arcs between consecutive nodes on a circle. Queries attach their start and goal by the
tangents from those points. So the graph contains the exact shortest path.

`LazyGraph` is what navigators use: building it costs only the corner circles and their free
arcs; the tangent points of a circle are computed the first time a search reaches it, and a
tangent segment is tested for clearance the first time a search wants to use it. Both are kept
for every later query on the same navigator, so the graph grows where questions are asked and
is never built where they are not. `TangentGraph` builds every node and edge at once; it is the
reference the tests compare the lazy graph with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..tolerance import FULL_TURN_SLACK, ON_CIRCLE, ROUND_OFF, ZERO_LENGTH
from ._circles import TWO_PI, ArcMap, Circles, in_cone
from ._end_shapes import Arr
from ._freespace import FreeSpace

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

LEGS_KEPT = 1 << 18  # last legs whose clearance a graph remembers (then it starts again)

# --------------------------------------------------------------------------- tangents

def point_tangents(C: Circles, p: tuple[float, float]) -> tuple[NDArray[np.int64], Arr, Arr]:
    """Tangent points from p to every circle it lies outside: (circle, abs angle, point)."""
    dx, dy = p[0] - C.x, p[1] - C.y
    D = np.hypot(dx, dy)
    ok = D > C.r + ROUND_OFF
    k = np.nonzero(ok)[0]
    phi = np.arctan2(dy[k], dx[k])
    a = np.arccos(np.clip(C.r[k] / D[k], -1, 1))
    # a point on a circle's rim (a base in contact with another, a start or end on the edge of
    # a base zone) touches it there: its tangent point is itself, and a path runs on along
    # the arc
    on = np.nonzero(~ok & (np.abs(D - C.r) <= ON_CIRCLE) & (C.r > 0))[0]
    kk = np.concatenate([k, k, on])
    th = np.concatenate([phi + a, phi - a, np.arctan2(dy[on], dx[on])])
    pts = np.column_stack((C.x[kk] + C.r[kk] * np.cos(th), C.y[kk] + C.r[kk] * np.sin(th)))
    return kk, th, pts


def bitangents(C: Circles, i: NDArray[np.int64], j: NDArray[np.int64]) -> tuple[
        NDArray[np.int64], NDArray[np.int64], Arr, Arr]:
    """The (up to) four common tangents of circles i[k], j[k]: returns pair indices and the
    tangent angles on each circle (absolute, radians)."""
    ai, aj, valid = typed_bitangents(C, i, j)
    ii = np.broadcast_to(i[:, None], valid.shape)
    jj = np.broadcast_to(j[:, None], valid.shape)
    return ii[valid], jj[valid], ai[valid], aj[valid]


def typed_bitangents(C: Circles, i: NDArray[np.int64], j: NDArray[np.int64]
                     ) -> tuple[Arr, Arr, NDArray[np.bool_]]:
    """The four common tangents of circles i[k] < j[k], by type (0, 1 outer; 2, 3 inner): the
    tangent angles on circle i and on circle j, shape (n, 4), and which exist. Computed the
    same way whichever circle asks, so both ends of a tangent agree bit for bit."""
    dx, dy = C.x[j] - C.x[i], C.y[j] - C.y[i]
    D = np.hypot(dx, dy)
    psi = np.arctan2(dy, dx)
    ri, rj = C.r[i], C.r[j]
    safe = np.where(D > 0, D, 1.0)
    a_out = np.arccos(np.clip((ri - rj) / safe, -1, 1))
    a_in = np.arccos(np.clip((ri + rj) / safe, -1, 1))
    ang_i = np.column_stack((psi + a_out, psi - a_out, psi + a_in, psi - a_in))
    ang_j = ang_i.copy()
    ang_j[:, 2:] += math.pi
    # a point (radius 0: a pinch point) lying on the other circle touches it there: its one
    # "tangent" has length 0 and joins the circle's arc at the point (a path leaves a gap
    # along the rim of the side it touched last)
    on_rim = (np.minimum(ri, rj) == 0) & (np.abs(D - np.abs(ri - rj)) <= ON_CIRCLE) & (D > 0)
    outer = (D > np.abs(ri - rj) + ROUND_OFF) | on_rim
    # from a point (radius 0) the inner tangents are the outer ones again: keep one of each
    inner = (D > ri + rj + ROUND_OFF) & (np.minimum(ri, rj) > 0)
    valid = np.column_stack((outer, outer, inner, inner))
    return ang_i, ang_j, valid


# --------------------------------------------------------------------------- the lazy graph

@dataclass
class CircleNodes:
    """The tangent points on one corner circle, sorted by angle in its cone: for each, its node
    key, its angle, its point, and the other end of its tangent segment (key, circle, angle,
    point) with the segment's length."""

    rel: Arr
    key: NDArray[np.int64]
    xy: Arr
    partner: NDArray[np.int64]
    pcircle: NDArray[np.int64]
    prel: Arr
    pxy: Arr
    length: Arr


class LazyGraph:
    """A tangent graph built where searches go (see the module docstring).

    Node keys: the tangent of type t between circles i < j has key ((i·K + j)·4 + t)·2 + s at
    its end on circle i (s = 0) or j (s = 1); `key >> 1` names the segment."""

    def __init__(self, fs: FreeSpace) -> None:
        self.fs = fs
        self.C = fs.circles
        self.K = len(self.C)
        self.arcs = ArcMap.build(fs)
        self._nodes: dict[int, CircleNodes] = {}
        self.clear_known: dict[int, bool] = {}
        # last legs to terminals, by their ends (`legs_clear`)
        self.legs_known: dict[tuple[float, ...], bool] = {}

    @property
    def n_circles_built(self) -> int:
        return len(self._nodes)

    def nodes(self, k: int) -> CircleNodes:
        """The tangent points on circle k (computed once)."""
        got = self._nodes.get(k)
        if got is not None:
            return got
        C, K, fs = self.C, self.K, self.fs
        m = np.delete(np.arange(K), k)
        i, j = np.minimum(k, m), np.maximum(k, m)
        ai, aj, valid = typed_bitangents(C, i, j)
        on_i = (i == k)[:, None]
        ang_k = np.where(on_i, ai, aj)
        ang_o = np.where(on_i, aj, ai)
        other = np.repeat(m[:, None], 4, axis=1)
        t = np.broadcast_to(np.arange(4), ang_k.shape)
        seg = ((i[:, None] * K + j[:, None]) * 4 + t).astype(np.int64)
        side = np.where(on_i, 0, 1).astype(np.int64)
        sel = valid.ravel()
        ang_k, ang_o = ang_k.ravel()[sel], ang_o.ravel()[sel]
        other, seg = other.ravel()[sel], seg.ravel()[sel]
        side = np.broadcast_to(side, valid.shape).ravel()[sel]
        kk = np.full(len(ang_k), k)
        ok_k, rel_k = in_cone(C, kk, ang_k)
        ok_o, rel_o = in_cone(C, other, ang_o)
        P = np.column_stack((C.x[k] + C.r[k] * np.cos(ang_k), C.y[k] + C.r[k] * np.sin(ang_k)))
        Q = np.column_stack((C.x[other] + C.r[other] * np.cos(ang_o),
                             C.y[other] + C.r[other] * np.sin(ang_o)))
        ok = ok_k & ok_o & fs.in_rect(P) & fs.in_rect(Q)
        idx = np.nonzero(ok)[0]
        ok[idx] &= self.arcs.point_free(kk[idx], rel_k[idx])
        ok[idx] &= self.arcs.point_free(other[idx], rel_o[idx])
        o = np.nonzero(ok)[0]
        o = o[np.argsort(rel_k[o], kind="stable")]
        got = CircleNodes(rel_k[o], seg[o] * 2 + side[o], P[o], seg[o] * 2 + 1 - side[o],
                          other[o], rel_o[o], Q[o], np.hypot(*(P[o] - Q[o]).T))
        self._nodes[k] = got
        return got

    def segment_clear(self, seg: int, p: Arr, q: Arr) -> bool:
        """Is tangent segment `seg` (from p to q) free? Tested once, then remembered."""
        got = self.clear_known.get(seg)
        if got is None:
            got = bool(self.fs.segments_clear(p[None, :], q[None, :])[0])
            self.clear_known[seg] = got
        return got

    def legs_clear(self, p: Arr, q: Arr) -> NDArray[np.bool_]:
        """`FreeSpace.segments_clear` of the legs p[k]→q[k], each tested once on this graph:
        the same leg comes back from other end sets, questions and starts (a clearance test
        is a function of the segment alone), so its answer is remembered (up to LEGS_KEPT)."""
        keys = [tuple(r) for r in np.hstack([p, q]).tolist()]
        known = self.legs_known
        got = {k: known[k] for k in keys if k in known}
        todo: dict[tuple[float, ...], int] = {}  # each new leg once (a run repeats legs)
        for n, k in enumerate(keys):
            if k not in got and k not in todo:
                todo[k] = n
        if todo:
            rows = list(todo.values())
            got.update(zip(todo, self.fs.segments_clear(p[rows], q[rows]).tolist(), strict=True))
            if len(known) + len(rows) > LEGS_KEPT:
                known.clear()
            known.update((k, got[k]) for k in todo)
        return np.array([got[k] for k in keys], dtype=bool)


# --------------------------------------------------------------------------- the full graph

@dataclass
class TangentGraph:
    """Every node and edge of the tangent graph, built at once (the reference)."""

    fs: FreeSpace
    arcs: ArcMap
    node_xy: Arr
    node_circle: NDArray[np.int64]
    node_rel: Arr
    edges_u: NDArray[np.int64]
    edges_v: NDArray[np.int64]
    edges_w: Arr

    @staticmethod
    def build(fs: FreeSpace) -> TangentGraph:
        C = fs.circles
        arcs = ArcMap.build(fs)
        K = len(C)
        if K >= 2:
            iu, ju = np.triu_indices(K, 1)
            pi_, pj, ai, aj = bitangents(C, iu, ju)
            ok_i, rel_i = in_cone(C, pi_, ai)
            ok_j, rel_j = in_cone(C, pj, aj)
            ok = ok_i & ok_j
            pi_, pj = pi_[ok], pj[ok]
            ai, aj, rel_i, rel_j = ai[ok], aj[ok], rel_i[ok], rel_j[ok]
            P = np.column_stack((C.x[pi_] + C.r[pi_] * np.cos(ai),
                                 C.y[pi_] + C.r[pi_] * np.sin(ai)))
            Q = np.column_stack((C.x[pj] + C.r[pj] * np.cos(aj),
                                 C.y[pj] + C.r[pj] * np.sin(aj)))
            ok = fs.in_rect(P) & fs.in_rect(Q)
            ok &= arcs.point_free(pi_, rel_i) & arcs.point_free(pj, rel_j)
            sel = np.nonzero(ok)[0]
            clear = fs.segments_clear(P[sel], Q[sel])
            sel = sel[clear]
            n = len(sel)
            node_xy = np.vstack([P[sel], Q[sel]])
            node_circle = np.concatenate([pi_[sel], pj[sel]])
            node_rel = np.concatenate([rel_i[sel], rel_j[sel]])
            seg_u = np.arange(n)
            seg_v = np.arange(n) + n
            seg_w = np.hypot(*(P[sel] - Q[sel]).T)
        else:
            node_xy = np.zeros((0, 2))
            node_circle = np.zeros(0, dtype=np.int64)
            node_rel = np.zeros(0)
            seg_u = seg_v = np.zeros(0, dtype=np.int64)
            seg_w = np.zeros(0)
        g = TangentGraph(fs, arcs, node_xy, node_circle, node_rel, seg_u, seg_v, seg_w)
        au, av, aw = g.arc_edges(node_circle, node_rel, np.zeros(len(node_rel), dtype=bool))
        g.edges_u = np.concatenate([seg_u, au])
        g.edges_v = np.concatenate([seg_v, av])
        g.edges_w = np.concatenate([seg_w, aw])
        return g

    @property
    def n_nodes(self) -> int:
        return len(self.node_xy)

    def arc_edges(self, circle: NDArray[np.int64], rel: Arr, query: NDArray[np.bool_],
                  base: int = 0) -> tuple[NDArray[np.int64], NDArray[np.int64], Arr]:
        """Arc edges between consecutive nodes on each circle (only pairs involving a query
        node when any node is flagged as query). Node ids are `base + position`."""
        if not len(circle):
            z = np.zeros(0, dtype=np.int64)
            return z, z, np.zeros(0)
        C = self.fs.circles
        order = np.lexsort((rel, circle))
        c, r, q = circle[order], rel[order], query[order]
        ids = order + base
        same = c[1:] == c[:-1]
        a, b = np.nonzero(same)[0], np.nonzero(same)[0] + 1
        if query.any():
            keep = q[a] | q[b]
            a, b = a[keep], b[keep]
        ok = self.arcs.arc_free(c[a], r[a], r[b])
        us, vs, ws = [ids[a][ok]], [ids[b][ok]], [(C.r[c[a]] * (r[b] - r[a]))[ok]]
        # wrap-around arcs on full circles: last node of each circle to its first
        starts = np.concatenate([[0], np.nonzero(~same)[0] + 1])
        ends = np.concatenate([np.nonzero(~same)[0], [len(c) - 1]])
        wrap = C.span[c[starts]] >= TWO_PI - FULL_TURN_SLACK
        wrap &= ends > starts
        s_, e_ = starts[wrap], ends[wrap]
        if query.any():
            keep = q[s_] | q[e_]
            s_, e_ = s_[keep], e_[keep]
        if len(s_):
            okw = self.arcs.wrap_free(c[s_], r[e_], r[s_])
            us.append(ids[e_][okw])
            vs.append(ids[s_][okw])
            ws.append((C.r[c[s_]] * (TWO_PI - r[e_] + r[s_]))[okw])
        return (np.concatenate(us), np.concatenate(vs),
                np.maximum(np.concatenate(ws), ZERO_LENGTH))

    def attach(self, p: tuple[float, float]) -> tuple[NDArray[np.int64], Arr, Arr, Arr]:
        """Free tangent segments from point p to the corner circles: (circle, rel, point, len)."""
        C = self.fs.circles
        if not len(C):
            return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros((0, 2)), np.zeros(0)
        k, th, pts = point_tangents(C, p)
        ok, rel = in_cone(C, k, th)
        ok &= self.fs.in_rect(pts)
        ok &= self.arcs.point_free(k, rel)
        sel = np.nonzero(ok)[0]
        pp = np.repeat(np.asarray(p, dtype=float)[None, :], len(sel), axis=0)
        clear = self.fs.segments_clear(pp, pts[sel])
        sel = sel[clear]
        d = np.hypot(pts[sel, 0] - p[0], pts[sel, 1] - p[1])
        return k[sel], rel[sel], pts[sel], d

    def matrix(self, extra_u: NDArray[np.int64], extra_v: NDArray[np.int64], extra_w: Arr,
               n: int) -> csr_matrix:
        u = np.concatenate([self.edges_u, extra_u])
        v = np.concatenate([self.edges_v, extra_v])
        w = np.concatenate([self.edges_w, extra_w])
        # scipy only here: the whole graph as a matrix is the tests' reference, and
        # importing scipy.sparse costs every command's start-up ~0.15 s
        from scipy.sparse import coo_matrix

        return coo_matrix((w, (u, v)), shape=(n, n)).tocsr()
