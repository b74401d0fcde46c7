"""`tmg engaged FILE A B`: are two models, or two units, engaged (§7.2, §7.2.1)?"""

from __future__ import annotations

import argparse
from typing import Any

from geom.combat import all_ranks
from geom.engagement import base_gap, engaged_pairs, models_engaged, units_engaged
from geom.errors import TmgError
from geom.model import Model, Unit
from scenario import refs

from . import about
from ._common import add_file, load, resolve, witness_line


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("engaged", help=about("engaged"))
    add_file(p)
    p.add_argument("a", metavar="A", help="UNIT/MODEL or UNIT")
    p.add_argument("b", metavar="B", help="UNIT/MODEL or UNIT")
    p.set_defaults(run=run, text=text)
    return p


def run(args: argparse.Namespace) -> dict[str, Any]:
    bf = load(args)
    a, b = resolve(bf, args.a, args.file), resolve(bf, args.b, args.file)
    for ref, x in ((args.a, a), (args.b, b)):
        if not isinstance(x, Model | Unit):
            raise TmgError("expected a model UNIT/MODEL or a unit UNIT", file=args.file, obj=ref)
    if isinstance(a, Model) and isinstance(b, Model):
        v = models_engaged(bf, a, b)
    else:
        ua = a if isinstance(a, Unit) else None
        ub = b if isinstance(b, Unit) else None
        ma = list(a.models) if isinstance(a, Unit) else [a]
        mb = list(b.models) if isinstance(b, Unit) else [b]
        if ua and ub:
            v = units_engaged(bf, ua, ub)
        else:  # a model against a unit
            pairs = engaged_pairs(bf, ma, mb, first_only=True)
            if pairs:
                v = pairs[0].verdict
            else:
                best = min(((x, y) for x in ma for y in mb), key=lambda xy: base_gap(*xy))
                v = models_engaged(bf, *best)
    out: dict[str, Any] = {"a": refs.label(a), "b": refs.label(b), "engaged": v.ok,
                           "reason": v.reason, "rule": v.rule, "witness": v.witness}
    if "blocking" in v.details:
        out["blocking"] = v.details["blocking"]
    if "distance" in v.details:
        out["distance"] = v.details["distance"]
    if "levels" in v.details:
        out["levels"] = v.details["levels"]
    if isinstance(a, Unit) and isinstance(b, Unit):
        pairs = engaged_pairs(bf, a.models, b.models)
        out["pairs"] = [[p.a.ref, p.b.ref] for p in pairs]
        for r in all_ranks(bf, a):
            if r.enemy == b.id:
                out["ranks"] = r.as_dict()
    return out


def text(r: dict[str, Any]) -> str:
    s = f'{r["a"]} and {r["b"]}: {"ENGAGED" if r["engaged"] else "not engaged"} ({r["rule"]})'
    s += f'\n  {r["reason"]}'
    if r.get("witness"):
        s += witness_line(r["witness"])
    if r.get("ranks"):
        k = r["ranks"]
        s += (f'\n  {k["unit"]} fighting rank: {", ".join(k["fighting"]) or "-"}; '
              f'supporting rank: {", ".join(k["supporting"]) or "-"}')
    return s
