"""Terrain entries as files write them (the scenario's `[[terrain]]` tables and the packaged map
layouts use the same keys, so one parser serves both): footprint (`polygon`, `rect` or
`circle`), Size, kind, standable top, stacking, openings and access points (rulebook §7.1,
§8.5.3).

`rect` is centred on `center`, `width` along x and `depth` along y before it is turned by
`angle` degrees counter-clockwise; a `circle` becomes a 128-gon.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from shapely.geometry import Point as SPoint
from shapely.geometry import Polygon

from geom.model import TERRAIN_KINDS, TerrainPiece

from .fields import Ctx, boolean, fields, integer, listof, number, point, polygon, string

TERRAIN_FIELDS = {"id", "size", "polygon", "rect", "circle", "kind", "standable", "on",
                  "openings", "access_points", "label", "catalogue", "remove"}


def footprint(ctx: Ctx, obj: str, e: Mapping[str, Any]) -> Polygon:
    given = [k for k in ("polygon", "rect", "circle") if k in e]
    if len(given) != 1:
        raise ctx.err(obj, "polygon", "give exactly one of polygon, rect or circle")
    kind = given[0]
    if kind == "polygon":
        return polygon(ctx, obj, "polygon", e["polygon"])
    if kind == "rect":
        r = fields(ctx, obj, e["rect"], {"center", "width", "depth", "angle"}, "rect.")
        for k in ("center", "width", "depth"):
            if k not in r:
                raise ctx.err(obj, f"rect.{k}", "missing")
        cx, cy = point(ctx, obj, "rect.center", r["center"])
        w = number(ctx, obj, "rect.width", r["width"], positive=True)
        d = number(ctx, obj, "rect.depth", r["depth"], positive=True)
        ang = math.radians(number(ctx, obj, "rect.angle", r.get("angle", 0)))
        c, s = math.cos(ang), math.sin(ang)
        corners = [(-w / 2, -d / 2), (w / 2, -d / 2), (w / 2, d / 2), (-w / 2, d / 2)]
        return Polygon([(cx + c * x - s * y, cy + s * x + c * y) for x, y in corners])
    c_ = fields(ctx, obj, e["circle"], {"center", "radius"}, "circle.")
    for k in ("center", "radius"):
        if k not in c_:
            raise ctx.err(obj, f"circle.{k}", "missing")
    cx, cy = point(ctx, obj, "circle.center", c_["center"])
    rad = number(ctx, obj, "circle.radius", c_["radius"], positive=True)
    # 128 vertices: 1.2e-4 of the radius short of the true circle at most.
    return SPoint(cx, cy).buffer(rad, quad_segs=32)


def parse_terrain(ctx: Ctx, e: Any, index: int) -> TerrainPiece | str:
    """One [[terrain]] entry; returns the id alone for `remove = true`."""
    label = f"terrain #{index + 1}"
    e = fields(ctx, label, e, TERRAIN_FIELDS)
    if "id" not in e:
        raise ctx.err(label, "id", "missing")
    pid = string(ctx, label, "id", e["id"])
    obj = f"terrain {pid!r}"
    if e.get("remove") is not None:
        if boolean(ctx, obj, "remove", e["remove"]):
            return pid
    if "size" not in e:
        raise ctx.err(obj, "size", "missing")
    size = integer(ctx, obj, "size", e["size"], lo=0)
    kind = e.get("kind", "solid")
    if kind not in TERRAIN_KINDS:
        raise ctx.err(obj, "kind", f"must be one of {', '.join(TERRAIN_KINDS)}, got {kind!r}")
    openings = tuple(polygon(ctx, obj, "openings", p)
                     for p in listof(ctx, obj, "openings", e.get("openings", [])))
    access = tuple(polygon(ctx, obj, "access_points", p)
                   for p in listof(ctx, obj, "access_points", e.get("access_points", [])))
    on = e.get("on")
    if e.get("catalogue") is not None:  # the layout files' piece type: a note, not geometry
        string(ctx, obj, "catalogue", e["catalogue"])
    return TerrainPiece(
        id=pid, size=size, footprint=footprint(ctx, obj, e), kind=kind,
        standable=boolean(ctx, obj, "standable", e.get("standable", False)),
        on=None if on is None else string(ctx, obj, "on", on),
        openings=openings, access_points=access,
        label=None if e.get("label") is None else string(ctx, obj, "label", e["label"]),
    )
