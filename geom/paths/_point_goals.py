"""Paths to given points: a goal, or sampled ends (rulebook §4.3: moves are measured along the
shortest legal path). The question `geom.paths._search.Search` is asked by
`Navigator.shortest_path` and by the sampled ends of `geom.paths._region_path`."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..model import Point
from ..tolerance import ON_CIRCLE
from ._circles import in_cone
from ._end_shapes import Arr
from ._search import KeptQuestion, Search, Terminals


class FixedEnds(KeptQuestion):
    """Paths to given points (a goal, or sampled ends): legs from the start, and the tangents
    from each point to every corner circle. `extra[i]` is added after reaching point i."""

    def __init__(self, points: Arr, extra: Arr | None = None) -> None:
        super().__init__()
        self.points = np.asarray(points, dtype=float).reshape(-1, 2)
        self.extra = np.zeros(len(self.points)) if extra is None else np.asarray(extra, float)
        self.tags = np.arange(len(self.points), dtype=np.int64)

    # the terminals are kept with the question when it is asked again
    # (`Navigator.fixed_ends`): from each set of starts, and on each corner circle of one graph
    def _start_terminals(self, starts: Sequence[Point]) -> Terminals:
        n, k = len(self.points), len(starts)
        return Terminals(np.repeat(np.array(starts), n, axis=0), np.tile(self.points, (k, 1)),
                         np.tile(self.extra, k), np.tile(self.tags, k),
                         origin=np.repeat(np.arange(k), n))

    def _circle_terminals(self, s: Search, k: int) -> Terminals | None:
        C, fs, arcs = s.C, s.graph.fs, s.graph.arcs
        cx, cy, r = float(C.x[k]), float(C.y[k]), float(C.r[k])
        d = self.points - (cx, cy)
        D = np.hypot(d[:, 0], d[:, 1])
        phi = np.arctan2(d[:, 1], d[:, 0])
        out = D > r + ON_CIRCLE
        a = np.arccos(np.clip(r / np.where(out, D, 1.0), -1, 1))
        on = np.abs(D - r) <= ON_CIRCLE  # a point on the circle is reached along the arc
        th = np.concatenate([np.where(out, phi + a, phi), np.where(out, phi - a, phi)])
        keep = np.concatenate([out | on, out])
        idx = np.concatenate([self.tags, self.tags])[keep]
        th = th[keep]
        ok, rel = in_cone(C, np.full(len(th), k), th)
        dep = np.column_stack((cx + r * np.cos(th), cy + r * np.sin(th)))
        ok &= fs.in_rect(dep)
        sel = np.nonzero(ok)[0]
        ok[sel] &= arcs.point_free(np.full(len(sel), k), rel[sel])
        sel = np.nonzero(ok)[0]
        if not len(sel):
            return None
        i = idx[sel]
        return Terminals(dep[sel], self.points[i], self.extra[i], i, k, rel[sel])

    def lower_bound(self, x: float, y: float) -> float:
        if len(self.points) == 1:
            return math.hypot(self.points[0, 0] - x, self.points[0, 1] - y)
        return float(np.min(np.hypot(self.points[:, 0] - x, self.points[:, 1] - y)))

    def bound_key(self) -> object:
        return ("points", self.points.tobytes())

    def lower_bounds(self, xy: Arr) -> Arr:
        p = self.points
        if len(xy) * len(p) > 1 << 22:  # keep the distance matrix small
            return super().lower_bounds(xy)
        return np.min(np.hypot(p[None, :, 0] - xy[:, 0, None], p[None, :, 1] - xy[:, 1, None]),
                      axis=1)
