"""Where a survey stands its probe models: the grid of cells over the table and the samples of
each zone of influence (rulebook §4.3 and §8.5.3 legal end positions, §7.1.2 standing on a top,
§5.6 zones of influence).

The table is cut into square cells of `step` inches from the origin corner (the last row and
column may be narrower). Each cell holds one probe point: the cell's centre, moved the least
needed to keep the whole base on the table — but never out of its cell, so a cell whose
every point puts the base off the table has no probe. A probe *stands* at its point when a
model with the probe's base could legally end a move there (`geom.movement._moves.end_position_ok`:
whole base on the table, no overlap with terrain other than a top it stands on, grass allowed);
a centre inside a standable top stands on that top (§7.1.2), so its elevation is the top's.

Zone samples are the same construction with their own step, kept where the point lies in the
zone of influence (the closed strip, §5.6) and a model can stand there.

Grids are limited in size by one function, `check_grid`, so that the documented limit lives in
one place.

>>> from geom.model import Table, Base
>>> g = Grid.build(Table(54, 36), 1.0, Base.from_mm(32))
>>> g.nx, g.ny, len(g)
(54, 36, 1944)
>>> [round(v, 3) for v in g.point(0)]     # the corner cell's centre moved to keep the base on
[0.63, 0.63]
>>> g.cell(g.index(10, 5))
(10.0, 5.0, 11.0, 6.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from geom.elevation import elevation_level, standing_piece
from geom.errors import TmgError
from geom.model import Base, Battlefield, Model, Table, Unit
from geom.movement import end_position_ok
from geom.tolerance import ROUNDING, TOLERANCE

MAX_GRID_POINTS = 100_000  # probe cells of one survey (a 54"x36" table at 0.2" is 48,600)
MAX_ZONE_SAMPLES = 5_000   # samples of one zone of influence
MIN_STEP = 0.1             # inches


def check_grid(table: Table, step: float, zone_step: float | None = None) -> None:
    """The one place where a survey's grid is limited: a TmgError naming the option when the
    step is not a positive finite number of inches, is below `MIN_STEP`, or makes more than
    `MAX_GRID_POINTS` cells (or `MAX_ZONE_SAMPLES` zone samples along a 6" zone).

    >>> check_grid(Table(54, 36), 0.01)
    Traceback (most recent call last):
    ...
    geom.errors.TmgError: --step: a step of 0.01" is below the smallest step, 0.1"
    """
    for name, value in (("--step", step), ("--zone-step", zone_step)):
        if value is None:
            continue
        if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
            raise TmgError(f"a step must be a positive number of inches, got {value!r}", obj=name)
        if value < MIN_STEP:
            raise TmgError(f"a step of {value:g}\" is below the smallest step, {MIN_STEP:g}\"",
                           obj=name)
    n = _count(table.width, step) * _count(table.depth, step)
    if n > MAX_GRID_POINTS:
        raise TmgError(f"a {step:g}\" step makes {n} cells on a {table.width:g}\"x"
                       f"{table.depth:g}\" table, more than the {MAX_GRID_POINTS} a survey "
                       "takes", obj="--step")
    if zone_step is not None:
        long_side = max(table.width, table.depth)
        nz = _count(long_side, zone_step) * _count(6.0, zone_step)
        if nz > MAX_ZONE_SAMPLES:
            raise TmgError(f"a {zone_step:g}\" zone step makes about {nz} samples per zone of "
                           f"influence, more than the {MAX_ZONE_SAMPLES} a survey takes",
                           obj="--zone-step")


def _count(length: float, step: float) -> int:
    return max(1, math.ceil(length / step - ROUNDING))


def half_extents(base: Base, angle: float = 0.0) -> tuple[float, float]:
    """Half the width and depth of the box around a base turned by `angle` degrees."""
    t = math.radians(angle)
    c, s = math.cos(t), math.sin(t)
    a, b = base.a, base.b
    return math.sqrt((a * c) ** 2 + (b * s) ** 2), math.sqrt((a * s) ** 2 + (b * c) ** 2)


@dataclass(frozen=True)
class Grid:
    """Cells of `step` inches; cell k = (ix, iy) with k = iy·nx + ix (rows from y = 0).
    `xs`, `ys`: probe points (NaN where no point of the cell keeps the base on the table)."""

    table: Table
    step: float
    nx: int
    ny: int
    xs: np.ndarray
    ys: np.ndarray

    @classmethod
    def build(cls, table: Table, step: float, base: Base, angle: float = 0.0) -> Grid:
        nx, ny = _count(table.width, step), _count(table.depth, step)
        ex, ey = half_extents(base, angle)
        xs = _axis(nx, step, table.width, ex)
        ys = _axis(ny, step, table.depth, ey)
        gx, gy = np.meshgrid(xs, ys)
        return cls(table, float(step), nx, ny, gx.ravel(), gy.ravel())

    def __len__(self) -> int:
        return self.nx * self.ny

    def index(self, ix: int, iy: int) -> int:
        return iy * self.nx + ix

    def cell(self, k: int) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) of cell k."""
        iy, ix = divmod(k, self.nx)
        s, t = self.step, self.table
        return (ix * s, iy * s, min(t.width, (ix + 1) * s), min(t.depth, (iy + 1) * s))

    def cells(self) -> np.ndarray:
        """(n, 4) boxes of every cell."""
        return np.array([self.cell(k) for k in range(len(self))], dtype=float).reshape(-1, 4)

    def point(self, k: int) -> tuple[float, float]:
        return (float(self.xs[k]), float(self.ys[k]))

    def has_point(self) -> np.ndarray:
        return ~(np.isnan(self.xs) | np.isnan(self.ys))


def _axis(n: int, step: float, length: float, half: float) -> np.ndarray:
    lo = np.arange(n) * step
    hi = np.minimum(lo + step, length)
    centre = (lo + hi) / 2
    at = np.clip(centre, half, length - half) if 2 * half <= length else np.full(n, np.nan)
    at[(at < lo - TOLERANCE) | (at > hi + TOLERANCE)] = np.nan
    return at


# --------------------------------------------------------------------------- standing


def probe_unit(uid: str, owner: str, at: tuple[float, float], base: Base, size: int, *,
               hidden: bool = False, angle: float = 0.0, **unit_fields: object) -> Unit:
    """A one-model unit standing at `at` (the probe, or a model in a zone of influence)."""
    m = Model.make("1", unit=uid, owner=owner, at=at, base=base, size=size, angle=angle,
                   hidden=hidden)
    statuses = ("hidden",) if hidden else ()
    return Unit(uid, owner, size, (m,), base, statuses=statuses, **unit_fields)  # type: ignore[arg-type]


def standing(bf: Battlefield, points: Sequence[tuple[float, float]], base: Base, size: int,
             angle: float = 0.0) -> np.ndarray:
    """For each point (NaN allowed): can a model with this base legally end a move there?
    Only the terrain counts: `bf` should hold no units (a survey asks about the table)."""
    out = np.zeros(len(points), dtype=bool)
    if not len(points):
        return out
    unit = probe_unit("probe", "red", (0.0, 0.0), base, size, angle=angle)
    model = unit.models[0]
    for i, p in enumerate(points):
        if math.isnan(p[0]) or math.isnan(p[1]):
            continue
        out[i] = end_position_ok(bf, unit, p, model=model, check_engagement=False).ok
    return out


def levels(bf: Battlefield, points: Sequence[tuple[float, float]], stands: np.ndarray,
           base: Base, size: int) -> list[str]:
    """Elevation level (ground, mid, high) of a model standing at each point; "" where none."""
    out = []
    for p, ok in zip(points, stands.tolist(), strict=True):
        if not ok:
            out.append("")
            continue
        m = Model.make("1", unit="probe", owner="red", at=p, base=base, size=size)
        out.append(elevation_level(bf, m))
    return out


def top_ids(bf: Battlefield, points: Sequence[tuple[float, float]], stands: np.ndarray,
            base: Base, size: int) -> list[str]:
    """Id of the top a model at each point stands on ("" on the mat or where none stands)."""
    out = []
    for p, ok in zip(points, stands.tolist(), strict=True):
        top = None
        if ok:
            top = standing_piece(bf, Model.make("1", unit="probe", owner="red", at=p, base=base,
                                                size=size))
        out.append(top.id if top is not None else "")
    return out


@dataclass(frozen=True)
class ZoneSamples:
    """Points of one zone of influence where a model of the given base can stand."""

    owner: str
    points: tuple[tuple[float, float], ...]
    step: float

    def __len__(self) -> int:
        return len(self.points)


def zone_samples(bf: Battlefield, owner: str, zone: BaseGeometry, step: float, base: Base,
                 size: int) -> ZoneSamples:
    """The zone cut into cells of `step`; a cell's point (as for the probe grid) is kept when
    it lies in the zone (boundary included) and a model can stand there."""
    g = Grid.build(bf.table, step, base)
    keep = g.has_point()
    pts = np.column_stack([g.xs, g.ys])
    inside = np.zeros(len(g), dtype=bool)
    inside[keep] = shapely.covers(zone, shapely.points(pts[keep]))
    cand = [(float(x), float(y)) for x, y in pts[inside]]
    ok = standing(bf, cand, base, size)
    return ZoneSamples(owner, tuple(p for p, k in zip(cand, ok.tolist(), strict=True) if k),
                       float(step))
