"""`tmg check BEFORE AFTER`: can each unit that changed be where the player put it
(GEOMETRY-RULES §14; the judge is `geom.judge`)?

AFTER is read tolerantly (bases off the table or overlapping are what is judged); only what
cannot be a table at all (broken geometry, unknown units or models) is bad input.
"""

from __future__ import annotations

import argparse
from typing import Any

import scenario
from geom.errors import TmgError
from geom.judge import KINDS, check

from . import about
from ._common import distance_arg


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("check", help=about("check"))
    p.add_argument("before", metavar="BEFORE", help="scenario file: the table before the action")
    p.add_argument("after", metavar="AFTER", help="scenario file: the table as the player left it")
    p.add_argument("--unit", metavar="U", help="judge only this unit")
    p.add_argument("--action", choices=KINDS,
                   help="the kind of action to judge (default: every kind the unit could take)")
    p.add_argument("--allowance", type=distance_arg, metavar="IN",
                   help="distance allowed (default: the unit's Speed); PLACE X takes X here")
    p.add_argument("--roll", type=int, metavar="D6",
                   help="a charge's D6 roll (default: any roll)")
    p.add_argument("--targets", metavar="T1[/MODEL][,T2…]",
                   help="a charge's declared target units (default: the enemy units its leader "
                        "ends engaged with); UNIT/MODEL names its target model (§8.7.7 step 2)")
    p.set_defaults(run=run, text=text)
    return p


def run(args: argparse.Namespace) -> dict[str, Any]:
    before = scenario.load(args.before)
    after = scenario.load(args.after, tolerant=True)
    try:
        targets = [t for t in args.targets.split(",") if t] if args.targets else None
        return check(before, after, unit=args.unit, action=args.action,
                     allowance=args.allowance, roll=args.roll, targets=targets)
    except TmgError as exc:
        if exc.file is None:
            raise TmgError(exc.detail, file=args.after, obj=exc.obj, field=exc.field) from None
        raise


def text(r: dict[str, Any]) -> str:
    lines = [f'{"LEGAL" if r["legal"] else "NOT LEGAL"}: {r["reason"]}']
    for u in r["units"]:
        kind = u["action"] if isinstance(u["action"], str) else ", ".join(u["action"]) or "-"
        lines.append(f'  {u["unit"]} ({kind}): {"legal" if u["legal"] else "not legal"}'
                     + (f', led by {u["leading"]}' if u["leading"] else ""))
        for f in u["failures"]:
            ex = f' [excess {f["excess"]:.3f}"]' if f["excess"] is not None else ""
            lines.append(f'    {f["model"] or u["unit"]}: {f["reason"]} ({f["rule"]}){ex}')
    return "\n".join(lines)
