"""Slow, obviously-correct references for the movement tests (no code shared with geom.paths._freespace).

- `zones(bf, unit)`: the clearance rule restated directly: (geometry, required distance) pairs.
- `path_is_legal`: checks a Path piece by piece against those zones and the table box.
- `grid_path_length`: fine grid + 8-neighbour Dijkstra, every grid edge checked with GEOS.
"""

from __future__ import annotations

import heapq
import math
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, Point

from geom import bases
from geom.model import Battlefield, Unit


def dijkstra(adj: dict[int, list[tuple[int, float]]], source: int, target: int) -> float | None:
    """Plain Dijkstra over an adjacency list: the shortest distance, or None if unreachable."""
    dist: dict[int, float] = {source: 0.0}
    heap: list[tuple[float, int]] = [(0.0, source)]
    while heap:
        du, u = heapq.heappop(heap)
        if u == target:
            return du
        if du > dist.get(u, math.inf):
            continue
        for v, wv in adj.get(u, ()):
            nd = du + wv
            if nd < dist.get(v, math.inf):
                dist[v] = nd
                heapq.heappush(heap, (nd, v))
    return None

def zones(bf: Battlefield, unit: Unit, ignore: tuple[str, ...] = ()) -> list[tuple[Any, float]]:
    c = unit.gap_clearance / 2
    out: list[tuple[Any, float]] = []
    access = [a for p in bf.terrain for a in p.access_points]
    acc = shapely.union_all(access) if access else None
    raptor = "raptor-variant" in unit.abilities  # the card: passes Size <= 4, any elevation

    def is_level(p: Any) -> bool:
        return p.can_stand_on and (p.kind == "ramp" or bool(p.access_points) or p.size >= 2)

    def height(p: Any) -> int:
        return p.size + (height(bf.piece(p.on)) if p.on else 0)

    def band(h: int) -> int:
        return 2 if h >= 3 else 1 if h >= 1 else 0

    for p in bf.terrain:
        if p.kind == "force-field":  # FAQ: no Raptor exception
            if unit.size <= 2:
                out.append((p.footprint, c))
        elif raptor and p.size <= 4:
            continue
        elif is_level(p):
            edge = p.footprint.boundary
            if acc is not None:
                edge = edge.difference(acc)
            # touching tops of one elevation are connected: their shared edge is open
            for q in bf.terrain:
                if q.id != p.id and is_level(q) and band(height(q)) == band(height(p)) \
                        and p.footprint.distance(q.footprint) <= 1e-6:
                    edge = edge.difference(q.footprint.buffer(1e-5))
            if not edge.is_empty:
                out.append((edge, c))
        elif p.size >= 2 and p.kind != "grass":
            g = p.footprint
            for o in p.openings:
                g = g.difference(o)
            for top in bf.terrain:  # tops standing on this piece are walked on
                q = top
                while q.on is not None:
                    q = bf.piece(q.on)
                    if q.id == p.id and top.can_stand_on and (
                            top.kind == "ramp" or top.access_points or top.size >= 2):
                        g = g.difference(top.footprint)
                        for a in top.access_points:
                            g = g.difference(a)
            out.append((g, c))
    for m in bf.models():
        if m.unit == unit.id or m.burrowed or m.flying or m.unit in ignore or m.ref in ignore:
            continue
        if m.base.is_disc:
            out.append((Point(m.at), c + m.base.a))
        else:
            out.append((OvalZone(m.ellipse), c))
    return out


class OvalZone:
    """An oval base for the legality check: exact point distances (geom.bases), segments
    sampled every 0.002" (distance to a convex set is convex along a segment, so the dip
    between samples is below 1e-6")."""

    def __init__(self, e) -> None:
        self.e = e

    def distance(self, g) -> float:
        coords = shapely.get_coordinates(g)
        if g.geom_type == "LineString" and len(coords) > 1:
            n = max(2, int(math.dist(coords[0], coords[-1]) / 0.002) + 2)
            t = np.linspace(0, 1, n)[:, None]
            coords = coords[0] + t * (coords[-1] - coords[0])
        return float(bases.point_distance(self.e, coords).min())

    def distances(self, geoms) -> np.ndarray:
        return np.array([self.distance(g) for g in geoms])


def table_box(bf: Battlefield, unit: Unit) -> tuple[float, float, float, float]:
    # the base stays wholly over the table (the table edge makes no gap)
    c = max(unit.gap_clearance / 2, 0.0 if unit.flying else base_radius(unit))
    return (c, c, bf.table.width - c, bf.table.depth - c)


def base_radius(unit: Unit) -> float:
    return max(m.base.a for m in unit.models)


def base_zones(bf: Battlefield, unit: Unit, ignore: tuple[str, ...] = ()) -> list[tuple[Any,
                                                                                          float]]:
    """The zones of a base that touches nothing (F_r): a legal, gap-free subset of the free
    space, so paths in it bound the shortest legal length from above."""
    c = unit.gap_clearance / 2
    g = max(base_radius(unit) - c, 0.0)
    return [(z, d + g) for z, d in zones(bf, unit, ignore)]


def base_is_legal(bf: Battlefield, unit: Unit, pts, ignore: tuple[str, ...] = (),
                  tol: float = 1e-6) -> tuple[bool, str]:
    """The swept-base reference (GEOMETRY-RULES §6, revised): at every sample the real disc
    base overlaps no obstacle material, or the material under it is in two or more separate
    parts and the centre keeps c from everything. Material: terrain cores, tops' edges, model
    bases (discs of 1024 sides; ovals are polygons of 512)."""
    c = unit.gap_clearance / 2
    r = base_radius(unit)
    mats = []
    for z, d in zones(bf, unit, ignore):
        if isinstance(z, OvalZone):
            mats.append(z.e.polygon(512))
        elif d > c + 1e-12:
            mats.append(z.buffer(d - c, quad_segs=256))
        else:
            mats.append(z)
    if not mats:
        return True, "ok"
    material = shapely.union_all(mats)
    shapely.prepare(material)
    for x in np.asarray(pts, dtype=float).reshape(-1, 2):
        p = Point(x)
        d = material.distance(p)
        if d >= r - tol:
            continue
        if d < c - tol:
            return False, f"centre {tuple(x)} is {d:.6f} from an obstacle (needs {c})"
        if r <= c:
            continue
        under = p.buffer(r - tol, quad_segs=256).intersection(material)
        if shapely.get_num_geometries(under) < 2 or under.geom_type in ("Polygon", "LineString"):
            return False, f"base at {tuple(x)} overlaps one obstacle part ({d:.6f} < r {r:.4f})"
    return True, "ok"


def path_samples(path, step: float = 0.01) -> np.ndarray:
    out = []
    for pc in path.pieces:
        if hasattr(pc, "a"):
            n = max(2, int(math.dist(pc.a, pc.b) / step) + 2)
            t = np.linspace(0, 1, n)[:, None]
            out.append(np.array(pc.a) + t * (np.array(pc.b) - np.array(pc.a)))
        else:
            n = max(8, int(abs(pc.sweep) * pc.radius / step) + 2)
            th = pc.start + pc.sweep * np.linspace(0, 1, n + 1)
            out.append(np.column_stack((pc.centre[0] + pc.radius * np.cos(th),
                                        pc.centre[1] + pc.radius * np.sin(th))))
    return np.vstack(out) if out else np.zeros((0, 2))


def path_is_legal(bf: Battlefield, unit: Unit, path, ignore: tuple[str, ...] = (),
                  tol: float = 1e-6) -> tuple[bool, str]:
    """A path checked against the revised rule by sweeping the real base along it
    (`base_is_legal`) at 0.01" steps, after the old centre-clearance checks."""
    if not path.flying:
        ok, why = base_is_legal(bf, unit, path_samples(path), ignore, tol)
        if not ok:
            return ok, why
    zs = zones(bf, unit, ignore)
    x0, y0, x1, y1 = table_box(bf, unit)
    samples = []
    for pc in path.pieces:
        if hasattr(pc, "a"):
            samples.append(LineString([pc.a, pc.b]) if pc.a != pc.b else Point(pc.a))
        else:
            n = max(8, int(abs(pc.sweep) / 0.002))
            th = pc.start + pc.sweep * np.linspace(0, 1, n + 1)
            pts = np.column_stack((pc.centre[0] + pc.radius * np.cos(th),
                                   pc.centre[1] + pc.radius * np.sin(th)))
            samples.append(shapely.multipoints(pts))
    # pieces must join up and run from start to end
    for g in samples:
        bx0, by0, bx1, by1 = g.bounds
        if bx0 < x0 - tol or by0 < y0 - tol or bx1 > x1 + tol or by1 > y1 + tol:
            return False, f"leaves the table box at {g.bounds}"
        for z, d in zs:
            dd = z.distance(g)
            if dd < d - tol:
                return False, f"{g.wkt[:60]} is {dd:.6f} from an obstacle needing {d:.3f}"
    total = sum(pc.length for pc in path.pieces)
    if abs(total - path.length) > 1e-6:
        return False, f"pieces add up to {total}, reported {path.length}"
    return True, "ok"


def grid_path_length(bf: Battlefield, unit: Unit, start, goal, h: float = 0.1,
                     window: tuple[float, float, float, float] | None = None,
                     ignore: tuple[str, ...] = ()) -> float | None:
    """8-neighbour grid Dijkstra; start and goal joined to every grid node within 1.5 h. The
    grid keeps the whole base off everything (`base_zones`): an upper bound."""
    zs = base_zones(bf, unit, ignore)
    x0, y0, x1, y1 = window or table_box(bf, unit)
    bx0, by0, bx1, by1 = table_box(bf, unit)
    x0, y0, x1, y1 = max(x0, bx0), max(y0, by0), min(x1, bx1), min(y1, by1)
    xs = np.arange(x0, x1 + 1e-9, h)
    ys = np.arange(y0, y1 + 1e-9, h)
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    pts = np.column_stack((gx.ravel(), gy.ravel()))
    nx, ny = len(xs), len(ys)

    def clear_geoms(geoms):
        ok = np.ones(len(geoms), dtype=bool)
        for z, d in zs:
            dist = z.distances(geoms) if isinstance(z, OvalZone) else shapely.distance(geoms, z)
            ok &= dist >= d - 1e-9
        return ok

    free = clear_geoms(shapely.points(pts))
    idx = np.arange(nx * ny).reshape(nx, ny)
    edges = []
    for di, dj in ((1, 0), (0, 1), (1, 1), (1, -1)):
        jlo, jhi = max(0, -dj), ny - max(0, dj)
        a = idx[0:nx - di, jlo:jhi].ravel()
        b = idx[di:nx, jlo + dj:jhi + dj].ravel()
        keep = free[a] & free[b]
        a, b = a[keep], b[keep]
        segs = shapely.linestrings(np.stack([pts[a], pts[b]], axis=1))
        ok = clear_geoms(segs)
        step = h * math.hypot(di, dj)
        edges.append((a[ok], b[ok], np.full(ok.sum(), step)))
    n = nx * ny
    S, G = n, n + 1
    adj: dict[int, list[tuple[int, float]]] = {}
    for a, b, w in edges:
        for u, v, ww in zip(a.tolist(), b.tolist(), w.tolist(), strict=False):
            adj.setdefault(u, []).append((v, ww))
            adj.setdefault(v, []).append((u, ww))
    for node, p in ((S, start), (G, goal)):
        d = np.hypot(pts[:, 0] - p[0], pts[:, 1] - p[1])
        near = np.nonzero((d <= 1.5 * h) & free)[0]
        if len(near):
            segs = shapely.linestrings(np.stack([np.repeat([p], len(near), axis=0), pts[near]],
                                                axis=1))
            ok = clear_geoms(segs)
            for j, dd in zip(near[ok].tolist(), d[near][ok].tolist(), strict=False):
                adj.setdefault(node, []).append((j, dd))
                adj.setdefault(j, []).append((node, dd))
    if clear_geoms(np.array([LineString([start, goal])]))[0]:
        return math.dist(start, goal)
    return dijkstra(adj, S, G)


def visibility_path_length(bf: Battlefield, unit: Unit, start, goal, *, outer: bool,
                           quad_segs: int = 8) -> float | None:
    """Brute-force visibility graph around polygonised clearance zones.

    outer=True: zones grown to circumscribed polygons (paths around them are legal: an upper
    bound of the true shortest length); outer=False: inscribed polygons (a lower bound).
    """
    k = 1 / math.cos(math.pi / (4 * quad_segs)) if outer else 1.0
    # outer: the base off everything (F_r, a legal subset); inner: the centre rule alone
    # (a superset of the free space): bounds from above and below under the revised rule
    zs = base_zones(bf, unit) if outer else zones(bf, unit)
    if any(isinstance(z, OvalZone) for z, _ in zs):
        raise NotImplementedError("oval bases: use path_is_legal and the certified bound")
    polys = [z.buffer(d * k, quad_segs=quad_segs) for z, d in zs]
    U = shapely.union_all(polys)
    shapely.prepare(U)
    x0, y0, x1, y1 = table_box(bf, unit)
    nodes = [tuple(start), tuple(goal)]
    for poly in getattr(U, "geoms", [U]):
        if poly.is_empty:
            continue
        for ring in [poly.exterior, *poly.interiors]:
            xy = np.asarray(ring.coords)[:-1]
            nodes.extend(map(tuple, xy))
    pts = np.array(nodes)
    inside = ((pts[:, 0] >= x0 - 1e-9) & (pts[:, 0] <= x1 + 1e-9)
              & (pts[:, 1] >= y0 - 1e-9) & (pts[:, 1] <= y1 + 1e-9))
    keep = np.nonzero(inside)[0]
    pts = pts[keep]
    if keep[0] != 0 or keep[1] != 1:
        return None
    n = len(pts)
    iu, ju = np.triu_indices(n, 1)
    lines = shapely.linestrings(np.stack([pts[iu], pts[ju]], axis=1))
    blocked = shapely.relate_pattern(lines, U, "T********")
    iu, ju = iu[~blocked], ju[~blocked]
    w = np.hypot(*(pts[iu] - pts[ju]).T)
    adj: dict[int, list[tuple[int, float]]] = {}
    for a, b, ww in zip(iu.tolist(), ju.tolist(), w.tolist(), strict=False):
        adj.setdefault(a, []).append((b, ww))
        adj.setdefault(b, []).append((a, ww))
    return dijkstra(adj, 0, 1)


def eager_path_length(nav: Any, s: tuple[float, float], g: tuple[float, float]) -> float | None:
    """The shortest path between two free points on the *eager* tangent graph (every node and
    edge built at once, `geom.paths._navgraph.TangentGraph`) with scipy's Dijkstra: the reference the
    lazy search is compared with."""
    from scipy.sparse.csgraph import dijkstra as sp_dijkstra

    from geom.paths._navgraph import TangentGraph

    fs = nav.fs
    if fs.segments_clear(np.array([s]), np.array([g]))[0]:
        return math.dist(s, g)
    gr = TangentGraph.build(fs)
    N = gr.n_nodes
    ks, rs, ps, ds = gr.attach(s)
    kg, rg, pg, dg = gr.attach(g)
    ns, ng = len(ks), len(kg)
    S, G = N + ns + ng, N + ns + ng + 1
    circle = np.concatenate([gr.node_circle, ks, kg])
    rel = np.concatenate([gr.node_rel, rs, rg])
    query = np.zeros(len(circle), dtype=bool)
    query[N:] = True
    au, av, aw = gr.arc_edges(circle, rel, query)
    eu = np.concatenate([au, np.full(ns, S), np.full(ng, G)])
    ev = np.concatenate([av, np.arange(N, N + ns), np.arange(N + ns, N + ns + ng)])
    ew = np.concatenate([aw, np.maximum(ds, 1e-12), np.maximum(dg, 1e-12)])
    dist = sp_dijkstra(gr.matrix(eu, ev, ew, G + 1), directed=False, indices=S)
    return float(dist[G]) if np.isfinite(dist[G]) else None
