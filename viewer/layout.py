"""Laying a scene out in pixels: the world→pixel `Transform` fitted to a picture width
(`frame_for_width`) or a window and its camera (`frame_for_window`), the furniture (title,
axis figures every 6", scale bar, legend, the verdict sentences wrapped to the width), and every
label placed so that labels do not overlap one another, markers or bases (`place_labels`).
Also the pixel geometry of strokes (`dash_segments`, `segment_quads`). Pure: no OpenGL.

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

import numpy as np
import shapely
import shapely.affinity

from geom.model import Table

from . import style as st
from .scene import GRID_STEP, Area, LegendEntry, Point, Prim, Scene, Stroke, Text, Transform
from .style import RGBA

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels


@dataclass(frozen=True)
class Placed:
    """A text at its final pixel position (centre of its box)."""

    text: Text
    x: float
    y: float
    string: str
    size: float  # px, already scaled
    anchor_x: str = "center"
    screen: bool = False  # furniture (title, legend, axes): drawn above the panels

    @property
    def box(self) -> Box:
        return text_box(self.string, self.size, self.x, self.y, self.anchor_x, self.text.bold)


@dataclass(frozen=True)
class Frame:
    """A scene laid out in pixels: picture size, transform, furniture and placed labels."""

    width: int
    height: int
    u: float
    transform: Transform
    screen: tuple[Prim, ...]  # Area/Stroke in pixel coordinates (already placed)
    texts: tuple[Placed, ...]
    panels: tuple[Box, ...] = ()  # opaque strips (title, legend) drawn over the table
    scale_bar: tuple[float, float, float, float] = (0, 0, 0, 0)  # x, y, length px, inches
    dropped: tuple[str, ...] = ()  # labels that fit nowhere (shown nowhere)

    def scaled(self, k: int) -> Frame:
        """The same picture k times larger (supersampling)."""
        def sp(p: Prim) -> Prim:
            if isinstance(p, Area):
                return replace(p, geom=shapely.affinity.scale(p.geom, k, k, origin=(0, 0)))
            if isinstance(p, Stroke):
                return replace(p, points=tuple((x * k, y * k) for x, y in p.points))
            return p
        t = self.transform
        return Frame(self.width * k, self.height * k, self.u * k,
                     Transform(t.scale * k, t.ox * k, t.oy * k),
                     tuple(sp(p) for p in self.screen),
                     tuple(replace(pl, x=pl.x * k, y=pl.y * k, size=pl.size * k)
                           for pl in self.texts),
                     tuple((a * k, b * k, c * k, d * k) for a, b, c, d in self.panels),
                     (self.scale_bar[0] * k, self.scale_bar[1] * k, self.scale_bar[2] * k,
                      self.scale_bar[3]), self.dropped)


def text_box(s: str, size: float, x: float, y: float, anchor_x: str = "center",
             bold: bool = False) -> Box:
    """The box a label (with its halo) takes, estimated from its length: the layout and the
    halo drawn behind the text both use it."""
    w = st.text_width(s, size, bold) + 0.5 * size
    h = 1.3 * size
    x0 = x - w / 2 if anchor_x == "center" else x if anchor_x == "left" else x - w
    return (x0, y - h / 2, x0 + w, y + h / 2)


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _inside(a: Box, b: Box) -> bool:
    return a[0] >= b[0] and a[1] >= b[1] and a[2] <= b[2] and a[3] <= b[3]


@dataclass(frozen=True)
class Camera:
    """Window view: `zoom` relative to fit-to-window, looking at world point `centre`."""

    zoom: float = 1.0
    centre: Point | None = None


MARGIN, AXIS_BAND, TITLE_BAND = 14.0, 30.0, 54.0
SCALE_ROW, LEGEND_ROW, INFO_ROW, LEGEND_COL = 40.0, 30.0, 25.0, 300.0


def _legend_cols(width: float, u: float) -> int:
    return max(1, int((width - 2 * MARGIN * u) // (LEGEND_COL * u)))


def _wrap(lines: Sequence[str], width: float, u: float) -> list[str]:
    chars = max(20, int((width - 2 * MARGIN * u) / (st.CHAR_WIDTH * st.INFO_SIZE * u)))
    out: list[str] = []
    for line in lines:
        out += textwrap.wrap(line, chars, subsequent_indent="    ") or [""]
    return out


def bottom_height(scene: Scene, width: float, u: float) -> float:
    rows = math.ceil(len(scene.legend) / _legend_cols(width, u)) if scene.legend else 0
    n_info = len(_wrap(scene.info, width, u))
    return (SCALE_ROW + rows * LEGEND_ROW + n_info * INFO_ROW + MARGIN) * u


def frame_for_width(scene: Scene, width: int) -> Frame:
    """A picture `width` px wide; its height follows from the table and the legend."""
    u = width / st.REFERENCE_WIDTH
    t = scene.table
    side = (MARGIN + AXIS_BAND) * u
    scale = (width - 2 * side) / t.width
    bottom = bottom_height(scene, width, u)
    height = int(math.ceil(bottom + AXIS_BAND * u + scale * t.depth + AXIS_BAND * u
                           + TITLE_BAND * u + MARGIN * u))
    tr = Transform(scale, side, bottom + AXIS_BAND * u)
    return _furnish(scene, width, height, u, tr, bottom, panels=False)


def fit_transform(table: Table, width: int, height: int, u: float, bottom: float) -> Transform:
    side = (MARGIN + AXIS_BAND) * u
    top = (TITLE_BAND + MARGIN + AXIS_BAND) * u
    avail_w, avail_h = width - 2 * side, height - bottom - AXIS_BAND * u - top
    scale = max(1e-3, min(avail_w / table.width, avail_h / table.depth))
    cx = side + avail_w / 2
    cy = bottom + AXIS_BAND * u + avail_h / 2
    return Transform(scale, cx - scale * table.width / 2, cy - scale * table.depth / 2)


def window_u(width: int) -> float:
    return min(1.4, max(0.7, width / st.REFERENCE_WIDTH))


def frame_for_window(scene: Scene, width: int, height: int, camera: Camera = Camera()) -> Frame:
    """The window's view: fit to the window, then the camera's zoom and centre."""
    u = window_u(width)
    bottom = bottom_height(scene, width, u)
    fit = fit_transform(scene.table, width, height, u, bottom)
    if camera.zoom == 1.0 and camera.centre is None:
        tr = fit
    else:
        t = scene.table
        cwx, cwy = camera.centre if camera.centre is not None else t.centre
        # the pixel that shows the table centre when fitted is where the camera centre goes
        px, py = fit.to_px(t.centre)
        s = fit.scale * camera.zoom
        tr = Transform(s, px - s * cwx, py - s * cwy)
    return _furnish(scene, width, height, u, tr, bottom, panels=True)


def nice_scale_length(scale: float, u: float) -> float:
    """Whole inches for the scale bar: the largest of 1, 2, 3, 6, 12, 24 under 260 px."""
    best = 1.0
    for inches in (1, 2, 3, 6, 12, 24):
        if inches * scale <= 260 * u:
            best = float(inches)
    return best


def _furnish(scene: Scene, width: int, height: int, u: float, tr: Transform, bottom: float,
             panels: bool) -> Frame:
    screen: list[Prim] = []
    texts: list[Placed] = []
    t = scene.table
    x0, y0 = tr.to_px((0, 0))
    x1, y1 = tr.to_px((t.width, t.depth))
    top_band = (TITLE_BAND + MARGIN) * u
    panel_boxes: tuple[Box, ...] = ()
    if panels:
        panel_boxes = ((0, height - top_band, width, height), (0, 0, width, bottom))
    # Title row
    ty = height - MARGIN * u - TITLE_BAND * u / 2
    texts.append(_screen(scene.title, st.TITLE_SIZE, u, MARGIN * u, ty, "left", bold=True,
                         tag="title"))
    texts.append(_screen(scene.subtitle, st.SUBTITLE_SIZE, u, width - MARGIN * u, ty, "right",
                         st.TEXT_MUTED, tag="subtitle"))
    # Axis figures every grid step, just outside the table
    k = 0
    while k * GRID_STEP <= t.width + 1e-9:
        x = tr.to_px((k * GRID_STEP, 0))[0]
        if 0 <= x <= width:
            s = f"{k * GRID_STEP:g}"
            texts.append(_screen(s, st.AXIS_SIZE, u, x, y0 - AXIS_BAND * u / 2, "center",
                                 st.TEXT_MUTED, tag="axis:x"))
        k += 1
    k = 0
    while k * GRID_STEP <= t.depth + 1e-9:
        y = tr.to_px((0, k * GRID_STEP))[1]
        if bottom <= y <= height - top_band:
            s = f"{k * GRID_STEP:g}"
            texts.append(_screen(s, st.AXIS_SIZE, u, x0 - AXIS_BAND * u / 2, y, "center",
                                 st.TEXT_MUTED, tag="axis:y"))
        k += 1
    # Scale bar: alternating 1" blocks
    inches = nice_scale_length(tr.scale, u)
    bx, by = MARGIN * u, bottom - SCALE_ROW * u / 2
    bh = 10 * u
    step = inches / 6 if inches >= 6 else 1.0
    n = int(round(inches / step))
    for i in range(n):
        xa, xb = bx + i * step * tr.scale, bx + (i + 1) * step * tr.scale
        col = st.TEXT if i % 2 == 0 else (255, 255, 255, 255)
        screen.append(Area(shapely.box(xa, by - bh / 2, xb, by + bh / 2), col, 100, "scalebar"))
    screen.append(Stroke(((bx, by - bh / 2), (bx + inches * tr.scale, by - bh / 2),
                          (bx + inches * tr.scale, by + bh / 2), (bx, by + bh / 2)),
                         st.TEXT, 1.5, 100, closed=True, tag="scalebar"))
    label = f'{inches:g}"' + (f'  (blocks of {step:g}")' if n > 1 else "")
    texts.append(_screen(label, st.LEGEND_SIZE, u, bx + inches * tr.scale + 10 * u, by, "left",
                         tag="scalebar"))
    # Legend grid
    cols = _legend_cols(width, u)
    col_w = (width - 2 * MARGIN * u) / cols
    row_top = bottom - SCALE_ROW * u
    max_chars = int((col_w - 40 * u) / (st.CHAR_WIDTH * st.LEGEND_SIZE * u))
    for i, e in enumerate(scene.legend):
        r, c = divmod(i, cols)
        cx = MARGIN * u + c * col_w
        cy = row_top - (r + 0.5) * LEGEND_ROW * u
        screen += _swatch(e, cx, cy, u)
        s = e.text if len(e.text) <= max_chars else e.text[:max_chars - 1] + "…"
        texts.append(_screen(s, st.LEGEND_SIZE, u, cx + 34 * u, cy, "left", tag="legend"))
    rows = math.ceil(len(scene.legend) / cols) if scene.legend else 0
    info_top = row_top - rows * LEGEND_ROW * u
    for i, line in enumerate(_wrap(scene.info, width, u)):
        cy = info_top - (i + 0.5) * INFO_ROW * u
        texts.append(_screen(line, st.INFO_SIZE, u, MARGIN * u, cy, "left", tag="info"))
    placed, dropped = place_labels(scene, tr, u, (x0, y0, x1, y1),
                                   clip=(0, bottom, width, height - top_band) if panels else None)
    return Frame(width, height, u, tr, tuple(screen), tuple(placed + texts), panel_boxes,
                 (bx, by, inches * tr.scale, inches), tuple(dropped))


def _screen(s: str, size: float, u: float, x: float, y: float, anchor: str,
            colour: RGBA = st.TEXT, bold: bool = False, tag: str = "") -> Placed:
    return Placed(Text((0, 0), s, size, colour, bold=bold, halo=False, tag=tag), x, y, s,
                  size * u, anchor, screen=True)


def _swatch(e: LegendEntry, x: float, y: float, u: float) -> list[Prim]:
    w, h = 26 * u, 16 * u
    out: list[Prim] = []
    if e.kind == "fill":
        b = shapely.box(x, y - h / 2, x + w, y + h / 2)
        out.append(Area(b, e.colour, 100, "legend"))
        if e.edge:
            out.append(Stroke(tuple(b.exterior.coords[:-1]), e.edge, 1.5, 100, closed=True))
    elif e.kind in ("line", "dash"):
        out.append(Stroke(((x, y), (x + w, y)), e.colour, 5 if e.kind == "line" else 2.5, 100,
                          dash=5 if e.kind == "dash" else None, tag="legend"))
    else:
        from shapely.geometry import Point as SPoint
        d = SPoint(x + w / 2, y).buffer(h / 2 + 1 * u, quad_segs=12)
        if e.kind == "disc":
            out.append(Area(d, e.colour, 100, "legend"))
        out.append(Stroke(tuple(d.exterior.coords[:-1]), e.edge or e.colour,
                          1.5 if e.kind == "disc" else 3.0, 100, closed=True, tag="legend"))
    return out


def place_labels(scene: Scene, tr: Transform, u: float, table_box: Box,
                 clip: Box | None = None) -> tuple[list[Placed], list[str]]:
    """Put every world label at a pixel position; movable ones avoid each other, markers and
    bases. A label that fits nowhere takes its short form, or is dropped (and reported)."""
    placed: list[Placed] = []
    dropped: list[str] = []
    obstacles: list[Box] = []
    texts = [p for p in scene.prims if isinstance(p, Text)]
    for p in scene.prims:  # markers and bases are not to be hidden by labels
        if isinstance(p, Area) and (p.tag.startswith("marker:") or p.tag.startswith("model:")):
            bx0, by0, bx1, by1 = p.geom.bounds
            a, b = tr.to_px((bx0, by0)), tr.to_px((bx1, by1))
            obstacles.append((a[0], a[1], b[0], b[1]))
    fixed = [t for t in texts if not t.movable]
    # unit names first (they matter in a dispute), then terrain, longest text first
    movable = sorted((t for t in texts if t.movable),
                     key=lambda t: (not t.tag.startswith("label:unit"), -len(t.text)))
    taken: list[Box] = []
    if clip is None:
        clip = (-math.inf, -math.inf, math.inf, math.inf)
    for t in fixed:
        px, py = tr.to_px(t.at)
        pl = Placed(t, px + t.offset[0] * u, py + t.offset[1] * u, t.text, t.size * u)
        if _inside(pl.box, clip):
            placed.append(pl)
            taken.append(pl.box)
    # labels may reach into the axis band but not past the picture's furniture
    area = (max(table_box[0] - 8 * u, clip[0]), max(table_box[1] - 4 * u, clip[1]),
            min(table_box[2] + 8 * u, clip[2]), min(table_box[3] + 4 * u, clip[3]))
    for t in movable:
        size = t.size * u
        is_unit = t.tag.startswith("label:unit")
        h = 1.35 * size
        spots = [(t.at, t.offset), *t.alternatives]
        if not is_unit:
            spots += [(t.at, (0, d / u)) for d in (h, -h, 2 * h, -2 * h)]
        done = False
        first: Placed | None = None
        for s in [t.text] + ([t.fallback] if t.fallback else []):
            for at, off in spots:
                px, py = tr.to_px(at)
                for pl in _with_clamped(Placed(t, px + off[0] * u, py + off[1] * u, s, size),
                                        area):
                    first = first or pl
                    bx = pl.box
                    if not _inside(bx, area) or any(_overlaps(bx, o) for o in taken) or \
                            any(_overlaps(bx, o) for o in obstacles):
                        continue
                    if t.hide_at_most is not None and _covered_share(bx, t.hide_at_most, tr) > 0.5:
                        continue
                    placed.append(pl)
                    taken.append(bx)
                    done = True
                    break
                if done:
                    break
            if done:
                break
        if not done:
            if is_unit and first is not None and _inside(first.box, clip):
                placed.append(first)  # a unit keeps its name even where crowded
                taken.append(first.box)
            else:
                dropped.append(t.text)
    return placed, dropped


def _covered_share(bx: Box, world: tuple[float, float, float, float], tr: Transform) -> float:
    """Share of a world box's pixel area that the label box `bx` covers."""
    x0, y0 = tr.to_px((world[0], world[1]))
    x1, y1 = tr.to_px((world[2], world[3]))
    area = max(1e-9, (x1 - x0) * (y1 - y0))
    w = max(0.0, min(x1, bx[2]) - max(x0, bx[0]))
    h = max(0.0, min(y1, bx[3]) - max(y0, bx[1]))
    return w * h / area


def _with_clamped(pl: Placed, area: Box) -> list[Placed]:
    """The label where asked, then slid sideways to lie inside `area` if it sticks out."""
    x0, _, x1, _ = pl.box
    dx = area[0] - x0 if x0 < area[0] else area[2] - x1 if x1 > area[2] else 0.0
    if dx == 0.0 or x1 - x0 > area[2] - area[0]:
        return [pl]
    return [pl, replace(pl, x=pl.x + dx)]


def segment_quads(segs: np.ndarray, width: float) -> np.ndarray:
    """Triangles (flat x,y list) for segments (n, 2, 2) drawn `width` px wide, with square
    caps half a width long so that consecutive segments join without notches."""
    if len(segs) == 0:
        return np.zeros(0)
    a, b = segs[:, 0, :], segs[:, 1, :]
    d = b - a
    length = np.hypot(d[:, 0], d[:, 1])
    keep = length > 1e-9
    a, b, d, length = a[keep], b[keep], d[keep], length[keep]
    if len(a) == 0:
        return np.zeros(0)
    t = d / length[:, None] * (width / 2)
    n = np.stack([-t[:, 1], t[:, 0]], axis=1)
    a, b = a - t, b + t
    p1, p2, p3, p4 = a + n, b + n, b - n, a - n
    tris = np.stack([p1, p2, p3, p1, p3, p4], axis=1)
    return tris.reshape(-1)


def dash_segments(pts: np.ndarray, on: float, off: float) -> np.ndarray:
    """Split a polyline (pixels) into dashes `on` px long with `off` px gaps."""
    out = []
    pos, draw, left = 0.0, True, on
    for p, q in zip(pts[:-1], pts[1:], strict=False):
        seg = float(np.hypot(*(q - p)))
        start = 0.0
        while seg - start > 1e-9:
            step = min(left, seg - start)
            if draw:
                out.append([p + (q - p) * (start / seg), p + (q - p) * ((start + step) / seg)])
            start += step
            left -= step
            if left <= 1e-9:
                draw = not draw
                left = on if draw else off
        pos += seg
    return np.array(out, dtype=float).reshape(-1, 2, 2)
