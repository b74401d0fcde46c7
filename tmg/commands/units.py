"""`tmg units [NAME]`: the built-in unit catalogue."""

from __future__ import annotations

import argparse
import json
from typing import Any

from geom.errors import TmgError
from scenario import catalogue

from ._common import base_words


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("units", help="list the built-in unit catalogue, or show one entry")
    p.add_argument("name", nargs="?", help="unit id, English or Korean name")
    p.set_defaults(run=run, text=text)
    return p


def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.name:
        u = catalogue.find(args.name)
        if u is None:
            raise TmgError(f"unknown unit {args.name!r}", obj=args.name)
        return {"unit": u}
    return {"units": [{k: u.get(k) for k in ("id", "name", "name_ko", "faction", "base_mm",
                                               "size", "speed", "flying", "large")}
                      for u in catalogue.units()]}


def _value(v: Any) -> str:
    """One catalogue field for a reader: lists of words joined, structures as JSON."""
    if v is None or v == "" or v == []:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, list) and all(isinstance(x, str | int | float) for x in v):
        return ", ".join(str(x) for x in v)
    if isinstance(v, list | dict):
        return json.dumps(v, ensure_ascii=False)
    return str(v)


def text(r: dict[str, Any]) -> str:
    if "unit" in r:
        return "\n".join(f"{k}: {_value(v)}" for k, v in r["unit"].items())
    return "\n".join(f'{u["id"]:<24} {u["name"]:<26} {u["name_ko"] or "":<14} '
                     f'base {base_words(u["base_mm"])}, Size {_value(u["size"])}, '
                     f'speed {_value(u["speed"])}' for u in r["units"])
