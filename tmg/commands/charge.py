"""`tmg charge FILE UNIT --targets T1[/MODEL][,T2…] [--modifier M] [--leading MODEL] [--roll D6]
[--metabolic-boost]` (§8.7.7, step 2: a target model per declared unit; Metabolic Boost
"대사 촉진" on the Zergling cards)."""

from __future__ import annotations

import argparse
from typing import Any

from geom.combat import charge
from geom.errors import TmgError

from . import about
from ._common import add_file, finite_arg, load, piece_titles, titled
from ._save import add_save, save_after, saved_line


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("charge", help=about("charge"))
    add_file(p)
    p.add_argument("unit", metavar="UNIT", help="the charging unit")
    p.add_argument("--targets", required=True, metavar="T1[/MODEL][,T2...]",
                   help="declared target units, comma-separated; UNIT/MODEL also names that "
                        "unit's target model (the leader's base contact refers to it; default: "
                        "the engine's choice, named in the answer)")
    p.add_argument("--modifier", type=finite_arg, default=0.0, metavar="M",
                   help='inches added to the charge distance (e.g. -2 for Concussive Shells)')
    p.add_argument("--leading", metavar="MODEL",
                   help="leading model id (default: the unit's leading model, or the best one)")
    p.add_argument("--roll", type=int, choices=range(1, 7), metavar="D6",
                   help="the D6 rolled: does it succeed, and where does the charge end with "
                        "that distance (base contact when it reaches); with "
                        "--metabolic-boost, the higher of the two dice")
    p.add_argument("--metabolic-boost", action="store_true",
                   help="use the unit's Metabolic Boost (대사 촉진, an Active ability on its "
                        "card): roll 2D6 for the charge distance, the higher counts")
    add_save(p, "the charge (with --roll, on that roll; else on its smallest successful roll)")
    p.set_defaults(run=run, text=text)
    return p


def run(args: argparse.Namespace) -> dict[str, Any]:
    bf = load(args)
    targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    if not targets:
        raise TmgError("--targets needs at least one unit id", file=args.file)
    try:
        answer = charge(bf, args.unit, targets, args.modifier, leading=args.leading,
                        roll=args.roll, metabolic_boost=args.metabolic_boost)
    except TmgError as exc:
        field = {"metabolic_boost": "--metabolic-boost",
                 "targets": "--targets"}.get(exc.field or "", exc.field)
        raise TmgError(exc.detail, file=args.file, obj=exc.obj or args.unit,
                       field=field) from None
    out = answer.as_dict()
    out.setdefault("destroys_grass", [])
    out.setdefault("removed", [])
    out["terrain_titles"] = piece_titles(bf, [*out["destroys_grass"], *out["removed"]])
    pl = out.get("placement") or {}
    moves = out["possible"] and out.get("end") is not None and out.get("roll_succeeds", True)
    positions = {out["leading"]: out["end"], **pl.get("positions", {})} if moves else None
    why = (f"the charge fails on the roll of {args.roll}: the unit does not move"
           if out["possible"] and args.roll is not None else "the charge cannot succeed")
    save_after(args, out, bf, answer.unit, positions, pl.get("casualties", ()), why)
    return out


PRIORITY_WORDS = {"A": "base contact with a declared target model",
                  "B": "within engagement range (1\") of a declared target",
                  "C": "as close to the leading model as coherency allows"}


def _path_words(r: dict[str, Any]) -> str:
    """The leading model's path as a player reads it: its length and where it turns."""
    summary = r.get("path_summary") or {}
    pts = r.get("path") or []
    length = r.get("end_path_length", summary.get("length"))
    if not pts:
        return ""
    if len(pts) < 2:
        return "  path: the leading model is already in place"
    turns = summary.get("turning_points", []) if summary.get("length") == length else []
    if not turns:
        legs = [leg for leg in summary.get("legs", []) if "round" in leg]
        turns = [leg["round"] for leg in legs]
    end = pts[-1]
    words = f'  path: {length:.3f}" from ({pts[0][0]:.2f}, {pts[0][1]:.2f}) to ' \
            f"({end[0]:.2f}, {end[1]:.2f})"
    if not turns:
        return words + ", straight"
    return words + ", turning round " + ", ".join(f"({x:.2f}, {y:.2f})" for x, y in turns)


def _target_model_words(r: dict[str, Any]) -> str:
    """Which model of each declared unit the charge aims at (§8.7.7 step 2)."""
    chosen = r.get("target_models") or {}
    if not chosen:
        return ""
    how = r.get("target_model_choice") or {}
    why = {"named": "", "base contact": " (the engine's choice: the leading model reaches its "
           "base contact by the shortest path)",
           "nearest": " (the engine's choice: the nearest to the leading model's end)"}
    words = [f"{u}/{m}{why.get(how.get(u, ''), '')}" for u, m in chosen.items()]
    return "  target model" + ("s" if len(words) > 1 else "") + ": " + ", ".join(words) + \
        " — the leading model's base contact refers to " + \
        ("them" if len(words) > 1 else "it") + " (8.7.7 step 2)"


def text(r: dict[str, Any]) -> str:
    head = f'{r["unit"]} charges {", ".join(r["targets"])}: '
    boost = r.get("metabolic_boost")
    if r["possible"]:
        n = len(r.get("successes", []))
        odds = (f"the higher of 2D6 (Metabolic Boost), {round(r['probability'] * 36)} in 36"
                if boost else f"{n} in 6")
        head += f'succeeds on {r["min_roll"]}+ ({odds}, probability {r["probability"]:.3f})'
    else:
        head += "impossible"
    if r["possible"]:
        # the roll is in the first line; this one says where the distance comes from
        mod = r.get("modifier") or 0
        sign = f' {"+" if mod > 0 else "−"} {abs(mod):g}"' if mod else ""
        dist = r["min_distance"]
        shown = f'{round(dist)}"' if abs(dist - round(dist)) <= 1e-6 else f'{dist:.3f}"'
        why = (f'  the shortest legal path for {r["unit"]}/{r.get("leading")} to an end engaged '
               f'with {", ".join(r["targets"])} is {shown}; the charge distance is '
               f'Speed {r["speed"]:g} + {"the higher of 2D6" if boost else "D6"}{sign} '
               f'({r["rule"]})')
    else:
        why = f'  {r["reason"]} ({r["rule"]})'
    lines = [head, why, _target_model_words(r)]
    if "roll" in r and r.get("roll_distance") is not None:
        lines.append(f'  rolled {r["roll"]}{" (the higher die)" if boost else ""}: charge '
                     f'distance {r["roll_distance"]:g}" — '
                     + ("the charge SUCCEEDS" if r["roll_succeeds"] else
                        "the charge FAILS: the unit does not move (8.7.7 step 3)"
                        + ("; the end below is that of the smallest successful roll"
                           if r.get("end") is not None else "")))
    if r.get("uncertain_rolls"):
        low, high = r.get("distance_bounds", [None, None])
        lines.append(f'  not decided for roll(s) {", ".join(map(str, r["uncertain_rolls"]))}: '
                     f'the true distance lies between {low:.4f}" and {high:.4f}"')
    if r.get("end") is not None:
        x, y = r["end"]
        lines.append(f'  leading model {r["unit"]}/{r.get("leading")} ends at ({x:.3f}, {y:.3f})'
                     + (f' — {r["end_kind"]}' if r.get("end_kind") else ""))
        lines.append(_path_words(r))
    if r.get("destroys_grass"):
        lines.append(f'  destroys GRASS (gone for this charge\'s end): {titled(r, r["destroys_grass"])}')
    if r.get("removed"):
        lines.append(f'  removes from the game (LARGE): {titled(r, r["removed"])}')
    pl = r.get("placement")
    if pl:
        if pl["positions"]:
            lines.append("  the other models (priority A = " + PRIORITY_WORDS["A"] + ", B = "
                         + PRIORITY_WORDS["B"] + ", C = " + PRIORITY_WORDS["C"] + "):")
        for mid, pos in pl["positions"].items():
            tier = pl["priority"][mid]
            lines.append(f'    {r["unit"]}/{mid} to ({pos[0]:.3f}, {pos[1]:.3f}): priority '
                         f'{tier[0]}, {PRIORITY_WORDS.get(tier[0], tier)}')
        for mid in pl["casualties"]:
            lines.append(f"    {r['unit']}/{mid}: casualty — {pl['reasons'].get(mid, '')}")
    lines.append(saved_line(r, "the charge"))
    return "\n".join(line for line in lines if line)
