"""Writing a table back as a scenario file (TOML, the format `scenario.load` reads): what the
viewer's edit mode saves, readable by every `tmg` command.

`document(bf)` is the scenario as plain data; `dumps` turns it into TOML text with a small
emitter written for this format (scalars, lists, inline tables and arrays of tables: one model
per line, so a saved file stays readable and diffs well); `save` writes it atomically.

Every figure is written so that it reads back to the same float (Python's shortest round-trip
`repr`), so load → save → load gives the same `Battlefield`, piece for piece and model for
model. Terrain is written **fully expanded** by default (every piece as a polygon with its label,
so the file keeps the table even if a packaged layout changes); with `layout="standard-1"` the
file says `layout = "standard-1"` and lists only the pieces that differ from the layout (added,
changed, or `remove = true`). A deployment card is written by name (`deployment = "gauntlet"`):
its entry edges and zones are card data, not table state. Markers and units are always written
in full; a unit with a catalogue `type` keeps it, and every stat is written out so that the
catalogue cannot change the unit on reading.

>>> from geom.model import Battlefield, Table
>>> print(dumps(document(Battlefield(Table(54, 36), name="Empty"))), end="")
format = "tmg-scenario/1"
name = "Empty"
<BLANKLINE>
[table]
width = 54
depth = 36
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from shapely.geometry import Polygon

from formats.atomic import write_text
from geom.errors import TmgError
from geom.model import MM_PER_INCH, Base, Battlefield, Marker, TerrainPiece, Unit
from maps import layout_ids, load_layout

from .load import FORMAT, is_official_name, read_document

# --------------------------------------------------------------------------- the document


def _num(v: float) -> float | int:
    """Whole numbers as integers (what a person writes), other figures as they are."""
    return int(v) if float(v).is_integer() and abs(v) < 2 ** 53 else float(v)


def _pt(p: Sequence[float]) -> list[float | int]:
    return [_num(p[0]), _num(p[1])]


def _ring(poly: Polygon) -> list[list[float | int]]:
    return [_pt(c) for c in poly.exterior.coords[:-1]]


def _mm(inches: float) -> float | int:
    """A base dimension in mm that reads back (`inches(mm)`) to exactly `inches`."""
    for digits in (0, 1, 2, 3, 6):
        v = round(inches * MM_PER_INCH, digits)
        if v / MM_PER_INCH == inches:
            return _num(v)
    v = inches * MM_PER_INCH
    for _ in range(8):  # a float or two away at most
        if v / MM_PER_INCH == inches:
            return v
        v = math.nextafter(v, math.inf if v / MM_PER_INCH < inches else -math.inf)
    raise TmgError(f"cannot write a base of {inches!r}\" exactly in mm")


def _base_mm(b: Base) -> float | int | list[float | int]:
    return _mm(b.long) if b.is_disc else [_mm(b.long), _mm(b.short)]


def terrain_entry(p: TerrainPiece) -> dict[str, Any]:
    """One `[[terrain]]` table; the footprint always as a polygon (exact)."""
    if p.footprint.interiors:
        raise TmgError("a footprint with holes cannot be written", obj=f"terrain {p.id!r}",
                       field="polygon")
    e: dict[str, Any] = {"id": p.id, "size": p.size}
    if p.label:
        e["label"] = p.label
    if p.kind != "solid":
        e["kind"] = p.kind
    if p.standable:
        e["standable"] = True
    if p.on is not None:
        e["on"] = p.on
    e["polygon"] = _ring(p.footprint)
    if p.openings:
        e["openings"] = [_ring(o) for o in p.openings]
    if p.access_points:
        e["access_points"] = [_ring(a) for a in p.access_points]
    return e


def unit_entry(u: Unit) -> dict[str, Any]:
    """One `[[unit]]` table with every stat written out (the catalogue then changes nothing)."""
    e: dict[str, Any] = {"id": u.id}
    if u.type is not None:
        e["type"] = u.type
    if u.name is not None:
        e["name"] = u.name
    e["owner"] = u.owner
    e["size"] = u.size
    e["base_mm"] = _base_mm(u.base)
    tags = [t for t in u.tags if t not in ("ground", "flying")]
    e["tags"] = tags
    e["flying"] = u.flying
    e["abilities"] = sorted(u.abilities)
    # "-": no Speed (else a catalogue type would give one back)
    e["speed"] = str(u.speed) if u.speed is not None and u.speed.alone is not None else (
        u.speed.normal if u.speed is not None else "-")
    if u.supply is not None:
        e["supply"] = _num(u.supply)
    if u.statuses:
        e["statuses"] = list(u.statuses)
    if u.leading is not None:
        e["leading"] = u.leading
    if u.coherent is not None:
        e["coherent"] = u.coherent
    models = []
    for m in u.models:
        me: dict[str, Any] = {"id": m.id, "at": _pt(m.at)}
        if m.angle:
            me["angle"] = _num(m.angle)
        models.append(me)
    e["models"] = models
    if u.reserve:  # off the table: the models by id alone
        e["reserve"] = True
        e["models"] = [m.id for m in u.models]
    return e


def marker_entry(m: Marker) -> dict[str, Any]:
    return {"id": m.id, "at": _pt(m.at)}


def document(bf: Battlefield, *, layout: str | None = None,
             extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The scenario as plain data. `layout`: write `layout = NAME` and only the pieces that
    differ from it. `extra`: top-level tables to carry over unchanged (`description`,
    `[templates]`)."""
    doc: dict[str, Any] = {"format": FORMAT}
    if bf.name:
        doc["name"] = bf.name
    for k, v in (extra or {}).items():
        if k in ("description", "templates"):
            doc[k] = v
    table: dict[str, Any] = {"width": _num(bf.table.width), "depth": _num(bf.table.depth)}
    terrain = [terrain_entry(p) for p in bf.terrain]
    if layout is not None:
        lay = load_layout(layout)
        if lay.table != bf.table:
            raise TmgError(f"layout {layout!r} is for a {lay.table.width:g}x{lay.table.depth:g} "
                           "table", field="layout")
        table["layout"] = layout
        ours = {p.id: p for p in bf.terrain}
        theirs = {p.id: p for p in lay.terrain}
        terrain = [{"id": pid, "remove": True} for pid in theirs if pid not in ours]
        terrain += [terrain_entry(p) for p in bf.terrain if theirs.get(p.id) != p]
    if bf.deployment is not None:
        table["deployment"] = bf.deployment.id
    doc["table"] = table
    if terrain:
        doc["terrain"] = terrain
    if bf.units or bf.reserves:
        doc["unit"] = [unit_entry(u) for u in (*bf.units, *bf.reserves)]
    if bf.markers:
        doc["marker"] = [marker_entry(m) for m in bf.markers]
    return doc


# --------------------------------------------------------------------------- TOML text

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k: str) -> str:
    return k if _BARE_KEY.fullmatch(k) else _string(k)


def _string(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise TmgError(f"cannot write the number {v!r}")
        return repr(v)  # shortest text that reads back to the same float; valid TOML
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }" \
            if v else "{}"
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TmgError(f"cannot write a {type(v).__name__} in a scenario file")


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, Mapping) for x in v)


def _body(t: Mapping[str, Any]) -> list[str]:
    """key = value lines; a list of tables or of lists goes one item per line."""
    lines = []
    for k, v in t.items():
        if isinstance(v, list) and v and all(isinstance(x, Mapping | list) for x in v):
            lines.append(f"{_key(k)} = [")
            lines += [f"  {_value(x)}," for x in v]
            lines.append("]")
        else:
            lines.append(f"{_key(k)} = {_value(v)}")
    return lines


def dumps(doc: Mapping[str, Any]) -> str:
    """TOML text for a scenario document: top-level keys, then `[table]`-like sub-tables, then
    arrays of tables (`[[terrain]]`, `[[unit]]`, `[[marker]]`). Nested tables inside those are
    written inline."""
    top = {k: v for k, v in doc.items() if not isinstance(v, Mapping) and not _is_table_array(v)}
    lines = _body(top)
    for k, v in doc.items():
        if isinstance(v, Mapping):
            lines += ["", f"[{_key(k)}]"] + _body(v)
    for k, v in doc.items():
        if _is_table_array(v):
            for item in v:
                lines += ["", f"[[{_key(k)}]]"] + _body(item)
    return "\n".join(lines) + "\n"


def source_settings(source: str | Path) -> tuple[str | None, dict[str, Any]]:
    """How a table read from `source` is written back: the layout it names (an official layout
    name, or a scenario's `layout = NAME`), so that only the pieces that differ are written, and
    the scenario's `description` and `[templates]` to carry over."""

    if is_official_name(source):
        return (str(source) if str(source) in layout_ids() else None), {}
    doc = read_document(source)
    table = doc.get("table") if isinstance(doc, dict) else None
    layout = table.get("layout") if isinstance(table, dict) else None
    extra = {k: doc[k] for k in ("description", "templates") if isinstance(doc, dict) and k in doc}
    return (layout if isinstance(layout, str) else None), extra


def save(path: str | Path, bf: Battlefield, *, layout: str | None = None,
         extra: Mapping[str, Any] | None = None) -> None:
    """Write `bf` as a TOML scenario file, atomically (temporary file, then a rename)."""
    if Path(path).suffix.lower() != ".toml":
        raise TmgError(f"a scenario is saved as .toml, got {str(path)!r}")
    write_text(path, dumps(document(bf, layout=layout, extra=extra)))
