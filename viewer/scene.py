"""The scene: everything the viewer draws, as plain data, computed from a Battlefield
(what is drawn: terrain footprints and raised tops (rulebook §7.1, §7.1.2), the table and its 6" grid
(§9.1.1, map layouts), entry edges, zones of influence (§5.6) and mission markers (§7.3.2)).

Pure (no window, no OpenGL): `build_scene(bf, overlays)` → `Scene`, world-space primitives in
inches — `Area` (filled shapely geometry), `Stroke` (polyline), `Text` — each with a colour and
a draw `layer`, plus the legend entries and the sentences (verdicts) to print under the
picture. `viewer.layout` then puts a scene into pixels (`Transform`, `Frame`).

Pixels follow OpenGL: origin bottom-left, y up — the same sense as the table's y, so the
picture is never mirrored. Sizes (stroke widths, font sizes) are pixels at 1600 px wide.

>>> from geom.model import Battlefield, Table, TerrainPiece
>>> from shapely.geometry import box
>>> bf = Battlefield(Table(54, 36), (TerrainPiece("wall", 2, box(10, 10, 12, 20)),))
>>> sc = build_scene(bf)
>>> [(p.tag, p.colour == st.size_fill(2)) for p in sc.prims if p.tag == "terrain:wall"][:1]
[('terrain:wall', True)]
>>> [e.text for e in sc.legend]
['terrain Size 2']

Every primitive that shows something carries its marking (`viewer.markings`); the legend is
made from the markings drawn, so every marking is in the legend and nothing else is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

import numpy as np
import shapely
import shapely.affinity
from shapely.geometry import LineString, MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import polylabel

from geom.elevation import piece_effective_size
from geom.model import Battlefield, Model, Table, TerrainPiece, Unit

from . import markings as mk
from . import style as st
from .markings import LegendEntry, Marking
from .style import RGBA

Point = tuple[float, float]
GRID_STEP = 6.0  # inches; official maps are drawn on a 6" grid (the deployment cards, §5.6)

# Draw order (low first). Terrain stacked on terrain climbs one layer per level.
L_TABLE, L_ZONE, L_GRID, L_TERRAIN = 0, 1, 2, 3
L_TOP, L_ACCESS, L_EDGE, L_UNDER = 9, 10, 11, 12
L_MARKER, L_UNIT, L_OVER, L_TEXT, L_OVER_TEXT = 13, 14, 16, 20, 21


# --------------------------------------------------------------------------- primitives

@dataclass(frozen=True)
class Transform:
    """World inches → pixels: px = ox + scale·x, py = oy + scale·y (y up on both)."""

    scale: float
    ox: float
    oy: float

    def to_px(self, p: Sequence[float]) -> Point:
        return (self.ox + self.scale * p[0], self.oy + self.scale * p[1])

    def to_world(self, px: float, py: float) -> Point:
        return ((px - self.ox) / self.scale, (py - self.oy) / self.scale)

    def apply(self, pts: np.ndarray) -> np.ndarray:
        out = np.asarray(pts, dtype=float) * self.scale
        out[..., 0] += self.ox
        out[..., 1] += self.oy
        return out


@dataclass(frozen=True)
class Area:
    """A filled region in world coordinates (polygons with holes are fine)."""

    geom: BaseGeometry
    colour: RGBA
    layer: int
    tag: str = ""
    mark: Marking | None = None  # what it shows (its legend entry); None: furniture

    @cached_property
    def triangles(self) -> np.ndarray:
        """(n, 3, 2) world triangles covering the region exactly (constrained Delaunay)."""
        polys = [g for g in getattr(self.geom, "geoms", [self.geom])
                 if isinstance(g, Polygon | MultiPolygon) and not g.is_empty]
        tris: list[np.ndarray] = []
        for p in polys:
            try:
                coll = shapely.constrained_delaunay_triangles(p)
            except shapely.errors.GEOSException:
                # GEOS gives up on some degenerate rings (repeated or collinear vertices);
                # the same region, cleaned, triangulates
                clean = shapely.remove_repeated_points(shapely.make_valid(p), 1e-9).buffer(0)
                coll = shapely.constrained_delaunay_triangles(clean)
            for t in getattr(coll, "geoms", []):
                tris.append(np.asarray(t.exterior.coords)[:3])
        return np.array(tris, dtype=float).reshape(-1, 3, 2)


@dataclass(frozen=True)
class Stroke:
    """A polyline in world coordinates; `width` and `dash` in reference pixels; `shift` moves
    the drawn line by reference pixels (an entry edge is drawn just outside the table)."""

    points: tuple[Point, ...]
    colour: RGBA
    width: float
    layer: int
    closed: bool = False
    dash: float | None = None
    shift: Point = (0.0, 0.0)
    tag: str = ""
    mark: Marking | None = None


@dataclass(frozen=True)
class Text:
    """A label anchored at a world point (centre of the text box at `at` + `offset` px).

    `movable` labels may be nudged to avoid others; `fallback` is a shorter text used when the
    full one fits nowhere; `obstacle` marks a fixed label whose box others must avoid.
    """

    at: Point
    text: str
    size: float
    colour: RGBA = st.TEXT
    layer: int = L_TEXT
    offset: Point = (0.0, 0.0)
    movable: bool = False
    fallback: str | None = None
    halo: bool = True
    bold: bool = False
    tag: str = ""
    alternatives: tuple[tuple[Point, Point], ...] = ()  # (at, offset) tried after the first
    hide_at_most: tuple[float, float, float, float] | None = None  # world box (x0, y0, x1, y1)
    # of the thing labelled: a spot covering more than half of it is skipped (colour stays seen)
    mark: Marking | None = None
    within: BaseGeometry | None = None  # the region labelled: when `at` is out of view, the
    # label moves into the part of it that is in view


Prim = Area | Stroke | Text


@dataclass
class OverlayLayer:
    """What one overlay adds to the picture: primitives (their markings make their legend
    entries), further legend entries (e.g. a colour bar) and sentences printed under the table.
    Any caller may build one and pass it to `build_scene` (survey heatmaps do)."""

    prims: list[Prim] = field(default_factory=list)
    legend: list[LegendEntry] = field(default_factory=list)
    info: list[str] = field(default_factory=list)


class Overlay(Protocol):
    """A question drawn on the table (sight, tape measure, reach, …); see `viewer.overlays`."""

    def build(self, bf: Battlefield) -> OverlayLayer: ...


@dataclass
class Scene:
    bf: Battlefield
    title: str
    subtitle: str
    prims: list[Prim]
    legend: list[LegendEntry]
    info: list[str]

    @property
    def table(self) -> Table:
        return self.bf.table

    def tagged(self, prefix: str) -> list[Prim]:
        return [p for p in self.prims if p.tag.startswith(prefix)]


# --------------------------------------------------------------------------- helpers

def ring(geom: BaseGeometry) -> list[tuple[Point, ...]]:
    """Every boundary ring of a polygonal geometry, as closed-free point tuples."""
    out: list[tuple[Point, ...]] = []
    for g in getattr(geom, "geoms", [geom]):
        if isinstance(g, Polygon) and not g.is_empty:
            for r in [g.exterior, *g.interiors]:
                pts = tuple((float(x), float(y)) for x, y in r.coords[:-1])
                out.append(pts)
        elif isinstance(g, MultiPolygon):
            out.extend(ring(g))
    return out


def outline(geom: BaseGeometry, colour: RGBA, width: float, layer: int, *,
            dash: float | None = None, tag: str = "", mark: Marking | None = None
            ) -> list[Stroke]:
    return [Stroke(r, colour, width, layer, closed=True, dash=dash, tag=tag, mark=mark)
            for r in ring(geom)]


def base_polygon(m: Model) -> Polygon:
    return m.ellipse.polygon(64)


def terrain_marking(piece: TerrainPiece) -> Marking:
    if piece.grass:
        return mk.GRASS
    if piece.kind == "force-field":
        return mk.FORCE_FIELD
    if piece.kind == "token":
        return mk.TOKEN
    return mk.SIZE[min(max(piece.size, 0), 3)]


def size_name(size: int) -> str:
    return "Size 3+" if size >= 3 else f"Size {size}"


def caption(piece: TerrainPiece) -> str:
    """The label drawn on a piece: its label without a part suffix (" — long side")."""
    text = piece.label or piece.id
    for sep in (" — ", " – "):
        text = text.split(sep)[0]
    return text


def _stack_depth(bf: Battlefield, piece: TerrainPiece) -> int:
    depth, p = 0, piece
    while p.on is not None and depth < 5:
        depth += 1
        p = bf.piece(p.on)
    return depth


def _label_groups(bf: Battlefield) -> list[list[TerrainPiece]]:
    """Pieces sharing a caption and touching (the two arms of an L wall) get one label."""
    pieces = list(bf.terrain)
    parent = list(range(len(pieces)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, p in enumerate(pieces):
        for j in range(i + 1, len(pieces)):
            q = pieces[j]
            if caption(p) == caption(q) and p.label and \
                    p.footprint.distance(q.footprint) < 0.1:
                parent[find(j)] = find(i)
    groups: dict[int, list[TerrainPiece]] = {}
    for i, p in enumerate(pieces):
        groups.setdefault(find(i), []).append(p)
    return list(groups.values())


def label_point(geom: BaseGeometry) -> Point:
    """A point well inside the region (pole of inaccessibility of its largest part)."""
    polys = [g for g in getattr(geom, "geoms", [geom]) if isinstance(g, Polygon)]
    if not polys:
        c = geom.centroid
        return (c.x, c.y)
    big = max(polys, key=lambda g: g.area)
    p = polylabel(big, tolerance=0.05)
    return (p.x, p.y)


def short_label(piece: TerrainPiece) -> str | None:
    """The on-table label when the full one fits nowhere: `#12` for terrain/standard-1/12 (a
    piece number, never a bare figure that reads like a distance); None when the id is short
    already."""
    tail = piece.id.rsplit("/", 1)[-1]
    if tail == caption(piece):
        return None
    return f"#{tail}" if "/" in piece.id else tail


# --------------------------------------------------------------------------- building

def legend_of(prims: Iterable[Prim], given: Iterable[LegendEntry] = ()) -> list[LegendEntry]:
    """The legend: one entry per marking drawn (in `viewer.markings` order), then the entries
    a caller gave (a colour bar, …), without repeats."""
    seen: dict[tuple[str, str], LegendEntry] = {}
    for p in prims:
        if p.mark is not None:
            seen.setdefault((p.mark.key, p.mark.text), p.mark.entry())
    out = sorted(seen.values(), key=lambda e: mk.rank(e.key))
    for e in given:
        if e not in out:
            out.append(e)
    return out


def build_scene(bf: Battlefield, overlays: Iterable[Overlay | OverlayLayer] = (), *,
                title: str | None = None,
                subtitle: str | None = None) -> Scene:
    """Everything on the table, then each overlay's layer on top (an overlay, or a layer an
    overlay or another caller built). The legend lists every marking drawn."""
    prims: list[Prim] = []
    given: list[LegendEntry] = []
    info: list[str] = []
    t = bf.table
    prims.append(Area(t.polygon, st.MAT, L_TABLE, "table"))
    prims += _zones_and_edges(bf)
    prims += _grid(t)
    prims.append(Stroke(((0, 0), (t.width, 0), (t.width, t.depth), (0, t.depth)),
                        st.TABLE_EDGE, st.TABLE_EDGE_WIDTH, L_GRID, closed=True, tag="table"))
    prims += _terrain(bf)
    prims += _markers(bf)
    prims += _units(bf)
    if not bf.terrain and not bf.units and not bf.markers:
        info.append("Empty table: no terrain, units or markers.")
    for ov in overlays:
        layer = ov if isinstance(ov, OverlayLayer) else ov.build(bf)
        prims += layer.prims
        given += layer.legend
        info += layer.info
    if title is None:
        title = bf.name or "Battlefield"
    if subtitle is None:
        bits = [f'table {t.width:g}" × {t.depth:g}"', f'grid {GRID_STEP:g}"']
        if bf.deployment is not None:
            bits.insert(1, f"deployment: {bf.deployment.name}")
        subtitle = " · ".join(bits)
    return Scene(bf, title, subtitle, prims, legend_of(prims, given), info)


def grid_lines(t: Table, step: float, colour: RGBA, width: float, tag: str,
               box: tuple[float, float, float, float] | None = None) -> list[Prim]:
    """Grid lines every `step` inches across the table (within `box` when given)."""
    x0, y0, x1, y1 = box if box is not None else (0.0, 0.0, t.width, t.depth)
    x0, y0, x1, y1 = max(x0, 0.0), max(y0, 0.0), min(x1, t.width), min(y1, t.depth)
    out: list[Prim] = []
    k = int(np.floor(x0 / step)) + 1
    while k * step < x1 - 1e-9:
        x = k * step
        out.append(Stroke(((x, y0), (x, y1)), colour, width, L_GRID, tag=f"{tag}:x"))
        k += 1
    k = int(np.floor(y0 / step)) + 1
    while k * step < y1 - 1e-9:
        y = k * step
        out.append(Stroke(((x0, y), (x1, y)), colour, width, L_GRID, tag=f"{tag}:y"))
        k += 1
    return out


def _grid(t: Table) -> list[Prim]:
    return grid_lines(t, GRID_STEP, st.GRID, st.GRID_WIDTH, "grid")


def _edge_normal(t: Table, seg: LineString) -> Point:
    (x1, y1), (_, y2) = seg.coords[0], seg.coords[-1]
    if abs(y1 - y2) < 1e-9:
        return (0.0, -1.0) if y1 < t.depth / 2 else (0.0, 1.0)
    return (-1.0, 0.0) if x1 < t.width / 2 else (1.0, 0.0)


def _zones_and_edges(bf: Battlefield) -> list[Prim]:
    dep = bf.deployment
    if dep is None:
        return []
    out: list[Prim] = []
    t = bf.table
    zone_marks = {"red": mk.RED_ZONE, "blue": mk.BLUE_ZONE}
    edge_marks = {"red": mk.RED_EDGE, "blue": mk.BLUE_EDGE}
    for owner, zone in dep.zones.items():
        c = st.OWNER.get(owner, st.TEXT)
        m = zone_marks.get(owner)
        out.append(Area(zone, st.with_alpha(c, st.ZONE_ALPHA), L_ZONE, f"zone:{owner}", m))
        out += outline(zone, st.with_alpha(c, 200), 2.0, L_ZONE, dash=10, tag=f"zone:{owner}",
                       mark=m)
    shift = st.EDGE_LINE_WIDTH / 2 + st.TABLE_EDGE_WIDTH / 2
    for owner, segs in dep.entry_edges.items():
        c = st.OWNER.get(owner, st.TEXT)
        for seg in segs:
            nx, ny = _edge_normal(t, seg)
            pts = tuple((float(x), float(y)) for x, y in seg.coords)
            out.append(Stroke(pts, c, st.EDGE_LINE_WIDTH, L_EDGE, shift=(nx * shift, ny * shift),
                              tag=f"edge:{owner}", mark=edge_marks.get(owner)))
    return out


def _terrain(bf: Battlefield) -> list[Prim]:
    out: list[Prim] = []
    for p in sorted(bf.terrain, key=lambda p: _stack_depth(bf, p)):
        layer = L_TERRAIN + min(_stack_depth(bf, p), 5)
        m = terrain_marking(p)
        tag = f"terrain:{p.id}"
        out.append(Area(p.footprint, m.colour, layer, tag, m))
        out += outline(p.footprint, st.TERRAIN_EDGE, st.TERRAIN_EDGE_WIDTH, layer, tag=tag,
                       mark=m)
        if p.can_stand_on:
            inner = p.footprint.buffer(-0.2, join_style="mitre")
            if inner.is_empty:
                inner = p.footprint
            out += outline(inner, st.TOP_EDGE, 2.2, layer, dash=8, tag=f"top:{p.id}",
                           mark=mk.RAISED_TOP)
        for op in p.openings:
            out.append(Area(op, mk.OPENING.colour, layer, f"opening:{p.id}", mk.OPENING))
            out += outline(op, st.OPENING_EDGE, 2.0, layer, dash=6, tag=f"opening:{p.id}",
                           mark=mk.OPENING)
        for ap in p.access_points:
            out.append(Area(ap, st.ACCESS_FILL, L_ACCESS, f"access:{p.id}", mk.ACCESS))
            out += outline(ap, st.ACCESS_EDGE, 1.6, L_ACCESS, tag=f"access:{p.id}",
                           mark=mk.ACCESS)
    groups = _label_groups(bf)
    captions = [caption(g[0]) for g in groups]
    for group in groups:
        geom = shapely.union_all([p.footprint for p in group])
        p0 = group[0]
        text = caption(p0)
        short = short_label(p0)
        if captions.count(text) > 1 and short is not None:
            text += f" {short}"  # two pieces of one name: the number tells them apart
        eff = piece_effective_size(bf, p0)
        if p0.can_stand_on:
            text += f" ▲{eff}"
        x0, y0, x1, y1 = geom.bounds
        lp = label_point(geom)
        gap = st.TERRAIN_LABEL_SIZE * 0.8
        out.append(Text(lp, text, st.TERRAIN_LABEL_SIZE, movable=True,
                        fallback=short_label(p0), tag=f"label:terrain:{p0.id}",
                        alternatives=(((lp[0], y1), (0, gap)), ((lp[0], y0), (0, -gap))),
                        hide_at_most=(x0, y0, x1, y1), within=geom))
    return out


def _markers(bf: Battlefield) -> list[Prim]:
    out: list[Prim] = []
    for m in bf.markers:
        fill = st.MARKER_FILL.get(m.colour, st.MARKER_FILL["neutral"])
        poly = m.ellipse.polygon(64)
        tag = f"marker:{m.id}"
        out.append(Area(poly, fill, L_MARKER, tag, mk.MARKER))
        out += outline(poly, st.MARKER_EDGE, 2.0, L_MARKER, tag=tag, mark=mk.MARKER)
        out.append(Text(m.at, str(m.id), st.MARKER_LABEL_SIZE, st.MARKER_EDGE, L_MARKER + 1,
                        halo=False, bold=True, tag=f"label:{tag}"))
    return out


def unit_prims(u: Unit) -> list[Prim]:
    out: list[Prim] = []
    c, dark = st.OWNER.get(u.owner, st.TEXT), st.OWNER_DARK.get(u.owner, st.TEXT)
    alpha = 90 if u.burrowed else 160 if u.flying else 235
    body = (mk.BURROWED if u.burrowed else mk.MODELS).get(u.owner)
    lead = u.leading_model
    for m in u.models:
        poly = base_polygon(m)
        tag = f"model:{m.ref}"
        out.append(Area(poly, st.with_alpha(c, alpha), L_UNIT, tag, body))
        out += outline(poly, dark, st.BASE_EDGE_WIDTH * (1.4 if u.flying else 1), L_UNIT,
                       dash=7 if u.flying else None, tag=tag,
                       mark=mk.FLYING if u.flying else body)
        if m.id == lead.id:
            inner = m.ellipse.polygon(64).buffer(-min(m.base.b * 0.28, 0.12))
            out += outline(inner, st.LEADER_RING, 3.0, L_UNIT, tag=f"leader:{m.ref}",
                           mark=mk.LEADER)
    x0, y0, x1, y1 = shapely.union_all([base_polygon(m) for m in u.models]).bounds
    name = u.id + (" (hidden)" if u.hidden else "") + (" (burrowed)" if u.burrowed else "")
    up = st.UNIT_LABEL_SIZE * 0.95
    side = st.text_width(name, st.UNIT_LABEL_SIZE, bold=True) / 2 + 10
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    out.append(Text((cx, y1), name, st.UNIT_LABEL_SIZE, dark, L_TEXT, offset=(0, up),
                    movable=True, bold=True, tag=f"label:unit:{u.id}",
                    alternatives=(((cx, y0), (0, -up)), ((x1, cy), (side, 0)),
                                  ((x0, cy), (-side, 0)))))
    return out


def _units(bf: Battlefield) -> list[Prim]:
    out: list[Prim] = []
    for u in bf.units:
        out += unit_prims(u)
    return out
