"""Helpers shared by the subcommands."""

from __future__ import annotations

import argparse
import math
from typing import Any

import scenario
from geom.errors import TmgError
from geom.model import Battlefield, Model, Unit
from scenario import refs


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


