"""How many separate pieces of obstacle material a base meets (rulebook §4.6, §8.5.3;
GEOMETRY-RULES §6 "Decision (revised)": a base overlapping one part of material is not in a gap,
unless it meets that part in two places — the two arms of a U, the two ends of a top's edge at
an access opening).

A part's material is cut into convex pieces: a convex core grown by its extra radius (a
model's base, a convex terrain section) is one piece, an edge line is one piece per straight
segment. The material a disc meets is the union of the convex sets disc ∩ piece, and a union
of convex sets falls apart exactly where its intersection graph does: two met pieces are
joined inside the disc iff the disc meets their *junction* (piece ∩ piece, or the hairline
between abutting pieces). So the count is decided by distances alone (GEOS, exact to floating
point), without an overlay of polygonised discs. Cores that are neither (a non-convex
polygon) are left to the overlay (`Pieces.decides` is False for them).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry.base import BaseGeometry

from ..tolerance import HULL_AREA_SLACK
from ._circles import CLEAR_TOL
from ._end_shapes import Arr


def is_convex(core: BaseGeometry) -> bool:
    """A point, a single straight segment, or a polygon equal to its hull (within 1e-9)."""
    t = core.geom_type
    if t == "Point":
        return True
    if t == "LineString":
        return len(core.coords) <= 2
    if t == "Polygon":
        return not core.interiors and core.convex_hull.area - core.area <= HULL_AREA_SLACK
    return False


def convex_pieces(core: BaseGeometry) -> list[BaseGeometry] | None:
    """A core as convex pieces (None: a core this cut cannot make convex)."""
    t = core.geom_type
    if t in ("LineString", "MultiLineString"):
        lines = list(core.geoms) if t == "MultiLineString" else [core]
        out: list[BaseGeometry] = []
        for ln in lines:
            xy = shapely.get_coordinates(ln)
            out += list(shapely.linestrings(np.stack([xy[:-1], xy[1:]], axis=1)))
        return out
    return [core] if is_convex(core) else None


def material_of(core: BaseGeometry, extra: float, disc_segs: int) -> BaseGeometry:
    """An obstacle's material: its core grown by its extra radius (polygonised discs)."""
    return shapely.buffer(core, extra, quad_segs=disc_segs) if extra > 0 else core


def pairs_by_owner(i: NDArray[np.int64], j: NDArray[np.int64], of: NDArray[np.int64]
                   ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """For pairs (i, j) and items owned by obstacles (`of`, sorted): every (i, item of j)."""
    lo = np.searchsorted(of, j, side="left")
    hi = np.searchsorted(of, j, side="right")
    cnt = hi - lo
    rep = np.repeat(np.arange(len(j)), cnt)
    first = np.cumsum(cnt) - cnt
    item = lo[rep] + np.arange(int(cnt.sum())) - first[rep]
    return i[rep], item


@dataclass
class Pieces:
    """The convex pieces of every obstacle's material, and the junctions of touching ones."""

    geom: NDArray[np.object_]       # piece -> its core (point, segment or convex polygon)
    extra: Arr                      # piece -> material radius about its core
    of: NDArray[np.int64]           # piece -> obstacle (ascending)
    decides: NDArray[np.bool_]      # obstacle -> cut into convex pieces
    link_a: NDArray[np.int64]       # junctions: piece a, piece b (a < b), and where they meet
    link_b: NDArray[np.int64]
    link_geom: NDArray[np.object_]

    @staticmethod
    def build(cores: NDArray[np.object_], extra: Arr, part: NDArray[np.int64],
              merge_tol: float, disc_segs: int) -> Pieces:
        geoms: list[BaseGeometry] = []
        ext: list[float] = []
        of: list[int] = []
        decides = np.ones(len(cores), dtype=bool)
        for k, core in enumerate(cores):
            ps = convex_pieces(core)
            if ps is None:
                decides[k] = False
                continue
            geoms += ps
            ext += [float(extra[k])] * len(ps)
            of += [k] * len(ps)
        g = np.array(geoms, dtype=object)
        e = np.array(ext, dtype=float)
        o = np.array(of, dtype=np.int64)
        la: list[int] = []
        lb: list[int] = []
        lg: list[BaseGeometry] = []
        if len(g):
            tree = shapely.STRtree(g)
            a, b = tree.query(g, predicate="dwithin", distance=2 * float(e.max()) + merge_tol)
            keep = (a < b) & (part[o[a]] == part[o[b]])
            a, b = a[keep], b[keep]
            if len(a):
                d = shapely.distance(g[a], g[b])
                touch = d <= e[a] + e[b] + merge_tol
                for x, y in zip(a[touch].tolist(), b[touch].tolist(), strict=True):
                    ma = material_of(g[x], e[x], disc_segs)
                    mb = material_of(g[y], e[y], disc_segs)
                    j = shapely.intersection(ma, mb)
                    if j.is_empty:  # abutting within merge_tol: the hairline between them
                        j = shapely.shortest_line(ma, mb)
                    la.append(x)
                    lb.append(y)
                    lg.append(j)
        return Pieces(g, e, o, decides, np.array(la, dtype=np.int64),
                      np.array(lb, dtype=np.int64), np.array(lg, dtype=object))

    @cached_property
    def links_of(self) -> dict[int, list[tuple[int, int]]]:
        """piece -> its junctions, each as (junction, the other piece)."""
        out: dict[int, list[tuple[int, int]]] = {}
        for li, (a, b) in enumerate(zip(self.link_a.tolist(), self.link_b.tolist(), strict=True)):
            out.setdefault(a, []).append((li, b))
            out.setdefault(b, []).append((li, a))
        return out

    def counts_met(self, pts: NDArray[np.object_], r: float, point: NDArray[np.int64],
                   obstacle: NDArray[np.int64]) -> NDArray[np.int64]:
        """`count_met` of many discs (pts[k], r), disc k with the obstacles of the pairs
        (point, obstacle) that name it (sorted by point, then obstacle, each pair once): every
        disc's distances to its pieces in one call; only a disc meeting two pieces or more
        goes on to the junctions (`count_met`, the same distances)."""
        at, item = pairs_by_owner(point, obstacle, self.of)
        hit = shapely.distance(pts[at], self.geom[item]) < self.extra[item] + r - CLEAR_TOL
        out = np.bincount(at[hit], minlength=len(pts)).astype(np.int64)
        for k in np.flatnonzero(out >= 2).tolist():
            out[k] = self.count_met(pts[k], r, obstacle[point == k])
        return out

    def count_met(self, p: BaseGeometry, r: float, obstacles: NDArray[np.int64]) -> int:
        """How many separate pieces of material the disc (p, r) meets, of the material of
        `obstacles` (all of them cut into convex pieces)."""
        _, idx = pairs_by_owner(obstacles, obstacles, self.of)
        if not len(idx):
            return 0
        met = idx[shapely.distance(p, self.geom[idx]) < self.extra[idx] + r - CLEAR_TOL]
        if len(met) <= 1:
            return len(met)
        parent = {int(m): int(m) for m in met}

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        # the junctions of two met pieces, ascending (as a scan of every junction finds them)
        links = np.array(sorted({li for m in parent for li, other in self.links_of.get(m, ())
                                 if other in parent}), dtype=np.int64)
        if len(links):
            joined = shapely.distance(p, self.link_geom[links]) < r - CLEAR_TOL
            for li in links[joined].tolist():
                parent[find(int(self.link_a[li]))] = find(int(self.link_b[li]))
        return len({find(x) for x in parent})
