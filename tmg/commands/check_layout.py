"""`tmg check-layout LAYOUT_OR_FILE`: the terrain against the §9.3 guidelines, with numbers."""

from __future__ import annotations

import argparse
from typing import Any

from maps.checks import check_layout

from . import about
from ._common import add_file, load


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("check-layout",
                       help=about("check-layout"))
    add_file(p, help="scenario file, layout name (standard-1 ...) or deployment card name "
             "(--deployment CARD: take the entry edges, for the fire lanes, from that card)")
    p.set_defaults(run=run, text=text)
    return p


def run(args: argparse.Namespace) -> dict[str, Any]:
    bf = load(args)
    findings = check_layout(bf, bf.deployment)
    used = bf.deployment
    return {"name": bf.name or args.file,
            "table": {"width": bf.table.width, "depth": bf.table.depth},
            "deployment": used.id if used is not None else None,
            "ok": all(f.ok for f in findings),
            "failed": sum(not f.ok for f in findings),
            "findings": [f.as_dict() for f in findings]}


def text(r: dict[str, Any]) -> str:
    t = r["table"]
    head = f"{r['name']} ({t['width']:g}x{t['depth']:g}"
    head += f", deployment {r['deployment']})" if r["deployment"] else ")"
    lines = [head]
    for f in r["findings"]:
        lines.append(f"  [{'ok' if f['ok'] else 'NO'}] {f['rule']}: {f['detail']}")
    lines.append(f"{len(r['findings']) - r['failed']} of {len(r['findings'])} guidelines met")
    return "\n".join(lines)
