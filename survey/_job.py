"""What a survey asks, and the table prepared once per process to answer it (rulebook §5.6 zones
of influence, §7.1 sight, §8.7.7 charges, §8.9.1 markers).

A `SurveyJob` is one battlefield (terrain, a deployment card's zones of influence and markers;
the survey ignores units) with a `SurveySpec` (grid steps, the probe model, the measures, the
charging unit type). Jobs are plain frozen data that pickle, so any executor — a process
pool, a Dask cluster — can carry them to its workers; `prepared(job)` builds the costly parts
(the sight context, the probe grid and who stands where, the zone samples) once per process
and keeps them for every task of that job.

>>> from geom.model import Battlefield, Deployment, Table
>>> from shapely.geometry import box
>>> t = Table(24, 12)
>>> dep = Deployment("d", "D", t, zones={"red": box(0, 0, 24, 6), "blue": box(0, 6, 24, 12)})
>>> job = SurveyJob.make(Battlefield(t, deployment=dep), SurveySpec(step=2.0), "t", "d")
>>> p = prepared(job)
>>> len(p.grid), int(p.stands.sum()), {o: len(z) for o, z in p.zones.items()}
(72, 72, {'blue': 36, 'red': 36})
"""

from __future__ import annotations

import hashlib
import pickle
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
import shapely

from geom.elevation import base_on_high_ground, level_of_size, piece_effective_size
from geom.errors import TmgError
from geom.model import Base, Battlefield, Model, Speed, Unit
from geom.sight import SightContext
from geom.tolerance import TOLERANCE

from ._grid import Grid, ZoneSamples, check_grid, probe_unit, standing, zone_samples

EXPOSURE, SAFE_AREA, MARKERS, CHARGE_THREAT = "exposure", "safe-area", "markers", "charge-threat"
MEASURES = (EXPOSURE, SAFE_AREA, MARKERS, CHARGE_THREAT)


@dataclass(frozen=True)
class Probe:
    """The model a survey stands on each grid point (or in the zones): a base, a Size, and
    whether it is HIDDEN (then it is seen from no farther than 4")."""

    base: Base = Base.from_mm(32)
    size: int = 2
    hidden: bool = False

    def describe(self) -> str:
        mm = self.base.mm()
        b = "x".join(f"{v:g}" for v in mm) if isinstance(mm, list) else f"{mm:g}"
        return f"Size {self.size}, {b} mm base" + (", HIDDEN" if self.hidden else "")


@dataclass(frozen=True)
class Charger:
    """The unit type whose charge threat is surveyed (from the catalogue, via the front end):
    Speed (the unit's normal Speed: a unit of several models), base, Size, abilities."""

    type: str
    base: Base
    size: int
    speed: int
    modifier: float = 0.0
    large: bool = False
    abilities: frozenset[str] = frozenset()

    def unit(self, owner: str, at: tuple[float, float]) -> Unit:
        return probe_unit("charger", owner, at, self.base, self.size, speed=Speed(self.speed),
                          large=self.large, abilities=self.abilities, type=self.type)


@dataclass(frozen=True)
class SurveySpec:
    """`step`: probe grid (inches); `zone_step`: zone samples; `observer`: the model standing
    at each zone sample (default: like the probe, never hidden); `measures` from MEASURES;
    `tile_cells`: grid cells per task (None: sized so that a task takes about a second)."""

    step: float = 1.0
    zone_step: float = 2.0
    probe: Probe = Probe()
    observer: Probe | None = None
    measures: tuple[str, ...] = (EXPOSURE, SAFE_AREA, MARKERS)
    charger: Charger | None = None
    tile_cells: int | None = None

    @property
    def viewer(self) -> Probe:
        return self.observer or replace(self.probe, hidden=False)


@dataclass(frozen=True)
class SurveyJob:
    """One battlefield × one spec. Build with `make`, which drops the units and checks that
    the battlefield has a deployment with two zones of influence."""

    bf: Battlefield
    spec: SurveySpec
    layout: str
    deployment: str
    key: str

    @classmethod
    def make(cls, bf: Battlefield, spec: SurveySpec, layout: str, deployment: str) -> SurveyJob:
        dep = bf.deployment
        if dep is None or len(dep.zones) != 2:
            raise TmgError("a survey needs a deployment card with two zones of influence "
                           "(give --deployment CARD)", obj=layout)
        bad = [m for m in spec.measures if m not in MEASURES]
        if bad:
            raise TmgError(f"unknown measure {bad[0]!r} (measures: {', '.join(MEASURES)})",
                           obj="--measure")
        if CHARGE_THREAT in spec.measures and spec.charger is None:
            raise TmgError("the charge threat needs a unit type (--unit TYPE)", obj="--measure")
        check_grid(bf.table, spec.step, spec.zone_step)
        if spec.tile_cells is not None and spec.tile_cells < 1:
            raise TmgError(f"a task needs at least one cell, got {spec.tile_cells}",
                           obj="tile_cells")
        bare = replace(bf, units=())
        digest = hashlib.sha256(pickle.dumps((bare, spec, layout, deployment))).hexdigest()
        return cls(bare, spec, layout, deployment, f"{layout}|{deployment}|{digest[:16]}")

    @property
    def owners(self) -> tuple[str, ...]:
        assert self.bf.deployment is not None
        return tuple(sorted(self.bf.deployment.zones))

    def other(self, owner: str) -> str:
        return next(o for o in self.owners if o != owner)


@dataclass
class Prepared:
    """A job's table made ready for many questions in one process."""

    job: SurveyJob
    grid: Grid
    stands: np.ndarray
    zones: dict[str, ZoneSamples]

    @cached_property
    def ctx(self) -> SightContext:
        """The sight context, built when a sight question is first asked (the process that
        only puts tiles together never needs it)."""
        return SightContext(self.job.bf)

    @cached_property
    def observers(self) -> dict[str, list[Model]]:
        """The model standing at each sample of each zone (owned by that zone's player)."""
        v = self.job.spec.viewer
        return {o: [probe_unit(f"{o}-zone-{i}", o, p, v.base, v.size).models[0]
                    for i, p in enumerate(z.points)] for o, z in self.zones.items()}

    @cached_property
    def observers_high(self) -> dict[str, np.ndarray]:
        return {o: high_ground(self.job.bf, ms) for o, ms in self.observers.items()}

    @cached_property
    def charge_starts(self) -> dict[str, ZoneSamples]:
        """Where the charging unit's leading model can stand in each zone."""
        c = self.job.spec.charger
        assert c is not None
        dep = self.job.bf.deployment
        assert dep is not None
        return {o: zone_samples(self.job.bf, o, dep.zones[o], self.job.spec.zone_step, c.base,
                                c.size) for o in self.job.owners}

    def probe(self, k: int, owner: str) -> Model:
        """The probe model of cell k, owned by `owner`."""
        p = self.job.spec.probe
        return probe_unit(f"probe-{k}", owner, self.grid.point(k), p.base, p.size,
                          hidden=p.hidden).models[0]


def high_ground(bf: Battlefield, models: list[Model]) -> np.ndarray:
    """§7.1.3 per model: part of its base on high ground (`elevation.base_on_high_ground`,
    asked only of models near a top of effective size 3+)."""
    tops = [p.footprint for p in bf.terrain
            if p.can_stand_on and level_of_size(piece_effective_size(bf, p)) == "high"]
    out = np.zeros(len(models), dtype=bool)
    if not tops or not models:
        return out
    union = shapely.union_all(tops)
    pts = shapely.points([m.at for m in models])
    near = np.asarray(shapely.distance(union, pts)) < np.array([m.base.a for m in models]) + TOLERANCE
    for i in np.nonzero(near)[0].tolist():
        out[i] = base_on_high_ground(bf, models[i])
    return out


_CACHE: OrderedDict[str, Prepared] = OrderedDict()
_CACHE_LOCK = threading.Lock()
_CACHE_SIZE = 4  # jobs kept per process (a worker runs the tasks of a few jobs at a time)


def prepared(job: SurveyJob) -> Prepared:
    """The job's prepared table, built once per process (thread-safe)."""
    with _CACHE_LOCK:
        hit = _CACHE.get(job.key)
        if hit is not None:
            _CACHE.move_to_end(job.key)
            return hit
    p = _prepare(job)
    with _CACHE_LOCK:
        _CACHE[job.key] = p
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return p


def prepare(job: SurveyJob) -> Prepared:
    """The job's table made ready, outside the per-process cache."""
    return _prepare(job)


def _prepare(job: SurveyJob) -> Prepared:
    spec, bf = job.spec, job.bf
    dep = bf.deployment
    assert dep is not None
    grid = Grid.build(bf.table, spec.step, spec.probe.base)
    stands = standing(bf, [grid.point(k) for k in range(len(grid))], spec.probe.base,
                      spec.probe.size)
    v = spec.viewer
    zones = {o: zone_samples(bf, o, dep.zones[o], spec.zone_step, v.base, v.size)
             for o in job.owners}
    return Prepared(job, grid, stands, zones)
