"""Legal movement of a leading model (rulebook §4.3, §4.6, §8.5.3–8.5.5, FAQ "측정과 이동").

- The leading model's centre follows the shortest legal path (`geom.navigator`: gap clearance,
  walls at the edges of raised tops, access points, other units' bases); the path's length is
  the distance moved (`geom.paths`).
- Allowance: the unit's Speed; a split Speed "4/7" gives the second value to a one-model unit
  (§5.1, `Speed.for_models`). Moving 0" is not a move (FAQ).
- Flying units move point to point, ignoring terrain and models on the way (§8.5.3).
- The end position must be legal (`geom.end_position`).
- GRASS is destroyed when the leading model's path crosses it or a model ends on it; flying
  models passing over do not destroy it (§8.5.3). A LARGE unit removes the Size-0/1 impassable
  pieces (tokens excepted) its path crosses or it ends on, so it may end over them (Siege Tank
  card, "대형"). Both are found by `geom.destroyed` (the base's swept area) and named in the
  verdict (`destroys_grass`, `removed`).

This module is the public face of movement: it answers "may this model move there" and
re-exports the names callers use (`Navigator`, `Path`, `end_position_ok`, …).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from shapely.geometry import LineString
from shapely.geometry.base import BaseGeometry

from .destroyed import destroyed_by
from .end_position import RULE_MOVE, end_position_ok, end_region
from .errors import TmgError
from .gaps import GapPassed, gaps_passed
from .model import TOLERANCE, Battlefield, Model, Point, Unit
from .navigator import Navigator, _xy, navigator_for
from .paths import EXACT_BOUND, Arc, Path, Segment
from .verdict import Verdict

__all__ = ["EXACT_BOUND", "RULE_GAP", "RULE_MOVE", "Arc", "MoveCheck", "Navigator", "Path",
           "Segment", "allowance_of", "check_move", "end_position_ok", "end_region",
           "navigator", "path_to_region", "reach", "shortest_path"]

RULE_GAP = "4.6 gap clearance"



def navigator(bf: Battlefield, unit: Unit, *, ignore_models: Collection[str] = ()) -> Navigator:
    return Navigator(bf, unit, tuple(ignore_models))


def shortest_path(bf: Battlefield, unit: Unit, start: Point, goal: Point, *,
                  ignore_models: Collection[str] = ()) -> Path | None:
    """Shortest legal centre path for `unit`'s leading model from start to goal, or None."""
    return navigator(bf, unit, ignore_models=ignore_models).shortest_path(start, goal)


def path_to_region(bf: Battlefield, unit: Unit, start: Point, region: BaseGeometry, *,
                   ignore_models: Collection[str] = ()) -> Path | None:
    """Shortest legal centre path from start to the nearest reachable point of `region`
    (a set of legal END positions for the leading model's centre), or None."""
    return navigator(bf, unit, ignore_models=ignore_models).path_to_region(start, region)


def gaps_on_path(bf: Battlefield, unit: Unit, points: Sequence[Point], *,
                 ignore_models: Collection[str] = ()) -> list[GapPassed]:
    """The gaps (§4.6) a leading model's path squeezes through — where its base overlaps two
    separate parts of material — each with the narrowest line across it and its width."""
    nav = navigator_for(bf, unit, tuple(ignore_models))
    return gaps_passed(nav.fs, [(float(x), float(y)) for x, y in points])


def allowance_of(unit: Unit) -> float:
    sp = unit.current_speed()
    if sp is None:
        raise TmgError("the unit has no Speed", obj=unit.id, field="speed")
    return float(sp)


def reach(bf: Battlefield, unit: Unit, start: Point, allowance: float, *,
          ignore_models: Collection[str] = (), model: Model | None = None) -> BaseGeometry:
    """Region the leading model's centre can end in: reachable within the allowance by a
    legal path, and a legal end position (`end_region`)."""
    nav = navigator(bf, unit, ignore_models=ignore_models)
    travel = nav.travel_region(start, allowance)
    mover = model or unit.leading_model
    return travel.intersection(end_region(bf, unit, mover)).buffer(0)


# --------------------------------------------------------------------------- move legality

@dataclass(frozen=True)
class MoveCheck:
    verdict: Verdict
    path: Path | None
    allowance: float
    reach: BaseGeometry | None = None


def check_move(bf: Battlefield, unit: Unit, model: Model, to: Point, *,
               allowance: float | None = None, ignore_models: Collection[str] = (),
               nav: Navigator | None = None, engage_ok: Collection[str] = ()) -> MoveCheck:
    """Can `model`, as the leading model of `unit`, move to `to` (§8.5.3)?

    The first failing reason is reported, in this order: no Speed, a 0" move, the end
    position, no legal path, path longer than the allowance.
    """
    to = _xy(to)
    if allowance is None:
        if unit.current_speed() is None:
            v = Verdict(False, RULE_MOVE, "the unit has no Speed and cannot move", None,
                        {"allowance": None})
            return MoveCheck(v, None, math.nan)
        allowance = allowance_of(unit)
    details: dict[str, Any] = {"allowance": allowance, "model": model.ref}
    if math.dist(model.at, to) <= TOLERANCE:
        return MoveCheck(Verdict(False, "FAQ moving 0\"", "moving 0\" is not a move (FAQ): the "
                                 "unit would have to hold instead", None, details), None,
                         allowance)
    if nav is None:
        nav = Navigator(bf, unit, tuple(ignore_models))
    path = nav.shortest_path(model.at, to)
    end = end_position_ok(bf, unit, to, model=model, engage_ok=engage_ok)
    gone = destroyed_by(bf, unit, model if path else model.moved_to(to), path)
    details["destroys_grass"] = list(gone.grass)
    details["removed"] = list(gone.removed)
    if "standing_on" in end.details:
        details["standing_on"] = end.details["standing_on"]
    if path is not None:
        details["path_length"] = path.length
        details["error_bound"] = path.error_bound
    if not end.ok:
        return MoveCheck(Verdict(False, end.rule, end.reason, to, {
            **details, **end.details, "destroys_grass": list(gone.grass),
            "removed": list(gone.removed)}), path, allowance)
    if path is None:
        if nav.escape(model.at) is None:
            why = ("the start is hemmed in: no straight step leads out of the clearance zone of "
                   f"{', '.join(nav.start_blockers(model.at))}")
        elif nav.escape(to) is None:
            why = (f"the end point cannot be reached: it is hemmed in by "
                   f"{', '.join(nav.start_blockers(to))}")
        else:
            blk = nav.fs.blockers(LineString([model.at, to]))
            why = ("no legal path: every way is closed by terrain, models or gaps too "
                   f"narrow for Size {unit.size}{' LARGE' if unit.large else ''}"
                   + (f" (the straight line is blocked by {', '.join(blk)})" if blk else ""))
        return MoveCheck(Verdict(False, RULE_GAP, why, None, details), None, allowance)
    if path.length > allowance + TOLERANCE:
        return MoveCheck(Verdict(False, RULE_MOVE, f"the shortest legal path is "
                                 f"{path.length:.3f}\", more than the allowance {allowance:g}\"",
                                 list(path.points), details), path, allowance)
    how = "flying point to point" if unit.flying else "by the shortest legal path"
    return MoveCheck(Verdict(True, RULE_MOVE, f"legal: {path.length:.3f}\" {how} within "
                             f"{allowance:g}\"" + destroyed_words(bf, gone.grass, gone.removed),
                             list(path.points), details), path, allowance)


def destroyed_words(bf: Battlefield, grass: Collection[str], removed: Collection[str]) -> str:
    """"; destroys GRASS …; removes …" naming each piece by its title, or ""."""
    out = ""
    if grass:
        out += "; destroys GRASS " + ", ".join(bf.piece(g).title for g in grass)
    if removed:
        out += ("; removes " + ", ".join(bf.piece(r).title for r in removed)
                + " from the game (LARGE)")
    return out
