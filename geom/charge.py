"""Charges (GEOMETRY-RULES §8, §6; rulebook §8.7.7, §7.2, §7.2.1, §4.4).

A ground unit that is not engaged declares ground target units, rolls 1D6 and adds it to its
Speed (plus modifiers such as Concussive Shells' −2"): that is the charge distance. The charge
succeeds when the leading model can legally reach, along a real path no longer than the charge
distance, a position that

1. is within engagement range of every declared target (the end base *engaged* with some model of
   each target: 1", no Size-2+ terrain between, elevation rules — `geom.engagement`),
2. overlaps no other base and no terrain footprint (Size 0 and 1 included; GRASS may be ended on,
   it is destroyed), with the whole base on the table,
3. is not within 1" of a model of an enemy unit that was not declared (GROUND models: flying
   models never engage and ground models may end touching them, §8.5.3).

**Measured distance.** The charge distance is the length of the leading model's *centre path*
(`geom.movement`: gap clearance, around impassable terrain, elevation through access points). A
base that slides without turning carries every point of its rim along a copy of the centre's
path, so every point of the base moves exactly that far — the centre path is the measure this
engine uses for every move.

**The end region E** (DESIGN-NOTES §2) is built for the leading model's base K as shapely
polygons, and is an *inner* approximation: target zones are inscribed (ring points on the true
boundary, chords inside), forbidden zones are circumscribed. So every point of E is a legal end,
which is re-checked exactly by `check_end` (no shared code with the region builder). The charge
distance is the shortest legal path from the start to E (`movement.path_to_region`): an upper
bound on the true value. The region loses at most ~0.002" per boundary (128-gon arcs, 96 rim
samples for terrain shadows), and the path adds movement's own ≤0.01" bound; `details` carries
the bound and says when a roll threshold falls inside it.

**Engagement behind terrain.** Where a Size-2+ piece comes within 1" of a target model, the
target's zone is the union over rim points p of the target base of (disc(p, 1") minus the shadow
the piece casts from p), grown by K: the centres whose base some clear segment of ≤1" reaches.
Only rim points matter, because a segment from inside the base can be shortened to its rim.

**After the charge** (§8.7.7 step 4) the other models are placed one by one: base contact with a
declared target model (A), else within engagement range of a target (B), else as close to the
leading model as possible (C); each wholly within the unit's coherency distance (3", 4" with
Squadron) of the leader with a coherency link, and
none within 1" of an undeclared enemy unit. A model with no legal spot is a casualty (§4.4).

>>> pr = roll_table(speed=4, modifier=-2, distance=7.03)
>>> pr.min_roll, round(pr.probability, 4)
(6, 0.1667)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import shapely
from shapely import affinity
from shapely.geometry import Point as SPoint
from shapely.geometry import Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from . import bases
from .elevation import (
    GROUND,
    HIGH,
    MID,
    elevation_level,
    level_of_size,
    piece_effective_size,
    standing_piece,
    top_at,
)
from .engagement import (
    ENGAGEMENT_RANGE,
    in_engagement_range,
    models_engaged,
    obstacle_shape,
    stack_ids,
    surface_size,
    terrain_blockers,
    unit_is_engaged,
)
from .errors import TmgError
from .model import TOLERANCE, Battlefield, Ellipse, Model, Point, TerrainPiece, Unit
from .verdict import Verdict

RULE = "8.7.7 charge"
QUAD_SEGS = 32  # 128-gon arcs: inscribed error r(1 − cos(π/128)) ≈ 3e-4·r
RIM_SAMPLES = 96  # rim points of a target base for terrain shadows
INSET = 1e-5  # E is shrunk by this much so that its points survive the exact re-check
CONTACT_BAND = 2e-3  # thickness of the base-contact band searched before snapping to contact
REGION_BOUND = 0.003  # what the inner approximation of E may lose, in inches
D6 = range(1, 7)


# --------------------------------------------------------------------------- rolls


@dataclass(frozen=True)
class RollTable:
    speed: float
    modifier: float
    distance: float | None  # shortest legal charge distance; None if no end is reachable
    min_roll: int | None
    probability: float
    successes: tuple[int, ...]


def roll_table(speed: float, modifier: float, distance: float | None) -> RollTable:
    """Which D6 results succeed: charge distance = Speed + D6 + modifier ≥ distance."""
    if distance is None:
        return RollTable(speed, modifier, None, None, 0.0, ())
    ok = tuple(r for r in D6 if speed + r + modifier >= distance - TOLERANCE)
    return RollTable(speed, modifier, distance, ok[0] if ok else None, len(ok) / 6, ok)


# --------------------------------------------------------------------------- shapes


def _k(e: Ellipse) -> float:
    return 1.0 / math.cos(math.pi / (4 * QUAD_SEGS))


def grow(g: BaseGeometry, base: Ellipse, extra: float = 0.0, outer: bool = False) -> BaseGeometry:
    """g ⊕ (base centred at the origin, grown by `extra`): the centres at which a base of that
    shape comes within `extra` of g. Inner (default) or outer polygonal approximation."""
    scale = _k(base) if outer else 1.0
    if base.is_disc:
        return g.buffer((base.a + extra) * scale, quad_segs=QUAD_SEGS)
    if extra:
        g = g.buffer(extra * scale, quad_segs=QUAD_SEGS)
    c, s = math.cos(base.theta), math.sin(base.theta)
    fwd = [c / base.a, s / base.a, -s / base.b, c / base.b, 0.0, 0.0]
    back = [c * base.a, -s * base.b, s * base.a, c * base.b, 0.0, 0.0]
    img = affinity.affine_transform(g, fwd).buffer(scale, quad_segs=QUAD_SEGS)
    return affinity.affine_transform(img, back)


def shrink(g: BaseGeometry, base: Ellipse) -> BaseGeometry:
    """g ⊖ base: centres at which the whole base lies inside g (inner approximation)."""
    k = _k(base)
    if base.is_disc:
        return g.buffer(-base.a * k, quad_segs=QUAD_SEGS)
    c, s = math.cos(base.theta), math.sin(base.theta)
    fwd = [c / base.a, s / base.a, -s / base.b, c / base.b, 0.0, 0.0]
    back = [c * base.a, -s * base.b, s * base.a, c * base.b, 0.0, 0.0]
    img = affinity.affine_transform(g, fwd).buffer(-k, quad_segs=QUAD_SEGS)
    return affinity.affine_transform(img, back)


def base_shape(e: Ellipse, outer: bool) -> Polygon:
    """A base as a polygon: the true disc/oval is between the inner and the outer one."""
    if e.is_disc:
        return SPoint(e.centre).buffer(e.a * (_k(e) if outer else 1.0), quad_segs=QUAD_SEGS)
    return e.polygon(4 * QUAD_SEGS, outer=outer)


def mover_base(m: Model) -> Ellipse:
    """The mover's base centred at the origin (orientation kept while moving)."""
    e = m.ellipse
    return Ellipse(0.0, 0.0, e.a, e.b, e.theta)


def on_table(bf: Battlefield, base: Ellipse) -> Polygon:
    """Centres at which the whole base is on the table (exact for an ellipse in a box)."""
    c, s = math.cos(base.theta), math.sin(base.theta)
    ex = math.sqrt((base.a * c) ** 2 + (base.b * s) ** 2)
    ey = math.sqrt((base.a * s) ** 2 + (base.b * c) ** 2)
    return box(ex, ey, bf.table.width - ex, bf.table.depth - ey)


ARC_POINTS = 9  # far arc of a shadow wedge: steps of at most π/8 (|sweep| < π)


def _wedges(P: np.ndarray, U: np.ndarray, V: np.ndarray, far: float) -> np.ndarray:
    """Shadow wedges: for each row, the region hidden by edge UV from point P — bounded by the
    edge, the rays P→U and P→V, and an arc of radius `far` around P. Vectorised."""
    au = np.arctan2(U[:, 1] - P[:, 1], U[:, 0] - P[:, 0])
    av = np.arctan2(V[:, 1] - P[:, 1], V[:, 0] - P[:, 0])
    sweep = (av - au + np.pi) % (2 * np.pi) - np.pi
    k = np.linspace(0.0, 1.0, ARC_POINTS)
    ang = av[:, None] - sweep[:, None] * k[None, :]  # from V's ray back to U's ray
    arc = np.stack((P[:, 0, None] + far * np.cos(ang), P[:, 1, None] + far * np.sin(ang)),
                   axis=-1)
    ring = np.concatenate((U[:, None, :], V[:, None, :], arc), axis=1)
    polys = shapely.polygons(ring)
    keep = np.abs(sweep) > 1e-12  # p on the edge's line: the edge hides nothing of area
    polys[~keep] = None
    return polys


def reach_past(rim: np.ndarray, obstacles: Sequence[Polygon], reach: float) -> BaseGeometry:
    """Points q such that for some rim point p the segment pq is ≤ reach long and crosses no
    obstacle: ∪_p (disc(p, reach) − what the obstacles hide from p). Hiding is closed (grazing
    counts as hidden), so this is an inner approximation."""
    discs = shapely.buffer(shapely.points(rim), reach, quad_segs=QUAD_SEGS)
    if not obstacles:
        return shapely.union_all(discs)
    edges = []
    for o in obstacles:
        for ring in [o.exterior, *o.interiors]:
            c = np.asarray(ring.coords)
            edges.append(np.concatenate((c[:-1], c[1:]), axis=1))
    E = np.vstack(edges)  # (m, 4)
    coords = E.reshape(-1, 2)
    far = 2.0 * (reach + float(np.max(np.hypot(coords[:, 0, None] - rim[None, :, 0],
                                                coords[:, 1, None] - rim[None, :, 1])))) + 1.0
    n, m = len(rim), len(E)
    P = np.repeat(rim, m, axis=0)
    W = _wedges(P, np.tile(E[:, :2], (n, 1)), np.tile(E[:, 2:], (n, 1)), far).reshape(n, m)
    obs = shapely.union_all(list(obstacles))
    hidden = shapely.union_all(np.concatenate((W, np.full((n, 1), obs)), axis=1), axis=1)
    return shapely.union_all(shapely.difference(discs, hidden))


# --------------------------------------------------------------------------- zones


Surface = TerrainPiece | None  # the top a centre stands on; None: the mat


def level_tops(bf: Battlefield) -> list[TerrainPiece]:
    """Tops a model can end on (freespace.is_level: a ramp, a top with access points, or a
    standable piece of Size 2+)."""
    from .freespace import is_level

    return [p for p in bf.terrain if is_level(p)]


def may_overlap(bf: Battlefield, top: Surface) -> set[str]:
    """Pieces a base standing on `top` may overlap: the top, the pieces under it, and tops
    joined to it by an access point (a ramp and the hill it climbs)."""
    if top is None:
        return set()
    out: set[str] = set()
    p: TerrainPiece | None = top
    while p is not None and p.id not in out:
        out.add(p.id)
        p = bf.piece(p.on) if p.on else None
    aps = [a for q in bf.terrain for a in q.access_points]
    for q in level_tops(bf):
        if q.id != top.id and any(a.intersects(top.footprint) and a.intersects(q.footprint)
                                  for a in aps):
            out.add(q.id)
    return out


def _surface_level(bf: Battlefield, top: Surface) -> str:
    return GROUND if top is None else level_of_size(piece_effective_size(bf, top))


def _surface_stack(bf: Battlefield, top: Surface) -> set[str]:
    out: set[str] = set()
    p = top
    while p is not None and p.id not in out:
        out.add(p.id)
        p = bf.piece(p.on) if p.on else None
    return out


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
    lm, lt = _surface_level(bf, top), elevation_level(bf, target)
    if {lm, lt} == {GROUND, HIGH}:
        return Polygon()  # high ground never engages ground level (§7.2.1)
    te = target.ellipse
    tgt = base_shape(te, outer=False)
    halo1 = tgt.buffer(ENGAGEMENT_RANGE, quad_segs=QUAD_SEGS)
    tpiece = standing_piece(bf, target)
    floor = min(0 if top is None else piece_effective_size(bf, top), surface_size(bf, target))
    exclude = stack_ids(bf, target) | _surface_stack(bf, top)
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
        clipped = [b.intersection(halo1.buffer(0.01)) for b in blockers]
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


def range_zone(mover: Model, other: Model, d: float = ENGAGEMENT_RANGE) -> BaseGeometry:
    """Centres at which the mover's base comes within d of `other`'s base — outer approx."""
    K = mover_base(mover)
    oe = other.ellipse
    if oe.is_disc and K.is_disc:
        return SPoint(oe.centre).buffer((oe.a + d + K.a) * _k(K), quad_segs=QUAD_SEGS)
    return grow(base_shape(oe, outer=True), K, d, outer=True)


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
    with targets: whole base on the table, no overlap with terrain (bar its own top, §6) or with
    other units' and `extra_bases` bases, and not within 1" of the `avoid` models. Inner."""
    K = mover_base(mover)
    ok = may_overlap(bf, top)
    cuts = [grow(p.footprint, K, outer=True) for p in bf.terrain
            if not p.grass and p.id not in ok]
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


def _undeclared(bf: Battlefield, unit: Unit, target_ids: set[str]) -> list[Model]:
    """Models whose engagement range a charger may not end in: ground models of enemy units
    not declared (flying models never engage; ground models may end touching them, §8.5.3)."""
    return [m for v in bf.units if v.owner != unit.owner and v.id not in target_ids
            for m in v.models if not m.flying]


def _reachable_tops(bf: Battlefield, leader: Model, targets: Sequence[Unit]) -> list[Surface]:
    """The mat, plus every top close enough to some model of every target to engage it."""
    out: list[Surface] = [None]
    for p in level_tops(bf):
        if all(any(p.footprint.distance(SPoint(o.at)) <= o.base.a + 2 * leader.base.a
                   + ENGAGEMENT_RANGE + 0.01 for o in t.models) for t in targets):
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
    und = _undeclared(bf, unit, target_ids)
    parts, frees = [], []
    zones: dict[str, list[BaseGeometry]] = {t.id: [] for t in targets}
    tops: list[str] = []
    for top in _reachable_tops(bf, leader, targets):
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
                                      if not p.grass] or [Polygon()]),
        "bases": shapely.union_all([grow(base_shape(m.ellipse, outer=True), K, outer=True)
                                    for m in bf.models() if m.unit != unit.id] or [Polygon()]),
        "undeclared": shapely.union_all([range_zone(leader, m) for m in und] or [Polygon()]),
    }
    return EndRegion(region, shapely.union_all(frees),
                     {k: shapely.union_all(v) for k, v in zones.items()}, forbidden, tuple(tops))


# --------------------------------------------------------------------------- exact end check


def check_end(bf: Battlefield, unit: Unit, leader: Model, at: Point,
              targets: Sequence[Unit]) -> Verdict:
    """Is `at` a legal charge end for the leading model (§8.7.7 step 3)? Exact, per model."""
    m = leader.moved_to(at)
    e = m.ellipse
    if not on_table_exact(bf, m):
        return Verdict(False, RULE, f"the base at ({at[0]:.3f}, {at[1]:.3f}) is not wholly on "
                       "the table")
    ok = may_overlap(bf, top_at(bf, at))
    for p in bf.terrain:
        if p.grass or p.id in ok:
            continue
        if bases.geometry_meets(e, p.footprint.buffer(-TOLERANCE)):
            return Verdict(False, RULE, f"the base would overlap terrain {p.id!r}")
    for o in bf.models():
        if o.unit == unit.id:
            continue
        if _overlaps(m, o):
            return Verdict(False, RULE, f"the base would overlap {o.ref}")
    target_ids = {t.id for t in targets}
    for v in bf.units:
        if v.owner == unit.owner or v.id in target_ids:
            continue
        for o in v.models:
            if not o.flying and in_engagement_range(m, o):
                return Verdict(False, RULE, f"the base would be within 1\" of {o.ref}, whose unit "
                               f"{v.id!r} was not declared a target")
    witnesses = {}
    for t in targets:
        best = None
        for o in t.models:
            v_ = models_engaged(bf, m, o)
            if v_:
                best = (o.ref, v_.witness)
                break
        if best is None:
            return Verdict(False, RULE, f"the base would not be engaged with any model of {t.id}")
        witnesses[t.id] = best
    return Verdict(True, RULE, "legal end: engaged with every declared target",
                   witness=list(at), details={"engaged_with": {k: v[0] for k, v in witnesses.items()},
                                              "segments": {k: v[1] for k, v in witnesses.items()}})


def on_table_exact(bf: Battlefield, m: Model) -> bool:
    e = m.ellipse
    c, s = math.cos(e.theta), math.sin(e.theta)
    ex = math.sqrt((e.a * c) ** 2 + (e.b * s) ** 2)
    ey = math.sqrt((e.a * s) ** 2 + (e.b * c) ** 2)
    x, y = m.at
    return not (x - ex < -TOLERANCE or y - ey < -TOLERANCE or x + ex > bf.table.width + TOLERANCE
                or y + ey > bf.table.depth + TOLERANCE)


def _overlaps(a: Model, b: Model) -> bool:
    if a.base.is_disc and b.base.is_disc:
        return math.dist(a.at, b.at) < a.base.a + b.base.a - TOLERANCE
    shrunk = Ellipse(a.ellipse.cx, a.ellipse.cy, a.ellipse.a - TOLERANCE,
                     a.ellipse.b - TOLERANCE, a.ellipse.theta)
    return bases.ellipse_distance(shrunk, b.ellipse) == 0.0


def in_contact_with_any(m: Model, others: Iterable[Model]) -> str | None:
    for o in others:
        if bases.ellipse_distance(m.ellipse, o.ellipse) <= 10 * TOLERANCE:
            return o.ref
    return None


def snap_to_contact(mover: Model, at: Point, target: Model) -> Point:
    """Slide `at` straight towards the target's centre until the bases touch (bisection on the
    exact base distance); used to turn a point of the thin contact band into base contact."""
    tc = np.array(target.at)
    p = np.array(at, dtype=float)
    gap = bases.ellipse_distance(mover.moved_to(at).ellipse, target.ellipse)
    if gap <= 0.0:
        return at
    lo, hi = 0.0, 1.0  # fraction of the way to the centre
    for _ in range(60):
        mid = (lo + hi) / 2
        q = p + (tc - p) * mid
        g = bases.ellipse_distance(mover.moved_to((q[0], q[1])).ellipse, target.ellipse)
        if g > 0.0:
            lo = mid
        else:
            hi = mid
    q = p + (tc - p) * lo
    return (float(q[0]), float(q[1]))


# --------------------------------------------------------------------------- the charge


@dataclass
class ChargeAnswer:
    unit: str
    targets: list[str]
    modifier: float
    speed: float | None
    possible: bool
    min_distance: float | None
    min_roll: int | None
    probability: float
    end: Point | None
    path: list[Point] | None
    rule: str
    reason: str
    leading: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"unit": self.unit, "targets": self.targets, "modifier": self.modifier,
                "speed": self.speed, "leading": self.leading, "possible": self.possible,
                "min_distance": self.min_distance, "min_roll": self.min_roll,
                "probability": self.probability,
                "end": list(self.end) if self.end is not None else None,
                "path": [list(p) for p in self.path] if self.path is not None else None,
                "rule": self.rule, "reason": self.reason, **self.details}


def _impossible(unit: Unit, targets: list[str], modifier: float, speed: float | None,
                rule: str, reason: str, leading: str | None = None,
                **details: Any) -> ChargeAnswer:
    return ChargeAnswer(unit.id, targets, modifier, speed, False, None, None, 0.0, None, None,
                        rule, reason, leading=leading, details=details)


def declared_targets(bf: Battlefield, unit: Unit, target_ids: Sequence[str]
                     ) -> tuple[list[Unit], str | None]:
    """The target units, or a reason the declaration is illegal (§8.7.7 step 1)."""
    if not target_ids:
        raise TmgError("a charge needs at least one declared target", obj=unit.id,
                       field="targets")
    seen: list[Unit] = []
    for tid in target_ids:
        t = bf.unit(tid)
        if t.id in {u.id for u in seen}:
            continue
        seen.append(t)
    for t in seen:
        if t.id == unit.id or t.owner == unit.owner:
            return seen, f"{t.id} is not an enemy unit"
        if t.flying or all(m.flying for m in t.models):
            return seen, f"{t.id} is FLYING: only GROUND units can be charged"
    return seen, None


PathFinder = Callable[[Battlefield, Unit, Point, BaseGeometry], Any]


def _default_path_to_region(bf: Battlefield, unit: Unit, start: Point,
                            region: BaseGeometry) -> Any:
    from .movement import path_to_region

    return path_to_region(bf, unit, start, region)


def charge(bf: Battlefield, unit_id: str, target_ids: Sequence[str], modifier: float = 0.0,
           leading: str | None = None, *, place: bool = True,
           path_to_region: PathFinder = _default_path_to_region) -> ChargeAnswer:
    """Answer a charge declaration (§8.7.7). See the module docstring for the guarantees."""
    unit = bf.unit(unit_id)
    targets, bad = declared_targets(bf, unit, target_ids)
    tids = [t.id for t in targets]
    speed = unit.current_speed()
    if unit.flying:
        return _impossible(unit, tids, modifier, speed, "8.7.7 declare targets",
                           f"{unit.id} is FLYING: flying units cannot charge")
    if bad:
        return _impossible(unit, tids, modifier, speed, "8.7.7 declare targets", bad)
    if unit_is_engaged(bf, unit):
        return _impossible(unit, tids, modifier, speed, "8.7.7 charge",
                           f"{unit.id} is engaged: only a unit that is not engaged may charge")
    if speed is None:
        raise TmgError("the unit has no Speed, so its charge distance is unknown",
                       obj=unit.id, field="speed")
    if leading is not None:
        candidates = [unit.model(leading)]
    elif unit.leading is not None:
        candidates = [unit.leading_model]
    else:
        candidates = list(unit.by_id)  # the player picks: try each (id order), best first

    best: tuple[float, Model, EndRegion, Any] | None = None
    regions: dict[str, EndRegion] = {}
    cache: ZoneCache = {}
    for cand in sorted(candidates, key=lambda m: _straight_lower_bound(bf, unit, m, targets)):
        lb = _straight_lower_bound(bf, unit, cand, targets)
        if best is not None and lb >= best[0]:
            break
        er = end_region(bf, unit, cand, targets, cache)
        regions[cand.id] = er
        if er.region.is_empty:
            continue
        path = path_to_region(bf, unit, cand.at, er.region)
        if path is None:
            continue
        if best is None or path.length < best[0]:
            best = (path.length, cand, er, path)

    if best is None:
        lead = candidates[0]
        er = regions.get(lead.id) or end_region(bf, unit, lead, targets, cache)
        reason = _why_no_end(er, tids)
        return _impossible(unit, tids, modifier, speed, RULE, reason, leading=lead.id)

    dist, lead, er, path = best
    rolls = roll_table(speed, modifier, dist)
    details: dict[str, Any] = {
        "measure": "length of the leading model's centre path",
        "successes": list(rolls.successes),
        "bound": REGION_BOUND + 0.01,
        "charge_distance": {str(r): speed + r + modifier for r in D6},
    }
    lo = dist - (REGION_BOUND + 0.01)
    unsure = [r for r in D6 if lo <= speed + r + modifier < dist - TOLERANCE]
    if unsure:
        details["uncertain_rolls"] = unsure
    if rolls.min_roll is None:
        details["best_charge_distance"] = speed + 6 + modifier
        return ChargeAnswer(unit.id, tids, modifier, speed, False, dist, None, 0.0,
                            _pt(path.points[-1]), [_pt(p) for p in path.points], RULE,
                            f'the shortest legal charge needs {dist:.3f}" but the best roll '
                            f'gives only {speed + 6 + modifier:g}"', leading=lead.id,
                            details=details)
    allowance = speed + rolls.min_roll + modifier
    end, end_path, how = suggest_end(bf, unit, lead, targets, er, path, allowance, path_to_region)
    details["end_kind"] = how
    contact = details_contact(bf, unit, lead, targets, er, path_to_region, speed, modifier)
    details.update(contact)
    verdict = check_end(bf, unit, lead, end, targets)
    details["end_check"] = {"ok": verdict.ok, "reason": verdict.reason,
                            **verdict.details}
    if place:
        pl = place_rest(bf, unit, lead.moved_to(end), targets, cache=cache)
        details["placement"] = pl.as_dict()
    reason = (f'the leading model {lead.ref} needs {dist:.3f}" to reach engagement range of '
              f"{', '.join(tids)}; Speed {speed:g} + D6 {_signed(modifier)} succeeds on "
              f"{rolls.min_roll}+ ({len(rolls.successes)}/6)")
    return ChargeAnswer(unit.id, tids, modifier, speed, True, dist, rolls.min_roll,
                        rolls.probability, end, end_path, RULE, reason, leading=lead.id,
                        details=details)


def _signed(x: float) -> str:
    return f"+ {x:g}\"" if x >= 0 else f"− {-x:g}\""


def _pt(p: Any) -> Point:
    return (float(p[0]), float(p[1]))


def _straight_lower_bound(bf: Battlefield, unit: Unit, m: Model, targets: Sequence[Unit]) -> float:
    """No path can be shorter than the straight distance from the centre to the nearest
    engagement position of the farthest target."""
    worst = 0.0
    for t in targets:
        d = min(max(0.0, bases.ellipse_distance(m.ellipse, o.ellipse) - ENGAGEMENT_RANGE)
                for o in t.models)
        worst = max(worst, d)
    return worst


def _why_no_end(er: EndRegion, tids: list[str]) -> str:
    for tid, z in er.target_zones.items():
        if z.is_empty:
            return (f"no position of the leading model's base is engaged with {tid} (elevation "
                    "or terrain)")
    both = None
    for z in er.target_zones.values():
        both = z if both is None else both.intersection(z)
    if both is not None and both.is_empty:
        return f"no single position is within engagement range of all of {', '.join(tids)}"
    if both is not None:
        inside = both.intersection(er.free)
        if inside.is_empty or inside.buffer(-INSET).is_empty:
            parts = []
            for name, g in er.forbidden_by.items():
                if not both.difference(g).equals(both):
                    parts.append(name)
            what = {"terrain": "terrain", "bases": "other bases",
                    "undeclared": "the engagement range of an undeclared enemy unit"}
            blocked = ", ".join(what[p] for p in parts) or "the table edge"
            return ("every position engaged with the declared targets overlaps or is within "
                    f"reach of something it may not be: {blocked}")
    return "no legal path reaches a position engaged with every declared target"


def suggest_end(bf: Battlefield, unit: Unit, lead: Model, targets: Sequence[Unit], er: EndRegion,
                shortest: Any, allowance: float, path_to_region: PathFinder
                ) -> tuple[Point, list[Point], str]:
    """Where the leading model goes with `allowance` inches (§8.7.7 step 4): base contact with a
    target model if it can reach one, else as close as possible to the targets."""
    band = contact_band(lead, targets, er.region)
    if not band.is_empty:
        p = path_to_region(bf, unit, lead.at, band)
        if p is not None and p.length <= allowance + TOLERANCE:
            end = _pt(p.points[-1])
            tgt = _nearest_target_model(end, targets)
            snapped = snap_to_contact(lead, end, tgt)
            pts = [_pt(q) for q in p.points[:-1]] + [snapped]
            # sliding into contact lengthens the last leg by at most the band's width
            longer = p.length + (math.dist(pts[-2], snapped) - math.dist(pts[-2], end)
                                 if len(pts) > 1 else math.dist(end, snapped))
            if longer <= allowance + TOLERANCE and check_end(bf, unit, lead, snapped, targets):
                return snapped, pts, "base contact"
    lo, hi = 0.0, ENGAGEMENT_RANGE
    best = (_pt(shortest.points[-1]), [_pt(q) for q in shortest.points])
    for _ in range(7):
        mid = (lo + hi) / 2
        zone = er.region
        for t in targets:
            zone = zone.intersection(shapely.union_all([range_zone_inner(lead, o, mid)
                                                        for o in t.models]))
        p = path_to_region(bf, unit, lead.at, zone) if not zone.is_empty else None
        if p is not None and p.length <= allowance + TOLERANCE:
            best = (_pt(p.points[-1]), [_pt(q) for q in p.points])
            hi = mid
        else:
            lo = mid
    return best[0], best[1], f'within {hi:.3f}" of the targets (base contact out of reach)'


def range_zone_inner(mover: Model, other: Model, d: float) -> BaseGeometry:
    K = mover_base(mover)
    oe = other.ellipse
    if oe.is_disc and K.is_disc:
        return SPoint(oe.centre).buffer(oe.a + d + K.a, quad_segs=QUAD_SEGS)
    return grow(base_shape(oe, outer=False), K, d)


def contact_band(lead: Model, targets: Sequence[Unit], region: BaseGeometry) -> BaseGeometry:
    rings = [range_zone_inner(lead, o, CONTACT_BAND) for t in targets for o in t.models
             if not o.flying]
    return region.intersection(shapely.union_all(rings)) if rings else Polygon()


def _nearest_target_model(at: Point, targets: Sequence[Unit]) -> Model:
    return min((o for t in targets for o in t.models if not o.flying),
               key=lambda o: bases.point_distance(o.ellipse, at)[0])


def details_contact(bf: Battlefield, unit: Unit, lead: Model, targets: Sequence[Unit],
                    er: EndRegion, path_to_region: PathFinder, speed: float,
                    modifier: float) -> dict[str, Any]:
    band = contact_band(lead, targets, er.region)
    if band.is_empty:
        return {"contact_distance": None, "contact_roll": None}
    p = path_to_region(bf, unit, lead.at, band)
    if p is None:
        return {"contact_distance": None, "contact_roll": None}
    rt = roll_table(speed, modifier, p.length)
    return {"contact_distance": p.length, "contact_roll": rt.min_roll}


# --------------------------------------------------------------------------- placing the rest


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
GRID = 0.125  # candidate spacing when the nearest point of a region has no valid link


def place_rest(bf: Battlefield, unit: Unit, leader: Model, targets: Sequence[Unit],
               *, avoid_all_enemies: bool = False, cache: ZoneCache | None = None) -> Placement:
    """Place the unit's other models around the moved leader, one by one.

    With targets (a charge): priorities A > B > C. With `avoid_all_enemies` (disengage) every
    enemy's engagement range is forbidden and only C applies. Every model must be legal, wholly
    within the coherency distance of the leader and linked to an already placed model (§4.4). Models go on the mat
    or on the leader's own top."""
    cache = {} if cache is None else cache
    target_ids = {t.id for t in targets}
    others = [m for m in unit.models if m.id != leader.id]
    # nearer models first: the order a player would naturally place them in
    others.sort(key=lambda m: math.dist(m.at, leader.at))
    positions: dict[str, Point] = {}
    priority: dict[str, str] = {}
    casualties: list[str] = []
    reasons: dict[str, str] = {}
    placed: list[Model] = [leader]
    link = LinkChecker(bf, unit, engaged_enemies=[m for t in targets for m in t.models])
    avoid = [o for v in bf.units if v.owner != unit.owner
             and (avoid_all_enemies or v.id not in target_ids) for o in v.models if not o.flying]
    surfaces: list[Surface] = [None]
    lead_top = top_at(bf, leader.at)
    if lead_top is not None:
        surfaces.append(lead_top)
    coh_base = base_shape(leader.ellipse, outer=False).buffer(unit.coherency_distance,
                                                              quad_segs=QUAD_SEGS)
    for m in others:
        K = mover_base(m)
        coh = shrink(coh_base, K)
        spot: tuple[Point, str] | None = None
        tiers: dict[str, list[BaseGeometry]] = {PRIORITY_A: [], PRIORITY_B: [], PRIORITY_C: []}
        for top in surfaces:
            allowed = free_region(bf, unit, m, top, avoid, extra_bases=placed).intersection(coh)
            allowed = allowed.buffer(-INSET) if not allowed.is_empty else allowed
            if allowed.is_empty:
                continue
            if targets and not avoid_all_enemies:
                band = shapely.union_all([range_zone_inner(m, o, CONTACT_BAND)
                                          for t in targets for o in t.models if not o.flying])
                eng = shapely.union_all([engagement_zone(bf, m, o, top, cache)
                                         for t in targets for o in t.models])
                engaged_part = allowed.intersection(eng)
                tiers[PRIORITY_A].append(engaged_part.intersection(band))
                tiers[PRIORITY_B].append(engaged_part)
            tiers[PRIORITY_C].append(allowed)

        def linked(q: Point, m: Model = m) -> Point | None:
            return q if link.ok(m.moved_to(q), placed) else None

        def touching(q: Point, m: Model = m) -> Point | None:
            snapped = snap_to_contact(m, q, _nearest_target_model(q, targets))
            moved = m.moved_to(snapped)
            if any(_overlaps(moved, o) for o in (*placed, *bf.models())
                   if o.unit != unit.id or any(o is p_ for p_ in placed)):
                return None
            return linked(snapped)

        for name, zs in tiers.items():
            zone = shapely.union_all(zs) if zs else Polygon()
            pt = _pick(zone, leader.at, touching if name == PRIORITY_A else linked)
            if pt is not None:
                spot = (pt, name)
                break
        if spot is None:
            casualties.append(m.id)
            reasons[m.id] = (f"no legal spot wholly within {unit.coherency_distance:g}\" of the "
                             "leader with a coherency link"
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
    """geom.coherency's verdict on the placed unit (casualties removed)."""
    from .coherency import coherency

    models = tuple(leader if m.id == leader.id else m.moved_to(positions[m.id])
                   for m in unit.models if m.id == leader.id or m.id in positions)
    moved = replace(unit, models=models, leading=leader.id)
    v = coherency(bf.replace_unit(moved), moved, leading=leader.id,
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
    """Coherency links (§4.4, FAQ) as `geom.coherency` draws them: centre to centre, valid where
    the leading model could travel, crossing the enemy models the unit is engaged with. Built
    once per placement; each test is one segment query."""

    def __init__(self, bf: Battlefield, unit: Unit, engaged_enemies: Sequence[Model] = ()) -> None:
        from .coherency import link_space

        self.unit = unit
        self.fs = link_space(bf, unit, engaged=[m.ref for m in engaged_enemies])

    def segment_ok(self, a: Point, b: Point) -> bool:
        if self.fs is None:  # flying units' links ignore terrain and models
            return True
        if self.fs.segments_clear(np.array([a], dtype=float), np.array([b], dtype=float))[0]:
            return True
        from .coherency import link_blockers  # the near-end allowance coherency applies

        lead = self.unit.models[0]
        return not link_blockers(self.fs, lead.moved_to(a), lead.moved_to(b))

    def ok(self, m: Model, placed: Sequence[Model]) -> bool:
        return any(self.segment_ok(m.at, p.at) for p in placed)


def check_placement(bf: Battlefield, unit: Unit, leader_end: Point, positions: dict[str, Point],
                    targets: Sequence[Unit]) -> Verdict:
    """Check a proposed placement of the other models after a charge (§8.7.7 step 4, §4.4):
    each legal, wholly within the coherency distance of the leader, linked to it through placed models,
    none within 1" of an undeclared enemy; and no model left at a lower priority (B, C) when a
    spot of higher priority (A base contact, B engagement range) was free for it."""
    leader = unit.leading_model.moved_to(leader_end)
    target_ids = {t.id for t in targets}
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
        if not on_table_exact(bf, m):
            problems.append(f"{m.ref} is not wholly on the table")
        allowed = may_overlap(bf, top_at(bf, m.at))
        for p in bf.terrain:
            if not p.grass and p.id not in allowed and \
                    bases.geometry_meets(m.ellipse, p.footprint.buffer(-TOLERANCE)):
                problems.append(f"{m.ref} overlaps terrain {p.id!r}")
        near = [o for o in bf.models() if o.unit != unit.id]
        near += [o for k, o in moved.items() if k != mid]
        for o in near:
            if _overlaps(m, o):
                problems.append(f"{m.ref} overlaps {o.ref}")
            elif o.owner != unit.owner and o.unit not in target_ids and not o.flying \
                    and in_engagement_range(m, o):
                problems.append(f"{m.ref} is within 1\" of {o.ref}, of an undeclared unit")
        if bases.max_distance_to_ellipse(m.ellipse, leader.ellipse) > \
                unit.coherency_distance + TOLERANCE:
            problems.append(f"{m.ref} is not wholly within {unit.coherency_distance:g}\" of the "
                            "leading model")
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
    for mid, m in moved.items():
        if mid == leader.id:
            continue
        tmodels = [o for t in targets for o in t.models if not o.flying]
        if any(bases.ellipse_distance(m.ellipse, o.ellipse) <= 1e-4 for o in tmodels):
            tiers[mid] = PRIORITY_A
            continue
        tiers[mid] = PRIORITY_B if any(models_engaged(bf, m, o) for o in tmodels) else PRIORITY_C
        others = [o for k, o in moved.items() if k != mid]
        avoid = _undeclared(bf, unit, target_ids)
        coh = shrink(base_shape(leader.ellipse, outer=False).buffer(unit.coherency_distance,
                                                                    quad_segs=QUAD_SEGS),
                     mover_base(m))
        free = free_region(bf, unit, m, None, avoid, extra_bases=others).intersection(coh)
        band = shapely.union_all([range_zone_inner(m, o, CONTACT_BAND) for o in tmodels])
        better = free.intersection(band).buffer(-INSET)
        name = "base contact with a target"
        if better.is_empty and tiers[mid] == PRIORITY_C:
            eng = shapely.union_all([engagement_zone(bf, m, o) for o in tmodels])
            better = free.intersection(eng).buffer(-INSET)
            name = "engagement range of a target"
        def accept(q: Point, m: Model = m, others: list[Model] = others) -> Point | None:
            return q if link.ok(m.moved_to(q), [leader, *others]) else None

        if not better.is_empty and _pick(better, m.at, accept) is not None:
            problems.append(f"{m.ref} ({tiers[mid]}) could have been placed in {name}")
    ok = not problems and not missing
    reason = ("the placement follows §8.7.7 step 4" if ok else
              "; ".join(problems + ([f"no position for {', '.join(missing)} (casualties?)"]
                                    if missing else [])))
    return Verdict(ok, "8.7.7 execute the move", reason,
                   details={"tiers": tiers, "problems": problems, "missing": missing})
