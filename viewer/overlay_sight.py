"""Overlays for what is measured and seen: the tape (§4.1, `geom.distance`), line of sight
(§7.1, `geom.sight`), engagement (§7.2, `geom.engagement`) and blast/flamer templates (§8.7.6,
`geom.templates`). Nothing is decided here: distances, verdicts, witnesses and blocking pieces
all come from the engine."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from shapely.geometry.base import BaseGeometry
from shapely.ops import nearest_points

from geom import engagement, templates
from geom.distance import distance, part_distance, parts
from geom.lines import nearest_points as ellipse_nearest_points
from geom.model import Battlefield, Ellipse, Marker, Model
from geom.sight import line_of_sight

from . import markings as mk
from . import style as st
from .overlay_base import Highlight, Thing, base_ring, dot, label, seg
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

# --------------------------------------------------------------------------- measure


def _part_geom(p: Ellipse | BaseGeometry) -> BaseGeometry:
    return p.polygon(256) if isinstance(p, Ellipse) else p


def closest_points(a: Thing, b: Thing) -> tuple[Point, Point]:
    """Ends of a shortest segment between the two objects (for drawing the tape; the length
    shown is `geom.distance.distance`, exact)."""
    pairs = [(p, q) for p in parts(a) for q in parts(b)]
    p, q = min(pairs, key=lambda pq: part_distance(*pq))
    if isinstance(p, Ellipse) and isinstance(q, Ellipse) and part_distance(p, q) > 0:
        pp, qq = ellipse_nearest_points(p, q)
        return seg(pp, qq)
    na, nb = nearest_points(_part_geom(p), _part_geom(q))
    return seg((na.x, na.y), (nb.x, nb.y))


@dataclass(frozen=True)
class Measure:
    """A tape between two things; ticks every inch from the first end."""

    a: Thing
    b: Thing

    def build(self, bf: Battlefield) -> OverlayLayer:
        d = distance(self.a, self.b)
        p, q = closest_points(self.a, self.b)
        m = mk.TAPE
        prims: list[Prim] = [
            Stroke((p, q), st.TAPE, st.OVERLAY_WIDTH + 1, L_OVER, tag="tape", mark=m),
            Stroke((p, q), st.TAPE_ALT, st.OVERLAY_WIDTH - 1.5, L_OVER, tag="tape", mark=m)]
        length = math.dist(p, q)
        if length > 1e-9:
            ux, uy = (q[0] - p[0]) / length, (q[1] - p[1]) / length
            for k in range(1, int(length) + 1):
                cx, cy = p[0] + ux * k, p[1] + uy * k
                h = 0.3 if k % 6 == 0 else 0.16
                prims.append(Stroke(((cx - uy * h, cy + ux * h), (cx + uy * h, cy - ux * h)),
                                    st.TAPE, 2.0, L_OVER, tag="tape:tick", mark=m))
        for e in (p, q):
            prims.append(dot(e, 0.12, st.TAPE, L_OVER, "tape:end", m))
        mid = ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
        prims.append(Text(mid, f'{d:.2f}"', 16, st.TAPE, L_OVER_TEXT, offset=(0, 16),
                          bold=True, tag="label:tape", mark=m))
        what = "between bases" if not all(isinstance(x, tuple) for x in (self.a, self.b)) \
            else "point to point"
        return OverlayLayer(prims, [], [f'Tape: {label(self.a)} to {label(self.b)}: {d:.3f}" '
                                        f"({what}, shortest distance; §4.1)"])


# --------------------------------------------------------------------------- sight

def sight_verdict(bf: Battlefield, a: Model | Marker, b: Model | Marker) -> Any:
    """The engine's sight verdict for two models, or a model and a marker (§7.1, §8.9.1)."""
    return line_of_sight(bf, a, b)


@dataclass(frozen=True)
class Sight:
    """Line of sight between two models (or a model and a marker): the witness segment in green
    when they see each other, else the blocking pieces in magenta; the rule and reason as text,
    where the engine names the pieces by their titles (the label on the table and the id)."""

    a: Model | Marker
    b: Model | Marker

    def build(self, bf: Battlefield) -> OverlayLayer:
        v = sight_verdict(bf, self.a, self.b)
        prims: list[Prim] = []
        blocking = list((v.details or {}).get("blocking", []) or [])
        pieces = [bf.piece(str(pid)) for pid in blocking if bf.has_piece(str(pid))]
        info = [f"Sight ({v.rule}): {v.reason}"]
        if v.ok and v.witness is not None:
            (x1, y1), (x2, y2) = v.witness[0], v.witness[1]
            for pc in pieces:  # they block for this pair, but the witness passes beside them
                prims += outline(pc.footprint, st.PASSED_BY, 2.5, L_OVER, dash=7,
                                 tag=f"sight:beside:{pc.id}", mark=mk.PASSED_BY)
            prims.append(Stroke(((float(x1), float(y1)), (float(x2), float(y2))),
                                st.SIGHT_CLEAR, st.OVERLAY_WIDTH, L_OVER, tag="sight:witness",
                                mark=mk.SIGHT_LINE))
            for e in ((x1, y1), (x2, y2)):
                prims.append(dot((float(e[0]), float(e[1])), 0.1, st.SIGHT_CLEAR, L_OVER,
                                 "sight:end", mk.SIGHT_LINE))
        else:
            prims.append(Stroke((self.a.at, self.b.at), st.SIGHT_BLOCKED, 2.5, L_OVER,
                                dash=9, tag="sight:blocked", mark=mk.NO_SIGHT))
            for pc in pieces:
                prims.append(Area(pc.footprint, st.BLOCKING_FILL, L_UNDER,
                                  f"sight:blocking:{pc.id}", mk.BLOCKING))
                prims += outline(pc.footprint, st.SIGHT_BLOCKED, 4.0, L_OVER,
                                 tag=f"sight:blocking:{pc.id}", mark=mk.BLOCKING)
        prims += Highlight((self.a, self.b)).build(bf).prims
        return OverlayLayer(prims, [], info)


# --------------------------------------------------------------------------- engagement

def _offset_ring(m: Model, d: float) -> BaseGeometry:
    return m.ellipse.polygon(96).buffer(d, quad_segs=16)


@dataclass(frozen=True)
class Engagement:
    """1" engagement rings around ground models and a segment for every engaged pair (§7.2).
    `units`: limit to these unit ids (None: every unit)."""

    units: tuple[str, ...] | None = None

    def build(self, bf: Battlefield) -> OverlayLayer:
        prims: list[Prim] = []
        chosen = [u for u in bf.units if self.units is None or u.id in self.units]
        for u in chosen:
            if u.flying:
                continue
            for m in u.models:
                prims += outline(_offset_ring(m, engagement.ENGAGEMENT_RANGE),
                                 st.with_alpha(st.ENGAGEMENT, 170), 1.6, L_UNDER, dash=6,
                                 tag=f"engagement:ring:{m.ref}", mark=mk.ENGAGEMENT_RANGE)
        info: list[str] = []
        seen: set[tuple[str, ...]] = set()
        for u in chosen:
            for v in bf.units:
                key = tuple(sorted((u.id, v.id)))
                if u.owner == v.owner or key in seen:
                    continue
                seen.add(key)
                pairs = engagement.engaged_pairs(bf, u.models, v.models)
                prims += engaged_pair_prims(pairs)
                if pairs:
                    info.append(f"Engaged: {u.id} and {v.id} ({len(pairs)} pair"
                                f"{'s' if len(pairs) != 1 else ''}; §7.2)")
        if not info:
            info.append("Engagement: no units are engaged (§7.2).")
        return OverlayLayer(prims, [], info)


def engaged_pair_prims(pairs: Any) -> list[Prim]:
    """The engine's witness segment of each engaged pair (a dot where the bases touch)."""
    prims: list[Prim] = []
    for pr in pairs:
        w = pr.verdict.witness
        if w is None:
            continue
        a, b = seg(w[0], w[1])
        if math.dist(a, b) < 1e-6:
            prims.append(dot(a, 0.12, st.ENGAGEMENT, L_OVER, "engagement:pair",
                             mk.ENGAGED_PAIR))
        else:
            prims.append(Stroke((a, b), st.ENGAGEMENT, st.OVERLAY_WIDTH + 1, L_OVER,
                                tag="engagement:pair", mark=mk.ENGAGED_PAIR))
    return prims


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
        shape = self.shape or templates.default_shape(self.kind)
        res = templates.resolve(bf, self.kind, shape, self.attacker, target=self.target, at=self.at,
                        target_type=self.target_type)
        tpl = res.template
        area = mk.TEMPLATE.variant(f"{self.kind} template")
        prims: list[Prim] = [Area(tpl.polygon, st.TEMPLATE_FILL, L_UNDER, "template:area", area)]
        prims += outline(tpl.polygon, st.TEMPLATE_EDGE, 3.0, L_OVER, tag="template:edge",
                         mark=area)
        prims.append(dot(tpl.target_point, 0.1, st.TEMPLATE_EDGE, L_OVER, "template:point", area))
        by_ref = {m.ref: m for m in bf.models()}
        for c in res.checks:
            m = by_ref.get(str(c.details.get("model")))
            if m is None:
                continue
            if c.ok:
                prims += base_ring(m, 0.1, st.TEMPLATE_HIT, 4.0, f"template:hit:{m.ref}",
                                   mk.TEMPLATE_HIT)
            else:
                prims += base_ring(m, 0.1, st.NOT_AFFECTED, 2.0, f"template:miss:{m.ref}",
                                   mk.TEMPLATE_MISS, dash=5)
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
        return OverlayLayer(prims, [], info)
