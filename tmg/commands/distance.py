"""`tmg distance FILE A B [--within D]` (§4.1, §4.2)."""

from __future__ import annotations

import argparse
from typing import Any

from geom import distance, wholly_within, within
from scenario import refs

from . import about
from ._common import add_file, distance_arg, load, resolve


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("distance", help=about("distance"))
    add_file(p)
    p.add_argument("a", metavar="A", help="UNIT/MODEL, UNIT, marker/N, terrain/ID, zone/OWNER or X,Y")
    p.add_argument("b", metavar="B")
    p.add_argument("--within", type=distance_arg, metavar="D", help="also say WITHIN / WHOLLY WITHIN D")
    p.set_defaults(run=run, text=text)
    return p


def run(args: argparse.Namespace) -> dict[str, Any]:
    bf = load(args)
    a, b = resolve(bf, args.a, args.file), resolve(bf, args.b, args.file)
    out: dict[str, Any] = {"a": refs.label(a), "b": refs.label(b),
                           "a_title": refs.title(a), "b_title": refs.title(b),
                           "distance": distance(a, b), "rule": "4.1 measuring distances"}
    if args.within is not None:
        out["within_distance"] = args.within
        out["within"] = within(a, b, args.within)
        out["wholly_within"] = wholly_within(a, b, args.within)
        out["rule"] = "4.2 within vs. wholly within"
    return out


def text(r: dict[str, Any]) -> str:
    s = f'{r["a_title"]} to {r["b_title"]}: {r["distance"]:.3f}"'
    if "within" in r:
        d = r["within_distance"]
        s += (f'\n  within {d:g}": {"yes" if r["within"] else "no"}'
              f'\n  wholly within {d:g}": {"yes" if r["wholly_within"] else "no"}')
    return s
