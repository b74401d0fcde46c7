"""`tmg markers FILE`: who contests and controls each mission marker (§8.9.1), and the
tournament rule that moves impassable terrain off markers (§9.3)."""

from __future__ import annotations

import argparse
from typing import Any

from geom.errors import TmgError
from geom.markers import all_markers
from geom.model import OWNERS
from maps.tournament import shift_terrain_off_markers

from . import about
from ._common import add_file, load


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("markers", help=about("markers"))
    add_file(p)
    p.add_argument("--previous", metavar="N=OWNER[,N=OWNER…]",
                   help="controller of each marker before this scoring phase (control is "
                        "sticky), e.g. 1=red,2=blue")
    p.add_argument("--fix-terrain", action="store_true",
                   help="first move impassable terrain off the markers (§9.3, tournament rules)")
    p.add_argument("--avoid-all-terrain", action="store_true",
                   help="with --fix-terrain: the moved piece may overlap no terrain at all")
    p.set_defaults(run=run, text=text)
    return p


def parse_previous(text: str | None, marker_ids: set[int]) -> dict[int, str]:
    out: dict[int, str] = {}
    if not text:
        return out
    for item in text.split(","):
        key, sep, owner = item.strip().partition("=")
        try:
            mid = int(key)
        except ValueError:
            mid = -1
        if not sep or mid not in marker_ids or owner not in OWNERS:
            raise TmgError(f"expected N=red or N=blue with N a marker on the table "
                           f"({', '.join(map(str, sorted(marker_ids)))}), got {item!r}",
                           obj="--previous")
        if mid in out:
            raise TmgError(f"marker {mid} given twice", obj="--previous")
        out[mid] = owner
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    bf = load(args)
    if not bf.markers:
        raise TmgError("no mission markers on this battlefield (give [[marker]] entries or a "
                       "deployment card)", file=args.file)
    previous = parse_previous(args.previous, {m.id for m in bf.markers})
    out: dict[str, Any] = {}
    if args.fix_terrain or args.avoid_all_terrain:
        bf, shifts = shift_terrain_off_markers(bf, avoid_all_terrain=args.avoid_all_terrain)
        out["terrain_moved"] = [s.as_dict() for s in shifts]
    results = all_markers(bf, previous)
    out["markers"] = {str(mid): r.as_dict() for mid, r in results.items()}
    # docs/interface.md: "per marker id: contesting, supply" — the same objects also stand at the
    # top level under each marker id, so both readings of the contract work.
    out.update(out["markers"])
    return out


def _after(s: str, prefix: str) -> str:
    """`s` without `prefix` (the heading above it already says it)."""
    return s[len(prefix):] if s.startswith(prefix) else s


def text(r: dict[str, Any]) -> str:
    lines = []
    for s in r.get("terrain_moved", []):
        lines.append(("moved: " if s["moved"] else "NOT moved: ") + s["reason"])
    for mid, m in r["markers"].items():
        sup = m["supply"]
        ctl = m["controller"] or ("unknown" if m["outcome"] == "unknown" else "nobody")
        lines.append(f"marker {mid} ({m['colour']}, at {m['at'][0]:g},{m['at'][1]:g}, "
                     f"{m['elevation']} level): controller {ctl}")
        for o in OWNERS:
            units = ", ".join(m["contesting"][o]) or "-"
            s = sup[o]
            lines.append(f"  {o:<4} contesting: {units}  (supply {'?' if s is None else f'{s:g}'})")
        lines.append(f"  {_after(m['reason'], f'marker {mid}: ')}")
        for u in m["units"].values():
            if u["contests"] or any(x["within"] for x in u["details"]["models"]):
                lines.append(f"    {u['reason']}")  # the reason names its unit
    return "\n".join(lines)
