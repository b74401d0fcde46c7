"""What the engine works out once per battlefield and keeps with it: its prepared state.

No rule of the game lives here; this is the engine's memory. A battlefield never changes (a
moved model makes a new one), so nothing kept here goes stale, and every part of one command —
or, in `tmg serve`, every request about the same table — shares it: the sight context (§7.1),
the navigators and their tangent graphs (§4.3, §4.6), the end sets of a charge (§8.7.7), the
shrunk footprints of the end-position checks (§8.5.3) and the small lookups behind them.

There is one way to get it, `Battlefield.prepared` (a `Prepared` made on first use); it is never
shared between battlefields and there is no module-level cache. Each field is typed and named
for what it keeps; the function that fills a field is the only one that writes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from shapely.geometry.base import BaseGeometry

    from .lines import PreparedObstacles
    from .model import Battlefield, Model, TerrainPiece
    from .movement import ChargeEnds, Placement, TargetZone
    from .paths import EndQuestion, FreeSpace, Navigator
    from .sight import SightContext

    ModelCentres = tuple[list[Model], np.ndarray, np.ndarray]


@dataclass(eq=False)
class Prepared:
    """The prepared state of one battlefield (see the module docstring).

    >>> from geom.model import Battlefield, Table
    >>> bf = Battlefield(Table(24, 12))
    >>> bf.prepared is bf.prepared, bf.prepared.sight is None
    (True, True)
    """

    # geom.bases.piece_boxes: the footprints' bounding boxes, in terrain order
    piece_boxes: np.ndarray | None = None
    # geom.elevation.top_at: the top under a base centre, by point (bounded: TOPS_KEPT)
    tops: dict[tuple[float, float], TerrainPiece | None] = field(default_factory=dict)
    # geom.elevation.base_on_high_ground, by model (§7.1.3)
    high_ground: dict[Model, bool] = field(default_factory=dict)
    # geom.engagement: the blocking pieces between two bases, prepared as line obstacles
    engagement_obstacles: dict[tuple[str, ...], PreparedObstacles] = field(default_factory=dict)
    # geom.sight.SightContext.of: the table prepared for sight questions
    sight: SightContext | None = None
    # geom.paths connected_tops: top id -> the tops of its level that touch it
    connected_tops: dict[str, set[str]] | None = None
    # geom.paths.navigator_for: one navigator per mover (unit, size, clearance, ignored models…)
    navigators: dict[tuple[object, ...], Navigator] = field(default_factory=dict)
    # geom.movement.link_space: where a unit's coherency links may run (§4.4), by what decides
    # its obstacles — the unit, its size, gap clearance and abilities, the enemy models its
    # links may cross — with the gap model the free space builds when first asked
    link_spaces: dict[tuple[object, ...], FreeSpace] = field(default_factory=dict)
    # geom.bases.overlaps_piece: footprints shrunk by the tolerance (end positions, destroyed
    # terrain, the loader)
    shrunk_footprints: dict[str, BaseGeometry] = field(default_factory=dict)
    # geom.movement without: this battlefield less some destroyed or removed pieces
    without: dict[frozenset[str], Battlefield] = field(default_factory=dict)
    # geom.movement models_near: every model, their centres and long semi-axes
    model_centres: ModelCentres | None = None
    # geom.combat: a charge's end sets, by unit, leading model and targets
    charge_ends: dict[tuple[object, ...], ChargeEnds] = field(default_factory=dict)
    # geom.combat: the search question of a charge's end sets, by navigator and end sets
    charge_questions: dict[tuple[object, ...], EndQuestion] = field(default_factory=dict)
    # geom.movement place_rest: a placed model's engagement zone of a target model (by base,
    # angle, flying, target and top: every charge's placement on the table asks them again)
    target_zones: dict[tuple[object, ...], TargetZone | None] = field(default_factory=dict)
    # geom.combat charge: the rest of a unit placed around its leader's end (by unit, leader,
    # end and targets: the next charge on the table mostly ends where this one did)
    placements: dict[tuple[object, ...], Placement] = field(default_factory=dict)
