"""Blast and flamer templates: where they are placed and which models they hit.

Implements GEOMETRY-RULES §10 (rulebook §8.7.6 template weapons, §12.8 summary table, FAQ v1.1
"템플릿과 파급").

**Template sizes are PROVISIONAL.** The rulebook's drawings of the templates did not survive and no
public source gives their dimensions, so the shapes live in `geom/data/templates.json` with a
placeholder default marked provisional there; every answer that used a placeholder says so
(`TemplateShape.provisional`). Callers give the real sizes with `make_shape` / `shapes_from_table`.

Placement (§8.7.6 step 1):

- Blast (BT): a disc centred on the target point, the centre of the target model's base. Centring
  covers as much of the base as possible, for discs and ovals alike: the covered area as a function
  of the template's centre p is the convolution f(p) = (1_base * 1_disc)(p) of two indicators of
  convex sets symmetric about the base centre; such a convolution is log-concave (Prékopa) and even,
  so f(0) ≥ √(f(p)·f(−p)) = f(p) (Anderson's theorem). `tests/test_templates.py` checks it
  numerically on ovals too.
- Flamer (FT): the axis runs from the attacker's base centre through the target point; the template
  is slid along it until it touches the attacker's base edge without overlapping it. **Decision:**
  for a disc the contact is the middle of the narrow end; for an oval set at an angle the contact
  can fall off the middle (or, for a narrow end much smaller than the oval, on a side), the position
  nearest the attacker that does not overlap its base. Computed in closed form (`_flamer_offset`).
- FAQ (no target model, e.g. Psionic Storm): the point under the template's centre is the target
  point; a blast is centred on it, a flamer points at it.

Coverage (§8.7.6 step 3) — a model is *affected* when all of these hold:

1. its base is at least partly under the template. Exact (closed form for the disc template,
   `geom.bases.geometry_meets` on the exact ellipse for the flamer polygon); a sliver counts, a base
   that only touches the template's edge (overlap ≤ 1e-6") does not;
2. it is a valid target type: ground-only templates never affect FLYING models, air-only ones never
   affect ground models;
3. it is at the target point's elevation (ground, mid, high). Flying models are at no elevation for
   templates (§8.7.6 step 1) unless the weapon targets All/Air: then they are at the "flying"
   elevation, which a template placed on a flying model uses. In the FAQ case a flying model is at
   the elevation of its actual base (the stand's foot);
4. some straight line from the target model's base (BT; the target point in the FAQ case) or the
   attacker's base (FT) to its base is not stopped by terrain of Size 2+. Exact, by
   `geom.segments.find_clear_segment`; the segment is the witness. **Decisions:** which pieces are
   "Size 2+" follows `geom.engagement.blocking_pieces` (height of 2 or more above the lower of the two
   standing surfaces; the tops the two models stand on, and what is under them, never block; grass
   blocks); openings do NOT let the line through (§12.8 calls this a sight check, and openings block
   sight, §7.1); a template at the flying elevation is above every piece (§7.1.4), so nothing blocks.

Main target and spillover (§8.7.6 steps 2, 4, 5): the target unit's affected models are the main
target, whose surge result equals their number; every other unit (friend or foe) with affected models
that shares at least one combat tag with the main target unit is a spillover batch (no surge). In the
FAQ case the target point has no tags, so the tag condition is waived and every affected unit is
spillover (the main target is the point: no models, surge 0).

>>> shape = make_shape("blast", {"diameter": 3.0}, "example")
>>> t = place_blast(shape, (10.0, 10.0))
>>> from geom.model import Ellipse
>>> t.covers(Ellipse(12.0, 10.0, 0.6, 0.6)), t.covers(Ellipse(12.1, 10.0, 0.6, 0.6))
(True, False)
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Polygon

from . import bases
from .elevation import AIR, GROUND, elevation_level
from .errors import TmgError
from .model import TOLERANCE, Base, Battlefield, Ellipse, Model, Point, TerrainPiece, Unit
from .verdict import Verdict

BLAST, FLAMER = "blast", "flamer"
KINDS = (BLAST, FLAMER)
TARGET_TYPES = ("ground", "air", "all")
DIMENSIONS: dict[str, tuple[str, ...]] = {BLAST: ("diameter",), FLAMER: ("length", "narrow", "wide")}
DATA_FILE = "geom/data/templates.json"
PROVISIONAL_SOURCE = f"PROVISIONAL default ({DATA_FILE}): no public source gives this size"

RULE = "8.7.6 template weapons"
RULE_PLACE = "8.7.6 step 1 alignment"
RULE_TARGET = "8.7.6 step 2 declaring targets"
RULE_HIT = "8.7.6 step 3 determining hits"
RULE_FAQ = "FAQ v1.1 templates and spillover"

#: a zero-size base for the FAQ target point (lines are drawn from the point itself)
_POINT_RADIUS = 1e-9


# --------------------------------------------------------------------------- shapes (data)


@cache
def _data() -> dict[str, Any]:
    # Next to this module rather than importlib.resources: an editable install made before
    # geom/__init__.py existed maps `geom` as a namespace package, which resources cannot read.
    path = Path(__file__).resolve().parent / "data" / "templates.json"
    try:
        doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TmgError(f"cannot read the template shapes: {exc}", file=DATA_FILE) from None
    return doc


@dataclass(frozen=True)
class TemplateShape:
    """A template's dimensions in inches and where each came from.

    Blast: `diameter` of a disc. Flamer: an isosceles trapezoid `length` long along its axis,
    `narrow` wide at the end that touches the attacker (0 = a point) and `wide` at the far end.
    `sources` maps each dimension to its origin; a dimension still at the data file's placeholder
    has `PROVISIONAL_SOURCE`.
    """

    kind: str
    dims: tuple[tuple[str, float], ...]
    sources: tuple[tuple[str, str], ...]

    def __getitem__(self, name: str) -> float:
        return dict(self.dims)[name]

    @property
    def provisional(self) -> bool:
        return any(src == PROVISIONAL_SOURCE for _, src in self.sources)

    @property
    def provisional_dimensions(self) -> list[str]:
        return [k for k, src in self.sources if src == PROVISIONAL_SOURCE]

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind,
                               "shape": "disc" if self.kind == BLAST else "trapezoid"}
        out.update(dict(self.dims))
        out["sources"] = dict(self.sources)
        out["provisional"] = self.provisional
        if self.provisional:
            out["warning"] = (f"PROVISIONAL {self.kind} template size "
                              f"({', '.join(self.provisional_dimensions)}): a placeholder, not an "
                              "official figure; give the real size on the command line or in the "
                              "scenario's [templates] table")
        return out

    def describe(self) -> str:
        dims = ", ".join(f'{k} {v:g}"' for k, v in self.dims)
        tag = " — PROVISIONAL size, not official" if self.provisional else ""
        return f"{self.kind} template ({dims}){tag}"


def default_shape(kind: str) -> TemplateShape:
    """The data file's shape for `kind` (placeholders carry PROVISIONAL_SOURCE)."""
    _check_kind(kind)
    entry = _data()["templates"][kind]
    src = PROVISIONAL_SOURCE if entry.get("provisional", True) else str(entry["source"])
    dims = tuple((k, float(entry[k])) for k in DIMENSIONS[kind])
    shape = TemplateShape(kind, dims, tuple((k, src) for k in DIMENSIONS[kind]))
    _validate(shape, file=DATA_FILE, obj=f"templates.{kind}")
    return shape


def make_shape(kind: str, values: Mapping[str, float | None], source: str,
               base: TemplateShape | None = None, *, file: str | None = None,
               obj: str | None = None) -> TemplateShape:
    """`base` (default: the data file's shape) with the given dimensions replaced; None values
    keep the base's. Raises TmgError naming `file`/`obj`/the field for a bad dimension."""
    _check_kind(kind)
    base = base or default_shape(kind)
    dims, sources = dict(base.dims), dict(base.sources)
    for k, v in values.items():
        if k not in DIMENSIONS[kind]:
            raise TmgError(f"a {kind} template has no dimension {k!r} (it has "
                           f"{', '.join(DIMENSIONS[kind])})", file=file, obj=obj, field=k)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise TmgError(f"expected a number of inches, got {v!r}", file=file, obj=obj, field=k)
        dims[k], sources[k] = float(v), source
    shape = TemplateShape(kind, tuple((k, dims[k]) for k in DIMENSIONS[kind]),
                          tuple((k, sources[k]) for k in DIMENSIONS[kind]))
    _validate(shape, file=file, obj=obj)
    return shape


def shapes_from_table(raw: Any, file: str | None = None) -> dict[str, TemplateShape]:
    """Parse a scenario's `[templates]` table: `[templates.blast] diameter = D` and/or
    `[templates.flamer] length = L, narrow = N, wide = W` (any subset; the rest stays at the
    default). Returns a shape for both kinds."""
    if not isinstance(raw, Mapping):
        raise TmgError("expected a table with 'blast' and/or 'flamer'", file=file,
                       obj="templates")
    for k in raw:
        if k not in KINDS:
            raise TmgError(f"unknown template {k!r} (expected blast or flamer)", file=file,
                           obj="templates", field=str(k))
    out = {}
    for kind in KINDS:
        entry = raw.get(kind, {})
        obj = f"templates.{kind}"
        if not isinstance(entry, Mapping):
            raise TmgError("expected a table of dimensions", file=file, obj=obj)
        out[kind] = make_shape(kind, dict(entry), "scenario", file=file, obj=obj)
    return out


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise TmgError(f"unknown template kind {kind!r} (expected blast or flamer)")


def _validate(shape: TemplateShape, *, file: str | None, obj: str | None) -> None:
    d = dict(shape.dims)
    if shape.kind == BLAST:
        if not d["diameter"] > 0:
            raise TmgError("must be positive", file=file, obj=obj, field="diameter")
        return
    if not d["length"] > 0:
        raise TmgError("must be positive", file=file, obj=obj, field="length")
    if not d["narrow"] >= 0:
        raise TmgError("must be 0 or more", file=file, obj=obj, field="narrow")
    if not d["wide"] > 0:
        raise TmgError("must be positive", file=file, obj=obj, field="wide")
    if d["wide"] < d["narrow"]:
        raise TmgError(f"the wide end ({d['wide']:g}) is narrower than the narrow end "
                       f"({d['narrow']:g})", file=file, obj=obj, field="wide")


# --------------------------------------------------------------------------- placement


@dataclass(frozen=True)
class PlacedTemplate:
    """A template on the table. Blast: a disc centred on `target_point`. Flamer: the polygon
    `corners` (narrow end first), touching the attacker's base at `contact`."""

    kind: str
    shape: TemplateShape
    target_point: Point
    corners: tuple[Point, ...] = ()
    contact: Point | None = None

    @property
    def centre(self) -> Point:
        """The point under the template's centre (blast) / its centroid (flamer)."""
        if self.kind == BLAST:
            return self.target_point
        c = self.polygon.centroid
        return (c.x, c.y)

    @property
    def radius(self) -> float:
        return self.shape["diameter"] / 2 if self.kind == BLAST else math.nan

    @cached_property
    def polygon(self) -> Polygon:
        """Exact for the flamer; for the blast a circumscribed 128-gon (for drawing only —
        coverage uses the exact circle)."""
        if self.kind == FLAMER:
            return Polygon(self.corners)
        e = Ellipse(self.target_point[0], self.target_point[1], self.radius, self.radius)
        return e.polygon(128, outer=True)

    @cached_property
    def _eroded(self) -> Polygon:
        # A convex polygon shrunk with mitred joins is exactly its edges moved inwards.
        g = self.polygon.buffer(-TOLERANCE, join_style="mitre")
        shapely.prepare(g)
        return g  # type: ignore[no-any-return]

    def covers(self, e: Ellipse) -> bool:
        """Is some part of the base under the template (overlap deeper than 1e-6")?"""
        if self.kind == BLAST:
            return float(bases.point_distance(e, self.target_point)[0]) <= \
                self.radius - TOLERANCE
        if self._eroded.is_empty:
            return False
        return bases.geometry_meets(e, self._eroded)

    def outline(self) -> list[list[float]]:
        return [[float(x), float(y)] for x, y in self.polygon.exterior.coords[:-1]]

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.kind == BLAST:
            out["circle"] = {"center": list(self.target_point), "radius": self.radius}
            out["polygon_note"] = "circumscribed 128-gon for drawing; coverage uses the circle"
        else:
            out["contact"] = list(self.contact) if self.contact else None
        return out


def place_blast(shape: TemplateShape, target_point: Point) -> PlacedTemplate:
    """§8.7.6 step 1: the blast disc centred on the target point (see the module docstring for why
    that covers as much of the target's base as possible)."""
    if shape.kind != BLAST:
        raise TmgError(f"place_blast needs a blast shape, got {shape.kind}")
    return PlacedTemplate(BLAST, shape, (float(target_point[0]), float(target_point[1])))


def _support(e: Ellipse, q: np.ndarray) -> np.ndarray:
    """The point of the base maximising p·q (q ≠ 0)."""
    c, s = math.cos(e.theta), math.sin(e.theta)
    m = np.array([[c * e.a, -s * e.b], [s * e.a, c * e.b]])
    w = m.T @ q
    return np.array(e.centre) + m @ (w / np.hypot(w[0], w[1]))


def _chord_ends(e: Ellipse, n: np.ndarray, s: float) -> list[np.ndarray]:
    """Rim points p with (p − centre)·n = s."""
    c, sn = math.cos(e.theta), math.sin(e.theta)
    m = np.array([[c * e.a, -sn * e.b], [sn * e.a, c * e.b]])
    w = m.T @ n
    rho = float(np.hypot(w[0], w[1]))
    if abs(s) > rho:
        return []
    phi, off = math.atan2(w[1], w[0]), math.acos(max(-1.0, min(1.0, s / rho)))
    return [np.array(e.centre) + m @ np.array([math.cos(t), math.sin(t)])
            for t in (phi + off, phi - off)]


def _flamer_offset(e: Ellipse, d: np.ndarray, narrow: float, wide: float,
                   length: float) -> tuple[float, np.ndarray]:
    """How far along the unit axis d (from the base centre) the narrow end must sit so that the
    template touches the base without overlapping it, and the contact point.

    A base point at axial offset u and lateral offset v lies in the template whose narrow end is at
    offset t iff t ≤ g(u, v) = u − max(0, |v| − narrow/2)/k, with k = (wide − narrow)/(2·length)
    the sides' spread (ignoring the far end, which is beyond any base). The answer is max g over
    the base; g is concave and piecewise linear, so its maximum is one of: the support point in
    direction d if it lies in the narrow end's strip; the ends of the chords |v| = narrow/2; the
    support point in direction d ∓ n/k if it lies beyond the matching chord. All closed form."""
    n = np.array([-d[1], d[0]])
    c = np.array(e.centre)
    half = narrow / 2
    k = (wide - narrow) / (2 * length)
    cands: list[tuple[float, np.ndarray]] = []
    p = _support(e, d)
    if abs(float((p - c) @ n)) <= half + 1e-15:
        cands.append((float((p - c) @ d), p))
    for s in (half, -half):
        for q in _chord_ends(e, n, s):
            cands.append((float((q - c) @ d), q))
    if k > 0:
        for sign in (1.0, -1.0):
            q = _support(e, d - sign * n / k)
            v = sign * float((q - c) @ n)
            if v >= half:
                cands.append((float((q - c) @ d) - (v - half) / k, q))
    t, contact = max(cands, key=lambda tc: tc[0])
    return t, contact


def place_flamer(shape: TemplateShape, attacker: Ellipse, target_point: Point) -> PlacedTemplate:
    """§8.7.6 step 1: narrow end against the attacker's base, pointing at the target point."""
    if shape.kind != FLAMER:
        raise TmgError(f"place_flamer needs a flamer shape, got {shape.kind}")
    if float(bases.point_distance(attacker, target_point)[0]) <= TOLERANCE:
        raise TmgError("the target point is on the attacker's own base; a flamer template "
                       "cannot point at it")
    c = np.array(attacker.centre)
    d = np.array(target_point, dtype=float) - c
    d /= np.hypot(d[0], d[1])
    n = np.array([-d[1], d[0]])
    length, narrow, wide = shape["length"], shape["narrow"], shape["wide"]
    t, contact = _flamer_offset(attacker, d, narrow, wide, length)
    q = c + t * d
    far = q + length * d
    pts = [q - narrow / 2 * n, far - wide / 2 * n, far + wide / 2 * n, q + narrow / 2 * n]
    if narrow == 0:
        pts = pts[:3]
    corners = tuple((float(x), float(y)) for x, y in pts)
    return PlacedTemplate(FLAMER, shape, (float(target_point[0]), float(target_point[1])),
                          corners, (float(contact[0]), float(contact[1])))


# --------------------------------------------------------------------------- coverage


@dataclass(frozen=True)
class Batch:
    """A unit's affected models: the main target or one spillover batch (§8.7.6 step 4)."""

    unit: str | None
    models: tuple[str, ...]
    owner: str | None = None

    @property
    def count(self) -> int:
        return len(self.models)


@dataclass(frozen=True)
class TemplateResult:
    """Everything §8.7.6 decides geometrically for one template attack."""

    template: PlacedTemplate
    target_type: str
    elevation: str | None
    main: Batch
    spillover: tuple[Batch, ...]
    placement: Verdict
    checks: tuple[Verdict, ...] = field(default_factory=tuple)
    attacker: Model | None = None
    target: Model | None = None
    faq: bool = False

    @property
    def surge(self) -> int:
        """§8.7.6 step 5: the main target's surge result = its affected models."""
        return self.main.count

    @property
    def provisional(self) -> bool:
        return self.template.shape.provisional

    @property
    def affected(self) -> list[str]:
        return [c.details["model"] for c in self.checks if c.ok]


def valid_target_type(model: Model, target_type: str) -> bool:
    """Ground-only weapons never affect FLYING models; air-only ones never affect ground ones."""
    if target_type == "all":
        return True
    return model.flying == (target_type == "air")


def template_elevation(bf: Battlefield, model: Model, target_type: str,
                       faq: bool = False) -> str | None:
    """A model's elevation for templates (§8.7.6 step 1, FAQ): ground/mid/high; a flying model is
    at none (None) unless the weapon targets All/Air ("flying"), or, in the FAQ no-target case,
    at the elevation of its actual base."""
    if model.flying:
        if faq:
            return elevation_level(bf, replace(model, flying=False))
        return AIR if target_type in ("air", "all") else None
    return elevation_level(bf, model)


def _point_model(pt: Point) -> Model:
    return Model.make("target point", unit="target point", owner="none", at=pt,
                      base=Base(2 * _POINT_RADIUS, 2 * _POINT_RADIUS), size=0)


def point_elevation(bf: Battlefield, pt: Point) -> str:
    """Elevation of a point: the top of the highest standable piece containing it, else ground."""
    return elevation_level(bf, _point_model(pt))


def line_obstacles(bf: Battlefield, origin: Model, model: Model) -> list[TerrainPiece]:
    """Pieces that can stop the line from `origin`'s base to `model`'s base (see the module
    docstring: the engagement module's "Size 2+" decision, with no reach limit)."""
    from .engagement import blocking_pieces

    return blocking_pieces(bf, _grounded(origin), _grounded(model), reach=math.inf)


def _grounded(m: Model) -> Model:
    # A flying model's stand foot is its base (§2.3); where a template reaches it at a terrain
    # elevation (FAQ case) the foot's surface is what it stands on.
    return replace(m, flying=False) if m.flying else m


def clear_line(bf: Battlefield, origin: Model, model: Model, elevation: str | None
               ) -> tuple[tuple[Point, Point] | None, list[str]]:
    """A segment from origin's base to model's base not stopped by Size-2+ terrain (the witness),
    or None and the ids of the pieces in the way."""
    from .segments import find_clear_segment

    if origin.unit == model.unit and origin.id == model.id:
        return (origin.at, origin.at), []
    if elevation == AIR:
        return (origin.at, model.at), []
    pieces = line_obstacles(bf, origin, model)
    hull = shapely.union_all([origin.ellipse.polygon(64, outer=True),
                              model.ellipse.polygon(64, outer=True)]).convex_hull
    near = [p for p in pieces if shapely.intersects(p.footprint, hull)]
    seg = find_clear_segment(origin.ellipse, model.ellipse, [p.footprint for p in near])
    if seg is not None:
        (x0, y0), (x1, y1) = seg
        return ((float(x0), float(y0)), (float(x1), float(y1))), []
    return None, [p.id for p in near]


def resolve(bf: Battlefield, kind: str, shape: TemplateShape, attacker: Model,
            target: Model | None = None, at: Point | None = None,
            target_type: str | None = None) -> TemplateResult:
    """Place a template and decide which models it affects (§8.7.6, FAQ).

    Give `target` (a model of the main target unit) or `at` (FAQ: a template ability without a
    target model; the point under the template's centre). `target_type` is the weapon's
    ground|air|all; default ground with a target model, all in the FAQ case (the FAQ has such
    abilities reach flying units at their bases' elevation).
    """
    _check_kind(kind)
    if (target is None) == (at is None):
        raise TmgError("give exactly one of a target model or a target point (--at)")
    faq = target is None
    if target_type is None:
        target_type = "all" if faq else "ground"
    if target_type not in TARGET_TYPES:
        raise TmgError(f"target type must be ground, air or all, got {target_type!r}")
    if target is not None and target.unit == attacker.unit and target.id == attacker.id:
        raise TmgError(f"{attacker.ref} cannot be its own target")

    if target is not None:
        point: Point = target.at
    else:
        assert at is not None
        point = (float(at[0]), float(at[1]))
    if kind == BLAST:
        tpl = place_blast(shape, point)
    else:
        tpl = place_flamer(shape, attacker.ellipse, point)

    if target is not None:
        elevation = template_elevation(bf, target, target_type)
        placement = _placement_verdict(bf, attacker, target, target_type, elevation)
        origin = target if kind == BLAST else attacker
        target_unit: Unit | None = bf.unit(target.unit)
    else:
        elevation = point_elevation(bf, point)
        placement = Verdict(True, RULE_FAQ,
                            f"no target model: the point {point[0]:g},{point[1]:g} under the "
                            "template's centre is the target point and main target; it has no "
                            "combat tags, so spillover needs none in common",
                            witness=list(point))
        origin = _point_model(point) if kind == BLAST else attacker
        target_unit = None

    checks: list[Verdict] = []
    by_unit: dict[str, list[str]] = {}
    if elevation is not None:
        for m in bf.models():
            if not tpl.covers(m.ellipse):
                continue
            v = _check_model(bf, tpl, m, origin, elevation, target_type, faq)
            if v.ok and target_unit is not None and m.unit != target_unit.id:
                shared = set(bf.unit(m.unit).tags) & set(target_unit.tags)
                if not shared:
                    v = Verdict(False, RULE_TARGET,
                                f"{m.ref} is under the template but its unit shares no combat tag "
                                f"with the main target {target_unit.id!r}",
                                witness=v.witness, details={**v.details, "test": "tags"})
            checks.append(v)
            if v.ok:
                by_unit.setdefault(m.unit, []).append(m.id)

    if target_unit is not None:
        main = Batch(target_unit.id, tuple(by_unit.get(target_unit.id, ())), target_unit.owner)
    else:
        main = Batch(None, ())
    spill = tuple(Batch(u.id, tuple(by_unit[u.id]), u.owner) for u in bf.units
                  if u.id in by_unit and (target_unit is None or u.id != target_unit.id))
    return TemplateResult(tpl, target_type, elevation, main, spill, placement, tuple(checks),
                          attacker, target, faq)


def _placement_verdict(bf: Battlefield, attacker: Model, target: Model, target_type: str,
                       elevation: str | None) -> Verdict:
    if attacker.owner == target.owner:
        return Verdict(False, RULE_TARGET,
                       f"{target.ref} is on the attacker's side ({attacker.owner}); the main "
                       "target must be an enemy unit", witness=list(target.at))
    if not valid_target_type(target, target_type):
        what = "a flying" if target.flying else "a ground"
        return Verdict(False, RULE_HIT,
                       f"a {target_type}-only template cannot target {what} model ({target.ref})",
                       witness=list(target.at))
    if elevation is None:  # pragma: no cover - a flying target with a ground weapon fails above
        return Verdict(False, RULE_PLACE, "the template is at no elevation",
                       witness=list(target.at))
    return Verdict(True, RULE_PLACE,
                   f"target point {target.at[0]:g},{target.at[1]:g} (centre of {target.ref}'s "
                   f"base) at {elevation} elevation", witness=list(target.at))


def _check_model(bf: Battlefield, tpl: PlacedTemplate, m: Model, origin: Model, elevation: str,
                 target_type: str, faq: bool) -> Verdict:
    det: dict[str, Any] = {"model": m.ref, "unit": m.unit}
    if not valid_target_type(m, target_type):
        return Verdict(False, RULE_HIT,
                       f"{m.ref} is under the template but a {target_type}-only template does not "
                       f"affect {'flying' if m.flying else 'ground'} models",
                       details={**det, "test": "target type"})
    lvl = template_elevation(bf, m, target_type, faq)
    det["elevation"] = lvl
    if lvl != elevation:
        where = "no elevation (flying models are at none for templates)" if lvl is None else \
            f"{lvl} elevation"
        return Verdict(False, RULE_HIT,
                       f"{m.ref} is under the template but at {where}, not the target point's "
                       f"{elevation} elevation", details={**det, "test": "elevation"})
    seg, blocking = clear_line(bf, origin, m, elevation)
    frm = "the attacker's base" if tpl.kind == FLAMER else (
        "the target point" if faq else "the target model's base")
    if seg is None:
        return Verdict(False, RULE_HIT,
                       f"{m.ref} is under the template but every line from {frm} to its base "
                       f"is stopped by Size-2+ terrain ({', '.join(blocking)})",
                       details={**det, "test": "line", "blocking": blocking})
    return Verdict(True, RULE_HIT,
                   f"{m.ref} is under the template, at {elevation} elevation, with a clear line "
                   f"from {frm}", witness=[list(seg[0]), list(seg[1])],
                   details={**det, "test": "affected"})


def covered_models(tpl: PlacedTemplate, models: Sequence[Model]) -> list[Model]:
    """The models whose bases are at least partly under the template (condition 1 only)."""
    return [m for m in models if tpl.covers(m.ellipse)]


__all__ = [
    "BLAST", "FLAMER", "GROUND", "KINDS", "TARGET_TYPES", "Batch", "PlacedTemplate",
    "TemplateResult", "TemplateShape", "clear_line", "covered_models", "default_shape",
    "line_obstacles", "make_shape", "place_blast", "place_flamer", "point_elevation", "resolve",
    "shapes_from_table", "template_elevation", "valid_target_type",
]
