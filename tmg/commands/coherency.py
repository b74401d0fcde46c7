"""`tmg coherency FILE UNIT`: is the unit in coherency, and if not, which models fail and why
(rulebook §4.4; docs/rules.md, coherency links)?"""

from __future__ import annotations

import argparse
from typing import Any

from geom.coherency import coherency
from geom.errors import TmgError
from geom.model import Unit

from ._common import add_file, load, resolve


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("coherency", help="unit coherency: 3\" of the leading model and valid "
                       "coherency links")
    add_file(p)
    p.add_argument("unit", metavar="UNIT")
    p.add_argument("--leading", metavar="MODEL", help="leading model id (default: the unit's)")
    p.set_defaults(run=run, text=text)
    return p


def run(args: argparse.Namespace) -> dict[str, Any]:
    bf = load(args)
    u = resolve(bf, args.unit, args.file)
    if not isinstance(u, Unit):
        raise TmgError("expected a unit", file=args.file, obj=args.unit)
    if args.leading is not None:
        u.model(args.leading)
    v = coherency(bf, u, leading=args.leading)
    return {"unit": u.id, "in_coherency": v.ok, "rule": v.rule, "reason": v.reason,
            "leading": v.details["leading"], "failures": v.details["failures"],
            "links": v.details["links"], "engaged_with": v.details["engaged_with"]}


def text(r: dict[str, Any]) -> str:
    lines = [f'{r["unit"]}: {"in coherency" if r["in_coherency"] else "OUT OF COHERENCY"} '
             f'(leading model {r["leading"]}, {r["rule"]})']
    for f in r["failures"]:
        lines.append(f'  {f["model"]}: {f["reason"]}')
    bad = [lk for lk in r["links"] if not lk["ok"]]
    if bad:
        lines.append("  blocked links: " + "; ".join(
            f'{lk["a"]}-{lk["b"]} ({", ".join(lk["blocked_by"])})' for lk in bad))
    return "\n".join(lines)
