"""Official deployment cards and map layouts as data (rulebook §5.6,
§9.2, §9.3 and the map-layout pages), with loaders that return `geom.model` objects.

>>> [c for c in deployment_ids() if c == "gauntlet"]
['gauntlet']
"""

from __future__ import annotations

from .loader import (
    DEPLOYMENT_ZONE_DEPTH,
    LayoutData,
    PhysicalPiece,
    battlefield_by_name,
    default_entry_edges,
    deployment_ids,
    deployment_info,
    layout_groups,
    layout_ids,
    load_deployment,
    load_layout,
    physical_pieces,
    piece_groups,
    quarters,
    zone_of_influence,
)

__all__ = [
    "DEPLOYMENT_ZONE_DEPTH", "LayoutData", "PhysicalPiece", "battlefield_by_name",
    "default_entry_edges", "deployment_ids", "deployment_info", "layout_groups", "layout_ids",
    "load_deployment", "load_layout", "physical_pieces", "piece_groups", "quarters",
    "zone_of_influence",
]
