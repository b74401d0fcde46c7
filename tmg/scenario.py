"""Scenario files (INTERFACE.md): TOML or JSON in, a validated `geom.model.Battlefield` out.

Every problem ends as one `ScenarioError` naming the file, the object and the field; nothing is
guessed. Layout and deployment names are resolved through `maps`, whose pieces a scenario's own
`[[terrain]]` entries add to or replace (same id), and whose markers `[[marker]]` entries replace.
"""

from __future__ import annotations

import json
import math
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import shapely
from shapely.geometry import Point as SPoint
from shapely.geometry import Polygon
from shapely.validation import explain_validity

from geom import bases
from geom.elevation import piece_effective_size, standing_piece
from geom.errors import TmgError
from geom.model import (
    OWNERS,
    TERRAIN_KINDS,
    TOLERANCE,
    Base,
    Battlefield,
    Deployment,
    Marker,
    Model,
    Speed,
    Table,
    TerrainPiece,
    Unit,
    marker_colour,
)

from . import catalogue
from .refs import PREFIXES

FORMAT = "tmg-scenario/1"
TOP_FIELDS = {"format", "name", "description", "table", "terrain", "unit", "marker",
              "templates"}
TABLE_FIELDS = {"width", "depth", "layout", "deployment"}
TERRAIN_FIELDS = {"id", "size", "polygon", "rect", "circle", "kind", "standable", "on",
                  "openings", "access_points", "label", "catalogue", "remove"}
UNIT_FIELDS = {"id", "type", "name", "owner", "size", "base_mm", "tags", "flying", "large",
               "speed", "supply", "statuses", "leading", "models"}
MODEL_FIELDS = {"id", "at", "angle"}
MARKER_FIELDS = {"id", "at"}
STATUSES = {"burrowed", "hidden", "engaged", "activated", "shaken"}
# Sanity bounds on input numbers (no table or piece comes near them; far beyond them floating
# point geometry overflows). A table edge over MAX_TABLE inches is refused.
MAX_ABS = 1e5
MAX_TABLE = 1000.0
RESERVED_UNIT_IDS = PREFIXES  # command-line reference prefixes: marker/N, terrain/ID, zone/OWNER


class ScenarioError(TmgError):
    """Bad scenario input."""


class _Ctx:
    def __init__(self, file: str) -> None:
        self.file = file

    def err(self, obj: str | None, field: str | None, msg: str) -> ScenarioError:
        return ScenarioError(msg, file=self.file, obj=obj, field=field)


# --------------------------------------------------------------------------- primitives

def _num(ctx: _Ctx, obj: str, field: str, v: Any, *, positive: bool = False,
         nonneg: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise ctx.err(obj, field, f"expected a number, got {v!r}")
    if abs(v) > MAX_ABS:
        raise ctx.err(obj, field, f"{v!r} is out of range (at most {MAX_ABS:g} either way)")
    if positive and v <= 0:
        raise ctx.err(obj, field, f"must be > 0, got {v!r}")
    if nonneg and v < 0:
        raise ctx.err(obj, field, f"must be >= 0, got {v!r}")
    return float(v)


def _int(ctx: _Ctx, obj: str, field: str, v: Any, lo: int | None = None,
         hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ctx.err(obj, field, f"expected an integer, got {v!r}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ctx.err(obj, field, f"must be between {lo} and {hi}, got {v!r}")
    if abs(v) > MAX_ABS:
        raise ctx.err(obj, field, f"{v!r} is out of range (at most {MAX_ABS:g} either way)")
    return v


def _bool(ctx: _Ctx, obj: str, field: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise ctx.err(obj, field, f"expected true or false, got {v!r}")
    return v


def _str(ctx: _Ctx, obj: str, field: str, v: Any) -> str:
    if not isinstance(v, str) or not v.strip():
        raise ctx.err(obj, field, f"expected a non-empty string, got {v!r}")
    return v


def _point(ctx: _Ctx, obj: str, field: str, v: Any) -> tuple[float, float]:
    if not isinstance(v, list | tuple) or len(v) != 2:
        raise ctx.err(obj, field, f"expected a point [x, y], got {v!r}")
    return (_num(ctx, obj, field, v[0]), _num(ctx, obj, field, v[1]))


def _table(ctx: _Ctx, obj: str, v: Any, fields: set[str]) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise ctx.err(obj, None, f"expected a table of fields, got {type(v).__name__}")
    for k in v:
        if k not in fields:
            raise ctx.err(obj, str(k), f"unknown field (allowed: {', '.join(sorted(fields))})")
    return v


def _list(ctx: _Ctx, obj: str | None, field: str, v: Any) -> list[Any]:
    if not isinstance(v, list):
        raise ctx.err(obj, field, f"expected a list, got {type(v).__name__}")
    return v


def _polygon(ctx: _Ctx, obj: str, field: str, v: Any) -> Polygon:
    pts = _list(ctx, obj, field, v)
    if len(pts) < 3:
        raise ctx.err(obj, field, "a polygon needs at least 3 points")
    coords = [_point(ctx, obj, field, p) for p in pts]
    poly = Polygon(coords)
    if not poly.is_valid:
        raise ctx.err(obj, field, f"polygon is not simple ({explain_validity(poly)})")
    if poly.area <= 0:
        raise ctx.err(obj, field, "polygon has no area")
    return poly


def _footprint(ctx: _Ctx, obj: str, e: Mapping[str, Any]) -> Polygon:
    given = [k for k in ("polygon", "rect", "circle") if k in e]
    if len(given) != 1:
        raise ctx.err(obj, "polygon", "give exactly one of polygon, rect or circle")
    kind = given[0]
    if kind == "polygon":
        return _polygon(ctx, obj, "polygon", e["polygon"])
    if kind == "rect":
        r = _table(ctx, obj, e["rect"], {"center", "width", "depth", "angle"})
        for k in ("center", "width", "depth"):
            if k not in r:
                raise ctx.err(obj, f"rect.{k}", "missing")
        cx, cy = _point(ctx, obj, "rect.center", r["center"])
        w = _num(ctx, obj, "rect.width", r["width"], positive=True)
        d = _num(ctx, obj, "rect.depth", r["depth"], positive=True)
        ang = math.radians(_num(ctx, obj, "rect.angle", r.get("angle", 0)))
        c, s = math.cos(ang), math.sin(ang)
        corners = [(-w / 2, -d / 2), (w / 2, -d / 2), (w / 2, d / 2), (-w / 2, d / 2)]
        return Polygon([(cx + c * x - s * y, cy + s * x + c * y) for x, y in corners])
    c_ = _table(ctx, obj, e["circle"], {"center", "radius"})
    for k in ("center", "radius"):
        if k not in c_:
            raise ctx.err(obj, f"circle.{k}", "missing")
    cx, cy = _point(ctx, obj, "circle.center", c_["center"])
    rad = _num(ctx, obj, "circle.radius", c_["radius"], positive=True)
    # 128 vertices: 1.2e-4 of the radius short of the true circle at most.
    return SPoint(cx, cy).buffer(rad, quad_segs=32)


# --------------------------------------------------------------------------- objects

def parse_terrain(ctx: _Ctx, e: Any, index: int) -> TerrainPiece | str:
    """One [[terrain]] entry; returns the id alone for `remove = true`."""
    label = f"terrain #{index + 1}"
    e = _table(ctx, label, e, TERRAIN_FIELDS)
    if "id" not in e:
        raise ctx.err(label, "id", "missing")
    pid = _str(ctx, label, "id", e["id"])
    obj = f"terrain {pid!r}"
    if e.get("remove") is not None:
        if _bool(ctx, obj, "remove", e["remove"]):
            return pid
    if "size" not in e:
        raise ctx.err(obj, "size", "missing")
    size = _int(ctx, obj, "size", e["size"], lo=0)
    kind = e.get("kind", "solid")
    if kind not in TERRAIN_KINDS:
        raise ctx.err(obj, "kind", f"must be one of {', '.join(TERRAIN_KINDS)}, got {kind!r}")
    openings = tuple(_polygon(ctx, obj, "openings", p)
                     for p in _list(ctx, obj, "openings", e.get("openings", [])))
    access = tuple(_polygon(ctx, obj, "access_points", p)
                   for p in _list(ctx, obj, "access_points", e.get("access_points", [])))
    on = e.get("on")
    if e.get("catalogue") is not None:  # the layout files' piece type: a note, not geometry
        _str(ctx, obj, "catalogue", e["catalogue"])
    return TerrainPiece(
        id=pid, size=size, footprint=_footprint(ctx, obj, e), kind=kind,
        standable=_bool(ctx, obj, "standable", e.get("standable", False)),
        on=None if on is None else _str(ctx, obj, "on", on),
        openings=openings, access_points=access,
        label=None if e.get("label") is None else _str(ctx, obj, "label", e["label"]),
    )


def _supply_for(profile: list[dict[str, Any]], n: int) -> float | None:
    fitting = [p for p in profile if p.get("models") is not None and p["models"] <= n
               and p.get("supply") is not None]
    if fitting:
        return float(max(fitting, key=lambda p: p["models"])["supply"])
    return None


def parse_unit(ctx: _Ctx, e: Any, index: int) -> Unit:
    label = f"unit #{index + 1}"
    e = _table(ctx, label, e, UNIT_FIELDS)
    if "id" not in e:
        raise ctx.err(label, "id", "missing")
    uid = _str(ctx, label, "id", e["id"])
    if "/" in uid or "," in uid:
        raise ctx.err(f"unit {uid!r}", "id", "must not contain '/' or ',' (the command line "
                      "writes UNIT/MODEL and separates ids with commas)")
    if uid in RESERVED_UNIT_IDS:
        raise ctx.err(f"unit {uid!r}", "id", "is reserved for references on the command line "
                      "(marker/N, terrain/ID, zone/OWNER)")
    obj = f"unit {uid!r}"
    cat: dict[str, Any] = {}
    if "type" in e:
        tname = _str(ctx, obj, "type", e["type"])
        found = catalogue.find(tname)
        if found is None:
            raise ctx.err(obj, "type", f"unknown unit type {tname!r} (see `tmg units`)")
        cat = found

    def pick(field: str, cat_field: str | None = None) -> Any:
        if field in e:
            return e[field]
        return cat.get(cat_field or field)

    if "owner" not in e:
        raise ctx.err(obj, "owner", "missing")
    owner = e["owner"]
    if owner not in OWNERS:
        raise ctx.err(obj, "owner", f"must be red or blue, got {owner!r}")
    size_v = pick("size")
    if size_v is None:
        raise ctx.err(obj, "size", "missing (and the catalogue gives none)"
                      if cat else "missing")
    size = _int(ctx, obj, "size", size_v, lo=0)
    base_v = pick("base_mm")
    if base_v is None:
        raise ctx.err(obj, "base_mm", "missing")
    if isinstance(base_v, list):
        if len(base_v) != 2:
            raise ctx.err(obj, "base_mm", "an oval is [long, short]")
        base = Base.from_mm((_num(ctx, obj, "base_mm", base_v[0], positive=True),
                             _num(ctx, obj, "base_mm", base_v[1], positive=True)))
    else:
        base = Base.from_mm(_num(ctx, obj, "base_mm", base_v, positive=True))
    flying = _bool(ctx, obj, "flying", pick("flying") if pick("flying") is not None else False)
    large = _bool(ctx, obj, "large", pick("large") if pick("large") is not None else False)
    tags_v = pick("tags") or []
    tags = [_str(ctx, obj, "tags", t).lower() for t in _list(ctx, obj, "tags", tags_v)]
    tags = [t for t in tags if t not in ("ground", "flying")]
    tags.insert(0, "flying" if flying else "ground")
    speed = None
    sv = pick("speed")
    if sv is not None and sv != "-":  # "-": the card prints a dash (no Speed)
        try:
            speed = Speed.parse(sv)
        except (TmgError, ValueError):
            raise ctx.err(obj, "speed", f"expected an integer or 'a/b', got {sv!r}") from None
        values = [speed.normal] + ([speed.alone] if speed.alone is not None else [])
        if not all(0 <= v <= MAX_ABS for v in values):
            raise ctx.err(obj, "speed", f"must be between 0 and {MAX_ABS:g}, got {sv!r}")
    statuses = tuple(_str(ctx, obj, "statuses", s).lower()
                     for s in _list(ctx, obj, "statuses", e.get("statuses", [])))
    for s in statuses:
        if s not in STATUSES:
            raise ctx.err(obj, "statuses", f"unknown status {s!r} "
                          f"(known: {', '.join(sorted(STATUSES))})")
    if "models" not in e:
        raise ctx.err(obj, "models", "missing")
    raw_models = _list(ctx, obj, "models", e["models"])
    if not raw_models:
        raise ctx.err(obj, "models", "a unit needs at least one model")
    models: list[Model] = []
    seen: set[str] = set()
    for i, m in enumerate(raw_models):
        if isinstance(m, list | tuple):
            mid, at, angle = str(i + 1), _point(ctx, obj, f"models[{i}]", m), 0.0
        else:
            mt = _table(ctx, f"{obj} model #{i + 1}", m, MODEL_FIELDS)
            mid = str(mt["id"]) if "id" in mt else str(i + 1)
            mobj = f"unit {uid!r} model {mid!r}"
            if "id" in mt and (isinstance(mt["id"], bool) or not isinstance(mt["id"], str | int)):
                raise ctx.err(mobj, "id", f"expected a string, got {mt['id']!r}")
            if not mid.strip():
                raise ctx.err(f"{obj} model #{i + 1}", "id", f"expected a non-empty id, got "
                              f"{mid!r}")
            if "at" not in mt:
                raise ctx.err(mobj, "at", "missing")
            at = _point(ctx, mobj, "at", mt["at"])
            angle = _num(ctx, mobj, "angle", mt.get("angle", 0.0))
        if mid in seen:
            raise ctx.err(f"unit {uid!r} model {mid!r}", "id", "duplicate model id")
        seen.add(mid)
        models.append(Model(
            id=mid, unit=uid, owner=owner, at=at, base=base, size=size, angle=angle,
            flying=flying, large=large, burrowed="burrowed" in statuses,
            hidden="hidden" in statuses, tags=tuple(tags)))
    supply_v = e.get("supply")
    if supply_v is not None:
        supply: float | None = _num(ctx, obj, "supply", supply_v, nonneg=True)
    else:
        supply = _supply_for(cat.get("supply_profile") or [], len(models))
    leading = e.get("leading")
    if leading is not None:
        leading = str(leading) if isinstance(leading, int) and not isinstance(leading, bool) \
            else _str(ctx, obj, "leading", leading)
        if leading not in seen:
            raise ctx.err(obj, "leading", f"no model {leading!r} in this unit")
    return Unit(id=uid, owner=owner, size=size, models=tuple(models), base=base,
                tags=tuple(tags), flying=flying, large=large, speed=speed, supply=supply,
                statuses=statuses, leading=leading, type=cat.get("id"),
                name=e.get("name") or cat.get("name"))


def parse_marker(ctx: _Ctx, e: Any, index: int) -> Marker:
    label = f"marker #{index + 1}"
    e = _table(ctx, label, e, MARKER_FIELDS)
    if "id" not in e:
        raise ctx.err(label, "id", "missing")
    mid = _int(ctx, label, "id", e["id"], lo=1, hi=5)
    if "at" not in e:
        raise ctx.err(f"marker {mid}", "at", "missing")
    return Marker(mid, _point(ctx, f"marker {mid}", "at", e["at"]), marker_colour(mid))


def _check_markers(bf: Battlefield, err: Callable[[str | None, str | None, str], Exception]
                   ) -> None:
    t = bf.table
    for m in bf.markers:
        r = m.ellipse.a
        x, y = m.at
        if x - r < -TOLERANCE or y - r < -TOLERANCE or x + r > t.width + TOLERANCE \
                or y + r > t.depth + TOLERANCE:
            raise err(f"marker {m.id}", "at", f"the marker at ({x:g}, {y:g}) is not wholly on "
                      f"the {t.width:g}x{t.depth:g} table")


# --------------------------------------------------------------------------- whole file

def _base_extent(m: Model) -> tuple[float, float]:
    e = m.ellipse
    c, s = math.cos(e.theta), math.sin(e.theta)
    return (math.sqrt((e.a * c) ** 2 + (e.b * s) ** 2), math.sqrt((e.a * s) ** 2 + (e.b * c) ** 2))


def check_battlefield(bf: Battlefield, err: Callable[[str | None, str | None, str],
                                                     Exception]) -> None:
    """The placement checks of INTERFACE.md: stacking, bases on the table, no overlaps."""
    ids = {p.id for p in bf.terrain}
    for p in bf.terrain:
        if p.on is not None and p.on not in ids:
            raise err(f"terrain {p.id!r}", "on", f"no terrain piece {p.on!r}")
    for p in bf.terrain:
        try:
            piece_effective_size(bf, p)
        except TmgError:
            raise err(f"terrain {p.id!r}", "on", "stacking cycle") from None
    t = bf.table
    models = list(bf.models())
    for m in models:
        if m.base.long > max(t.width, t.depth):
            raise err(f"unit {m.unit!r} model {m.id!r}", "at", f"a base {m.base.long:g}\" long "
                      f"does not fit on the {t.width:g}x{t.depth:g} table")
        ex, ey = _base_extent(m)
        x, y = m.at
        if x - ex < -TOLERANCE or y - ey < -TOLERANCE or x + ex > t.width + TOLERANCE \
                or y + ey > t.depth + TOLERANCE:
            raise err(f"unit {m.unit!r} model {m.id!r}", "at",
                      f"base at ({x:g}, {y:g}) is not wholly on the {t.width:g}x{t.depth:g} table")
    if models:
        centres = shapely.points([m.at for m in models])
        tree = shapely.STRtree(centres)
        reach = max(m.base.long for m in models)
        for i, m in enumerate(models):
            for j in tree.query(SPoint(m.at).buffer(reach)):
                if j <= i:
                    continue
                o = models[j]
                if _overlap(m, o):
                    raise err(f"unit {o.unit!r} model {o.id!r}", "at",
                              f"base overlaps model {m.unit}/{m.id}")
    for m in models:
        if m.flying:
            continue  # a flying stand's foot may stand by terrain it flies over (§2.3)
        on = standing_piece(bf, m)
        below: set[str] = set()
        while on is not None:
            below.add(on.id)
            on = bf.piece(on.on) if on.on else None
        for p in bf.terrain:
            if not p.impassable or p.id in below:
                continue
            if bases.geometry_meets(m.ellipse, p.footprint.buffer(-TOLERANCE)):
                raise err(f"unit {m.unit!r} model {m.id!r}", "at",
                          f"base overlaps impassable terrain {p.id!r}")


def _overlap(a: Model, b: Model) -> bool:
    """Bases overlap by more than the tolerance (touching is fine)."""
    if a.base.is_disc and b.base.is_disc:
        return math.dist(a.at, b.at) < a.base.a + b.base.a - TOLERANCE
    shrunk = replace(a.ellipse, a=a.ellipse.a - TOLERANCE, b=a.ellipse.b - TOLERANCE)
    return bases.ellipse_distance(shrunk, b.ellipse) == 0.0


def parse_document(doc: Any, file: str = "<scenario>") -> Battlefield:
    """Build a Battlefield from an already-parsed TOML/JSON document."""
    ctx = _Ctx(file)
    doc = _table(ctx, "scenario", doc, TOP_FIELDS)
    fmt = doc.get("format", FORMAT)
    if fmt != FORMAT:
        raise ctx.err("scenario", "format", f"expected {FORMAT!r}, got {fmt!r}")
    if "table" not in doc:
        raise ctx.err("scenario", "table", "missing")
    tab = _table(ctx, "table", doc["table"], TABLE_FIELDS)
    layout_terrain: list[TerrainPiece] = []
    deployment: Deployment | None = None
    width = depth = None
    layout_table: Table | None = None
    if "layout" in tab:
        name = _str(ctx, "table", "layout", tab["layout"])
        from maps import load_layout
        try:
            lay = load_layout(name)
        except TmgError as exc:
            raise ctx.err("table", "layout", exc.detail) from None
        layout_terrain = list(lay.terrain)
        layout_table = lay.table
        width, depth = lay.table.width, lay.table.depth
    if "deployment" in tab:
        name = _str(ctx, "table", "deployment", tab["deployment"])
        from maps import load_deployment
        try:
            deployment = load_deployment(name)
        except TmgError as exc:
            raise ctx.err("table", "deployment", exc.detail) from None
        width, depth = deployment.table.width, deployment.table.depth
    if "width" in tab:
        width = _num(ctx, "table", "width", tab["width"], positive=True)
    if "depth" in tab:
        depth = _num(ctx, "table", "depth", tab["depth"], positive=True)
    if width is None or depth is None:
        raise ctx.err("table", "width" if width is None else "depth",
                      "missing (give width and depth, or a layout or deployment)")
    for k, v in (("width", width), ("depth", depth)):
        if v > MAX_TABLE:
            raise ctx.err("table", k, f"{v:g}\" is more than the {MAX_TABLE:g}\" this tool "
                          "accepts")
    if deployment is not None and layout_table is not None and \
            deployment.table != layout_table:
        raise ctx.err("table", "deployment", f"card {deployment.id!r} is for a "
                      f"{deployment.table.width:g}x{deployment.table.depth:g} table, the layout "
                      f"for a {layout_table.width:g}x{layout_table.depth:g} table")
    if layout_table is not None and (layout_table.width, layout_table.depth) != (width, depth):
        raise ctx.err("table", "layout", f"layout is for a {layout_table.width:g}x"
                      f"{layout_table.depth:g} table, not {width:g}x{depth:g}")
    if deployment is not None and (deployment.table.width, deployment.table.depth) != \
            (width, depth):
        raise ctx.err("table", "deployment", f"card {deployment.id!r} is for a "
                      f"{deployment.table.width:g}x{deployment.table.depth:g} table")

    if "templates" in doc:
        # Template sizes (§10) are weapon data, not table data: validated here, read by
        # `tmg template` through geom.templates.shapes_from_table.
        from geom.templates import shapes_from_table
        try:
            shapes_from_table(doc["templates"], file)
        except TmgError as exc:
            raise ctx.err(exc.obj, exc.field, exc.detail) from None

    terrain: dict[str, TerrainPiece] = {p.id: p for p in layout_terrain}
    own: set[str] = set()
    for i, e in enumerate(_list(ctx, None, "terrain", doc.get("terrain", []))):
        parsed = parse_terrain(ctx, e, i)
        pid = parsed if isinstance(parsed, str) else parsed.id
        if pid in own:
            raise ctx.err(f"terrain {pid!r}", "id", "duplicate id")
        own.add(pid)
        if isinstance(parsed, str):
            if pid not in terrain:
                raise ctx.err(f"terrain {pid!r}", "remove", "no such piece in the layout")
            del terrain[pid]
        else:
            terrain[pid] = parsed
    units: list[Unit] = []
    for i, e in enumerate(_list(ctx, None, "unit", doc.get("unit", []))):
        u = parse_unit(ctx, e, i)
        if any(v.id == u.id for v in units):
            raise ctx.err(f"unit {u.id!r}", "id", "duplicate id")
        units.append(u)
    markers: dict[int, Marker] = {m.id: m for m in (deployment.markers if deployment else ())}
    own_markers: set[int] = set()
    for i, e in enumerate(_list(ctx, None, "marker", doc.get("marker", []))):
        m = parse_marker(ctx, e, i)
        if m.id in own_markers:
            raise ctx.err(f"marker {m.id}", "id", "duplicate id")
        own_markers.add(m.id)
        markers[m.id] = m
    name = doc.get("name")
    bf = Battlefield(table=Table(width, depth), terrain=tuple(terrain.values()),
                     units=tuple(units), markers=tuple(sorted(markers.values(), key=lambda m: m.id)),
                     deployment=deployment,
                     name=_str(ctx, "scenario", "name", name) if name is not None else None)
    check_battlefield(bf, ctx.err)
    _check_markers(bf, ctx.err)
    return bf


def read_document(path: str | Path) -> Any:
    p = Path(path)
    try:
        text = p.read_bytes()
    except OSError as exc:
        raise ScenarioError(f"cannot read file ({exc.strerror})", file=str(path)) from None
    try:
        if p.suffix.lower() == ".json":
            return json.loads(text.decode("utf-8"))
        if p.suffix.lower() == ".toml":
            return tomllib.loads(text.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"not valid {p.suffix[1:].upper()}: {exc}", file=str(path)) from None
    raise ScenarioError("unknown file type (use .toml or .json)", file=str(path))


def is_official_name(path: str | Path) -> bool:
    """A bare word that is no file: an official layout or card name (a folder of that name in
    the working directory is no scenario either, so it does not hide the name)."""
    p = Path(path)
    return (not p.exists() or p.is_dir()) and "/" not in str(path) and p.suffix == "" \
        and bool(str(path).strip())


def load(path: str | Path) -> Battlefield:
    """Load a scenario file, or an official layout / deployment card by name."""
    if not str(path).strip():
        raise ScenarioError("no scenario given (a .toml or .json file, or an official layout or "
                            "deployment card name: see `tmg layouts`)")
    p = Path(path)
    if is_official_name(path):
        from maps import battlefield_by_name
        return battlefield_by_name(str(path))
    return parse_document(read_document(p), str(path))
