"""Which models a template hits: main target and spillover (rulebook §8.7.6 steps 2–5 template
weapons, §12.8 summary table, FAQ v1.1 "템플릿과 파급"). Shapes are data
(`geom.templates._shapes`), placement is `geom.templates._placement`; this module resolves an attack.

A model is *affected* when all of these hold:

1. its base is at least partly under the template (`PlacedTemplate.covers`, exact);
2. it is a valid target type: ground-only templates never affect FLYING models, air-only ones never
   affect ground models;
3. it is at the target point's elevation (ground, mid, high). Flying models are at no elevation for
   templates (§8.7.6 step 1) unless the weapon targets All/Air: then they are at the "flying"
   elevation, which a template placed on a flying model uses. In the FAQ case a flying model is at
   the elevation of its actual base (the stand's foot);
4. some straight line from the target model's base (BT; the target point in the FAQ case) or the
   attacker's base (FT) to its base is not stopped by terrain of Size 2+. Exact, by
   `geom.lines._segments.find_clear_segment`; the segment is the witness. **Decisions** (docs/rules.md#template-lines): which pieces are "Size 2+" follows `geom.engagement.blocking_pieces` (height of
   2 or more above the lower of the two standing surfaces; the tops the two models stand on, and
   what is under them, never block; grass blocks); pieces that touch are joined first, as for sight
   and engagement (`geom.lines._seams`), so no line slips through the seam between two wall sections;
   openings do NOT let the line through (§12.8 calls this a sight check, and openings block sight,
   §7.1); a template at the flying elevation is above every piece (§7.1.4), so nothing blocks.

Main target and spillover (§8.7.6 steps 2, 4, 5): the target unit's affected models are the main
target, whose surge result equals their number; every other unit (friend or foe) with affected models
that shares at least one combat tag with the main target unit is a spillover batch (no surge). In the
FAQ case the target point has no tags, so the tag condition is waived and every affected unit is
spillover (the main target is the point: no models, surge 0).

>>> from geom.model import Base, Battlefield, Model, Table, Unit
>>> from geom.templates import make_shape
>>> B = Base.from_mm(32)
>>> def m(mid, unit, owner, x): return Model.make(mid, unit=unit, owner=owner, at=(x, 10.0),
...                                              base=B, size=1)
>>> a, t, u = m("a", "atk", "red", 2.0), m("t", "tgt", "blue", 10.0), m("u", "tgt", "blue", 11.3)
>>> units = (Unit("atk", "red", 1, (a,), B), Unit("tgt", "blue", 1, (t, u), B))
>>> bf = Battlefield(Table(54, 36), (), units)
>>> res = resolve(bf, BLAST, make_shape(BLAST, {"diameter": 3.0}, "example"), a, target=t)
>>> res.main.models, res.surge
(('t', 'u'), 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import shapely

from ..elevation import AIR, elevation_level
from ..engagement import blocking_pieces
from ..errors import TmgError
from ..lines import find_clear_segment
from ..lines import line_obstacles as seams_closed
from ..model import Base, Battlefield, Model, Point, TerrainPiece, Unit
from ..verdict import Verdict
from ._placement import PlacedTemplate, place_blast, place_flamer
from ._shapes import BLAST, FLAMER, TemplateShape, check_kind

TARGET_TYPES = ("ground", "air", "all")

RULE = "8.7.6 template weapons"
RULE_PLACE = "8.7.6 step 1 alignment"
RULE_TARGET = "8.7.6 step 2 declaring targets"
RULE_HIT = "8.7.6 step 3 determining hits"
RULE_FAQ = "FAQ v1.1 templates and spillover"

#: a zero-size base for the FAQ target point (lines are drawn from the point itself)
_POINT_RADIUS = 1e-9


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

    return blocking_pieces(bf, _grounded(origin), _grounded(model), reach=math.inf)


def _grounded(m: Model) -> Model:
    # A flying model's stand foot is its base (§2.3); where a template reaches it at a terrain
    # elevation (FAQ case) the foot's surface is what it stands on.
    return replace(m, flying=False) if m.flying else m


def clear_line(bf: Battlefield, origin: Model, model: Model, elevation: str | None
               ) -> tuple[tuple[Point, Point] | None, list[str]]:
    """A segment from origin's base to model's base not stopped by Size-2+ terrain (the witness),
    or None and the ids of the pieces in the way."""
    if origin.unit == model.unit and origin.id == model.id:
        return (origin.at, origin.at), []
    if elevation == AIR:
        return (origin.at, model.at), []
    pieces = line_obstacles(bf, origin, model)
    hull = shapely.union_all([origin.ellipse.polygon(64, outer=True),
                              model.ellipse.polygon(64, outer=True)]).convex_hull
    near = [p for p in pieces if shapely.intersects(p.footprint, hull)]
    seg = find_clear_segment(origin.ellipse, model.ellipse,
                             seams_closed([p.footprint for p in near]))
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

    Parameters
    ----------
    bf : Battlefield
        The table.
    kind : str
        "blast" or "flamer".
    shape : TemplateShape
        The template's size (`make_shape`).
    attacker : Model
        The attacking model (a flamer is aligned from its base).
    target : Model, optional
        A model of the main target unit (the blast's centre, the flamer's aim).
    at : tuple of float, optional
        The target point instead of a target model (FAQ).
    target_type : str, optional
        "ground", "air" or "all".

    Returns
    -------
    TemplateResult
        `main` (the main target's affected models) and `spillover` (other units' batches),
        `surge`, `placement` (the Verdict on where the template goes) and `checks`: one Verdict
        per model under the template, saying whether it is affected and why.

    Raises
    ------
    TmgError
        Neither or both of `target` and `at`, an unknown kind or target type, or the attacker
        as its own target.

    Examples
    --------
    A 6" blast on b/1 covers all of unit b, but b/3 is behind the Size-3 wall:

    >>> from shapely.geometry import box
    >>> from geom import Base, Battlefield, Model, Table, TerrainPiece, Unit, make_shape, resolve
    >>> base = Base.from_mm(32)
    >>> a = Model.make("1", unit="a", owner="red", at=(4, 10), base=base, size=1)
    >>> b = tuple(Model.make(i, unit="b", owner="blue", at=(x, 4), base=base, size=1)
    ...           for i, x in (("1", 13.7), ("2", 15), ("3", 10.3)))
    >>> bf = Battlefield(Table(24, 12), (TerrainPiece("wall", 3, box(11, 0, 13, 8)),),
    ...                  (Unit("a", "red", 1, (a,), base), Unit("b", "blue", 1, b, base)))
    >>> r = resolve(bf, "blast", make_shape("blast", {"diameter": 6}, "example"), a, target=b[0])
    >>> r.main.models, r.surge
    (('1', '2'), 2)
    >>> print(r.checks[2].rule, "-", r.checks[2].reason)
    8.7.6 step 3 determining hits - b/3 is under the template but every line from the target model's base to its base is stopped by Size-2+ terrain (terrain/wall)
    """
    check_kind(kind)
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
                       f"is stopped by Size-2+ terrain "
                       f"({', '.join(bf.piece(pid).title for pid in blocking)})",
                       details={**det, "test": "line", "blocking": blocking})
    return Verdict(True, RULE_HIT,
                   f"{m.ref} is under the template, at {elevation} elevation, with a clear line "
                   f"from {frm}", witness=[list(seg[0]), list(seg[1])],
                   details={**det, "test": "affected"})

