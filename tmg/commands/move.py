"""`tmg move FILE UNIT/MODEL --to X,Y`: can this model, as the leading model, move there
(rulebook §4.3, §4.6, §8.5.3; docs/rules.md#gap-clearance)?

Variants: `--towards UNIT` / `--away UNIT` (§4.5, the end is computed; `--to` not needed),
`--place X` (PLACE X), `--deploy [EDGE]` (§8.5.5, from the owner's entry edge or the named
table edge). `--reach` adds the region the leading model could end in.
"""

from __future__ import annotations

import argparse
from typing import Any

from shapely.geometry import mapping
from shapely.geometry.base import BaseGeometry

from geom import movement
from geom.errors import TmgError
from geom.model import Unit
from geom.movement import coherency, ends_destroy, place_unit
from geom.paths import Navigator, travel_region

from . import about
from ._common import (
    add_file,
    distance_arg,
    load,
    parse_xy,
    piece_titles,
    resolve,
    resolve_model,
    titled,
)
from ._save import add_save, save_after, saved_line


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("move", help=about("move"))
    add_file(p)
    p.add_argument("model", metavar="UNIT/MODEL", help="the leading model")
    p.add_argument("--to", metavar="X,Y", help="end point of the leading model's centre")
    p.add_argument("--allowance", type=distance_arg, metavar="INCHES",
                   help="distance allowed (default: the unit's Speed, split Speed applied)")
    p.add_argument("--ignore", metavar="REF[,REF…]", default="",
                   help="models (UNIT/MODEL) or units to treat as absent")
    p.add_argument("--reach", action="store_true",
                   help="also give the region the leading model could end in")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--towards", metavar="UNIT", help="move directly towards a unit (§4.5)")
    g.add_argument("--away", metavar="UNIT", help="move directly away from a unit (§4.5)")
    g.add_argument("--place", type=distance_arg, metavar="X", help="PLACE X instead of moving")
    g.add_argument("--deploy", nargs="?", const="entry", metavar="EDGE",
                   help="deploy from the entry edge (or south/north/west/east)")
    add_save(p, "the move (every model placed)")
    p.set_defaults(run=run, text=text)
    return p


def _geojson(g: BaseGeometry) -> dict[str, Any]:
    return dict(mapping(g))


def run(args: argparse.Namespace) -> dict[str, Any]:
    bf = load(args)
    if args.deploy is not None:  # a unit in reserve arrives (§8.5.5)
        bf = bf.arriving(args.model.split("/", 1)[0])
    out = _answer(bf, args)
    out.setdefault("removed", [])
    out["terrain_titles"] = piece_titles(bf, [*out.get("destroys_grass", []), *out["removed"]])
    unit, mid = out["model"].split("/", 1)
    legal = out["legal"] and out.get("to") is not None
    u = bf.unit(unit)
    if legal:
        # §8.5.3 step 2: the others are placed round the leader (geom.movement); their ends
        # may also stand on GRASS, which the move then destroys
        placed = place_unit(bf, u, mid, tuple(out["to"]), keep_shape=args.deploy is None)
        out.update(placed.refs(unit))
        gone = ends_destroy(bf, u, placed.positions)
        for key, ids in (("destroys_grass", gone.grass), ("removed", gone.removed)):
            out[key] = [*out.get(key, []), *(i for i in ids if i not in out.get(key, []))]
        out["terrain_titles"] = piece_titles(bf, [*out["destroys_grass"], *out["removed"]])
    else:
        out.update({"positions": {m.ref: list(m.at) for m in u.models}, "casualties": [],
                    "in_coherency": coherency(bf, u).ok})
    moved = {r.split("/", 1)[1]: p for r, p in out["positions"].items()}
    save_after(args, out, bf, unit, moved if legal else None,
               destroyed=[r.split("/", 1)[1] for r in out["casualties"]],
               why_not="the move is not legal")
    return out


def _answer(bf: Any, args: argparse.Namespace) -> dict[str, Any]:
    model = resolve_model(bf, args.model, args.file)
    unit = bf.unit(model.unit)
    ignore = [s for s in args.ignore.split(",") if s]
    for ref in ignore:
        resolve(bf, ref, args.file)
    out: dict[str, Any] = {"model": model.ref, "from": list(model.at)}
    if args.towards or args.away:
        target = resolve(bf, args.towards or args.away, args.file)
        if not isinstance(target, Unit):
            raise TmgError("expected a unit", file=args.file, obj=args.towards or args.away)
        dist = args.allowance if args.allowance is not None else movement.allowance_of(unit)
        v = movement.directly(bf, unit, model, target, dist, away=bool(args.away))
        out.update({"legal": v.ok, "rule": v.rule, "reason": v.reason, "allowance": dist,
                    "to": list(v.witness) if v.ok else None,
                    "path": v.details.get("path", []),
                    "path_length": v.details.get("path_length"),
                    "target_model": v.details.get("target_model"),
                    "destroys_grass": v.details.get("destroys_grass", []),
                    "removed": v.details.get("removed", [])})
        return out
    if args.to is None:
        raise TmgError("--to X,Y is required (unless --towards or --away)", file=args.file)
    to = parse_xy(args.to)
    out["to"] = list(to)
    if args.place is not None:
        v = movement.place(bf, unit, model, to, args.place)
        out.update({"legal": v.ok, "rule": v.rule, "reason": v.reason, "path": [],
                    "path_length": None, "allowance": args.place,
                    "destroys_grass": v.details.get("destroys_grass", [])})
        return out
    if args.deploy is not None:
        edge = None if args.deploy == "entry" else args.deploy
        v = movement.deploy(bf, unit, to, edge=edge, leading=model.id, allowance=args.allowance)
        out.update({"legal": v.ok, "rule": v.rule, "reason": v.reason,
                    "path": v.details.get("path", []),
                    "path_length": v.details.get("path_length"),
                    "allowance": v.details.get("allowance"),
                    "destroys_grass": v.details.get("destroys_grass", []),
                    "removed": v.details.get("removed", [])})
        return out
    nav = Navigator(bf, unit, tuple(ignore))
    chk = movement.check_move(bf, unit, model, to, allowance=args.allowance, nav=nav)
    v = chk.verdict
    out.update({
        "legal": v.ok, "rule": v.rule, "reason": v.reason,
        "path_length": chk.path.length if chk.path else None,
        "path": [list(p) for p in chk.path.points] if chk.path else [],
        "allowance": chk.allowance,
        "destroys_grass": v.details.get("destroys_grass", []),
        "removed": v.details.get("removed", []),
        "error_bound": chk.path.error_bound if chk.path else None,
        "levels": list(chk.path.levels) if chk.path else [],
        "flying": unit.flying,
    })
    if args.reach and chk.allowance == chk.allowance:  # not NaN (a unit without Speed)
        travel = travel_region(nav, model.at, chk.allowance)
        region = travel.intersection(movement.move_end_region(bf, unit, model)).buffer(0)
        out["reach"] = _geojson(region)
        out["reach_area"] = region.area
    return out


def text(r: dict[str, Any]) -> str:
    to = r.get("to")
    where = f"({to[0]:g}, {to[1]:g})" if to else "no end found"
    head = f'{r["model"]} -> {where}: {"LEGAL" if r["legal"] else "not legal"} ({r["rule"]})'
    lines = [head, f'  {r["reason"]}']
    if r.get("path_length") is not None:
        allow = r.get("allowance")
        lines.append(f'  path {r["path_length"]:.3f}"'
                     + (f' of {allow:g}"' if isinstance(allow, int | float) else "")
                     + f' through {len(r["path"])} points')
    if r.get("destroys_grass"):
        lines.append(f'  destroys grass: {titled(r, r["destroys_grass"])}')
    if r.get("removed"):
        lines.append(f'  removes from the game (LARGE): {titled(r, r["removed"])}')
    others = [k for k in r.get("positions", {}) if k != r["model"]]
    if r["legal"] and others:
        lines.append("  others placed: " + ", ".join(
            f"{k} at ({r['positions'][k][0]:.3f}, {r['positions'][k][1]:.3f})" for k in others))
    if r.get("casualties"):
        lines.append("  casualties (no legal place in coherency): " + ", ".join(r["casualties"]))
    if "in_coherency" in r:
        lines.append(f'  unit in coherency after the move: {"yes" if r["in_coherency"] else "no"}')
    if "reach_area" in r:
        lines.append(f'  reach: {r["reach_area"]:.2f} sq in')
    lines.append(saved_line(r, "the move"))
    return "\n".join(line for line in lines if line)
