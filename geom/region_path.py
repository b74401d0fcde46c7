"""The shortest legal path to a region of end positions (rulebook §4.3, §8.5.3, §8.7.7: a
charge is measured along the real path to the nearest legal end).

The last leg of a shortest path to a region leaves a corner circle tangentially (or the start)
and meets the region at a local minimum of the distance along the leg: a vertex of the region,
the foot of a perpendicular on one of its edges, or a point where the circle itself enters the
region. Enumerating those per circle, cheapest bound first, finds the optimum for a polygonal
region.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import replace

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry import Point as SPoint
from shapely.geometry import Polygon, box
from shapely.geometry.base import BaseGeometry

from .freespace import TWO_PI, rel_angle
from .model import Point
from .navigator import Navigator, _Search, _xy
from .paths import EXACT_BOUND, Arc, Path, Segment, joined, polyline

ZONE_QUAD_SEGS = 32  # zones cut from target regions: circumscribed, at least 128-gons
TARGET_CUT_BOUND = 0.004  # worst-case length lost to that polygonisation (see _target)
STEP_SAMPLE = 0.05       # spacing of sampled ends inside clearance zones (_stepped_end)
STEP_SAMPLES_MAX = 240


# ---- path to a region -------------------------------------------------------------------
def path_to_region(nav: Navigator, start: Point, region: BaseGeometry) -> Path | None:
    start = _xy(start)
    if region is None or region.is_empty:
        return None
    if nav.unit.flying:
        t = nav.bf.table
        reg = region.intersection(box(0, 0, t.width, t.depth))
        if reg.is_empty:
            return None
        line = shapely.shortest_line(SPoint(start), reg)
        end = _xy(line.coords[-1])
        return nav._finish(Path((start, end), math.dist(start, end),
                                 (Segment(start, end),), flying=True))
    if region.covers(SPoint(start)):
        return nav._finish(Path((start,), 0.0))
    es = nav.escape(start)
    if es is None:
        return None
    s1 = es[0]
    target, cut_bound = _target(nav, region)
    path: Path | None = None
    if target.is_empty:
        pass
    elif target.covers(SPoint(s1)):
        path = Path((s1,), 0.0)
    else:
        path = best_to_region(nav._search(s1, None), target)
    if path is not None:
        path = joined(start, replace(path, error_bound=path.error_bound + cut_bound), None)
    stepped = _stepped_end(nav, start, region, target)
    if stepped is not None and (path is None or stepped.length < path.length - EXACT_BOUND):
        return stepped
    return nav._certify(path, lambda n: path_to_region(n, start, region))

# The gap rule is about passing between obstacles, not about stopping (§4.6): an end inside
# the clearance zone of a single obstacle (base contact with an enemy for a Size-3 model on a
# base smaller than 3", a base overhanging a top's edge) is a legal end that `shortest_path`
# reaches by a straight step from the free space (`escape`). `_target` cuts those ends out of
# the region, so they are searched here, by sampling the boundary of the part cut away (the
# cheapest such end lies on it: moving an end towards its escape point shortens the step).
def _stepped_end(nav: Navigator, start: Point, region: BaseGeometry, target: BaseGeometry
                 ) -> Path | None:
    t = nav.bf.table
    inside = region.intersection(box(0, 0, t.width, t.depth)).difference(target)
    if inside.is_empty or inside.area < 1e-8:
        return None
    # Only ends where the mover's base overlaps no obstacle itself (a base off the table,
    # on a wall, on another base, across a top's edge is no legal end whatever the region
    # says). With a base radius ≥ the clearance, as for every catalogue unit, nothing is
    # left and this search costs nothing.
    fs = nav.fs
    r = max(m.base.a for m in nav.unit.models)
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
            p = nav.shortest_path(start, _xy(q))
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

def _target(nav: Navigator, region: BaseGeometry) -> tuple[BaseGeometry, float]:
    """The region less the clearance zones (circumscribed polygons) and off-table parts."""
    x0, y0, x1, y1 = nav.fs.rect
    reg = region.intersection(box(x0, y0, x1, y1))
    if reg.is_empty or not len(nav.fs.obstacles):
        return reg, 0.0
    k0 = 1 / math.cos(math.pi / (4 * ZONE_QUAD_SEGS))
    idx = nav.fs.tree.query(reg, predicate="dwithin", distance=nav.fs.rho_max * k0)
    if len(idx) == 0:
        return reg, 0.0
    # The circumscribed zones stand out from the true ones by δ = ρ(sec(π/4q) − 1) radially,
    # but where the region's edge meets a zone at a grazing angle the cut end moves along
    # that edge by up to sqrt(2ρδ + δ²) (the chord of a circle grown by δ at tangency).
    # Pick q so that this worst case stays within TARGET_CUT_BOUND.
    rho = float(nav.fs.rho[idx].max())
    q = max(ZONE_QUAD_SEGS, math.ceil(math.pi * rho / (4 * TARGET_CUT_BOUND)))
    k = 1 / math.cos(math.pi / (4 * q))
    zones = [nav.fs.cores[j].buffer(nav.fs.rho[j] * k, quad_segs=q) for j in idx]
    cut = reg.difference(shapely.union_all(zones))
    delta = rho * (k - 1)
    return cut, math.sqrt(2 * rho * delta + delta * delta)



# finds the exact optimum.
def best_to_region(s: _Search, target: BaseGeometry) -> Path | None:
    fs = s.nav.fs
    C = fs.circles
    verts, edges = _region_features(target)
    shapely.prepare(target)
    best = math.inf
    best_path: Path | None = None
    n_circ = len(s.circle)
    node_ids = np.nonzero(np.isfinite(s.dist[:n_circ]))[0]
    # quick upper bounds: nearest region point straight from a reached node (or start)
    cand = np.concatenate([[s.S], node_ids])
    pts = s.xy[cand]
    dreg = np.asarray(shapely.distance(shapely.points(pts), target), dtype=float)
    lb = s.dist[cand] + dreg
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
                best_path = _finish_leg(s, int(cand[chunk[i]]), None, _xy(ends[i]))
            break
    # exact: legs from the start to region vertices and perpendicular feet
    src = s.xy[s.S]
    e_pts, e_len = _leg_targets(src[None, :], verts, edges)
    if len(e_len):
        o = np.argsort(e_len[0])
        o = o[e_len[0][o] < best]
        if len(o):
            clear = fs.segments_clear(np.repeat(src[None, :], len(o), axis=0), e_pts[0][o])
            hit = np.nonzero(clear)[0]
            if len(hit):
                i = o[hit[0]]
                best = float(e_len[0][i])
                best_path = _finish_leg(s, s.S, None, _xy(e_pts[0][i]))
    # exact: legs leaving each reached corner circle tangentially
    if not len(node_ids) or not len(C):
        return best_path
    circles = np.unique(s.circle[node_ids])
    dmin = np.full(len(C), np.inf)
    np.minimum.at(dmin, s.circle[node_ids], s.dist[node_ids])
    cdist = np.asarray(shapely.distance(shapely.points(np.column_stack((C.x, C.y))[circles]),
                                        target), dtype=float)
    clb = dmin[circles] + np.maximum(0.0, cdist - C.r[circles])
    heap = [(float(v), int(k)) for v, k in zip(clb, circles, strict=True)]
    heapq.heapify(heap)
    while heap:
        v, k = heapq.heappop(heap)
        if v >= best:
            break
        res = _circle_legs(s, k, node_ids, verts, edges, best)
        if res is not None:
            best, best_path = res
    return best_path

def _circle_legs(s: _Search, k: int, node_ids: NDArray[np.int64], verts: NDArray[np.float64],
                 edges: NDArray[np.float64], best: float) -> tuple[float, Path] | None:
    fs = s.nav.fs
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
    ok &= s.nav.graph.arcs.point_free(kk, rel)
    if not ok.any():
        return None
    rel, end, theta = rel[ok], end[ok], theta[ok]
    dep = np.column_stack((cx + r * np.cos(theta), cy + r * np.sin(theta)))
    leg = np.hypot(*(end - dep).T)
    # cost of reaching each departure point along the circle from a reached node
    on = node_ids[s.circle[node_ids] == k]
    arcs = s.nav.graph.arcs
    full = C.span[k] >= TWO_PI - 1e-9
    best_d = np.full(len(rel), np.inf)
    best_a = np.full(len(rel), -1)
    for a in on:
        ra, da = float(s.rel[a]), float(s.dist[a])
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
            arc_len = float(best_d[i] - s.dist[a])
            path = _finish_leg(s, a, (k, float(rel[i]), arc_len), _xy(end[i]))
            return float(total[i]), path
    return None

def _finish_leg(s: _Search, node: int, arc: tuple[int, float, float] | None,
                end: Point) -> Path:
    nodes = s.chain(node)
    pieces = s.pieces(nodes)
    length = float(s.dist[node])
    here = _xy(s.xy[node])
    if arc is not None:
        k, rel_u, arc_len = arc
        C = s.nav.fs.circles
        r = float(C.r[k])
        ra = float(s.rel[node])
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
    return Path(polyline(pieces, _xy(s.xy[s.S])), length, tuple(pieces))



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


