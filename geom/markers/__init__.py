"""Markers: contesting and controlling mission markers (rulebook §8.9.1, §6.2 "임무 마커 장악",
keywords FLYING, BURROWED, STRUCTURE; decisions: docs/rules.md#markers-sight).

This wing decides which units contest a marker (on the table, in coherency, not flying,
burrowed or a STRUCTURE, a model within 3" that sees the marker and is at its elevation) and
who controls it: the higher total supply of contesting units, sticky until the other player
beats it; a tie changes nothing, and an unknown supply that would decide it is reported unknown.

Modules:

- `_control`: contest and control (`contests`, `marker_control`, `all_markers`,
  `decide_control`), and a marker's elevation level (`marker_level`).

Imports: the root modules, `geom.sight` and `geom.movement` (before it in the wing order:
tolerance, errors, model, verdict, bases, distance, elevation, lines, engagement, sight,
templates, paths, movement, combat); not `geom.judge`.
"""

from ._control import (
    CONTEST_RANGE,
    all_markers,
    contests,
    decide_control,
    marker_control,
    marker_level,
)

__all__ = [
    "CONTEST_RANGE",
    "all_markers",
    "contests",
    "decide_control",
    "marker_control",
    "marker_level",
]
