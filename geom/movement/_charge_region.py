"""The end region of a charge: where the leading model's centre may end (rulebook §8.7.7 step 3,
§7.2, §7.2.1).

A legal charge end for the leading model's base K

1. is within engagement range of every declared target (the end base *engaged* with some model of
   each target: 1", no Size-2+ terrain between, elevation rules — `geom.engagement`),
2. overlaps no other base and no terrain footprint (Size 0 and 1 included; GRASS may be ended on,
   it is destroyed), with the whole base on the table (`geom.movement._end_position`),
3. is not within 1" of a model of an enemy unit that was not declared (GROUND models: flying
   models never engage and ground models may end touching them, §8.5.3).

**The end region E** is built as shapely polygons, an *inner* approximation: target zones are
inscribed (ring points on the true boundary, chords inside), forbidden zones are circumscribed.
So every point of E is a legal end, which is re-checked exactly by `check_end` (no shared code
with the region builder).

**Engagement behind terrain.** Where a Size-2+ piece comes within 1" of a target model, the
target's zone is the union over rim points p of the target base of (disc(p, 1") minus the shadow
the piece casts from p), grown by K: the centres whose base some clear segment of ≤1" reaches.
Only rim points matter, because a segment from inside the base can be shortened to its rim.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Point as SPoint
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from .. import bases
from ..elevation import (
    GROUND,
    HIGH,
    MID,
    elevation_level,
    level_of_size,
    piece_effective_size,
    standing_piece,
    top_at,
)
from ..engagement import (
    ENGAGEMENT_RANGE,
    in_engagement_range,
    models_engaged,
    obstacle_shape,
    stack_ids,
    surface_size,
    terrain_blockers,
)
from ..model import Battlefield, Model, Point, TerrainPiece, Unit
from ..paths import is_level
from ..tolerance import HALO_MARGIN, TOLERANCE
from ..verdict import Verdict
from ._centre_zones import QUAD_SEGS, base_shape, grow, mover_base, on_table, range_zone, reach_past
from ._destroyed import ends_over
from ._end_position import base_on_table, bases_overlap, may_overlap, pieces_under

RULE_CHARGE = "8.7.7 charge"
RIM_SAMPLES = 96  # rim points of a target base for terrain shadows
INSET = 1e-5  # E is shrunk by this much so that its points survive the exact re-check
CONTACT_BAND = 2e-3  # thickness of the base-contact band searched before snapping to contact


def level_tops(bf: Battlefield) -> list[TerrainPiece]:
    """Tops a model can end on (a ramp, a top with access points, or a standable piece of
    Size 2+: `geom.paths._obstacles.is_level`)."""
    return [p for p in bf.terrain if is_level(p)]


Surface = TerrainPiece | None  # the top a centre stands on; None: the mat


def surface_level(bf: Battlefield, top: Surface) -> str:
    return GROUND if top is None else level_of_size(piece_effective_size(bf, top))


ZoneCache = dict[tuple[Any, ...], BaseGeometry]


def engagement_zone(bf: Battlefield, mover: Model, target: Model, top: Surface = None,
                    cache: ZoneCache | None = None) -> BaseGeometry:
    """Centres, for a mover standing on `top`, at which its base would be engaged with `target`
    (§7.2, §7.2.1) — an inner approximation. The caller intersects it with where `top` is."""
    key = (mover.base, mover.angle, target.unit, target.id, target.at,
           None if top is None else top.id)
    if cache is not None and key in cache:
        return cache[key]
    zone = _engagement_zone(bf, mover, target, top)
    if cache is not None:
        cache[key] = zone
    return zone


def _engagement_zone(bf: Battlefield, mover: Model, target: Model, top: Surface) -> BaseGeometry:
    if target.flying or mover.flying:
        return Polygon()
    K = mover_base(mover)
    lm, lt = surface_level(bf, top), elevation_level(bf, target)
    if {lm, lt} == {GROUND, HIGH}:
        return Polygon()  # high ground never engages ground level (§7.2.1)
    te = target.ellipse
    tgt = base_shape(te, outer=False)
    halo1 = tgt.buffer(ENGAGEMENT_RANGE, quad_segs=QUAD_SEGS)
    tpiece = standing_piece(bf, target)
    floor = min(0 if top is None else piece_effective_size(bf, top), surface_size(bf, target))
    exclude = stack_ids(bf, target) | pieces_under(bf, top)
    blockers: list[Polygon] = []
    for p in terrain_blockers(bf, exclude, floor):
        shape = obstacle_shape(p)
        if shape.intersects(halo1):
            blockers.extend(getattr(shape, "geoms", [shape]))
    if not blockers:
        zone = grow(tgt, K, ENGAGEMENT_RANGE) if not te.is_disc else \
            grow(SPoint(te.centre), K, te.a + ENGAGEMENT_RANGE)
    else:
        t = np.linspace(0, 2 * math.pi, RIM_SAMPLES, endpoint=False)
        rim = bases.boundary_points(te, t)
        clipped = [b.intersection(halo1.buffer(HALO_MARGIN)) for b in blockers]
        clipped = [c for piece in clipped for c in getattr(piece, "geoms", [piece])
                   if isinstance(c, Polygon) and c.area > 0]
        zone = grow(reach_past(rim, clipped, ENGAGEMENT_RANGE), K)
    if MID in (lm, lt) and lm != lt:
        # both bases must touch one access point of the mover's or the target's top
        aps = [ap for piece in (top, tpiece) if piece is not None for ap in piece.access_points
               if bases.geometry_meets(te, ap, TOLERANCE)]
        if not aps:
            return Polygon()
        zone = zone.intersection(shapely.union_all([grow(ap, K) for ap in aps]))
    return zone


def top_area(bf: Battlefield, top: Surface) -> BaseGeometry | None:
    """Where a centre stands on `top` (None: anywhere; the mat's share is cut by terrain)."""
    if top is None:
        return None
    higher = [p.footprint for p in bf.terrain if p.can_stand_on and p.id != top.id
              and piece_effective_size(bf, p) > piece_effective_size(bf, top)]
    return top.footprint.difference(shapely.union_all(higher)) if higher else top.footprint


def free_region(bf: Battlefield, unit: Unit, mover: Model, top: Surface, avoid: Iterable[Model],
                extra_bases: Iterable[Model] = ()) -> BaseGeometry:
    """Centres where the mover, standing on `top`, would be a legal end ignoring engagement
    with targets: whole base on the table, no overlap with terrain (bar its own top, §8.5.3) or with
    other units' and `extra_bases` bases, and not within 1" of the `avoid` models. Inner."""
    K = mover_base(mover)
    ok = may_overlap(bf, top)
    cuts = [grow(p.footprint, K, outer=True) for p in bf.terrain
            if not ends_over(unit, p) and p.id not in ok]
    cuts += [grow(base_shape(m.ellipse, outer=True), K, outer=True)
             for m in bf.models() if m.unit != unit.id]
    cuts += [grow(base_shape(m.ellipse, outer=True), K, outer=True) for m in extra_bases]
    cuts += [range_zone(mover, m) for m in avoid]
    region: BaseGeometry = on_table(bf, K)
    area = top_area(bf, top)
    if area is not None:
        region = region.intersection(area)
    if cuts:
        region = region.difference(shapely.union_all(cuts))
    return region


def undeclared_models(bf: Battlefield, unit: Unit, target_ids: set[str]) -> list[Model]:
    """Models whose engagement range a charger may not end in: ground models of enemy units
    not declared (flying models never engage; ground models may end touching them, §8.5.3)."""
    return [m for v in bf.units if v.owner != unit.owner and v.id not in target_ids
            for m in v.models if not m.flying]


def reachable_tops(bf: Battlefield, leader: Model, targets: Sequence[Unit]) -> list[Surface]:
    """The mat, plus every top close enough to some model of every target to engage it."""
    out: list[Surface] = [None]
    for p in level_tops(bf):
        if all(any(p.footprint.distance(SPoint(o.at)) <= o.base.a + 2 * leader.base.a
                   + ENGAGEMENT_RANGE + HALO_MARGIN for o in t.models) for t in targets):
            out.append(p)
    return out


@dataclass(frozen=True)
class EndRegion:
    """E and its parts, for one leading model and its declared targets."""

    region: BaseGeometry  # legal ends (inner approximation, shrunk by INSET)
    free: BaseGeometry  # legal ends ignoring the targets (on table, no overlap, no undeclared)
    target_zones: dict[str, BaseGeometry]  # per target unit: centres engaged with it
    forbidden_by: dict[str, BaseGeometry] = field(default_factory=dict)
    tops: tuple[str, ...] = ()  # raised tops that hold part of E


def end_region(bf: Battlefield, unit: Unit, leader: Model, targets: Sequence[Unit],
               cache: ZoneCache | None = None) -> EndRegion:
    """E = ∪ over surfaces S (the mat and the tops) of free(S) ∩ ⋂ zone(target, S)."""
    K = mover_base(leader)
    target_ids = {t.id for t in targets}
    und = undeclared_models(bf, unit, target_ids)
    parts, frees = [], []
    zones: dict[str, list[BaseGeometry]] = {t.id: [] for t in targets}
    tops: list[str] = []
    for top in reachable_tops(bf, leader, targets):
        free = free_region(bf, unit, leader, top, und)
        frees.append(free)
        region = free
        for t in targets:
            z = shapely.union_all([engagement_zone(bf, leader, m, top, cache) for m in t.models])
            if top is not None:
                area = top_area(bf, top)
                z = z.intersection(area) if area is not None else z
            zones[t.id].append(z)
            region = region.intersection(z)
        if not region.is_empty:
            parts.append(region)
            if top is not None:
                tops.append(top.id)
    region = shapely.union_all(parts) if parts else Polygon()
    region = region.buffer(-INSET) if not region.is_empty else region
    forbidden = {
        "terrain": shapely.union_all([grow(p.footprint, K, outer=True) for p in bf.terrain
                                      if not ends_over(unit, p)] or [Polygon()]),
        "bases": shapely.union_all([grow(base_shape(m.ellipse, outer=True), K, outer=True)
                                    for m in bf.models() if m.unit != unit.id] or [Polygon()]),
        "undeclared": shapely.union_all([range_zone(leader, m) for m in und] or [Polygon()]),
    }
    return EndRegion(region, shapely.union_all(frees),
                     {k: shapely.union_all(v) for k, v in zones.items()}, forbidden, tuple(tops))


def check_end(bf: Battlefield, unit: Unit, leader: Model, at: Point,
              targets: Sequence[Unit]) -> Verdict:
    """Is `at` a legal charge end for the leading model (§8.7.7 step 3)? Exact, per model."""
    m = leader.moved_to(at)
    e = m.ellipse
    if not base_on_table(bf, e):
        return Verdict(False, RULE_CHARGE, f"the base at ({at[0]:.3f}, {at[1]:.3f}) is not wholly on "
                       "the table")
    ok = may_overlap(bf, top_at(bf, at))
    pieces = np.flatnonzero(bases.boxes_near(bases.piece_boxes(bf), e))  # the others miss it
    for i in pieces.tolist():
        p = bf.terrain[i]
        if ends_over(unit, p) or p.id in ok:
            continue
        if bases.overlaps_piece(bf, e, p):
            return Verdict(False, RULE_CHARGE, f"the base would overlap terrain {p.title}")
    others, near = models_near(bf, at, e.a + ENGAGEMENT_RANGE + TOLERANCE)
    for o in (others[i] for i in near):
        if o.unit == unit.id:
            continue
        if bases_overlap(m, o):
            return Verdict(False, RULE_CHARGE, f"the base would overlap {o.ref}")
    target_ids = {t.id for t in targets}
    for o in (others[i] for i in near):
        if o.owner != unit.owner and o.unit not in target_ids:
            if not o.flying and in_engagement_range(m, o):
                return Verdict(False, RULE_CHARGE, f"the base would be within 1\" of {o.ref}, whose unit "
                               f"{o.unit!r} was not declared a target")
    witnesses = {}
    for t in targets:
        best = None
        for o in sorted((o for o in t.models if in_engagement_range(m, o)),
                        key=lambda o: bases.ellipse_distance(e, o.ellipse)):
            v_ = models_engaged(bf, m, o)
            if v_:
                best = (o.ref, v_.witness)
                break
        if best is None:
            return Verdict(False, RULE_CHARGE, f"the base would not be engaged with any model of {t.id}")
        witnesses[t.id] = best
    return Verdict(True, RULE_CHARGE, "legal end: engaged with every declared target",
                   witness=list(at), details={"engaged_with": {k: v[0] for k, v in witnesses.items()},
                                              "segments": {k: v[1] for k, v in witnesses.items()}})


def models_near(bf: Battlefield, at: Point, reach: float) -> tuple[list[Model], list[int]]:
    """The table's models, and (in table order) those whose bases may come within `reach` of a
    point: centre nearer than `reach` + the model's own long semi-axis (the others cannot)."""
    kept = bf.prepared
    if kept.model_centres is None:
        ms = list(bf.models())
        xy = np.array([m.at for m in ms], dtype=float).reshape(-1, 2)
        kept.model_centres = (ms, xy, np.array([m.base.a for m in ms]))
    ms, xy, a = kept.model_centres
    d = np.hypot(xy[:, 0] - at[0], xy[:, 1] - at[1])
    return ms, np.flatnonzero(d <= a + reach).tolist()

