"""Helpers shared by the subcommands."""

from __future__ import annotations

import argparse
import math
from dataclasses import replace
from typing import Any

import scenario
from geom.errors import TmgError
from geom.model import Battlefield, Model, Unit
from geom.movement import coherency
from scenario import refs
from scenario.save import document as save_document
from scenario.save import save as save_scenario
from scenario.save import source_settings


def add_file(p: argparse.ArgumentParser, help: str = "scenario file, layout or card name",
             deployment: bool = True) -> None:
    """The FILE argument every command that reads a table takes, and `--deployment CARD`
    (a command with an option of its own by that name passes deployment=False)."""
    p.add_argument("file", metavar="FILE", help=help)
    if deployment:
        p.add_argument("--deployment", metavar="CARD",
                       help="lay this deployment card (entry edges, zones of influence, "
                            "markers) on the table, in place of the file's own")


def load(args: argparse.Namespace) -> Battlefield:
    """The battlefield of FILE, with `--deployment CARD` laid on it when given."""
    return scenario.load(args.file, getattr(args, "deployment", None))


def resolve(bf: Battlefield, text: str, file: str) -> Any:
    try:
        return refs.resolve(bf, text)
    except TmgError as exc:
        raise TmgError(exc.detail, file=file, obj=text) from None


def resolve_model(bf: Battlefield, text: str, file: str) -> Model:
    obj = resolve(bf, text, file)
    if not isinstance(obj, Model):
        raise TmgError("expected a model reference UNIT/MODEL", file=file, obj=text)
    return obj


def resolve_unit(bf: Battlefield, text: str, file: str, leading: str | None = None) -> Unit:
    """A unit reference UNIT; `leading`, when given, must name one of its models."""
    obj = resolve(bf, text, file)
    if not isinstance(obj, Unit):
        raise TmgError("expected a unit reference UNIT", file=file, obj=text)
    if leading is not None and leading not in {m.id for m in obj.models}:
        raise TmgError(f"unit {obj.id!r} has no model {leading!r}", file=file, obj="--leading")
    return obj


def distance_arg(text: str) -> float:
    """argparse type: a distance in inches, a finite number >= 0."""
    v = finite_arg(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected a distance >= 0 in inches, got {text!r}")
    return v


def finite_arg(text: str) -> float:
    """argparse type: a finite number (inches)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of inches, got {text!r}") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"expected a finite number of inches, got {text!r}")
    return v


def parse_xy(text: str, what: str = "--to") -> tuple[float, float]:
    pt = refs.parse_point(text)
    if pt is None:
        raise TmgError(f"expected X,Y with two finite numbers of inches, got {text!r}",
                       obj=what)
    return pt


def piece_titles(bf: Battlefield, ids: Any) -> dict[str, str]:
    """`{id: title}` for the terrain pieces an answer names by id, so that its text can name
    them as every output does (`Label (terrain/ID)`) while its JSON lists keep the ids."""
    return {i: bf.piece(i).title for i in ids if isinstance(i, str) and bf.has_piece(i)}


def titled(r: dict[str, Any], ids: Any) -> str:
    """Piece ids of an answer as text: their titles (see `piece_titles`), comma-separated."""
    titles = r.get("terrain_titles") or {}
    return ", ".join(titles.get(i, i) for i in ids)


def base_words(mm: Any) -> str:
    """A base size for a reader: "32 mm", an oval "100x40 mm", unknown "?"."""
    if mm is None:
        return "?"
    if isinstance(mm, list | tuple):
        return "x".join(f"{v:g}" for v in mm) + " mm"
    return f"{mm:g} mm"


def witness_line(w: Any) -> str:
    """A witness segment [[x1, y1], [x2, y2]] as one line of human output."""
    (x1, y1), (x2, y2) = w
    return f"\n  witness: ({x1:.3f}, {y1:.3f}) - ({x2:.3f}, {y2:.3f})"


def add_save(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--save", metavar="FILE.toml",
                   help=f"write the table as {what} leaves it (models moved, GRASS destroyed and "
                        "pieces removed gone) as a scenario file, atomically; nothing is written "
                        "when it is not legal")


def save_after(args: argparse.Namespace, out: dict[str, Any], bf: Battlefield, unit: str,
               positions: dict[str, Any] | None, destroyed: Any = (), why_not: str = "",
               moved: bool = True) -> None:
    """`--save`: the table after the action (`Battlefield.after_action`), written as a
    scenario that every command reads, so that sight or engagement can be asked of the table
    the action leaves — the GRASS it trampled gone (docs/rules.md#charge-grass). `positions` None: the action is not legal,
    nothing is written and `save_refused` says why. A moving action (`moved`) records the
    unit's coherency at its end, casualties removed (`coherent`, §4.4:
    docs/rules.md#coherency-persists); `saved_coherent` says what was written."""
    if not getattr(args, "save", None):
        return
    if positions is None:
        out["saved"] = None
        out["save_refused"] = why_not or "the action is not legal"
        return
    gone = [*out.get("destroys_grass", []), *out.get("removed", [])]
    try:
        after = bf.after_action(unit, positions, destroyed=destroyed, pieces_gone=gone)
        if moved and any(u.id == unit for u in after.units):
            coherent = coherency(after, unit).ok
            after = after.replace_unit(replace(after.unit(unit), coherent=coherent))
            out["saved_coherent"] = coherent
        layout, extra = source_settings(args.file)
        kept = getattr(args, "saved_documents", None)
        if kept is not None:  # the service: the document in the answer, nothing written
            kept[args.save] = save_document(after, layout=layout, extra=extra)
        else:
            save_scenario(args.save, after, layout=layout, extra=extra)
    except TmgError as exc:
        raise TmgError(exc.detail, file=args.save, obj="--save", field=exc.field) from None
    out["saved"] = args.save


def saved_line(r: dict[str, Any], what: str) -> str:
    """The text line for `--save` (empty without it)."""
    if "saved" not in r:
        return ""
    if r["saved"] is None:
        return f"  not saved: {r.get('save_refused', '')}"
    return f"  saved the table after {what} as {r['saved']}"
