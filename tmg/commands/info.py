"""`tmg info FILE`: what is on the table, with elevations and effective sizes (§7.1.2)."""

from __future__ import annotations

import argparse
import math
from typing import Any

from geom.elevation import (
    elevation_level,
    model_effective_size,
    piece_effective_size,
    standing_piece,
)
from geom.model import Battlefield

from . import about
from ._common import add_file, base_words, load

LEVEL_WORDS = {"ground": "ground level", "mid": "mid ground", "high": "high ground",
               "flying": "flying"}


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("info", help=about("info"))
    add_file(p)
    p.set_defaults(run=run, text=text)
    return p


def describe(bf: Battlefield) -> dict[str, Any]:
    terrain = []
    for p in bf.terrain:
        terrain.append({"id": p.id, "label": p.label, "title": p.title, "size": p.size,
                        "kind": p.kind,
                        "standable": p.can_stand_on, "on": p.on,
                        "effective_size": piece_effective_size(bf, p),
                        "area": round(p.footprint.area, 3)})
    units = []
    for u in bf.units:
        models = []
        for m in u.models:
            piece = standing_piece(bf, m)
            eff = model_effective_size(bf, m)
            models.append({"id": m.id, "at": list(m.at), "angle": m.angle,
                           "elevation": elevation_level(bf, m),
                           "stands_on": piece.id if piece else None,
                           "effective_size": None if math.isinf(eff) else eff,
                           "above_all_terrain": math.isinf(eff)})
        units.append({"id": u.id, "type": u.type, "name": u.name, "owner": u.owner,
                      "size": u.size, "base_mm": u.base.mm(), "flying": u.flying,
                      "large": u.large, "speed": None if u.speed is None else str(u.speed),
                      "current_speed": u.current_speed(), "supply": u.supply,
                      "statuses": list(u.statuses), "tags": list(u.tags),
                      "leading": u.leading_model.id, "models": models})
    markers = [{"id": m.id, "at": list(m.at), "colour": m.colour} for m in bf.markers]
    out: dict[str, Any] = {"name": bf.name,
                           "table": {"width": bf.table.width, "depth": bf.table.depth},
                           "terrain": terrain, "units": units, "markers": markers}
    if bf.deployment is not None:
        out["deployment"] = {"id": bf.deployment.id, "name": bf.deployment.name}
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    return describe(load(args))


def text(r: dict[str, Any]) -> str:
    lines = [f'{r["name"] or "scenario"}: table {r["table"]["width"]:g}" x {r["table"]["depth"]:g}"']
    if "deployment" in r:
        lines.append(f'deployment: {r["deployment"]["name"]}')
    lines.append(f'terrain ({len(r["terrain"])} pieces):')
    for p in r["terrain"]:
        extra = []
        if p["kind"] != "solid":
            extra.append(p["kind"])
        if p["standable"]:
            extra.append("standable top")
        if p["on"]:
            extra.append(f'on {p["on"]}')
        lines.append(f'  {p["title"]}: Size {p["size"]}, effective size {p["effective_size"]}'
                     + (f' ({", ".join(extra)})' if extra else ""))
    lines.append(f'units ({len(r["units"])}):')
    for u in r["units"]:
        kind = "flying" if u["flying"] else "ground"
        lines.append(f'  {u["id"]} ({u["owner"]}{", " + u["name"] if u["name"] else ""}): '
                     f'Size {u["size"]}, {kind}, base {base_words(u["base_mm"])}, '
                     f'speed {u["speed"] or "?"}, {len(u["models"])} model(s), '
                     f'leading {u["leading"]}')
        for m in u["models"]:
            eff = "above all terrain" if m["above_all_terrain"] else m["effective_size"]
            on = f' on {m["stands_on"]}' if m["stands_on"] else ""
            lines.append(f'    {m["id"]} at ({m["at"][0]:g}, {m["at"][1]:g}): '
                         f'{LEVEL_WORDS.get(m["elevation"], m["elevation"])}{on}, '
                         f'effective size {eff}')
    if r["markers"]:
        lines.append("markers: " + ", ".join(
            f'{m["id"]} ({m["colour"]}) at ({m["at"][0]:g}, {m["at"][1]:g})' for m in r["markers"]))
    return "\n".join(lines)
