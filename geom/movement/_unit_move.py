"""The whole unit after a moving action: the other models are placed (rulebook §4.3, §4.4,
§8.5.3 step 2; GEOMETRY-RULES §6 "The other models are placed", §7).

After the leading model's move (move, run, deploy, towards/away, disengage, close ranks, PLACE)
every other model is picked up and put down — ignoring what lies between — legal (on the table,
overlapping no terrain or base, not within 1" of an enemy ground model), wholly within the unit's
coherency distance of the leading model and linked to it. A model with no such place is a
casualty (§4.4).

**Decision (GEOMETRY-RULES §6):** the engine's proposal keeps the unit's shape: each model goes
to the legal spot nearest where it stood relative to the leading model, else nearest the leader.
The spots are the exact end sets of the charge placement (`geom.movement._after_charge.place_rest`): one
placement engine for every action.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import Battlefield, Model, Point, Unit
from ._after_charge import Placement, place_rest
from ._destroyed import Destroyed, destroyed_by


@dataclass(frozen=True)
class UnitPlacement:
    """Every model's end (`positions`, the leader's included), the casualties, coherency."""

    leading: str
    positions: dict[str, Point]
    casualties: list[str]
    in_coherency: bool
    reasons: dict[str, str]

    def refs(self, unit_id: str) -> dict[str, Any]:
        """The answer keys of docs/interface.md: model refs `UNIT/MODEL`."""
        return {"positions": {f"{unit_id}/{k}": [float(v[0]), float(v[1])]
                              for k, v in self.positions.items()},
                "casualties": [f"{unit_id}/{k}" for k in self.casualties],
                "in_coherency": self.in_coherency}


def ends_destroy(bf: Battlefield, unit: Unit, positions: dict[str, Point]) -> Destroyed:
    """GRASS (and a LARGE unit's Size-0/1 pieces) that the placed models end on (§8.5.3,
    keyword GRASS: "any model ends on it")."""
    ends = [unit.model(k).moved_to(v) for k, v in positions.items()]
    return destroyed_by(bf, unit, unit.models[0], None, ends)


def shape_targets(unit: Unit, leading: str, end: Point,
                  start: Point | None = None) -> dict[str, Point]:
    """Where each other model would go if the unit kept its shape: its offset from the leading
    model's start (`start`, default where the leader stands) carried to `end`."""
    lead = unit.model(leading)
    sx, sy = start if start is not None else lead.at
    return {m.id: (end[0] + m.at[0] - sx, end[1] + m.at[1] - sy)
            for m in unit.models if m.id != leading}


def place_clear(bf: Battlefield, unit: Unit, lead: Model,
                toward: dict[str, Point] | None) -> Placement:
    """The others placed clear of every enemy's 1" round the moved leader `lead`: keeping the
    shape (`toward`) unless that costs models that the nearest-to-the-leader placement saves
    (the shape is a preference, a casualty is not)."""
    pl = place_rest(bf, unit, lead, [], avoid_all_enemies=True, toward=toward)
    if pl.casualties and toward is not None:
        near = place_rest(bf, unit, lead, [], avoid_all_enemies=True)
        if len(near.casualties) < len(pl.casualties):
            return near
    return pl


def place_unit(bf: Battlefield, unit: Unit, leading: str, end: Point, *,
               keep_shape: bool = True, start: Point | None = None) -> UnitPlacement:
    """Place the unit after its leading model `leading` ended at `end` (§8.5.3 step 2).
    `keep_shape`: the proposal keeps each model's offset from the leader where it can (False
    for a unit arriving from reserve, which has no shape yet).

    Parameters
    ----------
    bf : Battlefield
        The table before the move.
    unit : Unit
        The unit.
    leading : str
        The leading model's id.
    end : tuple of float
        Where the leading model ended.
    keep_shape : bool, optional
        Keep each model's offset from the leader where it can.
    start : tuple of float, optional
        Where the leader started (default: where it is on `bf`).

    Returns
    -------
    UnitPlacement
        Every model's end (`positions`, the leader's included), the `casualties` (models that
        cannot be placed), `in_coherency` and the `reasons`.

    Examples
    --------
    The leader moves 6" north; a/2 follows, keeping its place beside it:

    >>> from shapely.geometry import box
    >>> from geom import Base, Battlefield, Model, Speed, Table, TerrainPiece, Unit, place_unit
    >>> base = Base.from_mm(32)
    >>> ms = tuple(Model.make(i, unit="a", owner="red", at=(x, 4), base=base, size=1)
    ...            for i, x in (("1", 8), ("2", 6.5)))
    >>> bf = Battlefield(Table(24, 12), (TerrainPiece("wall", 3, box(11, 0, 13, 8)),),
    ...                  (Unit("a", "red", 1, ms, base, speed=Speed(6)),))
    >>> p = place_unit(bf, bf.unit("a"), "1", (8, 10))
    >>> p.positions, p.casualties, p.in_coherency
    ({'1': (8.0, 10.0), '2': (6.5, 10.0)}, [], True)
    """
    lead = unit.model(leading).moved_to(end)
    toward = shape_targets(unit, leading, end, start) if keep_shape else None
    pl = place_clear(bf, unit, lead, toward)
    positions: dict[str, Point] = {leading: (float(end[0]), float(end[1]))}
    positions.update(pl.positions)
    ok = not pl.casualties and bool(pl.coherency.get("ok", True))
    return UnitPlacement(leading, positions, list(pl.casualties), ok, dict(pl.reasons))
