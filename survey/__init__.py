"""Surveys: a whole table at once — exposure, safe area, mission markers and charge threat over a
grid of probe points (rulebook §5.6 zones of influence, §7.1–§7.1.4 sight and cover, §8.7.7
charges, §8.9.1 markers; docs/survey.md).

The survey is an application of the engine, not a rule: it decides no geometry of its own.
Every sample pair is decided exactly by the engine's own sight and charge; this package cuts
the work into coarse tasks that pickle, runs them on any `concurrent.futures`-style executor
(a process pool, a Dask cluster) or in this process, keeps the costly per-table parts once per
process, and puts the results back together in tile order, so the answer is the same whatever
runs it.

Modules:

- `_survey`: planning, running and assembling a survey (`plan`, `run`, `run_task`,
  `SurveyResult`);
- `_job`: what a survey asks (`SurveyJob`, `SurveySpec`) and the table prepared once per
  process (`prepared`);
- `_grid`: the grid of probe points and the samples of each zone of influence (`Grid`,
  `zone_samples`, `check_grid`);
- `_sight`: the measures sight decides — exposure, safe area, the markers' exposure and
  contest reach (`exposure_tile`, `markers_task`);
- `_charge`: the measure charges decide — the smallest roll that charges each point
  (`charge_tile`, `best_charge`);
- `_summary`: the summaries of a survey (`summarise`, `stats`, `safe_share`).

Imports: the engine only (`geom` and its wings' faces), never the command line, the service,
the viewer or the web view; beside `formats/`, nothing in the engine imports it.
"""

from ._charge import (
    best_charge,
    lower_bounds,
)
from ._grid import (
    MAX_GRID_POINTS,
    Grid,
    check_grid,
    half_extents,
    levels,
    probe_unit,
    standing,
    zone_samples,
)
from ._job import (
    CHARGE_THREAT,
    EXPOSURE,
    MARKERS,
    MEASURES,
    SAFE_AREA,
    Charger,
    Prepared,
    Probe,
    SurveyJob,
    SurveySpec,
    high_ground,
    prepare,
    prepared,
)
from ._summary import (
    stats,
)
from ._survey import (
    SurveyResult,
    estimated_pairs,
    plan,
    run,
)

__all__ = [
    "CHARGE_THREAT",
    "Charger",
    "EXPOSURE",
    "Grid",
    "MARKERS",
    "MAX_GRID_POINTS",
    "MEASURES",
    "Prepared",
    "Probe",
    "SAFE_AREA",
    "SurveyJob",
    "SurveyResult",
    "SurveySpec",
    "best_charge",
    "check_grid",
    "estimated_pairs",
    "half_extents",
    "high_ground",
    "levels",
    "lower_bounds",
    "plan",
    "prepare",
    "prepared",
    "probe_unit",
    "run",
    "standing",
    "stats",
    "zone_samples",
]
