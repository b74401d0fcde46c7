"""Charges (rulebook §8.7.7, §7.2, §7.2.1, §4.4).

A ground unit that is not engaged declares ground target units, rolls 1D6 and adds it to its
Speed (plus modifiers such as Concussive Shells' −2"): that is the charge distance. The charge
succeeds when the leading model can legally reach, along a real path no longer than the charge
distance, a legal charge end (`geom.charge_region`).

**Measured distance.** The charge distance is the length of the leading model's *centre path*
(`geom.navigator`: gap clearance, around impassable terrain, elevation through access points). A
base that slides without turning carries every point of its rim along a copy of the centre's
path, so every point of the base moves exactly that far.

The charge distance is the shortest legal path from the start to the end region
(`geom.region_path`): an upper bound on the true value; `details` carries the bound and says
when a roll threshold falls inside it. After the roll the leading model goes into base contact
if it can, else as close as it can (`suggest_end`), and the others are placed
(`geom.after_charge`).

>>> pr = roll_table(speed=4, modifier=-2, distance=7.03)
>>> pr.min_roll, round(pr.probability, 4)
(6, 0.1667)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import shapely
from shapely.geometry.base import BaseGeometry

from . import bases
from .after_charge import Placement, check_placement, place_rest
from .centre_zones import (
    QUAD_SEGS,
    base_shape,
    grow,
    mover_base,
    on_table,
    range_zone,
    range_zone_inner,
)
from .charge_region import (
    INSET,
    RULE,
    EndRegion,
    ZoneCache,
    check_end,
    contact_band,
    end_region,
    engagement_zone,
    nearest_target_model,
    snap_to_contact,
)
from .end_position import base_on_table, bases_overlap
from .engagement import ENGAGEMENT_RANGE, unit_is_engaged
from .errors import TmgError
from .model import TOLERANCE, Battlefield, Model, Point, Unit

# names other modules have imported from here
__all__ = ["QUAD_SEGS", "RULE", "ChargeAnswer", "EndRegion", "Placement", "RollTable",
           "_overlaps", "base_shape", "charge", "check_end", "check_placement",
           "declared_targets", "end_region", "engagement_zone", "grow", "mover_base",
           "on_table", "on_table_exact", "place_rest", "range_zone", "range_zone_inner",
           "roll_table", "suggest_end"]

REGION_BOUND = 0.003  # what the inner approximation of E may lose, in inches
D6 = range(1, 7)


def on_table_exact(bf: Battlefield, m: Model) -> bool:
    """Is the model's whole base on the table? (`geom.end_position.base_on_table`)"""
    return base_on_table(bf, m.ellipse)


def _overlaps(a: Model, b: Model) -> bool:
    """Do two bases overlap? (`geom.end_position.bases_overlap`)"""
    return bases_overlap(a, b)


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
        candidates = list(unit.models)  # the player picks: try each, best first

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
            tgt = nearest_target_model(end, targets)
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


