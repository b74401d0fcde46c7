"""`tmg charge FILE UNIT --targets T1[,T2…] [--modifier M] [--leading MODEL]` (§8.7.7)."""

from __future__ import annotations

import argparse
from typing import Any

from geom.charge import charge
from geom.errors import TmgError

from ._common import add_file, finite_arg, load


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("charge", help="can a charge succeed, on what roll, and where does it end")
    add_file(p)
    p.add_argument("unit", metavar="UNIT", help="the charging unit")
    p.add_argument("--targets", required=True, metavar="T1[,T2...]",
                   help="declared target units, comma-separated")
    p.add_argument("--modifier", type=finite_arg, default=0.0, metavar="M",
                   help='inches added to the charge distance (e.g. -2 for Concussive Shells)')
    p.add_argument("--leading", metavar="MODEL",
                   help="leading model id (default: the unit's leading model, or the best one)")
    p.set_defaults(run=run, text=text)
    return p


def run(args: argparse.Namespace) -> dict[str, Any]:
    bf = load(args)
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    if not targets:
        raise TmgError("--targets needs at least one unit id", file=args.file)
    try:
        answer = charge(bf, args.unit, targets, args.modifier, leading=args.leading)
    except TmgError as exc:
        raise TmgError(exc.detail, file=args.file, obj=exc.obj or args.unit,
                       field=exc.field) from None
    return answer.as_dict()


def text(r: dict[str, Any]) -> str:
    head = f'{r["unit"]} charges {", ".join(r["targets"])}: '
    if r["possible"]:
        head += (f'possible on {r["min_roll"]}+ (probability {r["probability"]:.3f}); '
                 f'needs {r["min_distance"]:.3f}"')
    else:
        head += "impossible"
        if r.get("min_distance") is not None:
            head += f' (needs {r["min_distance"]:.3f}")'
    lines = [head, f'  {r["reason"]} ({r["rule"]})']
    if r.get("end") is not None:
        x, y = r["end"]
        lines.append(f'  leading model {r["unit"]}/{r.get("leading")} ends at ({x:.3f}, {y:.3f})'
                     + (f' — {r["end_kind"]}' if r.get("end_kind") else ""))
    if r.get("path"):
        lines.append("  path: " + " -> ".join(f"({x:.2f}, {y:.2f})" for x, y in r["path"]))
    pl = r.get("placement")
    if pl:
        for mid, pos in pl["positions"].items():
            lines.append(f'  {r["unit"]}/{mid} to ({pos[0]:.3f}, {pos[1]:.3f}): '
                         f'{pl["priority"][mid]}')
        for mid in pl["casualties"]:
            lines.append(f"  {r['unit']}/{mid}: casualty — {pl['reasons'].get(mid, '')}")
    return "\n".join(lines)
