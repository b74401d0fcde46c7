"""Charges (rulebook §8.7.7, §7.2, §7.2.1, §4.4).

A ground unit that is not engaged declares ground target units, rolls 1D6 and adds it to its
Speed (plus modifiers such as Concussive Shells' −2"): that is the charge distance. A unit with
Metabolic Boost ("대사 촉진", an Active ability on its card) may roll 2D6 instead and add the
higher: the rolls that succeed are the same, their probability that of the higher of two dice,
P(max ≥ k) = 1 − ((k − 1)/6)². The charge
succeeds when the leading model can legally reach, along a real path no longer than the charge
distance, a legal charge end (`geom.movement._charge_ends`). A roll r succeeds when Speed + r + modifier
is at least the shortest such path: exactly enough is enough (docs/rules.md#tolerance).

**Measured distance.** The charge distance is the length of the leading model's *centre path*
(`geom.paths._navigator`: gap clearance, around impassable terrain, elevation through access points). A
base that slides without turning carries every point of its rim along a copy of the centre's
path, so every point of the base moves exactly that far.

**Exact at every roll.** The shortest path to the legal ends is found exactly where the ends
are discs, convex curves and grown polygons (`geom.paths._region_path`); where they are approximated
(engagement behind terrain, oval bases among the obstacles) the engine keeps a lower bound
beside the legal path it found and refines until no roll falls between them. Only a roll that
still falls between them after the last refinement is reported in `uncertain_rolls`.

After the roll the leading model goes into base contact with a target model if it can, else as
close as it can to the target models within 1" (`suggest_end`, from the same search), and the
others are placed (`geom.movement._after_charge`). **Target models** (§8.7.7 step 2: the player names one
model in each declared unit, `unit/model`): the leader's base contact and closeness refer to
them; they do not change which ends are legal (step 3: within 1" of every declared *unit*), so
`min_distance` and the rolls that succeed are the same whatever models are named. A unit with
no named model gets the engine's choice: the model the leader reaches base contact with by the
shortest path (with the roll's distance), else the one nearest the leader's end (`target_models`
in the answer says which, and `target_model_choice` how; docs/rules.md#charge-target-model).

>>> pr = roll_table(speed=4, modifier=-2, distance=7.0)
>>> pr.min_roll, pr.successes
(5, (5, 6))
>>> round(roll_table(speed=4, modifier=-2, distance=7.0, dice=2).probability, 4)  # 20/36
0.5556
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .. import bases
from ..engagement import ENGAGEMENT_RANGE, engaged_pairs
from ..errors import TmgError
from ..model import METABOLIC_BOOST, Battlefield, Model, Point, Unit
from ..movement import (
    INSET,
    MAX_LEVEL,
    RULE_CHARGE,
    ChargeEnds,
    EndRegion,
    bases_overlap,
    charge_ends,
    check_end,
    contact_shapes,
    destroyed_by,
    destroyed_words,
    end_region,
    place_rest,
    with_group,
    without,
)
from ..paths import (
    MAX_STARTS,
    OVAL_SIDES,
    STEP_SAMPLE,
    Accept,
    EndPath,
    EndQuestion,
    EndSet,
    Navigator,
    Path,
    PathAccept,
    Segment,
    Shape,
    cut,
    distance_outside,
    navigator_for,
    path_to_ends,
    reach_box,
    stepped_needed,
)
from ..tolerance import TOLERANCE
from ..verdict import Verdict

# names other modules have imported from here

D6 = range(1, 7)
CLOSE_TOL = 1 / 256  # "as close as possible" is found to within this
EndMemo = dict[tuple[int, str, Point], tuple[Battlefield, Verdict]]  # `checked_end`


def _overlaps(a: Model, b: Model) -> bool:
    """Do two bases overlap? (`geom.movement._end_position.bases_overlap`)"""
    return bases_overlap(a, b)


@dataclass(frozen=True)
class RollTable:
    speed: float
    modifier: float
    distance: float | None  # shortest legal charge distance; None if no end is reachable
    min_roll: int | None
    probability: float
    successes: tuple[int, ...]
    dice: int = 1  # D6 rolled, the highest counting (2: Metabolic Boost)


def success_probability(min_roll: int | None, dice: int = 1) -> float:
    """P(the highest of `dice` D6 ≥ min_roll) = 1 − ((min_roll − 1)/6)^dice (0 with no roll)."""
    if min_roll is None:
        return 0.0
    return 1.0 - ((min_roll - 1) / 6) ** dice


def roll_table(speed: float, modifier: float, distance: float | None, dice: int = 1
               ) -> RollTable:
    """Which D6 results succeed: charge distance = Speed + D6 + modifier ≥ distance (with
    `dice` = 2, Metabolic Boost, the D6 is the higher of two: the same results succeed, more
    often)."""
    if distance is None:
        return RollTable(speed, modifier, None, None, 0.0, (), dice)
    ok = tuple(r for r in D6 if speed + r + modifier >= distance - TOLERANCE)
    least = ok[0] if ok else None
    return RollTable(speed, modifier, distance, least, success_probability(least, dice), ok,
                     dice)


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
                rule: str, reason: str, leading: str | None = None, roll: int | None = None,
                metabolic_boost: bool = False, **details: Any) -> ChargeAnswer:
    details = {"metabolic_boost": metabolic_boost, **details,
               **rolled_keys(roll, speed, modifier, ())}
    return ChargeAnswer(unit.id, targets, modifier, speed, False, None, None, 0.0, None, None,
                        rule, reason, leading=leading, details=details)


def rolled_keys(roll: int | None, speed: float | None, modifier: float,
                successes: Sequence[int]) -> dict[str, Any]:
    """What a given roll gives (the contract's `roll`, `roll_distance`, `roll_succeeds`),
    whether or not any charge is possible: nothing when no roll was given."""
    if roll is None:
        return {}
    return {"roll": roll, "roll_distance": speed + roll + modifier if speed is not None else None,
            "roll_succeeds": roll in successes}


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


def split_targets(specs: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """Declared targets as written, `unit` or `unit/model` (§8.7.7 step 2: the model is the
    charge's target model in that unit): the unit ids, and the named model of each unit."""
    ids: list[str] = []
    named: dict[str, str] = {}
    for spec in specs:
        uid, slash, mid = spec.partition("/")
        uid, mid = uid.strip(), mid.strip()
        if not uid or (slash and not mid):
            raise TmgError(f"a declared target is UNIT or UNIT/MODEL, got {spec!r}",
                           obj=spec, field="targets")
        if slash:
            if named.get(uid, mid) != mid:
                raise TmgError(f"{uid} is given two target models, {named[uid]!r} and {mid!r}: "
                               "a charge has one target model per declared unit (§8.7.7 step 2)",
                               obj=uid, field="targets")
            named[uid] = mid
        ids.append(uid)
    return ids, named


def named_target_models(targets: Sequence[Unit], named: dict[str, str]) -> dict[str, Model]:
    """The named target models, each checked to be a (ground) model of its declared unit."""
    out: dict[str, Model] = {}
    by_id = {t.id: t for t in targets}
    for uid, mid in named.items():
        t = by_id.get(uid)
        if t is None:
            raise TmgError(f"target model {uid}/{mid} is not in a declared target unit",
                           obj=uid, field="targets")
        found = [m for m in t.models if m.id == mid]
        if not found:
            raise TmgError(f"declared target {uid} has no model {mid!r} (its models: "
                           f"{', '.join(m.id for m in t.by_id)})", obj=f"{uid}/{mid}",
                           field="targets")
        if found[0].flying and not (t.flying or all(m.flying for m in t.models)):
            # (a FLYING unit is no legal target at all: the declaration says so, §8.7.7 step 1)
            raise TmgError(f"target model {uid}/{mid} is FLYING: only GROUND models can be "
                           "charged", obj=f"{uid}/{mid}", field="targets")
        out[uid] = found[0]
    return out


def aimed_at(targets: Sequence[Unit], named: dict[str, Model]) -> list[Unit]:
    """The targets as the leader's base contact sees them (§8.7.7 step 4): each unit with a
    named target model reduced to that model."""
    return [replace(t, models=(named[t.id],)) if t.id in named else t for t in targets]


def target_model_choice(lead: Model, targets: Sequence[Unit], named: dict[str, Model]
                        ) -> dict[str, Any]:
    """The charge's target model in each declared unit (`target_models`) and how it was chosen
    (`target_model_choice`): the named one ("named"), else the engine's choice — the ground
    model nearest the leader's end: the one it is in base contact with ("base contact", reached
    by the shortest path into contact), else the nearest ("nearest"); ties in id order."""
    models: dict[str, str] = {}
    how: dict[str, str] = {}
    for t in targets:
        if t.id in named:
            models[t.id], how[t.id] = named[t.id].id, "named"
            continue
        ground = [m for m in t.by_id if not m.flying]
        if ground:
            gaps = [(bases.ellipse_distance(lead.ellipse, m.ellipse), i)
                    for i, m in enumerate(ground)]
            gap, i = min(gaps)
            models[t.id] = ground[i].id
            how[t.id] = "base contact" if gap <= TOLERANCE else "nearest"
    return {"target_models": models, "target_model_choice": how}


def charge(bf: Battlefield, unit_id: str, target_ids: Sequence[str], modifier: float = 0.0,
           leading: str | None = None, *, place: bool = True,
           roll: int | None = None, metabolic_boost: bool = False) -> ChargeAnswer:
    """Answer a charge declaration (§8.7.7). See the module docstring for the guarantees.

    `roll`: the D6 rolled. The answer then says whether that roll succeeds (`roll_succeeds`)
    and, when it does, the end, path and placement are those of that charge distance — the
    leading model in base contact when that distance reaches it (§8.7.7 step 4), not merely
    the smallest roll's end. A roll that fails leaves the unit where it is (step 3).

    `metabolic_boost`: the unit uses its Metabolic Boost (it must have the ability): 2D6, the
    higher counts; `roll` is then the higher die.

    `target_ids` may name a target model, `unit/model` (`split_targets`): the leader's base
    contact refers to it; the answer's `target_models` names each unit's.

    Parameters
    ----------
    bf : Battlefield
        The table.
    unit_id : str
        The charging unit's id.
    target_ids : sequence of str
        The declared target units (``UNIT`` or ``UNIT/MODEL``).
    modifier : float, optional
        Added to the charge distance.
    leading : str, optional
        The leading model's id (default: the best candidate).
    place : bool, optional
        Also place the rest of the unit after a successful charge.
    roll : int, optional
        The D6 rolled.
    metabolic_boost : bool, optional
        The unit uses Metabolic Boost.

    Returns
    -------
    ChargeAnswer
        `possible`, the shortest charge `min_distance` along a legal path, the `min_roll`
        that makes it and its `probability`, the leader's `end` and `path`, `rule` and
        `reason`; `as_dict()` is the command's JSON.

    Raises
    ------
    TmgError
        A roll outside 1–6, Metabolic Boost without the ability, or a unit without Speed.

    Examples
    --------
    Speed 6 and 9.26" between the bases: the charge needs 7.74" (to within 1"), a roll of 2+:

    >>> from geom import Base, Battlefield, Model, Speed, Table, Unit, charge
    >>> base = Base.from_mm(32)
    >>> a = Model.make("1", unit="a", owner="red", at=(4, 10), base=base, size=1)
    >>> b = Model.make("1", unit="b", owner="blue", at=(14, 10), base=base, size=1)
    >>> bf = Battlefield(Table(24, 12), units=(Unit("a", "red", 1, (a,), base, speed=Speed(6)),
    ...                                        Unit("b", "blue", 1, (b,), base)))
    >>> c = charge(bf, "a", ["b"])
    >>> c.possible, round(c.min_distance, 3), c.min_roll, round(c.probability, 3), c.rule
    (True, 7.74, 2, 0.833, '8.7.7 charge')
    >>> charge(bf, "a", ["b"], roll=1).details["roll_succeeds"]
    False
    """
    if roll is not None and roll not in D6:
        raise TmgError(f"a D6 roll is 1 to 6, got {roll!r}", obj=unit_id, field="roll")
    unit = bf.unit(unit_id)
    if metabolic_boost and not unit.has(METABOLIC_BOOST):
        raise TmgError(f"{unit.id} has no Metabolic Boost (대사 촉진) on its card: it rolls one "
                       "D6 for its charge distance", obj=unit.id, field="metabolic_boost")
    dice = 2 if metabolic_boost else 1
    unit_ids, names = split_targets(target_ids)
    targets, bad = declared_targets(bf, unit, unit_ids)
    tids = [t.id for t in targets]
    named = named_target_models(targets, names)
    speed = unit.current_speed()
    said: dict[str, Any] = {"roll": roll, "metabolic_boost": metabolic_boost,
                            "target_models": {u: m.id for u, m in named.items()},
                            "target_model_choice": {u: "named" for u in named}}
    if unit.flying:
        return _impossible(unit, tids, modifier, speed, "8.7.7 declare targets",
                           f"{unit.id} is FLYING: flying units cannot charge", **said)
    if bad:
        return _impossible(unit, tids, modifier, speed, "8.7.7 declare targets", bad, **said)
    enemies = [o for v in bf.units if v.owner != unit.owner for o in v.models]
    if engaged_pairs(bf, unit.models, enemies, first_only=True):
        return _impossible(unit, tids, modifier, speed, "8.7.7 charge",
                           f"{unit.id} is engaged: only a unit that is not engaged may charge",
                           **said)
    if speed is None:
        raise TmgError("the unit has no Speed, so its charge distance is unknown",
                       obj=unit.id, field="speed")
    if leading is not None:
        candidates = [unit.model(leading)]
    elif unit.leading is not None:
        candidates = [unit.leading_model]
    else:
        candidates = list(unit.by_id)  # the player picks: try each (id order), best first

    best: Measured | None = None
    memo: EndMemo = {}  # every end this charge re-checks, checked once
    # models with the same base share their legal ends: one search from all of them at once
    groups: dict[tuple[Any, float], list[Model]] = {}
    for cand in candidates:
        groups.setdefault((cand.base, cand.angle), []).append(cand)
    for leads in sorted(groups.values(),
                        key=lambda g: min(_straight_lower_bound(m, targets) for m in g)):
        if best is not None and min(_straight_lower_bound(m, targets)
                                    for m in leads) >= best.high:
            continue
        for i in range(0, len(leads), MAX_STARTS):
            got = measure(bf, unit, leads[i:i + MAX_STARTS], targets, speed, modifier,
                          bound=best.high if best is not None else math.inf, memo=memo)
            if got.found is not None and (best is None or got.high < best.high):
                best = got

    if best is None or best.found is None:
        lead = candidates[0]
        er = end_region(bf, unit, lead, targets)
        return _impossible(unit, tids, modifier, speed, RULE_CHARGE, _why_no_end(er, tids),
                           leading=lead.id, **said)

    lead, found = best.lead, best.found
    dist = found.path.length
    rolls = roll_table(speed, modifier, dist, dice)
    details: dict[str, Any] = {
        "metabolic_boost": metabolic_boost,
        **target_model_choice(lead.moved_to(found.end), targets, named),
        "measure": "length of the leading model's centre path",
        "successes": list(rolls.successes),
        "exact": best.low >= dist - TOLERANCE,
        "distance_bounds": [best.low, dist],
        "charge_distance": {str(r): speed + r + modifier for r in D6},
        "path_summary": path_summary(found.path),
        "nearest_end": list(found.end),  # where the shortest legal charge ends
    }
    unsure = undecided_rolls(speed, modifier, best.low, dist)
    if unsure:
        details["uncertain_rolls"] = unsure
    details.update(rolled_keys(roll, speed, modifier, rolls.successes))
    if rolls.min_roll is None:
        # no roll reaches: no end and no path the unit could take (`nearest_end` says where
        # the shortest legal charge would have ended)
        details["best_charge_distance"] = speed + 6 + modifier
        return ChargeAnswer(unit.id, tids, modifier, speed, False, dist, None, 0.0,
                            None, None, RULE_CHARGE,
                            f'the shortest legal charge of {lead.ref} is {dist:.3f}", but the '
                            f"best roll gives only Speed {speed:g} + 6 {_signed(modifier)} = "
                            f'{speed + 6 + modifier:g}"', leading=lead.id, details=details)
    allowance = speed + rolls.min_roll + modifier
    needs = (f"{lead.ref} needs {_inches(dist)} to reach a legal end engaged with "
             f"{', '.join(tids)}: {roll_words(speed, modifier, rolls)}")
    if roll is not None:
        if roll not in rolls.successes:
            return ChargeAnswer(
                unit.id, tids, modifier, speed, True, dist, rolls.min_roll, rolls.probability,
                found.end, list(found.path.points), RULE_CHARGE,
                f"{needs}; the roll of {roll} gives {_inches(speed + roll + modifier)}: the "
                "charge FAILS and the unit does not move (§8.7.7 step 3)", leading=lead.id,
                details=details)
        allowance = speed + roll + modifier
    nav = navigator_for(bf, unit)
    end_path, how, contact = suggest_end(bf, unit, nav, lead, targets, best.ends, found,
                                         allowance, best.question, memo,
                                         contact_to=aimed_at(targets, named))
    details.update(target_model_choice(lead.moved_to(end_path.end), targets, named))
    details["end_kind"] = how
    details["contact_distance"] = contact.path.length if contact is not None else None
    details["contact_roll"] = (roll_table(speed, modifier, contact.path.length, dice).min_roll
                               if contact is not None else None)
    # GRASS the leading model's path crosses or its base ends on is destroyed at once, and a
    # LARGE unit's Size-0/1 pieces removed (§8.5.3, keyword GRASS, LARGE): the end is judged,
    # and the others placed, on the table without them
    gone = destroyed_by(bf, unit, lead, end_path.path)
    after = without(bf, gone.ids)
    verdict = checked_end(memo, after, unit, lead, end_path.end, targets)
    details["end_check"] = {"ok": verdict.ok, "reason": verdict.reason, **verdict.details}
    details["end_path_length"] = end_path.path.length
    grass, removed = set(gone.grass), set(gone.removed)
    if place:
        key = (unit.id, lead.id, end_path.end, tuple(tids))
        pl = after.prepared.placements.get(key)
        if pl is None:  # a function of the table, unit, leader's end and targets alone
            pl = after.prepared.placements[key] = place_rest(after, unit,
                                                             lead.moved_to(end_path.end), targets)
        details["placement"] = pl.as_dict()
        placed = [unit.model(m).moved_to(at) for m, at in pl.positions.items()]
        more = destroyed_by(bf, unit, lead, None, placed)
        grass |= set(more.grass)
        removed |= set(more.removed)
    details["destroys_grass"] = [p.id for p in bf.terrain if p.id in grass]
    details["removed"] = [p.id for p in bf.terrain if p.id in removed]
    rolled = (f"; the roll of {roll} gives {_inches(allowance)}: the charge succeeds"
              if roll is not None else "")
    reason = needs + rolled + destroyed_words(bf, details["destroys_grass"], details["removed"])
    return ChargeAnswer(unit.id, tids, modifier, speed, True, dist, rolls.min_roll,
                        rolls.probability, end_path.end, list(end_path.path.points), RULE_CHARGE,
                        reason, leading=lead.id, details=details)


@dataclass(frozen=True)
class Measured:
    """The shortest charge of one leading model: the path to a verified legal end (None: no
    end under the bound), a lower bound `low` on the true shortest distance, and the end sets
    it was measured on."""

    lead: Model
    found: EndPath | None
    low: float
    ends: ChargeEnds
    question: EndQuestion | None = None  # the prepared ends the search was asked about

    @property
    def high(self) -> float:
        return self.found.path.length if self.found is not None else math.inf


def measure(bf: Battlefield, unit: Unit, leads: Sequence[Model], targets: Sequence[Unit],
            speed: float, modifier: float, bound: float = math.inf,
            memo: EndMemo | None = None) -> Measured:
    """The shortest legal charge of the best of `leads` (models with one base shape: their
    legal ends are the same), refined until no roll is left between the legal path found and
    the lower bound (or the last refinement is reached)."""
    lead = leads[0]
    starts = [m.at for m in leads]
    level = 0
    while True:
        kept = bf.prepared
        key = (unit.id, lead.base, lead.angle, tuple(t.id for t in targets), level)
        ce = kept.charge_ends.get(key)
        if ce is None:
            ce = kept.charge_ends[key] = charge_ends(bf, unit, lead, targets, level=level)
        nav = navigator_for(bf, unit, oval_sides=OVAL_SIDES * 2 ** level)

        acc, pacc = end_checks(bf, unit, leads[0], targets, ce, memo)  # same base: same check
        step = STEP_SAMPLE / 4 ** level
        steps = None if needs_stepped_ends(nav, lead, ce) else ()
        qkey = ("inner", id(nav), *key)
        q = kept.charge_questions.get(qkey)
        if q is None:
            q = kept.charge_questions[qkey] = EndQuestion(nav, ce.inner)
        up = path_to_ends(nav, starts, q, accept=acc, path_accept=pacc, bound=bound, step=step,
                          stepped=steps)
        if up is not None:
            lead = leads[up.origin]
        high = up.path.length if up is not None else math.inf
        if up is None and ce.outer is None:
            return Measured(lead, None, bound, ce)  # nothing legal under the bound
        if ce.outer is None:
            low = high - up.path.error_bound if up is not None else bound
        else:
            lo_nav = nav.inner() if nav.inexact else nav
            okey = ("outer", id(lo_nav), *key)
            qo = kept.charge_questions.get(okey)
            if qo is None:
                qo = kept.charge_questions[okey] = EndQuestion(lo_nav, ce.outer)
            lo = path_to_ends(lo_nav, starts, qo, bound=min(bound, high), step=step,
                              stepped=None if steps is None else (),
                              path_accept=trample_check(bf, unit, leads[0], targets, exact=False,
                                                        memo=memo)
                              if ce.tramples else None)
            low = lo.path.length - lo.path.error_bound if lo is not None else min(bound, high)
        if not undecided_rolls(speed, modifier, low, high) or level >= MAX_LEVEL:
            return Measured(lead, up, min(low, high), ce, q)
        level += 1


def trample_check(bf: Battlefield, unit: Unit, lead: Model, targets: Sequence[Unit], *,
                  exact: bool = True, memo: EndMemo | None = None) -> PathAccept:
    """An end of a set that assumes GRASS trampled counts when the path reaching it sweeps
    every such piece (`geom.movement._destroyed`); with `exact`, it is then re-checked on the table
    without the GRASS that path destroys (§8.5.3: destroyed at once)."""
    def judge(es: EndSet, at: Point, path: Path) -> bool:
        gone = destroyed_by(bf, unit, lead, path).grass
        if not es.assumes <= set(gone):
            return False
        return not exact or checked_end(memo, without(bf, gone), unit, lead, at, targets).ok

    return judge


def end_checks(bf: Battlefield, unit: Unit, lead: Model, targets: Sequence[Unit],
               ce: ChargeEnds, memo: EndMemo | None = None
               ) -> tuple[Accept | None, PathAccept | None]:
    """The exact re-check of an end a search offers: by position alone, or — when some end sets
    need GRASS trampled — with the path reaching it."""
    if ce.tramples:
        return None, trample_check(bf, unit, lead, targets, memo=memo)

    def accept(tag: int, at: Point) -> bool:
        return checked_end(memo, bf, unit, lead, at, targets).ok

    return accept, None


def checked_end(memo: EndMemo | None, bf: Battlefield, unit: Unit, lead: Model, at: Point,
                targets: Sequence[Unit]) -> Verdict:
    """`check_end`, asked once per (table, leading model, end) within one charge (`memo`, the
    charge's own: the same unit and targets throughout)."""
    if memo is None:
        return check_end(bf, unit, lead, at, targets)
    key = (id(bf), lead.id, (float(at[0]), float(at[1])))
    got = memo.get(key)
    if got is None or got[0] is not bf:
        got = memo[key] = (bf, check_end(bf, unit, lead, at, targets))
    return got[1]


def needs_stepped_ends(nav: Navigator, lead: Model, ce: ChargeEnds) -> bool:
    """`geom.paths._region_path.stepped_needed` for a charge's end sets."""
    return stepped_needed(nav, lead, ce.inner)


def undecided_rolls(speed: float, modifier: float, low: float, high: float) -> list[int]:
    """Rolls whose success depends on where in [low, high] the true distance lies."""
    return [r for r in D6 if low <= speed + r + modifier + TOLERANCE < high]


def roll_words(speed: float, modifier: float, rolls: RollTable) -> str:
    """The roll needed, said once: 'Speed 4 + D6 − 2" reaches it on 5+ (2 in 6)'; with
    Metabolic Boost 'Speed 4 + the higher of 2D6 … reaches it on 5+ (20 in 36)'."""
    n = len(rolls.successes)
    die = "D6" if rolls.dice == 1 else f"the higher of {rolls.dice}D6 (Metabolic Boost)"
    odds = f"{n} in 6" if rolls.dice == 1 else \
        f"{round(rolls.probability * 6 ** rolls.dice)} in {6 ** rolls.dice}"
    mod = f" {_signed(modifier)}" if modifier else ""
    return f"Speed {speed:g} + {die}{mod} reaches it on {rolls.min_roll}+ ({odds})"


def _inches(d: float) -> str:
    """A distance for a reader, to the thousandth (a whole number when it is one)."""
    r = round(d)
    return f'{r}"' if abs(d - r) <= TOLERANCE else f'{d:.3f}"'


def path_summary(path: Path) -> dict[str, Any]:
    """A path as a player reads it: its length, where it turns, and round what."""
    legs: list[dict[str, Any]] = []
    for pc in path.pieces:
        prev = legs[-1] if legs else None
        if (not isinstance(pc, Segment) and prev is not None and "round" in prev
                and prev["round"] == [round(pc.centre[0], 3), round(pc.centre[1], 3)]):
            prev["turn_degrees"] = round(prev["turn_degrees"] + math.degrees(abs(pc.sweep)), 1)
            prev["length"] = round(prev["length"] + pc.length, 3)
            continue
        if isinstance(pc, Segment):
            legs.append({"straight": round(pc.length, 3), "to": [round(pc.b[0], 3),
                                                               round(pc.b[1], 3)]})
        else:
            legs.append({"round": [round(pc.centre[0], 3), round(pc.centre[1], 3)],
                         "radius": round(pc.radius, 3),
                         "turn_degrees": round(math.degrees(abs(pc.sweep)), 1),
                         "length": round(pc.length, 3)})
    turns = [leg["round"] for leg in legs if "round" in leg]
    return {"length": path.length, "legs": legs, "turning_points": turns}


def _signed(x: float) -> str:
    return f"+ {x:g}\"" if x >= 0 else f"− {-x:g}\""


def _pt(p: Any) -> Point:
    return (float(p[0]), float(p[1]))


def _straight_lower_bound(m: Model, targets: Sequence[Unit]) -> float:
    """No path can be shorter than the straight distance from the centre to the nearest
    engagement position of the farthest target."""
    worst = 0.0
    for t in targets:
        d = min(max(0.0, bases.ellipse_distance(m.ellipse, o.ellipse) - ENGAGEMENT_RANGE)
                for o in t.models)
        worst = max(worst, d)
    return worst


def straight_gap(at: Point, groups: Sequence[Sequence[Shape]]) -> float:
    """No path from `at` to a point inside some shape of every group is shorter than this: the
    straight-line distance to the farthest group's nearest shape (exact for discs; for curves
    the support-function separation, maximised from below)."""
    p = np.array([at], dtype=float)
    return max((max(0.0, min(float(distance_outside(s, p)[0]) for s in g)) for g in groups
                if g), default=0.0)


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


def suggest_end(bf: Battlefield, unit: Unit, nav: Navigator, lead: Model,
                targets: Sequence[Unit], ce: ChargeEnds, shortest: EndPath, allowance: float,
                prepared: EndQuestion | None = None, memo: EndMemo | None = None,
                bounded: bool = True, contact_to: Sequence[Unit] | None = None
                ) -> tuple[EndPath, str, EndPath | None]:
    """Where the leading model goes with `allowance` inches (§8.7.7 step 4): base contact with a
    target model if it can reach one, else as close as possible to the targets within 1".
    `contact_to`: the targets as base contact sees them (`aimed_at`: a unit with a named
    target model is that model alone; default `targets`, any of their models); the ends stay
    those legal for `targets`.
    Every question is asked of the search that measured the charge, and narrows the ends it
    was asked about (`prepared`, when it was asked on `nav`): their pieces and crossings are
    not prepared again. Also the shortest path into base contact (None if there is none).
    With `bounded` (the default) a step that only needs to know whether the allowance reaches
    is asked under a bound, or settled by the straight-line gap, and the path into contact cut
    at the allowance stands for the first step where its end is legal; `bounded=False`
    measures every step (the reference)."""
    accept, pacc = end_checks(bf, unit, lead, targets, ce, memo)
    steps = None if needs_stepped_ends(nav, lead, ce) else ()
    base = prepared if prepared is not None and prepared.nav is nav else None
    aimed = list(contact_to) if contact_to is not None else list(targets)
    aim_key = tuple(m.ref for t in aimed for m in t.models)

    def ends(groups: list[list[Shape]], keep: object = None, under: float = math.inf
             ) -> EndQuestion | list[EndSet]:
        if base is not None:  # asked under a bound: only the ends a path under it can reach
            return base.narrowed(groups, reach_box(lead.at, under)) if keep is None else \
                base.narrowed_once(keep, groups)
        near = ce
        for g in groups:
            near = with_group(near, g)
        return near.inner

    # the contact ends are the same for every charge on these ends: kept with them
    cq = ends([contact_shapes(lead, aimed, 0.0)],
              ("base contact", lead.base, lead.angle, aim_key))
    contact = path_to_ends(nav, lead.at, cq, accept=accept, path_accept=pacc, stepped=steps,
                           certify=False)
    if contact is not None and contact.path.length <= allowance + TOLERANCE:
        return contact, "base contact", contact
    def gap(at: Point) -> float:  # to the farthest target (each by its nearest target model)
        e = lead.moved_to(at).ellipse
        return max(min(bases.ellipse_distance(e, o.ellipse) for o in t.models if not o.flying)
                   for t in aimed)

    # The shortest path to ends within d of every target grows as d shrinks, from the charge
    # distance (at the shortest end's own gap) to the contact distance (d = 0): find where it
    # reaches the allowance by regula falsi (Illinois), to within CLOSE_TOL of d.
    best = shortest
    # (with every model a target a legal end is within 1" of one; a named target model may be
    # farther at every legal end: then as close to it as the ends allow)
    hi, f_hi = gap(shortest.end), shortest.path.length - allowance
    if bounded and contact is not None and isinstance(cq, EndQuestion) and not contact.stepped:
        # the path into contact cut at the allowance is a legal path (a prefix of one): where
        # its end is a legal end (for that path: the GRASS it tramples), it is as close as the
        # allowance takes the model that way — along a straight last leg the closest of all,
        # and only the step proving it is left
        part = cut(contact.path, allowance)
        legal = accept(contact.tag, part.end) if accept is not None else \
            pacc is not None and pacc(cq.targets[contact.tag].ends, part.end, part)
        if legal and (g := gap(part.end)) < hi:
            best = EndPath(nav.finish(part), contact.tag)
            hi, f_hi = g, part.length - allowance
    lo = 0.0
    f_lo = (contact.path.length if contact is not None else math.inf) - allowance
    at_lo = f_lo + allowance  # the path length at lo (f_lo is halved by the Illinois rule)
    side = 0
    while hi - lo > CLOSE_TOL:
        d = (lo + hi) / 2 if not math.isfinite(f_lo) or f_lo <= f_hi else \
            hi - f_hi * (hi - lo) / (f_hi - f_lo)
        d = min(max(d, lo + CLOSE_TOL / 4), hi - CLOSE_TOL / 4)
        # where falling short would end the search, only whether the allowance reaches matters:
        # ask for paths under it (a shortest one over it is then not measured); and the ends
        # within d hold those within lo, so the path is no longer than at lo (exact searches:
        # not so for sampled stepped ends)
        under = allowance + 2 * TOLERANCE if bounded and hi - d <= CLOSE_TOL else math.inf
        if bounded and steps == ():
            under = min(under, at_lo + TOLERANCE)
        groups = [contact_shapes(lead, [t], d) for t in aimed]
        got = None if bounded and straight_gap(lead.at, groups) >= under else \
            path_to_ends(nav, lead.at, ends(groups, under=under), accept=accept, path_accept=pacc,
                         stepped=steps, certify=False, bound=under)
        f = (got.path.length if got is not None else math.inf) - allowance
        if got is not None and f <= TOLERANCE:
            best, hi, f_hi = got, d, f
            if side == 1 and math.isfinite(f_lo):
                f_lo /= 2
            side = 1
        else:
            lo, f_lo, at_lo = d, f, f + allowance
            if side == -1:
                f_hi /= 2
            side = -1
    who = "the target model" if all(len(t.models) == 1 for t in aimed) else \
        "the nearest target model"
    return best, f'{gap(best.end):.3f}" from {who} (base contact out of reach)', contact


