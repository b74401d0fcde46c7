"""Moves and placements that are not a free leading-model move (rulebook §4.4, §4.5,
§8.5.3 step 2, §8.5.5, §8.3.3, keyword PLACE).

- DIRECTLY TOWARDS / DIRECTLY AWAY (§4.5; docs/rules.md#directly): the line runs from the moving model's base centre
  through the centre of the nearest (towards) or farthest (away) target model; the model moves
  along it, detouring round blockers by the shortest way and then going on along the line, for
  the full distance (FAQ). It cannot end further from (towards) or closer to (away) the target
  than it started; pushed towards the table edge it stops at the edge. With several models, the
  one with the shortest path to the target leads (`leading_for_directly`).
  **Decision:** the end is the farthest point along the line whose shortest legal path is no
  longer than the distance and which is a legal end position (`movement.end_position_ok`).
- PLACE X: the base is picked up and put wholly within X" of where it was, ignoring gaps and
  elevation (any standable top will do); it must end legally and outside enemy engagement range.
- Placing the other models (§8.5.3 step 2): each must end legally, not overlap the others,
  and the unit must be in coherency (§4.4).
- DEPLOY (§8.5.5): the entry edge serves as the leading model's starting base: the model starts
  off the table touching the edge and moves up to its Speed onto it by a legal path (gap rule
  included); the unit may not end inside the opponent's zone of influence nor out of coherency.
  A standable top that the entry edge actually touches may be entered straight from the edge,
  as if the edge were an access point (FAQ 배치: "진입 변이 그 지형에 실제로 닿아 있으면 고지대 위로
  바로 배치할 수 있습니다"; `with_entry_access`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString
from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry

from .. import bases
from ..distance import distance as base_distance
from ..distance import max_distance
from ..errors import TmgError
from ..model import Battlefield, Model, Point, Unit
from ..paths import Navigator, Path, Segment, is_level, path_to_region
from ..tolerance import (
    DIRECT_SCAN_STEP,
    FULL_DISTANCE_SLACK,
    RING_MARGIN,
    ROUND_OFF,
    ROUNDING,
    TOLERANCE,
)
from ..verdict import Verdict
from ._coherency import coherency
from ._destroyed import destroyed_by
from ._end_position import bases_overlap, end_position_ok
from ._moves import allowance_of

RULE_DIRECT = "4.5 directly towards & directly away"
RULE_PLACE = "PLACE"
RULE_DEPLOY = "8.5.5 deploy"


# --------------------------------------------------------------------------- §4.5

def target_model(model: Model, target: Unit, *, away: bool) -> Model:
    """Nearest (towards) or farthest (away) model of the target unit, physically."""
    ms = sorted(target.models, key=lambda m: base_distance(model, m))
    return ms[-1] if away else ms[0]


def leading_for_directly(bf: Battlefield, unit: Unit, target: Unit) -> Model:
    """§4.5: the model with the shortest path to the target leads."""
    best: tuple[float, int, Model] | None = None
    nav = Navigator(bf, unit)
    for i, m in enumerate(unit.models):
        t = target_model(m, target, away=False)
        ring = SPoint(t.at).buffer(t.base.a + m.base.a + RING_MARGIN, quad_segs=32)
        p = path_to_region(nav, m.at, ring)
        length = p.length if p is not None else math.inf
        if best is None or (length, i) < best[:2]:
            best = (length, i, m)
    assert best is not None
    return best[2]


def directly(bf: Battlefield, unit: Unit, model: Model, target: Unit, distance: float, *,
             away: bool = False, nav: Navigator | None = None) -> Verdict:
    """Move `model` directly towards (or away from) `target` for `distance` inches."""
    tm = target_model(model, target, away=away)
    s = np.array(model.at, dtype=float)
    d = np.array(tm.at, dtype=float) - s
    n = float(np.hypot(*d))
    if n <= TOLERANCE:
        return Verdict(False, RULE_DIRECT, "the two base centres coincide: no line to follow")
    u = d / n * (-1.0 if away else 1.0)
    nav = nav or Navigator(bf, unit)
    # farthest useful parameter: full distance; not past the target; base stays on the table
    t_max = float(distance)
    if not away:
        t_max = min(t_max, n)
    t = bf.table
    ex, ey = bases.half_extents(model.ellipse)
    for k, (lo, hi) in enumerate(((ex, t.width - ex), (ey, t.depth - ey))):
        if u[k] > ROUND_OFF:
            t_max = min(t_max, (hi - s[k]) / u[k])
        elif u[k] < -ROUND_OFF:
            t_max = min(t_max, (lo - s[k]) / u[k])
    t_max = max(0.0, t_max)
    start_gap = base_distance(model, tm)

    def ok_at(tt: float) -> tuple[bool, Path | None]:
        p = tuple(s + tt * u)
        if tt <= TOLERANCE:
            return False, None
        path = nav.shortest_path(model.at, (float(p[0]), float(p[1])))
        if path is None or path.length > distance + TOLERANCE:
            return False, path
        end = end_position_ok(bf, unit, (float(p[0]), float(p[1])), model=model)
        if not end.ok:
            return False, path
        moved = model.moved_to((float(p[0]), float(p[1])))
        gap = base_distance(moved, tm)
        if (gap > start_gap + TOLERANCE) if not away else (gap < start_gap - TOLERANCE):
            return False, path
        return True, path

    # scan the line from far to near at 0.01" steps, then refine the first legal stretch
    step = DIRECT_SCAN_STEP
    ts = np.arange(t_max, 0.0, -step)
    found: tuple[float, Path] | None = None
    for tt in ts:
        good, path = ok_at(float(tt))
        if good and path is not None:
            found = (float(tt), path)
            break
    if found is None:
        return Verdict(False, RULE_DIRECT, f"{model.ref} cannot move "
                       f"{'away from' if away else 'towards'} {tm.ref} at all: every point along "
                       "the line is blocked, out of reach or not a legal end position",
                       None, {"target_model": tm.ref, "distance": distance})
    lo_t, hi_t = found[0], min(found[0] + step, t_max)
    best_path = found[1]
    for _ in range(20):
        mid = (lo_t + hi_t) / 2
        good, path = ok_at(mid)
        if good and path is not None:
            lo_t, best_path = mid, path
        else:
            hi_t = mid
    end = (float(s[0] + lo_t * u[0]), float(s[1] + lo_t * u[1]))
    full = best_path.length >= distance - FULL_DISTANCE_SLACK
    how = "the full distance" if full else f"{best_path.length:.3f}\" of {distance:g}\" (blocked)"
    gone = destroyed_by(bf, unit, model, best_path)
    return Verdict(True, RULE_DIRECT, f"{model.ref} moves {'away from' if away else 'towards'} "
                   f"{tm.ref}: {how}, ending at ({end[0]:.3f}, {end[1]:.3f})", end,
                   {"target_model": tm.ref, "path": [list(p) for p in best_path.points],
                    "path_length": best_path.length, "distance": distance, "full": full,
                    "destroys_grass": list(gone.grass), "removed": list(gone.removed)})


# --------------------------------------------------------------------------- PLACE

def place(bf: Battlefield, unit: Unit, model: Model, at: Point, x: float, *,
          engage_ok: Collection[str] = ()) -> Verdict:
    """PLACE X: put the model wholly within X" of where it was (gaps and elevation ignored)."""
    at = (float(at[0]), float(at[1]))
    moved = model.moved_to(at)
    far = max_distance(moved.ellipse, [model.ellipse])
    if far > x + TOLERANCE:
        return Verdict(False, RULE_PLACE, f"not wholly within {x:g}\" of where it was (its base "
                       f"would reach {far:.3f}\" away)", at, {"farthest": far})
    end = end_position_ok(bf, unit, at, model=model, engage_ok=engage_ok, any_top=True,
                          moving=False)
    if not end.ok:
        return Verdict(False, end.rule, end.reason, at, end.details)
    return Verdict(True, RULE_PLACE, f"{model.ref} may be placed at ({at[0]:g}, {at[1]:g})", at,
                   {**end.details, "farthest": far})


# --------------------------------------------------------------------------- placing a unit

def moved_unit(unit: Unit, positions: Mapping[str, Point]) -> Unit:
    models = tuple(m.moved_to(positions[m.id]) if m.id in positions else m for m in unit.models)
    return replace(unit, models=models)


def check_placement(bf: Battlefield, unit: Unit, positions: Mapping[str, Point], *,
                    leading: str | None = None, engage_ok: Collection[str] = (),
                    zone: BaseGeometry | None = None) -> Verdict:
    """§8.5.3 step 2 / §4.4: the unit with its models at `positions` (others where they are):
    every model ends legally, no two overlap, none inside `zone` (e.g. the enemy's zone of
    influence), and the unit is in coherency."""
    for mid in positions:
        unit.model(mid)  # unknown ids raise TmgError
    new = moved_unit(unit, positions)
    failures: list[dict[str, Any]] = []
    for m in new.models:
        v = end_position_ok(bf, unit, m.at, model=unit.model(m.id), engage_ok=engage_ok)
        if not v.ok:
            failures.append({"model": m.id, "reason": v.reason})
        if zone is not None and not zone.is_empty:
            shrunk = zone.buffer(-TOLERANCE)
            if not shrunk.is_empty and m.ellipse.polygon(64).intersects(shrunk):
                failures.append({"model": m.id, "reason": "inside the opponent's zone of "
                                 "influence (§8.3.3)"})
    ms = new.models
    for i, a in enumerate(ms):
        for b in ms[i + 1:]:
            if bases_overlap(a, b):
                failures.append({"model": b.id, "reason": f"its base overlaps model {a.id}"})
    bf2 = bf.replace_unit(new)
    coh = coherency(bf2, new, leading=leading)
    failures.extend(coh.details["failures"])
    details = {"failures": failures, "coherency": coh.details}
    if failures:
        return Verdict(False, failures[0].get("rule", "8.5.3 resolving a move"),
                       f"{unit.id} cannot be placed so: " + "; ".join(
                           f"{f['model']}: {f['reason']}" for f in failures), None, details)
    return Verdict(True, "4.4 unit coherency", f"{unit.id} may be placed so (legal and in "
                   "coherency)", None, details)


# --------------------------------------------------------------------------- deploy

def entry_edges(bf: Battlefield, owner: str) -> list[LineString]:
    if bf.deployment is None or not bf.deployment.entry_edges.get(owner):
        raise TmgError(f"no entry edge for {owner} (the scenario needs a deployment card or an "
                       "explicit edge)")
    return list(bf.deployment.entry_edges[owner])


def edge_named(bf: Battlefield, name: str) -> LineString:
    """An explicit whole table edge: south (y=0), north (y=depth), west (x=0), east."""
    t = bf.table
    edges = {"south": LineString([(0, 0), (t.width, 0)]),
             "north": LineString([(0, t.depth), (t.width, t.depth)]),
             "west": LineString([(0, 0), (0, t.depth)]),
             "east": LineString([(t.width, 0), (t.width, t.depth)])}
    if name not in edges:
        raise TmgError(f"unknown table edge {name!r} (use south, north, west or east)")
    return edges[name]


def with_entry_access(bf: Battlefield, edges: list[LineString]) -> Battlefield:
    """`bf` where every top the entry edges touch has the edge as an access point (FAQ 배치), for
    the deploying leading model's path only: its wall along the table edge is open."""
    strip = shapely.union_all([e.buffer(2 * TOLERANCE, cap_style="flat") for e in edges])
    changed = []
    for p in bf.terrain:
        if is_level(p) and float(p.footprint.distance(shapely.union_all(edges))) <= TOLERANCE:
            p = replace(p, access_points=(*p.access_points, strip))
        changed.append(p)
    return replace(bf, terrain=tuple(changed))


def deploy_path(nav: Navigator, model: Model, to: Point,
                edges: list[LineString]) -> Path | None:
    """Shortest legal path from off the table, touching an entry edge, to `to`.

    The model starts with its base touching the edge from outside (centre r beyond it); it
    crosses the edge square on (r to the edge, then on to the centre box, which lies as far in
    as the base must keep from the table's edges: its radius, or the clearance c when that is
    larger) and from there follows a shortest legal path. Only the entry edge is crossed: the
    base stays over the table's other edges (GEOMETRY-RULES §6: a deploy's base enters across
    its entry edge).
    """
    t = nav.bf.table
    x0, y0, x1, y1 = nav.fs.rect
    r = model.base.a
    best: Path | None = None
    for edge in edges:
        (ax, ay), (bx, by) = edge.coords[0], edge.coords[-1]
        # inward normal of a table edge, and the edge moved onto the table box
        if abs(ay - by) < ROUNDING:
            inward = (0.0, 1.0) if ay < t.depth / 2 else (0.0, -1.0)
            y = y0 if inward[1] > 0 else y1
            inset = abs(y - ay)
            inner = LineString([(max(min(ax, bx), x0), y), (min(max(ax, bx), x1), y)])
        elif abs(ax - bx) < ROUNDING:
            inward = (1.0, 0.0) if ax < t.width / 2 else (-1.0, 0.0)
            x = x0 if inward[0] > 0 else x1
            inset = abs(x - ax)
            inner = LineString([(x, max(min(ay, by), y0)), (x, min(max(ay, by), y1))])
        else:
            raise TmgError("entry edges must lie along a table edge")
        if inner.length <= 0:
            continue
        back = path_to_region(nav, to, inner)
        if back is None:
            continue
        entry = back.end
        outside = (entry[0] - inward[0] * (r + inset), entry[1] - inward[1] * (r + inset))
        rev = back.reversed()
        path = replace(rev, points=(outside,) + rev.points, length=rev.length + r + inset,
                       pieces=(Segment(outside, entry),) + rev.pieces)
        if best is None or path.length < best.length:
            best = path
    return best


def deploy(bf: Battlefield, unit: Unit, to: Point, *, positions: Mapping[str, Point] | None = None,
           edge: str | LineString | None = None, leading: str | None = None,
           allowance: float | None = None) -> Verdict:
    """§8.5.5: can the unit arrive with its leading model at `to` (and the others at
    `positions`)?

    Parameters
    ----------
    bf : Battlefield
        The table with the unit on it (`Battlefield.arriving` brings a reserve unit on).
    unit : Unit
        The arriving unit.
    to : tuple of float
        Where the leading model's centre ends.
    positions : mapping of str to point, optional
        Where the other models go (model id to centre); without it, the answer says whether
        the leader's end is legal and the others are left to place.
    edge : str or LineString, optional
        The entry edge: "south", "north", "west", "east" or a line (default: the
        deployment card's entry edges for the unit's player).
    leading : str, optional
        The leading model's id.
    allowance : float, optional
        How far the leader may move from the edge (default: the unit's Speed).

    Returns
    -------
    Verdict
        Legal or not (8.5.5 deploy, or the end position's rule); `details["path_length"]` is
        the leader's path from the edge.

    Examples
    --------
    A Speed-6 unit arriving from the west edge reaches x = 4 but not x = 8, and must arrive
    in coherency:

    >>> from shapely.geometry import box
    >>> from geom import Base, Battlefield, Model, Speed, Table, TerrainPiece, Unit, deploy
    >>> base = Base.from_mm(32)
    >>> ms = tuple(Model.make(i, unit="a", owner="red", at=(0, 0), base=base, size=1)
    ...            for i in ("1", "2"))
    >>> bf = Battlefield(Table(24, 12), (TerrainPiece("wall", 3, box(11, 0, 13, 8)),),
    ...                  reserves=(Unit("a", "red", 1, ms, base, speed=Speed(6), reserve=True),))
    >>> bf = bf.arriving("a")
    >>> v = deploy(bf, bf.unit("a"), (4, 6), edge="west", positions={"2": (4, 7.5)})
    >>> v.ok, v.rule, v.reason
    (True, '8.5.5 deploy', 'a deploys: leading model by a 4.630" path (Speed 6"), all models legal and in coherency')
    >>> print(deploy(bf, bf.unit("a"), (8, 6), edge="west").reason)
    the shortest legal path from the entry edge is 8.630", more than the Speed 6"
    """
    lead = unit.model(leading) if leading is not None else unit.leading_model
    if edge is None:
        edges = entry_edges(bf, unit.owner)
    elif isinstance(edge, str):
        edges = [edge_named(bf, edge)]
    else:
        edges = [edge]
    allowance = allowance_of(unit) if allowance is None else allowance
    nav = Navigator(with_entry_access(bf, edges), unit)
    to = (float(to[0]), float(to[1]))
    path = deploy_path(nav, lead, to, edges)
    details: dict[str, Any] = {"allowance": allowance}
    if path is not None:
        details["path"] = [list(p) for p in path.points]
        details["path_length"] = path.length
        gone = destroyed_by(bf, unit, lead, path)
        details["destroys_grass"] = list(gone.grass)
        details["removed"] = list(gone.removed)
    end = end_position_ok(bf, unit, to, model=lead)
    if not end.ok:
        return Verdict(False, end.rule, end.reason, to, {**details, **end.details})
    if path is None:
        return Verdict(False, "4.6 gap clearance", "no legal path from the entry edge", to,
                       details)
    if path.length > allowance + TOLERANCE:
        return Verdict(False, RULE_DEPLOY, f"the shortest legal path from the entry edge is "
                       f"{path.length:.3f}\", more than the Speed {allowance:g}\"", to, details)
    enemy = "blue" if unit.owner == "red" else "red"
    zone = bf.deployment.zones.get(enemy) if bf.deployment is not None else None
    pos = dict(positions or {})
    pos[lead.id] = to
    if positions is None:
        if zone is not None and not zone.is_empty and \
                lead.moved_to(to).ellipse.polygon(64).intersects(zone.buffer(-TOLERANCE)):
            return Verdict(False, "8.3.3 zone of influence", "the leading model would end inside"
                           " the opponent's zone of influence", to, details)
        return Verdict(True, RULE_DEPLOY, f"the leading model arrives at ({to[0]:g}, {to[1]:g}) "
                       f"by a {path.length:.3f}\" path (Speed {allowance:g}\"); place the others "
                       "in coherency", to, details)
    placed = check_placement(bf, unit, pos, leading=lead.id, zone=zone)
    details["placement"] = placed.details
    if not placed.ok:
        return Verdict(False, RULE_DEPLOY, placed.reason, to, details)
    return Verdict(True, RULE_DEPLOY, f"{unit.id} deploys: leading model by a "
                   f"{path.length:.3f}\" path (Speed {allowance:g}\"), all models legal and in "
                   "coherency", to, details)

