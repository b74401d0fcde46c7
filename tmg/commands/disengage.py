"""`tmg disengage FILE UNIT`: can the unit disengage (§8.5.4)? Which models get clear of every
enemy's engagement range, which are destroyed, and whether the leading model can."""

from __future__ import annotations

import argparse
from typing import Any

from geom.combat import disengage

from . import about
from ._common import add_file, load, piece_titles, resolve_unit, titled
from ._save import add_save, save_after, saved_line


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("disengage", help=about("disengage"))
    add_file(p)
    p.add_argument("unit", metavar="UNIT")
    p.add_argument("--leading", metavar="MODEL",
                   help="the model that leads the move (default: the unit's recorded leading "
                        "model, else whichever model loses fewest models)")
    add_save(p, "the disengage (the models that cannot get clear destroyed)")
    p.set_defaults(run=run, text=text)
    return p


def run(args: argparse.Namespace) -> dict[str, Any]:
    bf = load(args)
    u = resolve_unit(bf, args.unit, args.file, args.leading)
    ans = disengage(bf, u, args.leading)

    def ref(mid: str) -> str:
        return f"{u.id}/{mid}"

    positions = {ref(m): list(p) for m, p in ans.positions.items()}
    if ans.possible and ans.leading is not None and ans.end is not None:
        positions = {ref(ans.leading): list(ans.end), **positions}
    clear = list(positions) if ans.leading is not None else [ref(m.id) for m in u.by_id]
    out = {"unit": u.id, "possible": ans.possible,
            "leading": ref(ans.leading) if ans.leading else None,
            "end": list(ans.end) if ans.end else None,
            "path": [list(p) for p in ans.path] if ans.path else None,
            "path_length": ans.path_length, "witness": [list(p) for p in ans.path]
            if ans.path else None,
            "clear": clear, "destroyed": [ref(m) for m in ans.destroyed],
            "destroyed_reasons": {ref(m): why for m, why in ans.reasons.items()},
            "positions": positions, "casualties": [ref(m) for m in ans.destroyed],
            "in_coherency": bool(ans.possible and not ans.destroyed),
            "rule": ans.rule, "reason": ans.reason,
            "destroys_grass": ans.destroys_grass, "removed": ans.removed,
            "terrain_titles": piece_titles(bf, [*ans.destroys_grass, *ans.removed])}
    # a failed disengage is still an outcome: the unit stays and its leading model is destroyed
    moved = {m.split("/", 1)[1]: p for m, p in positions.items()} if ans.possible else {}
    save_after(args, out, bf, u.id, moved, ans.destroyed, moved=ans.possible)
    return out


def text(r: dict[str, Any]) -> str:
    head = "disengage possible" if r["possible"] else "DISENGAGE FAILS"
    lines = [f'{r["unit"]}: {head} ({r["rule"]})', f'  {r["reason"]}']
    if r["end"] is not None:
        x, y = r["end"]
        lines.append(f'  {r["leading"]} ends at ({x:.3f}, {y:.3f}) after {r["path_length"]:.3f}"')
    others = [m for m in r["clear"] if m != r["leading"]]
    if r["end"] is not None and others:
        lines.append("  placed clear: " + ", ".join(
            f"{m} at ({r['positions'][m][0]:.3f}, {r['positions'][m][1]:.3f})" for m in others))
    if r.get("destroys_grass"):
        lines.append(f'  destroys grass: {titled(r, r["destroys_grass"])}')
    if r.get("removed"):
        lines.append(f'  removes from the game (LARGE): {titled(r, r["removed"])}')
    for m in r["destroyed"]:
        why = r["destroyed_reasons"].get(m)
        lines.append(f"  destroyed: {m}" + (f" ({why})" if why else ""))
    lines.append(saved_line(r, "the disengage"))
    return "\n".join(line for line in lines if line)
