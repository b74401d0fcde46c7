"""Elevation and effective size (rulebook §7.1.2, §7.1.4, §8.5.3).

- A model stands on a standable piece when its base centre is inside that piece's top (FAQ);
  with several such pieces, the one of greatest effective size (a base spanning several
  elevations stands on the highest; docs/rules.md#standing-on).
- Effective size of a piece = its Size + the effective size of the piece it stands on (`on`).
- Effective size of a model = its Size (0 when burrowed) + the effective size of its piece.
- A flying model counts as higher than every piece: its effective size is +inf.
- Elevation level: ground (no piece), mid ground (piece of effective size 1–2), high ground (3+).

>>> from geom.model import Battlefield, Table, TerrainPiece, Model, Base
>>> from shapely.geometry import box
>>> hill = TerrainPiece("hill", 4, box(0, 0, 10, 10), standable=True)
>>> m = Model.make("m", unit="u", owner="red", at=(5, 5), base=Base.from_mm(32), size=2)
>>> bf = Battlefield(Table(54, 36), (hill,))
>>> model_effective_size(bf, m), elevation_level(bf, m)
(6, 'high')
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from shapely.geometry import Point as SPoint

from .bases import boxes_near, piece_boxes
from .errors import TmgError
from .model import Battlefield, Model, TerrainPiece
from .tolerance import AREA_TOLERANCE

GROUND, MID, HIGH, AIR = "ground", "mid", "high", "flying"


def piece_effective_size(bf: Battlefield, piece: TerrainPiece) -> int:
    total, seen, p = 0, set(), piece
    while True:
        if p.id in seen:
            raise TmgError("stacking cycle", obj=piece.id, field="on")
        seen.add(p.id)
        total += p.size
        if p.on is None:
            return total
        p = bf.piece(p.on)


def level_of_size(effective: float) -> str:
    if effective >= 3:
        return HIGH
    if effective >= 1:
        return MID
    return GROUND


TOPS_KEPT = 4096  # points whose top a battlefield keeps


def top_at(bf: Battlefield, at: tuple[float, float]) -> TerrainPiece | None:
    """The top a base centred at `at` stands on: of the standable pieces under that point, the
    one of greatest effective size (None: the mat). Kept with the battlefield by point: the
    same models' tops are asked for again and again."""
    prepared = bf.prepared
    if len(prepared.tops) >= TOPS_KEPT:
        prepared.tops = {}
    kept = prepared.tops
    key = (float(at[0]), float(at[1]))
    if key not in kept:
        kept[key] = _top_at(bf, key)
    return kept[key]


def _top_at(bf: Battlefield, at: tuple[float, float]) -> TerrainPiece | None:
    centre = SPoint(at)
    best: TerrainPiece | None = None
    best_size = -1
    boxes = piece_boxes(bf)  # a footprint holds only points of its bounding box
    x, y = at
    under = np.flatnonzero((boxes[:, 0] <= x) & (boxes[:, 2] >= x) & (boxes[:, 1] <= y)
                           & (boxes[:, 3] >= y))
    for i in under.tolist():
        p = bf.terrain[i]
        if not p.can_stand_on:
            continue
        if shapely.intersects(p.footprint, centre):
            s = piece_effective_size(bf, p)
            if s > best_size:
                best, best_size = p, s
    return best


def standing_piece(bf: Battlefield, model: Model) -> TerrainPiece | None:
    """The piece whose top the model stands on, or None (mat, or flying)."""
    if model.flying:
        return None
    return top_at(bf, model.at)


def stacked_with(bf: Battlefield, ids: set[str]) -> set[str]:
    """The ids plus every piece stacked, directly or not, on one of them (they move together)."""
    out = set(ids)
    grew = True
    while grew:
        grew = False
        for p in bf.terrain:
            if p.on in out and p.id not in out:
                out.add(p.id)
                grew = True
    return out


def model_effective_size(bf: Battlefield, model: Model) -> float:
    """A model's effective size (§7.1.2): its Size (0 when BURROWED) plus the effective size of
    the piece it stands on; FLYING models are infinitely high.

    Parameters
    ----------
    bf : Battlefield
        The table.
    model : Model
        The model.

    Returns
    -------
    float
        The effective size (``math.inf`` for a flying model).

    Examples
    --------
    A Size-1 model on a Size-3 hill, and the same model on the mat:

    >>> from shapely.geometry import box
    >>> from geom import Base, Battlefield, Model, Table, TerrainPiece, model_effective_size
    >>> m = Model.make("1", unit="a", owner="red", at=(3, 3), base=Base.from_mm(32), size=1)
    >>> bf = Battlefield(Table(24, 12), (TerrainPiece("hill", 3, box(0, 0, 6, 6), standable=True),))
    >>> model_effective_size(bf, m), model_effective_size(bf, m.moved_to((9, 9)))
    (4, 1)
    """
    if model.flying:
        return math.inf
    piece = standing_piece(bf, model)
    return model.rules_size + (piece_effective_size(bf, piece) if piece else 0)


def elevation_level(bf: Battlefield, model: Model) -> str:
    """A model's elevation level (§7.1.4, §8.5.3): ground level, mid ground or high ground, by
    the effective size of the top its base's centre stands on; "flying" for a FLYING model.

    Parameters
    ----------
    bf : Battlefield
        The table.
    model : Model
        The model.

    Returns
    -------
    str
        "ground", "mid", "high" or "flying".

    Examples
    --------
    >>> from shapely.geometry import box
    >>> from geom import Base, Battlefield, Model, Table, TerrainPiece, elevation_level
    >>> m = Model.make("1", unit="a", owner="red", at=(3, 3), base=Base.from_mm(32), size=1)
    >>> bf = Battlefield(Table(24, 12), (TerrainPiece("hill", 3, box(0, 0, 6, 6), standable=True),))
    >>> elevation_level(bf, m), elevation_level(bf, m.moved_to((9, 9)))
    ('high', 'ground')
    """
    if model.flying:
        return AIR
    piece = standing_piece(bf, model)
    return level_of_size(piece_effective_size(bf, piece)) if piece else GROUND


def base_on_high_ground(bf: Battlefield, model: Model) -> bool:
    """§7.1.3: part of the base is on high ground (a standable top of effective size 3+).
    Kept with the battlefield: a report asks it of every model for every attacking unit."""
    if model.flying:
        return False
    kept = bf.prepared.high_ground
    if model in kept:
        return kept[model]
    e = model.ellipse
    near = [p for p, close in zip(bf.terrain, boxes_near(piece_boxes(bf), e), strict=True)
            if close and p.can_stand_on and piece_effective_size(bf, p) >= 3]
    if not near:
        found = False
    elif elevation_level(bf, model) == HIGH:
        found = True
    else:
        poly = e.shape
        found = any(shapely.intersection(p.footprint, poly).area > AREA_TOLERANCE for p in near)
    kept[model] = found
    return found
