"""What stops a moving leading model: its movement obstacles (rulebook §4.3, §4.6, §8.5.3,
FAQ "측정과 이동").

The obstacles a moving GROUND leading model must keep clear of, as shapes for its centre:

- terrain of Size 2+ that is not GRASS, minus its openings (archways, breaches: §4.6), and
  minus any top standing on it with that top's access points (a roof is walked on, its ladder
  climbed);
- FORCE FIELD tokens, for units of Size ≤2 (Sentry card);
- the edges of raised tops (FAQ: "the edge of high ground counts as impassable terrain for gap
  purposes"), except where an access point covers the edge (§8.5.3: elevation changes only
  through access points; ramps are entered and left only through their two access points);
- bases of other units' models (§8.5.3), except flying bases (a ground model passes them as if
  absent), burrowed models (passable), and whatever the caller lists in `ignore_models`.

The table edges are the free space's box (`geom.paths._freespace`), not obstacles.

**Decision (docs/rules.md#gap-clearance; §4.6):** the centre keeps at least half the required
gap width, `c = gap/2` (0.5" for Size ≤2, 1.5" for Size ≥3 or LARGE), from every obstacle, so
a passage between two obstacles is usable exactly when they are at least `gap` apart. Every
obstacle is a *core* (a polygon, a polyline for a top's edge, or a point for a disc base) grown
by a radius ρ (ρ = c; for a disc base ρ = c + base radius); its "clearance zone" is the open set
{x : dist(x, core) < ρ}. Oval bases are cores of circumscribed polygons (see `OVAL_SIDES`).

**Levels.** A standable piece is its own level ("top") when it is a ramp, has access points, or
is of Size 2+. Its edge is a wall with gaps where access points lie, so the whole table is one
plane: inside a top's edge is that top, outside is what lies below, and the two meet only through
access points, whose width must pass the gap rule like any gap. A standable piece of Size ≤1
without access points is not a level: it is crossed freely like any Size-0/1 terrain and cannot
be ended on (`geom.movement._end_position`). Non-connected tops cannot be crossed (FAQ) because their edges
are walls.

**Connected tops (FAQ: ground units move only between connected high grounds).** Two tops of
the same elevation level whose footprints touch or overlap (within 1e-6") are connected
(docs/rules.md#connected-tops): the part of a top's edge that lies on a connected top is no
wall, so a move crosses the shared edge without an access point.

**Raptor variant (랩터 변종 card text: "may cross impassable terrain of Size 4 or less and change
elevation without access points").** For a unit with it, terrain whose own Size is 4 or less is
no obstacle, and neither is the edge of a top of Size 4 or less (it climbs on and off anywhere);
pieces of Size 5+ and the edges of such tops stay walls (docs/rules.md#raptor-variant). It is
no FORCE FIELD exception (FAQ: "역장은 크기 2 이하인 유닛이 가로지르지 못하게 명시"): a Raptor (Size 1)
is still stopped by force fields. Its end positions are judged as everyone's
(`geom.movement._end_position`): it may not end overlapping a wall it has crossed.

`movement_obstacles` is the one place that says which pieces and models are obstacles for a
unit; abilities that change it (crossing terrain, removing pieces) belong here.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import shapely
from shapely.geometry import MultiLineString, Polygon
from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry

from ..elevation import level_of_size, piece_effective_size
from ..model import RAPTOR_VARIANT, Battlefield, Model, TerrainPiece, Unit
from ..tolerance import TOLERANCE

OVAL_SIDES = 96   # circumscribed polygon of an oval base: Hausdorff excess a·(sec(π/96) − 1)
RAPTOR_MAX_SIZE = 4  # Raptor variant: "크기 4 이하의 통과 불가 지형을 지나갈 수 있고"


@dataclass(frozen=True)
class Obstacle:
    """One movement obstacle: `core` grown by `rho`. `ref` names it for reasons."""

    ref: str
    core: BaseGeometry
    rho: float
    kind: str  # terrain | edge | force-field | model
    exact: bool = True  # False: the core circumscribes an oval (see OVAL_SIDES)
    inner: BaseGeometry | None = None  # inscribed core of an oval, for lower bounds


def is_level(p: TerrainPiece) -> bool:
    """A standable piece that is an elevation of its own (see module docstring;
    docs/rules.md#low-tops)."""
    return p.can_stand_on and (p.is_ramp or bool(p.access_points) or p.size >= 2)


def connected_tops(bf: Battlefield) -> dict[str, set[str]]:
    """Top id -> the tops of the same elevation level whose footprints touch or overlap it
    (within 1e-6"; see the module docstring)."""
    kept = bf.prepared
    if kept.connected_tops is not None:
        return kept.connected_tops
    tops = [p for p in bf.terrain if is_level(p)]
    level = {p.id: level_of_size(piece_effective_size(bf, p)) for p in tops}
    out: dict[str, set[str]] = {p.id: set() for p in tops}
    for i, p in enumerate(tops):
        for q in tops[i + 1:]:
            if level[p.id] == level[q.id] and \
                    float(shapely.distance(p.footprint, q.footprint)) <= TOLERANCE:
                out[p.id].add(q.id)
                out[q.id].add(p.id)
    kept.connected_tops = out
    return out


def crosses_as_raptor(unit: Unit, p: TerrainPiece) -> bool:
    """Raptor variant: the unit passes this piece (or climbs this top anywhere)."""
    return unit.has(RAPTOR_VARIANT) and p.size <= RAPTOR_MAX_SIZE


def all_access_points(bf: Battlefield) -> BaseGeometry | None:
    polys = [a for p in bf.terrain for a in p.access_points]
    return shapely.union_all(polys) if polys else None


def level_edge(p: TerrainPiece, access: BaseGeometry | None,
               joined: BaseGeometry | None = None) -> BaseGeometry:
    """The wall a top's edge makes: its boundary minus every access point on it and minus
    where it lies on a connected top (`joined`: their footprints)."""
    edge = p.footprint.boundary
    if access is not None:
        edge = edge.difference(access)
    if joined is not None and not edge.is_empty:
        # the shared edge of touching tops is within 1e-6" of the other footprint
        edge = edge.difference(joined.buffer(2 * TOLERANCE, quad_segs=2))
    if edge.is_empty:
        return edge
    if isinstance(edge, MultiLineString):
        edge = shapely.line_merge(edge)
    return edge


def model_matches(m: Model, ignore: Collection[str]) -> bool:
    return m.unit in ignore or m.ref in ignore


def movement_obstacles(bf: Battlefield, unit: Unit, *, ignore_models: Collection[str] = (),
                       include_terrain: bool = True, gap: float | None = None) -> list[Obstacle]:
    """The obstacles a ground leading model of `unit` must keep `gap/2` away from (§4.3, §4.6).

    Models of `unit` itself are never obstacles (the leading model passes its own unit).
    """
    c = (unit.gap_clearance if gap is None else gap) / 2
    out: list[Obstacle] = []
    if include_terrain:
        access = all_access_points(bf)
        # a piece holding up a top is walked on where the top lies, and climbed at the top's
        # access points
        held: dict[str, list[Polygon]] = {}
        for top in bf.terrain:
            if not is_level(top):
                continue
            below, seen = top.on, {top.id}
            while below is not None and below not in seen and bf.has_piece(below):
                seen.add(below)
                held.setdefault(below, []).extend([top.footprint, *top.access_points])
                below = bf.piece(below).on
        joined = connected_tops(bf)
        for p in bf.terrain:
            if p.kind == "force-field":
                # FAQ: Raptor variant is no force-field exception (a Raptor is Size 1)
                if unit.size <= 2:
                    out.append(Obstacle(f"terrain/{p.id}", p.footprint, c, "force-field"))
            elif crosses_as_raptor(unit, p):
                continue
            elif is_level(p):
                near = [bf.piece(q).footprint for q in sorted(joined.get(p.id, ()))]
                edge = level_edge(p, access, shapely.union_all(near) if near else None)
                if not edge.is_empty:
                    out.append(Obstacle(f"edge/{p.id}", edge, c, "edge"))
            elif p.impassable:
                core: BaseGeometry = p.footprint
                if p.openings:
                    core = core.difference(shapely.union_all(list(p.openings)))
                if p.id in held:
                    core = core.difference(shapely.union_all(held[p.id]))
                if not core.is_empty:
                    out.append(Obstacle(f"terrain/{p.id}", core, c, "terrain"))
    ignore = set(ignore_models)
    for m in bf.models():
        if m.unit == unit.id or m.burrowed or m.flying or model_matches(m, ignore):
            continue
        e = m.ellipse
        if e.is_disc:
            out.append(Obstacle(f"model/{m.ref}", SPoint(m.at), c + e.a, "model"))
        else:
            out.append(Obstacle(f"model/{m.ref}", e.polygon(OVAL_SIDES, outer=True), c, "model",
                                exact=False, inner=e.polygon(OVAL_SIDES)))
    return out

