"""Overlays: the engine's answers drawn on the table. Each overlay is a small frozen dataclass
whose `build(bf)` asks one engine module and returns an `OverlayLayer` (primitives, each with
its marking, and the verdict's rule and reason as text). Nothing is decided here: distances,
verdicts, witnesses and blocking pieces all come from `geom`.

- `Measure` — tape measure between two points or bases (§4.1, `geom.distance`);
- `Highlight` — what an answer is about (orange rings);
- `Sight` — line of sight between two models or a model and a marker (§7.1, `geom.sight`);
- `Engagement` — 1" engagement rings and engaged pairs (§7.2, `geom.engagement`);
- `Template` — a blast or flamer template and the models it affects (§8.7.6, `geom.templates`);
- `Coherency` — links and failures (§4.4, `geom.movement`);
- `Reach`, `Move` — where a move can end, the shortest legal path (§8.5.3, `geom.movement`);
- `Charge` — legal charge ends, shortest charge, the ends a roll reaches (§8.7.7, `geom.combat`);
- `Fight`, `Disengage` — close combat ranks, close ranks, casualty order, disengaging
  (§8.8.1, §8.7.5, §8.5.4, `geom.combat`).

They live in `overlay_sight`, `overlay_move` and `overlay_combat`; this module gathers them.

Adding an overlay: a dataclass with `build(bf) -> OverlayLayer` whose primitives carry markings
(`viewer.markings`: add one if the meaning is new), an option in `viewer.options` and a key in
`viewer.interact`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from geom.model import Battlefield, Model, Unit

from .overlay_base import Highlight, Thing, label
from .overlay_combat import Disengage, Fight
from .overlay_move import Charge, Check, Coherency, Move, Reach
from .overlay_sight import Engagement, Measure, Sight, Template, closest_points, sight_verdict
from .scene import OverlayLayer

__all__ = ["Charge", "Check", "Coherency", "Disengage", "Engagement", "Fight", "Highlight",
           "Layers", "Measure", "Move", "Reach", "Sight", "Template", "Thing", "closest_points",
           "label", "rebind", "rebound", "sight_verdict"]

def rebound(value: Any, bf: Battlefield) -> Any:
    """`value` (a model, a unit, or a tuple of them and other things) looked up again by
    reference in `bf`; anything else as it is."""
    if isinstance(value, Model):
        return bf.unit(value.unit).model(value.id)
    if isinstance(value, tuple) and value and not all(isinstance(v, float | int)
                                                      for v in value):
        return tuple(rebound(v, bf) for v in value)
    if isinstance(value, Unit):
        return bf.unit(value.id)
    return value


def rebind(overlay: Any, bf: Battlefield) -> Any:
    """The same question asked of an edited table: models and units it names are looked up
    again by reference (a moved model is asked about where it now is). Raises TmgError when a
    model it names is gone."""
    if not hasattr(overlay, "__dataclass_fields__"):
        return overlay
    changes = {f.name: rebound(getattr(overlay, f.name), bf) for f in fields(overlay)}
    return replace(overlay, **changes)


@dataclass
class Layers:
    """Overlay layers computed once (a click, not a repaint, pays for the engine's work). The
    battlefield is kept with its layers, so its id is never reused for another table."""

    cache: dict[Any, tuple[Battlefield, OverlayLayer]] = field(default_factory=dict)

    def get(self, bf: Battlefield, ov: Any) -> OverlayLayer:
        key = (id(bf), ov)
        if key not in self.cache:
            if len(self.cache) > 256:
                self.cache.clear()
            self.cache[key] = (bf, ov.build(bf))
        return self.cache[key][1]
