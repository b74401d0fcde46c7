"""Distances, WITHIN and WHOLLY WITHIN (rulebook §4.1, §4.2).

Distance between two objects is the shortest distance between their bases, measured
horizontally (touching = 0"). Any of these can be measured: models, units (nearest model),
markers (32 mm discs), terrain pieces (footprints), points and zones (shapely geometries).

- WITHIN d: some part is at most d away; a unit is within d when any of its models is.
- WHOLLY WITHIN d: every point of the base is at most d away; a unit only when all its models are.

Disc and oval answers are exact (see `geom.bases` for the guarantee of each case). WHOLLY
WITHIN of a whole *unit* measured from several models is a max–min problem; it is answered by
dense sampling of each base (rims at 16 radii × 256 angles), accurate to about 1e-4".

>>> from geom.model import Model, Base
>>> a = Model.make("a", unit="u", owner="red", at=(0, 0), base=Base.from_mm(25.4), size=1)
>>> b = Model.make("b", unit="v", owner="blue", at=(3, 0), base=Base.from_mm(25.4), size=1)
>>> distance(a, b), within(a, b, 2), wholly_within(a, b, 2)
(2.0, True, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

import numpy as np
import shapely
from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry

from . import bases
from .model import Ellipse, Marker, Model, TerrainPiece, Unit
from .tolerance import TOLERANCE

Thing: TypeAlias = Model | Unit | Marker | TerrainPiece | tuple[float, float] | BaseGeometry
Part: TypeAlias = Ellipse | BaseGeometry


def parts(x: Thing) -> list[Part]:
    """The bases or footprints an object is measured from."""
    if isinstance(x, Model | Marker):
        return [x.ellipse]
    if isinstance(x, Unit):
        return [m.ellipse for m in x.models]
    if isinstance(x, TerrainPiece):
        return [x.footprint]
    if isinstance(x, BaseGeometry):
        return [x]
    if isinstance(x, tuple | list) and len(x) == 2:
        return [SPoint(float(x[0]), float(x[1]))]
    raise TypeError(f"cannot measure from {type(x).__name__}")


def part_distance(p: Part, q: Part) -> float:
    if isinstance(p, Ellipse) and isinstance(q, Ellipse):
        return bases.ellipse_distance(p, q)
    if isinstance(p, Ellipse):
        assert isinstance(q, BaseGeometry)
        if isinstance(q, SPoint):
            return float(bases.point_distance(p, (q.x, q.y))[0])
        return bases.ellipse_geometry_distance(p, q)
    if isinstance(q, Ellipse):
        return part_distance(q, p)
    return float(shapely.distance(p, q))


def distance(x: Thing, y: Thing) -> float:
    """Shortest base-to-base distance in inches.

    Parameters
    ----------
    x, y : Model, Unit, Marker, TerrainPiece, point or shapely geometry
        What is measured: a base, a unit (its nearest model), a marker, a piece's footprint,
        a point ``(x, y)`` or a zone.

    Returns
    -------
    float
        The shortest horizontal distance between them, 0 when they touch or overlap (§4.1).

    Examples
    --------
    A 32 mm base 1.9" (centre to centre) from another, with a 0.5" wall between:

    >>> from shapely.geometry import box
    >>> from geom import Base, Model, TerrainPiece, distance
    >>> base = Base.from_mm(32)
    >>> a = Model.make("1", unit="a", owner="red", at=(10.3, 6), base=base, size=1)
    >>> b = Model.make("1", unit="b", owner="blue", at=(12.2, 6), base=base, size=1)
    >>> round(distance(a, b), 3), round(distance(a, TerrainPiece("wall", 3, box(11, 0, 11.5, 8))), 3)
    (0.64, 0.07)
    """
    return min(part_distance(p, q) for p in parts(x) for q in parts(y))


def distance_matrix(xs: Sequence[Model | Marker], ys: Sequence[Model | Marker]) -> np.ndarray:
    """Base-to-base distances between every x and every y, in one vectorised pass: closed
    forms for two discs, the batched separating-axis solver (`geom.bases`) for the pairs with
    an oval — the same answers as `distance`, pair by pair."""
    out = np.zeros((len(xs), len(ys)))
    if not len(xs) or not len(ys):
        return out
    ex = [x.ellipse for x in xs]
    ey = [y.ellipse for y in ys]
    c1 = np.array([[e.cx, e.cy, e.a] for e in ex])
    c2 = np.array([[e.cx, e.cy, e.a] for e in ey])
    d1 = np.array([e.is_disc for e in ex])
    d2 = np.array([e.is_disc for e in ey])
    centre = np.hypot(c1[:, None, 0] - c2[None, :, 0], c1[:, None, 1] - c2[None, :, 1])
    out[:] = np.maximum(centre - c1[:, None, 2] - c2[None, :, 2], 0.0)
    i, j = np.nonzero(~(d1[:, None] & d2[None, :]))
    if len(i):
        out[i, j] = bases.ellipse_distances([ex[k] for k in i], [ey[k] for k in j])[0]
    return out


def unit_distance_matrix(units: Sequence[Unit], others: Sequence[Unit | Marker]
                         ) -> np.ndarray:
    """Distance between every unit and every unit or marker (nearest models), one pass."""
    ma = [m for u in units for m in u.models]
    mb = [m for o in others for m in (o.models if isinstance(o, Unit) else (o,))]
    d = distance_matrix(ma, mb)
    ia = np.repeat(np.arange(len(units)), [len(u.models) for u in units])
    ib = np.repeat(np.arange(len(others)),
                   [len(o.models) if isinstance(o, Unit) else 1 for o in others])
    out = np.full((len(units), len(others)), np.inf)
    np.minimum.at(out, (ia[:, None], ib[None, :]), d)
    return out


def within(x: Thing, y: Thing, d: float) -> bool:
    """WITHIN d (§4.2): some part of `x` is at most `d` from `y` (a unit: any of its models).

    Parameters
    ----------
    x, y : Model, Unit, Marker, TerrainPiece, point or shapely geometry
        What is measured (as for `distance`).
    d : float
        The distance in inches.

    Returns
    -------
    bool
        ``distance(x, y) <= d``, touching and grazing (1e-6") included.

    Examples
    --------
    >>> from geom import Base, Model, within
    >>> base = Base.from_mm(32)
    >>> a = Model.make("1", unit="a", owner="red", at=(10.3, 6), base=base, size=1)
    >>> b = Model.make("1", unit="b", owner="blue", at=(12.2, 6), base=base, size=1)
    >>> within(a, b, 0.6402), within(a, b, 0.6401)  # the gap is 1.9 - 1.2598 = 0.64016"
    (True, False)
    """
    return distance(x, y) <= d + TOLERANCE


def _sample_points(p: Part) -> np.ndarray:
    if isinstance(p, Ellipse):
        t = np.linspace(0, 2 * np.pi, 256, endpoint=False)
        rims = [bases.boundary_points(Ellipse(p.cx, p.cy, p.a * s, p.b * s, p.theta), t)
                for s in np.linspace(1.0, 1 / 16, 16)]
        return np.vstack(rims + [np.array([[p.cx, p.cy]])])
    g = p.segmentize(0.05) if p.length > 0 else p
    coords = shapely.get_coordinates(g)
    if p.area > 0:
        minx, miny, maxx, maxy = p.bounds
        gx, gy = np.meshgrid(np.linspace(minx, maxx, 64), np.linspace(miny, maxy, 64))
        grid = np.column_stack((gx.ravel(), gy.ravel()))
        inside = shapely.contains_xy(p, grid[:, 0], grid[:, 1])
        coords = np.vstack((coords, grid[inside]))
    return coords


def _points_distance(pts: np.ndarray, q: Part) -> np.ndarray:
    if isinstance(q, Ellipse):
        return bases.point_distance(q, pts)
    return np.asarray(shapely.distance(shapely.points(pts), q), dtype=float)


def max_distance(p: Part, ys: Sequence[Part]) -> float:
    """max over points of part p of the distance to the nearest of ys."""
    if len(ys) == 1:
        q = ys[0]
        if isinstance(p, Ellipse) and isinstance(q, Ellipse):
            return bases.max_distance_to_ellipse(p, q)
        if isinstance(p, Ellipse) and isinstance(q, SPoint):
            return max(0.0, bases.max_distance_to_point(p, (q.x, q.y)))
        if isinstance(p, Ellipse):
            return bases.max_distance_to_geometry(p, q)
    pts = _sample_points(p)
    d = np.min(np.vstack([_points_distance(pts, q) for q in ys]), axis=0)
    return float(d.max())


def wholly_within(x: Thing, y: Thing, d: float) -> bool:
    """WHOLLY WITHIN d (§4.2): every point of `x`'s base is at most `d` from `y` (a unit:
    every point of every one of its models).

    Parameters
    ----------
    x, y : Model, Unit, Marker, TerrainPiece, point or shapely geometry
        What is measured (as for `distance`).
    d : float
        The distance in inches.

    Returns
    -------
    bool
        Whether the farthest point of `x` is within `d` of `y` (1e-6" tolerance).

    Examples
    --------
    A 32 mm base (1.26" across) 0.64" from another is within 0.64" of it, and wholly within
    0.64 + 1.26 = 1.9":

    >>> from geom import Base, Model, wholly_within
    >>> base = Base.from_mm(32)
    >>> a = Model.make("1", unit="a", owner="red", at=(10.3, 6), base=base, size=1)
    >>> b = Model.make("1", unit="b", owner="blue", at=(12.2, 6), base=base, size=1)
    >>> wholly_within(a, b, 0.64), wholly_within(a, b, 1.9), wholly_within(a, b, 1.899)
    (False, True, False)
    """
    ys = parts(y)
    return all(max_distance(p, ys) <= d + TOLERANCE for p in parts(x))
