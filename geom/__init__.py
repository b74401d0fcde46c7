"""tmg-geometry's engine: exact geometry and rules verdicts for *StarCraft: Tabletop Miniatures
Game* tables. It knows nothing of files, the command line or windows: plain data classes go in,
verdicts (`rule`, `reason`, a witness) come out.

This module is the public API: every name in `__all__` can be imported from `geom` and is
loaded on first use (``import geom`` itself loads nothing else). The engine is cut into wings by
the rules they decide:

- `geom.model` — the table, terrain pieces, models, units, markers, deployment cards (§4.1,
  §5.6, §7.1, §7.3); `geom.errors` (`TmgError`) and `geom.verdict` (`Verdict`).
- `geom.distance` — distances, WITHIN and WHOLLY WITHIN (§4.1, §4.2).
- `geom.elevation` — elevation levels and effective size (§7.1.2, §7.1.4, §8.5.3).
- `geom.engagement` — engagement between models and units (§7.2, §7.2.1).
- `geom.sight` — line of sight, cover, the elevation dead zone and HIDDEN (§7.1–§7.1.4,
  §8.7.3, §8.7.4).
- `geom.templates` — which models a blast or flamer template hits (§8.7.6, §12.8).
- `geom.movement` — moves, end positions, coherency, placement and deployment (§4.3–§4.6,
  §8.5.3, §8.5.5), built on `geom.paths` (shortest legal paths, gap clearance) and
  `geom.lines` (the exact clear-segment kernel sight, engagement and templates share).
- `geom.combat` — charges, close ranks, close combat and disengage (§8.5.4, §8.7.7, §8.8).
- `geom.markers` — contesting and controlling mission markers (§8.9.1).
- `geom.judge` — a judge's check of a declared position after an action (§4.3–§4.6,
  §8.5.3–§8.5.5, §8.7.1).

Lengths are inches; coordinates put (0, 0) at a table corner. A 24" x 12" table with one Size-3
wall across the middle:

>>> from shapely.geometry import box
>>> from geom import Base, Battlefield, Model, Table, TerrainPiece, Unit, line_of_sight
>>> base = Base.from_mm(32)
>>> a = Model.make("1", unit="a", owner="red", at=(4, 6), base=base, size=1)
>>> b = Model.make("1", unit="b", owner="blue", at=(20, 6), base=base, size=1)
>>> bf = Battlefield(Table(24, 12), terrain=(TerrainPiece("wall", 3, box(11, 0, 13, 12)),),
...                  units=(Unit("a", "red", 1, (a,), base), Unit("b", "blue", 1, (b,), base)))
>>> v = line_of_sight(bf, a, b)
>>> v.ok, v.rule, v.details["blocking"]
(False, '7.1.1 full cover', ['wall'])
"""

from __future__ import annotations

import importlib
import sys
import types

# `typing.TYPE_CHECKING` without importing `typing` (a third of `import geom`'s time): type
# checkers take any constant of this name as true.
TYPE_CHECKING = False
if TYPE_CHECKING:  # what a type checker sees; at run time `__getattr__` loads these
    from .combat import all_ranks, charge, disengage, place_close_ranks, removal_order
    from .distance import distance, wholly_within, within
    from .elevation import elevation_level, model_effective_size
    from .engagement import models_engaged, units_engaged
    from .errors import TmgError
    from .judge import check
    from .markers import all_markers
    from .model import (
        Base,
        Battlefield,
        Deployment,
        Marker,
        Model,
        Speed,
        Table,
        TerrainPiece,
        Unit,
    )
    from .movement import check_move, coherency, deploy, place_unit, reach
    from .sight import SightContext, line_of_sight, unit_sight
    from .templates import make_shape, resolve
    from .verdict import Verdict

__all__ = [
    "Base",
    "Battlefield",
    "Deployment",
    "Marker",
    "Model",
    "SightContext",
    "Speed",
    "Table",
    "TerrainPiece",
    "TmgError",
    "Unit",
    "Verdict",
    "all_markers",
    "all_ranks",
    "charge",
    "check",
    "check_move",
    "coherency",
    "deploy",
    "disengage",
    "distance",
    "elevation_level",
    "line_of_sight",
    "make_shape",
    "model_effective_size",
    "models_engaged",
    "place_close_ranks",
    "place_unit",
    "reach",
    "removal_order",
    "resolve",
    "unit_sight",
    "units_engaged",
    "within",
    "wholly_within",
]

# The wing (or root module) whose face exports each public name.
_WING = {
    **dict.fromkeys(("Base", "Battlefield", "Deployment", "Marker", "Model", "Speed", "Table",
                     "TerrainPiece", "Unit"), "model"),
    "TmgError": "errors",
    "Verdict": "verdict",
    **dict.fromkeys(("distance", "within", "wholly_within"), "distance"),
    **dict.fromkeys(("elevation_level", "model_effective_size"), "elevation"),
    **dict.fromkeys(("models_engaged", "units_engaged"), "engagement"),
    **dict.fromkeys(("SightContext", "line_of_sight", "unit_sight"), "sight"),
    **dict.fromkeys(("make_shape", "resolve"), "templates"),
    **dict.fromkeys(("check_move", "coherency", "deploy", "place_unit", "reach"), "movement"),
    **dict.fromkeys(("all_ranks", "charge", "disengage", "place_close_ranks", "removal_order"),
                    "combat"),
    "all_markers": "markers",
    "check": "judge",
}


def __getattr__(name: str) -> object:
    """PEP 562: load a public name's wing the first time the name is asked for."""
    wing = _WING.get(name)
    if wing is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{wing}", __name__), name)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    """The public names (loaded or not) and the module's dunders, not its helpers."""
    return sorted({*__all__, *(n for n in globals() if n.startswith("__"))})


class _Face(types.ModuleType):
    """`geom` itself. Loading a submodule sets the package's attribute of that name; for
    `geom.distance` that would hide the function `distance` behind the module of the same
    name, so a submodule never takes a public name (the module stays importable as
    ``from geom.distance import …``)."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _WING and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Face
