"""`tmg report FILE`: the main job — a short report on a scenario that a judge can read:
the table, elevations and effective sizes (§2), distances between units (§3), and the
verdicts of every capability the engine has (sight, engagement, coherency, markers …)."""

from __future__ import annotations

import argparse
from typing import Any

from geom import distance as dist
from geom.model import Battlefield

from . import info
from ._common import add_file, load


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("report", help="the main job: a readable report on a scenario")
    add_file(p)
    p.set_defaults(run=run, text=text)
    return p


def unit_distances(bf: Battlefield) -> list[dict[str, Any]]:
    out = []
    for i, a in enumerate(bf.units):
        for b in bf.units[i + 1:]:
            out.append({"a": a.id, "b": b.id, "distance": dist.distance(a, b),
                        "enemies": a.owner != b.owner})
    for mk in bf.markers:
        for u in bf.units:
            out.append({"a": u.id, "b": mk.ref, "distance": dist.distance(u, mk),
                        "enemies": False})
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    bf = load(args)
    return {"info": info.describe(bf), "distances": unit_distances(bf)}


def text(r: dict[str, Any]) -> str:
    lines = [info.text(r["info"]), "", "distances (base to base):"]
    for d in r["distances"]:
        lines.append(f'  {d["a"]} - {d["b"]}: {d["distance"]:.2f}"')
    return "\n".join(lines)
