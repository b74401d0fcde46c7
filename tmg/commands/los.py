"""`tmg los FILE A B [--range R]`: line of sight (§7.1, §7.1.1–7.1.4, HIDDEN, §8.9.1 markers).

A and B are models (`UNIT/MODEL`), units (`UNIT`) or mission markers (`marker/N`). For two
objects the answer is the pair verdict; when A or B is a unit, also `visible_models` (B's models
seen by some model of A — the casualty cap), `attackers` (A's models that see a model of B; with
`--range R` only those with a visible model of B within R") and `high_ground_cover` (may B evade,
§7.1.3).
"""

from __future__ import annotations

import argparse
from typing import Any

from geom.errors import TmgError
from geom.model import Marker, Model, Unit
from geom.sight import SightContext, pair_sight, unit_sight
from scenario import refs

from . import about
from ._common import add_file, distance_arg, load, piece_titles, resolve, titled, witness_line


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("los", help=about("los"))
    add_file(p)
    p.add_argument("a", metavar="A", help="UNIT/MODEL or UNIT (the one looking / attacking)")
    p.add_argument("b", metavar="B", help="UNIT/MODEL, UNIT or marker/N (the target)")
    p.add_argument("--range", type=distance_arg, metavar="R", dest="range",
                   help="weapon range: attackers are only those with a visible target within R")
    p.set_defaults(run=run, text=text)
    return p


def _objects(x: Any) -> list[Model | Marker]:
    if isinstance(x, Unit):
        return list(x.models)
    return [x]


def run(args: argparse.Namespace) -> dict[str, Any]:
    bf = load(args)
    a, b = resolve(bf, args.a, args.file), resolve(bf, args.b, args.file)
    for ref, x in ((args.a, a), (args.b, b)):
        if not isinstance(x, Model | Unit | Marker):
            raise TmgError("expected UNIT/MODEL, UNIT or marker/N", file=args.file, obj=ref)
    if args.range is not None and not args.range >= 0:
        raise TmgError(f"--range must be a distance ≥ 0, got {args.range}", file=args.file,
                       field="--range")
    # the table's prepared sight, kept with it (`Battlefield.prepared`), so a long-lived front
    # end (the service's warm tables) asks it again without preparing it again
    ctx = SightContext.of(bf)
    out: dict[str, Any] = {"a": refs.label(a), "b": refs.label(b)}
    if isinstance(a, Unit) or isinstance(b, Unit) or args.range is not None:
        us = unit_sight(bf, _objects(a), _objects(b), args.range, ctx)  # type: ignore[arg-type]
        v = us.verdict()
        out.update(visible=v.ok, rule=v.rule, reason=v.reason, witness=_seg(v.witness),
                   blocking=v.details.get("blocking", []), visible_models=us.visible_models,
                   attackers=us.attackers, high_ground_cover=us.high_ground_cover.ok,
                   high_ground_cover_reason=us.high_ground_cover.reason)
        if args.range is not None:
            out["range"] = args.range
        m = us.matrix
        out["pairs"] = [{"a": m.a[i].ref, "b": m.b[j].ref, "visible": bool(m.visible[i, j])}
                        for i in range(len(m.a)) for j in range(len(m.b))]
    else:
        v = pair_sight(ctx, a, b)
        out.update(visible=v.ok, rule=v.rule, reason=v.reason, witness=_seg(v.witness),
                   blocking=v.details.get("blocking", []), distance=v.details.get("distance"))
    out["terrain_titles"] = piece_titles(bf, out["blocking"])
    return out


def _seg(w: Any) -> list[list[float]] | None:
    if w is None:
        return None
    return [[float(w[0][0]), float(w[0][1])], [float(w[1][0]), float(w[1][1])]]


def text(r: dict[str, Any]) -> str:
    s = f'{r["a"]} -> {r["b"]}: {"VISIBLE" if r["visible"] else "NOT VISIBLE"} ({r["rule"]})'
    s += f'\n  {r["reason"]}'
    if r.get("witness"):
        s += witness_line(r["witness"])
    if r.get("blocking"):
        s += "\n  blocking: " + titled(r, r["blocking"])
    if "visible_models" in r:
        s += "\n  visible target models: " + (", ".join(r["visible_models"]) or "none")
        rng = f' within {r["range"]:g}"' if r.get("range") is not None else ""
        s += f"\n  attackers (see a target model{rng}): " + (", ".join(r["attackers"]) or "none")
        s += (f'\n  high ground cover: {"yes" if r["high_ground_cover"] else "no"}'
              f' — {r["high_ground_cover_reason"]}')
    return s
