"""Overlays: the engine's answers drawn on the table. Each overlay is a small frozen dataclass
whose `build(bf)` asks one engine module and returns an `OverlayLayer` (primitives, legend
entries, the verdict's rule and reason as text). Nothing is decided here: distances, verdicts,
witnesses and blocking pieces all come from `geom`.

- `Measure` — tape measure between two points or bases (§4.1, `geom.distance`);
- `Highlight` — picked objects;
- `Sight` — line of sight between two models or a model and a marker (§7.1, `geom.sight`):
  the witness line, or the pieces that block;
- `Engagement` — 1" engagement rings and engaged pairs (§7.2, `geom.engagement`);
- `Template` — a blast or flamer template placed on a target and the models it affects
  (§8.7.6, `geom.templates`);
- `Coherency` — links and failures (§4.4, `geom.coherency`);
- `Reach`, `Move` — where a move can end, the shortest legal path (§6, `geom.movement`);
- `Charge` — legal charge ends, shortest charge, the ends a roll reaches (§8.7.7, `geom.charge`).

Each exists only when its engine module does (`available`).

Adding an overlay: write a dataclass with `build(bf) -> OverlayLayer`, list its engine module
in `ENGINE_MODULES`, and give it a toggle in `viewer.interact` and an option in `tmg render`.
"""

from __future__ import annotations

import importlib.util
import math
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from geom import distance as gdist
from geom.model import Battlefield, Ellipse, Marker, Model, TerrainPiece, Unit

from . import style as st
from .scene import (
    L_OVER,
    L_OVER_TEXT,
    L_UNDER,
    Area,
    LegendEntry,
    OverlayLayer,
    Point,
    Prim,
    Stroke,
    Text,
    outline,
)

Thing: TypeAlias = Model | Unit | Marker | TerrainPiece | tuple[float, float] | BaseGeometry

#: overlay name -> the engine module it draws (None: needs only the foundation)
ENGINE_MODULES: dict[str, str | None] = {
    "measure": None,
    "sight": "geom.sight",
    "engagement": "geom.engagement",
    "coherency": "geom.coherency",
    "reach": "geom.movement",
    "charge": "geom.charge",
    "template": "geom.templates",
}


def available(name: str) -> bool:
    """Is the engine module behind this overlay installed in this checkout?"""
    mod = ENGINE_MODULES[name]
    return mod is None or importlib.util.find_spec(mod) is not None


def label(x: Any) -> str:
    from scenario import refs
    return refs.label(x)


def _dot(p: Point, r: float, colour: st.RGBA, layer: int, tag: str) -> Area:
    return Area(SPoint(p).buffer(r, quad_segs=8), colour, layer, tag)


def _seg(p: Any, q: Any) -> tuple[Point, Point]:
    return ((float(p[0]), float(p[1])), (float(q[0]), float(q[1])))


# --------------------------------------------------------------------------- measure

def _part_geom(p: Ellipse | BaseGeometry) -> BaseGeometry:
    return p.polygon(256) if isinstance(p, Ellipse) else p


def closest_points(a: Thing, b: Thing) -> tuple[Point, Point]:
    """Ends of a shortest segment between the two objects (for drawing the tape; the length
    shown is `geom.distance.distance`, exact)."""
    pairs = [(p, q) for p in gdist.parts(a) for q in gdist.parts(b)]
    p, q = min(pairs, key=lambda pq: gdist.part_distance(*pq))
    if isinstance(p, Ellipse) and isinstance(q, Ellipse) and gdist.part_distance(p, q) > 0:
        try:
            from geom.segments import nearest_points as ellipse_nearest
            pp, qq = ellipse_nearest(p, q)
            return _seg(pp, qq)
        except ImportError:  # pragma: no cover - segments is part of the engine
            pass
    ga, gb = _part_geom(p), _part_geom(q)
    na, nb = nearest_points(ga, gb)
    return _seg((na.x, na.y), (nb.x, nb.y))


@dataclass(frozen=True)
class Measure:
    """A tape between two things; ticks every inch from the first end."""

    a: Thing
    b: Thing

    def build(self, bf: Battlefield) -> OverlayLayer:
        d = gdist.distance(self.a, self.b)
        p, q = closest_points(self.a, self.b)
        prims: list[Prim] = [Stroke((p, q), st.TAPE, st.OVERLAY_WIDTH + 1, L_OVER, tag="tape"),
                             Stroke((p, q), st.TAPE_ALT, st.OVERLAY_WIDTH - 1.5, L_OVER,
                                    tag="tape")]
        length = math.dist(p, q)
        if length > 1e-9:
            ux, uy = (q[0] - p[0]) / length, (q[1] - p[1]) / length
            for k in range(1, int(length) + 1):
                cx, cy = p[0] + ux * k, p[1] + uy * k
                h = 0.3 if k % 6 == 0 else 0.16
                prims.append(Stroke(((cx - uy * h, cy + ux * h), (cx + uy * h, cy - ux * h)),
                                    st.TAPE, 2.0, L_OVER, tag="tape:tick"))
        for e in (p, q):
            prims.append(_dot(e, 0.12, st.TAPE, L_OVER, "tape:end"))
        mid = ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
        prims.append(Text(mid, f'{d:.2f}"', 16, st.TAPE, L_OVER_TEXT, offset=(0, 16),
                          bold=True, tag="label:tape"))
        what = "between bases" if not all(isinstance(x, tuple) for x in (self.a, self.b)) \
            else "point to point"
        return OverlayLayer(prims, [LegendEntry("line", st.TAPE_ALT, "tape measure")],
                            [f'Tape: {label(self.a)} to {label(self.b)}: {d:.3f}" '
                             f"({what}, shortest distance; §4.1)"])


# --------------------------------------------------------------------------- highlight

@dataclass(frozen=True)
class Highlight:
    """Rings around picked objects (the first click of a two-click question)."""

    things: tuple[Thing, ...]

    def build(self, bf: Battlefield) -> OverlayLayer:
        prims: list[Prim] = []
        for x in self.things:
            if isinstance(x, Model | Marker):
                ring = x.ellipse.polygon(64).buffer(0.18)
                prims += outline(ring, st.PICK, 4.0, L_OVER, tag=f"pick:{label(x)}")
            elif isinstance(x, Unit):
                for m in x.models:
                    prims += outline(m.ellipse.polygon(64).buffer(0.18), st.PICK, 4.0, L_OVER,
                                     tag=f"pick:{label(m)}")
            elif isinstance(x, TerrainPiece):
                prims += outline(x.footprint, st.PICK, 5.0, L_OVER, tag=f"pick:{label(x)}")
            elif isinstance(x, tuple):
                cx, cy = x
                for dx, dy in ((0.35, 0), (0, 0.35)):
                    prims.append(Stroke(((cx - dx, cy - dy), (cx + dx, cy + dy)), st.PICK, 3.0,
                                        L_OVER, tag="pick:point"))
        return OverlayLayer(prims)


# --------------------------------------------------------------------------- sight

def sight_verdict(bf: Battlefield, a: Model | Marker, b: Model | Marker) -> Any:
    """The engine's sight verdict for two models, or a model and a marker (§7.1, §8.9.1)."""
    from geom.sight import line_of_sight

    return line_of_sight(bf, a, b)


@dataclass(frozen=True)
class Sight:
    """Line of sight between two models (or a model and a marker): the witness segment in green
    when they see each other, else the blocking pieces in magenta; the rule and reason as text."""

    a: Model | Marker
    b: Model | Marker

    def build(self, bf: Battlefield) -> OverlayLayer:
        v = sight_verdict(bf, self.a, self.b)
        prims: list[Prim] = []
        legend: list[LegendEntry] = []
        blocking = list((v.details or {}).get("blocking", []) or [])
        pieces = [bf.piece(str(pid)) for pid in blocking if bf.has_piece(str(pid))]
        if v.ok and v.witness is not None:
            (x1, y1), (x2, y2) = v.witness[0], v.witness[1]
            for pc in pieces:  # they block for this pair, but the witness passes beside them
                prims += outline(pc.footprint, st.SIGHT_BLOCKED, 2.5, L_OVER, dash=7,
                                 tag=f"sight:beside:{pc.id}")
            prims.append(Stroke(((float(x1), float(y1)), (float(x2), float(y2))),
                                st.SIGHT_CLEAR, st.OVERLAY_WIDTH, L_OVER, tag="sight:witness"))
            for e in ((x1, y1), (x2, y2)):
                prims.append(_dot((float(e[0]), float(e[1])), 0.1, st.SIGHT_CLEAR, L_OVER,
                                  "sight:end"))
            legend.append(LegendEntry("line", st.SIGHT_CLEAR, "sight line (witness)"))
            if pieces:
                legend.append(LegendEntry("dash", st.SIGHT_BLOCKED, "would block, passed by"))
        else:
            prims.append(Stroke((self.a.at, self.b.at), st.SIGHT_BLOCKED, 2.5, L_OVER,
                                dash=9, tag="sight:blocked"))
            for pc in pieces:
                prims.append(Area(pc.footprint, st.BLOCKING_FILL, L_UNDER,
                                  f"sight:blocking:{pc.id}"))
                prims += outline(pc.footprint, st.SIGHT_BLOCKED, 4.0, L_OVER,
                                 tag=f"sight:blocking:{pc.id}")
            legend.append(LegendEntry("fill", st.BLOCKING_FILL, "blocks this sight line",
                                      st.SIGHT_BLOCKED))
        prims += Highlight((self.a, self.b)).build(bf).prims
        # the engine's reason names both and says "sees" / "does not see"
        info = [f"Sight ({v.rule}): {v.reason}"]
        return OverlayLayer(prims, legend, info)


# --------------------------------------------------------------------------- engagement

def _offset_ring(m: Model, d: float) -> BaseGeometry:
    return m.ellipse.polygon(96).buffer(d, quad_segs=16)


@dataclass(frozen=True)
class Engagement:
    """1" engagement rings around ground models and a segment for every engaged pair (§7.2).
    `units`: limit to these unit ids (None: every unit)."""

    units: tuple[str, ...] | None = None

    def build(self, bf: Battlefield) -> OverlayLayer:
        from geom import engagement as eng

        prims: list[Prim] = []
        chosen = [u for u in bf.units if self.units is None or u.id in self.units]
        for u in chosen:
            if u.flying:
                continue
            for m in u.models:
                prims += outline(_offset_ring(m, eng.ENGAGEMENT_RANGE),
                                 st.with_alpha(st.OWNER.get(u.owner, st.ENGAGEMENT), 170), 1.6,
                                 L_UNDER, dash=6, tag=f"engagement:ring:{m.ref}")
        info: list[str] = []
        seen: set[tuple[str, str]] = set()
        for u in chosen:
            for v in bf.units:
                key = tuple(sorted((u.id, v.id)))
                if u.owner == v.owner or key in seen:
                    continue
                seen.add(key)  # type: ignore[arg-type]
                pairs = eng.engaged_pairs(bf, u.models, v.models)
                for pr in pairs:
                    w = pr.verdict.witness
                    if w is not None:
                        a, b = _seg(w[0], w[1])
                        if math.dist(a, b) < 1e-6:
                            prims.append(_dot(a, 0.12, st.ENGAGEMENT, L_OVER, "engagement:pair"))
                        else:
                            prims.append(Stroke((a, b), st.ENGAGEMENT, st.OVERLAY_WIDTH + 1,
                                                L_OVER, tag="engagement:pair"))
                if pairs:
                    info.append(f"Engaged: {u.id} and {v.id} ({len(pairs)} pair"
                                f"{'s' if len(pairs) != 1 else ''}; §7.2)")
        if not info:
            info.append("Engagement: no units are engaged (§7.2).")
        legend = [LegendEntry("dash", st.TEXT_MUTED, '1" engagement range'),
                  LegendEntry("line", st.ENGAGEMENT, "engaged pair (witness)")]
        return OverlayLayer(prims, legend, info)


# --------------------------------------------------------------------------- templates

@dataclass(frozen=True)
class Template:
    """A blast or flamer template placed by the engine on a target model (or point) and the
    models it affects: main target and spillover (§8.7.6)."""

    kind: str
    attacker: Model
    target: Model | None = None
    at: Point | None = None
    shape: Any = None  # geom.templates.TemplateShape; None: the data file's
    target_type: str | None = None

    def build(self, bf: Battlefield) -> OverlayLayer:
        from geom import templates as T

        shape = self.shape or T.default_shape(self.kind)
        res = T.resolve(bf, self.kind, shape, self.attacker, target=self.target, at=self.at,
                        target_type=self.target_type)
        tpl = res.template
        prims: list[Prim] = [Area(tpl.polygon, st.TEMPLATE_FILL, L_UNDER, "template:area")]
        prims += outline(tpl.polygon, st.TEMPLATE_EDGE, 3.0, L_OVER, tag="template:edge")
        prims.append(_dot(tpl.target_point, 0.1, st.TEMPLATE_EDGE, L_OVER, "template:point"))
        by_ref = {m.ref: m for m in bf.models()}
        for c in res.checks:
            m = by_ref.get(str(c.details.get("model")))
            if m is None:
                continue
            ring = m.ellipse.polygon(64).buffer(0.1)
            if c.ok:
                prims += outline(ring, st.AFFECTED, 4.0, L_OVER, tag=f"template:hit:{m.ref}")
            else:
                prims += outline(ring, st.TEMPLATE_EDGE, 2.0, L_OVER, dash=5,
                                 tag=f"template:miss:{m.ref}")
        prims += Highlight((self.attacker,)).build(bf).prims
        who = f"{self.kind.capitalize()} template from {self.attacker.ref}" + (
            f" on {self.target.ref}" if self.target else
            f" at {self.at[0]:g},{self.at[1]:g}" if self.at else "")
        dims = ", ".join(f'{k} {v:g}"' for k, v in shape.dims)
        info = [f"{who} ({dims}" + ("; PROVISIONAL size, not official)" if shape.provisional
                                    else ")")]
        if not res.placement.ok:
            info.append(f"Not a legal target — {res.placement.rule}: {res.placement.reason}")
        if res.main.unit is not None:
            info.append(f"Main target {res.main.unit}: {res.main.count} model(s) "
                        f"{', '.join(res.main.models)} (surge {res.surge})")
        for b in res.spillover:
            info.append(f"Spillover {b.unit}: {b.count} model(s) {', '.join(b.models)}")
        for c in res.checks:
            if not c.ok:
                info.append(f"Not affected: {c.reason}")
        legend = [LegendEntry("fill", st.TEMPLATE_FILL, f"{self.kind} template",
                              st.TEMPLATE_EDGE),
                  LegendEntry("ring", st.AFFECTED, "affected by the template")]
        return OverlayLayer(prims, legend, info)


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
    """Coherency of units (§4.4, `geom.coherency`): the 3" range of the leading model, a chain
    of valid links, failing models ringed with the engine's reason. `units`: ids (None: all
    units with more than one model)."""

    units: tuple[str, ...] | None = None

    def build(self, bf: Battlefield) -> OverlayLayer:
        from geom import coherency as coh

        prims: list[Prim] = []
        info: list[str] = []
        chosen = [bf.unit(i) for i in self.units] if self.units is not None else \
            [u for u in bf.units if len(u.models) > 1]
        for u in chosen:
            v = coh.coherency(bf, u)
            lead = u.model(v.details["leading"])
            by_id = {m.id: m for m in u.models}
            rng = lead.ellipse.polygon(96).buffer(coh.COHERENCY_RANGE, quad_segs=16)
            prims += outline(rng, st.with_alpha(st.COHERENCY_OK if v.ok else st.COHERENCY_BAD,
                                                200), 1.8, L_UNDER, dash=8,
                             tag=f"coherency:range:{u.id}")
            valid = [(lk["a"], lk["b"], math.dist(by_id[lk["a"]].at, by_id[lk["b"]].at))
                     for lk in v.details["links"] if lk["ok"]]
            for a, b in _link_tree(lead.id, valid):
                prims.append(Stroke((by_id[a].at, by_id[b].at), st.COHERENCY_OK, 3.0, L_OVER,
                                    tag=f"coherency:link:{u.id}/{a}-{b}"))
            for f in v.details["failures"]:
                m = by_id[f["model"]]
                prims += outline(m.ellipse.polygon(64).buffer(0.12), st.COHERENCY_BAD, 4.0,
                                 L_OVER, tag=f"coherency:fail:{m.ref}")
                bad = [lk for lk in v.details["links"] if not lk["ok"]
                       and m.id in (lk["a"], lk["b"])]
                if bad:
                    lk = min(bad, key=lambda k: math.dist(by_id[k["a"]].at, by_id[k["b"]].at))
                    prims.append(Stroke((by_id[lk["a"]].at, by_id[lk["b"]].at),
                                        st.COHERENCY_BAD, 2.5, L_OVER, dash=7,
                                        tag=f"coherency:blocked:{u.id}/{lk['a']}-{lk['b']}"))
            info.append(f"Coherency: {v.reason} ({v.rule})")
            info += [f"    {u.id}/{f['model']}: {f['reason']}" for f in v.details["failures"]]
        legend = [LegendEntry("line", st.COHERENCY_OK, "coherency link"),
                  LegendEntry("dash", st.COHERENCY_OK, '3" of the leading model')]
        if any(p.tag.startswith("coherency:fail") for p in prims):
            legend.append(LegendEntry("ring", st.COHERENCY_BAD, "out of coherency"))
        return OverlayLayer(prims, legend, info or ["Coherency: no unit has several models."])


# --------------------------------------------------------------------------- movement

def _ghost(m: Model, at: Point, colour: st.RGBA, tag: str) -> list[Prim]:
    """The base outline at the end of a move or charge."""
    out: list[Prim] = []
    out += outline(m.moved_to(at).ellipse.polygon(64), colour, 2.5, L_OVER, dash=6, tag=tag)
    return out


@dataclass(frozen=True)
class Reach:
    """Where the leading model's centre can end a move (§6, `geom.movement.reach`): a legal
    path no longer than the allowance (default: the unit's Speed) and a legal end."""

    unit: str
    allowance: float | None = None

    def build(self, bf: Battlefield) -> OverlayLayer:
        from geom import movement

        u = bf.unit(self.unit)
        allowance = movement.allowance_of(u) if self.allowance is None else self.allowance
        lead = u.leading_model
        region = movement.reach(bf, u, lead.at, allowance)
        prims: list[Prim] = []
        if not region.is_empty:
            prims.append(Area(region, st.REACH_FILL, L_UNDER, f"reach:{u.id}"))
            prims += outline(region, st.REACH_EDGE, 2.0, L_UNDER, tag=f"reach:{u.id}")
        prims += Highlight((lead,)).build(bf).prims
        how = "flying, point to point" if u.flying else "by legal paths"
        info = [f'Reach of {u.id}: {allowance:g}" {how}; the shaded region is where the centre '
                f"of its leading model {lead.ref} can end (§8.5.3)"
                + ("; nowhere" if region.is_empty else "")]
        return OverlayLayer(prims, [LegendEntry("fill", st.REACH_FILL,
                                                "reach (leader's centre)",
                                                st.REACH_EDGE)], info)


@dataclass(frozen=True)
class Move:
    """The shortest legal path of a leading model to a point, and the engine's verdict."""

    model: Model
    to: Point
    allowance: float | None = None

    def build(self, bf: Battlefield) -> OverlayLayer:
        from geom import movement

        u = bf.unit(self.model.unit)
        chk = movement.check_move(bf, u, self.model, self.to, allowance=self.allowance)
        prims: list[Prim] = []
        colour = st.PATH if chk.verdict.ok else st.SIGHT_BLOCKED
        if chk.path is not None and len(chk.path.points) > 1:
            prims.append(Stroke(tuple(chk.path.points), colour, st.OVERLAY_WIDTH, L_OVER,
                                tag="move:path"))
        prims += _ghost(self.model, self.to, colour, "move:end")
        prims += Highlight((self.model,)).build(bf).prims
        legend = [LegendEntry("line", st.PATH, "leading model's path")] if chk.path else []
        info = [f"Move {self.model.ref} to {self.to[0]:g},{self.to[1]:g}: "
                f"{'LEGAL' if chk.verdict.ok else 'NOT LEGAL'} — {chk.verdict.rule}: "
                f"{chk.verdict.reason}"]
        return OverlayLayer(prims, legend, info)


@dataclass(frozen=True)
class Charge:
    """A charge declaration (§8.7.7, `geom.charge`): the legal charge ends for the leading
    model's centre, the shortest charge path, and — with a roll — the ends that roll reaches."""

    unit: str
    targets: tuple[str, ...]
    roll: int | None = None
    modifier: float = 0.0

    def build(self, bf: Battlefield) -> OverlayLayer:
        from geom import charge as ch
        from geom import movement

        u = bf.unit(self.unit)
        ans = ch.charge(bf, self.unit, list(self.targets), self.modifier)
        lead = u.model(ans.leading) if ans.leading else u.leading_model
        prims: list[Prim] = []
        info = [f"Charge {u.id} → {', '.join(ans.targets)}: "
                f"{'possible' if ans.possible else 'NOT possible'} — {ans.rule}: {ans.reason}"]
        if ans.min_distance is not None:
            info.append(f'Shortest legal charge {ans.min_distance:.3f}"; smallest roll '
                        f"{ans.min_roll if ans.min_roll is not None else 'none'}; "
                        f"probability {ans.probability:.0%} (Speed {ans.speed:g}"
                        + (f", modifier {self.modifier:+g}" if self.modifier else "") + ")")
        legend = []
        targets = [bf.unit(t) for t in ans.targets if bf.unit(t).owner != u.owner]
        if targets and not u.flying:
            er = ch.end_region(bf, u, lead, targets)
            if not er.region.is_empty:
                prims.append(Area(er.region, st.CHARGE_FILL, L_UNDER, "charge:ends"))
                prims += outline(er.region, st.CHARGE_EDGE, 1.6, L_UNDER, dash=6,
                                 tag="charge:ends")
                legend.append(LegendEntry("fill", st.CHARGE_FILL, "legal charge ends (centre)",
                                          st.CHARGE_EDGE))
            if self.roll is not None and ans.speed is not None:
                dist = ans.speed + self.roll + self.modifier
                travel = movement.navigator(bf, u).travel_region(lead.at, dist)
                reached = travel.intersection(er.region) if not er.region.is_empty else travel
                if not travel.is_empty:
                    prims += outline(travel, st.REACH_EDGE, 2.0, L_UNDER, dash=9,
                                     tag="charge:travel")
                if not reached.is_empty:
                    prims.append(Area(reached, st.with_alpha(st.CHARGE_EDGE, 150), L_UNDER,
                                      "charge:reached"))
                ok = ans.min_roll is not None and self.roll >= ans.min_roll
                info.append(f'Roll {self.roll}: charge distance {dist:g}" — '
                            + ("the charge SUCCEEDS" if ok else "the charge FAILS"))
                legend.append(LegendEntry("dash", st.REACH_EDGE, f'reach of {dist:g}"'))
        if ans.path:
            prims.append(Stroke(tuple(ans.path), st.PATH, st.OVERLAY_WIDTH, L_OVER,
                                tag="charge:path"))
            legend.append(LegendEntry("line", st.PATH, "shortest charge path"))
        if ans.end is not None:
            prims += _ghost(lead, ans.end, st.PATH, "charge:end")
        prims += Highlight((lead,)).build(bf).prims
        return OverlayLayer(prims, legend, info)


# --------------------------------------------------------------------------- helpers

@dataclass
class Layers:
    """Overlay layers computed once (a click, not a repaint, pays for the engine's work)."""

    cache: dict[Any, OverlayLayer] = field(default_factory=dict)

    def get(self, bf: Battlefield, ov: Any) -> OverlayLayer:
        key = (id(bf), ov)
        if key not in self.cache:
            if len(self.cache) > 256:
                self.cache.clear()
            self.cache[key] = ov.build(bf)
        return self.cache[key]
