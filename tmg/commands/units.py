"""`tmg units [NAME]`: the built-in unit catalogue; one entry shows its geometric abilities
(Squadron, Raptor variant, LARGE, STRUCTURE, flying) with the card text they come from."""

from __future__ import annotations

import argparse
import json
from typing import Any

from geom.errors import TmgError
from scenario import catalogue
from scenario.abilities import INFO
from scenario.units import catalogue_abilities

from . import about
from ._common import base_words

# shown in their own section, not in the field list
_ABILITY_KEYS = ("abilities", "ability_sources", "unmodelled_abilities")


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("units", help=about("units"))
    p.add_argument("name", nargs="?", help="unit id, English or Korean name, or part of one "
                   "(several entries containing it are listed)")
    p.set_defaults(run=run, text=text)
    return p


def explain_abilities(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """Each geometric ability of a catalogue entry: what it changes, what the engine applies,
    and its source (rulebook line and card text, or the data file it comes from)."""
    out: list[dict[str, Any]] = []
    sources = entry.get("ability_sources") or {}
    for a in catalogue_abilities(entry):
        info = INFO[a]
        src = sources.get(a) or {"source": "unknown"}
        out.append({**info.as_dict(), "source": src.get("source"),
                    "rulebook_line": src.get("rulebook_line"),
                    "card_text": src.get("card_text") or src.get("card_text_en"),
                    "also_in": src.get("also_in", [])})
    if entry.get("flying"):
        src = sources.get("flying") or {"source": "unknown"}
        out.append({"id": "flying", "card_name": "Flying", "name_ko": "공중",
                    "rule": "§7.1.4, §7.2.1, §8.9.1",
                    "effect": "a combat tag, not an ability: sight over all terrain, never "
                              "engages, never contests markers, moves point to point",
                    "applied": "the unit's `flying` field", "source": src.get("source"),
                    "rulebook_line": src.get("rulebook_line"),
                    "card_text": src.get("card_text"), "also_in": src.get("also_in", [])})
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.name:
        u = catalogue.find(args.name)
        if u is None:
            found = catalogue.search(args.name)
            if len(found) == 1:
                u = found[0]
            elif found:  # several entries contain it: list them, as `tmg units` does
                return {"units": [_row(u) for u in found], "search": args.name}
            else:
                raise TmgError(f"unknown unit {args.name!r}{catalogue.did_you_mean(args.name)}",
                               obj=args.name)
        return {"unit": u, "abilities": explain_abilities(u),
                "unmodelled_abilities": u.get("unmodelled_abilities", [])}
    return {"units": [_row(u) for u in catalogue.units()]}


def _row(u: dict[str, Any]) -> dict[str, Any]:
    return ({k: u.get(k) for k in ("id", "name", "name_ko", "faction", "base_mm", "size",
                                   "speed", "flying", "large")}
            | {"abilities": catalogue_abilities(u)})


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


def _ability_lines(r: dict[str, Any]) -> list[str]:
    lines = ["abilities that change geometry:" if r["abilities"] else
             "abilities that change geometry: none"]
    for a in r["abilities"]:
        where = (f"rulebook line {a['rulebook_line']}" if a["rulebook_line"] is not None
                 else f"{a['source']} (not in the rulebook's card text)")
        also = f"; also in {', '.join(a['also_in'])}" if a["also_in"] else ""
        lines.append(f"  {a['id']} ({a['card_name']}, {a['name_ko']}, {a['rule']}): "
                     f"{a['effect']}")
        lines.append(f"    applied: {a['applied']}")
        lines.append(f"    source: {where}{also}" + (f": {a['card_text']}"
                                                      if a["card_text"] else ""))
    for a in r["unmodelled_abilities"]:
        lines.append(f"  not applied: {a['name']} ({a['name_ko']}, rulebook line "
                     f"{a['rulebook_line']}): {a['effect']}")
    return lines


def text(r: dict[str, Any]) -> str:
    if "unit" in r:
        fields = [f"{k}: {_value(v)}" for k, v in r["unit"].items() if k not in _ABILITY_KEYS]
        return "\n".join(fields + _ability_lines(r))
    return "\n".join(f'{u["id"]:<24} {u["name"]:<26} {u["name_ko"] or "":<14} '
                     f'base {base_words(u["base_mm"])}, Size {_value(u["size"])}, '
                     f'speed {_value(u["speed"])}'
                     + (f', {", ".join(u["abilities"])}' if u["abilities"] else "")
                     for u in r["units"])
