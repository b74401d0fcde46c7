"""End positions of a move (rulebook §8.5.3, §7.2, §8.7.7 step 3, FAQ "측정과 이동").

A model may end a move where

- its whole base is on the table;
- its base overlaps no terrain footprint (Size 0 and 1 and tokens included; GRASS may be ended
  on and is destroyed; a LARGE unit may end on a Size-0/1 impassable piece, tokens excepted,
  which is removed — `geom.movement._destroyed`) unless it stands on a top reached legally — then it may overlap that top,
  the pieces under it and the tops joined to it by an access point (a ramp and the hill it
  climbs); overlapping means sharing area: touching is fine;
- its base overlaps no other base;
- a ground model is not within 1" of an enemy GROUND model (§7.2: exactly 1" is within), and a
  flying model is at least 1" from enemy flying models (it may touch ground models).

The exact tests of each condition live here and are shared by moves, charges and placements.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import replace
from typing import Any

import shapely
from shapely.geometry import Point as SPoint
from shapely.geometry import Polygon, box
from shapely.geometry.base import BaseGeometry

from .. import bases
from ..distance import distance as base_distance
from ..elevation import top_at
from ..model import Battlefield, Ellipse, Model, Point, TerrainPiece, Unit
from ..paths import is_level
from ..tolerance import TOLERANCE
from ..verdict import Verdict
from ._destroyed import ends_over, removed_by_large

RULE_MOVE = "8.5.3 resolving a move"


def pieces_under(bf: Battlefield, top: TerrainPiece | None) -> set[str]:
    """Ids of `top` and of every piece it stands on (empty on the mat)."""
    out: set[str] = set()
    p = top
    while p is not None and p.id not in out:
        out.add(p.id)
        p = bf.piece(p.on) if p.on else None
    return out


def joined_tops(bf: Battlefield, top: TerrainPiece) -> set[str]:
    """Tops joined to `top` by an access point (e.g. a ramp and the hill it climbs)."""
    aps = [a for q in bf.terrain for a in q.access_points]
    return {q.id for q in bf.terrain if q.id != top.id and is_level(q)
            and any(a.intersects(top.footprint) and a.intersects(q.footprint) for a in aps)}


def may_overlap(bf: Battlefield, top: TerrainPiece | None) -> set[str]:
    """Pieces a base standing on `top` may overlap: the top, the pieces under it, and the tops
    joined to it by an access point."""
    if top is None:
        return set()
    return pieces_under(bf, top) | joined_tops(bf, top)


def base_on_table(bf: Battlefield, e: Ellipse) -> bool:
    """Is the whole base on the table (exact: an ellipse's extent along each axis)?"""
    ex, ey = bases.half_extents(e)
    t = bf.table
    return not (e.cx - ex < -TOLERANCE or e.cy - ey < -TOLERANCE
                or e.cx + ex > t.width + TOLERANCE or e.cy + ey > t.depth + TOLERANCE)


def bases_overlap(a: Model, b: Model) -> bool:
    """Positive-area overlap between two bases (touching is fine)."""
    if a.base.is_disc and b.base.is_disc:
        return math.dist(a.at, b.at) < a.base.a + b.base.a - TOLERANCE
    if math.dist(a.at, b.at) >= a.base.a + b.base.a:
        return False
    shrunk = replace(a.ellipse, a=a.ellipse.a - TOLERANCE, b=a.ellipse.b - TOLERANCE)
    return bases.ellipse_distance(shrunk, b.ellipse) == 0.0


def end_position_ok(bf: Battlefield, unit: Unit, at: Point, *, model: Model | None = None,
                    engage_ok: Collection[str] = (), exclude: Collection[str] | None = None,
                    check_engagement: bool = True, any_top: bool = False,
                    moving: bool = True) -> Verdict:
    """End position checks (§8.5.3; see the module docstring) for `model` (default: the leading model)
    placed with its centre at `at`. `engage_ok`: enemy unit ids whose engagement range the
    model may end in (e.g. charge targets). `exclude`: model refs / unit ids ignored for
    overlaps (default: the unit's own models, which are placed afterwards). `any_top`: any
    standable top may be stood on (PLACE ignores elevation), not only reachable ones.
    `moving=False` (PLACE is no moving action, FAQ: "놓기 효과는 이동이 아니므로"): a LARGE unit
    removes nothing, so it may not end over its Size-0/1 pieces either."""
    mover = (model or unit.leading_model).moved_to(at)
    e = mover.ellipse
    skip = set(exclude) if exclude is not None else {unit.id}
    details: dict[str, Any] = {"at": list(at)}
    if not base_on_table(bf, e):
        return Verdict(False, RULE_MOVE, "the base would not be wholly on the table", at, details)
    top = top_at(bf, at)
    allowed: set[str] = set()
    if top is not None and (unit.flying or any_top or is_level(top)):
        allowed = may_overlap(bf, top)
        details["standing_on"] = top.id
    grass: list[str] = []
    removed: list[str] = []
    for p in bf.terrain:
        if not bases.overlaps_piece(bf, e, p):
            continue
        if p.grass:
            grass.append(p.id)
            continue
        if p.id in allowed:
            continue
        if moving and unit.large and removed_by_large(p):
            removed.append(p.id)  # the LARGE card: ending on it removes it
            continue
        what = "token" if p.is_token else f"Size-{p.size} terrain"
        why = (" (a top reached only through its access points)" if is_level(p) else
               " (its top is not reachable: no access points)" if p.can_stand_on else "")
        return Verdict(False, RULE_MOVE, f"the base would overlap {what} {p.title}{why}", at,
                       {**details, "terrain": p.id})
    details["destroys_grass"] = grass
    details["removed"] = removed
    for m in bf.models():
        if m.unit in skip or m.ref in skip or m.ref == mover.ref:
            continue
        if math.dist(m.at, at) >= e.a + m.base.a:
            continue
        if bases_overlap(mover, m):
            return Verdict(False, RULE_MOVE, f"the base would overlap model {m.ref}", at,
                           {**details, "model": m.ref})
    if check_engagement:
        for m in bf.models():
            if m.owner == unit.owner or m.unit in engage_ok:
                continue
            if math.dist(m.at, at) > e.a + m.base.a + 1.0 + TOLERANCE:
                continue
            if unit.flying and m.flying:
                d = base_distance(mover, m)
                if d < 1.0 - TOLERANCE:
                    return Verdict(False, "8.5.3 flying units", f"it would end {d:.3f}\" from "
                                   f"enemy flying model {m.ref} (must be at least 1\")", at,
                                   {**details, "model": m.ref})
            elif not unit.flying and not m.flying:
                d = base_distance(mover, m)
                if d <= 1.0 + TOLERANCE:
                    return Verdict(False, "7.2 engagement range", f"it would end within 1\" "
                                   f"({d:.3f}\") of enemy ground model {m.ref}", at,
                                   {**details, "model": m.ref})
    where = f" on {top.title}" if top is not None and "standing_on" in details else ""
    return Verdict(True, RULE_MOVE, f"a legal end position{where}", at, details)


def move_end_region(bf: Battlefield, unit: Unit, model: Model, *,
               engage_ok: Collection[str] = ()) -> BaseGeometry:
    """Polygon of centre positions passing the end checks (an inner approximation: oval bases
    are treated as discs of their long semi-axis; arcs are circumscribed 128-gons)."""
    r = model.base.a
    t = bf.table
    ex, ey = bases.half_extents(model.ellipse)
    if 2 * ex > t.width or 2 * ey > t.depth:
        return Polygon()
    region: BaseGeometry = box(ex, ey, t.width - ex, t.depth - ey)
    q = 32
    k = 1 / math.cos(math.pi / (4 * q))
    cuts: list[BaseGeometry] = []
    levels = {p.id: p for p in bf.terrain if is_level(p)}
    for p in bf.terrain:
        if ends_over(unit, p):
            continue
        grown = p.footprint.buffer(r * k, quad_segs=q)
        # centres on a reachable top standing on (or being) p may overlap p
        keep = [levels[i].footprint for i in levels
                if p.id in may_overlap(bf, levels[i])]
        if unit.flying:
            keep = [top.footprint for top in bf.terrain if top.can_stand_on
                    and p.id in pieces_under(bf, top)]
        if keep:
            grown = grown.difference(shapely.union_all(keep).buffer(-TOLERANCE))
        cuts.append(grown)
    for m in bf.models():
        if m.unit == unit.id:
            continue
        rr = r + m.base.a * (1 if m.base.is_disc else 1 / math.cos(math.pi / 64))
        if m.owner != unit.owner and m.unit not in engage_ok and (
                (not unit.flying and not m.flying) or (unit.flying and m.flying)):
            rr += 1.0
        cuts.append(SPoint(m.at).buffer(rr * k, quad_segs=q))
    if cuts:
        region = region.difference(shapely.union_all(cuts))
    return region


