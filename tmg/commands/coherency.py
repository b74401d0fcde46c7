"""`tmg coherency FILE UNIT`: is the unit in coherency, and if not, which models fail and why
(rulebook §4.4; docs/rules.md#coherency-links)? A unit recorded `coherent = true` is, whatever
casualties left it (docs/rules.md#coherency-persists)."""

from __future__ import annotations

import argparse
from typing import Any

from geom.movement import standing

from . import about
from ._common import add_file, load, resolve_unit


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("coherency", help=about("coherency"))
    add_file(p)
    p.add_argument("unit", metavar="UNIT")
    p.add_argument("--leading", metavar="MODEL",
                   help="leading model id (default: the unit's; with none recorded, the first "
                        "model that puts the unit in coherency)")
    p.set_defaults(run=run, text=text)
    return p


def run(args: argparse.Namespace) -> dict[str, Any]:
    bf = load(args)
    u = resolve_unit(bf, args.unit, args.file, args.leading)
    v = standing(bf, u, leading=args.leading)
    out = {"unit": u.id, "in_coherency": v.ok, "rule": v.rule, "reason": v.reason,
           "recorded": v.details["recorded"],
           "positions_in_coherency": v.details["positions_in_coherency"],
           "leading": v.details["leading"], "leading_recorded": v.details["leading_recorded"],
           "coherency_distance": v.details["coherency_distance"],
           "failures": v.details["failures"], "links": v.details["links"],
           "engaged_with": v.details["engaged_with"]}
    if "position_failures" in v.details:
        out["position_failures"] = v.details["position_failures"]
    if "leaders_tried" in v.details:
        out["leaders_tried"] = v.details["leaders_tried"]
    refs = sorted({b for lk in v.details["links"] for b in lk["blocked_by"]})
    out["titles"] = {ref: bf.title_of(ref) for ref in refs if bf.title_of(ref) != ref}
    return out


def text(r: dict[str, Any]) -> str:
    chosen = "" if r["leading_recorded"] else ", none recorded"
    lines = [f'{r["unit"]}: {"in coherency" if r["in_coherency"] else "OUT OF COHERENCY"} '
             f'(leading model {r["leading"]}{chosen}; coherency distance '
             f'{r["coherency_distance"]:g}"; {r["rule"]})', f'  {r["reason"]}']
    for f in r["failures"]:
        lines.append(f'  {f["model"]}: {f["reason"]}')
    for f in r.get("position_failures", []):
        lines.append(f'  as it stands (casualties do not count): {f["model"]}: {f["reason"]}')
    bad = [lk for lk in r["links"] if not lk["ok"]]
    titles = r.get("titles") or {}
    if bad:
        lines.append("  blocked links: " + "; ".join(
            f'{lk["a"]}-{lk["b"]} ({", ".join(titles.get(b, b) for b in lk["blocked_by"])})'
            for lk in bad))
    return "\n".join(lines)
