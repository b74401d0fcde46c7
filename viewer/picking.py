"""What is under the mouse: the model, marker or terrain piece at a table point.

A click picks the nearest base within a few pixels (the tolerance is given in inches by the
caller, from the zoom), so a small base stays easy to hit; bases win over markers, markers
over terrain; among stacked pieces the top one wins.

>>> from geom.model import Battlefield, Table, Marker
>>> bf = Battlefield(Table(54, 36), markers=(Marker(5, (27.0, 18.0)),))
>>> pick(bf, (27.3, 18.2), 0.05).ref
'marker/5'
>>> pick(bf, (40, 30), 0.05) is None
True
"""

from __future__ import annotations

import shapely
from shapely.geometry import Point as SPoint

from geom import bases
from geom.elevation import piece_effective_size
from geom.model import Battlefield, Marker, Model, TerrainPiece

Picked = Model | Marker | TerrainPiece


def pick_base(bf: Battlefield, pt: tuple[float, float], tol: float) -> Model | Marker | None:
    """The model (or else marker) whose base is nearest to pt, if within tol inches."""
    best: tuple[float, Model | Marker] | None = None
    for group in (list(bf.models()), list(bf.markers)):
        for m in group:
            d = float(bases.point_distance(m.ellipse, pt)[0])
            if d <= tol and (best is None or d < best[0]
                             or (d == best[0] and isinstance(m, Model))):
                best = (d, m)
        if best is not None:
            return best[1]
    return None


def pick_piece(bf: Battlefield, pt: tuple[float, float]) -> TerrainPiece | None:
    """The top terrain piece whose footprint holds pt."""
    p = SPoint(pt)
    hits = [t for t in bf.terrain if shapely.covers(t.footprint, p)]
    if not hits:
        return None
    return max(hits, key=lambda t: (piece_effective_size(bf, t), t.is_token))


def pick(bf: Battlefield, pt: tuple[float, float], tol: float) -> Picked | None:
    return pick_base(bf, pt, tol) or pick_piece(bf, pt)
