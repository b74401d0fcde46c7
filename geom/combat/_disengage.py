"""Disengage (rulebook §8.5.4; keyword GRASS; the Siege Tank card's LARGE).

A disengage is a normal move (§8.5.3) that must end outside every enemy's engagement range: the
leading model moves up to its Speed along a legal path (`geom.paths._navigator`) to a legal end
(`geom.movement._end_position`) more than 1" from every enemy ground model (§7.2: exactly 1" is within
range); the other models are placed clear of every enemy in coherency, and those that cannot be
are destroyed. If the leading model cannot get clear, the disengage fails: the unit does not move
and only the leading model is removed (docs/rules.md#disengage).

Being a normal move, the unit standing on a top may stay on it or move across it: the top it
stands on is no obstacle to it, and it may end on any top its path legally reaches
(`geom.movement._move_ends`). The ends are exact end sets — no margin — and each end the search offers is
re-checked by `end_position_ok`. GRASS the leading model's path crosses or a model ends on is
destroyed, and a LARGE unit's Size-0/1 pieces removed, as in every moving action
(`geom.movement._destroyed`); the answer names them.

With no leading model given or recorded, the player picks it: every model is tried in id order,
and the first that gets everyone clear (else the one losing fewest models) is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engagement import engaged_pairs
from ..errors import TmgError
from ..model import Battlefield, Model, Point, Unit
from ..movement import (
    destroyed_by,
    destroyed_words,
    end_position_ok,
    move_end_sets,
    place_clear,
    shape_targets,
)
from ..paths import navigator_for, path_to_ends, stepped_needed
from ..tolerance import TOLERANCE

RULE_DISENGAGE = "8.5.4 disengage"
ROOM = (0.0, 1.0, 2.0)  # how far beyond 1" the leader may stop, to leave room for the others


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
    destroys_grass: list[str] = field(default_factory=list)  # GRASS the move destroys
    removed: list[str] = field(default_factory=list)  # pieces a LARGE unit removes

    def as_dict(self) -> dict[str, Any]:
        return {"unit": self.unit, "possible": self.possible, "leading": self.leading,
                "end": list(self.end) if self.end else None,
                "path": [list(p) for p in self.path] if self.path else None,
                "path_length": self.path_length, "destroyed": self.destroyed,
                "positions": {k: list(v) for k, v in self.positions.items()},
                "reasons": dict(self.reasons), "rule": self.rule, "reason": self.reason,
                "destroys_grass": list(self.destroys_grass), "removed": list(self.removed)}


def _engaged(bf: Battlefield, unit: Unit) -> bool:
    foes = [m for v in bf.units if v.owner != unit.owner for m in v.models]
    return bool(engaged_pairs(bf, unit.models, foes, first_only=True))


def disengage(bf: Battlefield, unit: Unit, leading: str | None = None) -> DisengageAnswer:
    """Can the unit disengage (§8.5.4), and which models would be destroyed?

    Parameters
    ----------
    bf : Battlefield
        The table.
    unit : Unit
        The engaged unit.
    leading : str, optional
        The leading model's id (default: each candidate, the best answer wins).

    Returns
    -------
    DisengageAnswer
        `possible`, the leader's `end` and `path` (`path_length`), the models `destroyed`
        because they cannot be placed clear (with `reasons`), the others' `positions`, `rule`
        and `reason`.

    Raises
    ------
    TmgError
        The unit has no Speed.

    Examples
    --------
    a/1, 0.5" from b/1, steps 0.5" back out of engagement range; a/2 is placed clear too:

    >>> from geom import Base, Battlefield, Model, Speed, Table, Unit, disengage
    >>> base = Base.from_mm(32)
    >>> D = base.long  # centres D apart: bases in contact
    >>> a = tuple(Model.make(i, unit="a", owner="red", at=(16, y), base=base, size=1)
    ...           for i, y in (("1", 6.5 + D), ("2", 6.5 + 2 * D)))
    >>> b = Model.make("1", unit="b", owner="blue", at=(16, 6), base=base, size=1)
    >>> bf = Battlefield(Table(24, 12), units=(Unit("a", "red", 1, a, base, speed=Speed(6)),
    ...                                        Unit("b", "blue", 1, (b,), base)))
    >>> d = disengage(bf, bf.unit("a"))
    >>> d.possible, d.rule, d.destroyed
    (True, '8.5.4 disengage', [])
    >>> print(d.reason)
    a/1 gets clear along a 0.500" path; every model can be placed clear
    """
    if not _engaged(bf, unit):
        return DisengageAnswer(unit.id, True, None, None, None, [], {}, RULE_DISENGAGE,
                               f"{unit.id} is not engaged: it may make a normal move")
    speed = unit.current_speed()
    if speed is None:
        raise TmgError("the unit has no Speed", obj=unit.id, field="speed")
    leaders = [unit.model(leading)] if leading is not None else list(unit.leader_candidates)
    foes = [o for v in bf.units if v.owner != unit.owner for o in v.models if not o.flying]
    nav = navigator_for(bf, unit)
    best: DisengageAnswer | None = None
    for lead in leaders:
        def accept(tag: int, at: Point, lead: Model = lead) -> bool:
            return end_position_ok(bf, unit, at, model=lead).ok

        for room in ROOM:
            sets = move_end_sets(bf, unit, lead, within=speed + TOLERANCE, avoid=foes,
                                 keep_clear=1.0 + room)
            if not sets:
                continue
            got = path_to_ends(nav, lead.at, sets, accept=accept, bound=speed + 2 * TOLERANCE,
                               stepped=None if stepped_needed(nav, lead, sets) else ())
            if got is None or got.path.length > speed + TOLERANCE:
                continue
            ans = _answer(bf, unit, lead, got.path)
            if best is None or len(ans.destroyed) < len(best.destroyed):
                best = ans
            if not ans.destroyed:
                break
        if best is not None and not best.destroyed:
            break
    if best is None:
        lead = leaders[0]
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


def _answer(bf: Battlefield, unit: Unit, lead: Model, path: Any) -> DisengageAnswer:
    """The disengage along `path`: the others placed clear (§8.5.4), what the move destroys."""

    end = path.end

    pl = place_clear(bf, unit, lead.moved_to(end), shape_targets(unit, lead.id, end))
    placed = [lead.moved_to(end)] + [unit.model(m).moved_to(at) for m, at in pl.positions.items()]
    gone = destroyed_by(bf, unit, lead, path, placed)
    return DisengageAnswer(
        unit.id, True, lead.id, end, [(float(p[0]), float(p[1])) for p in path.points],
        list(pl.casualties), dict(pl.positions), RULE_DISENGAGE,
        f'{lead.ref} gets clear along a {path.length:.3f}" path'
        + (f"; {len(pl.casualties)} model(s) cannot be placed clear and are destroyed"
           if pl.casualties else "; every model can be placed clear")
        + destroyed_words(bf, gone.grass, gone.removed),
        path.length, {m: pl.reasons[m] for m in pl.casualties if m in pl.reasons},
        list(gone.grass), list(gone.removed))
