"""Loaders for the packaged map layouts and deployment cards (data in `maps/data/`).

Layout terrain entries use the scenario file's `[[terrain]]` keys, so one parser serves both.
Zones of influence are computed here from the entry edges: the strip 6" deep inward from each
entry-edge segment (where an edge is partial, the strip ends square at the L markers, §5.6).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import shapely
from shapely.geometry import LineString, Polygon, box

from formats.fields import Ctx
from formats.terrain import parse_terrain
from geom.errors import TmgError
from geom.model import Battlefield, Deployment, Marker, Table, TerrainPiece, marker_colour

DEPLOYMENT_ZONE_DEPTH = 6.0


@dataclass(frozen=True)
class LayoutData:
    id: str
    name: str
    table: Table
    terrain: tuple[TerrainPiece, ...]
    source: str
    accuracy_in: float | None
    notes: tuple[str, ...]
    raw: dict[str, Any]


# The packaged data next to this module (not importlib.resources, whose zip readers cost every
# start-up ~5 ms; the package is always installed as files).
DATA = Path(__file__).resolve().parent / "data"


def _data_text(*parts: str) -> str | None:
    res = DATA.joinpath(*parts)
    if not res.is_file():
        return None
    return res.read_text(encoding="utf-8")


@cache
def _layout_doc(layout_id: str) -> dict[str, Any] | None:
    # Only an official name is looked up: the name of a layout comes from documents anyone may
    # write (a scenario's `layout`, a service request), and must never be a path that reaches
    # a file outside the packaged data (`../../x`).
    if layout_id not in _official_layouts():
        return None
    text = _data_text("layouts", f"{layout_id}.json")
    return None if text is None else json.loads(text)


@cache
def _official_layouts() -> tuple[str, ...]:
    d = DATA / "layouts"
    if not d.is_dir():
        return ()
    ids = [p.name[:-5] for p in d.iterdir() if p.name.endswith(".json")]
    return tuple(sorted(ids, key=lambda s: (not s.startswith("standard"), s)))


def layout_ids() -> list[str]:
    """The official map layouts' names (the packaged `maps/data/layouts/*.json`)."""
    return list(_official_layouts())


@cache
def load_layout(layout_id: str) -> LayoutData:
    """An official layout by name; any other text (a file path too) is an unknown layout."""
    doc = _layout_doc(layout_id)
    if doc is None:
        known = ", ".join(layout_ids()) or "none installed"
        raise TmgError(f"unknown map layout {layout_id!r}: a layout is an official name, never "
                       f"a file (known: {known})")
    ctx = Ctx(f"maps/data/layouts/{layout_id}.json")
    pieces = []
    for i, e in enumerate(doc["terrain"]):
        entry = {k: v for k, v in e.items() if k in (
            "id", "size", "polygon", "rect", "circle", "kind", "standable", "on", "openings",
            "access_points", "label")}
        p = parse_terrain(ctx, entry, i)
        assert isinstance(p, TerrainPiece)
        pieces.append(p)
    t = doc["table"]
    return LayoutData(
        id=doc["id"], name=doc.get("name", doc["id"]), table=Table(t["width"], t["depth"]),
        terrain=tuple(pieces), source=doc.get("source", ""),
        accuracy_in=doc.get("accuracy_in"), notes=tuple(doc.get("notes", [])), raw=doc)


@cache
def _deployments_doc() -> dict[str, Any]:
    text = _data_text("deployments.json")
    return {"cards": []} if text is None else json.loads(text)


def deployment_ids() -> list[str]:
    return [c["id"] for c in _deployments_doc()["cards"]]


def deployment_info(card_id: str) -> dict[str, Any]:
    for c in _deployments_doc()["cards"]:
        if c["id"] == card_id:
            return c
    raise TmgError(f"unknown deployment card {card_id!r} (known: {', '.join(deployment_ids())})")


def zone_of_influence(table: Table, segments: tuple[LineString, ...],
                      depth: float = DEPLOYMENT_ZONE_DEPTH) -> Polygon:
    """The strip `depth` inches in from each entry-edge segment, clipped to the table."""
    strips = []
    for seg in segments:
        (x1, y1), (x2, y2) = seg.coords[0], seg.coords[-1]
        lo_x, hi_x, lo_y, hi_y = min(x1, x2), max(x1, x2), min(y1, y2), max(y1, y2)
        if abs(y1 - y2) < 1e-9:  # horizontal edge: strip grows into the table
            strips.append(box(lo_x, 0, hi_x, depth) if y1 < table.depth / 2
                          else box(lo_x, table.depth - depth, hi_x, table.depth))
        else:
            strips.append(box(0, lo_y, depth, hi_y) if x1 < table.width / 2
                          else box(table.width - depth, lo_y, table.width, hi_y))
    return shapely.union_all(strips).intersection(table.polygon)


@cache
def load_deployment(card_id: str) -> Deployment:
    c = deployment_info(card_id)
    if not c.get("available", False):
        raise TmgError(f"deployment card {card_id!r} has no geometry in any source found "
                       "(listed, marked unavailable; nothing is invented)")
    table = Table(c["table"]["width"], c["table"]["depth"])
    edges = {owner: tuple(LineString(seg) for seg in segs)
             for owner, segs in c["entry_edges"].items()}
    zones = {owner: zone_of_influence(table, segs) for owner, segs in edges.items()}
    markers = tuple(Marker(m["id"], (float(m["at"][0]), float(m["at"][1])),
                           m.get("colour", marker_colour(m["id"]))) for m in c["markers"])
    return Deployment(id=c["id"], name=c["name"], table=table, entry_edges=edges, zones=zones,
                      markers=markers, name_ko=c.get("name_ko"))


def quarters(table: Table) -> dict[str, Polygon]:
    """The four quarters: a cross at x = width/2 and y = depth/2 ("Divide and Conquer" and the
    §9.3 distribution guideline). Ids as in `deployments.json` ``quarters``."""
    cx, cy = table.width / 2, table.depth / 2
    return {"bottom-left": box(0, 0, cx, cy), "bottom-right": box(cx, 0, table.width, cy),
            "top-right": box(cx, cy, table.width, table.depth),
            "top-left": box(0, cy, cx, table.depth)}


@dataclass(frozen=True)
class PhysicalPiece:
    """One physical terrain piece: an official L wall is transcribed as two rectangles (its
    arms), which count, move and are measured as one piece."""

    id: str
    parts: tuple[TerrainPiece, ...]

    @property
    def footprint(self) -> Polygon:
        if len(self.parts) == 1:
            return self.parts[0].footprint
        u = shapely.union_all([p.footprint for p in self.parts])
        return u if isinstance(u, Polygon) else u.convex_hull

    @property
    def size(self) -> int:
        return max(p.size for p in self.parts)

    @property
    def grass(self) -> bool:
        return all(p.grass for p in self.parts)

    @property
    def label(self) -> str | None:
        """The piece's label (an L wall's, without the arm's "— long side")."""
        label = self.parts[0].label
        if label is not None and len(self.parts) > 1:
            label = label.split(" — ")[0]
        return label

    @property
    def title(self) -> str:
        """As `TerrainPiece.title`: `Label (terrain/ID)`, or the reference alone."""
        ref = f"terrain/{self.id}"
        return f"{self.label} ({ref})" if self.label else ref


def layout_groups(layout_id: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(group id, part ids) of the L walls of an official layout."""
    doc = _layout_doc(layout_id)
    if doc is None:
        return ()
    return tuple((g["id"], tuple(g["parts"])) for g in doc.get("groups", []))


def piece_groups(bf: Battlefield) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Official L-wall groups whose arms are all on this battlefield (a scenario that takes a
    layout keeps its piece ids; a piece replaced by the scenario under the same id still counts
    as that arm, a removed arm dissolves the group)."""
    present = {p.id for p in bf.terrain}
    layouts = {pid.split("/", 1)[0] for pid in present if "/" in pid}
    out = []
    for lid in sorted(layouts & set(layout_ids())):
        for gid, parts in layout_groups(lid):
            if all(p in present for p in parts):
                out.append((gid, parts))
    return tuple(out)


def physical_pieces(bf: Battlefield, *, tokens: bool = False) -> list[PhysicalPiece]:
    """The battlefield's terrain as physical pieces (L-wall arms joined); tokens left out unless
    asked for (they are game effects, not set-up terrain)."""
    grouped: dict[str, str] = {}
    groups: dict[str, list[TerrainPiece]] = {}
    for gid, parts in piece_groups(bf):
        for pid in parts:
            grouped[pid] = gid
        groups[gid] = []
    out: list[PhysicalPiece] = []
    for p in bf.terrain:
        if p.is_token and not tokens:
            continue
        if p.id in grouped:
            g = groups[grouped[p.id]]
            if not g:
                out.append(PhysicalPiece(grouped[p.id], ()))  # placeholder, filled below
            g.append(p)
        else:
            out.append(PhysicalPiece(p.id, (p,)))
    return [PhysicalPiece(pp.id, tuple(groups[pp.id])) if pp.id in groups else pp for pp in out]


def default_entry_edges(table: Table) -> list[dict[str, tuple[LineString, ...]]]:
    """Entry edges to assume when no deployment card is given: the two long edges (bottom and
    top); on a square table both pairs of opposite edges are candidates."""
    w, d = table.width, table.depth
    bottom_top = {"red": (LineString([(0, 0), (w, 0)]),),
                  "blue": (LineString([(0, d), (w, d)]),)}
    left_right = {"red": (LineString([(0, 0), (0, d)]),),
                  "blue": (LineString([(w, 0), (w, d)]),)}
    if abs(w - d) < 1e-9:
        return [bottom_top, left_right]
    return [bottom_top] if w > d else [left_right]


def battlefield_by_name(name: str) -> Battlefield:
    """An official layout (with no units) or a deployment card (empty table) by name."""
    if name in layout_ids():
        lay = load_layout(name)
        return Battlefield(table=lay.table, terrain=lay.terrain, name=lay.name)
    if name in deployment_ids():
        dep = load_deployment(name)
        return Battlefield(table=dep.table, markers=dep.markers, deployment=dep, name=dep.name)
    raise TmgError(f"{name!r} is neither a file nor an official layout or deployment card "
                   f"(layouts: {', '.join(layout_ids()) or 'none'}; "
                   f"cards: {', '.join(deployment_ids()) or 'none'})")
