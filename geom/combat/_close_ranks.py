"""Close ranks (rulebook §8.8.1 step 1, FAQ "교전 중인 유닛의 모든 모델이 베이스 접촉 상태일 때…").

An optional move of at most 3" by a leading model that is not in base contact with an enemy
model. It is a normal move (§8.5.3): along a legal path (`geom.paths._navigator`), to a legal end
(`geom.movement._end_position`: a unit on a top may stay on it or move across it; GRASS and a LARGE unit's
Size-0/1 pieces may be ended on and are destroyed, `geom.movement._destroyed`). Besides
(docs/rules.md#close-ranks):

- it must end strictly closer to the enemy unit(s) the unit is engaged with (the distance to the
  nearest of their models decreases by more than the 1e-6" tolerance);
- it may not end within 1" of an enemy unit the unit was not engaged with (no new engagements);
- the leading model may not lose an engagement it had (read per model);
- models in base contact with an enemy stay where they are (they are obstacles to the end);
- a unit all of whose models are in base contact cannot close ranks (FAQ);
- the rest of the unit is re-placed (`place_close_ranks`): as many models as possible in base
  contact with an enemy model, else in base contact with a model of the unit within engagement
  range; models already in base contact stay ("physically held").

The legal ends are exact end sets (`geom.movement._move_ends`), with no margin: "closer" is the set of
centres within (before − 2e-6") of an engaged model, keeping an engagement is the engagement zone
of `geom.movement._charge_ends` (exact in the open; behind terrain inner and outer polygons, refined until
the 3" verdict is decided). Every end a search offers is re-checked by `close_ranks_end`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .. import bases
from ..engagement import enemies, engaged_pairs, in_base_contact, in_engagement_range
from ..model import Battlefield, Model, Point, Unit
from ..movement import (
    MAX_LEVEL,
    Surface,
    UnitPlacement,
    contact_shapes,
    destroyed_by,
    end_position_ok,
    move_end_sets,
    place_rest,
    shape_targets,
    target_zone,
)
from ..paths import (
    EndPath,
    EndSet,
    Navigator,
    Path,
    Shape,
    navigator_for,
    path_to_ends,
    stepped_needed,
)
from ..tolerance import TOLERANCE
from ..verdict import Verdict

RULE_CLOSE_RANKS = "8.8.1 close ranks"
CLOSE_RANKS_MOVE = 3.0  # §8.8.1 step 1
NEAREST_STEP = 1 / 128  # inches: how close to the best gap the nearest-end search gets


def engaged_enemy_units(bf: Battlefield, unit: Unit) -> list[Unit]:
    return [v for v in bf.units if v.owner != unit.owner
            and engaged_pairs(bf, unit.models, v.models, first_only=True)]


def in_contact_with_enemy(bf: Battlefield, m: Model) -> bool:
    return any(enemies(m, o) and not o.flying and in_base_contact(m, o) for o in bf.models())


def nearest_gap(m: Model, units: Sequence[Unit]) -> float:
    return min((bases.ellipse_distance(m.ellipse, o.ellipse) for v in units for o in v.models
                if not o.flying), default=math.inf)


def _setup(bf: Battlefield, unit: Unit, leading: str | None
           ) -> tuple[list[Model], list[Unit], Verdict | None]:
    """The models that may lead the close-ranks move, and the engaged enemy units. With no
    leader given or recorded (or a recorded one held in base contact) the player may pick any
    model not in base contact: all of them, in id order."""
    engaged = engaged_enemy_units(bf, unit)
    if not engaged:
        return [], [], Verdict(False, RULE_CLOSE_RANKS,
                               f"{unit.id} is not engaged: only engaged units close ranks")
    held = [m for m in unit.models if in_contact_with_enemy(bf, m)]
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


def close_ranks_end(bf: Battlefield, unit: Unit, leader: Model, at: Point,
                    engaged: Sequence[Unit]) -> Verdict:
    """Exact checks on a close-ranks end (everything except the path): a legal end of a move
    (models of the unit in base contact stay put), closer, no new engagement, none lost."""
    moved = leader.moved_to(at)
    held = {m.id for m in unit.models if in_contact_with_enemy(bf, m)}
    placed_later = {m.ref for m in unit.models if m.id != leader.id and m.id not in held}
    end = end_position_ok(bf, unit, at, model=leader, exclude=placed_later | {leader.ref},
                          check_engagement=False)
    if not end.ok:
        return Verdict(False, RULE_CLOSE_RANKS, end.reason, details=end.details)
    before, after = nearest_gap(leader, engaged), nearest_gap(moved, engaged)
    if not after < before - TOLERANCE:
        return Verdict(False, RULE_CLOSE_RANKS,
                       f'the leading model must end closer to {", ".join(v.id for v in engaged)}:'
                       f' {after:.3f}" is not less than {before:.3f}"',
                       details={"before": before, "after": after})
    engaged_ids = {v.id for v in engaged}
    for v in bf.units:
        if v.owner == unit.owner or v.id in engaged_ids:
            continue
        if any(not o.flying and in_engagement_range(moved, o) for o in v.models):
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
                   details={"before": before, "after": after,
                            "standing_on": end.details.get("standing_on")})


def close_ranks(bf: Battlefield, unit: Unit, to: Point, leading: str | None = None) -> Verdict:
    """Is moving the leading model to `to` a legal close-ranks move (§8.8.1 step 1, FAQ)? With
    no leader given or recorded, any model not in base contact may lead: the first (in id
    order) for which the move is legal; failing all, the first one's reason."""
    leaders, engaged, bad = _setup(bf, unit, leading)
    if bad is not None:
        return bad
    first: Verdict | None = None
    for leader in leaders:
        v = _close_ranks_to(bf, unit, leader, to, engaged)
        if v:
            return v
        if first is None:
            first = v
    assert first is not None
    return first


def _close_ranks_to(bf: Battlefield, unit: Unit, leader: Model, to: Point,
                    engaged: Sequence[Unit]) -> Verdict:
    end = close_ranks_end(bf, unit, leader, to, engaged)
    if not end:
        return end
    path = navigator_for(bf, unit).shortest_path(leader.at, to)
    if path is None:
        return Verdict(False, RULE_CLOSE_RANKS, "no legal path reaches that position")
    if path.length > CLOSE_RANKS_MOVE + TOLERANCE:
        return Verdict(False, RULE_CLOSE_RANKS,
                       f'the path is {path.length:.3f}" long; close ranks moves at most 3"',
                       witness=[list(p) for p in path.points])
    return Verdict(True, RULE_CLOSE_RANKS,
                   f'{leader.ref} closes ranks along a {path.length:.3f}" path; {end.reason}',
                   witness=[list(p) for p in path.points],
                   details={"leading": leader.id, "path_length": path.length, **end.details,
                            **_destroyed(bf, unit, leader, path)})


def _destroyed(bf: Battlefield, unit: Unit, leader: Model, path: Path) -> dict[str, Any]:
    gone = destroyed_by(bf, unit, leader, path)
    return {"destroys_grass": list(gone.grass), "removed": list(gone.removed)}


def _end_sets(bf: Battlefield, unit: Unit, leader: Model, engaged: Sequence[Unit], level: int,
              outer: bool, near: float | None = None) -> tuple[list[EndSet], bool]:
    """The close-ranks ends of `leader` (see the module docstring); `outer`: the sets that hold
    every legal end (for a lower bound); `near`: only ends within that of an engaged model.
    Also whether the sets are exact (no polygon of engagement behind terrain in them)."""
    before = nearest_gap(leader, engaged)
    d = before - 2 * TOLERANCE
    if d < 0:
        return [], True
    closer = contact_shapes(leader, engaged, d)
    held = [m for m in unit.models if m.id != leader.id and in_contact_with_enemy(bf, m)]
    kept = [v for v in engaged if engaged_pairs(bf, [leader], v.models, first_only=True)]
    engaged_ids = {v.id for v in engaged}
    avoid = [o for v in bf.units if v.owner != unit.owner and v.id not in engaged_ids
             for o in v.models if not o.flying]

    exact = True

    def groups(top: Surface) -> list[list[Shape]] | None:
        nonlocal exact
        out = [closer]
        if near is not None:
            out.append(contact_shapes(leader, engaged, near))
        for v in kept:  # keep every engagement the leader had
            zs = [z for o in v.models if (z := target_zone(bf, leader, o, top, level)) is not None
                  and (outer or z.access is None)]
            if not zs:
                return None
            exact = exact and all(z.outer is None and z.access is None for z in zs)
            out.append([(z.outer or z.inner) if outer else z.inner for z in zs])
        return out

    sets = move_end_sets(bf, unit, leader, within=CLOSE_RANKS_MOVE + TOLERANCE, avoid=avoid,
                         staying=held, groups=groups)
    return sets, exact


def _search(bf: Battlefield, unit: Unit, nav: Navigator, leader: Model,
            engaged: Sequence[Unit], sets: list[EndSet], exact: bool) -> EndPath | None:
    def accept(tag: int, at: Point) -> bool:
        return close_ranks_end(bf, unit, leader, at, engaged).ok

    if not sets:
        return None
    got = path_to_ends(nav, leader.at, sets, accept=accept if exact else None,
                       bound=CLOSE_RANKS_MOVE + 2 * TOLERANCE,
                       stepped=None if stepped_needed(nav, leader, sets) else ())
    return got if got is not None and got.path.length <= CLOSE_RANKS_MOVE + TOLERANCE else None


def _shortest(bf: Battlefield, unit: Unit, nav: Navigator, leader: Model,
              engaged: Sequence[Unit], near: float | None = None
              ) -> tuple[EndPath | None, int]:
    """The shortest legal close-ranks move of `leader` within 3", refining the engagement zones
    behind terrain until the verdict is decided (or MAX_LEVEL is reached); and the level."""
    for level in range(MAX_LEVEL + 1):
        sets, exact = _end_sets(bf, unit, leader, engaged, level, False, near)
        got = _search(bf, unit, nav, leader, engaged, sets, True)
        if got is not None or exact:
            return got, level
        sets, _ = _end_sets(bf, unit, leader, engaged, level, True, near)
        if _search(bf, unit, nav, leader, engaged, sets, False) is None:
            return None, level  # not even the outer sets hold an end within 3"
    return None, MAX_LEVEL


def can_close_ranks(bf: Battlefield, unit: Unit, leading: str | None = None, *,
                    best: bool = False) -> Verdict:
    """Does any legal close-ranks move exist? The witness is the shortest such move; with
    `best`, the move that ends nearest the engaged enemy (base contact if the move reaches it,
    else the smallest gap to within NEAREST_STEP), `details['gap']` its distance to them. With
    no leader given or recorded, every model not in base contact is tried (the player picks the
    leader): the shortest move wins (with `best`: the nearest end, then the shortest path);
    ties go to the first in id order. `details['leaders_tried']`: model -> the length of its
    move, or None when it has no legal one."""
    leaders, engaged, bad = _setup(bf, unit, leading)
    if bad is not None:
        return bad
    nav = navigator_for(bf, unit)

    def better(v: Verdict, than: Verdict | None) -> bool:
        if than is None:
            return True
        if best:
            gv, gt = v.details["gap"], than.details["gap"]
            if abs(gv - gt) > TOLERANCE:
                return bool(gv < gt)
        return bool(v.details["path_length"] < than.details["path_length"] - TOLERANCE)

    chosen: Verdict | None = None
    first: Verdict | None = None
    tried: dict[str, float | None] = {}
    skipped: list[str] = []
    for leader in leaders:
        if best and chosen is not None and chosen.details["gap"] <= TOLERANCE and \
                chosen.details["path_length"] <= nearest_gap(leader, engaged) + TOLERANCE:
            # base contact is already reached by a move no longer than any this leader's
            # move to contact could be (a path is at least as long as the gap it closes)
            skipped.append(leader.id)
            continue
        v = _for_leader(bf, unit, nav, leader, engaged, best)
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


def _for_leader(bf: Battlefield, unit: Unit, nav: Navigator, leader: Model,
                engaged: Sequence[Unit], best: bool) -> Verdict:
    """`can_close_ranks` with this model as the leader."""
    got, level = _shortest(bf, unit, nav, leader, engaged)
    if got is None:
        return Verdict(False, RULE_CLOSE_RANKS,
                       f"no legal position closer to the enemy is within a 3\" move of "
                       f"{leader.ref}", details={"leading": leader.id, "level": level})
    if best:
        got = _nearest(bf, unit, nav, leader, engaged, got)
    check = close_ranks_end(bf, unit, leader, got.end, engaged)
    details: dict[str, Any] = {"leading": leader.id, "path_length": got.path.length,
                               "level": level, **_destroyed(bf, unit, leader, got.path)}
    if best:
        details["gap"] = check.details["after"]
    return Verdict(check.ok, RULE_CLOSE_RANKS,
                   f"{leader.ref} can close ranks: {check.reason}" if check else check.reason,
                   witness=[list(p) for p in got.path.points], details=details)


def _nearest(bf: Battlefield, unit: Unit, nav: Navigator, leader: Model,
             engaged: Sequence[Unit], shortest: EndPath) -> EndPath:
    """The legal close-ranks end nearest the engaged enemy within the 3" move: base contact if
    the move reaches it, else the smallest gap g (to NEAREST_STEP) for which an end within g of
    an engaged model is reachable."""
    contact, _ = _shortest(bf, unit, nav, leader, engaged, near=0.0)
    if contact is not None:
        return contact
    lo, hi = 0.0, nearest_gap(leader.moved_to(shortest.end), engaged)
    found = shortest
    while hi - lo > NEAREST_STEP:
        mid = (lo + hi) / 2
        got, _ = _shortest(bf, unit, nav, leader, engaged, near=mid)
        if got is None:
            lo = mid
        else:
            found = got
            hi = min(mid, nearest_gap(leader.moved_to(got.end), engaged))
    return found


def place_close_ranks(bf: Battlefield, unit: Unit, leading: str, end: Point) -> UnitPlacement:
    """The whole unit after its leading model closed ranks to `end` (§8.8.1 step 1): models in
    base contact with an enemy stay; each other model is placed, one by one, in base contact
    with a model of an engaged enemy unit where it can ("as many models as possible in base
    contact"), else in base contact with a model of the unit that is within engagement range
    (the supporting rank), else near the leader; always legal, in coherency and never within
    1" of an enemy unit it was not engaged with. Within a priority the unit keeps its shape.

    Parameters
    ----------
    bf : Battlefield
        The table before closing ranks.
    unit : Unit
        The engaged unit.
    leading : str
        The id of the model that closed ranks.
    end : tuple of float
        Where its centre ended (`close_ranks` finds a legal one).

    Returns
    -------
    UnitPlacement
        Every model's end (`positions`), `casualties` and `in_coherency`.

    Examples
    --------
    a/1 closes the last 0.5" into base contact with b/1; a/2 is placed in base contact with
    b/1 too:

    >>> from geom import Base, Battlefield, Model, Speed, Table, Unit, place_close_ranks
    >>> base = Base.from_mm(32)
    >>> D = base.long  # centres D apart: bases in contact
    >>> a = tuple(Model.make(i, unit="a", owner="red", at=(16, y), base=base, size=1)
    ...           for i, y in (("1", 6.5 + D), ("2", 6.5 + 2 * D)))
    >>> b = Model.make("1", unit="b", owner="blue", at=(16, 6), base=base, size=1)
    >>> bf = Battlefield(Table(24, 12), units=(Unit("a", "red", 1, a, base, speed=Speed(6)),
    ...                                        Unit("b", "blue", 1, (b,), base)))
    >>> p = place_close_ranks(bf, bf.unit("a"), "1", (16, 6 + D))
    >>> p.casualties, p.in_coherency
    ([], True)
    >>> x, y = p.positions["2"]
    >>> round(((x - 16) ** 2 + (y - 6) ** 2) ** 0.5 - D, 6)  # a/2's gap to b/1
    0.0
    """
    engaged = engaged_enemy_units(bf, unit)
    lead = unit.model(leading).moved_to(end)
    held = [m for m in unit.models if m.id != leading and in_contact_with_enemy(bf, m)]
    toward = shape_targets(unit, leading, end)
    pl = place_rest(bf, unit, lead, engaged, toward=toward, staying=held, support=True)
    positions: dict[str, Point] = {leading: (float(end[0]), float(end[1]))}
    positions.update(pl.positions)
    ok = not pl.casualties and bool(pl.coherency.get("ok", True))
    return UnitPlacement(leading, positions, list(pl.casualties), ok, dict(pl.reasons))
