"""`tmg fight FILE UNIT [--save FILE]`: the unit's close combat (§8.8.1, §8.7.5): per enemy unit it is
engaged with, its fighting and supporting ranks; whether it can close ranks, with the best legal
end; and the order in which its models are removed as casualties."""

from __future__ import annotations

import argparse
from typing import Any

from geom.combat import (
    RULE_CASUALTIES,
    RULE_RANKS,
    all_ranks,
    can_close_ranks,
    place_close_ranks,
    removal_order,
)
from geom.movement import coherency

from . import about
from ._common import add_file, load, resolve_unit
from ._save import add_save, save_after, saved_line


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("fight", help=about("fight"))
    add_file(p)
    p.add_argument("unit", metavar="UNIT")
    p.add_argument("--leading", metavar="MODEL",
                   help="the model that leads close ranks (default: the unit's recorded "
                        "leading model, else whichever model closes ranks best)")
    add_save(p, "close ranks (the unit re-placed round its leading model)")
    p.set_defaults(run=run, text=text)
    return p


def run(args: argparse.Namespace) -> dict[str, Any]:
    bf = load(args)
    u = resolve_unit(bf, args.unit, args.file, args.leading)

    def ref(mid: str) -> str:
        return f"{u.id}/{mid}"

    ranks = all_ranks(bf, u)
    per_enemy = {
        r.enemy: {"fighting": [ref(m) for m in r.fighting],
                  "supporting": [ref(m) for m in r.supporting],
                  "idle": [ref(m) for m in r.idle],
                  "engaged_with": {ref(m): e for m, e in r.engaged_with.items()},
                  "supports": {ref(m): ref(f) for m, f in r.supports.items()}}
        for r in ranks}
    cr = can_close_ranks(bf, u, args.leading, best=True)
    path = cr.witness if cr.ok else None
    close = {"possible": cr.ok, "end": path[-1] if path else None, "path": path,
             "path_length": cr.details.get("path_length") if cr.ok else None,
             "gap": cr.details.get("gap") if cr.ok else None,
             "leading": ref(cr.details["leading"]) if "leading" in cr.details else None,
             "rule": cr.rule, "reason": cr.reason,
             "destroys_grass": cr.details.get("destroys_grass", []) if cr.ok else [],
             "removed": cr.details.get("removed", []) if cr.ok else []}
    if path:  # §8.8.1 step 1: the rest of the unit is re-placed round the leader
        placed = place_close_ranks(bf, u, cr.details["leading"], tuple(path[-1]))
        close.update(placed.refs(u.id))
    else:
        close.update({"positions": {m.ref: list(m.at) for m in u.models}, "casualties": [],
                      "in_coherency": coherency(bf, u).ok})
    # --save: the table close ranks leaves (every model re-placed, coherency recorded); when
    # it is not possible nothing is written and the answer says why
    moved = ({r.split("/", 1)[1]: p for r, p in close["positions"].items()} if path else None)
    save_after(args, close, bf, u.id, moved,
               destroyed=[r.split("/", 1)[1] for r in close["casualties"]],
               why_not=f"close ranks is not possible: {cr.reason}")
    saved: dict[str, Any] = {k: close.pop(k) for k in ("saved", "save_refused", "saved_coherent")
                             if k in close}
    if "leaders_tried" in cr.details:
        close["leaders_tried"] = {ref(m): v for m, v in cr.details["leaders_tried"].items()}
        close["leaders_skipped"] = [ref(m) for m in cr.details.get("leaders_skipped", [])]
    # the witness of the ranks: each fighting model with the enemy model it is engaged with
    witness = [[ref(m), e] for r in ranks for m, e in r.engaged_with.items()]
    out: dict[str, Any] = {"unit": u.id, "engaged_with": [r.enemy for r in ranks],
                           "ranks": per_enemy, "close_ranks": close, "witness": witness,
                           **saved}
    if ranks:
        steps = removal_order(bf, u)
        out["casualty_order"] = [ref(s.removed) for s in steps]
        out["casualty_steps"] = [{"removed": ref(s.removed), "valid": [ref(v) for v in s.valid],
                                  "reason": s.reason} for s in steps]
        out["casualty_rule"] = RULE_CASUALTIES
        n_f = len({m for r in ranks for m in r.fighting})
        n_s = len({m for r in ranks for m in r.supporting} - {m for r in ranks for m in r.fighting})
        out["rule"] = RULE_RANKS
        out["reason"] = (f"{u.id} is engaged with {', '.join(out['engaged_with'])}: {n_f} "
                         f"model{'s' if n_f != 1 else ''} in a fighting rank, {n_s} only "
                         f"supporting; close ranks {'possible' if cr.ok else 'not possible'}; "
                         f"casualties from {out['casualty_order'][0]}")
    else:
        out["casualty_order"] = None
        out["casualty_steps"] = []
        out["casualty_rule"] = "8.7.4 removing casualties"
        out["rule"] = RULE_RANKS
        out["reason"] = (f"{u.id} is not engaged: no model is in a fighting or supporting rank, "
                         "it cannot close ranks, and casualties follow the ordinary "
                         "(visibility) rules of §8.7.4, not §8.7.5")
    return out


def text(r: dict[str, Any]) -> str:
    lines = [f'{r["unit"]}: {r["reason"]} ({r["rule"]})']
    for enemy, k in r["ranks"].items():
        fighting = ", ".join(f"{m} (engaged with {k['engaged_with'][m]})" for m in k["fighting"])
        supporting = ", ".join(f"{m} (touching {k['supports'][m]})" for m in k["supporting"])
        lines.append(f"  against {enemy}: fighting rank {fighting or '-'}; supporting rank "
                     f"{supporting or '-'}" + (f"; idle {', '.join(k['idle'])}"
                                               if k["idle"] else ""))
    c = r["close_ranks"]
    if c["possible"]:
        x, y = c["end"]
        near = ("into base contact" if c["gap"] <= 1e-6 else
                f'to {c["gap"]:.3f}" from the enemy (the nearest legal end found, to 1/128"; '
                'base contact itself is not reached)')
        lines.append(f'  close ranks: possible, {c["leading"]} moves {c["path_length"]:.3f}" '
                     f'{near}, ending at ({x:.3f}, {y:.3f}); {c["reason"]} ({c["rule"]})')
    else:
        lines.append(f'  close ranks: not possible: {c["reason"]} ({c["rule"]})')
    if r["casualty_order"] is not None:
        lines.append(f'  casualty order ({r["casualty_rule"]}): '
                     + ", ".join(r["casualty_order"]))
        for i, s in enumerate(r["casualty_steps"], 1):
            lines.append(f'    {i}. {s["removed"]}: {s["reason"]}'
                         + (f' (could also be {", ".join(v for v in s["valid"] if v != s["removed"])})'
                            if len(s["valid"]) > 1 else ""))
    if "saved" in r:
        lines.append(saved_line(r, "close ranks"))
    return "\n".join(lines)
