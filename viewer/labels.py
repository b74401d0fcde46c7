"""Placing labels in pixels: every world label at a position where it overlaps no other label,
marker or base (`place_labels`). A label whose subject is out of view is not drawn at all
(never pinned to the window's edge); one that fits nowhere takes its short form (`#12`), or is
dropped and reported. Pure: no OpenGL.

>>> text_box("abc", 10, 0, 0)[2] > text_box("abc", 10, 0, 0)[0]
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import shapely

from . import style as st
from .scene import Area, Scene, Text, Transform, label_point

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


def text_box(s: str, size: float, x: float, y: float, anchor_x: str = "center",
             bold: bool = False) -> Box:
    """The box a label (with its halo) takes, estimated from its length: the layout and the
    halo drawn behind the text both use it."""
    w = st.text_width(s, size, bold) + 0.5 * size
    h = 1.3 * size
    x0 = x - w / 2 if anchor_x == "center" else x if anchor_x == "left" else x - w
    return (x0, y - h / 2, x0 + w, y + h / 2)


def overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def inside(a: Box, b: Box) -> bool:
    return a[0] >= b[0] and a[1] >= b[1] and a[2] <= b[2] and a[3] <= b[3]


def _subject_box(t: Text, tr: Transform) -> Box:
    """What the label names, in pixels: the box it must not hide, else its anchor."""
    if t.hide_at_most is not None:
        a = tr.to_px(t.hide_at_most[:2])
        b = tr.to_px(t.hide_at_most[2:])
        return (a[0], a[1], b[0], b[1])
    x, y = tr.to_px(t.at)
    return (x, y, x, y)


def _in_view(b: Box, clip: Box) -> bool:
    return b[0] <= clip[2] and clip[0] <= b[2] and b[1] <= clip[3] and clip[1] <= b[3]


def place_labels(scene: Scene, tr: Transform, u: float, table_box: Box,
                 clip: Box | None = None) -> tuple[list[Placed], list[str]]:
    """Put every world label at a pixel position; movable ones avoid each other, markers and
    bases. A label whose subject is outside `clip` is left out; one that fits nowhere takes its
    short form, or is dropped (and reported)."""
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
        if inside(pl.box, clip):
            placed.append(pl)
            taken.append(pl.box)
    # labels may reach into the axis band but not past the picture's furniture
    area = (max(table_box[0] - 8 * u, clip[0]), max(table_box[1] - 4 * u, clip[1]),
            min(table_box[2] + 8 * u, clip[2]), min(table_box[3] + 4 * u, clip[3]))
    for t in movable:
        if not _in_view(_subject_box(t, tr), area):
            continue  # its subject is out of view: no label pinned to the edge
        t = _into_view(t, tr, area)
        got = _place_one(t, tr, u, area, clip, taken, obstacles)
        if got is not None:
            placed.append(got)
            taken.append(got.box)
        else:
            dropped.append(t.text)
    return placed, dropped


def _into_view(t: Text, tr: Transform, area: Box) -> Text:
    """A label whose anchor is out of view moves into the part of its region in view."""
    px, py = tr.to_px(t.at)
    if t.within is None or (area[0] <= px <= area[2] and area[1] <= py <= area[3]):
        return t
    (wx0, wy0), (wx1, wy1) = tr.to_world(area[0], area[1]), tr.to_world(area[2], area[3])
    seen = t.within.intersection(shapely.box(wx0, wy0, wx1, wy1))
    if seen.is_empty or seen.area <= 0:
        return t
    return replace(t, at=label_point(seen), alternatives=())


def _place_one(t: Text, tr: Transform, u: float, area: Box, clip: Box, taken: list[Box],
               obstacles: list[Box]) -> Placed | None:
    size = t.size * u
    is_unit = t.tag.startswith("label:unit")
    h = 1.35 * size
    spots = [(t.at, t.offset), *t.alternatives]
    if not is_unit:
        spots += [(t.at, (0, d / u)) for d in (h, -h, 2 * h, -2 * h)]
    first: Placed | None = None
    for s in [t.text] + ([t.fallback] if t.fallback else []):
        for at, off in spots:
            px, py = tr.to_px(at)
            for pl in _with_clamped(Placed(t, px + off[0] * u, py + off[1] * u, s, size), area):
                first = first or pl
                bx = pl.box
                if not inside(bx, area) or any(overlaps(bx, o) for o in taken) or \
                        any(overlaps(bx, o) for o in obstacles):
                    continue
                if t.hide_at_most is not None and _covered_share(bx, t.hide_at_most, tr) > 0.5:
                    continue
                return pl
    if is_unit and first is not None and inside(first.box, clip):
        return first  # a unit keeps its name even where crowded
    return None


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
