"""Loaders for the packaged map layouts and deployment cards (data in `maps/data/`).

Layout terrain entries use the scenario file's `[[terrain]]` keys, so one parser serves both.
Zones of influence are computed here from the entry edges: the strip 6" deep inward from each
entry-edge segment (where an edge is partial, the strip ends square at the L markers, §5.6).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import shapely
from shapely.geometry import LineString, Polygon, box

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


def _data_text(*parts: str) -> str | None:
    res = resources.files("maps").joinpath("data", *parts)
    if not res.is_file():
        return None
    return res.read_text(encoding="utf-8")


@cache
def _layout_doc(layout_id: str) -> dict[str, Any] | None:
    text = _data_text("layouts", f"{layout_id}.json")
    return None if text is None else json.loads(text)


def layout_ids() -> list[str]:
    d = resources.files("maps").joinpath("data", "layouts")
    if not d.is_dir():
        return []
    ids = [p.name[:-5] for p in d.iterdir() if p.name.endswith(".json")]
    return sorted(ids, key=lambda s: (not s.startswith("standard"), s))


@cache
def load_layout(layout_id: str) -> LayoutData:
    doc = _layout_doc(layout_id)
    if doc is None:
        known = ", ".join(layout_ids()) or "none installed"
        raise TmgError(f"unknown map layout {layout_id!r} (known: {known})")
    from tmg.scenario import _Ctx, parse_terrain  # one parser for layout and scenario terrain

    ctx = _Ctx(f"maps/data/layouts/{layout_id}.json")
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
    """The four quarters of "Divide and Conquer": a cross at x = width/2 and y = depth/2."""
    cx, cy = table.width / 2, table.depth / 2
    return {"south-west": box(0, 0, cx, cy), "south-east": box(cx, 0, table.width, cy),
            "north-west": box(0, cy, cx, table.depth),
            "north-east": box(cx, cy, table.width, table.depth)}


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
