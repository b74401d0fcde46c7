"""A judge's check of a declared position (GEOMETRY-RULES §14; rulebook §4.3, §4.4, §4.6,
§8.5.3–8.5.5, §8.7.1, keyword PLACE).

Given the table before one unit's action and the unit where the player put it, decide by the
rules — never by comparing with the engine's own proposal — whether some legal action of the
kind leads there: some leading model whose path is legal within the allowance (`geom.paths._navigator`
paths, the deploy path of `geom.movement._placement`), every model's end legal (whole base on the table,
no overlap with terrain or another base, not within 1" of an enemy ground model, outside the
opponent's zone of influence on a deploy) and in coherency (wholly within the coherency distance
of the leader, `geom.movement._coherency.range_failure`, and linked to it), the GRASS and LARGE removals
exactly those the action causes (`geom.movement._destroyed`), and no model removed as a casualty that had
a legal place (§4.4).

Every failure names the model, the rule, a reason and its `excess` in inches beyond the limit
(an overlap's excess is its depth). The leaders are tried in id order and the verdict never
depends on the order the models are listed in or on the leader a file records.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry

from .. import bases
from ..combat import (
    CLOSE_RANKS_MOVE,
    aimed_at,
    charge,
    engaged_enemy_units,
    in_contact_with_enemy,
    named_target_models,
    nearest_gap,
    split_targets,
)
from ..distance import distance as base_distance
from ..distance import max_distance
from ..elevation import top_at
from ..engagement import engaged_pairs, in_base_contact, models_engaged
from ..errors import TmgError
from ..model import Battlefield, Ellipse, Model, Unit, natural_key
from ..movement import (
    LinkChecker,
    allowance_of,
    base_reach,
    bases_overlap,
    check_charge_placement,
    coherency,
    contact_shapes,
    deploy_path,
    destroyed_by,
    entry_edges,
    far_distances,
    may_overlap,
    mover_base,
    placement_surfaces,
    range_failure,
    removed_by_large,
    spots,
    wide_base,
    with_entry_access,
)
from ..paths import Navigator, is_level, navigator_for, nearest_members
from ..tolerance import CONTACT_SLACK, ROUNDING, TOLERANCE

KINDS = ("move", "run", "deploy", "disengage", "close-ranks", "place", "charge")
RULE_MOVE = "8.5.3 resolving a move"
RULE_COHERENCY = "4.4 unit coherency"
RULE_ENGAGEMENT = "7.2 engagement range"
RULE_DEPLOY = "8.5.5 deploy"
RULE_PLACE = "PLACE"
RULE_GAP = "4.6 gap clearance"
RULE_CASUALTY = "4.4 casualties"
RULE_GRASS = "8.5.3 GRASS and LARGE removals"
RULE_CHARGE = "8.7.7 charge"
RULE_CLOSE = "8.8.1 close ranks"


def _fail(model: str | None, rule: str, reason: str, excess: float | None = None,
          witness: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"model": model, "rule": rule, "reason": reason,
           "excess": None if excess is None else round(float(excess), 6)}
    if witness is not None:
        out["witness"] = witness
    return out


def _seg(p: Any, q: Any) -> dict[str, Any]:
    return {"segment": [[round(float(p[0]), 6), round(float(p[1]), 6)],
                        [round(float(q[0]), 6), round(float(q[1]), 6)]]}


def _rim(e: Ellipse, toward: tuple[float, float], sign: float = 1.0) -> tuple[float, float]:
    """A disc's rim point in the direction of `toward` (sign -1: the opposite one)."""
    dx, dy = toward[0] - e.centre[0], toward[1] - e.centre[1]
    n = math.hypot(dx, dy) or 1.0
    return (e.centre[0] + sign * e.a * dx / n, e.centre[1] + sign * e.a * dy / n)


def gap_witness(a: Ellipse, b: Ellipse) -> dict[str, Any]:
    """The segment between the nearest points of two bases (its length: their distance; for
    two overlapping discs the segment across the overlap, its length the depth)."""
    if a.is_disc and b.is_disc:
        return _seg(_rim(a, b.centre), _rim(b, a.centre))
    from shapely.ops import nearest_points

    p, q = nearest_points(a.polygon(256), b.polygon(256))
    return _seg((p.x, p.y), (q.x, q.y))


def far_witness(m: Ellipse, lead: Ellipse) -> dict[str, Any]:
    """Coherency range: from the leader's base to the point of `m`'s base farthest from it (the
    segment's length is the distance that is measured against the coherency distance)."""
    if m.is_disc and lead.is_disc:
        return _seg(_rim(lead, m.centre), _rim(m, lead.centre, -1.0))
    pts = shapely.get_coordinates(m.polygon(256).exterior)
    lp = lead.polygon(256)
    d = shapely.distance(lp, shapely.points(pts))
    i = int(np.argmax(d))
    from shapely.ops import nearest_points

    q = nearest_points(lp, SPoint(pts[i]))[0]
    return _seg((q.x, q.y), pts[i])


def depth_witness(e: Ellipse, g: BaseGeometry) -> dict[str, Any]:
    """An overlap with `g`: from the nearest point of g's boundary to the base's deepest point
    inside g (for a disc the segment's length is the depth)."""
    from shapely.ops import nearest_points

    c = SPoint(e.centre)
    b = nearest_points(g.boundary, c)[0]
    inside = g.contains(c)
    deep = _rim(e, (b.x, b.y), -1.0 if inside else 1.0) if e.is_disc else e.centre
    return _seg((b.x, b.y), deep)


def depth_in(e: Ellipse, g: BaseGeometry) -> float:
    """How deep the base reaches into `g`: the greatest distance of a point of the base inside
    `g` from g's boundary (for a disc: its radius less the centre's distance from `g`, or plus
    its depth inside)."""
    c = SPoint(e.centre)
    if e.is_disc:
        if g.contains(c):
            return e.a + float(g.boundary.distance(c))
        return max(0.0, e.a - float(g.distance(c)))
    pts = shapely.points(np.vstack([shapely.get_coordinates(e.polygon(256).exterior),
                                    [e.centre]]))
    inside = shapely.contains(g, pts)
    if not inside.any():
        return max(0.0, -float(g.distance(e.polygon(256))))
    return float(shapely.distance(g.boundary, pts[inside]).max())


def _engagement_excess(m: Model, o: Model) -> float | None:
    """Inches inside the 1" engagement range of enemy `o` (None: outside it)."""
    if m.owner == o.owner or m.flying or o.flying:
        return None
    d = base_distance(m, o)
    return 1.0 - d if d <= 1.0 + TOLERANCE else None


def end_failures(bf: Battlefield, unit: Unit, m: Model, *, moving: bool = True,
                 any_top: bool = False, zone: BaseGeometry | None = None,
                 engage_ok: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Why model `m` (at its declared end, on `bf` where its unit already stands as declared)
    may not end there (§8.5.3): every broken rule, with its excess."""
    out: list[dict[str, Any]] = []
    e = m.ellipse
    t = bf.table
    ex, ey = bases.half_extents(e)
    x, y = m.at
    over = max(ex - x, ey - y, x + ex - t.width, y + ey - t.depth)
    if over > TOLERANCE:
        edge = {ex - x: ((0.0, y), (x - ex, y)), ey - y: ((x, 0.0), (x, y - ey)),
                x + ex - t.width: ((t.width, y), (x + ex, y)),
                y + ey - t.depth: ((x, t.depth), (x, y + ey))}[over]
        out.append(_fail(m.id, RULE_MOVE, f"its base is not wholly on the table ({over:.3f}\" "
                         "over the edge)", over, _seg(*edge)))
    top = top_at(bf, m.at)
    allowed = may_overlap(bf, top) if top is not None and (
        unit.flying or any_top or is_level(top)) else set()
    for p in bf.terrain:
        if p.grass or p.id in allowed or not bases.overlaps_piece(bf, e, p):
            continue
        if moving and unit.large and removed_by_large(p):
            continue
        d = depth_in(e, p.footprint)
        out.append(_fail(m.id, RULE_MOVE, f"its base overlaps {p.title} by {d:.3f}\"", d,
                         depth_witness(e, p.footprint)))
    for o in bf.models():
        if o.ref == m.ref or math.dist(o.at, m.at) > e.a + o.base.a + 1.0 + TOLERANCE:
            continue
        if bases_overlap(m, o):
            d = depth_in(e, o.ellipse.polygon(256)) if not (e.is_disc and o.base.is_disc) \
                else e.a + o.base.a - math.dist(m.at, o.at)
            out.append(_fail(m.id, RULE_MOVE, f"its base overlaps model {o.ref} by {d:.3f}\"",
                             d, gap_witness(e, o.ellipse)))
            continue
        inside = _engagement_excess(m, o)
        if inside is not None and o.unit not in engage_ok:
            out.append(_fail(m.id, RULE_ENGAGEMENT, f"it ends {1.0 - inside:.3f}\" from enemy "
                             f"model {o.ref}, within 1\" ({inside:.3f}\" inside)", inside,
                             gap_witness(e, o.ellipse)))
    if zone is not None and not zone.is_empty:
        d = depth_in(e, zone)
        if d > TOLERANCE:
            out.append(_fail(m.id, "8.3.3 zone of influence", f"its base reaches {d:.3f}\" "
                             "into the opponent's zone of influence", d,
                             depth_witness(e, zone)))
    return out


def coherency_failures(bf: Battlefield, unit: Unit, lead: Model) -> list[dict[str, Any]]:
    """§4.4 with `lead` leading: wholly within the coherency distance (excess: how far the base
    reaches beyond it) and a chain of links."""
    d = unit.coherency_distance
    out: list[dict[str, Any]] = []
    far = far_distances(unit.by_id, [lead])
    for i, m in enumerate(unit.by_id):
        if m.id == lead.id:
            continue
        why = range_failure(unit, m, lead, float(far[i, 0]))
        if why is not None:
            reach = base_distance(m, lead) if wide_base(unit, m) else float(far[i, 0])
            out.append(_fail(m.id, RULE_COHERENCY, f"ends {reach:.3f}\" from the leading model "
                             f"{lead.id}: {reach - d:.3f}\" beyond {d:g}\"", reach - d,
                             gap_witness(m.ellipse, lead.ellipse) if wide_base(unit, m)
                             else far_witness(m.ellipse, lead.ellipse)))
    v = coherency(bf, unit, leading=lead.id)
    for f in v.details["failures"]:
        chain = [part for part in f["reason"].split("; ") if part.startswith("no chain")]
        if chain:
            out.append(_fail(f["model"], RULE_COHERENCY, chain[0]))
    return out


def _could_be_placed(bf: Battlefield, unit: Unit, m: Model, lead: Model) -> tuple[float, float] | None:
    """A legal spot with a link for a model removed as a casualty, the others as declared."""
    avoid = [o for o in bf.models() if o.owner != unit.owner and not o.flying]
    link = LinkChecker(bf, unit)
    es = spots(bf, unit, m, lead, None, avoid, list(unit.models), unit.coherency_distance)
    for q in itertools.islice(nearest_members(es, lead.at, 0.125), 200):
        moved = m.moved_to((float(q[0]), float(q[1])))
        if range_failure(unit, moved, lead) is None and link.ok(moved, unit.models):
            return (float(q[0]), float(q[1]))
    return None


def _zone(bf: Battlefield, unit: Unit) -> BaseGeometry | None:
    enemy = "blue" if unit.owner == "red" else "red"
    return bf.deployment.zones.get(enemy) if bf.deployment is not None else None


def charge_failures(before: Battlefield, ub: Unit, ua: Unit, lead_id: str, path: Any,
                    roll: int | None, target_ids: Sequence[str] | None
                    ) -> tuple[list[dict[str, Any]], list[str]]:
    """§8.7.7 for one leader: the charge distance (Speed + the roll, or the least roll that
    reaches), the leader within 1" of every declared target and in base contact when the
    distance reaches it (step 4), the others at the best priority open to each with the others
    where they stand (`after_charge.check_charge_placement`). Returns the failures and the targets."""

    out: list[dict[str, Any]] = []
    specs = list(target_ids) if target_ids is not None else None  # UNIT or UNIT/MODEL
    target_ids, names = split_targets(specs) if specs is not None else (None, {})
    la = ua.model(lead_id)
    speed = ub.current_speed()
    if speed is None:
        return [_fail(lead_id, RULE_CHARGE, "the unit has no Speed and cannot charge")], []
    bf = _with_unit(before, ua)
    if target_ids is None:
        target_ids = [v.id for v in before.units if v.owner != ub.owner
                      and any(models_engaged(bf, la, o) for o in v.models)]
    targets = [before.unit(t) for t in target_ids]
    aimed = aimed_at(targets, named_target_models(targets, names))  # §8.7.7 step 2
    if not targets:
        out.append(_fail(lead_id, RULE_CHARGE, "the leading model ends within engagement range "
                         "of no enemy unit: no charge leads there"))
        return out, []
    for t in targets:
        if not any(models_engaged(bf, la, o) for o in t.models):
            out.append(_fail(lead_id, RULE_CHARGE, f"the leading model does not end within "
                             f"engagement range of declared target {t.id}"))
    if path is None:
        return out, list(target_ids)
    need = path.length - speed
    used = roll if roll is not None else max(1, math.ceil(need - TOLERANCE))
    if need > used + TOLERANCE or used > 6:
        what = f"the roll {roll}" if roll is not None else "any roll (6 at most)"
        top = used if roll is not None else 6
        out.append(_fail(lead_id, RULE_CHARGE, f"its shortest legal path is {path.length:.3f}\": "
                         f"{need - top:.3f}\" beyond the charge distance {speed + top:g}\" "
                         f"of {what}", need - top, {"path": [list(q) for q in path.points]}))
        return out, list(target_ids)
    tmodels = [o for t in aimed for o in t.models if not o.flying]
    if not any(in_base_contact(la, o) for o in tmodels):
        ans = charge(before, ub.id, specs or list(target_ids), leading=lead_id, place=False,
                     roll=used)
        reach = ans.details.get("contact_distance")
        if reach is not None and reach <= speed + used + TOLERANCE:
            gap, near = min((base_distance(la, o), i) for i, o in enumerate(tmodels))
            out.append(_fail(lead_id, RULE_CHARGE, f"the charge distance {speed + used:g}\" "
                             f"reaches base contact ({reach:.3f}\"), but it ends {gap:.3f}\" from "
                             "its target (§8.7.7 step 4)", gap,
                             gap_witness(la.ellipse, tmodels[near].ellipse)))
    others = {m.id: m.at for m in ua.models if m.id != lead_id}
    pv = check_charge_placement(before, replace(ub, leading=lead_id), la.at, others, targets)
    # each model left at a lower priority than one open to it: the excess is its gap to what
    # the better priority asks, the witness a free spot of that priority (its base drawn there)
    for b in pv.details["better_spots"]:
        out.append(_fail(b["model"], RULE_CHARGE,
                         f'left at priority {b["tier"]}, but it could have been placed in '
                         f'{b["could"]}: {b["excess"]:.3f}" from it (§8.7.7 step 4)',
                         b["excess"], {"point": [round(b["spot"][0], 6),
                                                 round(b["spot"][1], 6)]}))
    return out, list(target_ids)


def close_ranks_failures(before: Battlefield, ub: Unit, ua: Unit, lead_id: str
                         ) -> tuple[list[dict[str, Any]], list[str]]:
    """§8.8.1 step 1 for one leader, besides the path: the leader not held, ending closer to
    the engaged enemy with no new engagement and none lost (`close_ranks.close_ranks_end`);
    the held models where they stood; and each other model at the best placement priority
    open to it with the others where they stand, judged model by model: base contact with an
    engaged enemy model, else base contact with a model of the unit within engagement range.
    Returns the failures and the engaged enemy unit ids (whose 1" the unit may stand in)."""

    out: list[dict[str, Any]] = []
    engaged = engaged_enemy_units(before, ub)
    if not engaged:
        return [_fail(None, RULE_CLOSE, f"{ub.id} is not engaged: only engaged units close "
                      "ranks")], []
    ids = [v.id for v in engaged]
    held = {m.id for m in ub.models if in_contact_with_enemy(before, m)}
    if len(held) == len(ub.models):
        return [_fail(None, RULE_CLOSE, f"every model of {ub.id} is in base contact with an "
                      "enemy model: the unit cannot close ranks (FAQ)")], ids
    for mid in sorted(held, key=natural_key):
        if mid in {m.id for m in ua.models}:
            moved = math.dist(ub.model(mid).at, ua.model(mid).at)
            if moved > TOLERANCE:
                f = _fail(mid, RULE_CLOSE, f"it was in base contact with an enemy model and is "
                          f"physically held, but it moved {moved:.3f}\"", moved)
                f["witness"] = {"segment": [list(ub.model(mid).at), list(ua.model(mid).at)]}
                out.append(f)
    if lead_id in held:
        out.append(_fail(lead_id, RULE_CLOSE, "it is in base contact with an enemy model: it "
                         "may not lead (it may not move)"))
        return out, ids
    bf = _with_unit(before, ua)
    lb, la = ub.model(lead_id), ua.model(lead_id)
    b, a = nearest_gap(lb, engaged), nearest_gap(la, engaged)
    if not a < b - TOLERANCE:
        f = _fail(lead_id, RULE_CLOSE, f"the leading model ends {a:.3f}\" from the enemy it is "
                  f"engaged with: not closer than the {b:.3f}\" it started at", a - b)
        out.append(f)
    for v in engaged:  # new engagements are end_failures' (engagement range of the others)
        if engaged_pairs(before, [lb], v.models, first_only=True) and \
                not engaged_pairs(bf, [la], v.models, first_only=True):
            out.append(_fail(lead_id, RULE_CLOSE, f"it would no longer be engaged with {v.id}: "
                             "close ranks may not be used to disengage"))
    tmodels = [o for v in engaged for o in v.models if not o.flying]
    avoid = [o for o in before.models() if o.owner != ub.owner and not o.flying
             and o.unit not in ids]
    lead = ua.model(lead_id)
    link = LinkChecker(bf, ua, engaged_enemies=tmodels)
    by_ref = {o.ref: o for o in (*tmodels, *ua.models)}
    surfaces = placement_surfaces(bf, lead)
    for m in ua.by_id:
        if m.id == lead_id or m.id in held:
            continue
        gap, near = min((base_distance(m, o), o.ref) for o in tmodels)
        if gap <= CONTACT_SLACK:
            continue  # base contact: the best priority
        fighting = [p for p in ua.models if p.id != m.id
                    and any(base_distance(p, o) <= 1.0 + TOLERANCE for o in tmodels)]
        supporting = any(base_distance(m, p) <= CONTACT_SLACK for p in fighting)
        others = [p for p in ua.models if p.id != m.id]
        ess = [spots(bf, ua, m, lead, top, avoid, others, ua.coherency_distance)
               for top in surfaces]
        contact = contact_shapes(m, engaged, 0.0)
        tiers = [("base contact with an enemy model it is engaged with",
                  [es.with_group(contact) for es in ess], gap, near)]
        if not supporting and fighting:
            K = mover_base(m)
            sgap, snear = min((base_distance(m, p), p.ref) for p in fighting)
            reach = [base_reach(K, p.ellipse, p.at, 0.0) for p in fighting]
            tiers.append(("base contact with a model of its unit within engagement range "
                          "(the supporting rank)", [es.with_group(reach) for es in ess],
                          sgap, snear))
        for name, tier, excess, ref in tiers:
            spot = next((got for got in (_free_spot(ua, m, lead, es, link, others)
                                         for es in tier) if got is not None), None)
            if spot is not None:
                f = _fail(m.id, RULE_CLOSE, f"it could have been placed in {name}, e.g. at "
                          f"({spot[0]:.3f}, {spot[1]:.3f}), but it ends {excess:.3f}\" from it "
                          "(§8.8.1 step 1: as many models as possible in base contact)", excess)
                # the gap it was left short by, and the free spot in base contact
                f["witness"] = {"point": [spot[0], spot[1]],
                                **gap_witness(m.ellipse, by_ref[ref].ellipse)}
                out.append(f)
                break
    return out, ids


def _free_spot(unit: Unit, m: Model, lead: Model, es: Any, link: LinkChecker,
               placed: Sequence[Model]) -> tuple[float, float] | None:
    """A member of `es` in coherency range of `lead` with a link, nearest `m`'s declared end."""
    for q in itertools.islice(nearest_members(es, m.at, 0.125), 200):
        moved = m.moved_to((float(q[0]), float(q[1])))
        if range_failure(unit, moved, lead) is None and link.ok(moved, placed):
            return (float(q[0]), float(q[1]))
    return None


def judge_leader(before: Battlefield, ub: Unit, ua: Unit, lead_id: str, kind: str,
                 allowance: float, gone: set[str], *, roll: int | None = None,
                 targets: Sequence[str] | None = None) -> dict[str, Any]:
    """One choice of leading model for one kind of action: every failure."""
    failures: list[dict[str, Any]] = []
    lb, la = ub.model(lead_id), ua.model(lead_id)
    bf = _with_unit(before, ua)
    nav_bf = before
    path = None
    if kind == "place":
        for m in ua.models:
            far = max_distance(m.ellipse, [ub.model(m.id).ellipse])
            if far > allowance + TOLERANCE:
                failures.append(_fail(m.id, RULE_PLACE, f"not wholly within {allowance:g}\" of "
                                      f"where it was (its base reaches {far:.3f}\": "
                                      f"{far - allowance:.3f}\" beyond)", far - allowance,
                                      far_witness(m.ellipse, ub.model(m.id).ellipse)))
    elif kind == "deploy":
        edges = entry_edges(before, ub.owner)
        nav = Navigator(with_entry_access(before, edges), ub)
        path = deploy_path(nav, lb, la.at, edges)
    else:
        if math.dist(lb.at, la.at) <= TOLERANCE:
            failures.append(_fail(lead_id, "FAQ moving 0\"", "the leading model did not move: "
                                  "moving 0\" is not a move"))
        else:
            path = navigator_for(nav_bf, ub).shortest_path(lb.at, la.at)
    engage_ok: list[str] = []
    if kind == "charge":
        if path is None and not failures:
            failures.append(_fail(lead_id, RULE_GAP, "no legal path for the leading model from "
                                  "where it stood to its declared end",
                                  witness={"from": list(lb.at), "to": list(la.at)}))
        cf, engage_ok = charge_failures(before, ub, ua, lead_id, path, roll, targets)
        failures += cf
    elif kind != "place" and not failures:
        if path is None:
            failures.append(_fail(lead_id, RULE_GAP, "no legal path for the leading model from "
                                  "where it stood to its declared end",
                                  witness={"from": list(lb.at), "to": list(la.at)}))
        elif path.length > allowance + TOLERANCE:
            failures.append(_fail(lead_id, {"deploy": RULE_DEPLOY, "close-ranks": RULE_CLOSE}
                                  .get(kind, RULE_MOVE),
                                  f"its shortest legal path is {path.length:.3f}\": "
                                  f"{path.length - allowance:.3f}\" beyond the allowance "
                                  f"{allowance:g}\"", path.length - allowance,
                                  {"path": [list(q) for q in path.points]}))
    if kind == "close-ranks":
        cf, engage_ok = close_ranks_failures(before, ub, ua, lead_id)
        failures += cf
    zone = _zone(before, ub) if kind == "deploy" else None
    for m in ua.by_id:
        failures += end_failures(bf, ua, m, moving=kind != "place", any_top=kind == "place",
                                 zone=zone, engage_ok=engage_ok)
    failures += coherency_failures(bf, ua, la)
    present = {m.id for m in ua.models}
    for m in ub.by_id:
        if m.id not in present:
            spot = _could_be_placed(bf, ua, m, la)
            if spot is not None:
                failures.append(_fail(m.id, RULE_CASUALTY, "removed as a casualty, but it had a "
                                      f"legal place in coherency, e.g. ({spot[0]:.3f}, "
                                      f"{spot[1]:.3f})", witness={"point": list(spot)}))
    if kind != "place":
        caused = destroyed_by(before, ub, lb, path, list(ua.models)) if path is not None else None
        should = set(caused.ids) if caused is not None else set()
        for pid in sorted(should - gone):
            failures.append(_fail(None, RULE_GRASS, f"{before.piece(pid).title} is destroyed "
                                  "by the action but still on the table after it"))
        for pid in sorted(gone - should):
            failures.append(_fail(None, RULE_GRASS, f"{before.piece(pid).title} is gone from "
                                  "the table, but the action does not destroy it"))
    elif gone:
        failures.append(_fail(None, RULE_GRASS, "PLACE destroys no terrain, but "
                              + ", ".join(sorted(gone)) + " is gone"))
    out: dict[str, Any] = {"leading": lead_id, "legal": not failures, "failures": failures}
    if path is not None:
        out["path"] = [list(p) for p in path.points]
        out["path_length"] = path.length
    return out


def _with_unit(bf: Battlefield, u: Unit) -> Battlefield:
    """`bf` with `u` on the table (replacing its own; a unit from reserve added)."""
    return bf.arriving(u.id).replace_unit(replace(u, reserve=False))


def _before_unit(before: Battlefield, unit_id: str) -> Unit:
    for u in before.reserves:
        if u.id == unit_id:
            return u
    return before.unit(unit_id)


def changed_units(before: Battlefield, after: Battlefield) -> list[str]:
    """Units whose models differ between the two tables (ids in `before`'s order; units that
    left the reserve for the table after them)."""
    out = []
    for ub in before.units:
        if ub.id not in {u.id for u in after.units}:
            out.append(ub.id)
            continue
        ua = after.unit(ub.id)
        pa = {m.id: m.at for m in ua.models}
        pb = {m.id: m.at for m in ub.models}
        if pa.keys() != pb.keys() or any(math.dist(pa[k], pb[k]) > ROUNDING for k in pa):
            out.append(ub.id)
    reserve = {u.id for u in before.reserves}
    out += [ua.id for ua in after.units if ua.id in reserve]
    for ua in after.units:
        if ua.id not in {u.id for u in before.units} | reserve:
            raise TmgError(f"unit {ua.id!r} is not on the table before the action", obj=ua.id)
    return out


def kinds_for(before: Battlefield, ub: Unit) -> list[str]:
    """The kinds a unit could have taken when the player does not say (PLACE needs its X)."""

    if ub.reserve:
        return ["deploy"]  # a unit in reserve reaches the table only by a deploy
    if engaged_enemy_units(before, ub):
        return ["disengage", "close-ranks"]
    kinds = ["move", "run", "charge"]
    if before.deployment is not None and before.deployment.entry_edges.get(ub.owner):
        kinds.append("deploy")
    return kinds


def judge_unit(before: Battlefield, after: Battlefield, unit_id: str, *,
               action: str | None = None, allowance: float | None = None,
               roll: int | None = None, targets: Sequence[str] | None = None
               ) -> dict[str, Any]:
    """Could the unit have got from `before` to `after` by one legal action (§14)?"""
    ub = _before_unit(before, unit_id)
    gone = {p.id for p in before.terrain} - {p.id for p in after.terrain}
    if unit_id not in {u.id for u in after.units}:
        return {"unit": unit_id, "action": action, "legal": False, "leading": None,
                "failures": [_fail(None, RULE_CASUALTY, "the whole unit is gone from the table")],
                "reason": f"{unit_id} is gone: no moving action removes a whole unit"}
    ua = after.unit(unit_id)
    for m in ua.models:
        ub.model(m.id)  # an unknown model is bad input
    ua = replace(ua, leading=None)  # the recorded leader never decides the verdict
    if action == "place" and allowance is None:
        raise TmgError("--action place needs --allowance X (PLACE X)", obj="--allowance")
    if ub.reserve and action not in (None, "deploy"):
        return {"unit": unit_id, "action": action, "legal": False, "leading": None,
                "failures": [_fail(None, RULE_DEPLOY, "the unit was in reserve: only a deploy "
                                   "brings it onto the table")],
                "reason": f"{unit_id} was in reserve: a {action} cannot bring it on"}
    kinds = [action] if action is not None else kinds_for(before, ub)
    results: dict[str, dict[str, Any]] = {}
    for kind in kinds:
        allow = allowance if allowance is not None else allowance_of(ub)
        if kind == "close-ranks" and allowance is None:
            allow = CLOSE_RANKS_MOVE
        leaders = []
        for m in sorted(ua.models, key=lambda m: natural_key(m.id)):
            leaders.append(judge_leader(before, ub, ua, m.id, kind, allow, gone, roll=roll,
                                        targets=targets))
            if leaders[-1]["legal"]:
                break  # the first legal leader in id order is named: later ones change nothing
        results[kind] = {"allowance": None if kind == "charge" else allow, "leaders": leaders}
    legal_kinds = [k for k in kinds if any(ld["legal"] for ld in results[k]["leaders"])]
    if legal_kinds:
        k = legal_kinds[0]
        ld = next(ld for ld in results[k]["leaders"] if ld["legal"])
        judged: str | list[str] = action if action is not None else legal_kinds
        return {"unit": unit_id, "action": judged, "legal": True, "leading": ld["leading"],
                "failures": [], "path": ld.get("path"), "path_length": ld.get("path_length"),
                "allowance": results[k]["allowance"],
                "reason": f"{unit_id} can get there by a legal {k} led by {ld['leading']}"
                          + (f" (path {ld['path_length']:.3f}\" of {results[k]['allowance']:g}\")"
                             if ld.get("path_length") is not None
                             and results[k]["allowance"] is not None else "")}
    all_leaders = [dict(ld, action=k) for k in kinds for ld in results[k]["leaders"]]
    best = min(all_leaders, key=lambda ld: len(ld["failures"]))
    judged = action if action is not None else []
    worst = best["failures"][0]
    return {"unit": unit_id, "action": judged, "legal": False, "leading": None,
            "failures": best["failures"], "leaders": all_leaders, "path": best.get("path"),
            "reason": f"no leading model makes a legal {' or '.join(kinds)} of {unit_id}; "
                      f"nearest is {best['leading']} ({best['action']}): "
                      f"{worst['model'] or unit_id}: {worst['reason']}"}


def check(before: Battlefield, after: Battlefield, *, unit: str | None = None,
          action: str | None = None, allowance: float | None = None,
          roll: int | None = None, targets: Sequence[str] | None = None) -> dict[str, Any]:
    """§14 for every changed unit (or `unit`), each judged on `before` with only itself
    changed.

    Parameters
    ----------
    before : Battlefield
        The table before the action.
    after : Battlefield
        The table as the player left it.
    unit : str, optional
        Judge only this unit (default: every unit that changed).
    action : str, optional
        The declared action (one of `KINDS`); default: any action that could explain it.
    allowance : float, optional
        The move's allowance (default: from the unit's Speed).
    roll : int, optional
        A charge's D6 roll.
    targets : sequence of str, optional
        A charge's declared targets.

    Returns
    -------
    dict
        ``legal``, ``reason`` and ``units``: per unit its ``legal``, ``leading``, ``path``
        and ``failures`` (each with ``model``, ``rule``, ``reason`` and a ``witness``).

    Raises
    ------
    TmgError
        An unsupported action, a roll outside 1–6 or an unknown unit.

    Examples
    --------
    With Speed 6, a/1 may step to (8, 9) but cannot get round the wall to (14, 10):

    >>> from shapely.geometry import box
    >>> from geom import Base, Battlefield, Model, Speed, Table, TerrainPiece, Unit, check
    >>> base = Base.from_mm(32)
    >>> a = Model.make("1", unit="a", owner="red", at=(10, 4), base=base, size=1)
    >>> bf = Battlefield(Table(24, 12), (TerrainPiece("wall", 3, box(11, 0, 13, 8)),),
    ...                  (Unit("a", "red", 1, (a,), base, speed=Speed(6)),))
    >>> print(check(bf, bf.after_action("a", {"1": (8, 9)}))["reason"])
    a can get there by a legal move led by 1 (path 5.385" of 6")
    >>> j = check(bf, bf.after_action("a", {"1": (14, 10)}))
    >>> j["legal"], [(f["rule"], f["reason"]) for f in j["units"][0]["failures"]]
    (False, [('8.5.3 resolving a move', 'its shortest legal path is 8.297": 2.297" beyond the allowance 6"')])
    """
    if action is not None and action not in KINDS:
        raise TmgError(f"checking a {action} is not supported (supported: {', '.join(KINDS)})",
                       obj="--action")
    ids: Sequence[str] = [unit] if unit is not None else changed_units(before, after)
    if unit is not None:
        _before_unit(before, unit)
    if not ids:
        return {"legal": True, "units": [], "reason": "no unit changed between the two tables"}
    if roll is not None and roll not in range(1, 7):
        raise TmgError(f"a D6 roll is 1 to 6, got {roll}", obj="--roll")
    for t in targets or ():
        before.unit(t.partition("/")[0])  # UNIT or UNIT/MODEL (a charge's target model)
    units = [judge_unit(before, after, u, action=action, allowance=allowance, roll=roll,
                        targets=targets) for u in ids]
    ok = all(u["legal"] for u in units)
    return {"legal": ok, "units": units,
            "reason": "; ".join(u["reason"] for u in units)}
