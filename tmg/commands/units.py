"""`tmg units [NAME]`: the built-in unit catalogue."""

from __future__ import annotations

import argparse
from typing import Any

from geom.errors import TmgError
from tmg import catalogue


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


def text(r: dict[str, Any]) -> str:
    if "unit" in r:
        u = r["unit"]
        return "\n".join(f"{k}: {v}" for k, v in u.items())
    return "\n".join(f'{u["id"]:<24} {u["name"]:<26} {u["name_ko"] or "":<14} base {u["base_mm"]}'
                     f' mm, Size {u["size"]}, speed {u["speed"]}' for u in r["units"])
