"""Command-line references to objects on a battlefield (docs/interface.md, "References on
the command line").

`UNIT/MODEL`, `UNIT`, `marker/N`; extensions: `terrain/ID`, `zone/red`, `zone/blue` and a
bare point `X,Y`.
"""

from __future__ import annotations

import math
from typing import Any

from geom.errors import TmgError
from geom.model import Battlefield, Marker, Model, TerrainPiece, Unit

PREFIXES = ("marker", "terrain", "zone")  # reserved: never a unit id


def parse_point(text: str) -> tuple[float, float] | None:
    """`X,Y` in inches (finite numbers), else None."""
    parts = text.split(",")
    if len(parts) != 2:
        return None
    try:
        x, y = float(parts[0]), float(parts[1])
    except ValueError:
        return None
    if not (math.isfinite(x) and math.isfinite(y)):
        return None
    return (x, y)


def resolve(bf: Battlefield, text: str) -> Any:
    """Model | Unit | Marker | TerrainPiece | zone geometry | point."""
    pt = parse_point(text)
    if pt is not None:
        return pt
    head, slash, tail = text.partition("/")
    if head == "marker" and slash:
        try:
            n = int(tail)
        except ValueError:
            raise TmgError(f"bad marker reference {text!r} (use marker/N, N = 1..5)") from None
        if not any(m.id == n for m in bf.markers):
            raise TmgError(f"no marker {n} (markers on the table: "
                           f"{_known([str(m.id) for m in bf.markers])})")
        return bf.marker(n)
    if head == "terrain" and slash:
        if not tail:
            raise TmgError(f"bad terrain reference {text!r} (use terrain/ID)")
        if not bf.has_piece(tail):
            raise TmgError(f"no terrain piece {tail!r} (pieces: "
                           f"{_known([p.id for p in bf.terrain])})")
        return bf.piece(tail)
    if head == "zone" and slash:
        if bf.deployment is None or tail not in bf.deployment.zones:
            raise TmgError(f"no zone of influence {tail!r} (use zone/red or zone/blue; "
                           "the scenario needs a deployment card)")
        return bf.deployment.zones[tail]
    if not head:
        raise TmgError(f"bad reference {text!r}: the unit id is empty (use UNIT/MODEL or UNIT)")
    if slash and not tail:
        raise TmgError(f"bad reference {text!r}: the model id is empty (use UNIT/MODEL, or "
                       "UNIT for the whole unit)")
    if not slash and "," in text and not any(u.id == text for u in bf.units):
        raise TmgError(f"bad point {text!r} (use X,Y with two finite numbers of inches)")
    if not any(u.id == head for u in bf.units):
        raise TmgError(f"no unit {head!r} (units: {_known([u.id for u in bf.units])})")
    unit = bf.unit(head)
    if tail and not any(m.id == tail for m in unit.models):
        raise TmgError(f"unit {head!r} has no model {tail!r} (models: "
                       f"{_known([m.id for m in unit.models])})")
    return unit.model(tail) if tail else unit


def _known(ids: list[str], most: int = 12) -> str:
    """A short list of the ids a reference could have named."""
    if not ids:
        return "none"
    shown = ", ".join(ids[:most])
    return shown + (f", … ({len(ids)} in all)" if len(ids) > most else "")


def label(obj: Any) -> str:
    if isinstance(obj, Model | Marker):
        return obj.ref
    if isinstance(obj, Unit):
        return obj.id
    if isinstance(obj, TerrainPiece):
        return obj.ref
    if isinstance(obj, tuple):
        return f"{obj[0]:g},{obj[1]:g}"
    return "zone"


def title(obj: Any) -> str:
    """How text names the object: a terrain piece by its title (`Label (terrain/ID)`), anything
    else by its reference."""
    return obj.title if isinstance(obj, TerrainPiece) else label(obj)
