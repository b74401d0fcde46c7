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
from collections.abc import Mapping
from typing import Any

from shapely.geometry import Polygon
from shapely.validation import explain_validity

from geom.errors import TmgError

# Sanity bounds on input numbers (no table or piece comes near them; far beyond them floating
# point geometry overflows). A table edge over MAX_TABLE inches is refused.
MAX_ABS = 1e5
MAX_TABLE = 1000.0


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
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise ctx.err(obj, field, f"expected a number, got {v!r}")
    if abs(v) > MAX_ABS:
        raise ctx.err(obj, field, f"{v!r} is out of range (at most {MAX_ABS:g} either way)")
    if positive and v <= 0:
        raise ctx.err(obj, field, f"must be > 0, got {v!r}")
    if nonneg and v < 0:
        raise ctx.err(obj, field, f"must be >= 0, got {v!r}")
    return float(v)


def integer(ctx: Ctx, obj: str, field: str, v: Any, lo: int | None = None,
         hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ctx.err(obj, field, f"expected an integer, got {v!r}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ctx.err(obj, field, f"must be between {lo} and {hi}, got {v!r}")
    if abs(v) > MAX_ABS:
        raise ctx.err(obj, field, f"{v!r} is out of range (at most {MAX_ABS:g} either way)")
    return v


def boolean(ctx: Ctx, obj: str, field: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise ctx.err(obj, field, f"expected true or false, got {v!r}")
    return v


def string(ctx: Ctx, obj: str, field: str, v: Any) -> str:
    if not isinstance(v, str) or not v.strip():
        raise ctx.err(obj, field, f"expected a non-empty string, got {v!r}")
    return v


def point(ctx: Ctx, obj: str, field: str, v: Any) -> tuple[float, float]:
    if not isinstance(v, list | tuple) or len(v) != 2:
        raise ctx.err(obj, field, f"expected a point [x, y], got {v!r}")
    return (number(ctx, obj, field, v[0]), number(ctx, obj, field, v[1]))


def fields(ctx: Ctx, obj: str, v: Any, allowed: set[str]) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise ctx.err(obj, None, f"expected a table of fields, got {type(v).__name__}")
    for k in v:
        if k not in allowed:
            raise ctx.err(obj, str(k), f"unknown field (allowed: {', '.join(sorted(allowed))})")
    return v


def listof(ctx: Ctx, obj: str | None, field: str, v: Any) -> list[Any]:
    if not isinstance(v, list):
        raise ctx.err(obj, field, f"expected a list, got {type(v).__name__}")
    return v


def polygon(ctx: Ctx, obj: str, field: str, v: Any) -> Polygon:
    pts = listof(ctx, obj, field, v)
    if len(pts) < 3:
        raise ctx.err(obj, field, "a polygon needs at least 3 points")
    coords = [point(ctx, obj, field, p) for p in pts]
    poly = Polygon(coords)
    if not poly.is_valid:
        raise ctx.err(obj, field, f"polygon is not simple ({explain_validity(poly)})")
    if poly.area <= 0:
        raise ctx.err(obj, field, "polygon has no area")
    return poly
