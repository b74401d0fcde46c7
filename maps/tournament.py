"""Mission markers never sit on impassable terrain: the terrain moves, the marker never does
(rulebook §9.3 last step of battlefield set-up; tournament rules "임무 마커와 통과 불가 지형";
docs/rules.md#marker-terrain).

The rule: when a marker's coordinates fall on impassable terrain, that terrain is moved to the
nearest legal spot from where it was ("원래 좌표에서 가장 가까운 합법적 위치"), as close to the
marker as it can be without overlapping it (§9.3). The player not associated with the marker's
colour decides how; with several equally near spots that player picks the direction; for the
neutral marker 5 a roll-off decides who moves it.

Decisions (the rulebook does not spell these out; see docs/maps.md):

- *Impassable terrain* is a piece of Size 2+ that is not GRASS (`TerrainPiece.impassable`) and
  has no standable top: markers may sit on mid and high ground (§9.3), so a plateau under a
  marker is not moved — unless no ground unit can reach that top: a standable piece of Size 2+
  with no access point to a reachable elevation, not touching a reachable top of its level and
  not touching an entry edge (`geom.paths`; keyword IMPASSABLE TERRAIN: "terrain with no access
  point leading to an adjacent elevation is impassable") is impassable for this rule, so it is
  moved off a marker like a wall. Entry edges are the deployment card's; with no card, every
  edge that could be one (`maps.loader.default_entry_edges`).
- A marker *falls on* a piece when its 32 mm disc overlaps the footprint's interior by more than
  the 1e-6" tolerance (touching is not overlapping).
- A *legal spot* keeps the piece's orientation (a translation only), keeps the whole footprint on
  the table, and overlaps no marker disc and no other impassable footprint (touching is fine).
  Units are ignored: the move happens at set-up, before any unit arrives. With
  ``avoid_all_terrain=True`` the spot must also overlap no other terrain at all (Size 0/1,
  grass; tokens excepted), which is what a physical table forces.
- An official L wall (two transcribed arms) moves as one piece; pieces stacked on a moved piece
  (`on`) move with it.
- Pieces are handled marker by marker (1..5), piece by piece in id order, each against the
  current positions of all the others, so every move respects the moves before it.
- *Nearest* is exact up to the polygonised marker disc: the marker is replaced by its
  circumscribed 256-gon, so a move is never short of legal and at most 5e-5" longer than the
  exact minimum. Spots within 1e-3" of the minimum distance count as equally near.

How: a translation t is legal when t lies in the rectangle that keeps the footprint on the table
and outside every Minkowski sum obstacle ⊕ (−footprint) (computed exactly for convex parts as the
hull of pairwise vertex sums; non-convex footprints are cut into triangles first). The nearest
legal translation is the point of that region nearest the origin.

>>> from geom.model import Battlefield, Table, TerrainPiece, Marker
>>> from shapely.geometry import box
>>> bf = Battlefield(Table(54, 36), (TerrainPiece("wall", 2, box(26, 17, 28, 19)),),
...                  markers=(Marker(5, (27, 18)),))
>>> new_bf, shifts = shift_terrain_off_markers(bf)
>>> s = shifts[0]
>>> s.piece, s.marker, s.chooser, round(s.distance, 3)
('wall', 5, 'roll-off', 1.63)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import shapely
from shapely import affinity
from shapely.geometry import Point as SPoint
from shapely.geometry import Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from geom.elevation import stacked_with
from geom.model import Battlefield, Marker, Point, TerrainPiece
from geom.paths import unreachable_tops
from geom.tolerance import TOLERANCE

from .loader import PhysicalPiece, default_entry_edges, physical_pieces

RULE = "9.3 mission markers and impassable terrain (tournament rules)"
MARKER_POLYGON_SIDES = 256
TIE_TOLERANCE = 1e-3  # inches: spots this close to the minimum distance are "equally near"


@dataclass(frozen=True)
class TerrainShift:
    """One piece moved off a marker (or the reason it could not be)."""

    piece: str  # physical piece id (an L wall's group id, else the terrain id)
    parts: tuple[str, ...]  # terrain ids that move together (arms, pieces stacked on them)
    marker: int  # the marker the piece covered (the lowest id if several)
    chooser: str  # "red" | "blue" | "roll-off": who decides how the piece moves
    moved: bool
    reason: str
    start: Point | None = None  # footprint centroid before
    end: Point | None = None  # footprint centroid after
    displacement: Point | None = None
    distance: float | None = None
    tied: bool = False  # several equally near spots: the chooser picks the direction
    alternatives: tuple[Point, ...] = ()  # displacements of the other equally near spots
    covers: tuple[int, ...] = field(default=())  # every marker the piece covered

    def as_dict(self) -> dict[str, object]:
        return {"piece": self.piece, "parts": list(self.parts), "marker": self.marker,
                "covers": list(self.covers), "chooser": self.chooser, "moved": self.moved,
                "reason": self.reason, "from": _list(self.start), "to": _list(self.end),
                "displacement": _list(self.displacement), "distance": self.distance,
                "tied": self.tied, "alternatives": [list(a) for a in self.alternatives],
                "rule": RULE}


def _list(p: Point | None) -> list[float] | None:
    return None if p is None else [p[0], p[1]]


def chooser_for(marker: Marker) -> str:
    """The player not associated with the marker's colour; a roll-off for neutral markers."""
    return {"red": "blue", "blue": "red"}.get(marker.colour, "roll-off")


def marker_radius(marker: Marker) -> float:
    return marker.base.a


def entry_edges(bf: Battlefield) -> list[BaseGeometry]:
    """Every entry edge of the deployment card (either player's); with no card, every edge
    that could be one."""
    if bf.deployment is not None:
        return [e for edges in bf.deployment.entry_edges.values() for e in edges]
    return [e for cand in default_entry_edges(bf.table) for edges in cand.values() for e in edges]


def impassable_for_markers(bf: Battlefield) -> dict[str, str]:
    """Piece id -> why markers may not sit on it: impassable terrain, or a standable top no
    ground unit can reach (then impassable for this rule, keyword IMPASSABLE TERRAIN)."""
    out: dict[str, str] = {}
    unreachable: dict[str, str] | None = None
    for p in bf.terrain:
        if not p.impassable or p.is_token:
            continue
        if not p.can_stand_on:
            out[p.id] = "impassable"
            continue
        if unreachable is None:
            unreachable = unreachable_tops(bf, entry_edges(bf))
        if p.id in unreachable:
            out[p.id] = f"a standable top no ground unit can reach ({unreachable[p.id]})"
    return out


def covers_marker(footprint: BaseGeometry, marker: Marker) -> bool:
    """The marker's disc overlaps the footprint's interior (touching does not count)."""
    return float(shapely.distance(footprint, SPoint(marker.at))) < marker_radius(marker) - TOLERANCE


def covered_markers(bf: Battlefield) -> list[tuple[Marker, PhysicalPiece]]:
    """(marker, piece) for every piece a marker falls on that it may not sit on."""
    movable = impassable_for_markers(bf)
    out = []
    for m in sorted(bf.markers, key=lambda m: m.id):
        for pp in physical_pieces(bf):
            if any(p.id in movable and covers_marker(p.footprint, m) for p in pp.parts):
                out.append((m, pp))
    return out


# ------------------------------------------------------------------------ Minkowski sums

def _convex_parts(g: BaseGeometry) -> list[np.ndarray]:
    """Vertex arrays of convex pieces whose union is g."""
    polys = [g] if isinstance(g, Polygon) else list(getattr(g, "geoms", []))
    out: list[np.ndarray] = []
    for p in polys:
        if p.is_empty or p.area <= 0:
            continue
        hull = p.convex_hull
        if hull.area - p.area <= 1e-9 * max(1.0, p.area):
            out.append(np.asarray(hull.exterior.coords)[:-1])
            continue
        tris = shapely.constrained_delaunay_triangles(p)
        for t in getattr(tris, "geoms", []):
            if t.area > 0:
                out.append(np.asarray(t.exterior.coords)[:-1])
    return out


def _minkowski(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> BaseGeometry:
    """A ⊕ B for unions of convex vertex sets: the union of the hulls of pairwise sums."""
    hulls = []
    for va in a:
        for vb in b:
            pts = (va[:, None, :] + vb[None, :, :]).reshape(-1, 2)
            hulls.append(shapely.convex_hull(shapely.multipoints(pts)))
    return shapely.union_all(hulls)


def _disc(marker: Marker) -> Polygon:
    """The marker disc's circumscribed polygon (slightly larger: moves are never short)."""
    n = MARKER_POLYGON_SIDES
    r = marker_radius(marker) / math.cos(math.pi / n)
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return Polygon(np.column_stack((marker.at[0] + r * np.cos(t), marker.at[1] + r * np.sin(t))))


def _on_table_translations(bf: Battlefield, fp: BaseGeometry) -> BaseGeometry:
    minx, miny, maxx, maxy = fp.bounds
    x0, x1 = -minx, bf.table.width - maxx
    y0, y1 = -miny, bf.table.depth - maxy
    if x1 < x0 - TOLERANCE or y1 < y0 - TOLERANCE:
        return Polygon()
    x1, y1 = max(x0, x1), max(y0, y1)
    if x1 - x0 < 1e-12 or y1 - y0 < 1e-12:
        return shapely.LineString([(x0, y0), (x1, y1)])
    return box(x0, y0, x1, y1)


def nearest_legal_translation(bf: Battlefield, fp: BaseGeometry,
                              obstacles: Iterable[BaseGeometry]
                              ) -> tuple[Point, tuple[Point, ...]] | None:
    """The shortest translation t with fp + t on the table and overlapping no obstacle's
    interior, and the other equally near translations (one per direction); None if none."""
    neg = [-v for v in _convex_parts(fp)]
    sums = [_minkowski(_convex_parts(o), neg) for o in obstacles]
    forbidden = shapely.union_all(sums) if sums else Polygon()
    allowed = _on_table_translations(bf, fp).difference(forbidden)
    if allowed.is_empty:
        return None
    origin = SPoint(0, 0)
    if allowed.distance(origin) == 0.0 and not forbidden.contains(origin):
        return (0.0, 0.0), ()
    p = nearest_points(allowed, origin)[0]
    best = (p.x, p.y)
    return best, _other_minima(allowed, best)


def _other_minima(allowed: BaseGeometry, best: Point, limit: int = 8) -> tuple[Point, ...]:
    """Other local minima of the distance to the origin along the boundary of the allowed
    region that are as near as `best` (within TIE_TOLERANCE) but elsewhere (> 0.01" away)."""
    d_best = math.hypot(*best)
    rings = [shapely.get_coordinates(r) for r in
             getattr(allowed.boundary, "geoms", [allowed.boundary]) if not r.is_empty]
    cands: list[tuple[float, Point]] = []
    for pts in rings:
        if len(pts) < 2:
            continue
        a, b = pts[:-1], pts[1:]
        ab = b - a
        ll = np.einsum("ij,ij->i", ab, ab)
        t = np.clip(np.where(ll > 0, -np.einsum("ij,ij->i", a, ab) / np.where(ll > 0, ll, 1), 0),
                    0, 1)
        foot = a + t[:, None] * ab
        ds = np.hypot(foot[:, 0], foot[:, 1])
        closed = bool(np.allclose(pts[0], pts[-1]))
        prev = np.roll(ds, 1) if closed else np.concatenate(([np.inf], ds[:-1]))
        nxt = np.roll(ds, -1) if closed else np.concatenate((ds[1:], [np.inf]))
        for i in np.nonzero((ds <= prev) & (ds <= nxt) & (ds <= d_best + TIE_TOLERANCE))[0]:
            cands.append((float(ds[i]), (float(foot[i, 0]), float(foot[i, 1]))))
    out: list[Point] = []
    for _, q in sorted(cands):
        if all(math.dist(q, r) > 10 * TIE_TOLERANCE for r in [best, *out]):
            out.append(q)
            if len(out) >= limit:
                break
    return tuple(out)


# ------------------------------------------------------------------------ the rule

def _translated(p: TerrainPiece, dx: float, dy: float) -> TerrainPiece:
    return replace(
        p, footprint=affinity.translate(p.footprint, dx, dy),
        openings=tuple(affinity.translate(o, dx, dy) for o in p.openings),
        access_points=tuple(affinity.translate(a, dx, dy) for a in p.access_points))


def shift_terrain_off_markers(bf: Battlefield, *, avoid_all_terrain: bool = False
                              ) -> tuple[Battlefield, list[TerrainShift]]:
    """Move every impassable piece a marker falls on to its nearest legal spot.

    Returns the new battlefield (markers unchanged) and one `TerrainShift` per piece.
    """
    shifts: list[TerrainShift] = []
    handled: set[str] = set()
    for marker, pp in covered_markers(bf):
        if pp.id in handled:
            continue
        handled.add(pp.id)
        # re-read the piece: an earlier move may not have touched it, but keep it current
        parts = tuple(bf.piece(p.id) for p in pp.parts)
        fp = shapely.union_all([p.footprint for p in parts])
        movable = impassable_for_markers(bf)
        covers = tuple(m.id for m in sorted(bf.markers, key=lambda m: m.id)
                       if any(p.id in movable and covers_marker(p.footprint, m) for p in parts))
        what = next((movable[p.id] for p in parts if p.id in movable), "impassable")
        moving = stacked_with(bf, {p.id for p in parts})
        obstacles: list[BaseGeometry] = [_disc(m) for m in bf.markers]
        for q in bf.terrain:
            if q.id in moving or q.is_token:
                continue
            if q.impassable or avoid_all_terrain:
                obstacles.append(q.footprint)
        found = nearest_legal_translation(bf, fp, obstacles)
        start = (fp.centroid.x, fp.centroid.y)
        chooser = chooser_for(marker)
        ident = dict(piece=pp.id, parts=tuple(sorted(moving)), marker=marker.id,
                     chooser=chooser, covers=covers, start=start)
        if found is None:
            shifts.append(TerrainShift(
                moved=False, reason=f"no spot on the {bf.table.width:g}x{bf.table.depth:g} "
                f"table keeps {pp.title} off every marker and every other impassable piece",
                **ident))  # type: ignore[arg-type]
            continue
        (dx, dy), alternatives = found
        bf = replace(bf, terrain=tuple(_translated(q, dx, dy) if q.id in moving else q
                                       for q in bf.terrain))
        dist = math.hypot(dx, dy)
        who = ("a roll-off decides who moves it (neutral marker)" if chooser == "roll-off"
               else f"the {chooser} player decides how")
        kind = "impassable " if what == "impassable" else ""
        note = "" if what == "impassable" else f", {what}"
        reason = (f"marker {marker.id} falls on {kind}{pp.title}{note}: moved {dist:.3f}\" "
                  f"by ({dx:+.3f}, {dy:+.3f}) to the nearest spot off every marker and every "
                  f"other {'terrain' if avoid_all_terrain else 'impassable'} piece; {who}")
        if alternatives:
            reason += "; several spots are equally near, so that player also picks the direction"
        shifts.append(TerrainShift(
            moved=True, reason=reason, end=(start[0] + dx, start[1] + dy), displacement=(dx, dy),
            distance=dist, tied=bool(alternatives), alternatives=alternatives,
            **ident))  # type: ignore[arg-type]
    return bf, shifts
