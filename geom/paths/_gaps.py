"""Gap clearance as the rulebook means it: two clearances, not one (rulebook §4.6, §8.5.3;
GEOMETRY-RULES §6 "Decision (revised)"; docs/rules.md#gap-clearance).

At every point of its path the leading model's base either overlaps no movement obstacle, or
it is *in a gap*: the obstacle material under the base falls into two or more separate parts,
and then the centre keeps at least half the required width `c` from every obstacle. For a
base of radius r > c the free space of the centre is F_r ∪ G (DESIGN-NOTES §2):

- F_r: every point at least r from all material (each obstacle's *base zone*
  {dist(x, core) < ρ + r − c});
- G: points whose disc(r) meets material in ≥ 2 separate parts — two merged parts within r,
  or one part met in two places (the two arms of a U) — and at least c from everything.

Touching material is merged into one part first (a seam is no gap). The free space's corners
are arcs of radius ρ + r − c round lone corners, radius ρ inside gaps (the existing corner
circles), and the *pinch points* where the base zones of two sides of a gap cross: there the
base touches both sides, and a path enters the gap. Pinch points are graph vertices (circles
of radius 0 turning through any angle).

Exactness: distances to cores are GEOS distances (exact to floating point); "two separate
parts within r" is decided by those distances; only "one part met in two places" asks shapely
for the parts of a polygonised disc ∩ the part (1024 sides: the rare U-arm case). A segment
is checked at its crossings with every base-zone boundary it meets and between them; where a
part is not one convex obstacle (two touching obstacles, an edge line with a bend, an L), a
base alone in it may also turn legal where its rim passes a corner of the part's outline or
becomes tangent to any one core edge, so those loci are crossings too (the verdict can change
only at crossings). Zone-boundary crossings come from polygonised zone boundaries (256 sides
per circle, ≤ 8e-5·r off), so a segment is decided to that precision; arcs are split at the
same loci (`FreeSpace.arc_events`).
A base narrower than the width (r ≤ c) keeps the single clearance c from everything, which is
legal (it overlaps nothing and never passes two parts closer than the width) but may be longer
than the shortest legal path.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry import LineString, Point
from shapely.geometry.base import BaseGeometry

from ..tolerance import GROWN_DISC, TOLERANCE, ZERO_LENGTH, ZONE_PARALLEL
from ._circles import CLEAR_TOL, TWO_PI, Circles, circle_events, corner_circles
from ._end_shapes import Arr
from ._pieces import Pieces, is_convex, material_of, pairs_by_owner

if TYPE_CHECKING:
    from ._freespace import FreeSpace

MERGE_TOL = 1e-6   # material closer than this is one part (abutting sections: a seam)
ZONE_SEGS = 64     # quad segments of polygonised base zones, for segment crossings
DISC_SEGS = 256    # quad segments of the base disc, for the one-part (U arms) test


def _concat(*cs: Circles) -> Circles:
    return Circles(*(np.concatenate([getattr(c, f) for c in cs])
                     for f in ("x", "y", "r", "start", "span", "obstacle")))


@dataclass
class GapModel:
    """Parts of the material and the base-zone tests of one free space (r > c). What only
    some questions need (the material's outlines, the polygonised zones, the convex pieces)
    is built when first asked: a coherency link's free space needs the parts alone."""

    fs: FreeSpace
    part: NDArray[np.int64]        # obstacle -> merged part
    extra: Arr                     # obstacle -> material radius about its core (ρ − c)
    convex: NDArray[np.bool_]      # part -> one convex obstacle (a base meets it once)
    convex_obstacle: NDArray[np.bool_]  # obstacle -> its core is convex
    touching: tuple[NDArray[np.int64], NDArray[np.int64]]  # obstacle pairs merged (i < j)

    @staticmethod
    def build(fs: FreeSpace) -> GapModel:
        n = len(fs.obstacles)
        extra = np.maximum(fs.rho - fs.clearance, 0.0)
        parent = list(range(n))

        def find(a: int) -> int:
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            return a

        i, j = fs.tree.query(fs.cores, predicate="dwithin", distance=2 * float(extra.max(
            initial=0.0)) + MERGE_TOL)
        keep = i < j
        i, j = i[keep].astype(np.int64), j[keep].astype(np.int64)
        if len(i):
            d = shapely.distance(fs.cores[i], fs.cores[j])
            touch = d <= extra[i] + extra[j] + MERGE_TOL
            i, j = i[touch], j[touch]
            for a, b in zip(i.tolist(), j.tolist(), strict=True):
                parent[find(a)] = find(b)
        roots = [find(a) for a in range(n)]
        ids = {r: k for k, r in enumerate(dict.fromkeys(roots))}
        part = np.array([ids[r] for r in roots], dtype=np.int64).reshape(n)
        members = np.bincount(part, minlength=len(ids))
        convex_obstacle = np.array([is_convex(o.core) for o in fs.obstacles],
                                   dtype=bool).reshape(n)
        convex = members == 1
        convex[part[~convex_obstacle]] = False
        return GapModel(fs, part, extra, convex, convex_obstacle, (i, j))

    @cached_property
    def material(self) -> list[BaseGeometry]:
        """part -> its material (polygonised discs for bases), prepared."""
        fs, extra = self.fs, self.extra
        mats: list[list[BaseGeometry]] = [[] for _ in range(len(self.convex))]
        for k, o in enumerate(fs.obstacles):
            mats[self.part[k]].append(material_of(o.core, float(extra[k]), DISC_SEGS))
        material = [shapely.union_all(m) for m in mats]
        for g in material:
            shapely.prepare(g)
        return material

    @cached_property
    def zone_bounds(self) -> NDArray[np.object_]:
        """obstacle -> boundary of its polygonised base zone (circumscribed: crossings are
        found a hair outside, never missed)."""
        fs = self.fs
        grow = 1.0 / np.cos(np.pi / (4 * ZONE_SEGS))
        return np.asarray(shapely.boundary(shapely.buffer(
            fs.cores, fs.rho_r * grow, quad_segs=ZONE_SEGS)), dtype=object)

    @cached_property
    def pieces(self) -> Pieces:
        """The material in convex pieces (geom.paths._pieces)."""
        return Pieces.build(self.fs.cores, self.extra, self.part, MERGE_TOL, DISC_SEGS)

    # A part that is not one convex obstacle may meet a base in two places; where a base in
    # it alone turns legal is then not only where it crosses a base zone's boundary but also
    # where its rim passes a corner of the part's outline (`corners`: the points where two
    # obstacles' outlines cross, and the ends of edge lines) or becomes tangent to any one
    # edge of a core (`loci`: per obstacle, its core's vertices and edges, at distance ρ_r).
    @cached_property
    def corners(self) -> Arr:
        """(n, 2) corners of non-convex parts' outlines."""
        return _outline_corners(self.fs, self.part, self.extra, self.convex, *self.touching)

    @cached_property
    def loci(self) -> tuple[Arr, NDArray[np.int64], Arr, NDArray[np.int64]]:
        """Core vertices (m, 2) and edges (k, 4) of obstacles in non-convex parts, each with
        its obstacle (ascending)."""
        co = self.fs.outlines
        v_in = ~self.convex[self.part[co.vert_of]]
        e_in = ~self.convex[self.part[co.edge_of]]
        return co.verts[v_in], co.vert_of[v_in], co.edges[e_in], co.edge_of[e_in]

    def in_base_zones(self, geoms: NDArray[np.object_]) -> tuple[NDArray[np.int64],
                                                                 NDArray[np.int64]]:
        """Pairs (geometry i, obstacle j) where geometry i enters obstacle j's base zone."""
        fs = self.fs
        i, j = fs.tree.query(geoms, predicate="dwithin", distance=fs.rho_r_max)
        if len(i):
            inside = shapely.distance(geoms[i], fs.cores[j]) < fs.rho_r[j] - CLEAR_TOL
            i, j = i[inside], j[inside]
        return i, j

    # ---- points ------------------------------------------------------------------------------
    def points_ok(self, p: Arr, ok: NDArray[np.bool_],
                  zone_pairs: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None
                  ) -> NDArray[np.bool_]:
        """For points already clear of every c-zone (`ok`): are they off every base zone, or
        in a gap? `zone_pairs`: (point, obstacle) pairs of base zones entered, if known."""
        fs = self.fs
        out = np.ones(len(p), dtype=bool)
        idx = np.nonzero(ok)[0]
        if not len(idx):
            return out
        pts = shapely.points(p[idx])
        i, j = self._pairs(len(p), idx, pts, zone_pairs)
        if not len(i):
            return out
        parts = self.part[j]
        # points within the base zone of exactly one part
        lo = np.full(len(idx), -1, dtype=np.int64)
        hi = np.full(len(idx), -1, dtype=np.int64)
        np.maximum.at(hi, i, parts)
        lo[:] = hi.max(initial=0) + 1
        np.minimum.at(lo, i, parts)
        lone = (hi >= 0) & (lo == hi)
        # a disc meeting one convex obstacle only (a convex part, or one member of a part
        # whose other members it does not reach) meets it in one piece: no shapely needed
        n_obs = np.bincount(i, minlength=len(idx))
        one = np.zeros(len(idx), dtype=np.int64)
        one[i] = j
        simple = lone & ((self.convex[np.maximum(hi, 0)])
                         | ((n_obs == 1) & self.convex_obstacle[one]))
        out[idx[simple]] = False
        r = fs.radius
        rest = np.nonzero(lone & ~simple)[0]
        if not len(rest):
            return out
        # the points whose obstacles are all cut into convex pieces: the pieces each meets
        # counted for all of them at once (`Pieces.counts_met`); the others by an overlay
        cut = np.ones(len(idx), dtype=bool)
        np.logical_and.at(cut, i, self.pieces.decides[j])
        mine = np.zeros(len(idx), dtype=bool)
        mine[rest] = True
        pk, po = np.unique(np.stack([i, j]), axis=1)  # by point, then obstacle, each once
        sel = mine[pk] & cut[pk]
        met = self.pieces.counts_met(pts, r, pk[sel], po[sel])
        for k in rest.tolist():
            if cut[k]:
                if met[k] < 2:
                    out[idx[k]] = False
                continue
            disc = shapely.buffer(pts[k], r, quad_segs=DISC_SEGS)
            mat = self.material[int(hi[k])]
            x0, y0, x1, y1 = disc.bounds
            # the part's material cut to the disc's box first: the overlay then handles only
            # what lies under the base (a unit of bases in contact is thousands of vertices)
            under = shapely.intersection(disc, shapely.clip_by_rect(mat, x0, y0, x1, y1))
            if shapely.get_num_geometries(under) < 2 or under.geom_type in (
                    "Polygon", "LineString", "Point"):
                out[idx[k]] = False
        return out

    # ---- segments ------------------------------------------------------------------------------
    def _pairs(self, n: int, idx: NDArray[np.int64], geoms: NDArray[np.object_],
               zone_pairs: tuple[NDArray[np.int64], NDArray[np.int64]] | None
               ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Base zones entered by geoms (of items idx among n): (position in idx, obstacle)."""
        if zone_pairs is None:
            return self.in_base_zones(geoms)
        pos = np.full(n, -1, dtype=np.int64)
        pos[idx] = np.arange(len(idx))
        item, j = zone_pairs
        at = pos[item]
        keep = at >= 0
        return at[keep], j[keep]

    def segments_ok(self, p: Arr, q: Arr, ok: NDArray[np.bool_],
                    zone_pairs: tuple[NDArray[np.int64], NDArray[np.int64]] | None = None
                    ) -> NDArray[np.bool_]:
        """For segments already clear of every c-zone: is every point of each off every base
        zone or in a gap? Tested at the midpoints between its crossings (module docstring)
        and at its ends. `zone_pairs`: (segment, obstacle) pairs of base zones entered."""
        out = np.ones(len(p), dtype=bool)
        idx = np.nonzero(ok & (np.hypot(*(p - q).T) > ZERO_LENGTH))[0]
        if not len(idx):
            return out
        lines = shapely.linestrings(np.stack([p[idx], q[idx]], axis=1))
        i, j = self._pairs(len(p), idx, lines, zone_pairs)
        if not len(i):
            return out
        xs = shapely.intersection(lines[i], self.zone_bounds[j])
        coords, which = shapely.get_coordinates(xs, return_index=True)
        seg = i[which]
        a, b = p[idx], q[idx]
        v = b - a
        L2 = (v * v).sum(axis=1)
        t_parts = [np.zeros(len(idx)), np.ones(len(idx))]
        s_parts = [np.arange(len(idx)), np.arange(len(idx))]
        if len(coords):
            t = ((coords - a[seg]) * v[seg]).sum(axis=1) / L2[seg]
            t_parts.append(np.clip(t, 0.0, 1.0))
            s_parts.append(seg)
        extra_t = self._loci_crossings(a, v, L2, i, j)
        if extra_t is not None:
            t_parts.append(extra_t[1])
            s_parts.append(extra_t[0])
        involved = np.unique(i)
        mask = np.isin(np.concatenate(s_parts), involved)
        T = np.concatenate(t_parts)[mask]
        S = np.concatenate(s_parts)[mask]
        order = np.lexsort((T, S))
        T, S = T[order], S[order]
        same = S[1:] == S[:-1]
        mids = ((T[1:] + T[:-1]) / 2)[same]
        ms = S[1:][same]
        ts = np.concatenate([mids, T])
        ss = np.concatenate([ms, S])
        pts = a[ss] + ts[:, None] * v[ss]
        good = self.points_ok(pts, np.ones(len(pts), dtype=bool))
        bad = np.unique(ss[~good])
        out[idx[bad]] = False
        return out

    def _loci_crossings(self, a: Arr, v: Arr, L2: Arr, i: NDArray[np.int64],
                        j: NDArray[np.int64]) -> tuple[NDArray[np.int64], Arr] | None:
        """Where segments a + t·v (pairs (segment i, obstacle j) in a base zone) cross the
        loci at which a base alone in a non-convex part may turn legal: circles of radius
        ρ_r about the obstacle's core vertices and lines ρ_r off its core edges, circles of
        radius r about the part's outline corners. (segment, t) pairs, or None."""
        odd = ~self.convex[self.part[j]]
        if not odd.any():
            return None
        fs = self.fs
        i, j = i[odd], j[odd]
        segs: list[NDArray[np.int64]] = []
        ts: list[Arr] = []
        # circles: (segment, centre, radius)
        cs, cc, cr = [], [], []
        loci_v, loci_v_of, loci_e, loci_e_of = self.loci
        if len(loci_v_of):
            si, pi = pairs_by_owner(i, j, loci_v_of)
            cs.append(si)
            cc.append(loci_v[pi])
            cr.append(fs.rho_r[loci_v_of[pi]])
        if len(self.corners):
            su = np.unique(i)
            si = np.repeat(su, len(self.corners))
            cs.append(si)
            cc.append(np.tile(self.corners, (len(su), 1)))
            cr.append(np.full(len(si), fs.radius))
        if cs:
            s_, c_, r_ = np.concatenate(cs), np.vstack(cc), np.concatenate(cr)
            w = a[s_] - c_
            B = (w * v[s_]).sum(axis=1)
            C = (w * w).sum(axis=1) - r_ * r_
            disc = B * B - L2[s_] * C
            ok = disc > 0
            sq = np.sqrt(np.where(ok, disc, 0.0))
            for sign in (-1.0, 1.0):
                t = (-B + sign * sq) / L2[s_]
                keep = ok & (t > 0) & (t < 1)
                segs.append(s_[keep])
                ts.append(t[keep])
        if len(loci_e_of):
            si, ei = pairs_by_owner(i, j, loci_e_of)
            e = loci_e[ei]
            A, d = e[:, 0:2], e[:, 2:4] - e[:, 0:2]
            Le = np.hypot(d[:, 0], d[:, 1])
            good = Le > ZERO_LENGTH
            si, A, d, Le, ei = si[good], A[good], d[good], Le[good], ei[good]
            u = d / Le[:, None]
            nrm = np.column_stack((-u[:, 1], u[:, 0]))
            R = fs.rho_r[loci_e_of[ei]]
            vn = (v[si] * nrm).sum(axis=1)
            an = ((a[si] - A) * nrm).sum(axis=1)
            par = np.abs(vn) > ZONE_PARALLEL
            for sign in (-1.0, 1.0):
                t = (sign * R - an) / np.where(par, vn, 1.0)
                x = a[si] + t[:, None] * v[si]
                along = ((x - A) * u).sum(axis=1)
                keep = par & (t > 0) & (t < 1) & (along >= 0) & (along <= Le)
                segs.append(si[keep])
                ts.append(t[keep])
        if not segs:
            return None
        return np.concatenate(segs), np.concatenate(ts)


def _outline(g: BaseGeometry) -> BaseGeometry:
    return g.boundary if g.geom_type in ("Polygon", "MultiPolygon") else g


def _outline_corners(fs: FreeSpace, part: NDArray[np.int64], extra: Arr,
                     convex: NDArray[np.bool_], ti: NDArray[np.int64],
                     tj: NDArray[np.int64]) -> Arr:
    """Corners of non-convex parts' outlines that no single core has: where the outlines of
    two touching obstacles' material cross, and the ends of edge lines (a rim passing one
    changes how many pieces of material the base meets)."""
    out: list[Arr] = []

    def material(k: int) -> BaseGeometry:
        return material_of(fs.cores[k], float(extra[k]), DISC_SEGS)

    for a, b in zip(ti.tolist(), tj.tolist(), strict=True):
        if convex[part[a]]:
            continue
        x = shapely.intersection(_outline(material(a)), _outline(material(b)))
        if not x.is_empty:
            out.append(shapely.get_coordinates(x))
    for k, o in enumerate(fs.obstacles):
        if not convex[part[k]] and o.core.geom_type in ("LineString", "MultiLineString") \
                and extra[k] == 0:
            out.append(shapely.get_coordinates(o.core.boundary))
    if not out:
        return np.zeros((0, 2))
    return np.unique(np.round(np.vstack(out), 12), axis=0)


def gap_circles(fs: FreeSpace) -> Circles:
    """The corner circles of the two-clearance free space: radius ρ (inside gaps), ρ + r − c
    (lone corners), and the pinch points (radius 0, any turn) where base zones cross."""
    grown = [replace(o, rho=o.rho + fs.grow) for o in fs.obstacles]
    C_c = corner_circles(fs.obstacles)
    C_r = corner_circles(grown)
    both = _concat(C_c, C_r)
    k, rel = circle_events(fs, C_r)
    th = C_r.start[k] + rel
    pts = np.column_stack((C_r.x[k] + C_r.r[k] * np.cos(th), C_r.y[k] + C_r.r[k] * np.sin(th)))
    pts = _pinches(fs, pts, C_r.obstacle[k])
    n = len(pts)
    pinch = Circles(pts[:, 0].copy(), pts[:, 1].copy(), np.zeros(n), np.zeros(n),
                    np.full(n, TWO_PI), np.full(n, -1, dtype=np.int64))
    return _concat(both, pinch)


def _pinches(fs: FreeSpace, pts: Arr, own: NDArray[np.int64]) -> Arr:
    """Of the crossings of a lone-corner circle with another base-zone boundary, those where
    the base touches two separate parts (or one part in two places) and may stand: pinch
    points of the free space."""
    if not len(pts):
        return pts.reshape(0, 2)
    pts = np.unique(np.round(pts, 12), axis=0)
    gm = fs.gaps
    sp = shapely.points(pts)
    i, j = fs.tree.query(sp, predicate="dwithin", distance=fs.rho_r_max + TOLERANCE)
    d = shapely.distance(sp[i], fs.cores[j])
    touch = np.abs(d - fs.rho_r[j]) <= TOLERANCE
    i, j = i[touch], j[touch]
    n_parts = np.zeros(len(pts), dtype=np.int64)
    for a in np.unique(i).tolist():
        n_parts[a] = len(set(gm.part[j[i == a]].tolist()))
    cand = n_parts >= 1
    ok = fs.points_clear(pts) & cand
    two = n_parts >= 2
    keep = ok & two
    # one part touched in two places (the arms of a U) — shapely on the slightly grown disc
    for a in np.nonzero(ok & ~two)[0].tolist():
        disc = shapely.buffer(sp[a], fs.radius + GROWN_DISC, quad_segs=DISC_SEGS)
        pj = j[i == a]
        under = shapely.intersection(disc, gm.material[int(gm.part[pj[0]])])
        if shapely.get_num_geometries(under) >= 2:
            keep[a] = True
    del own
    return pts[keep]


# ---- a line through gaps: coherency links (§4.4, FAQ; GEOMETRY-RULES §7) ----------------------

LINK_SEGS = 256  # quad segments of the c-zones a link is cut by: ≤ 2e-6·c inside the true arc


def line_blockers(fs: FreeSpace, a: tuple[float, float], b: tuple[float, float],
                  exempt: Sequence[tuple[tuple[float, float], float]] = ()) -> list[str]:
    """What stops a coherency link from a to b, by the revised rule: a link is a line, not a
    base. It may not cross obstacle material, and no point of it may lie within half the
    leading model's required width (`fs.clearance`) of two separate parts of material at once
    — a gap the leading model could not pass. Material that touches is one part (a seam).

    `exempt`: discs (centre, radius) of the link's own end models that stand in such a gap
    (as a model may, FAQ): the stretch under that base is where the model stands, not a gap
    the link passes. Returns the refs of the obstacles crossed or pinching, [] when valid.

    Exact at the width's limit between straight faces (their c-offsets are exact lines); at
    corners the c-zones are polygons inscribed in their arcs (≤ 2e-6·c off).
    """
    gm: GapModel = fs.gaps
    line = LineString([a, b]) if a != b else Point(a)
    j = _c_zones_met(fs, line)
    out: set[str] = set()
    for k in j.tolist():
        o = fs.obstacles[k]
        extra = float(gm.extra[k])
        core = o.core
        if extra > 0:
            crossed = float(shapely.distance(line, core)) < extra - TOLERANCE
        elif "LineString" in core.geom_type:  # a raised top's edge: may not cross it
            crossed = bool(line.intersects(core))
        else:
            crossed = bool(shapely.relate_pattern(line, core, "T********"))
        if crossed:
            out.add(o.ref)
    parts = sorted(set(gm.part[j].tolist()))
    if len(parts) >= 2:
        cut: BaseGeometry = line
        if exempt:
            cut = line.difference(shapely.union_all(
                [shapely.buffer(Point(c), r) for c, r in exempt]))
        pieces = {}
        for p in parts:
            ks = j[gm.part[j] == p]
            zone = shapely.union_all(shapely.buffer(fs.cores[ks], fs.rho[ks], quad_segs=LINK_SEGS))
            pieces[p] = (ks, cut.intersection(zone))
        for x, p in enumerate(parts):
            for q in parts[x + 1:]:
                both = pieces[p][1].intersection(pieces[q][1])
                if both.length > TOLERANCE:
                    for ks in (pieces[p][0], pieces[q][0]):
                        near = ks[np.argmin(shapely.distance(both, fs.cores[ks]) - fs.rho[ks])]
                        out.add(fs.obstacles[int(near)].ref)
    return sorted(out)


def point_in_narrow_gap(fs: FreeSpace, p: tuple[float, float]) -> bool:
    """Is p within the clearance of two separate parts of material at once?"""
    gm: GapModel = fs.gaps
    return len(set(gm.part[_c_zones_met(fs, Point(p))].tolist())) >= 2


def _c_zones_met(fs: FreeSpace, g: BaseGeometry) -> NDArray[np.int64]:
    """The obstacles whose clearance zone (within ρ of the core) the geometry enters."""
    j = fs.tree.query(g, predicate="dwithin", distance=fs.rho_max)
    if len(j):
        j = j[shapely.distance(g, fs.cores[j]) < fs.rho[j] - TOLERANCE]
    return j.astype(np.int64)


# ---- where a path passes a gap (for pictures: a judge sees the gap and its width) ------------

@dataclass(frozen=True)
class GapPassed:
    """A gap a path squeezes through: the narrowest line across it near the path (from one
    side's material to the other's), its width in inches, and the two sides' refs."""

    a: tuple[float, float]
    b: tuple[float, float]
    width: float
    sides: tuple[str, str]


def gaps_passed(fs: FreeSpace, points: Sequence[tuple[float, float]], step: float = 0.05
                ) -> list[GapPassed]:
    """The gaps along a path (a polyline of centre points) where the moving base overlaps two
    separate parts of material: one entry per pair of parts, in path order."""
    if not fs.two_clearances or len(points) < 2:
        return []
    gm: GapModel = fs.gaps
    pts = np.asarray(points, dtype=float)
    seg = np.diff(pts, axis=0)
    n = np.maximum(2, (np.hypot(*seg.T) / step).astype(int) + 2)
    samples = np.vstack([pts[k] + np.linspace(0, 1, n[k])[:, None] * seg[k]
                         for k in range(len(seg))])
    sp = shapely.points(samples)
    r = fs.radius
    i, j = gm.in_base_zones(sp)  # the base overlaps obstacle j's material at sample i
    out: list[GapPassed] = []
    seen: set[tuple[int, int]] = set()
    for s in np.unique(i).tolist():
        ks = j[i == s]
        parts = sorted(set(gm.part[ks].tolist()))
        for x, p in enumerate(parts):
            for q in parts[x + 1:]:
                if (p, q) in seen:
                    continue
                seen.add((p, q))
                local = shapely.buffer(sp[s], r + fs.clearance)
                mp = shapely.intersection(gm.material[p], local)
                mq = shapely.intersection(gm.material[q], local)
                if mp.is_empty or mq.is_empty:
                    continue
                line = shapely.shortest_line(mp, mq)
                (ax, ay), (bx, by) = shapely.get_coordinates(line)
                refs = []
                for part in (p, q):
                    kp = ks[gm.part[ks] == part]
                    near = kp[np.argmin(shapely.distance(sp[s], fs.cores[kp]) - fs.rho[kp])]
                    refs.append(fs.obstacles[int(near)].ref)
                out.append(GapPassed((float(ax), float(ay)), (float(bx), float(by)),
                                     float(math.hypot(bx - ax, by - ay)), (refs[0], refs[1])))
    return out
