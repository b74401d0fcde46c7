"""After a successful charge: placing the other models (rulebook §8.7.7 step 4, §4.4).

The other models are placed one by one: base contact with a declared target model (A), else
within engagement range of a target (B), else as close to the leading model as possible (C);
each wholly within the unit's coherency distance of the leader with a coherency link, and none
within 1" of an undeclared enemy unit. A model with no legal spot is a casualty (§4.4).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from .. import bases
from ..elevation import top_at
from ..engagement import ENGAGEMENT_RANGE, in_engagement_range, models_engaged
from ..model import Battlefield, Model, Point, Unit, natural_key
from ..paths import Disc, EndSet, Grown, Shape, nearest_members
from ..tolerance import CONTACT_SLACK, TOLERANCE
from ..verdict import Verdict
from ._centre_zones import QUAD_SEGS, base_shape, mover_base, range_zone_inner, shrink
from ._charge_ends import base_reach, contact_shapes, grown_by_base, target_zone
from ._charge_region import (
    CONTACT_BAND,
    INSET,
    Surface,
    ZoneCache,
    engagement_zone,
    free_region,
    top_area,
    undeclared_models,
)
from ._coherency import coherency, link_blockers, link_space, range_failure
from ._destroyed import ends_over
from ._end_position import base_on_table, bases_overlap, may_overlap


@dataclass
class Placement:
    """Where the other models go after the leading model (§8.7.7 step 4, §4.4)."""

    leader: Point
    positions: dict[str, Point]
    priority: dict[str, str]  # model id -> "A base contact" | "B engagement range" | "C ..."
    casualties: list[str]
    reasons: dict[str, str] = field(default_factory=dict)
    coherency: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.casualties

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "leader": list(self.leader),
                "positions": {k: list(v) for k, v in self.positions.items()},
                "priority": dict(self.priority), "casualties": list(self.casualties),
                "reasons": dict(self.reasons), "coherency": dict(self.coherency)}


PRIORITY_A = "A base contact"
PRIORITY_B = "B engagement range"
PRIORITY_C = "C close to the leader"
PRIORITY_B_SUPPORT = "B supporting"  # close ranks: base contact with a fighting friend
PRIORITIES = {PRIORITY_A: "base contact with a declared target model",
              PRIORITY_B: "within engagement range (1\") of a declared target",
              PRIORITY_C: "as close to the leading model as coherency allows"}
GRID = 0.125  # candidate spacing when the nearest points of a region have no valid link
CANDIDATES = 600  # candidates tried per model and priority before it is a casualty


def coherency_shape(leader: Model, m: Model, distance: float) -> Shape:
    """Centres at which `m` is in coherency range of the placed leader (§4.4): wholly within
    `distance` (a disc for two disc bases; an inscribed polygon for ovals, re-checked exactly);
    for a base wider than that distance, within it (the decision `geom.movement._coherency` takes)."""
    K = mover_base(m)
    le = leader.ellipse
    if m.base.short > distance:
        return base_reach(K, le, leader.at, distance)
    if le.is_disc and K.is_disc:
        return Disc(leader.at[0], leader.at[1], max(distance + le.a - K.a, 0.0))
    reach = base_shape(le, outer=False).buffer(distance, quad_segs=QUAD_SEGS)
    return Grown(shrink(reach, K), 0.0)


def _in_coherency_range(unit: Unit, leader: Model, m: Model) -> bool:
    """`geom.movement._coherency`'s own test, so that placing and judging coherency never disagree."""

    return range_failure(unit, m, leader) is None


def spots(bf: Battlefield, unit: Unit, m: Model, leader: Model, top: Surface,
          avoid: Sequence[Model], placed: Sequence[Model], distance: float) -> EndSet:
    """Where `m` may be placed on `top` (None: the mat): its whole base on the table, in
    coherency range of the leader, overlapping no terrain (bar the top's stack), no base of
    another unit and no model already placed, and not within 1" of the `avoid` models."""
    K = mover_base(m)
    ex, ey = bases.half_extents(K)
    t = bf.table
    ok = may_overlap(bf, top)
    excl: list[Shape] = [grown_by_base(p.footprint, K) for p in bf.terrain
                         if not ends_over(unit, p) and p.id not in ok]
    excl += [base_reach(K, o.ellipse, o.at, 0.0) for o in bf.models() if o.unit != unit.id]
    excl += [base_reach(K, o.ellipse, o.at, 0.0) for o in placed]
    closed = [False] * len(excl)
    excl += [base_reach(K, o.ellipse, o.at, ENGAGEMENT_RANGE) for o in avoid]
    closed += [True] * len(avoid)
    groups: list[list[Shape]] = [[coherency_shape(leader, m, distance)]]
    area = top_area(bf, top)
    if area is not None:
        groups.append([Grown(area, 0.0)])
    return EndSet((ex, ey, t.width - ex, t.depth - ey), groups, excl, closed)


def placement_surfaces(bf: Battlefield, leader: Model) -> list[Surface]:
    """Where the others may be placed round the leader: the mat, and the top the leader
    stands on (§8.7.7 step 4, §8.8.1 step 1) — what the placement offers and the judge
    searches for a better spot."""
    top = top_at(bf, leader.at)
    return [None] if top is None else [None, top]


def place_rest(bf: Battlefield, unit: Unit, leader: Model, targets: Sequence[Unit],
               *, avoid_all_enemies: bool = False, cache: ZoneCache | None = None,
               toward: Mapping[str, Point] | None = None, staying: Sequence[Model] = (),
               support: bool = False) -> Placement:
    """Place the unit's other models around the moved leader, one by one.

    With targets (a charge): priorities A > B > C. With `avoid_all_enemies` (disengage) every
    enemy's engagement range is forbidden and only C applies. Every model must be legal, in
    coherency range of the leader (the unit's coherency distance: 3", 4" with Squadron) and
    linked to an already placed model (§4.4). Models go on the mat or on the leader's own top.
    Within a priority the spot is the one nearest the leader, found exactly (`geom.paths._endset`);
    with `toward` (model id -> preferred centre: where it stood relative to the leader, the
    unit's shape, GEOMETRY-RULES §6 Decision) the spot nearest that point instead.

    Close ranks (§8.8.1 step 1): `staying` models (in base contact with an enemy) are not moved
    and count as placed; with `support`, priority B is base contact with a placed model of the
    unit that is within engagement range of a target (the supporting rank) instead of
    engagement range itself."""
    target_ids = {t.id for t in targets}
    distance = unit.coherency_distance
    stay = {m.id for m in staying}
    others = [m for m in unit.models if m.id != leader.id and m.id not in stay]
    # nearer models first: the order a player would naturally place them in
    if toward is None:
        others.sort(key=lambda m: math.dist(m.at, leader.at))
    else:  # the shape's nearest models first, ties by id: never by the order models are listed
        others.sort(key=lambda m: (math.dist(toward.get(m.id, m.at), leader.at),
                                   natural_key(m.id)))
    positions: dict[str, Point] = {}
    priority: dict[str, str] = {}
    casualties: list[str] = []
    reasons: dict[str, str] = {}
    placed: list[Model] = [leader, *staying]
    positions.update({m.id: m.at for m in staying})  # held: they stay where they stand
    link = LinkChecker(bf, unit, engaged_enemies=[m for t in targets for m in t.models])
    avoid = [o for v in bf.units if v.owner != unit.owner
             and (avoid_all_enemies or v.id not in target_ids) for o in v.models if not o.flying]
    surfaces = placement_surfaces(bf, leader)
    tmodels = [o for t in targets for o in t.models if not o.flying]
    zone_cache = bf.prepared.target_zones

    def zone(m: Model, o: Model, top: Surface) -> Any:
        key = (m.base, m.angle, m.flying, o.ref, None if top is None else top.id)
        if key not in zone_cache:  # models of one base share their zones
            zone_cache[key] = target_zone(bf, m, o, top, 0)
        return zone_cache[key]

    for m in others:
        spot: tuple[Point, str] | None = None
        tiers: list[tuple[str, list[EndSet]]] = [(PRIORITY_A, []), (PRIORITY_B, []),
                                                 (PRIORITY_C, [])]
        for top in surfaces:
            es = spots(bf, unit, m, leader, top, avoid, placed, distance)
            if targets and not avoid_all_enemies:
                zones = [z.inner for o in tmodels
                         if (z := zone(m, o, top)) is not None and z.access is None]
                if zones:
                    eng = es.with_group(zones)
                    contact = contact_shapes(m, targets, 0.0)
                    tiers[0][1].append(eng.with_group(contact))
                    if not support:
                        tiers[1][1].append(eng)
                if support:
                    fighting = [p for p in placed if any(in_engagement_range(p, o)
                                                         for o in tmodels)]
                    if fighting:
                        K = mover_base(m)
                        tiers[1][1].append(es.with_group(
                            [base_reach(K, p.ellipse, p.at, 0.0) for p in fighting]))
            tiers[2][1].append(es)

        def accept(q: Point, m: Model = m) -> bool:
            moved = m.moved_to(q)
            return ((m.base.is_disc and leader.base.is_disc)
                    or _in_coherency_range(unit, leader, moved)) and link.ok(moved, placed)

        if support:
            tiers[1] = (PRIORITY_B_SUPPORT, tiers[1][1])
        for name, sets in tiers:
            aim = toward.get(m.id, leader.at) if toward is not None else leader.at
            for es in sets:
                for q in itertools.islice(nearest_members(es, aim, GRID), CANDIDATES):
                    pt = (float(q[0]), float(q[1]))
                    if accept(pt):
                        if spot is None or math.dist(pt, aim) < math.dist(spot[0], aim):
                            spot = (pt, name)
                        break
            if spot is not None:
                break
        if spot is None:
            casualties.append(m.id)
            reasons[m.id] = (f"no legal spot in coherency ({distance:g}\") of the leading model "
                             "with a coherency link"
                             + (" outside every enemy's engagement range"
                                if avoid_all_enemies else ""))
            continue
        positions[m.id] = spot[0]
        priority[m.id] = spot[1]
        placed.append(m.moved_to(spot[0]))
    return Placement(leader.at, positions, priority, casualties, reasons,
                     coherency=_coherency_after(bf, unit, leader, positions, casualties,
                                                targets))


def _coherency_after(bf: Battlefield, unit: Unit, leader: Model, positions: dict[str, Point],
                     casualties: Sequence[str], targets: Sequence[Unit]) -> dict[str, Any]:
    """geom.movement._coherency's verdict on the placed unit (casualties removed)."""

    models = tuple(leader if m.id == leader.id else m.moved_to(positions[m.id])
                   for m in unit.models if m.id == leader.id or m.id in positions)
    moved = replace(unit, models=models, leading=leader.id)
    # judged on `bf` itself, not on a table with the unit moved: where links may run depends on
    # everything but the unit's own models (`link_space`), so the placement's link space, kept
    # with `bf`, serves the verdict too
    v = coherency(bf, moved, leading=leader.id,
                  engaged=[o.ref for t in targets for o in t.models])
    return {"ok": v.ok, "reason": v.reason, "failures": v.details.get("failures", [])}


def _pick(zone: BaseGeometry, toward: Point, accept: Callable[[Point], Point | None],
          limit: int = 400) -> Point | None:
    """The point of `zone` nearest `toward` that `accept` turns into a spot; failing that, grid
    points of the zone by distance from `toward`."""
    if zone.is_empty:
        return None
    p = nearest_points(zone, SPoint(toward))[0]
    got = accept((p.x, p.y))
    if got is not None:
        return got
    minx, miny, maxx, maxy = zone.bounds
    xs = np.arange(minx, maxx + GRID, GRID)
    ys = np.arange(miny, maxy + GRID, GRID)
    mx, my = np.meshgrid(xs, ys)
    gx, gy = mx.ravel(), my.ravel()
    inside = shapely.contains_xy(zone, gx, gy)
    pts = np.column_stack((gx[inside], gy[inside]))
    if not len(pts):
        # thin zones (the contact band) hold no grid point: walk their boundary instead
        ring = zone.boundary
        n = max(8, int(ring.length / GRID))
        pts = shapely.get_coordinates(shapely.line_interpolate_point(
            ring, np.linspace(0, ring.length, n, endpoint=False)))
        pts = pts[shapely.intersects_xy(zone, pts[:, 0], pts[:, 1])]
    order = np.argsort(np.hypot(pts[:, 0] - toward[0], pts[:, 1] - toward[1]))
    for i in order[:limit]:
        got = accept((float(pts[i, 0]), float(pts[i, 1])))
        if got is not None:
            return got
    return None


class LinkChecker:
    """Coherency links (§4.4, FAQ) as `geom.movement._coherency` draws them: centre to centre, valid where
    the leading model could travel, crossing the enemy models the unit is engaged with. Built
    once per placement; each test is one segment query."""

    def __init__(self, bf: Battlefield, unit: Unit, engaged_enemies: Sequence[Model] = ()) -> None:

        self.unit = unit
        self.fs = link_space(bf, unit, engaged=[m.ref for m in engaged_enemies])

    def segment_ok(self, a: Point, b: Point) -> bool:
        if self.fs is None:  # flying units' links ignore terrain and models
            return True
        if self.fs.segments_clear(np.array([a], dtype=float), np.array([b], dtype=float))[0]:
            return True

        lead = self.unit.models[0]
        return not link_blockers(self.fs, lead.moved_to(a), lead.moved_to(b))

    def ok(self, m: Model, placed: Sequence[Model]) -> bool:
        return any(self.segment_ok(m.at, p.at) for p in placed)


def check_charge_placement(bf: Battlefield, unit: Unit, leader_end: Point, positions: dict[str, Point],
                    targets: Sequence[Unit]) -> Verdict:
    """Check a proposed placement of the other models after a charge (§8.7.7 step 4, §4.4):
    each legal, in coherency range of the leader (the unit's coherency distance), linked to the
    leader through placed models,
    none within 1" of an undeclared enemy; and no model left at a lower priority (B, C) when a
    spot of higher priority (A base contact, B engagement range) was free for it."""
    leader = unit.leading_model.moved_to(leader_end)
    target_ids = {t.id for t in targets}
    distance = unit.coherency_distance
    moved = {leader.id: leader}
    for mid, at in positions.items():
        if mid == leader.id:
            continue
        moved[mid] = unit.model(mid).moved_to(at)
    missing = [m.id for m in unit.models if m.id not in moved]
    problems: list[str] = []
    for mid, m in moved.items():
        if mid == leader.id:
            continue
        if not base_on_table(bf, m.ellipse):
            problems.append(f"{m.ref} is not wholly on the table")
        allowed = may_overlap(bf, top_at(bf, m.at))
        for p in bf.terrain:
            if not ends_over(unit, p) and p.id not in allowed and \
                    bases.geometry_meets(m.ellipse, p.footprint.buffer(-TOLERANCE)):
                problems.append(f"{m.ref} overlaps terrain {p.title}")
        near = [o for o in bf.models() if o.unit != unit.id]
        near += [o for k, o in moved.items() if k != mid]
        for o in near:
            if bases_overlap(m, o):
                problems.append(f"{m.ref} overlaps {o.ref}")
            elif o.owner != unit.owner and o.unit not in target_ids and not o.flying \
                    and in_engagement_range(m, o):
                problems.append(f"{m.ref} is within 1\" of {o.ref}, of an undeclared unit")
        if not _in_coherency_range(unit, leader, m):
            problems.append(f"{m.ref} is not wholly within {distance:g}\" of the leading model")
    link = LinkChecker(bf, unit, engaged_enemies=[o for t in targets for o in t.models])
    linked = {leader.id}
    grew = True
    while grew:
        grew = False
        for mid, m in moved.items():
            if mid not in linked and any(link.segment_ok(m.at, moved[o].at) for o in linked):
                linked.add(mid)
                grew = True
    for mid in moved:
        if mid not in linked:
            problems.append(f"{unit.id}/{mid} has no coherency link to the leading model")
    tiers: dict[str, str] = {}
    better_spots: list[dict[str, Any]] = []  # the witnesses of "could have been placed"
    surfaces = placement_surfaces(bf, leader)
    for mid, m in moved.items():
        if mid == leader.id:
            continue
        tmodels = [o for t in targets for o in t.models if not o.flying]
        if any(bases.ellipse_distance(m.ellipse, o.ellipse) <= CONTACT_SLACK for o in tmodels):
            tiers[mid] = PRIORITY_A
            continue
        tiers[mid] = PRIORITY_B if any(models_engaged(bf, m, o) for o in tmodels) else PRIORITY_C
        others = [o for k, o in moved.items() if k != mid]
        avoid = undeclared_models(bf, unit, target_ids)
        coh = shrink(base_shape(leader.ellipse, outer=False).buffer(distance,
                                                                    quad_segs=QUAD_SEGS),
                     mover_base(m))
        free = shapely.union_all([free_region(bf, unit, m, top, avoid, extra_bases=others)
                                  for top in surfaces]).intersection(coh)
        band = shapely.union_all([range_zone_inner(m, o, CONTACT_BAND) for o in tmodels])
        better = free.intersection(band).buffer(-INSET)
        name = "base contact with a target"
        if better.is_empty and tiers[mid] == PRIORITY_C:
            eng = shapely.union_all([engagement_zone(bf, m, o) for o in tmodels])
            better = free.intersection(eng).buffer(-INSET)
            name = "engagement range of a target"
        def accept(q: Point, m: Model = m, others: list[Model] = others) -> Point | None:
            return q if link.ok(m.moved_to(q), [leader, *others]) else None

        spot = _pick(better, m.at, accept) if not better.is_empty else None
        if spot is not None:
            # how far it stands from what the better priority asks: the gap to the nearest
            # target's base (base contact), or beyond the 1" of engagement range
            gap = min(bases.ellipse_distance(m.ellipse, o.ellipse) for o in tmodels)
            excess = gap if name.startswith("base contact") else max(0.0, gap - ENGAGEMENT_RANGE)
            problems.append(f"{m.ref} ({tiers[mid]}) could have been placed in {name}")
            better_spots.append({"model": mid, "tier": tiers[mid], "could": name,
                                 "spot": [float(spot[0]), float(spot[1])], "excess": excess,
                                 "reason": problems[-1]})
    ok = not problems and not missing
    reason = ("the placement follows §8.7.7 step 4" if ok else
              "; ".join(problems + ([f"no position for {', '.join(missing)} (casualties?)"]
                                    if missing else [])))
    return Verdict(ok, "8.7.7 execute the move", reason,
                   details={"tiers": tiers, "problems": problems, "missing": missing,
                            "better_spots": better_spots})
