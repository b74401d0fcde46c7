"""Template shapes and sizes, as data (rulebook §8.7.6 template weapons, §12.8 summary table).

**Template sizes are PROVISIONAL.** The rulebook's drawings of the templates did not survive and no
public source gives their dimensions, so the shapes live in `geom/data/templates.json` with a
placeholder default marked provisional there; every answer that used a placeholder says so
(`TemplateShape.provisional`). Callers give the real sizes with `make_shape` / `shapes_from_table`
(a scenario's `[templates]` table, or the command line).

A blast template (BT) is a disc of a `diameter`; a flamer template (FT) an isosceles trapezoid
`length` long along its axis, `narrow` wide at the end that touches the attacker (0: a point) and
`wide` at the far end. Bad dimensions raise `TmgError` naming the file, the object and the field.

>>> shape = make_shape("blast", {"diameter": 3.0}, "example")
>>> shape["diameter"], shape.provisional
(3.0, False)
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..errors import TmgError

BLAST, FLAMER = "blast", "flamer"
KINDS = (BLAST, FLAMER)
DIMENSIONS: dict[str, tuple[str, ...]] = {BLAST: ("diameter",), FLAMER: ("length", "narrow", "wide")}
DATA_FILE = "geom/data/templates.json"
# The documented bound on any number (docs/interface.md, "Limits"; `formats.fields.MAX_ABS` for
# the other fields of a file): far beyond it the template's geometry overflows floating point.
MAX_DIMENSION = 1e5
PROVISIONAL_SOURCE = f"PROVISIONAL default ({DATA_FILE}): no public source gives this size"


@cache
def _data() -> dict[str, Any]:
    # Next to this module rather than importlib.resources: an editable install made before
    # geom/__init__.py existed maps `geom` as a namespace package, which resources cannot read.
    path = Path(__file__).resolve().parent.parent / "data" / "templates.json"
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
    check_kind(kind)
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
    keep the base's. Raises TmgError naming `file`/`obj`/the field for a bad dimension.

    Parameters
    ----------
    kind : str
        "blast" (dimension ``diameter``) or "flamer" (``length``, ``narrow``, ``wide``).
    values : mapping of str to float or None
        The dimensions to set, in inches.
    source : str
        Where the given sizes come from (outputs quote it).
    base : TemplateShape, optional
        The shape to start from; default: the data file's (PROVISIONAL) default.
    file, obj : str, optional
        Where the values were read, for error messages.

    Returns
    -------
    TemplateShape
        The shape, with each dimension's source.

    Raises
    ------
    TmgError
        An unknown kind or dimension, or a value that is not a sensible number of inches.

    Examples
    --------
    >>> from geom import TmgError, make_shape
    >>> make_shape("blast", {"diameter": 3.0}, "house rules").dims
    (('diameter', 3.0),)
    >>> try:
    ...     make_shape("blast", {"radius": 1.5}, "house rules", file="game.toml",
    ...                obj="templates.blast")
    ... except TmgError as e:
    ...     print(e)
    game.toml: templates.blast: field 'radius': a blast template has no dimension 'radius' (it has diameter)
    """
    check_kind(kind)
    base = base or default_shape(kind)
    dims, sources = dict(base.dims), dict(base.sources)
    for k, v in values.items():
        if k not in DIMENSIONS[kind]:
            raise TmgError(f"a {kind} template has no dimension {k!r} (it has "
                           f"{', '.join(DIMENSIONS[kind])})", file=file, obj=obj, field=k)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int | float) or \
                (isinstance(v, float) and not math.isfinite(v)):
            raise TmgError(f"expected a number of inches, got {v!r}", file=file, obj=obj, field=k)
        if abs(v) > MAX_DIMENSION:  # an int is compared as an int: float(10 ** 400) overflows
            shown = f"{v:g}" if isinstance(v, float) else f"an integer of {len(str(abs(v)))} digits"
            raise TmgError(f"{shown} is out of range (at most {MAX_DIMENSION:g} inches)",
                           file=file, obj=obj, field=k)
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


def check_kind(kind: str) -> None:
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


