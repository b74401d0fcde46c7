"""Command-line options shared by `tmg view` and `tmg render`: what to load and which overlays
to draw.

Options that qualify an overlay (`--allowance` of a move, `--targets`/`--roll`/`--modifier` of
a charge, a template's size) belong to the overlay option before them, so each of several
overlays has its own: `--move a/1 10,10 --allowance 16 --move b/1 20,20 --allowance 8`. Given
before every overlay of its kind, such an option is the default of all of them.
"""

from __future__ import annotations

import argparse
from typing import Any

import maps
import scenario
from geom import templates
from geom.errors import TmgError
from geom.model import Battlefield, Marker, Model, Unit
from scenario import refs

from . import overlays as ov


class _InOrder(argparse.Action):
    """Stores the option as argparse would and also records it, in command-line order, in
    `namespace.in_order`, so that a per-overlay option can be bound to its overlay."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        if isinstance(self.default, list):
            items = list(getattr(namespace, self.dest, None) or [])
            items.append(values)
            setattr(namespace, self.dest, items)
        else:
            setattr(namespace, self.dest, values)
        order = list(getattr(namespace, "in_order", None) or [])
        order.append((self.dest, values))
        namespace.in_order = order


#: per-overlay options -> the overlay options they belong to. Given after an overlay option,
#: one binds to that overlay (the latest before it that takes it); given before every such
#: overlay option, it is the default of all of them.
BOUND = {"allowance": ("reach", "move"), "targets": ("charge",), "roll": ("charge",),
         "modifier": ("charge",), "diameter": ("blast",), "length": ("flamer",),
         "narrow": ("flamer",), "wide": ("flamer",)}


def add_options(p: argparse.ArgumentParser, file_optional: bool = False) -> None:
    """The options of `tmg view` and `tmg render`; `file_optional`: the LAYOUT_OR_SCENARIO may
    be left out (`tmg render --check BEFORE AFTER`)."""
    p.add_argument("file", nargs="?" if file_optional else None, metavar="LAYOUT_OR_SCENARIO",
                   help="scenario file (.toml/.json), official layout or deployment card name")
    p.add_argument("--deployment", metavar="CARD",
                   help="lay this deployment card's entry edges, zones and markers on the table")
    p.add_argument("--title", help="title printed above the table")
    p.set_defaults(in_order=[])
    g = p.add_argument_group(
        "overlays (the engine's answers drawn on the table; an option such as --allowance "
        "given after an overlay belongs to that overlay: --move A X,Y --allowance 16 "
        "--move B X,Y --allowance 8)")
    g.add_argument("--measure", nargs=2, action="append", metavar=("A", "B"), default=[],
                   help="tape measure between two things: UNIT/MODEL, UNIT, marker/N, "
                        "terrain/ID, zone/OWNER or X,Y (repeatable)")
    g.add_argument("--highlight", action="append", metavar="REF", default=[],
                   help="ring a model, unit, marker or terrain piece (repeatable)")
    g.add_argument("--los", nargs=2, action="append", metavar=("A", "B"), default=[],
                   help="line of sight between two models, or a model and marker/N: the "
                        "witness line, or the blocking pieces (repeatable)")
    g.add_argument("--engagement", action="store_true",
                   help='1" engagement rings and every engaged pair')
    g.add_argument("--coherency", action="append", metavar="UNIT", default=[],
                   help="coherency links and failures of a unit ('all': every unit; "
                        "repeatable)")
    g.add_argument("--reach", action=_InOrder, metavar="UNIT", default=[],
                   help="where the unit's leading model can end a move (repeatable)")
    g.add_argument("--move", nargs=2, action=_InOrder, metavar=("U/M", "X,Y"), default=[],
                   help="the shortest legal path of a leading model to a point "
                        "(repeatable)")
    g.add_argument("--allowance", type=float, metavar="IN", action=_InOrder,
                   help="move allowance of the --reach or --move before it (before any: "
                        "of all of them; default: the Speed)")
    g.add_argument("--charge", metavar="UNIT", action=_InOrder, default=[],
                   help="a charge: legal ends, shortest path, smallest roll (repeatable)")
    g.add_argument("--targets", metavar="T1[/MODEL][,T2…]", action=_InOrder,
                   help="the declared targets of the --charge before it (UNIT/MODEL: "
                        "that unit's target model)")
    g.add_argument("--roll", type=int, choices=range(1, 7), metavar="D6", action=_InOrder,
                   help="its charge roll (1-6): shows the ends that roll reaches")
    g.add_argument("--modifier", type=float, metavar="M", action=_InOrder,
                   help='its charge distance modifier in inches (e.g. -2)')
    g.add_argument("--blast", nargs=2, action=_InOrder, metavar=("ATTACKER", "TARGET"),
                   default=[], help="blast template from ATTACKER (U/M) on TARGET "
                   "(U/M, or X,Y for a template without a target model)")
    g.add_argument("--flamer", nargs=2, action=_InOrder, metavar=("ATTACKER", "TARGET"),
                   default=[], help="flamer template from ATTACKER (U/M) at TARGET")
    g.add_argument("--diameter", type=float, metavar="D", action=_InOrder,
                   help="blast template diameter (default: the scenario's or the "
                        "PROVISIONAL placeholder, as `tmg template`)")
    g.add_argument("--length", type=float, metavar="L", action=_InOrder,
                   help="flamer template length")
    g.add_argument("--narrow", type=float, metavar="N", action=_InOrder,
                   help="flamer narrow end width")
    g.add_argument("--wide", type=float, metavar="W", action=_InOrder,
                   help="flamer wide end width")
    g.add_argument("--fight", action="append", metavar="UNIT", default=[],
                   help="close combat of a unit: fighting and supporting ranks, close "
                        "ranks, casualty order (repeatable)")
    g.add_argument("--disengage", action="append", metavar="UNIT", default=[],
                   help="a unit disengaging: path, ends, models destroyed (repeatable)")


def bound_options(args: argparse.Namespace) -> list[tuple[str, Any, dict[str, Any]]]:
    """The overlay options in command-line order, each with the per-overlay options that
    belong to it (`BOUND`): [(dest, value, {option: value})]."""
    order = list(getattr(args, "in_order", []) or [])
    owners = {o for kinds in BOUND.values() for o in kinds}
    out: list[tuple[str, Any, dict[str, Any]]] = []
    defaults: dict[str, Any] = {}
    for dest, value in order:
        if dest in owners:
            out.append((dest, value, {}))
            continue
        owner = next((item for item in reversed(out) if item[0] in BOUND[dest]), None)
        if owner is None:
            defaults.setdefault(dest, value)
        elif dest in owner[2]:
            raise TmgError(f"--{dest} is given twice for the same --{owner[0]}")
        else:
            owner[2][dest] = value
    for k, v in defaults.items():
        if not any(dest in BOUND[k] for dest, _, _ in out):
            raise TmgError(f"--{k} goes with " + " or ".join(f"--{o}" for o in BOUND[k]))
        for dest, _, opts in out:
            if dest in BOUND[k]:
                opts.setdefault(k, v)
    return out


def load(file: str, deployment: str | None = None) -> tuple[Battlefield, dict[str, Any] | None]:
    """The battlefield (with `deployment` laid on it) and the scenario's template shapes
    (`[templates]`, when the template command knows them; else None)."""
    doc: Any
    if scenario.is_official_name(file):
        if deployment is None:
            return scenario.load(file), None
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
    if isinstance(doc, dict) and "templates" in doc:
        doc = dict(doc)
        shapes = templates.shapes_from_table(doc.pop("templates"), file)
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
    """The overlays the options ask for, every reference checked (TmgError names the bad one).
    Per-overlay options are bound to their overlay (`bound_options`)."""
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
    try:
        bound = bound_options(args)
    except TmgError as exc:
        raise TmgError(exc.detail, file=f) from None
    for dest, value, opts in bound:
        out.append(_bound_overlay(bf, f, dest, value, opts, shapes))
    for u in getattr(args, "fight", []):
        out.append(ov.Fight(as_unit(bf, u, f, "--fight").id))
    for u in getattr(args, "disengage", []):
        out.append(ov.Disengage(as_unit(bf, u, f, "--disengage").id))
    return out


def _bound_overlay(bf: Battlefield, f: str, dest: str, value: Any, opts: dict[str, Any],
                   shapes: dict[str, Any] | None) -> Any:
    allowance = opts.get("allowance")
    if dest == "reach":
        return ov.Reach(as_unit(bf, value, f, "--reach").id, allowance)
    if dest == "move":
        m, to = value
        pt = refs.parse_point(to)
        if pt is None:
            raise TmgError(f"--move expects X,Y in inches, got {to!r}", file=f)
        return ov.Move(_model(bf, m, f, "--move"), pt, allowance)
    if dest == "charge":
        if not opts.get("targets"):
            raise TmgError("--charge needs --targets T1[,T2…]", file=f, obj=value)
        unit = as_unit(bf, value, f, "--charge")
        # UNIT, or UNIT/MODEL naming the charge's target model (§8.7.7 step 2): kept as given
        targets = tuple(_target(bf, t.strip(), f)
                        for t in str(opts["targets"]).split(",") if t.strip())
        return ov.Charge(unit.id, targets, opts.get("roll"), opts.get("modifier") or 0.0)
    a, b = value
    attacker = _model(bf, a, f, f"--{dest}")
    pt = refs.parse_point(b)
    target = None if pt is not None else _model(bf, b, f, f"--{dest}")
    return ov.Template(dest, attacker, target, pt, _shape(opts, dest, shapes))


def _shape(opts: dict[str, Any], kind: str, shapes: dict[str, Any] | None) -> Any:
    """The template shape: data file placeholder < scenario [templates] < command line."""
    given = {k: opts.get(k) for k in templates.DIMENSIONS[kind]}
    base = shapes.get(kind) if shapes else None
    if all(v is None for v in given.values()):
        return base
    try:
        return templates.make_shape(kind, given, "command line", base)
    except TmgError as exc:
        raise TmgError(exc.detail, obj=f"--{exc.field}" if exc.field else None) from None


def unit_ids(bf: Battlefield) -> list[str]:
    return [u.id for u in bf.units]


def _target(bf: Battlefield, text: str, file: str) -> str:
    """A declared charge target: its unit id, or `unit/model` when a model is named."""
    x = resolve(bf, text, file)
    if isinstance(x, Model):
        return f"{x.unit}/{x.id}"
    return as_unit(bf, text, file, "--targets").id


def as_unit(bf: Battlefield, text: str, file: str, opt: str) -> Unit:
    x = resolve(bf, text, file)
    if isinstance(x, Model):
        return bf.unit(x.unit)
    if not isinstance(x, Unit):
        raise TmgError(f"{opt} needs a unit", file=file, obj=text)
    return x
