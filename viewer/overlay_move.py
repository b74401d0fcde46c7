"""Overlays for moving: coherency (§4.4, `geom.movement`), the reach of a move and the shortest
legal path to a point (§8.5.3, `geom.movement`), and charges (§8.7.7, `geom.combat`). Nothing is
decided here; every region, path and verdict comes from the engine."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

from shapely.geometry import Point as SPoint

from geom import combat, movement
from geom.model import Battlefield, Model
from geom.paths import travel_region

from . import markings as mk
from . import style as st
from .overlay_base import Highlight, base_ring, ghost
from .scene import (
    L_OVER,
    L_OVER_TEXT,
    L_UNDER,
    Area,
    OverlayLayer,
    Point,
    Prim,
    Stroke,
    Text,
    outline,
)

# --------------------------------------------------------------------------- coherency


def _link_tree(lead: str, links: list[tuple[str, str, float]]) -> list[tuple[str, str]]:
    """Shortest valid links that join every reachable model to the leader (Prim's tree): the
    chain a player would point at, instead of every valid pair."""
    inside: set[str] = {lead}
    tree: list[tuple[str, str]] = []
    while True:
        best = min(((d, a, b) for a, b, d in links if (a in inside) != (b in inside)),
                   default=None)
        if best is None:
            return tree
        _, a, b = best
        tree.append((a, b))
        inside |= {a, b}


@dataclass(frozen=True)
class Coherency:
    """Coherency of units (§4.4, `geom.movement`): the coherency distance of the leading model
    (3", 4" with Squadron), a chain of valid links, failing models ringed with the engine's
    reason. `units`: ids (None: all units with more than one model)."""

    units: tuple[str, ...] | None = None

    def build(self, bf: Battlefield) -> OverlayLayer:
        prims: list[Prim] = []
        info: list[str] = []
        chosen = [bf.unit(i) for i in self.units] if self.units is not None else \
            [u for u in bf.units if len(u.models) > 1]
        for u in chosen:
            v = movement.coherency(bf, u)
            lead = u.model(v.details["leading"])
            by_id = {m.id: m for m in u.models}
            dist = u.coherency_distance
            rng = lead.ellipse.polygon(96).buffer(dist, quad_segs=16)
            prims += outline(rng, st.with_alpha(st.COHERENCY_OK, 200), 1.8, L_UNDER, dash=8,
                             tag=f"coherency:range:{u.id}", mark=mk.COHERENCY_RANGE.variant(
                                 f'{dist:g}" of the leading model (coherency)'))
            valid = [(lk["a"], lk["b"], math.dist(by_id[lk["a"]].at, by_id[lk["b"]].at))
                     for lk in v.details["links"] if lk["ok"]]
            for a, b in _link_tree(lead.id, valid):
                prims.append(Stroke((by_id[a].at, by_id[b].at), st.COHERENCY_OK, 3.0, L_OVER,
                                    tag=f"coherency:link:{u.id}/{a}-{b}",
                                    mark=mk.COHERENCY_LINK))
            for f in v.details["failures"]:
                m = by_id[f["model"]]
                prims += base_ring(m, 0.12, st.COHERENCY_BAD, 4.0, f"coherency:fail:{m.ref}",
                                   mk.COHERENCY_FAIL)
                bad = [lk for lk in v.details["links"] if not lk["ok"]
                       and m.id in (lk["a"], lk["b"])]
                if bad:
                    lk = min(bad, key=lambda k: math.dist(by_id[k["a"]].at, by_id[k["b"]].at))
                    prims.append(Stroke((by_id[lk["a"]].at, by_id[lk["b"]].at),
                                        st.COHERENCY_BAD, 2.5, L_OVER, dash=7,
                                        tag=f"coherency:blocked:{u.id}/{lk['a']}-{lk['b']}",
                                        mark=mk.COHERENCY_GAP))
            info.append(f"Coherency: {v.reason} ({v.rule})")
            info += [f"    {u.id}/{f['model']}: {f['reason']}" for f in v.details["failures"]]
        return OverlayLayer(prims, [], info or ["Coherency: no unit has several models."])


# --------------------------------------------------------------------------- movement

@dataclass(frozen=True)
class Reach:
    """Where the leading model's centre can end a move (§8.5.3, `geom.movement.reach`): a legal
    path no longer than the allowance (default: the unit's Speed) and a legal end."""

    unit: str
    allowance: float | None = None

    def build(self, bf: Battlefield) -> OverlayLayer:
        u = bf.unit(self.unit)
        allowance = movement.allowance_of(u) if self.allowance is None else self.allowance
        lead = u.leading_model
        region = movement.reach(bf, u, lead.at, allowance)
        prims: list[Prim] = []
        if not region.is_empty:
            prims.append(Area(region, st.REACH_FILL, L_UNDER, f"reach:{u.id}", mk.REACH))
            prims += outline(region, st.REACH_EDGE, 2.0, L_UNDER, tag=f"reach:{u.id}",
                             mark=mk.REACH)
        prims += Highlight((lead,)).build(bf).prims
        how = "flying, point to point" if u.flying else "by legal paths"
        info = [f'Reach of {u.id}: {allowance:g}" {how}; the shaded region is where the centre '
                f"of its leading model {lead.ref} can end (§8.5.3)"
                + ("; nowhere" if region.is_empty else "")]
        return OverlayLayer(prims, [], info)


def gone_prims(bf: Battlefield, grass: Iterable[str], removed: Iterable[str], tag: str
               ) -> list[Prim]:
    """The GRASS a move or charge destroys and the pieces a LARGE unit removes (keyword GRASS,
    LARGE): a dashed edge over each piece — the engine judged the end without them."""
    prims: list[Prim] = []
    for pid in [*grass, *removed]:
        if bf.has_piece(pid):
            prims += outline(bf.piece(pid).footprint, st.GONE, 3.0, L_OVER, dash=7,
                             tag=f"{tag}:{pid}", mark=mk.GONE)
    return prims


def gone_words(bf: Battlefield, grass: Iterable[str], removed: Iterable[str]) -> list[str]:
    names = [bf.piece(p).title for p in [*grass, *removed] if bf.has_piece(p)]
    return [f"    gone for the end (dashed orange): {', '.join(names)}"] if names else []


def path_prims(points: object, tag: str, ok: bool = True, radius: float = 0.0) -> list[Prim]:
    """The leading model's path (solid), or the path of a move that is not legal (dashed).
    With `radius`, the outline of the base swept along it, faint (§4.6: the base stays off
    every obstacle except in a gap; a judge sees that it clears the wall)."""
    pts = tuple((float(p[0]), float(p[1])) for p in points)  # type: ignore[attr-defined]
    if len(pts) < 2:
        return []
    if radius > 0:
        from shapely.geometry import LineString

        swept = LineString(pts).buffer(radius, quad_segs=32)
        return [*outline(swept, st.with_alpha(st.PATH, 90), 1.2, L_UNDER, tag=f"{tag}:swept",
                         mark=mk.SWEPT), *path_prims(pts, tag, ok)]
    if ok:
        return [Stroke(pts, st.PATH, st.OVERLAY_WIDTH, L_OVER, tag=tag, mark=mk.PATH)]
    return [Stroke(pts, st.ILLEGAL, st.OVERLAY_WIDTH, L_OVER, dash=8, tag=tag,
                   mark=mk.ILLEGAL_PATH)]


def gap_prims(bf: Battlefield, model: Model, points: object, tag: str) -> list[Prim]:
    """Each gap the path squeezes through (§4.6: the base overlaps both sides there): the
    narrowest line across it and its width, so a judge sees why the base may pass."""
    pts = [(float(p[0]), float(p[1])) for p in points]  # type: ignore[attr-defined]
    prims: list[Prim] = []
    for g in movement.gaps_on_path(bf, bf.unit(model.unit), pts):
        prims.append(Stroke((g.a, g.b), st.GAP_MARK, 3.0, L_OVER, tag=f"{tag}:gap",
                            mark=mk.GAP))
        mid = ((g.a[0] + g.b[0]) / 2, (g.a[1] + g.b[1]) / 2)
        prims.append(Text(mid, f'gap {g.width:.2f}"', 15, st.GAP_MARK, L_OVER_TEXT,
                          offset=(0, -18), bold=True, movable=True, tag=f"{tag}:gap",
                          mark=mk.GAP))
    return prims


@dataclass(frozen=True)
class Move:
    """The shortest legal path of a leading model to a point, and the engine's verdict."""

    model: Model
    to: Point
    allowance: float | None = None

    def build(self, bf: Battlefield) -> OverlayLayer:
        u = bf.unit(self.model.unit)
        chk = movement.check_move(bf, u, self.model, self.to, allowance=self.allowance)
        ok = bool(chk.verdict.ok)
        prims: list[Prim] = []
        if chk.path is not None:
            prims += path_prims(chk.path.points, "move:path", ok, self.model.base.a)
            prims += gap_prims(bf, self.model, chk.path.points, "move:path")
        prims += ghost(self.model, self.to, "move:end", mk.END if ok else mk.ILLEGAL_END)
        prims += Highlight((self.model,)).build(bf).prims
        allow = f' (allowance {self.allowance:g}")' if self.allowance is not None else ""
        info = [f"Move {self.model.ref} to {self.to[0]:g},{self.to[1]:g}{allow}: "
                f"{'LEGAL' if ok else 'NOT LEGAL'} — {chk.verdict.rule}: {chk.verdict.reason}"]
        if ok:
            d = chk.verdict.details
            prims += gone_prims(bf, d.get("destroys_grass", ()), d.get("removed", ()),
                                "move:gone")
            info += gone_words(bf, d.get("destroys_grass", ()), d.get("removed", ()))
        return OverlayLayer(prims, [], info)


@dataclass(frozen=True)
class Charge:
    """A charge declaration (§8.7.7, `geom.combat`): the legal charge ends for the leading
    model's centre, the shortest charge path, and — with a roll — the ends that roll reaches."""

    unit: str
    targets: tuple[str, ...]
    roll: int | None = None
    modifier: float = 0.0

    def build(self, bf: Battlefield) -> OverlayLayer:
        u = bf.unit(self.unit)
        # with a roll, the end drawn is that roll's (base contact when its distance reaches)
        ans = combat.charge(bf, self.unit, list(self.targets), self.modifier, roll=self.roll)
        lead = u.model(ans.leading) if ans.leading else u.leading_model
        prims: list[Prim] = []
        info = [f"Charge {u.id} → {', '.join(ans.targets)}: "
                f"{'possible' if ans.possible else 'NOT possible'} — {ans.rule}: {ans.reason}"]
        if ans.min_distance is not None:
            info.append(f'Shortest legal charge {ans.min_distance:.3f}"; smallest roll '
                        f"{ans.min_roll if ans.min_roll is not None else 'none'}; "
                        f"probability {ans.probability:.0%} (Speed {ans.speed:g}"
                        + (f", modifier {self.modifier:+g}" if self.modifier else "") + ")")
        targets = [bf.unit(t) for t in ans.targets if bf.unit(t).owner != u.owner]
        if targets and not u.flying:
            er = movement.end_region(bf, u, lead, targets)
            if not er.region.is_empty:
                prims.append(Area(er.region, st.CHARGE_FILL, L_UNDER, "charge:ends",
                                  mk.CHARGE_ENDS))
                prims += outline(er.region, st.CHARGE_EDGE, 1.6, L_UNDER, dash=6,
                                 tag="charge:ends", mark=mk.CHARGE_ENDS)
            if self.roll is not None and ans.speed is not None:
                dist = ans.speed + self.roll + self.modifier
                travel = travel_region(movement.navigator(bf, u), lead.at, dist)
                reached = travel.intersection(er.region) if not er.region.is_empty else travel
                if not travel.is_empty:
                    prims += outline(travel, st.REACH_EDGE, 2.0, L_UNDER, dash=9,
                                     tag="charge:travel",
                                     mark=mk.REACH_OF.variant(f'reach of {dist:g}" (the roll)'))
                ok = ans.min_roll is not None and self.roll >= ans.min_roll
                if ok and reached.is_empty and ans.end is not None:
                    # a roll exactly enough: the drawn reach and ends (inner polygons) only
                    # touch at the engine's exact end, so mark that end
                    from shapely.geometry import Point as SPoint

                    reached = SPoint(ans.end).buffer(0.05)
                if not reached.is_empty:
                    prims.append(Area(reached, st.REACHED_FILL, L_UNDER, "charge:reached",
                                      mk.REACHED))
                info.append(f'Roll {self.roll}: charge distance {dist:g}" — '
                            + ("the charge SUCCEEDS" if ok else "the charge FAILS"))
        if ans.path:
            prims += path_prims(ans.path, "charge:path", radius=lead.base.a)
            prims += gap_prims(bf, lead, ans.path, "charge:path")
        if ans.end is not None:
            prims += ghost(lead, ans.end, "charge:end")
        if ans.possible:
            d = ans.details
            prims += gone_prims(bf, d.get("destroys_grass", ()), d.get("removed", ()),
                                "charge:gone")
            info += gone_words(bf, d.get("destroys_grass", ()), d.get("removed", ()))
        prims += Highlight((lead,)).build(bf).prims
        return OverlayLayer(prims, [], info)


@dataclass(frozen=True, eq=False)  # the verdict is a dict: overlays are cached by identity
class Check:
    """A judge's check (GEOMETRY-RULES §14, `geom.judge`), drawn on the table as the player
    left it (AFTER: its bases solid): where each changed unit's models stood before (faint
    dashed rings, given `before`), the models that break a rule ringed red, the leader's path,
    and every failure's witness — the segment it measures (with its excess), the leader's path,
    or the free spot a model could have had — besides a line of the legend each."""

    after: Battlefield
    verdict: dict  # type: ignore[type-arg]  # `geom.judge.check`'s answer
    before: Battlefield | None = None

    def table(self) -> Battlefield:
        """AFTER as the picture shows it: each judged unit led by the leading model the
        verdict names (the yellow ring marks the leader the check judged, not the scenario's
        default)."""
        bf = self.after
        for u in self.verdict["units"]:
            lead = u.get("leading")
            ua = next((v for v in bf.units if v.id == u["unit"]), None)
            if lead and ua is not None and ua.leading != lead \
                    and any(m.id == lead for m in ua.models):
                bf = bf.replace_unit(replace(ua, leading=lead))
        return bf

    def build(self, bf: Battlefield) -> OverlayLayer:
        prims: list[Prim] = []
        info = [f"Check: {'LEGAL' if self.verdict['legal'] else 'NOT LEGAL'} — "
                f"{self.verdict['reason']}"]
        for u in self.verdict["units"]:
            tag = f"check:{u['unit']}"
            if self.before is not None:
                was = [m for v in (*self.before.units, *self.before.reserves)
                       if v.id == u["unit"] for m in v.models]
                for m in was:
                    prims += outline(m.ellipse.polygon(64), st.with_alpha(st.NOT_AFFECTED, 200),
                                     1.6, L_OVER, dash=4, tag=f"{tag}/{m.id}:before",
                                     mark=mk.BEFORE)
            ua = next((v for v in self.after.units if v.id == u["unit"]), None)
            bad = {f["model"] for f in u["failures"]}
            for m in ua.models if ua is not None else ():
                if m.id in bad:
                    prims += base_ring(m, 0.06, st.ILLEGAL, 2.5, f"{tag}/{m.id}", mk.CHECK_FAIL)
            if u.get("path"):
                prims += path_prims(u["path"], f"{tag}:path", bool(u["legal"]))
            for k, f in enumerate(u["failures"]):
                ex = f' ({f["excess"]:.3f}" beyond)' if f["excess"] is not None else ""
                info.append(f"    {u['unit']}/{f['model'] or '-'}: {f['reason']} "
                            f"[{f['rule']}]{ex}")
                who = next((x for x in (ua.models if ua is not None else ())
                            if x.id == f["model"]), None)
                prims += witness_prims(f, f"{tag}:witness:{k}", who)
        return OverlayLayer(prims, [], info)


def witness_prims(f: dict, tag: str,  # type: ignore[type-arg]
                  m: Model | None = None) -> list[Prim]:
    """One failure's witness (`geom.judge`): a segment (its excess written beside it), a path,
    a free spot (the model's base there, dashed, when the model is known), or the ends a path
    could not join."""
    w = f.get("witness") or {}
    out: list[Prim] = []
    if "segment" in w:
        (x1, y1), (x2, y2) = w["segment"]
        out.append(Stroke(((x1, y1), (x2, y2)), st.ILLEGAL, 3.0, L_OVER, tag=tag,
                          mark=mk.WITNESS))
        if f.get("excess") is not None:
            out.append(Text(((x1 + x2) / 2, (y1 + y2) / 2), f'{f["excess"]:.3f}"', 13,
                            st.ILLEGAL, offset=(0, -14), movable=True, tag=tag))
    if "path" in w:
        out += path_prims(w["path"], tag, False)
    if "from" in w and "to" in w:
        out += path_prims([w["from"], w["to"]], tag, False)
    if "point" in w:
        x, y = w["point"]
        spot = m.moved_to((x, y)).ellipse.polygon(64) if m is not None else \
            SPoint(x, y).buffer(0.12, quad_segs=8)
        out += list(outline(spot, st.PATH, 2.0, L_OVER, dash=5, tag=tag, mark=mk.FREE_SPOT))
    return out
