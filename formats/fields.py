"""Typed field readers for every document the project reads (scenario files and the packaged
map data): each problem becomes one `FormatError` naming the file, the object and the field.

>>> ctx = Ctx("army.toml")
>>> number(ctx, "unit 'marines'", "supply", 2)
2.0
>>> try:
...     number(ctx, "unit 'marines'", "supply", "two")
... except FormatError as exc:
...     print(exc)
army.toml: unit 'marines': field 'supply': expected a number, got 'two'
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Mapping
from typing import Any

from shapely.geometry import Polygon
from shapely.validation import explain_validity

from geom.errors import TmgError

from . import limits

# Sanity bound on input numbers (no table or piece comes near it; far beyond it floating point
# geometry overflows). The other limits are in `formats.limits`.
MAX_ABS = 1e5
MAX_TABLE = limits.MAX_TABLE

_short = reprlib.Repr()
_short.maxstring = _short.maxother = 60
_short.maxlong = 24
_short.maxlist = _short.maxtuple = _short.maxdict = 4
_short.maxlevel = 3


def shown(v: Any) -> str:
    """A value as a message quotes it: Python's repr, cut short (a 10,000-digit number, a long
    string or a deep list becomes a few dozen characters).

    >>> shown(10 ** 400)
    '1000000000...00000000000'
    >>> shown([[[[1]]]])
    '[[[[...]]]]'
    """
    return _short.repr(v)


class FormatError(TmgError):
    """Bad input in a file: names the file, the object and the field."""


class Ctx:
    """The file being read, so that every error can name it."""

    def __init__(self, file: str) -> None:
        self.file = file

    def err(self, obj: str | None, field: str | None, msg: str) -> FormatError:
        return FormatError(msg, file=self.file, obj=obj, field=field)


def number(ctx: Ctx, obj: str, field: str, v: Any, *, positive: bool = False,
         nonneg: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise ctx.err(obj, field, f"expected a number, got {shown(v)}")
    # an int is compared as an int: float(10 ** 400) would overflow
    if isinstance(v, float) and not math.isfinite(v):
        raise ctx.err(obj, field, f"expected a finite number, got {shown(v)}")
    if abs(v) > MAX_ABS:
        raise ctx.err(obj, field, f"{shown(v)} is out of range (at most {MAX_ABS:g} either way)")
    if positive and v <= 0:
        raise ctx.err(obj, field, f"must be > 0, got {shown(v)}")
    if nonneg and v < 0:
        raise ctx.err(obj, field, f"must be >= 0, got {shown(v)}")
    return float(v)


def integer(ctx: Ctx, obj: str, field: str, v: Any, lo: int | None = None,
         hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ctx.err(obj, field, f"expected an integer, got {shown(v)}")
    if abs(v) > MAX_ABS:
        raise ctx.err(obj, field, f"{shown(v)} is out of range (at most {MAX_ABS:g} either way)")
    if lo is not None and v < lo:
        raise ctx.err(obj, field, f"must be at least {lo}, got {v}" if hi is None
                      else f"must be between {lo} and {hi}, got {v}")
    if hi is not None and v > hi:
        raise ctx.err(obj, field, f"must be between {lo} and {hi}, got {v}")
    return v


def boolean(ctx: Ctx, obj: str, field: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise ctx.err(obj, field, f"expected true or false, got {shown(v)}")
    return v


def string(ctx: Ctx, obj: str, field: str, v: Any, most: int = limits.MAX_TEXT) -> str:
    if not isinstance(v, str) or not v.strip():
        raise ctx.err(obj, field, f"expected a non-empty string, got {shown(v)}")
    if len(v) > most:
        raise ctx.err(obj, field, f"{len(v):,} characters, more than the {most:,} accepted")
    return v


def point(ctx: Ctx, obj: str, field: str, v: Any) -> tuple[float, float]:
    if not isinstance(v, list | tuple) or len(v) != 2:
        raise ctx.err(obj, field, f"expected a point [x, y], got {shown(v)}")
    return (number(ctx, obj, field, v[0]), number(ctx, obj, field, v[1]))


def fields(ctx: Ctx, obj: str, v: Any, allowed: set[str], prefix: str = "") -> Mapping[str, Any]:
    """`v` as a table whose keys are all `allowed`; `prefix` names the table it sits in
    (`rect.`), so an unknown key is reported as `rect.size`."""
    if not isinstance(v, Mapping):
        raise ctx.err(obj, prefix.rstrip(".") or None,
                      f"expected a table of fields, got {type(v).__name__}")
    for k in v:
        if k not in allowed:
            raise ctx.err(obj, prefix + shown(k).strip("'\""), "unknown field (allowed: "
                          f"{', '.join(sorted(allowed))})")
    return v


def listof(ctx: Ctx, obj: str | None, field: str, v: Any, most: int | None = None
           ) -> list[Any]:
    if not isinstance(v, list):
        raise ctx.err(obj, field, f"expected a list, got {type(v).__name__}")
    if most is not None:
        check_count(ctx, obj, field, len(v), most)
    return v


def check_count(ctx: Ctx, obj: str | None, field: str, n: int, most: int) -> None:
    """At most `most` entries (`formats.limits`), else an error naming the field."""
    if n > most:
        raise ctx.err(obj, field, f"{n:,} entries, more than the {most:,} accepted")


def check_document(ctx: Ctx, doc: Any) -> None:
    """A parsed document's shape before any field is read: nesting at most `MAX_DEPTH` deep and
    every string (keys too) valid Unicode — a JSON file may hold an unpaired surrogate such as
    "\\ud800", which no output could print. Iterative, so no nesting exhausts the stack.

    >>> check_document(Ctx("a.json"), {"table": {"width": 54}})
    >>> try:
    ...     check_document(Ctx("a.json"), {"unit": [{"id": "m\\ud800"}]})
    ... except FormatError as exc:
    ...     print(exc)
    a.json: unit[0]: field 'id': not valid text (an unpaired surrogate \\ud800)
    """
    stack: list[tuple[Any, tuple[str, ...]]] = [(doc, ())]
    while stack:
        v, path = stack.pop()
        if len(path) > limits.MAX_DEPTH:
            obj, field = _where(path)
            raise ctx.err(obj, field, f"nested more than {limits.MAX_DEPTH} levels deep")
        if isinstance(v, str):
            _check_text(ctx, path, v)
        elif isinstance(v, Mapping):
            for k, x in v.items():
                key = str(k)
                _check_text(ctx, (*path, "<key>"), key)
                stack.append((x, (*path, key)))
        elif isinstance(v, list):
            for i, x in enumerate(v):
                stack.append((x, (*path, f"[{i}]")))


def _where(path: tuple[str, ...]) -> tuple[str, str | None]:
    """A place in a document as (object, field): `unit[2]`, `models[0].at` (long paths cut)."""
    if not path:
        return "scenario", None
    n = 2 if len(path) > 1 and path[1].startswith("[") else 1
    head, rest = "".join(path[:n]), list(path[n:])
    if not rest:
        return head, None
    if len(rest) > 4:
        rest = [*rest[:2], "…", *rest[-1:]]
    field = rest[0] + "".join(p if p.startswith("[") or p == "…" else "." + p
                              for p in rest[1:])
    return head, field


def _check_text(ctx: Ctx, path: tuple[str, ...], s: str) -> None:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = s[exc.start:exc.end].encode("utf-8", "backslashreplace").decode()
        what = "a key" if path and path[-1] == "<key>" else "text"
        obj, field = _where(path[:-1] if what == "a key" else path)
        raise ctx.err(obj, field, f"not valid {what} (an unpaired surrogate {bad})") from None


def polygon(ctx: Ctx, obj: str, field: str, v: Any) -> Polygon:
    pts = listof(ctx, obj, field, v, limits.MAX_VERTICES)
    if len(pts) < 3:
        raise ctx.err(obj, field, "a polygon needs at least 3 points")
    coords = [point(ctx, obj, field, p) for p in pts]
    # a vertex given twice in a row adds nothing to the shape, and some GEOS operations
    # (constrained triangulation) fail on it: dropped here (exactly equal points, as
    # `shapely.remove_repeated_points`), and a ring left with fewer than 3 corners is refused
    # before GEOS is asked to build it
    kept = [c for i, c in enumerate(coords) if i == 0 or c != coords[i - 1]]
    if len(kept) > 1 and kept[-1] == kept[0]:
        kept.pop()
    if len(kept) < 3:
        raise ctx.err(obj, field, f"a polygon needs at least 3 distinct corners, got {len(kept)}"
                      " once repeated points are dropped")
    poly = Polygon(kept)
    if not poly.is_valid:
        raise ctx.err(obj, field, f"polygon is not simple ({explain_validity(poly)})")
    if poly.area <= 0:
        raise ctx.err(obj, field, "polygon has no area")
    return poly
