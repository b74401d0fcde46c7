"""Terrain a move destroys or removes (rulebook §8.5.3 "지형 상호작용", keyword GRASS, the Siege
Tank card's LARGE "대형").

- **GRASS** is destroyed at once when the leading model's path crosses it or any model of the
  unit ends on it, during any moving action (move, deploy, run, charge, disengage, close ranks);
  a flying unit passing over it does not destroy it, ending on it does (keyword GRASS).
- **LARGE**: "어떤 이동 액션 중이든 선도 모델의 이동 경로가 크기 0이나 1인 통과 불가 지형(토큰 제외)을
  지나거나, 이 유닛의 어느 모델이라도 그 위에서 이동을 끝내면, 그 지형은 즉시 게임에서 제거됩니다."
  A Size-0/1 piece that is impassable (keyword IMPASSABLE TERRAIN: no access point to an
  adjacent elevation — so not a ramp or a top with access points), tokens excepted, that the
  leading model's path crosses or any model of the unit ends on, is removed from the game. Such
  a move may therefore end over it (`geom.movement._end_position`; docs/rules.md#large).

**Decision (docs/rules.md#crossing-a-piece):** the leading model's path crosses a piece when the
area its base sweeps along the path shares area with the footprint — it overlaps it by more
than the 1e-6" tolerance, exactly as an end position "overlaps" (touching does not cross). The
end position's base is part of the swept area. The test is exact to rounding: arcs of the path
are drawn as chords within a known sag of the true arc, and a verdict closer to the limit than
the sag is redone with chords within 1e-9".

>>> from shapely.geometry import box
>>> from geom.model import Base, Model, TerrainPiece
>>> from geom.paths._path import Path, Segment
>>> crate = TerrainPiece("crate", 1, box(10, 4, 11, 5))
>>> tank = Model.make("t", unit="tank", owner="red", at=(5, 2), base=Base.from_mm(25.4), size=3)
>>> p = Path(((5, 2), (15, 2)), 10.0, (Segment((5, 2), (15, 2)),))
>>> swept_pieces(p, tank, [crate])   # the base (radius 0.5") passes 2" below the crate
[]
>>> p = Path(((5, 3.6), (15, 3.6)), 10.0, (Segment((5, 3.6), (15, 3.6)),))
>>> swept_pieces(p, tank, [crate])
['crate']
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import shapely
from shapely import affinity
from shapely.geometry import LineString
from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry

from ..bases import frame_matrix
from ..model import Battlefield, Model, TerrainPiece, Unit
from ..paths import Arc, Path, is_level
from ..tolerance import ROUND_OFF, TOLERANCE, ZERO_LENGTH

COARSE_SAG = 1e-3   # chords of the path's arcs within this of the true arc
FINE_SAG = 1e-9     # redone within this when the coarse test is too close to call


def removed_by_large(p: TerrainPiece) -> bool:
    """A piece a LARGE unit removes when its path crosses it or it ends on it: Size 0 or 1,
    impassable (no access point to an adjacent elevation: not a top of its own), not a token."""
    return p.size <= 1 and not p.is_token and not p.grass and not is_level(p)


def ends_over(unit: Unit, p: TerrainPiece) -> bool:
    """May a model of `unit` end overlapping `p` because ending there destroys it (GRASS) or
    removes it (LARGE, Size-0/1 impassable)?"""
    return p.grass or (unit.large and removed_by_large(p))


def destroyable(bf: Battlefield, unit: Unit) -> list[TerrainPiece]:
    """The pieces a move of `unit` can destroy or remove: GRASS, and for LARGE units the
    Size-0/1 impassable pieces."""
    return [p for p in bf.terrain if ends_over(unit, p)]


def _shrunk(bf: Battlefield | None, p: TerrainPiece) -> BaseGeometry:
    if bf is None:
        return p.footprint.buffer(-TOLERANCE)
    kept = bf.prepared.shrunk_footprints  # shared with geom.bases.overlaps_piece
    got = kept.get(p.id)
    if got is None:
        got = kept[p.id] = p.footprint.buffer(-TOLERANCE)
    return got


def _polyline(path: Path, sag: float) -> BaseGeometry:
    pts: list[tuple[float, float]] = [path.start]
    for pc in path.pieces:
        new = pc.points(sag)[1:] if isinstance(pc, Arc) else [pc.b]
        pts.extend(p for p in new if math.dist(p, pts[-1]) > ZERO_LENGTH)
    if not path.pieces:
        pts = list(path.points)
    return LineString(pts) if len(pts) > 1 else SPoint(pts[0])


def swept_pieces(path: Path | None, mover: Model, pieces: Iterable[TerrainPiece], *,
                 bf: Battlefield | None = None) -> list[str]:
    """Ids of the pieces whose footprint the base of `mover` overlaps somewhere along `path`
    (see the module docstring); with no path, at the mover's own position."""
    e = mover.ellipse
    m = frame_matrix(e)
    scale = 1.0 / e.b  # frame units per inch, at most: how far a chord's sag can move it
    if path is None:
        path = Path((mover.at,), 0.0)
    has_arcs = any(isinstance(pc, Arc) for pc in path.pieces)
    coarse = _polyline(path, COARSE_SAG if has_arcs else FINE_SAG)
    fine: BaseGeometry | None = None if has_arcs else coarse
    out: list[str] = []
    for p in pieces:
        shrunk = _shrunk(bf, p)
        if shrunk.is_empty:
            continue
        x0, y0, x1, y1 = coarse.bounds
        px0, py0, px1, py1 = shrunk.bounds
        if px0 > x1 + e.a or px1 < x0 - e.a or py0 > y1 + e.a or py1 < y0 - e.a:
            continue
        img = affinity.affine_transform(shrunk, list(m))
        d = float(shapely.distance(affinity.affine_transform(coarse, list(m)), img))
        sag = COARSE_SAG if has_arcs else 0.0
        if abs(d - 1.0) <= sag * scale + ROUND_OFF and fine is not coarse:
            if fine is None:
                fine = _polyline(path, FINE_SAG)
            d = float(shapely.distance(affinity.affine_transform(fine, list(m)), img))
        if d <= 1.0:
            out.append(p.id)
    return out


@dataclass(frozen=True)
class Destroyed:
    """What a move destroys (GRASS) and removes (LARGE), by piece id, in table order."""

    grass: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    @property
    def ids(self) -> tuple[str, ...]:
        return self.grass + self.removed


def destroyed_by(bf: Battlefield, unit: Unit, mover: Model, path: Path | None,
                 ends: Sequence[Model] = ()) -> Destroyed:
    """The GRASS and (LARGE) Size-0/1 pieces destroyed by `mover` leading `unit` along `path`
    (None: it did not move) and by the models `ends` ending where they stand. A flying leading
    model passes over terrain: only where models end counts."""
    pieces = destroyable(bf, unit)
    if not pieces:
        return Destroyed()
    hit: set[str] = set()
    if path is not None and not unit.flying:
        hit |= set(swept_pieces(path, mover, pieces, bf=bf))
    elif path is not None:
        hit |= set(swept_pieces(None, mover.moved_to(path.end), pieces, bf=bf))
    for m in ends:
        rest = [p for p in pieces if p.id not in hit]
        if not rest:
            break
        hit |= set(swept_pieces(None, m, rest, bf=bf))
    order = [p for p in pieces if p.id in hit]
    return Destroyed(tuple(p.id for p in order if p.grass),
                     tuple(p.id for p in order if not p.grass))


def without(bf: Battlefield, ids: Iterable[str]) -> Battlefield:
    """The battlefield with these pieces gone (destroyed or removed during a move), kept with
    `bf` so that every question about it shares one (and its navigators and caches)."""
    gone = frozenset(ids) & {p.id for p in bf.terrain}
    if not gone:
        return bf
    kept = bf.prepared.without
    got = kept.get(gone)
    if got is None:
        got = kept[gone] = replace(bf, terrain=tuple(p for p in bf.terrain if p.id not in gone))
    return got
