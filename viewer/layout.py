"""Laying a scene out in pixels: the world→pixel `Transform` fitted to a picture width
(`frame_for_width`), to a close-up of part of the table with an inset of the whole
(`frame_for_box`), or to a window and its camera (`frame_for_window`); and the furniture —
title, axis figures, scale bar, legend, the verdict sentences wrapped to the width. Labels are
placed by `viewer.labels`; stroke geometry is `viewer.strokes`. Pure: no OpenGL.

In the window the legend and the answers live in a panel of fixed size (beside the table on a
wide window, under it on a tall one), so the table's transform depends on the window and the
camera only: adding an answer never moves the table under the mouse.

Sizes are pixels at 1600 px wide multiplied by `Frame.u`, so a picture of any width looks the
same and text stays legible at 1600 px.

>>> from geom.model import Battlefield, Table
>>> from viewer.scene import build_scene
>>> f = frame_for_width(build_scene(Battlefield(Table(54, 36))), 1600)
>>> f.width, round(f.transform.scale, 3)
(1600, 28.0)
>>> x0, y0 = f.transform.to_px((0, 0)); x1, y1 = f.transform.to_px((54, 36))
>>> round(x1 - x0), round(y1 - y0)
(1512, 1008)
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, replace

import shapely
import shapely.affinity
from shapely.geometry import Point as SPoint

from geom.model import Table

from . import markings as mk
from . import style as st
from .labels import Box, Placed, place_labels, text_box
from .markings import LegendEntry
from .scene import GRID_STEP, Area, Point, Prim, Scene, Stroke, Text, Transform
from .strokes import dash_segments, segment_quads
from .style import RGBA

__all__ = ["Box", "Camera", "Frame", "Inset", "Placed", "dash_segments", "frame_for_box",
           "frame_for_width", "frame_for_window", "segment_quads", "text_box", "window_fit"]

MARGIN, AXIS_BAND, TITLE_BAND = 14.0, 30.0, 54.0
SCALE_ROW, LEGEND_ROW, INFO_ROW, LEGEND_COL = 40.0, 30.0, 25.0, 380.0
RAMP_ROW = 52.0
SIDE_PANEL, BOTTOM_PANEL = 400.0, 250.0  # the window's answer panel (px at u = 1)


@dataclass(frozen=True)
class Inset:
    """The whole table drawn small in a corner of a close-up, with the close-up's area."""

    transform: Transform
    box: Box  # pixels
    focus: tuple[float, float, float, float]  # world box of the close-up


@dataclass(frozen=True)
class Frame:
    """A scene laid out in pixels: picture size, transform, furniture and placed labels.
    `view`: the pixel box where the table is seen (world primitives outside it are covered by
    the `panels`); None: the whole picture."""

    width: int
    height: int
    u: float
    transform: Transform
    screen: tuple[Prim, ...]  # Area/Stroke in pixel coordinates (already placed)
    texts: tuple[Placed, ...]
    panels: tuple[Box, ...] = ()  # opaque strips (title, legend) drawn over the table
    scale_bar: tuple[float, float, float, float] = (0, 0, 0, 0)  # x, y, length px, inches
    dropped: tuple[str, ...] = ()  # labels that fit nowhere (shown nowhere)
    view: Box | None = None
    insets: tuple[Inset, ...] = ()

    def scaled(self, k: int) -> Frame:
        """The same picture k times larger (supersampling)."""
        def sp(p: Prim) -> Prim:
            if isinstance(p, Area):
                return replace(p, geom=shapely.affinity.scale(p.geom, k, k, origin=(0, 0)))
            if isinstance(p, Stroke):
                return replace(p, points=tuple((x * k, y * k) for x, y in p.points))
            return p

        def sb(b: Box) -> Box:
            return (b[0] * k, b[1] * k, b[2] * k, b[3] * k)

        def st_(t: Transform) -> Transform:
            return Transform(t.scale * k, t.ox * k, t.oy * k)

        return Frame(self.width * k, self.height * k, self.u * k, st_(self.transform),
                     tuple(sp(p) for p in self.screen),
                     tuple(replace(pl, x=pl.x * k, y=pl.y * k, size=pl.size * k)
                           for pl in self.texts),
                     tuple(sb(b) for b in self.panels),
                     (self.scale_bar[0] * k, self.scale_bar[1] * k, self.scale_bar[2] * k,
                      self.scale_bar[3]), self.dropped,
                     None if self.view is None else sb(self.view),
                     tuple(Inset(st_(i.transform), sb(i.box), i.focus) for i in self.insets))


@dataclass(frozen=True)
class Camera:
    """Window view: `zoom` relative to fit-to-window, looking at world point `centre`."""

    zoom: float = 1.0
    centre: Point | None = None


# --------------------------------------------------------------------------- sizes

def _legend_cols(width: float, u: float) -> int:
    return max(1, int((width - 2 * MARGIN * u) // (LEGEND_COL * u)))


def _wrap(lines: Sequence[str], width: float, u: float) -> list[str]:
    chars = max(20, int((width - 2 * MARGIN * u) / (st.CHAR_WIDTH * st.INFO_SIZE * u)))
    out: list[str] = []
    for line in lines:
        out += textwrap.wrap(line, chars, subsequent_indent="    ") or [""]
    return out


def _split_legend(legend: Sequence[LegendEntry]) -> tuple[list[LegendEntry], list[LegendEntry]]:
    return [e for e in legend if e.kind != "ramp"], [e for e in legend if e.kind == "ramp"]


def bottom_height(scene: Scene, width: float, u: float) -> float:
    """Height of the furniture under the table: scale bar, legend, colour bars, sentences."""
    plain, ramps = _split_legend(scene.legend)
    rows = math.ceil(len(plain) / _legend_cols(width, u)) if plain else 0
    n_info = len(_wrap(scene.info, width, u))
    return (SCALE_ROW + rows * LEGEND_ROW + len(ramps) * RAMP_ROW + n_info * INFO_ROW
            + MARGIN) * u


def axis_step(scale: float, u: float) -> float:
    """Inches between axis figures: 6" (the grid), or 2" / 1" on a close view."""
    if scale >= 45 * u:
        return 1.0
    if scale >= 22 * u:
        return 2.0
    return GRID_STEP


def nice_scale_length(scale: float, u: float, most: float = math.inf) -> float:
    """Whole inches for the scale bar: the largest of 1, 2, 3, 6, 12, 24 under 260 px (and
    under `most` px)."""
    best = 1.0
    for inches in (1, 2, 3, 6, 12, 24):
        if inches * scale <= min(260 * u, most):
            best = float(inches)
    return best


# --------------------------------------------------------------------------- frames

def frame_for_width(scene: Scene, width: int) -> Frame:
    """A picture `width` px wide of the whole table; its height follows from the legend."""
    u = width / st.REFERENCE_WIDTH
    t = scene.table
    side = (MARGIN + AXIS_BAND) * u
    scale = (width - 2 * side) / t.width
    bottom = bottom_height(scene, width, u)
    height = int(math.ceil(bottom + AXIS_BAND * u + scale * t.depth + AXIS_BAND * u
                           + TITLE_BAND * u + MARGIN * u))
    tr = Transform(scale, side, bottom + AXIS_BAND * u)
    return _furnish(scene, width, height, u, tr, (0, 0, width, bottom), view=None,
                    panels=(), step=GRID_STEP)


def frame_for_box(scene: Scene, box: tuple[float, float, float, float], width: int,
                  inset: bool = True) -> Frame:
    """A close-up picture `width` px wide of the world box (x0, y0, x1, y1), with an inset of
    the whole table showing where the close-up is (`inset`)."""
    x0, y0, x1, y1 = box
    if not (x1 > x0 and y1 > y0):
        raise ValueError("an empty box")
    u = width / st.REFERENCE_WIDTH
    side = (MARGIN + AXIS_BAND) * u
    scale = (width - 2 * side) / (x1 - x0)
    bottom = bottom_height(scene, width, u)
    vy0 = bottom + AXIS_BAND * u
    vh = scale * (y1 - y0)
    height = int(math.ceil(vy0 + vh + AXIS_BAND * u + TITLE_BAND * u + MARGIN * u))
    tr = Transform(scale, side - scale * x0, vy0 - scale * y0)
    view = (side, vy0, width - side, vy0 + vh)
    panels = ((0, 0, width, view[1]), (0, view[3], width, height), (0, view[1], view[0],
              view[3]), (view[2], view[1], width, view[3]))
    insets: tuple[Inset, ...] = ()
    t = scene.table
    if inset:
        iw = min(max(0.26 * (view[2] - view[0]), 170 * u), 420 * u)
        s = (iw - 8 * u) / t.width
        ih = s * t.depth + 8 * u
        ibox = _inset_corner(scene, tr, view, iw, ih, 10 * u)
        insets = (Inset(Transform(s, ibox[0] + 4 * u, ibox[1] + 4 * u), ibox, box),)
    return _furnish(scene, width, height, u, tr, (0, 0, width, bottom), view=view,
                    panels=panels, step=axis_step(scale, u), insets=insets)


# What an inset must not hide: models, markers and the answers drawn over the table (terrain,
# labels, zones and the grid are furniture it may cover; the inset itself shows where they are).
_INSET_MAY_COVER = ("terrain", "label", "grid", "table", "zone", "edge", "inset")


def _inset_corner(scene: Scene, tr: Transform, view: Box, iw: float, ih: float, pad: float
                  ) -> Box:
    """The inset's pixel box in the corner of `view` where it hides the least of what the
    picture is about (top right when nothing is hidden anywhere, or on a tie)."""
    x0, y0, x1, y1 = view
    corners = [(x1 - pad - iw, y1 - pad - ih), (x0 + pad, y1 - pad - ih),
               (x1 - pad - iw, y0 + pad), (x0 + pad, y0 + pad)]
    shown = [p for p in scene.prims if not p.tag.startswith(_INSET_MAY_COVER)]
    geoms = []
    for p in shown:
        if isinstance(p, Area):
            geoms.append(p.geom)
        elif isinstance(p, Stroke) and len(p.points) >= 2:
            geoms.append(shapely.LineString(p.points).buffer(0.05))
    stuff = shapely.union_all(geoms) if geoms else None

    def hidden(c: tuple[float, float]) -> float:
        if stuff is None:
            return 0.0
        wx0, wy0 = tr.to_world(c[0], c[1])
        world = shapely.box(wx0, wy0, wx0 + iw / tr.scale, wy0 + ih / tr.scale)
        return float(stuff.intersection(world).area)

    best = min(range(4), key=lambda k: (round(hidden(corners[k]), 9), k))
    cx, cy = corners[best]
    return (cx, cy, cx + iw, cy + ih)


def window_u(width: int) -> float:
    return min(1.4, max(0.7, width / st.REFERENCE_WIDTH))


def panel_box(table: Table, width: int, height: int, u: float) -> tuple[Box, str]:
    """The window's answer panel: beside the table or under it, whichever leaves the table
    larger (a fixed size: it never depends on how many answers there are)."""
    side_w = min(SIDE_PANEL * u, 0.4 * width)
    bottom_h = min(BOTTOM_PANEL * u, 0.4 * height)
    top = (TITLE_BAND + MARGIN) * u
    pad = 2 * (MARGIN + AXIS_BAND) * u
    tw, td = table.width, table.depth
    s_side = min((width - side_w - pad) / tw, (height - top - pad) / td)
    s_bottom = min((width - pad) / tw, (height - bottom_h - top - pad) / td)
    if s_side >= s_bottom:
        return (width - side_w, 0, width, height - top), "side"
    return (0, 0, width, bottom_h), "bottom"


def window_view(table: Table, width: int, height: int, u: float) -> Box:
    """Where the table is seen in the window: all but the title strip and the panel."""
    (px0, _, _, py1), where = panel_box(table, width, height, u)
    top = height - (TITLE_BAND + MARGIN) * u
    return (0, 0, px0, top) if where == "side" else (0, py1, width, top)


def window_fit(table: Table, width: int, height: int) -> Transform:
    """The table fitted into the window's view (leaving room for the axis figures)."""
    u = window_u(width)
    vx0, vy0, vx1, vy1 = window_view(table, width, height, u)
    pad = (MARGIN + AXIS_BAND) * u
    avail_w, avail_h = vx1 - vx0 - 2 * pad, vy1 - vy0 - 2 * pad
    scale = max(1e-3, min(avail_w / table.width, avail_h / table.depth))
    cx, cy = vx0 + pad + avail_w / 2, vy0 + pad + avail_h / 2
    return Transform(scale, cx - scale * table.width / 2, cy - scale * table.depth / 2)


def camera_transform(table: Table, fit: Transform, camera: Camera) -> Transform:
    if camera.zoom == 1.0 and camera.centre is None:
        return fit
    cwx, cwy = camera.centre if camera.centre is not None else table.centre
    # the pixel that shows the table centre when fitted is where the camera centre goes
    px, py = fit.to_px(table.centre)
    s = fit.scale * camera.zoom
    return Transform(s, px - s * cwx, py - s * cwy)


def frame_for_window(scene: Scene, width: int, height: int, camera: Camera = Camera()) -> Frame:
    """The window's view: fitted to the window's view area, then the camera's zoom and centre;
    legend and answers in the fixed panel."""
    u = window_u(width)
    tr = camera_transform(scene.table, window_fit(scene.table, width, height), camera)
    view = window_view(scene.table, width, height, u)
    pbox, _ = panel_box(scene.table, width, height, u)
    top = height - (TITLE_BAND + MARGIN) * u
    panels = ((0, top, width, height), pbox)
    return _furnish(scene, width, height, u, tr, pbox, view=view, panels=panels,
                    step=axis_step(tr.scale, u), pin_axes=True)


# --------------------------------------------------------------------------- the inset

INSET_STROKE = 0.35  # stroke widths in the inset, as a share of the table's
INSET_MAX_LAYER = 15


def inset_prims(scene: Scene, inset: Inset, u: float) -> list[Prim]:
    """The inset in pixels: a framed background, the table drawn small (no labels, no
    answers), and the close-up's area outlined."""
    tr = inset.transform
    x0, y0, x1, y1 = inset.box
    out: list[Prim] = [Area(shapely.box(x0, y0, x1, y1), st.BACKGROUND, 0, "inset")]
    for p in scene.prims:
        if isinstance(p, Text) or (p.mark is not None and p.mark.key not in mk.TABLE_KEYS) \
                or p.layer > INSET_MAX_LAYER or p.tag.startswith("grid1"):
            continue  # the table, terrain, markers and units; not the answers
        if isinstance(p, Area):
            out.append(replace(p, geom=shapely.affinity.affine_transform(
                p.geom, [tr.scale, 0, 0, tr.scale, tr.ox, tr.oy]), layer=p.layer + 1))
        elif isinstance(p, Stroke):
            out.append(replace(p, points=tuple(tr.to_px(q) for q in p.points),
                               width=p.width * INSET_STROKE, shift=(p.shift[0] * INSET_STROKE,
                                                                     p.shift[1] * INSET_STROKE),
                               dash=None if p.dash is None else p.dash * INSET_STROKE,
                               layer=p.layer + 1))
    fx0, fy0, fx1, fy1 = inset.focus
    a, b = tr.to_px((fx0, fy0)), tr.to_px((fx1, fy1))
    top = INSET_MAX_LAYER + 2
    out.append(Stroke(((a[0], a[1]), (b[0], a[1]), (b[0], b[1]), (a[0], b[1])), st.INSET_FOCUS,
                      2.5, top, closed=True, tag="inset:focus"))
    out.append(Stroke(((x0, y0), (x1, y0), (x1, y1), (x0, y1)), st.TABLE_EDGE, 1.5, top,
                      closed=True, tag="inset"))
    return out


# --------------------------------------------------------------------------- furniture

def _furnish(scene: Scene, width: int, height: int, u: float, tr: Transform, furn: Box, *,
             view: Box | None, panels: tuple[Box, ...], step: float,
             insets: tuple[Inset, ...] = (), pin_axes: bool = False) -> Frame:
    screen: list[Prim] = []
    texts: list[Placed] = []
    t = scene.table
    x0, y0 = tr.to_px((0, 0))
    x1, y1 = tr.to_px((t.width, t.depth))
    ty = height - MARGIN * u - TITLE_BAND * u / 2
    texts.append(_screen(scene.title, st.TITLE_SIZE, u, MARGIN * u, ty, "left", bold=True,
                         tag="title"))
    texts.append(_screen(scene.subtitle, st.SUBTITLE_SIZE, u, width - MARGIN * u, ty, "right",
                         st.TEXT_MUTED, tag="subtitle"))
    ax_texts, rulers = _axes(t, tr, u, step, view, pin=pin_axes)
    texts += ax_texts
    panels = tuple(panels) + tuple(rulers)
    bar, furn_prims, furn_texts = _panel_contents(scene, furn, u, tr.scale)
    screen += furn_prims
    texts += furn_texts
    clip = view
    placed, dropped = place_labels(scene, tr, u, (x0, y0, x1, y1), clip=clip)
    return Frame(width, height, u, tr, tuple(screen), tuple(placed + texts), panels, bar,
                 tuple(dropped), view, insets)


def _axes(t: Table, tr: Transform, u: float, step: float, view: Box | None, pin: bool
          ) -> tuple[list[Placed], list[Box]]:
    """Figures every `step` inches along the bottom and left of the table. In the window
    (`pin`), when the table's edge is out of view they stay on the view's edge, on a ruler strip
    of their own; a close-up has them just outside its view."""
    band = AXIS_BAND * u
    x0, y0 = tr.to_px((0, 0))
    vx0, vy0, vx1, vy1 = view if view is not None else (-math.inf, -math.inf, math.inf, math.inf)
    texts: list[Placed] = []
    rulers: list[Box] = []
    if pin:
        row_y = max(y0 - band / 2, vy0 + band / 2)
        col_x = max(x0 - band / 2, vx0 + band / 2)
        if y0 - band < vy0:
            rulers.append((vx0, vy0, vx1, vy0 + band))
        if x0 - band < vx0:
            rulers.append((vx0, vy0, vx0 + band, vy1))
        lo_x, lo_y = vx0 + band, vy0 + band
    else:
        row_y = y0 - band / 2 if view is None else vy0 - band / 2
        col_x = x0 - band / 2 if view is None else vx0 - band / 2
        lo_x, lo_y = vx0, vy0
    k = 0
    while k * step <= t.width + 1e-9:
        x = tr.to_px((k * step, 0))[0]
        if max(lo_x, 0) <= x <= vx1:
            texts.append(_screen(f"{k * step:g}", st.AXIS_SIZE, u, x, row_y, "center",
                                 st.TEXT_MUTED, tag="axis:x"))
        k += 1
    k = 0
    while k * step <= t.depth + 1e-9:
        y = tr.to_px((0, k * step))[1]
        if lo_y <= y <= vy1:
            texts.append(_screen(f"{k * step:g}", st.AXIS_SIZE, u, col_x, y, "center",
                                 st.TEXT_MUTED, tag="axis:y"))
        k += 1
    return texts, rulers


def _panel_contents(scene: Scene, box: Box, u: float, scale: float
                    ) -> tuple[tuple[float, float, float, float], list[Prim], list[Placed]]:
    """Scale bar, legend, colour bars and sentences, top-down inside `box`; what does not fit
    ends with a line saying how many lines are left out."""
    bx0, by0, bx1, by1 = box
    width = bx1 - bx0
    screen: list[Prim] = []
    texts: list[Placed] = []
    inches = nice_scale_length(scale, u, most=0.45 * width)
    sx, sy = bx0 + MARGIN * u, by1 - SCALE_ROW * u / 2
    bh = 10 * u
    step = inches / 6 if inches >= 6 else 1.0
    n = int(round(inches / step))
    for i in range(n):
        xa, xb = sx + i * step * scale, sx + (i + 1) * step * scale
        col = st.TEXT if i % 2 == 0 else (255, 255, 255, 255)
        screen.append(Area(shapely.box(xa, sy - bh / 2, xb, sy + bh / 2), col, 100, "scalebar"))
    screen.append(Stroke(((sx, sy - bh / 2), (sx + inches * scale, sy - bh / 2),
                          (sx + inches * scale, sy + bh / 2), (sx, sy + bh / 2)),
                         st.TEXT, 1.5, 100, closed=True, tag="scalebar"))
    label = f'{inches:g}"' + (f'  (blocks of {step:g}")' if n > 1 else "")
    texts.append(_screen(label, st.LEGEND_SIZE, u, sx + inches * scale + 10 * u, sy, "left",
                         tag="scalebar"))
    plain, ramps = _split_legend(scene.legend)
    cols = _legend_cols(width, u)
    col_w = (width - 2 * MARGIN * u) / cols
    row_top = by1 - SCALE_ROW * u
    room = col_w - 40 * u
    for i, e in enumerate(plain):
        r, c = divmod(i, cols)
        cx = bx0 + MARGIN * u + c * col_w
        cy = row_top - (r + 0.5) * LEGEND_ROW * u
        sw_prims, sw_texts = _swatch(e, cx, cy, u)
        screen += sw_prims
        texts += sw_texts
        s = e.text
        while len(s) > 2 and st.text_width(s, st.LEGEND_SIZE * u) > room:
            s = s[:-2] + "…"
        texts.append(_screen(s, st.LEGEND_SIZE, u, cx + 34 * u, cy, "left", tag="legend"))
    rows = math.ceil(len(plain) / cols) if plain else 0
    top = row_top - rows * LEGEND_ROW * u
    for e in ramps:
        p, tx = _ramp(e, bx0 + MARGIN * u, top - RAMP_ROW * u * 0.35, width - 2 * MARGIN * u, u)
        screen += p
        texts += tx
        top -= RAMP_ROW * u
    lines = _wrap(scene.info, width, u)
    fit = max(0, int((top - by0 - MARGIN * u * 0.5) // (INFO_ROW * u)))
    if len(lines) > fit:
        left_out = len(lines) - fit + 1
        lines = lines[:max(0, fit - 1)] + [f"… {left_out} more line(s): enlarge the window, "
                                           "or see `tmg render`"]
    for i, line in enumerate(lines):
        cy = top - (i + 0.5) * INFO_ROW * u
        texts.append(_screen(line, st.INFO_SIZE, u, bx0 + MARGIN * u, cy, "left", tag="info"))
    return (sx, sy, inches * scale, inches), screen, texts


def _screen(s: str, size: float, u: float, x: float, y: float, anchor: str,
            colour: RGBA = st.TEXT, bold: bool = False, tag: str = "") -> Placed:
    return Placed(Text((0, 0), s, size, colour, bold=bold, halo=False, tag=tag), x, y, s,
                  size * u, anchor, screen=True)


def _swatch(e: LegendEntry, x: float, y: float, u: float) -> tuple[list[Prim], list[Placed]]:
    """The legend's picture of a marking, drawn as the table draws it."""
    w, h = 26 * u, 16 * u
    out: list[Prim] = []
    texts: list[Placed] = []
    disc = SPoint(x + w / 2, y).buffer(h / 2 + 1 * u, quad_segs=12)
    ring = tuple(disc.exterior.coords[:-1])
    if e.kind in ("fill", "outline"):
        b = shapely.box(x, y - h / 2, x + w, y + h / 2)
        if e.kind == "fill" or e.edge:  # an outline's edge colour is the ground it is seen on
            out.append(Area(b, e.colour if e.kind == "fill" else e.edge or e.colour, 100,
                            "legend"))
        edge = e.edge if e.kind == "fill" else e.colour
        if edge:
            if e.kind == "outline":
                b = shapely.box(x + 3 * u, y - h / 2 + 3 * u, x + w - 3 * u, y + h / 2 - 3 * u)
            out.append(Stroke(tuple(b.exterior.coords[:-1]), edge, 1.5 if e.kind == "fill"
                              else 2.5, 100, closed=True, dash=None if e.kind == "fill" else 4,
                              tag="legend"))
    elif e.kind in ("line", "dash"):
        if e.edge:
            out.append(Stroke(((x, y), (x + w, y)), e.edge, 7, 100, tag="legend"))
        out.append(Stroke(((x, y), (x + w, y)), e.colour, 5 if e.kind == "line" else 2.5, 100,
                          dash=5 if e.kind == "dash" else None, tag="legend"))
    elif e.kind == "disc":
        out.append(Area(disc, e.colour, 100, "legend"))
        out.append(Stroke(ring, e.edge or e.colour, 1.5, 100, closed=True, tag="legend"))
    elif e.kind in ("ring", "dashring"):
        out.append(Stroke(ring, e.colour, 3.0 if e.kind == "ring" else 2.0, 100, closed=True,
                          dash=4 if e.kind == "dashring" else None, tag="legend"))
    elif e.kind == "dot":  # a dot on a base: shown on a grey one
        out.append(Area(disc, st.NOT_AFFECTED, 100, "legend"))
        out.append(Area(SPoint(x + w / 2, y).buffer(h / 3, quad_segs=8), e.colour, 100,
                        "legend"))
    elif e.kind == "cross":
        r = h / 2
        cx = x + w / 2
        out.append(Stroke(((cx - r, y - r), (cx + r, y + r)), e.colour, 3.5, 100, tag="legend"))
        out.append(Stroke(((cx - r, y + r), (cx + r, y - r)), e.colour, 3.5, 100, tag="legend"))
    elif e.kind == "number":
        texts.append(_screen("1 2", st.LEGEND_SIZE, u, x + w / 2, y, "center", e.colour,
                             bold=True, tag="legend"))
    return out, texts


def _ramp(e: LegendEntry, x: float, y: float, avail: float, u: float
          ) -> tuple[list[Prim], list[Placed]]:
    """A colour bar: the entry's text, then the bar (stops blended linearly) and its ticks."""
    out: list[Prim] = []
    texts = [_screen(e.text, st.LEGEND_SIZE, u, x, y, "left", tag="legend")]
    tw = st.text_width(e.text, st.LEGEND_SIZE * u) + 16 * u
    bx0, bx1 = x + tw, min(x + tw + 420 * u, x + avail - 20 * u)
    h = 12 * u
    stops = sorted(e.stops) or [(0.0, e.colour), (1.0, e.colour)]
    n = 64
    for i in range(n):
        f0, f1 = i / n, (i + 1) / n
        c = _blend(stops, (f0 + f1) / 2)
        out.append(Area(shapely.box(bx0 + f0 * (bx1 - bx0), y - h / 2, bx0 + f1 * (bx1 - bx0),
                                    y + h / 2), c, 100, "legend:ramp"))
    out.append(Stroke(((bx0, y - h / 2), (bx1, y - h / 2), (bx1, y + h / 2), (bx0, y + h / 2)),
                      st.TEXT, 1.2, 100, closed=True, tag="legend:ramp"))
    for f, s in e.ticks:
        tx = bx0 + max(0.0, min(1.0, f)) * (bx1 - bx0)
        out.append(Stroke(((tx, y - h / 2 - 4 * u), (tx, y - h / 2)), st.TEXT, 1.2, 100,
                          tag="legend:ramp"))
        texts.append(_screen(s, st.AXIS_SIZE, u, tx, y - h / 2 - 13 * u, "center",
                             st.TEXT_MUTED, tag="legend:ramp"))
    return out, texts


def _blend(stops: Sequence[tuple[float, RGBA]], f: float) -> RGBA:
    if f <= stops[0][0]:
        return stops[0][1]
    for (fa, ca), (fb, cb) in zip(stops[:-1], stops[1:], strict=False):
        if fa <= f <= fb:
            w = 0.0 if fb == fa else (f - fa) / (fb - fa)
            return (round(ca[0] + (cb[0] - ca[0]) * w), round(ca[1] + (cb[1] - ca[1]) * w),
                    round(ca[2] + (cb[2] - ca[2]) * w), round(ca[3] + (cb[3] - ca[3]) * w))
    return stops[-1][1]
