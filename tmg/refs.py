"""Command-line references to objects on a battlefield (INTERFACE.md "References").

`UNIT/MODEL`, `UNIT`, `marker/N`; extensions: `terrain/ID`, `zone/red`, `zone/blue` and a
bare point `X,Y`.
"""

from __future__ import annotations

from typing import Any

from geom.errors import TmgError
from geom.model import Battlefield, Marker, Model, TerrainPiece, Unit


def parse_point(text: str) -> tuple[float, float] | None:
    parts = text.split(",")
    if len(parts) != 2:
        return None
    try:
        return (float(parts[0]), float(parts[1]))
    except ValueError:
        return None


def resolve(bf: Battlefield, text: str) -> Any:
    """Model | Unit | Marker | TerrainPiece | zone geometry | point."""
    pt = parse_point(text)
    if pt is not None:
        return pt
    head, _, tail = text.partition("/")
    if head == "marker" and tail:
        try:
            return bf.marker(int(tail))
        except ValueError:
            raise TmgError(f"bad marker reference {text!r} (use marker/N)") from None
    if head == "terrain" and tail:
        return bf.piece(tail)
    if head == "zone" and tail:
        if bf.deployment is None or tail not in bf.deployment.zones:
            raise TmgError(f"no zone of influence {tail!r} (does the scenario have a deployment?)")
        return bf.deployment.zones[tail]
    unit = bf.unit(head)
    return unit.model(tail) if tail else unit


def label(obj: Any) -> str:
    if isinstance(obj, Model | Marker):
        return obj.ref
    if isinstance(obj, Unit):
        return obj.id
    if isinstance(obj, TerrainPiece):
        return f"terrain/{obj.id}"
    if isinstance(obj, tuple):
        return f"{obj[0]:g},{obj[1]:g}"
    return "zone"


def model_ref(text: str) -> tuple[str, str]:
    head, _, tail = text.partition("/")
    if not tail:
        raise TmgError(f"expected a model reference UNIT/MODEL, got {text!r}")
    return head, tail
