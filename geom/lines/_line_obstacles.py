"""Terrain footprints prepared for exact segment tests: what "a line crosses terrain" means
(rulebook §7.1 "the line crosses terrain", §7.2.1 "terrain of Size 2+ between them", §8.7.6 step
3 "a line not stopped by terrain"; tolerance: docs/rules.md#tolerance).

A segment *crosses* an obstacle O when it enters ``Q = O ⊖ 1e-6"`` (the footprint shrunk inwards
by the tolerance, mitred corners), so grazing a corner, running along an edge, or cutting a corner
by less than 1e-6" is not crossing. The exact search (`geom.lines._segments`) builds its candidate lines
from the vertices of Q and accepts a candidate when it misses ``T = Q ⊖ 1e-9"``: the extra 1e-9"
absorbs the floating-point error of the construction (pinned lines pass through vertices of Q up
to ~1e-13"), so a witness may enter Q by at most 1e-9" and "blocked" is never an artefact of
rounding.

Prepared once per table (`PreparedObstacles.build`), as flat arrays indexed by obstacle row:

- the test polygons T (shapely, prepared) and an STRtree over them;
- T's convex parts (the polygon itself when convex, fanned into chunks of ≤ 6 vertices; a
  constrained Delaunay triangulation otherwise), padded to one vertex count, with outward edge
  normals — a padded edge has normal 0 and offset 1, so it never separates;
- Q's vertices with their ring neighbours and whether the corner is convex (a line through a
  reflex corner enters Q on one side of it, so only convex corners pin candidate lines).

`segments_clear` tests many segments, each against its own job's obstacles (separating axes on
convex parts, vectorised, boxes first; whole prepared shapes for obstacles of many corners), in
blocks of at most `ROW_BUDGET` rows: memory stays bounded whatever the number of pieces, vertices
or candidates.

>>> from shapely.geometry import box
>>> obs = PreparedObstacles.build([box(4, -3, 5, 3)])
>>> segs = np.array([[[0, 0], [10, 0]], [[0, 3.5], [10, 3.5]], [[0, 3], [10, 3]]], float)
>>> segments_clear(segs, np.zeros(3, int), job_parts(obs, np.array([0, 1]), np.array([0])),
...                obs).tolist()   # through the wall, above it, along its top edge (a graze)
[False, True, True]
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely import STRtree
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry
from shapely.geometry.polygon import orient

from ..tolerance import ROUND_OFF_RELATIVE, TOLERANCE

SAFETY = 1e-9  # floating-point slack on top of TOLERANCE (see the module docstring)
ROW_BUDGET = 1 << 16  # (segment, part) rows tested at once: bounds memory, not time
MANY_PARTS = 24  # convex parts above which an obstacle is tested as a whole shape
_FAN = 6  # vertices per convex chunk
X, Y, EX, EY, NX, NY, C = range(7)  # the fields of PreparedObstacles.part_pack


def ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(s, s + c)`` for each (s, c), without a Python loop.

    >>> ranges(np.array([10, 3]), np.array([2, 3])).tolist()
    [10, 11, 3, 4, 5]
    """
    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(counts)
    return (np.arange(total, dtype=np.int64) - np.repeat(ends - counts, counts)
            + np.repeat(np.asarray(starts, dtype=np.int64), counts))


def polygons_of(g: BaseGeometry) -> list[Polygon]:
    return [p for p in getattr(g, "geoms", [g]) if p.geom_type == "Polygon" and not p.is_empty]


def _ccw(ring: np.ndarray) -> np.ndarray:
    x, y = ring[:, 0], ring[:, 1]
    area2 = float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))
    return ring if area2 > 0 else ring[::-1]


def convex_parts(g: BaseGeometry) -> list[np.ndarray]:
    """Convex pieces (counter-clockwise vertex arrays) whose union is the polygon."""
    out = []
    for poly in polygons_of(g):
        hull = poly.convex_hull
        if not poly.interiors and hull.area - poly.area <= ROUND_OFF_RELATIVE * max(1.0, hull.area):
            ring = _ccw(np.asarray(poly.exterior.coords)[:-1])
            k = 1
            while k < len(ring) - 1:  # fan into chunks (keeps the padded arrays small)
                j = min(k + _FAN - 2, len(ring) - 1)
                out.append(np.vstack([ring[:1], ring[k:j + 1]]))
                k = j
            continue
        tris = [_ccw(np.asarray(tri.exterior.coords)[:-1])
                for tri in shapely.constrained_delaunay_triangles(poly).geoms if tri.area > 0]
        out.extend(_merge_convex(tris))
    return out


Ring = tuple[tuple[float, float], ...]


def _convex(ring: Ring) -> bool:
    n = len(ring)
    for i in range(n):
        (x0, y0), (x1, y1), (x2, y2) = ring[i - 1], ring[i], ring[(i + 1) % n]
        ex, ey, fx, fy = x1 - x0, y1 - y0, x2 - x1, y2 - y1
        if ex * fy - ey * fx < -ROUND_OFF_RELATIVE * math.hypot(ex, ey) * math.hypot(fx, fy):
            return False
    return True


def _join(p: Ring, q: Ring) -> Ring | None:
    """The ring of p ∪ q when they share an edge (u→v in p, v→u in q), else None."""
    n, m = len(p), len(q)
    for a in range(n):
        u, v = p[a], p[(a + 1) % n]
        for b in range(m):
            if q[b] == v and q[(b + 1) % m] == u:
                return tuple(p[(a + 1 + k) % n] for k in range(n)) + tuple(
                    q[(b + 2 + k) % m] for k in range(m - 2))
    return None


def _merge_convex(tris: list[np.ndarray]) -> list[np.ndarray]:
    """Merge triangles across their shared edges while the union stays convex and small
    (Hertel and Mehlhorn): the same region in fewer convex parts, so fewer separating-axis
    tests. One pass over the diagonals: linear in the number of triangles."""
    parts: dict[int, Ring] = {t: tuple((float(x), float(y)) for x, y in tri)
                              for t, tri in enumerate(tris)}
    owner = list(range(len(tris)))

    def find(t: int) -> int:
        while owner[t] != t:
            owner[t] = owner[owner[t]]
            t = owner[t]
        return t

    edges: dict[tuple[tuple[float, float], tuple[float, float]], list[int]] = {}
    for t, ring in parts.items():
        for a in range(len(ring)):
            u, v = ring[a], ring[(a + 1) % len(ring)]
            edges.setdefault((min(u, v), max(u, v)), []).append(t)
    for ts in edges.values():
        if len(ts) != 2:
            continue
        p, q = find(ts[0]), find(ts[1])
        if p == q:
            continue
        joined = _join(parts[p], parts[q])
        if joined is not None and len(joined) <= _FAN and _convex(joined):
            parts[p] = joined
            del parts[q]
            owner[q] = p
    return [np.array(r) for r in parts.values()]


def _corners(q: BaseGeometry) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Vertices of Q with their ring neighbours and convexity (interior on the left of every
    ring once oriented)."""
    vs, ps, ns = [], [], []
    for poly in polygons_of(q):
        poly = orient(poly, 1.0)
        for ring in [poly.exterior, *poly.interiors]:
            c = np.asarray(ring.coords)[:-1]
            if len(c) >= 3:
                vs.append(c)
                ps.append(np.roll(c, 1, axis=0))
                ns.append(np.roll(c, -1, axis=0))
    if not vs:
        z = np.zeros((0, 2))
        return z, z, z, np.zeros(0, dtype=bool)
    v, p, n = np.vstack(vs), np.vstack(ps), np.vstack(ns)
    e1, e2 = v - p, n - v
    cross = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]
    scale = np.hypot(*e1.T) * np.hypot(*e2.T)
    return v, p, n, cross >= -ROUND_OFF_RELATIVE * scale  # collinear corners keep their edge lines


@dataclass(frozen=True)
class PreparedObstacles:
    """Obstacles prepared once and reused across many queries (see the module docstring).
    Row r holds input polygon ``index[r]``; polygons that vanish when shrunk by the tolerance (a
    sliver that can only be grazed) have no row."""

    index: np.ndarray  # (R,) input position of each row
    tests: np.ndarray  # (R,) shapely polygons T, prepared
    boxes: np.ndarray  # (R, 4) bounds of T
    part_ptr: np.ndarray  # (R + 1,) rows' convex parts are part_ptr[r]:part_ptr[r + 1]
    # (P, 7, m), one gather per row: vertex x, y; edge (to the next vertex) x, y; outward edge
    # normal x, y; offset c (n·x ≤ c inside)
    part_pack: np.ndarray
    part_box: np.ndarray  # (P, 4)
    part_owner: np.ndarray  # (P,) the row each part belongs to
    vert_ptr: np.ndarray  # (R + 1,)
    verts: np.ndarray  # (V, 2) vertices of Q
    vert_prev: np.ndarray
    vert_next: np.ndarray
    vert_convex: np.ndarray  # (V,)
    tree: STRtree | None

    @classmethod
    def build(cls, polys: Sequence[BaseGeometry]) -> PreparedObstacles:
        index, tests, parts, corners = [], [], [], []
        for i, poly in enumerate(polys):
            if poly.is_empty or poly.area <= 0:
                continue
            q = shapely.buffer(poly, -TOLERANCE, join_style="mitre", mitre_limit=10.0)
            t = shapely.buffer(poly, -(TOLERANCE + SAFETY), join_style="mitre", mitre_limit=10.0)
            if q.is_empty or t.is_empty:
                continue
            pp, cc = convex_parts(t), _corners(q)
            if not pp or not len(cc[0]):
                continue
            shapely.prepare(t)
            index.append(i)
            tests.append(t)
            parts.append(pp)
            corners.append(cc)
        r = len(index)
        flat = [p for pp in parts for p in pp]
        m = max((len(p) for p in flat), default=3)
        n_p = len(flat)
        pts = np.zeros((n_p, m, 2))
        nrm = np.zeros((n_p, m, 2))
        off = np.ones((n_p, m))
        for k, ring in enumerate(flat):
            q = len(ring)
            pts[k, :q] = ring
            pts[k, q:] = ring[0]
            e = np.roll(ring, -1, axis=0) - ring
            nrm[k, :q] = np.column_stack((e[:, 1], -e[:, 0]))
            off[k, :q] = np.einsum("ij,ij->i", nrm[k, :q], ring)
        pbox = np.concatenate([pts.min(axis=1), pts.max(axis=1)], axis=1) if n_p else \
            np.zeros((0, 4))

        def ptr(counts: list[int]) -> np.ndarray:
            return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)

        def stack(k: int) -> np.ndarray:
            return np.vstack([c[k] for c in corners]) if corners else np.zeros((0, 2))

        test_arr = np.empty(r, dtype=object)
        test_arr[:] = tests
        counts = [len(pp) for pp in parts]
        return cls(np.array(index, dtype=np.int64), test_arr,
                   np.array([t.bounds for t in tests], dtype=float).reshape(r, 4),
                   ptr([len(pp) for pp in parts]),
                   np.stack([pts[..., 0], pts[..., 1], np.roll(pts, -1, axis=1)[..., 0] - pts[..., 0],
                             np.roll(pts, -1, axis=1)[..., 1] - pts[..., 1], nrm[..., 0],
                             nrm[..., 1], off], axis=1), pbox,
                   np.repeat(np.arange(r), counts).astype(np.int64),
                   ptr([len(c[0]) for c in corners]), stack(0), stack(1), stack(2),
                   np.concatenate([c[3] for c in corners]) if corners else np.zeros(0, bool),
                   STRtree(test_arr) if r else None)

    def __len__(self) -> int:
        return len(self.index)


@dataclass(frozen=True)
class Jobs:
    """The obstacles of many jobs (CSR): job j holds obstacle rows ``rows[ptr[j]:ptr[j + 1]]``
    and their convex parts ``parts[part_ptr[j]:part_ptr[j + 1]]``. For clearance tests the
    obstacles of more than `MANY_PARTS` parts (many corners) are listed apart, as whole shapes:
    ``big_rows[big_ptr[j]:big_ptr[j + 1]]``, the others' parts as ``sat_parts[sat_ptr[j]:…]``."""

    ptr: np.ndarray
    rows: np.ndarray
    part_ptr: np.ndarray
    parts: np.ndarray
    sat_ptr: np.ndarray
    sat_parts: np.ndarray
    big_ptr: np.ndarray
    big_rows: np.ndarray


def _csr(counts: np.ndarray, job_ptr: np.ndarray) -> np.ndarray:
    cum = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return cum[job_ptr]


def job_parts(obs: PreparedObstacles, job_ptr: np.ndarray, job_rows: np.ndarray) -> Jobs:
    """From jobs' obstacle rows (CSR: job j holds ``job_rows[job_ptr[j]:job_ptr[j + 1]]``) to
    their convex parts."""
    job_ptr = np.asarray(job_ptr, dtype=np.int64)
    job_rows = np.asarray(job_rows, dtype=np.int64)
    if len(job_ptr) == 2 and len(job_rows) == 1:  # one job, one obstacle: its parts as they are
        r = int(job_rows[0])
        s, e = int(obs.part_ptr[r]), int(obs.part_ptr[r + 1])
        if e - s <= MANY_PARTS:
            ptr, parts = np.array([0, e - s]), np.arange(s, e)
            return Jobs(job_ptr, job_rows, ptr, parts, ptr, parts, np.zeros(2, dtype=np.int64),
                        job_rows[:0])
    counts = obs.part_ptr[job_rows + 1] - obs.part_ptr[job_rows]
    parts = ranges(obs.part_ptr[job_rows], counts)
    part_ptr = _csr(counts, job_ptr)
    big = counts > MANY_PARTS
    if not big.any():  # the usual case: every obstacle is tested by its parts
        return Jobs(job_ptr, job_rows, part_ptr, parts, part_ptr, parts,
                    np.zeros(len(job_ptr), dtype=np.int64), job_rows[:0])
    small = np.where(big, 0, counts)
    return Jobs(job_ptr, job_rows, part_ptr, parts, _csr(small, job_ptr),
                ranges(obs.part_ptr[job_rows], small), _csr(big.astype(np.int64), job_ptr),
                job_rows[big])


def row_blocks(counts: np.ndarray, budget: int | None = None
               ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Enumerate the rows (item k, its j-th entry for j < counts[k]) in blocks of ≤ budget
    (default `ROW_BUDGET`)."""
    budget = ROW_BUDGET if budget is None else budget
    if len(counts) == 1 and 0 < counts[0] <= budget:  # one item (a single question)
        yield np.zeros(int(counts[0]), dtype=np.int64), np.arange(int(counts[0]))
        return
    ends = np.cumsum(counts)
    total = int(ends[-1]) if len(ends) else 0
    starts = ends - counts
    if 0 < total <= budget:  # one block: the common case, without the search
        k = np.repeat(np.arange(len(counts)), counts)
        yield k, np.arange(total, dtype=np.int64) - starts[k]
        return
    for r0 in range(0, total, budget):
        r = np.arange(r0, min(total, r0 + budget), dtype=np.int64)
        k = np.searchsorted(ends, r, side="right")
        yield k, r - starts[k]


def hits_paired(p0: np.ndarray, p1: np.ndarray, obs: PreparedObstacles, part: np.ndarray
                ) -> np.ndarray:
    """Row k: does the closed segment p0[k]–p1[k] meet the closed convex part ``part[k]``?
    Separating axes: the part's edge normals and the segment's normal (a point when p0 = p1)."""
    g = obs.part_pack[part]
    nx, ny, off = g[:, NX], g[:, NY], g[:, C]
    x0, y0 = p0[:, 0, None], p0[:, 1, None]
    x1, y1 = p1[:, 0, None], p1[:, 1, None]
    sep = (np.minimum(x0 * nx + y0 * ny, x1 * nx + y1 * ny) > off).any(axis=1)
    ax, ay = y0 - y1, x1 - x0  # the segment's normal
    proj = ax * g[:, X] + ay * g[:, Y]
    s0 = (ax * x0 + ay * y0)[:, 0]
    sep |= (proj.max(axis=1) < s0) | (proj.min(axis=1) > s0)
    return ~sep


def segments_clear(segs: np.ndarray, seg_job: np.ndarray, jobs: Jobs,
                   obs: PreparedObstacles) -> np.ndarray:
    """For each segment (n, 2, 2) of job ``seg_job[k]``: True when it meets none of that job's
    obstacles. Convex parts are box-tested and then separating-axis tested, every (segment, part)
    row; an obstacle of many corners is tested whole, by GEOS's prepared predicate, which
    indexes the polygon's edges — a long line through a field of small parts costs a few edge
    tests, not one test per part."""
    n = len(segs)
    clear = np.ones(n, dtype=bool)
    if n == 0:
        return clear
    first = jobs.big_ptr[seg_job]
    counts = jobs.big_ptr[seg_job + 1] - first
    if counts.any():
        geoms = shapely.linestrings(segs)
        point = np.all(segs[:, 0] == segs[:, 1], axis=1)
        if point.any():
            geoms[point] = shapely.points(segs[point, 0])
        for k, j in row_blocks(counts):
            hit = np.asarray(shapely.intersects(geoms[k], obs.tests[jobs.big_rows[first[k] + j]]),
                             dtype=bool)
            clear[k[hit]] = False
    lo = np.minimum(segs[:, 0], segs[:, 1])
    hi = np.maximum(segs[:, 0], segs[:, 1])
    first = jobs.sat_ptr[seg_job]
    for k, j in row_blocks(np.where(clear, jobs.sat_ptr[seg_job + 1] - first, 0)):
        part = jobs.sat_parts[first[k] + j]
        pb = obs.part_box[part]
        near = ((pb[:, 0] <= hi[k, 0]) & (pb[:, 2] >= lo[k, 0]) & (pb[:, 1] <= hi[k, 1])
                & (pb[:, 3] >= lo[k, 1]))
        k, part = k[near], part[near]
        if len(k):
            s = segs[k]
            clear[k[hits_paired(s[:, 0], s[:, 1], obs, part)]] = False
    return clear
