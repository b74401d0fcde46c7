"""`tmg template FILE --blast|--flamer --attacker U/M (--target U/M | --at X,Y)` (§8.7.6, §12.8,
FAQ v1.1 "템플릿과 파급"; docs/rules.md#template-sizes).

Template sizes: the data file's PROVISIONAL placeholders, replaced by a scenario's
`[templates.blast]` / `[templates.flamer]` table and then by `--diameter` / `--length --narrow
--wide`. Every answer that still uses a placeholder says so (`provisional`, `shape.warning`).
"""

from __future__ import annotations

import argparse
from typing import Any

import shapely
from shapely.geometry import Point as SPoint

import scenario
from geom import templates as T
from geom.errors import TmgError
from geom.model import Battlefield

from . import about
from ._common import add_file, parse_xy, resolve_model


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("template", help=about("template"))
    add_file(p)
    kind = p.add_mutually_exclusive_group(required=True)
    kind.add_argument("--blast", dest="kind", action="store_const", const=T.BLAST,
                      help="blast template (BT), centred on the target point")
    kind.add_argument("--flamer", dest="kind", action="store_const", const=T.FLAMER,
                      help="flamer template (FT), narrow end against the attacker's base")
    p.add_argument("--attacker", required=True, metavar="U/M", help="the attacking model")
    tgt = p.add_mutually_exclusive_group(required=True)
    tgt.add_argument("--target", metavar="U/M", help="a model of the main target unit; its base "
                     "centre is the target point")
    tgt.add_argument("--at", metavar="X,Y", help="FAQ: a template ability with no target model; "
                     "the point under the template's centre (blast) or pointed at (flamer)")
    p.add_argument("--target-type", choices=T.TARGET_TYPES,
                   help="the weapon's target type (default: ground; all with --at)")
    dims = p.add_argument_group("template size (inches; default: the PROVISIONAL placeholder "
                                "in geom/data/templates.json or the scenario's [templates])")
    dims.add_argument("--diameter", type=float, metavar="D", help="blast template diameter")
    dims.add_argument("--length", type=float, metavar="L", help="flamer template length")
    dims.add_argument("--narrow", type=float, metavar="N", help="flamer narrow end width")
    dims.add_argument("--wide", type=float, metavar="W", help="flamer wide end width")
    p.set_defaults(run=run, text=text)
    return p


def load_with_templates(file: str, deployment: str | None = None
                        ) -> tuple[Battlefield, dict[str, T.TemplateShape] | None]:
    """The battlefield (with `--deployment` laid on it) and the shapes of the scenario's
    `[templates]` table (None without one).

    The table is taken out before the document goes to the scenario loader, so this works whether
    or not the loader knows the key."""
    if not file.strip() or (deployment is None and scenario.is_official_name(file)):
        return scenario.load(file), None  # an official layout or card: no [templates]
    doc = scenario.document(file, deployment)
    raw = None
    if isinstance(doc, dict) and "templates" in doc:
        doc = dict(doc)
        raw = doc.pop("templates")
    bf = scenario.parse_with_deployment(doc, file, deployment)
    return bf, (T.shapes_from_table(raw, file) if raw is not None else None)


def shape_from_args(args: argparse.Namespace,
                    scenario_shapes: dict[str, T.TemplateShape] | None) -> T.TemplateShape:
    kind = args.kind
    given = {k: getattr(args, k) for k in ("diameter", "length", "narrow", "wide")}
    wrong = [k for k, v in given.items() if v is not None and k not in T.DIMENSIONS[kind]]
    if wrong:
        raise TmgError(f"--{wrong[0]} is not a {kind} template dimension (a {kind} template "
                       f"takes {', '.join('--' + d for d in T.DIMENSIONS[kind])})")
    base = scenario_shapes[kind] if scenario_shapes else None
    try:
        return T.make_shape(kind, {k: given[k] for k in T.DIMENSIONS[kind]}, "command line",
                            base)
    except TmgError as exc:
        raise TmgError(exc.detail, obj=f"--{exc.field}" if exc.field else None) from None


def run(args: argparse.Namespace) -> dict[str, Any]:
    bf, shapes = load_with_templates(args.file, args.deployment)
    shape = shape_from_args(args, shapes)
    attacker = resolve_model(bf, args.attacker, args.file)
    target = resolve_model(bf, args.target, args.file) if args.target else None
    at = parse_xy(args.at, "--at") if args.at else None
    res = T.resolve(bf, args.kind, shape, attacker, target=target, at=at,
                    target_type=args.target_type)
    return report(bf, res, target_type_given=args.target_type is not None)


def report(bf: Battlefield, res: T.TemplateResult, target_type_given: bool = True
           ) -> dict[str, Any]:
    """The JSON answer for one template attack (docs/interface.md, `tmg template`)."""
    tpl = res.template
    shape = tpl.shape
    spill = [{"unit": b.unit, "owner": b.owner, "models": list(b.models), "count": b.count}
             for b in res.spillover]
    notes: list[str] = []
    if shape.provisional:
        notes.append(shape.as_dict()["warning"])
    if tpl.kind == T.FLAMER and not shapely.intersects(tpl.polygon, SPoint(tpl.target_point)):
        notes.append("the target point is beyond the flamer template's reach")
    if res.target is not None:
        u = bf.unit(res.target.unit)
        if u.hidden or u.burrowed:
            notes.append(f"{u.id} is {'hidden' if u.hidden else 'burrowed'}: whether it may be "
                         "targeted at all is not decided here")
    notes.append("range, engagement and other targeting restrictions (§8.7.3) are not checked")
    main_models = list(res.main.models)
    return {
        "kind": tpl.kind,
        "attacker": res.attacker.ref if res.attacker else None,
        "target": res.target.ref if res.target else None,
        "target_point": list(tpl.target_point),
        "elevation": res.elevation,
        "target_type": res.target_type,
        "target_type_source": "command line" if target_type_given else "default",
        "provisional": res.provisional,
        "shape": shape.as_dict(),
        "template": tpl.outline(),
        "placement": tpl.as_dict(),
        "legal": res.placement.ok,
        "rule": res.placement.rule,
        "reason": res.placement.reason,
        "main": {"unit": res.main.unit, "owner": res.main.owner, "models": main_models,
                 "count": res.main.count, "surge": res.surge},
        "spillover": spill,
        "counts": {"main": res.main.count,
                   "spillover": sum(b.count for b in res.spillover),
                   "total": res.main.count + sum(b.count for b in res.spillover)},
        "surge": res.surge,
        "models": [{"model": c.details["model"], "affected": c.ok, "test": c.details["test"],
                    "rule": c.rule, "reason": c.reason, "witness": c.witness,
                    **({"blocking": c.details["blocking"]} if "blocking" in c.details else {})}
                   for c in res.checks],
        "notes": notes,
    }


def text(r: dict[str, Any]) -> str:
    sh = r["shape"]
    dims = ", ".join(f'{k} {sh[k]:g}"' for k in ("diameter", "length", "narrow", "wide") if k in sh)
    srcs = sorted(set(sh["sources"].values()))
    lines = [f"{r['kind']} template ({dims})"
             + ("  ** PROVISIONAL size, not official **" if r["provisional"]
                else f"  (size from: {', '.join(srcs)})")]
    tp = r["target_point"]
    who = f"centre of {r['target']}" if r["target"] else "no target model (FAQ)"
    lines.append(f"  target point {tp[0]:g},{tp[1]:g} ({who}), elevation {r['elevation']}, "
                 f"target type {r['target_type']}")
    if not r["legal"]:
        lines.append(f"  NOT A LEGAL TARGET: {r['reason']} ({r['rule']})")
    m = r["main"]
    if m["unit"] is not None:
        lines.append(f"  main target {m['unit']}: {m['count']} model(s)"
                     + (f" ({', '.join(m['models'])})" if m["models"] else "")
                     + f"; surge result {r['surge']}")
    else:
        lines.append("  main target: the target point (no models, no surge)")
    for b in r["spillover"]:
        lines.append(f"  spillover {b['unit']} ({b['owner']}): {b['count']} model(s) "
                     f"({', '.join(b['models'])}); no surge")
    if not r["spillover"]:
        lines.append("  no spillover")
    for c in r["models"]:
        if not c["affected"]:
            lines.append(f"  not affected: {c['reason']}")
    for n in r["notes"]:
        lines.append(f"  note: {n}")
    return "\n".join(lines)
