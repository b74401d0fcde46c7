"""Whole-table survey of a layout and a deployment card: exposure, safe area, mission markers and
charge threat over a grid of probe points (rulebook §5.6 zones of influence, §7.1–§7.1.4 sight
and cover, §8.7.7 charges, §8.9.1 markers; the measures are defined in `survey._sight` and
`survey._charge`, the grid in `survey._grid`).

Each measure is decided exactly per sample pair by the engine's own sight and charge; nothing is
sampled within a pair. The work is cut into coarse tasks — one job (layout × card) × one
measure × one tile of consecutive grid cells — that any `concurrent.futures`-style executor
(`submit`) runs, or none (in this process). Tiles depend only on the job, never on the number
of workers, and results are put back together in tile order, so the answer is the same
whatever runs it.

>>> from geom.model import Battlefield, Deployment, Table, TerrainPiece
>>> from shapely.geometry import box
>>> from survey import SurveySpec
>>> t = Table(24, 12)
>>> dep = Deployment("d", "D", t, zones={"red": box(0, 0, 24, 3), "blue": box(0, 9, 24, 12)})
>>> wall = TerrainPiece("wall", 3, box(4, 5, 20, 7))
>>> job = SurveyJob.make(Battlefield(t, (wall,), deployment=dep),
...                      SurveySpec(step=2.0, zone_step=2.0, measures=(EXPOSURE,)), "t", "d")
>>> r = run([job])[0]
>>> s = r.summary()["exposure"]
>>> round(s["min"], 3), round(s["max"], 3), 0 < s["safe_area"] < 1
(0.0, 1.0, True)
"""

from __future__ import annotations

import concurrent.futures as cf
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from geom.model import Battlefield

from ._charge import charge_tile
from ._grid import Grid, ZoneSamples, levels, top_ids
from ._job import (
    CHARGE_THREAT,
    EXPOSURE,
    MARKERS,
    MEASURES,
    SAFE_AREA,
    Prepared,
    SurveyJob,
    prepare,
    prepared,
)
from ._sight import exposure_tile, markers_task
from ._summary import summarise

PAIRS_PER_TASK = 12_000  # sight pairs in one exposure task (≥0.5 s on this engine)
CHARGE_CELLS_PER_TASK = 24  # grid cells in one charge-threat task
MIN_CELLS_PER_TASK = 16


class Executor(Protocol):
    """What the survey needs of an executor (concurrent.futures, `dask.distributed`'s
    `Client.get_executor()`, …)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any) -> Any: ...


@dataclass(frozen=True)
class Task:
    """One coarse piece of work: a job's measure over grid cells [start, stop)."""

    job: SurveyJob
    measure: str  # exposure (also serves safe-area) | markers | charge-threat
    tile: int
    start: int
    stop: int


@dataclass(frozen=True)
class TileResult:
    key: str
    measure: str
    tile: int
    start: int
    stop: int
    data: Any
    process: int = 0  # id of the process that ran it (to see where work went)


def run_task(task: Task) -> TileResult:
    """Run one task (in whatever process the executor chose)."""
    prep = prepared(task.job)
    data: Any
    if task.measure == EXPOSURE:
        data = exposure_tile(prep, task.start, task.stop)
    elif task.measure == CHARGE_THREAT:
        data = charge_tile(prep, task.start, task.stop)
    elif task.measure == MARKERS:
        data = markers_task(prep)
    else:  # pragma: no cover - plan() makes only the three
        raise ValueError(task.measure)
    return TileResult(task.job.key, task.measure, task.tile, task.start, task.stop, data,
                      os.getpid())


def _zone_cells(job: SurveyJob) -> int:
    """Zone samples before the standing check: enough to size tiles, and cheap."""
    dep = job.bf.deployment
    assert dep is not None
    import shapely

    g = Grid.build(job.bf.table, job.spec.zone_step, job.spec.viewer.base)
    ok = g.has_point()
    pts = shapely.points(np.column_stack([g.xs, g.ys])[ok])
    return int(sum(int(np.count_nonzero(shapely.covers(z, pts))) for z in dep.zones.values()))


def plan(job: SurveyJob) -> list[Task]:
    """The job's tasks, in a fixed order that depends only on the job."""
    spec = job.spec
    n = len(Grid.build(job.bf.table, spec.step, spec.probe.base))
    tasks: list[Task] = []
    if EXPOSURE in spec.measures or SAFE_AREA in spec.measures:
        per = spec.tile_cells or max(MIN_CELLS_PER_TASK,
                                     -(-PAIRS_PER_TASK // max(1, _zone_cells(job))))
        tasks += _tiles(job, EXPOSURE, n, per)
    if CHARGE_THREAT in spec.measures:
        tasks += _tiles(job, CHARGE_THREAT, n, spec.tile_cells or CHARGE_CELLS_PER_TASK)
    if MARKERS in spec.measures and job.bf.markers:
        tasks.append(Task(job, MARKERS, 0, 0, n))
    return tasks


def _tiles(job: SurveyJob, measure: str, n: int, per: int) -> list[Task]:
    return [Task(job, measure, i, a, min(n, a + per)) for i, a in enumerate(range(0, n, per))]


def estimated_pairs(jobs: Sequence[SurveyJob]) -> int:
    """Sight pairs the jobs' exposure will decide (before the standing checks): a size for
    choosing between this process and a cluster."""
    total = 0
    for job in jobs:
        if EXPOSURE in job.spec.measures or SAFE_AREA in job.spec.measures:
            total += len(Grid.build(job.bf.table, job.spec.step, job.spec.probe.base)) * \
                _zone_cells(job)
        if CHARGE_THREAT in job.spec.measures:
            total += 300 * len(Grid.build(job.bf.table, job.spec.step, job.spec.probe.base))
    return total


Progress = Callable[[int, int], None]


def run(jobs: Sequence[SurveyJob], executor: Executor | None = None,
        progress: Progress | None = None) -> list[SurveyResult]:
    """Survey every job; `executor` runs the tasks (None: in this process, one after the
    other); `progress(done, total)` is called as tasks finish."""
    tasks = [t for job in jobs for t in plan(job)]
    total = len(tasks)
    if progress:
        progress(0, total)
    results: list[TileResult]
    if executor is None:
        results = []
        for i, t in enumerate(tasks):
            results.append(run_task(t))
            if progress:
                progress(i + 1, total)
    else:
        futures = [executor.submit(run_task, t) for t in tasks]
        # while the workers work, this process lays out each job's grid for putting the
        # tiles together (no sight context: that is the workers' business)
        preps = {job.key: prepare(job) for job in jobs}
        if progress and all(isinstance(f, cf.Future) for f in futures):
            for i, _ in enumerate(cf.as_completed(futures)):
                progress(i + 1, total)
        results = [f.result() for f in futures]
    by_job: dict[str, list[TileResult]] = {}
    for r in results:
        by_job.setdefault(r.key, []).append(r)
    if executor is None:
        return [assemble(job, by_job.get(job.key, [])) for job in jobs]
    return [assemble(job, by_job.get(job.key, []), preps[job.key]) for job in jobs]


# --------------------------------------------------------------------------- results


@dataclass
class SurveyResult:
    """A job's answers. `columns`: one value per grid cell (NaN where no probe stands or the
    measure was not asked); `markers`: one entry per marker (see `survey_sight.markers_task`)."""

    job: SurveyJob
    grid: Grid
    stands: np.ndarray
    level: list[str]
    top: list[str]
    zones: dict[str, ZoneSamples]
    columns: dict[str, np.ndarray] = field(default_factory=dict)
    markers: list[dict[str, Any]] = field(default_factory=list)
    charge_starts: dict[str, ZoneSamples] = field(default_factory=dict)
    processes: frozenset[int] = frozenset()  # ids of the processes that ran its tasks

    @property
    def bf(self) -> Battlefield:
        return self.job.bf

    @property
    def owners(self) -> tuple[str, ...]:
        return self.job.owners

    @property
    def measures(self) -> tuple[str, ...]:
        return tuple(m for m in MEASURES if m in self.job.spec.measures
                     and (m != MARKERS or self.bf.markers))

    def cell_areas(self) -> np.ndarray:
        c = self.grid.cells()
        return (c[:, 2] - c[:, 0]) * (c[:, 3] - c[:, 1])

    def contest_markers(self) -> list[list[int]]:
        """Per cell: the ids of the markers a probe there contests."""
        out: list[list[int]] = [[] for _ in range(len(self.grid))]
        for m in self.markers:
            for k in m["contest_cells"]:
                out[k].append(m["id"])
        return out

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per measure: `mean`, `min`, `max` (over the points where a probe stands, and both
        zones), `safe_area` where it applies, and the same per zone under `by_zone`."""

        return summarise(self)


def assemble(job: SurveyJob, tiles: list[TileResult], prep: Prepared | None = None
             ) -> SurveyResult:
    """The job's result from its tiles (in any order)."""
    prep = prep or prepared(job)
    grid, stands = prep.grid, prep.stands
    pts = [grid.point(k) for k in range(len(grid))]
    p = job.spec.probe
    res = SurveyResult(job, grid, stands, levels(job.bf, pts, stands, p.base, p.size),
                       top_ids(job.bf, pts, stands, p.base, p.size), dict(prep.zones))
    n = len(grid)
    tiles = sorted(tiles, key=lambda r: (MEASURES.index(r.measure), r.tile))
    raw: dict[str, np.ndarray] = {}
    for t in tiles:
        if t.measure == MARKERS:
            res.markers = list(t.data)
            continue
        for name, arr in t.data.items():
            col = raw.setdefault(f"{t.measure}:{name}", np.full(n, np.nan))
            col[t.start:t.stop] = arr
    for owner in job.owners:
        if f"{EXPOSURE}:seen_{owner}" in raw:
            total = len(prep.zones[owner])
            seen = raw[f"{EXPOSURE}:seen_{owner}"]
            cover = raw[f"{EXPOSURE}:cover_{owner}"]
            ok = stands & (seen >= 0)
            for name, v in ((f"exposure_{owner}_zone", seen),
                            (f"exposure_{owner}_zone_cover", cover),
                            (f"exposure_{owner}_zone_open", seen - cover)):
                col = np.full(n, np.nan)
                if total:
                    col[ok] = v[ok] / total
                res.columns[name] = col
            safe = np.full(n, np.nan)
            safe[ok] = (seen[ok] == 0).astype(float)
            res.columns[f"safe_{owner}_zone"] = safe
            res.columns[f"seen_{owner}_zone"] = np.where(ok, seen, np.nan)
        if f"{CHARGE_THREAT}:roll_{owner}" in raw:
            roll = raw[f"{CHARGE_THREAT}:roll_{owner}"]
            ok = stands & (roll >= 0)
            res.columns[f"charge_roll_{owner}_zone"] = np.where(ok & (roll > 0), roll, np.nan)
            res.columns[f"charge_distance_{owner}_zone"] = raw[f"{CHARGE_THREAT}:distance_{owner}"]
            res.columns[f"charge_start_{owner}_zone"] = np.where(
                raw[f"{CHARGE_THREAT}:start_{owner}"] >= 0, raw[f"{CHARGE_THREAT}:start_{owner}"],
                np.nan)
            res.columns[f"charge_uncertain_{owner}_zone"] = np.where(
                ok, raw[f"{CHARGE_THREAT}:uncertain_{owner}"], np.nan)
            res.columns[f"charge_reach_{owner}_zone"] = np.where(ok, (roll > 0).astype(float),
                                                                 np.nan)
    for m in res.markers:
        for owner in job.owners:
            if owner not in m["contest_seen"]:
                seen = res.columns[f"seen_{owner}_zone"]
                m["contest_seen"][owner] = [int(seen[k]) for k in m["contest_cells"]]
    if CHARGE_THREAT in job.spec.measures:
        res.charge_starts = dict(prep.charge_starts)
    res.processes = frozenset(t.process for t in tiles)
    return res


