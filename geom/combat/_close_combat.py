"""Close combat geometry: ranks, casualty order, close ranks, disengage (rulebook §8.5.4,
§8.7.5, §8.8.1).

- **Fighting rank** (§8.8.1 step 2): a model within 1" of an enemy model it is engaged with.
  **Supporting rank**: in base contact with a model of its own unit that is in the fighting rank,
  and not itself in it. With several enemy units (step 4) both are judged per enemy unit.
- **Casualty order** (§8.7.5): first models in no enemy's engagement range, then models in range
  but not in base contact, then models in base contact; at priorities 2 and 3 a model whose loss
  would end the unit's engagement with some enemy unit may not be chosen while another valid
  casualty exists at any priority (the quick reference: such models go last).
  **Decision (docs/rules.md#casualties):** "in an enemy's engagement range" means *engaged with* an enemy model (§7.2.1
  restrictions included): a model 0.5" from an enemy across a wall is not fighting and goes first.
- **Close ranks** (§8.8.1 step 1, FAQ) and **disengage** (§8.5.4) are normal moves:
  `geom.combat._close_ranks` and `geom.combat._disengage` (their names are re-exported here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..engagement import engaged_pairs, in_base_contact
from ..errors import TmgError
from ..model import Battlefield, Unit
from ..verdict import Verdict

# close ranks and disengage are normal moves, in their own modules: their names stay here

RULE_RANKS = "8.8.1 declare attackers"
RULE_CASUALTIES = "8.7.5 removing models from engaged units"


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
    """Ranks against every enemy unit the unit is engaged with.

    Parameters
    ----------
    bf : Battlefield
        The table.
    unit : Unit
        The unit in close combat.

    Returns
    -------
    list of Ranks
        One per engaged enemy unit: the `fighting` rank (models engaged with it), the
        `supporting` rank (in base contact with a fighting model, §8.8.1) and the `idle` models.

    Examples
    --------
    a/1 touches b/1, a/2 touches a/1 from behind, a/3 stands apart:

    >>> from geom import Base, Battlefield, Model, Table, Unit, all_ranks
    >>> base = Base.from_mm(32)
    >>> D = base.long  # centres D apart: bases in contact
    >>> def unit(uid, owner, *at):
    ...     ms = tuple(Model.make(str(i), unit=uid, owner=owner, at=p, base=base, size=1)
    ...                for i, p in enumerate(at, 1))
    ...     return Unit(uid, owner, 1, ms, base)
    >>> bf = Battlefield(Table(24, 12), units=(unit("a", "red", (16, 10), (16, 10 + D), (20, 11)),
    ...                                        unit("b", "blue", (16, 10 - D))))
    >>> r, = all_ranks(bf, bf.unit("a"))
    >>> r.enemy, r.fighting, r.supporting, r.idle
    ('b', ('1',), ('2',), ('3',))
    """
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
    that was a valid choice.

    Parameters
    ----------
    bf : Battlefield
        The table.
    unit : Unit
        The unit taking casualties in close combat (§8.7.5).
    count : int, optional
        How many models are removed (default: all).
    prefer : sequence of str, optional
        The defender's preferred order of model ids.

    Returns
    -------
    list of CasualtyStep
        Each step's `removed` model, the `valid` choices at that step and the `reason`.

    Raises
    ------
    TmgError
        `prefer` names a model the unit does not have.

    Examples
    --------
    Models in no enemy's engagement range go first; a/1, whose loss ends the engagement, goes
    last:

    >>> from geom import Base, Battlefield, Model, Table, Unit, removal_order
    >>> base = Base.from_mm(32)
    >>> D = base.long  # centres D apart: bases in contact
    >>> def unit(uid, owner, *at):
    ...     ms = tuple(Model.make(str(i), unit=uid, owner=owner, at=p, base=base, size=1)
    ...                for i, p in enumerate(at, 1))
    ...     return Unit(uid, owner, 1, ms, base)
    >>> bf = Battlefield(Table(24, 12), units=(unit("a", "red", (16, 10), (16, 10 + D), (20, 11)),
    ...                                        unit("b", "blue", (16, 10 - D))))
    >>> for step in removal_order(bf, bf.unit("a")):
    ...     print(step.removed, step.valid, "-", step.reason)
    2 ('2', '3') - priority 1: in no enemy's engagement range
    3 ('3',) - priority 1: in no enemy's engagement range
    1 ('1',) - priority 3: every remaining model's loss ends an engagement, so such models may now be chosen
    """
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
