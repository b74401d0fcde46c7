"""The SVG backend: the same `Frame` the OpenGL drawing shows, written as vector graphics
(for sharing and printing). Every primitive of the scene (`Area`, `Stroke`, `Text`), the
furniture, the panels and the inset of a close-up are drawn in the order OpenGL draws them,
with the same pixel geometry (stroke widths, dash lengths, label boxes), so a picture looks the
same in both and every overlay works in both. Pure: no OpenGL.

SVG's y axis points down; the frame's points up (the table's sense: x right, y up), so y is flipped once here.

>>> from geom.model import Battlefield, Table
>>> from viewer.layout import frame_for_width
>>> from viewer.scene import build_scene
>>> sc = build_scene(Battlefield(Table(54, 36), name="Empty"))
>>> text = svg_text(sc, frame_for_width(sc, 800))
>>> text.startswith("<?xml") and "<svg" in text and ">Empty</text>" in text
True
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import numpy as np
from shapely.geometry import MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

from formats.atomic import write_text

from . import style as st
from .labels import Placed
from .layout import Frame, inset_prims
from .scene import Area, Prim, Scene, Stroke, Transform
from .strokes import DASH_GAP, stroke_pixels
from .style import RGBA

FONT = "DejaVu Sans, Verdana, sans-serif"
SCREEN_LAYER, INSET_LAYER = 1000, 2000  # as viewer.draw orders them


def _rgb(c: RGBA) -> str:
    return f"rgb({c[0]},{c[1]},{c[2]})"


def _num(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".") or "0"


class _Writer:
    def __init__(self, frame: Frame) -> None:
        self.h = frame.height
        self.items: list[tuple[int, int, str]] = []

    def add(self, order: int, text: str) -> None:
        self.items.append((order, len(self.items), text))

    def pt(self, x: float, y: float) -> str:
        return f"{_num(x)},{_num(self.h - y)}"

    def polys(self, geom: BaseGeometry) -> Iterable[Polygon]:
        for g in getattr(geom, "geoms", [geom]):
            if isinstance(g, Polygon) and not g.is_empty:
                yield g
            elif isinstance(g, MultiPolygon):
                yield from self.polys(g)

    def area(self, p: Area, tr: Transform | None, order: int, clip: str) -> None:
        d: list[str] = []
        for poly in self.polys(p.geom):
            for r in [poly.exterior, *poly.interiors]:
                pts = np.asarray(r.coords)
                if tr is not None:
                    pts = tr.apply(pts)
                d.append("M" + " L".join(self.pt(x, y) for x, y in pts[:-1]) + " Z")
        if d:
            self.add(order, f'<path d="{" ".join(d)}" fill="{_rgb(p.colour)}" '
                     f'fill-opacity="{p.colour[3] / 255:.3f}" fill-rule="evenodd"{clip}/>')

    def stroke(self, p: Stroke, tr: Transform | None, u: float, order: int, clip: str) -> None:
        pts = stroke_pixels(p, tr, u)
        if len(pts) < 2:
            return
        w = max(1.0, p.width * u)
        dash = (f' stroke-dasharray="{_num(p.dash * u)} {_num(p.dash * u * DASH_GAP)}"'
                if p.dash else "")
        self.add(order, f'<polyline points="{" ".join(self.pt(x, y) for x, y in pts)}" '
                 f'fill="none" stroke="{_rgb(p.colour)}" stroke-opacity='
                 f'"{p.colour[3] / 255:.3f}" stroke-width="{_num(w)}" stroke-linecap="square" '
                 f'stroke-linejoin="miter"{dash}{clip}/>')

    def prim(self, p: Prim, tr: Transform | None, u: float, base: int, clip: str = "") -> None:
        order = base + p.layer * 3
        if isinstance(p, Area):
            self.area(p, tr, order, clip)
        elif isinstance(p, Stroke):
            self.stroke(p, tr, u, order, clip)

    def label(self, pl: Placed, clip: str) -> None:
        t = pl.text
        base = (SCREEN_LAYER if pl.screen else 0) + t.layer * 3
        if t.halo:
            x0, y0, x1, y1 = pl.box
            self.add(base + 1, f'<rect x="{_num(x0)}" y="{_num(self.h - y1)}" '
                     f'width="{_num(x1 - x0)}" height="{_num(y1 - y0)}" '
                     f'fill="{_rgb(st.HALO)}" fill-opacity="{st.HALO[3] / 255:.3f}"{clip}/>')
        anchor = {"left": "start", "center": "middle", "right": "end"}[pl.anchor_x]
        weight = ' font-weight="bold"' if t.bold else ""
        self.add(base + 2, f'<text x="{_num(pl.x)}" y="{_num(self.h - pl.y)}" '
                 f'font-family={quoteattr(FONT)} font-size="{_num(pl.size)}" '
                 f'text-anchor="{anchor}" dominant-baseline="central"{weight} xml:space="preserve" '
                 f'fill="{_rgb(t.colour)}"{clip}>{escape(pl.string)}</text>')

    def text(self) -> str:
        return "\n".join(s for _, _, s in sorted(self.items))


def svg_text(scene: Scene, frame: Frame) -> str:
    """The picture as an SVG document."""
    w = _Writer(frame)
    t = frame.transform
    # data-*: the world-to-picture transform (px = ox + scale·x, picture y up from the bottom),
    # so a page that shows the picture can turn a tap into table inches (web/)
    head = ['<?xml version="1.0" encoding="UTF-8"?>',
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{frame.width}" '
            f'height="{frame.height}" viewBox="0 0 {frame.width} {frame.height}" '
            f'data-scale="{t.scale!r}" data-ox="{t.ox!r}" data-oy="{t.oy!r}">',
            f"<title>{escape(scene.title)}</title>"]
    clip = ""
    if frame.view is not None:
        x0, y0, x1, y1 = frame.view
        head.append(f'<defs><clipPath id="view"><rect x="{_num(x0)}" y="{_num(frame.height - y1)}"'
                    f' width="{_num(x1 - x0)}" height="{_num(y1 - y0)}"/></clipPath></defs>')
        clip = ' clip-path="url(#view)"'
    head.append(f'<rect width="{frame.width}" height="{frame.height}" '
                f'fill="{_rgb(st.BACKGROUND)}"/>')
    tr, u = frame.transform, frame.u
    for p in scene.prims:
        w.prim(p, tr, u, 0, clip)
    for x0, y0, x1, y1 in frame.panels:
        w.add(SCREEN_LAYER - 1, f'<rect x="{_num(x0)}" y="{_num(frame.height - y1)}" '
              f'width="{_num(x1 - x0)}" height="{_num(y1 - y0)}" '
              f'fill="{_rgb(st.BACKGROUND)}"/>')
    for p in frame.screen:
        w.prim(p, None, u, SCREEN_LAYER)
    for inset in frame.insets:
        for p in inset_prims(scene, inset, u):
            w.prim(p, None, u, INSET_LAYER)
    for pl in frame.texts:
        w.label(pl, "" if pl.screen else clip)
    return "\n".join(head) + "\n" + w.text() + "\n</svg>\n"


def write(path: str | Path, scene: Scene, frame: Frame) -> None:
    """Write the SVG atomically."""
    write_text(path, svg_text(scene, frame))
