"""Scenario files (the project's docs/interface.md): TOML or JSON in, a validated
`geom.model.Battlefield` out.

Every problem ends as one `ScenarioError` naming the file, the object and the field; nothing is
guessed. Layout and deployment names are resolved through `maps`, whose pieces a scenario's own
`[[terrain]]` entries add to or replace (same id), and whose markers `[[marker]]` entries replace.
"""

from __future__ import annotations

import json
import math
import os
import stat
import tomllib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Point as SPoint

from formats import limits
from formats.fields import (
    Ctx,
    FormatError,
    check_count,
    check_document,
    fields,
    listof,
    number,
    string,
)
from formats.terrain import parse_terrain
from geom import bases
from geom.bases import overlaps_piece
from geom.elevation import piece_effective_size, standing_piece
from geom.errors import TmgError
from geom.model import Battlefield, Deployment, Marker, Model, Table, TerrainPiece, Unit
from geom.templates import shapes_from_table
from geom.tolerance import TOLERANCE
from maps import (
    battlefield_by_name,
    deployment_ids,
    deployment_info,
    layout_ids,
    load_deployment,
    load_layout,
)

from . import memory
from .units import parse_marker, parse_unit

FORMAT = "tmg-scenario/1"
TOP_FIELDS = {"format", "name", "description", "table", "terrain", "unit", "marker",
              "templates"}
TABLE_FIELDS = {"width", "depth", "layout", "deployment"}

ScenarioError = FormatError  # bad scenario input: names the file, the object and the field


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
                                                     Exception], *, placement: bool = True) -> None:
    """The placement checks of docs/interface.md ("Bad input"): stacking, bases on the table, no
    overlaps. `placement=False` (the tolerant reading `tmg check` uses for a declared AFTER
    table, GEOMETRY-RULES §14): only what cannot be a table at all is refused — bases off the
    table or overlapping are what the judge is asked about."""
    ids = {p.id for p in bf.terrain}
    for p in bf.terrain:
        if p.on is not None and p.on not in ids:
            raise err(f"terrain {p.id!r}", "on", f"no terrain piece {p.on!r}")
    for p in bf.terrain:
        try:
            piece_effective_size(bf, p)
        except TmgError:
            raise err(f"terrain {p.id!r}", "on", "stacking cycle") from None
    if not placement:
        return
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
        near = np.flatnonzero(bases.boxes_near(bases.piece_boxes(bf), m.ellipse))
        for k in near.tolist():  # the pieces whose boxes the base's box reaches
            p = bf.terrain[k]
            if not p.impassable or p.id in below:
                continue
            if overlaps_piece(bf, m.ellipse, p):
                raise err(f"unit {m.unit!r} model {m.id!r}", "at",
                          f"base overlaps impassable terrain {p.id!r}")


def _overlap(a: Model, b: Model) -> bool:
    """Bases overlap by more than the tolerance (touching is fine)."""
    if a.base.is_disc and b.base.is_disc:
        return math.dist(a.at, b.at) < a.base.a + b.base.a - TOLERANCE
    shrunk = replace(a.ellipse, a=a.ellipse.a - TOLERANCE, b=a.ellipse.b - TOLERANCE)
    return bases.ellipse_distance(shrunk, b.ellipse) == 0.0


def parse_document(doc: Any, file: str = "<scenario>", *, tolerant: bool = False) -> Battlefield:
    """Build a Battlefield from an already-parsed TOML/JSON document."""
    ctx = Ctx(file)
    check_document(ctx, doc)
    doc = fields(ctx, "scenario", doc, TOP_FIELDS)
    if doc.get("description") is not None:
        string(ctx, "scenario", "description", doc["description"], limits.MAX_DESCRIPTION)
    fmt = doc.get("format", FORMAT)
    if fmt != FORMAT:
        raise ctx.err("scenario", "format", f"expected {FORMAT!r}, got {fmt!r}")
    if "table" not in doc:
        raise ctx.err("scenario", "table", "missing")
    tab = fields(ctx, "table", doc["table"], TABLE_FIELDS)
    layout_terrain: list[TerrainPiece] = []
    deployment: Deployment | None = None
    width = depth = None
    layout_table: Table | None = None
    if "layout" in tab:
        name = string(ctx, "table", "layout", tab["layout"])
        try:
            lay = load_layout(name)
        except TmgError as exc:
            raise ctx.err("table", "layout", exc.detail) from None
        layout_terrain = list(lay.terrain)
        layout_table = lay.table
        width, depth = lay.table.width, lay.table.depth
    if "deployment" in tab:
        name = string(ctx, "table", "deployment", tab["deployment"])
        try:
            deployment = load_deployment(name)
        except TmgError as exc:
            raise ctx.err("table", "deployment", exc.detail) from None
        width, depth = deployment.table.width, deployment.table.depth
    if "width" in tab:
        width = number(ctx, "table", "width", tab["width"], positive=True)
    if "depth" in tab:
        depth = number(ctx, "table", "depth", tab["depth"], positive=True)
    if width is None or depth is None:
        raise ctx.err("table", "width" if width is None else "depth",
                      "missing (give width and depth, or a layout or deployment)")
    for k, v in (("width", width), ("depth", depth)):
        if v > limits.MAX_TABLE:
            raise ctx.err("table", k, f"{v:g}\" is more than the {limits.MAX_TABLE:g}\" this "
                          "tool accepts")
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
        try:
            shapes_from_table(doc["templates"], file)
        except TmgError as exc:
            raise ctx.err(exc.obj, exc.field, exc.detail) from None

    terrain: dict[str, TerrainPiece] = {p.id: p for p in layout_terrain}
    own: set[str] = set()
    for i, e in enumerate(listof(ctx, None, "terrain", doc.get("terrain", []),
                                 limits.MAX_PIECES)):
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
    check_count(ctx, None, "terrain", len(terrain), limits.MAX_PIECES)
    _check_vertices(ctx, terrain.values())
    units: list[Unit] = []
    unit_ids: set[str] = set()
    n_models = 0
    for i, e in enumerate(listof(ctx, None, "unit", doc.get("unit", []), limits.MAX_UNITS)):
        if isinstance(e, dict) and isinstance(e.get("models"), list):
            # counted before the models are read: a unit of a million models fails at once
            n_models += len(e["models"])
            check_count(ctx, f"unit #{i + 1}", "models", n_models, limits.MAX_MODELS)
        u = parse_unit(ctx, e, i)
        if u.id in unit_ids:
            raise ctx.err(f"unit {u.id!r}", "id", "duplicate id")
        unit_ids.add(u.id)
        units.append(u)
    markers: dict[int, Marker] = {m.id: m for m in (deployment.markers if deployment else ())}
    own_markers: set[int] = set()
    for i, e in enumerate(listof(ctx, None, "marker", doc.get("marker", []))):
        m = parse_marker(ctx, e, i)
        if m.id in own_markers:
            raise ctx.err(f"marker {m.id}", "id", "duplicate id")
        own_markers.add(m.id)
        markers[m.id] = m
    name = doc.get("name")
    bf = Battlefield(table=Table(width, depth), terrain=tuple(terrain.values()),
                     units=tuple(u for u in units if not u.reserve),
                     markers=tuple(sorted(markers.values(), key=lambda m: m.id)),
                     deployment=deployment, reserves=tuple(u for u in units if u.reserve),
                     name=string(ctx, "scenario", "name", name) if name is not None else None)
    check_battlefield(bf, ctx.err, placement=not tolerant)
    _check_markers(bf, ctx.err)
    return bf


def _check_vertices(ctx: Ctx, pieces: Any) -> None:
    total = 0
    for p in pieces:
        for poly in (p.footprint, *p.openings, *p.access_points):
            total += len(poly.exterior.coords) + sum(len(r.coords) for r in poly.interiors)
            if total > limits.MAX_TOTAL_VERTICES:
                raise ctx.err(f"terrain {p.id!r}", "polygon", f"the terrain holds more than "
                              f"{limits.MAX_TOTAL_VERTICES:,} polygon points in all")
        for field, shapes in (("openings", p.openings), ("access_points", p.access_points)):
            check_count(ctx, f"terrain {p.id!r}", field, len(shapes), limits.MAX_SHAPES)


def read_document(path: str | Path) -> Any:
    """The parsed TOML or JSON document of a scenario file (by its extension).

    Only a regular file of at most `MAX_FILE_BYTES` is read (a device, a pipe or a folder is
    refused before anything is read from it); UTF-8, with or without a byte-order mark."""
    mem = memory.lookup(path)
    if mem is not None and mem.document is not None:  # a request's document: nothing to read
        return mem.document
    p = Path(path)
    file = str(path)
    kind = p.suffix.lower()
    if kind not in (".json", ".toml"):
        raise ScenarioError("unknown file type (use .toml or .json)", file=file)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise ScenarioError(f"cannot read file ({exc.strerror or exc})", file=file) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            what = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise ScenarioError(f"cannot read file ({what})", file=file)
        if st.st_size > limits.MAX_FILE_BYTES:
            raise ScenarioError(f"the file is {st.st_size:,} bytes, more than the "
                                f"{limits.MAX_FILE_BYTES:,} accepted", file=file)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limits.MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ScenarioError(f"cannot read file ({exc.strerror or exc})", file=file) from None
    finally:
        os.close(fd)
    if len(data) > limits.MAX_FILE_BYTES:
        raise ScenarioError(f"the file is more than the {limits.MAX_FILE_BYTES:,} bytes "
                            "accepted", file=file)
    name = kind[1:].upper()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"not valid {name}: not UTF-8 text (byte {exc.start + 1})",
                            file=file) from None
    try:
        return json.loads(text) if kind == ".json" else tomllib.loads(text)
    except RecursionError:
        raise ScenarioError(f"not valid {name}: nested too deep (at most "
                            f"{limits.MAX_DEPTH} levels)", file=file) from None
    except ValueError as exc:  # JSONDecodeError and TOMLDecodeError are ValueErrors
        raise ScenarioError(f"not valid {name}: {exc}", file=file) from None


def is_official_name(path: str | Path) -> bool:
    """A bare word that is no file: an official layout or card name (a folder of that name in
    the working directory is no scenario either, so it does not hide the name)."""
    text = str(path)
    if "/" in text or not text.strip() or "\0" in text \
            or getattr(memory.lookup(text), "document", None) is not None:
        return False
    p = Path(path)
    if p.suffix != "":
        return False
    try:
        return not p.exists() or p.is_dir()
    except OSError:  # a name too long for the file system is no file either
        return True


def document(path: str | Path, deployment: str | None = None) -> Any:
    """The scenario document of a file or of an official layout or card name, with the
    deployment card `deployment` (if given) laid on its table in place of its own."""
    name = str(path)
    if is_official_name(path):
        if name in layout_ids():
            title = load_layout(name).name
            if deployment in deployment_ids():
                title += f" · {deployment_info(deployment)['name']}"
            doc: Any = {"table": {"layout": name}, "name": title}
        elif name in deployment_ids():
            if deployment is not None and deployment != name:
                raise ScenarioError(f"{name!r} is a deployment card already; give a layout or "
                                    "a scenario with --deployment", obj="--deployment")
            doc = {"table": {"deployment": name}}
        else:
            battlefield_by_name(name)  # raises the "neither a file nor …" error
    else:
        doc = read_document(path)
    if deployment is None:
        return doc
    if not isinstance(doc, dict) or not isinstance(doc.get("table"), dict):
        raise ScenarioError("has no [table] to lay a deployment card on", file=name,
                            obj="table")
    return {**doc, "table": {**doc["table"], "deployment": deployment}}


def parse_with_deployment(doc: Any, file: str, deployment: str | None, *,
                          tolerant: bool = False) -> Battlefield:
    """`parse_document`, where a problem with the card laid on by `--deployment` names the
    option rather than the file's `[table]`."""
    try:
        return parse_document(doc, file, tolerant=tolerant)
    except FormatError as exc:
        if deployment is not None and exc.obj == "table" and exc.field in ("deployment",
                                                                            "layout"):
            raise ScenarioError(exc.detail, file=file, obj="--deployment") from None
        raise


def load(path: str | Path, deployment: str | None = None, *, tolerant: bool = False
         ) -> Battlefield:
    """Load a scenario file, or an official layout / deployment card by name; with
    `deployment`, that card's entry edges, zones and markers on the table (the command line's
    `--deployment CARD`). `tolerant`: bases may lie off the table or overlap (`tmg check` only,
    see `check_battlefield`)."""
    mem = memory.lookup(path)
    if (mem is not None and mem.battlefield is not None and mem.deployment == deployment
            and not tolerant):
        return mem.battlefield  # a request's table, already built (and warm)
    if not str(path).strip():
        raise ScenarioError("no scenario given (a .toml or .json file, or an official layout or "
                            "deployment card name: see `tmg layouts`)")
    if "\0" in str(path):
        raise ScenarioError("a file name cannot hold a NUL character", file=repr(str(path)))
    if deployment is None and is_official_name(path):
        return battlefield_by_name(str(path))
    return parse_with_deployment(document(path, deployment), str(path), deployment,
                                 tolerant=tolerant)
