"""`tmg layouts`: the official map layouts and deployment cards (§5.6, §9.3, map layouts)."""

from __future__ import annotations

import argparse
from typing import Any

from maps import (
    battlefield_by_name,
    deployment_ids,
    deployment_info,
    layout_ids,
    load_layout,
    physical_pieces,
)

from . import about


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("layouts", help=about("layouts"))
    p.set_defaults(run=run, text=text)
    return p


def run(args: argparse.Namespace) -> dict[str, Any]:
    layouts = []
    for lid in layout_ids():
        lay = load_layout(lid)
        layouts.append({"id": lay.id, "name": lay.name, "name_ko": lay.raw.get("name_ko"),
                        "table": {"width": lay.table.width, "depth": lay.table.depth},
                        "pieces": len(physical_pieces(battlefield_by_name(lid))),
                        "footprints": len(lay.terrain), "accuracy_in": lay.accuracy_in,
                        "source": lay.source})
    deployments = []
    for cid in deployment_ids():
        c = deployment_info(cid)
        deployments.append({"id": cid, "name": c["name"], "name_ko": c.get("name_ko"),
                            "available": bool(c.get("available")), "scale": c.get("scale"),
                            "table": dict(c["table"]),
                            "markers": [m["id"] for m in c.get("markers") or []],
                            "disagreements": list(c.get("disagreements") or [])})
    return {"layouts": layouts, "deployments": deployments}


def text(r: dict[str, Any]) -> str:
    lines = ["Map layouts:"]
    for lay in r["layouts"]:
        t = lay["table"]
        lines.append(f"  {lay['id']:<12} {lay['name']:<16} {t['width']:g}x{t['depth']:g}  "
                     f"{lay['pieces']} pieces ({lay['footprints']} footprints)  "
                     f"({lay['name_ko']})")
    lines.append("Deployment cards:")
    for c in r["deployments"]:
        t = c["table"]
        state = "" if c["available"] else "  [no geometry in any source: unavailable]"
        note = "  (sources disagree: see tmg layouts --json)" if c["disagreements"] else ""
        lines.append(f"  {c['id']:<16} {c['name']:<16} {t['width']:g}x{t['depth']:g}  "
                     f"{c['name_ko']}{state}{note}")
    return "\n".join(lines)
