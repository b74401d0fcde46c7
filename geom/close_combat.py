"""Close combat geometry: ranks, casualty order, close ranks, disengage (GEOMETRY-RULES §5, §6,
§9; rulebook §8.5.4, §8.7.5, §8.8.1).

- **Fighting rank** (§8.8.1 step 2): a model within 1" of an enemy model it is engaged with.
  **Supporting rank**: in base contact with a model of its own unit that is in the fighting rank,
  and not itself in it. With several enemy units (step 4) both are judged per enemy unit.
- **Casualty order** (§8.7.5): first models in no enemy's engagement range, then models in range
  but not in base contact, then models in base contact; at priorities 2 and 3 a model whose loss
  would end the unit's engagement with some enemy unit may not be chosen while another valid
  casualty exists at any priority (the quick reference: such models go last).
  **Decision:** "in an enemy's engagement range" means *engaged with* an enemy model (§7.2.1
  restrictions included): a model 0.5" from an enemy across a wall is not fighting and goes first.
- **Close ranks** (§8.8.1 step 1, FAQ): an optional move of at most 3" of a leading model that is
  not in base contact; it must end closer to the enemy unit(s) it is engaged with (distance to the
  nearest of their models strictly decreases), may not end within 1" of an enemy unit it was not
  engaged with, and (Decision, the leader read per model) may not end the leader's engagement
  with an enemy unit it was engaged with. A unit all of whose models are in base contact with
  enemy models cannot close ranks.
- **Disengage** (§8.5.4): a normal move that must end outside every enemy's engagement range;
  models that cannot be placed clear are destroyed; if the leading model cannot get clear the
  disengage fails.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import shapely

from . import bases
from .engagement import (
    enemies,
    engaged_pairs,
    in_base_contact,
    in_engagement_range,
)
from .errors import TmgError
from .model import TOLERANCE, Battlefield, Model, Point, Unit
from .verdict import Verdict

RULE_RANKS = "8.8.1 declare attackers"
RULE_CASUALTIES = "8.7.5 removing models from engaged units"
RULE_CLOSE_RANKS = "8.8.1 close ranks"
RULE_DISENGAGE = "8.5.4 disengage"


# --------------------------------------------------------------------------- ranks


@dataclass(frozen=True)
class Ranks:
    """Who of `unit` may attack `enemy` (§8.8.1 steps 2 and 4)."""

    unit: str
    enemy: str
    fighting: tuple[str, ...]
    supporting: tuple[str, ...]
    idle: tuple[str, ...]
    # fighting model id -> the enemy model ref it is engaged with (the witness)
    engaged_with: dict[str, str] = field(default_factory=dict)
    # supporting model id -> the fighting-rank model id it touches
    supports: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"unit": self.unit, "enemy": self.enemy, "fighting": list(self.fighting),
                "supporting": list(self.supporting), "idle": list(self.idle),
                "engaged_with": dict(self.engaged_with), "supports": dict(self.supports)}


def ranks(bf: Battlefield, unit: Unit, enemy: Unit) -> Ranks:
    """Fighting and supporting rank of `unit` against one enemy unit."""
    pairs = engaged_pairs(bf, unit.by_id, enemy.by_id)
    engaged_with: dict[str, str] = {}
    for p in pairs:
        engaged_with.setdefault(p.a.id, p.b.ref)
    fighting = [m for m in unit.by_id if m.id in engaged_with]
    supports: dict[str, str] = {}
    for m in unit.by_id:
        if m.id in engaged_with:
            continue
        for f in fighting:
            if in_base_contact(m, f):
                supports[m.id] = f.id
                break
    idle = [m.id for m in unit.by_id if m.id not in engaged_with and m.id not in supports]
    return Ranks(unit.id, enemy.id, tuple(m.id for m in fighting),
                 tuple(m.id for m in unit.by_id if m.id in supports), tuple(idle),
                 engaged_with, supports)


def all_ranks(bf: Battlefield, unit: Unit) -> list[Ranks]:
    """Ranks against every enemy unit the unit is engaged with."""
    out = []
    for v in bf.units:
        if v.owner == unit.owner:
            continue
        r = ranks(bf, unit, v)
        if r.fighting:
            out.append(r)
    return out


# --------------------------------------------------------------------------- casualties


@dataclass(frozen=True)
class CasualtyState:
    """What §8.7.5 needs to know about each model of an engaged unit."""

    priority: dict[str, int]  # model id -> 1, 2 or 3
    engaged_with: dict[str, frozenset[str]]  # model id -> enemy unit ids it is engaged with
    contact: dict[str, tuple[str, ...]]  # model id -> enemy model refs in base contact


def casualty_state(bf: Battlefield, unit: Unit) -> CasualtyState:
    others = [m for v in bf.units if v.owner != unit.owner for m in v.models]
    pairs = engaged_pairs(bf, unit.models, others)
    engaged_with: dict[str, set[str]] = {m.id: set() for m in unit.models}
    contact: dict[str, list[str]] = {m.id: [] for m in unit.models}
    for p in pairs:
        engaged_with[p.a.id].add(p.b.unit)
        if in_base_contact(p.a, p.b):
            contact[p.a.id].append(p.b.ref)
    priority = {mid: (3 if contact[mid] else 2 if engaged_with[mid] else 1)
                for mid in engaged_with}
    return CasualtyState(priority, {k: frozenset(v) for k, v in engaged_with.items()},
                         {k: tuple(v) for k, v in contact.items()})


def _breaks(state: CasualtyState, alive: Sequence[str], mid: str) -> list[str]:
    """Enemy units whose engagement with the unit ends if `mid` is removed."""
    out = []
    for enemy in sorted(state.engaged_with[mid]):
        if not any(enemy in state.engaged_with[o] for o in alive if o != mid):
            out.append(enemy)
    return out


def _valid_next(state: CasualtyState, alive: Sequence[str]) -> tuple[list[str], str]:
    by = {k: [m for m in alive if state.priority[m] == k] for k in (1, 2, 3)}
    if by[1]:
        return by[1], "priority 1: in no enemy's engagement range"
    for k in (2, 3):
        keep = [m for m in by[k] if not _breaks(state, alive, m)]
        if keep:
            return keep, (f"priority {k}: " + ("in engagement range, not in base contact"
                                               if k == 2 else "in base contact")
                          + ("" if len(keep) == len(by[k]) else
                             "; models whose loss would end an engagement are kept back"))
    for k in (2, 3):
        if by[k]:
            return by[k], (f"priority {k}: every remaining model's loss ends an engagement, "
                           "so such models may now be chosen")
    return [], "no models left"


def valid_casualties(bf: Battlefield, unit: Unit) -> Verdict:
    """The models the defender may remove next (§8.7.5). `details['valid']` lists them."""
    state = casualty_state(bf, unit)
    alive = [m.id for m in unit.by_id]
    if all(p == 1 for p in state.priority.values()):
        return Verdict(True, "8.7.4 removing casualties",
                       f"{unit.id} is not engaged: the ordinary (visibility) rules choose "
                       "casualties, not §8.7.5", details={"valid": alive, "engaged": False})
    valid, why = _valid_next(state, alive)
    return Verdict(True, RULE_CASUALTIES, why, witness=None,
                   details={"valid": valid, "engaged": True, "priority": state.priority,
                            "breaks": {m: _breaks(state, alive, m) for m in alive
                                       if state.priority[m] > 1},
                            "contact": {k: list(v) for k, v in state.contact.items() if v}})


@dataclass(frozen=True)
class CasualtyStep:
    removed: str
    valid: tuple[str, ...]
    reason: str


def removal_order(bf: Battlefield, unit: Unit, count: int | None = None,
                  prefer: Sequence[str] | None = None) -> list[CasualtyStep]:
    """One legal sequence of `count` removals (all models by default). At each step the
    defender's choice is the first valid model in `prefer` order (id order by default, so the
    answer never depends on the order of the models in the file); the step records every model
    that was a valid choice."""
    state = casualty_state(bf, unit)
    alive = [m.id for m in unit.by_id]
    order = list(prefer) if prefer is not None else alive
    unknown = set(order) - set(alive)
    if unknown:
        raise TmgError(f"unit {unit.id!r} has no model(s) {sorted(unknown)}")
    n = len(alive) if count is None else min(count, len(alive))
    steps = []
    for _ in range(n):
        valid, why = _valid_next(state, alive)
        pick = next((m for m in order if m in valid), valid[0])
        steps.append(CasualtyStep(pick, tuple(valid), why))
        alive.remove(pick)
    return steps


# --------------------------------------------------------------------------- helpers


def _engaged_enemy_units(bf: Battlefield, unit: Unit) -> list[Unit]:
    out = []
    for v in bf.units:
        if v.owner != unit.owner and engaged_pairs(bf, unit.models, v.models, first_only=True):
            out.append(v)
    return out


def _in_contact_with_enemy(bf: Battlefield, m: Model) -> bool:
    return any(enemies(m, o) and not o.flying and in_base_contact(m, o) for o in bf.models())


def _within_range_of_unit(m: Model, v: Unit) -> bool:
    return any(not o.flying and in_engagement_range(m, o) for o in v.models)


# --------------------------------------------------------------------------- close ranks

CLOSE_RANKS_MOVE = 3.0  # §8.8.1 step 1


def _default_shortest_path(bf: Battlefield, unit: Unit, start: Point, goal: Point) -> Any:
    from .movement import shortest_path

    return shortest_path(bf, unit, start, goal)


def _default_path_to_region(bf: Battlefield, unit: Unit, start: Point, region: Any) -> Any:
    from .movement import path_to_region

    return path_to_region(bf, unit, start, region)


def _nearest_gap(m: Model, units: Sequence[Unit]) -> float:
    return min((bases.ellipse_distance(m.ellipse, o.ellipse) for v in units for o in v.models
                if not o.flying), default=math.inf)


def _close_ranks_setup(bf: Battlefield, unit: Unit, leading: str | None
                       ) -> tuple[list[Model], list[Unit], Verdict | None]:
    """The models that may lead the close-ranks move, and the engaged enemy units. With no
    leader given or recorded (or a recorded one held in base contact) the player may pick any
    model not in base contact: all of them, in id order."""
    engaged = _engaged_enemy_units(bf, unit)
    if not engaged:
        return [], [], Verdict(False, RULE_CLOSE_RANKS,
                               f"{unit.id} is not engaged: only engaged units close ranks")
    held = [m for m in unit.models if _in_contact_with_enemy(bf, m)]
    if len(held) == len(unit.models):
        return [], engaged, Verdict(
            False, RULE_CLOSE_RANKS, f"every model of {unit.id} is in base contact with an enemy "
            "model: they are physically held, so the unit cannot close ranks (FAQ)")
    if leading is not None:
        leader = unit.model(leading)
        if leader in held:
            return [leader], engaged, Verdict(
                False, RULE_CLOSE_RANKS, f"{leader.ref} is in base contact with an enemy model "
                "and may not move")
        return [leader], engaged, None
    free = [m for m in unit.leader_candidates if m not in held]
    return (free or [m for m in unit.by_id if m not in held]), engaged, None


def _close_ranks_end(bf: Battlefield, unit: Unit, leader: Model, at: Point,
                     engaged: Sequence[Unit]) -> Verdict:
    """Exact checks on a close-ranks end (everything except the path length)."""
    from .charge import _overlaps, on_table_exact

    moved = leader.moved_to(at)
    if not on_table_exact(bf, moved):
        return Verdict(False, RULE_CLOSE_RANKS, "the base would not be wholly on the table")
    for p in bf.terrain:
        if not p.grass and bases.geometry_meets(moved.ellipse, p.footprint.buffer(-TOLERANCE)):
            return Verdict(False, RULE_CLOSE_RANKS, f"the base would overlap terrain {p.id!r}")
    held = {m.id for m in unit.models if _in_contact_with_enemy(bf, m)}
    for o in bf.models():
        if o.unit == unit.id and (o.id == leader.id or o.id not in held):
            continue
        if _overlaps(moved, o):
            return Verdict(False, RULE_CLOSE_RANKS, f"the base would overlap {o.ref}")
    before, after = _nearest_gap(leader, engaged), _nearest_gap(moved, engaged)
    if not after < before - TOLERANCE:
        return Verdict(False, RULE_CLOSE_RANKS,
                       f'the leading model must end closer to {", ".join(v.id for v in engaged)}:'
                       f' {after:.3f}" is not less than {before:.3f}"',
                       details={"before": before, "after": after})
    engaged_ids = {v.id for v in engaged}
    for v in bf.units:
        if v.owner == unit.owner or v.id in engaged_ids:
            continue
        if _within_range_of_unit(moved, v):
            return Verdict(False, RULE_CLOSE_RANKS,
                           f"the move would bring {leader.ref} within 1\" of {v.id}, a unit it "
                           "was not engaged with (no new engagements)")
    for v in engaged:
        was = engaged_pairs(bf, [leader], v.models, first_only=True)
        if was and not engaged_pairs(bf, [moved], v.models, first_only=True):
            return Verdict(False, RULE_CLOSE_RANKS,
                           f"{leader.ref} would no longer be engaged with {v.id}: close ranks may "
                           "not be used to disengage")
    return Verdict(True, RULE_CLOSE_RANKS, f'ends {before - after:.3f}" closer',
                   details={"before": before, "after": after})


def close_ranks(bf: Battlefield, unit: Unit, to: Point, leading: str | None = None, *,
                shortest_path: Callable[..., Any] = _default_shortest_path) -> Verdict:
    """Is moving the leading model to `to` a legal close-ranks move (§8.8.1 step 1, FAQ)? With
    no leader given or recorded, any model not in base contact may lead: the first (in id
    order) for which the move is legal; failing all, the first one's reason."""
    leaders, engaged, bad = _close_ranks_setup(bf, unit, leading)
    if bad is not None:
        return bad
    first: Verdict | None = None
    for leader in leaders:
        v = _close_ranks_to(bf, unit, leader, to, engaged, shortest_path)
        if v:
            return v
        if first is None:
            first = v
    assert first is not None
    return first


def _close_ranks_to(bf: Battlefield, unit: Unit, leader: Model, to: Point,
                    engaged: Sequence[Unit], shortest_path: Callable[..., Any]) -> Verdict:
    end = _close_ranks_end(bf, unit, leader, to, engaged)
    if not end:
        return end
    path = shortest_path(bf, unit, leader.at, to)
    if path is None:
        return Verdict(False, RULE_CLOSE_RANKS, "no legal path reaches that position")
    if path.length > CLOSE_RANKS_MOVE + TOLERANCE:
        return Verdict(False, RULE_CLOSE_RANKS,
                       f'the path is {path.length:.3f}" long; close ranks moves at most 3"',
                       witness=[list(p) for p in path.points])
    return Verdict(True, RULE_CLOSE_RANKS,
                   f'{leader.ref} closes ranks along a {path.length:.3f}" path; {end.reason}',
                   witness=[list(p) for p in path.points],
                   details={"leading": leader.id, "path_length": path.length, **end.details})


def can_close_ranks(bf: Battlefield, unit: Unit, leading: str | None = None, *,
                    path_to_region: Callable[..., Any] = _default_path_to_region,
                    best: bool = False) -> Verdict:
    """Does any legal close-ranks move exist? The witness is the shortest such move; with
    `best`, the move that ends nearest the engaged enemy (see `_nearest_end`), `details['gap']`
    its distance to them. With no leader given or recorded, every model not in base contact is
    tried (the player picks the leader): the shortest move wins (with `best`: the nearest end,
    then the shortest path); ties go to the first in id order. `details['leaders_tried']`:
    model -> the length of its move, or None when it has no legal one."""
    leaders, engaged, bad = _close_ranks_setup(bf, unit, leading)
    if bad is not None:
        return bad
    if path_to_region is _default_path_to_region:
        from .movement import navigator

        nav = navigator(bf, unit)  # one free space for every leader and every probe

        def path_to_region(bf: Battlefield, unit: Unit, start: Point, region: Any) -> Any:
            return nav.path_to_region(start, region)

    def better(v: Verdict, than: Verdict | None) -> bool:
        if than is None:
            return True
        if best:
            gv, gt = v.details["gap"], than.details["gap"]
            if abs(gv - gt) > TOLERANCE:
                return gv < gt
        return bool(v.details["path_length"] < than.details["path_length"] - TOLERANCE)

    chosen: Verdict | None = None
    first: Verdict | None = None
    tried: dict[str, float | None] = {}
    skipped: list[str] = []
    for leader in leaders:
        if best and chosen is not None and chosen.details["gap"] <= TOLERANCE and \
                chosen.details["path_length"] <= _nearest_gap(leader, engaged) + TOLERANCE:
            # base contact is already reached by a move no longer than any this leader's
            # move to contact could be (a path is at least as long as the gap it closes)
            skipped.append(leader.id)
            continue
        v = _can_close_ranks_for(bf, unit, leader, engaged, path_to_region, best=best)
        tried[leader.id] = v.details["path_length"] if v else None
        if v and better(v, chosen):
            chosen = v
        if first is None:
            first = v
    out = chosen if chosen is not None else first
    assert out is not None
    if len(leaders) > 1:
        out.details["leaders_tried"] = tried
        if skipped:
            out.details["leaders_skipped"] = skipped
    return out


def _can_close_ranks_for(bf: Battlefield, unit: Unit, leader: Model, engaged: Sequence[Unit],
                         path_to_region: Callable[..., Any], *, best: bool = False) -> Verdict:
    """`can_close_ranks` with this model as the leader."""
    from .charge import (
        QUAD_SEGS,
        base_shape,
        engagement_zone,
        grow,
        mover_base,
        on_table,
        range_zone,
        range_zone_inner,
    )

    K = mover_base(leader)
    before = _nearest_gap(leader, engaged)
    held = {m.id for m in unit.models if _in_contact_with_enemy(bf, m)}
    forb = [grow(p.footprint, K, outer=True) for p in bf.terrain if not p.grass]
    forb += [grow(base_shape(o.ellipse, outer=True), K, outer=True) for o in bf.models()
             if o.unit != unit.id or o.id in held]
    engaged_ids = {v.id for v in engaged}
    forb += [range_zone(leader, o) for v in bf.units
             if v.owner != unit.owner and v.id not in engaged_ids for o in v.models
             if not o.flying]
    region = on_table(bf, K).difference(shapely.union_all(forb))
    closer = shapely.union_all([range_zone_inner(leader, o, max(0.0, before - 1e-3))
                                for v in engaged for o in v.models if not o.flying])
    region = region.intersection(closer)
    for v in engaged:
        if engaged_pairs(bf, [leader], v.models, first_only=True):
            region = region.intersection(shapely.union_all(
                [engagement_zone(bf, leader, o) for o in v.models]))
    region = region.buffer(-1e-5) if not region.is_empty else region
    if region.is_empty:
        return Verdict(False, RULE_CLOSE_RANKS, f"no legal position for {leader.ref} is closer "
                       "to the enemy", details={"leading": leader.id})
    path = path_to_region(bf, unit, leader.at, region)
    if path is None or path.length > CLOSE_RANKS_MOVE + TOLERANCE:
        return Verdict(False, RULE_CLOSE_RANKS,
                       f"no legal position closer to the enemy is within a 3\" move of "
                       f"{leader.ref}",
                       details={"leading": leader.id,
                                "shortest": None if path is None else path.length})
    end = tuple(path.points[-1])
    check = _close_ranks_end(bf, unit, leader, end, engaged)
    if best and check:
        path, check = _nearest_end(bf, unit, leader, engaged, region, path, check,
                                   path_to_region)
    details = {"leading": leader.id, "path_length": path.length, "quad_segs": QUAD_SEGS}
    if best:
        details["gap"] = check.details["after"]
    return Verdict(check.ok, RULE_CLOSE_RANKS,
                   f"{leader.ref} can close ranks: {check.reason}" if check else check.reason,
                   witness=[list(p) for p in path.points], details=details)


NEAREST_STEP = 1 / 128  # inches: how close to the best gap the nearest-end search gets


def _nearest_end(bf: Battlefield, unit: Unit, leader: Model, engaged: Sequence[Unit],
                 region: Any, path: Any, check: Verdict, path_to_region: Callable[..., Any]
                 ) -> tuple[Any, Verdict]:
    """The legal close-ranks end nearest the engaged enemy within the 3" move: base contact if
    the move reaches it (snapped to touching), else the smallest gap g (to NEAREST_STEP) for
    which the part of `region` within g of an enemy model is reachable. Every candidate end is
    re-checked exactly (`_close_ranks_end`) and by its own path; the shortest move stands when
    nothing nearer passes."""
    from .charge import CONTACT_BAND, range_zone_inner, snap_to_contact

    foes = [o for v in engaged for o in v.models if not o.flying]

    def probe(g: float) -> tuple[Any, Verdict] | None:
        near = region.intersection(shapely.union_all(
            [range_zone_inner(leader, o, g) for o in foes]))
        if near.is_empty:
            return None
        p = path_to_region(bf, unit, leader.at, near)
        if p is None or p.length > CLOSE_RANKS_MOVE + TOLERANCE:
            return None
        c = _close_ranks_end(bf, unit, leader, tuple(p.points[-1]), engaged)
        return (p, c) if c else None

    contact = probe(CONTACT_BAND)
    if contact is not None:
        p, c = contact
        end = tuple(p.points[-1])
        target = min(foes, key=lambda o: bases.point_distance(o.ellipse, end)[0])
        snapped = snap_to_contact(leader, end, target)
        q = _default_shortest_path(bf, unit, leader.at, snapped)
        cs = _close_ranks_end(bf, unit, leader, snapped, engaged)
        if q is not None and q.length <= CLOSE_RANKS_MOVE + TOLERANCE and cs:
            return q, cs
        return p, c
    lo, hi = CONTACT_BAND, check.details["after"]
    found = (path, check)
    while hi - lo > NEAREST_STEP:
        mid = (lo + hi) / 2
        r = probe(mid)
        if r is None:
            lo = mid
        else:
            found, hi = r, min(mid, r[1].details["after"])
    return found


# --------------------------------------------------------------------------- disengage


@dataclass
class DisengageAnswer:
    unit: str
    possible: bool  # the leading model gets clear
    leading: str | None
    end: Point | None
    path: list[Point] | None
    destroyed: list[str]  # models that cannot be placed clear (§8.5.4)
    positions: dict[str, Point]
    rule: str
    reason: str
    path_length: float | None = None
    # destroyed model id -> why it could not be placed clear
    reasons: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"unit": self.unit, "possible": self.possible, "leading": self.leading,
                "end": list(self.end) if self.end else None,
                "path": [list(p) for p in self.path] if self.path else None,
                "path_length": self.path_length, "destroyed": self.destroyed,
                "positions": {k: list(v) for k, v in self.positions.items()},
                "reasons": dict(self.reasons), "rule": self.rule, "reason": self.reason}


def disengage(bf: Battlefield, unit: Unit, leading: str | None = None, *,
              path_to_region: Callable[..., Any] = _default_path_to_region) -> DisengageAnswer:
    """Can the unit disengage (§8.5.4), and which models would be destroyed?"""
    from .charge import base_shape, grow, mover_base, on_table, place_rest, range_zone

    if not _engaged_enemy_units(bf, unit):
        return DisengageAnswer(unit.id, True, None, None, None, [], {}, RULE_DISENGAGE,
                               f"{unit.id} is not engaged: it may make a normal move")
    speed = unit.current_speed()
    if speed is None:
        raise TmgError("the unit has no Speed", obj=unit.id, field="speed")
    # the player picks the leader unless one is given or recorded: every model, in id order
    leaders = [unit.model(leading)] if leading is not None else list(unit.leader_candidates)
    best: DisengageAnswer | None = None
    for lead in leaders:
        K = mover_base(lead)
        forb = [grow(p.footprint, K, outer=True) for p in bf.terrain if not p.grass]
        forb += [grow(base_shape(o.ellipse, outer=True), K, outer=True) for o in bf.models()
                 if o.unit != unit.id]
        halos = [o for v in bf.units if v.owner != unit.owner for o in v.models if not o.flying]
        base_region = on_table(bf, K).difference(shapely.union_all(forb))
        for extra in (0.0, 1.0, 2.0):
            clear = shapely.union_all([range_zone(lead, o, 1.0 + extra) for o in halos])
            region = base_region.difference(clear)
            region = region.buffer(-1e-5) if not region.is_empty else region
            if region.is_empty:
                continue
            path = path_to_region(bf, unit, lead.at, region)
            if path is None or path.length > speed + TOLERANCE:
                continue
            end = (float(path.points[-1][0]), float(path.points[-1][1]))
            pl = place_rest(bf, unit, lead.moved_to(end), [], avoid_all_enemies=True)
            ans = DisengageAnswer(
                unit.id, True, lead.id, end, [(float(p[0]), float(p[1])) for p in path.points],
                list(pl.casualties), dict(pl.positions), RULE_DISENGAGE,
                f'{lead.ref} gets clear along a {path.length:.3f}" path'
                + (f"; {len(pl.casualties)} model(s) cannot be placed clear and are destroyed"
                   if pl.casualties else "; every model can be placed clear"),
                path.length, {m: pl.reasons[m] for m in pl.casualties if m in pl.reasons})
            if best is None or len(ans.destroyed) < len(best.destroyed):
                best = ans
            if not ans.destroyed:
                break
        if best is not None and not best.destroyed:
            break
    if best is None:
        lead = leaders[0]
        # §8.5.4: a failed disengage removes the leading model only; the rest stay put
        why = (f"no model can reach a legal position outside every enemy's engagement range "
               f"within Speed {speed}" if len(leaders) > 1 else
               f"{lead.ref} cannot reach a legal position outside every enemy's engagement "
               f"range within Speed {speed}")
        return DisengageAnswer(unit.id, False, lead.id, None, None,
                               [lead.id], {}, RULE_DISENGAGE,
                               f"{why}: the disengage fails, the unit does not move and its "
                               "leading model is removed", None,
                               {lead.id: "the leading model of a failed disengage (§8.5.4)"})
    return best
