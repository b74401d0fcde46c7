"""Contesting and controlling mission markers (rulebook §8.9.1, §6.2
"임무 마커 장악", keywords FLYING, BURROWED, STRUCTURE).

A unit contests a marker when all of these hold (§8.9.1):

- it is on the battlefield (every unit of a scenario is: reserves are not on the table);
- it is in coherency (§4.4: an out-of-coherency unit never contests or controls; a unit
  recorded `coherent = true` — in coherency at the end of its last moving action — stays so
  whatever casualties it took since: casualties never break coherency);
- it is not flying (flying units never contest, whatever their position);
- it is not burrowed (the contest table of §8.9.1: BURROWED units cannot contest);
- it is not a STRUCTURE (structure keyword: never contests or controls);
- at least one of its models is within 3" of the marker (base edge to the 32 mm marker's
  edge), sees the marker (the marker is a Size-0 object, `geom.sight._sight`) and is at the marker's
  elevation.

Control: each player adds up the current supply of their contesting units; the higher total
controls; a tie is "contested" and changes nothing; with no contest nothing changes either.
A unit of supply 0 still takes control when no enemy unit contests. Control is sticky: a
controlled marker stays with its controller until the other player ends the scoring phase
with a higher contesting total, and never becomes neutral again.

Decisions:

- *Same elevation* compares elevation levels (ground, mid ground, high ground;
  rulebook §7.1.2). The marker's level is that of the top its centre lies on, as for a model's base centre.
- A unit whose current supply is unknown (no figure in the scenario or the catalogue) makes its
  side's total unknown; when that total decides the outcome the controller is reported unknown
  (None) rather than guessed.
- Abilities that change supply for control (Commander, Extra Supply Depot, Overwhelming
  Presence, Freedom Fighter…) are not applied: give the unit's `supply` in the scenario.

>>> from geom.model import Battlefield, Table, Marker, Unit, Model, Base
>>> def unit(uid, owner, x, supply=1.0, **kw):
...     m = Model.make("1", unit=uid, owner=owner, at=(x, 18), base=Base.from_mm(32), size=1,
...                    **kw)
...     return Unit(uid, owner, 1, (m,), m.base, supply=supply, flying=m.flying)
>>> bf = Battlefield(Table(54, 36), units=(unit("a", "red", 25), unit("b", "blue", 30,
...                  supply=2), unit("c", "blue", 28, flying=True)), markers=(Marker(5, (27, 18)),))
>>> r = marker_control(bf, bf.marker(5))
>>> r.contesting, r.supply, r.controller
({'red': ['a'], 'blue': ['b']}, {'red': 1.0, 'blue': 2.0}, 'blue')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from ..distance import distance
from ..elevation import elevation_level
from ..model import OWNERS, Battlefield, Marker, Model, Unit
from ..movement import standing
from ..sight import SightContext, as_model, pair_sight
from ..tolerance import TOLERANCE
from ..verdict import Verdict

CONTEST_RANGE = 3.0  # §8.9.1
RULE_CONTEST = "8.9.1 contesting units"
RULE_CONTROL = "8.9.1 mission marker control"


def marker_level(bf: Battlefield, marker: Marker) -> str:
    """The elevation level the marker sits at (the top under its centre)."""
    return elevation_level(bf, as_model(marker))


def is_structure(unit: Unit) -> bool:
    """STRUCTURE keyword: the unit's ability (from its card or the scenario) or combat tag."""
    return unit.structure


def _coherency(bf: Battlefield, unit: Unit) -> Verdict:
    """Coherency as it stands between moving actions: a unit recorded `coherent = true` keeps
    it through casualties (§4.4, `geom.movement._coherency.standing`)."""
    return standing(bf, unit)


def _sight(bf: Battlefield) -> Callable[[Model, Marker], Verdict]:
    return partial(pair_sight, SightContext.of(bf))


def contests(bf: Battlefield, unit: Unit, marker: Marker, *,
             sight: Callable[[Model, Marker], Verdict] | None = None,
             coherent: Verdict | None = None) -> Verdict:
    """Does the unit contest the marker? `details["models"]` says, model by model, how far it
    is, at which elevation, and whether it sees the marker; the witness is the sight line of
    the first model that qualifies."""
    failures: list[str] = []
    details: dict[str, Any] = {"unit": unit.id, "owner": unit.owner, "supply": unit.supply,
                               "models": []}
    if unit.flying:
        failures.append("it is flying: flying units never contest markers")
    if unit.burrowed:
        failures.append("it is burrowed: burrowed units cannot contest markers")
    if is_structure(unit):
        failures.append("it is a STRUCTURE: structures never contest markers")
    if not unit.flying:
        coh = coherent if coherent is not None else _coherency(bf, unit)
        details["in_coherency"] = coh.ok
        if coh.ok and not coh.details.get("positions_in_coherency", True):
            details["coherency_recorded"] = coh.reason  # the record decides (§4.4)
        if not coh.ok:
            why = "; ".join(f"{f['model']}: {f['reason']}"
                            for f in coh.details.get("failures", [])) or coh.reason
            anyone = "" if coh.details.get("leading_recorded", True) else \
                " whatever model leads"
            failures.append(f"it is out of coherency{anyone} ({why})")
    level = marker_level(bf, marker)
    details["marker_elevation"] = level
    see = sight or _sight(bf)
    witness = None
    qualifying: list[str] = []
    for m in unit.by_id:  # id order: the witness never depends on the file's order
        d = distance(m, marker)
        row: dict[str, Any] = {"model": m.ref, "distance": d,
                               "within": d <= CONTEST_RANGE + TOLERANCE}
        if row["within"]:
            lv = elevation_level(bf, m)
            row["elevation"] = lv
            row["same_elevation"] = lv == level
            v = see(m, marker)
            row["sees"] = v.ok
            row["sight"] = v.reason.rstrip(".")
            if v.ok and row["same_elevation"]:
                qualifying.append(m.ref)
                if witness is None:
                    witness = v.witness
        details["models"].append(row)
    details["qualifying_models"] = qualifying
    if not qualifying and not unit.flying:  # a flying unit's models are at no ground level
        failures.append(_no_model_reason(details["models"], marker, level))
    if failures:
        return Verdict(False, RULE_CONTEST,
                       f"{unit.id} does not contest marker {marker.id}: " + "; ".join(failures),
                       None, details)
    best = min((r for r in details["models"] if r["model"] in qualifying),
               key=lambda r: r["distance"])
    kept = (" (recorded: it ended its last moving action in coherency, and casualties never "
            "break coherency, §4.4)") if "coherency_recorded" in details else ""
    return Verdict(True, RULE_CONTEST,
                   f"{unit.id} contests marker {marker.id}: it is in coherency{kept}, on the ground "
                   f"and not burrowed, and {best['model']} is {best['distance']:.2f}\" from the "
                   f"marker (within {CONTEST_RANGE:g}\"), at {level} level like the marker, and "
                   f"sees it", witness, details)


def _no_model_reason(rows: list[dict[str, Any]], marker: Marker, level: str) -> str:
    near = [r for r in rows if r["within"]]
    if not near:
        d = min(r["distance"] for r in rows)
        return f"no model is within {CONTEST_RANGE:g}\" of marker {marker.id} (nearest {d:.2f}\")"
    parts = []
    said: set[str] = set()
    for r in near:
        why = []
        if not r["same_elevation"]:
            why.append(f"is at {r['elevation']} level, the marker at {level} level")
        if not r["sees"]:
            # The sight sentence opens with "<model> does not see marker/N: ", said already;
            # a reason already given for another model is not repeated.
            head = f"{r['model']} does not see {marker.ref}: "
            sight = r["sight"][len(head):] if r["sight"].startswith(head) else r["sight"]
            why.append("does not see it (" + ("same reason" if sight in said else sight) + ")")
            said.add(sight)
        parts.append(f"{r['model']} ({r['distance']:.2f}\" away) " + " and ".join(why))
    return "no model within 3\" qualifies: " + "; ".join(parts)


@dataclass(frozen=True)
class MarkerControl:
    """The outcome for one marker in one scoring phase."""

    marker: Marker
    elevation: str
    contesting: dict[str, list[str]]
    supply: dict[str, float | None]  # None: a contesting unit's supply is unknown
    outcome: str  # "red" | "blue" (higher total) | "contested" (tie) | "uncontested" | "unknown"
    previous: str | None
    controller: str | None  # after the sticky rule; None = neutral (or unknown if outcome is)
    reason: str
    units: dict[str, Verdict] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"marker": self.marker.id, "at": list(self.marker.at), "colour": self.marker.colour,
                "elevation": self.elevation, "contesting": self.contesting,
                "supply": self.supply, "outcome": self.outcome, "previous": self.previous,
                "controller": self.controller, "rule": RULE_CONTROL, "reason": self.reason,
                "units": {uid: {"contests": v.ok, "reason": v.reason, "witness": v.witness,
                                "details": v.details} for uid, v in self.units.items()}}


def _total(units: list[Unit]) -> float | None:
    if any(u.supply is None for u in units):
        return None
    return float(sum(u.supply or 0.0 for u in units))


def decide_control(contesting: Mapping[str, list[Unit]], previous: str | None
                   ) -> tuple[str, str | None, dict[str, float | None], str]:
    """(outcome, controller, supply totals, reason) from the contesting units of each side."""
    supply = {o: _total(contesting[o]) for o in OWNERS}
    red, blue = contesting["red"], contesting["blue"]
    keep = previous
    held = f"stays with {previous}" if previous else "stays neutral"
    if not red and not blue:
        return "uncontested", keep, supply, f"no unit contests it: control {held} (sticky)"
    if bool(red) != bool(blue):
        side = "red" if red else "blue"
        total = supply[side]
        zero = " (a side alone controls even with supply 0)" if total == 0 else ""
        return side, side, supply, (
            f"only {side} contests it (supply {_fmt(total)}): {side} controls it{zero}")
    if supply["red"] is None or supply["blue"] is None:
        unknown = [o for o in OWNERS if supply[o] is None]
        return "unknown", None, supply, (
            f"both sides contest it but the supply of {' and '.join(unknown)}'s contesting "
            "units is not known: give `supply` in the scenario")
    r, b = supply["red"], supply["blue"]
    if r == b:
        return "contested", keep, supply, (
            f"both sides contest it with supply {_fmt(r)} each: contested, control {held}")
    side = "red" if r > b else "blue"
    return side, side, supply, f"red supply {_fmt(r)} against blue {_fmt(b)}: {side} controls it"


def _fmt(x: float | None) -> str:
    if x is None:
        return "unknown"
    return f"{x:g}"


def marker_control(bf: Battlefield, marker: Marker, previous: str | None = None, *,
                   sight: Callable[[Model, Marker], Verdict] | None = None,
                   coherency: Mapping[str, Verdict] | None = None) -> MarkerControl:
    """Who contests the marker, the supply totals, and who controls it afterwards
    (`previous`: the controller before this scoring phase, None if never controlled)."""
    if previous is not None and previous not in OWNERS:
        raise ValueError(f"previous controller must be red, blue or None, got {previous!r}")
    see = sight or _sight(bf)
    verdicts: dict[str, Verdict] = {}
    contesting: dict[str, list[Unit]] = {o: [] for o in OWNERS}
    for u in bf.units:
        v = contests(bf, u, marker, sight=see,
                     coherent=None if coherency is None else coherency.get(u.id))
        verdicts[u.id] = v
        if v.ok:
            contesting[u.owner].append(u)
    outcome, controller, supply, reason = decide_control(contesting, previous)
    return MarkerControl(marker, marker_level(bf, marker),
                         {o: [u.id for u in contesting[o]] for o in OWNERS}, supply, outcome,
                         previous, controller, f"marker {marker.id}: {reason}", verdicts)


def all_markers(bf: Battlefield, previous: Mapping[int, str] | None = None, *,
                coherency: Mapping[str, Verdict] | None = None) -> dict[int, MarkerControl]:
    """`marker_control` for every marker, sharing the sight and coherency work (`coherency`:
    verdicts the caller already has, by unit id).

    Parameters
    ----------
    bf : Battlefield
        The table at the end of the scoring phase.
    previous : mapping of int to str, optional
        Each marker's controller before this phase ("red" or "blue"; absent: never
        controlled).
    coherency : mapping of str to Verdict, optional
        Coherency verdicts already worked out, by unit id.

    Returns
    -------
    dict of int to MarkerControl
        For each marker id: who contests it (`contesting`), the `supply` totals, the
        `outcome`, the `controller` afterwards, the `reason` and each unit's Verdict (`units`).

    Examples
    --------
    a is within 3" of the marker but the wall hides it; b sees it and controls it:

    >>> from shapely.geometry import box
    >>> from geom import Base, Battlefield, Marker, Model, Table, TerrainPiece, Unit, all_markers
    >>> base = Base.from_mm(32)
    >>> def unit(uid, owner, x):
    ...     m = Model.make("1", unit=uid, owner=owner, at=(x, 4), base=base, size=1)
    ...     return Unit(uid, owner, 1, (m,), base, supply=2)
    >>> bf = Battlefield(Table(24, 12), (TerrainPiece("wall", 3, box(11, 0, 13, 8)),),
    ...                  (unit("a", "red", 10), unit("b", "blue", 16)), markers=(Marker(1, (14, 4)),))
    >>> r = all_markers(bf)[1]
    >>> r.contesting, r.controller, r.reason
    ({'red': [], 'blue': ['b']}, 'blue', 'marker 1: only blue contests it (supply 2): blue controls it')
    >>> r.units["a"].rule
    '8.9.1 contesting units'
    """
    see = _sight(bf)
    coh = dict(coherency) if coherency is not None else {
        u.id: _coherency(bf, u) for u in bf.units if not u.flying}
    prev = previous or {}
    return {m.id: marker_control(bf, m, prev.get(m.id), sight=see, coherency=coh)
            for m in sorted(bf.markers, key=lambda m: m.id)}
