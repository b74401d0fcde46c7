"""Command-line options shared by `tmg view` and `tmg render`: what to load and which overlays
to draw. An overlay's option exists only when its engine module is in this checkout.
"""

from __future__ import annotations

import argparse
from typing import Any

import scenario
from geom.errors import TmgError
from geom.model import Battlefield, Marker, Model, Unit
from scenario import refs

from . import overlays as ov


def add_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="LAYOUT_OR_SCENARIO",
                   help="scenario file (.toml/.json), official layout or deployment card name")
    p.add_argument("--deployment", metavar="CARD",
                   help="lay this deployment card's entry edges, zones and markers on the table")
    p.add_argument("--title", help="title printed above the table")
    g = p.add_argument_group("overlays (the engine's answers drawn on the table)")
    g.add_argument("--measure", nargs=2, action="append", metavar=("A", "B"), default=[],
                   help="tape measure between two things: UNIT/MODEL, UNIT, marker/N, "
                        "terrain/ID, zone/OWNER or X,Y (repeatable)")
    g.add_argument("--highlight", action="append", metavar="REF", default=[],
                   help="ring a model, unit, marker or terrain piece (repeatable)")
    if ov.available("sight"):
        g.add_argument("--los", nargs=2, action="append", metavar=("A", "B"), default=[],
                       help="line of sight between two models, or a model and marker/N: the "
                            "witness line, or the blocking pieces (repeatable)")
    if ov.available("engagement"):
        g.add_argument("--engagement", action="store_true",
                       help='1" engagement rings and every engaged pair')
    if ov.available("coherency"):
        g.add_argument("--coherency", action="append", metavar="UNIT", default=[],
                       help="coherency links and failures of a unit ('all': every unit; "
                            "repeatable)")
    if ov.available("reach"):
        g.add_argument("--reach", action="append", metavar="UNIT", default=[],
                       help="where the unit's leading model can end a move (repeatable)")
        g.add_argument("--allowance", type=float, metavar="IN",
                       help='move allowance for --reach and --move (default: the Speed)')
        g.add_argument("--move", nargs=2, action="append", metavar=("U/M", "X,Y"), default=[],
                       help="the shortest legal path of a leading model to a point")
    if ov.available("charge") and ov.available("reach"):
        g.add_argument("--charge", metavar="UNIT",
                       help="a charge: legal ends, shortest path, smallest roll")
        g.add_argument("--targets", metavar="T1[,T2…]", help="the charge's declared targets")
        g.add_argument("--roll", type=int, choices=range(1, 7), metavar="D6",
                       help="the charge roll (1-6): shows the ends that roll reaches")
        g.add_argument("--modifier", type=float, default=0.0, metavar="M",
                       help='charge distance modifier in inches (e.g. -2)')
    if ov.available("template"):
        g.add_argument("--blast", nargs=2, action="append", metavar=("ATTACKER", "TARGET"),
                       default=[], help="blast template from ATTACKER (U/M) on TARGET "
                       "(U/M, or X,Y for a template without a target model)")
        g.add_argument("--flamer", nargs=2, action="append", metavar=("ATTACKER", "TARGET"),
                       default=[], help="flamer template from ATTACKER (U/M) at TARGET")
        g.add_argument("--diameter", type=float, metavar="D",
                       help="blast template diameter (default: the scenario's or the "
                            "PROVISIONAL placeholder, as `tmg template`)")
        g.add_argument("--length", type=float, metavar="L", help="flamer template length")
        g.add_argument("--narrow", type=float, metavar="N", help="flamer narrow end width")
        g.add_argument("--wide", type=float, metavar="W", help="flamer wide end width")


def load(file: str, deployment: str | None = None) -> tuple[Battlefield, dict[str, Any] | None]:
    """The battlefield (with `deployment` laid on it) and the scenario's template shapes
    (`[templates]`, when the template command knows them; else None)."""
    doc: Any
    if scenario.is_official_name(file):
        if deployment is None:
            return scenario.load(file), None
        import maps
        if file in maps.deployment_ids():
            raise TmgError(f"{file!r} is a deployment card already; give a layout or a scenario "
                           "with --deployment")
        if file not in maps.layout_ids():
            scenario.load(file)  # raises the loader's "unknown name" error
        doc = {"table": {"layout": file, "deployment": deployment},
               "name": f"{maps.load_layout(file).name} · "
                       f"{maps.deployment_info(deployment)['name']}"}
        return scenario.parse_document(doc, file), None
    doc = scenario.read_document(file)
    shapes = None
    if isinstance(doc, dict) and "templates" in doc and ov.available("template"):
        from geom import templates as T
        doc = dict(doc)
        shapes = T.shapes_from_table(doc.pop("templates"), file)
    if deployment is not None:
        if not isinstance(doc, dict) or not isinstance(doc.get("table"), dict):
            raise TmgError("has no [table] to lay a deployment card on", file=file, obj="table")
        doc = {**doc, "table": {**doc["table"], "deployment": deployment}}
    return scenario.parse_document(doc, file), shapes


def resolve(bf: Battlefield, text: str, file: str) -> Any:
    try:
        return refs.resolve(bf, text)
    except TmgError as exc:
        raise TmgError(exc.detail, file=file, obj=text) from None


def _model_or_marker(bf: Battlefield, text: str, file: str, opt: str) -> Model | Marker:
    x = resolve(bf, text, file)
    if not isinstance(x, Model | Marker):
        raise TmgError(f"{opt} needs a model UNIT/MODEL or marker/N", file=file, obj=text)
    return x


def _model(bf: Battlefield, text: str, file: str, opt: str) -> Model:
    x = resolve(bf, text, file)
    if not isinstance(x, Model):
        raise TmgError(f"{opt} needs a model UNIT/MODEL", file=file, obj=text)
    return x


def overlays_from_args(bf: Battlefield, args: argparse.Namespace,
                       shapes: dict[str, Any] | None = None) -> list[Any]:
    """The overlays the options ask for, every reference checked (TmgError names the bad one)."""
    f = args.file
    out: list[Any] = []
    if getattr(args, "engagement", False):
        out.append(ov.Engagement())
    things = [resolve(bf, r, f) for r in args.highlight]
    if things:
        out.append(ov.Highlight(tuple(things)))
    for a, b in args.measure:
        out.append(ov.Measure(resolve(bf, a, f), resolve(bf, b, f)))
    for a, b in getattr(args, "los", []):
        ma, mb = _model_or_marker(bf, a, f, "--los"), _model_or_marker(bf, b, f, "--los")
        if isinstance(ma, Marker) and isinstance(mb, Marker):
            raise TmgError("--los needs at least one model", file=f, obj=f"{a} {b}")
        out.append(ov.Sight(ma, mb))
    coh = getattr(args, "coherency", [])
    if coh:
        ids = None if "all" in coh else tuple(as_unit(bf, c, f, "--coherency").id for c in coh)
        out.append(ov.Coherency(ids))
    for r in getattr(args, "reach", []):
        out.append(ov.Reach(as_unit(bf, r, f, "--reach").id, args.allowance))
    for m, to in getattr(args, "move", []):
        pt = refs.parse_point(to)
        if pt is None:
            raise TmgError(f"--move expects X,Y in inches, got {to!r}", file=f)
        out.append(ov.Move(_model(bf, m, f, "--move"), pt, args.allowance))
    if getattr(args, "charge", None):
        if not args.targets:
            raise TmgError("--charge needs --targets T1[,T2…]", file=f)
        unit = as_unit(bf, args.charge, f, "--charge")
        targets = tuple(as_unit(bf, t.strip(), f, "--targets").id
                        for t in args.targets.split(",") if t.strip())
        out.append(ov.Charge(unit.id, targets, args.roll, args.modifier))
    elif getattr(args, "targets", None) or getattr(args, "roll", None):
        raise TmgError("--targets and --roll go with --charge UNIT", file=f)
    for kind in ("blast", "flamer"):
        for a, b in getattr(args, kind, []):
            attacker = _model(bf, a, f, f"--{kind}")
            pt = refs.parse_point(b)
            target = None if pt is not None else _model(bf, b, f, f"--{kind}")
            out.append(ov.Template(kind, attacker, target, pt, _shape(args, kind, shapes)))
    return out


def _shape(args: argparse.Namespace, kind: str, shapes: dict[str, Any] | None) -> Any:
    """The template shape: data file placeholder < scenario [templates] < command line."""
    from geom import templates as T

    given = {k: getattr(args, k, None) for k in T.DIMENSIONS[kind]}
    base = shapes.get(kind) if shapes else None
    if all(v is None for v in given.values()):
        return base
    try:
        return T.make_shape(kind, given, "command line", base)
    except TmgError as exc:
        raise TmgError(exc.detail, obj=f"--{exc.field}" if exc.field else None) from None


def unit_ids(bf: Battlefield) -> list[str]:
    return [u.id for u in bf.units]


def as_unit(bf: Battlefield, text: str, file: str, opt: str) -> Unit:
    x = resolve(bf, text, file)
    if isinstance(x, Model):
        return bf.unit(x.unit)
    if not isinstance(x, Unit):
        raise TmgError(f"{opt} needs a unit", file=file, obj=text)
    return x
