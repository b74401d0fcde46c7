"""Legal movement of a leading model (rulebook §4.3, §4.6, §8.5.3–8.5.5, FAQ "측정과 이동").

- The leading model's centre follows the shortest legal path (`geom.paths._navigator`: gap clearance,
  walls at the edges of raised tops, access points, other units' bases); the path's length is
  the distance moved (`geom.paths._path`).
- Allowance: the unit's Speed; a split Speed "4/7" gives the second value to a one-model unit
  (§5.1, `Speed.for_models`). Moving 0" is not a move (FAQ).
- Flying units move point to point, ignoring terrain and models on the way (§8.5.3).
- The end position must be legal (`geom.movement._end_position`).
- GRASS is destroyed when the leading model's path crosses it or a model ends on it; flying
  models passing over do not destroy it (§8.5.3). A LARGE unit removes the Size-0/1 impassable
  pieces (tokens excepted) its path crosses or it ends on, so it may end over them (Siege Tank
  card, "대형"). Both are found by `geom.movement._destroyed` (the base's swept area) and named in the
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

from ..errors import TmgError
from ..model import Battlefield, Model, Point, Unit
from ..paths import GapPassed, Navigator, Path, as_point, gaps_passed, navigator_for, travel_region
from ..paths import path_to_region as path_on_navigator
from ..tolerance import TOLERANCE
from ..verdict import Verdict
from ._destroyed import destroyed_by
from ._end_position import RULE_MOVE, end_position_ok, move_end_region

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
    return path_on_navigator(navigator(bf, unit, ignore_models=ignore_models), start, region)


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
    legal path, and a legal end position (`move_end_region`).

    Parameters
    ----------
    bf : Battlefield
        The table.
    unit : Unit
        The moving unit.
    start : tuple of float
        Where the leading model's centre starts.
    allowance : float
        How far it may move, in inches.
    ignore_models : collection of str, optional
        Model refs that do not stop the move.
    model : Model, optional
        The leading model (default: the unit's).

    Returns
    -------
    shapely geometry
        The centres it can reach and end at: an inner approximation (every point in it is a
        legal end; `check_move` decides a point exactly).

    Examples
    --------
    Speed 6 from (8, 4): 5" north is in reach, the far side of the Size-3 wall is not:

    >>> from shapely.geometry import box
    >>> from geom import Base, Battlefield, Model, Speed, Table, TerrainPiece, Unit, reach
    >>> base = Base.from_mm(32)
    >>> ms = tuple(Model.make(i, unit="a", owner="red", at=(x, 4), base=base, size=1)
    ...            for i, x in (("1", 8), ("2", 6.5)))
    >>> bf = Battlefield(Table(24, 12), (TerrainPiece("wall", 3, box(11, 0, 13, 8)),),
    ...                  (Unit("a", "red", 1, ms, base, speed=Speed(6)),))
    >>> from shapely import Point
    >>> r = reach(bf, bf.unit("a"), (8, 4), 6)
    >>> r.contains(Point(8, 9)), r.contains(Point(14, 4))
    (True, False)
    """
    nav = navigator(bf, unit, ignore_models=ignore_models)
    travel = travel_region(nav, start, allowance)
    mover = model or unit.leading_model
    return travel.intersection(move_end_region(bf, unit, mover)).buffer(0)


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

    Parameters
    ----------
    bf : Battlefield
        The table.
    unit : Unit
        The moving unit.
    model : Model
        The model that leads the move.
    to : tuple of float
        Where its centre ends.
    allowance : float, optional
        How far it may move (default: the unit's Speed).
    ignore_models : collection of str, optional
        Model refs that do not stop the move.
    nav : Navigator, optional
        A navigator already built for this unit on this table.
    engage_ok : collection of str, optional
        Enemy unit ids whose engagement range the model may end in.

    Returns
    -------
    MoveCheck
        `verdict` (legal or not, with the rule and reason; `details["path_length"]`), the
        shortest legal `path` (or None) and the `allowance`.

    Examples
    --------
    With Speed 6, the way round the wall to (15, 4) is too long; 6" north is legal:

    >>> from shapely.geometry import box
    >>> from geom import Base, Battlefield, Model, Speed, Table, TerrainPiece, Unit, check_move
    >>> base = Base.from_mm(32)
    >>> ms = tuple(Model.make(i, unit="a", owner="red", at=(x, 4), base=base, size=1)
    ...            for i, x in (("1", 8), ("2", 6.5)))
    >>> bf = Battlefield(Table(24, 12), (TerrainPiece("wall", 3, box(11, 0, 13, 8)),),
    ...                  (Unit("a", "red", 1, ms, base, speed=Speed(6)),))
    >>> v = check_move(bf, bf.unit("a"), ms[0], (15, 4)).verdict
    >>> v.ok, v.rule, v.reason
    (False, '8.5.3 resolving a move', 'the shortest legal path is 12.838", more than the allowance 6"')
    >>> check_move(bf, bf.unit("a"), ms[0], (8, 10)).verdict.reason
    'legal: 6.000" by the shortest legal path within 6"'
    """
    to = as_point(to)
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
