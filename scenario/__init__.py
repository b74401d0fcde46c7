"""Scenario files and the unit catalogue (the data layer above `maps`): read a scenario
(`load`, `parse_document`), check it, write it back, and resolve command-line references.

Layers point down only: `geom` (engine) ← `formats` ← `maps` ← `scenario` ← `tmg`, `viewer`.

>>> bf = load("standard-1")
>>> bf.table.width, bf.table.depth
(54, 36)
"""

from __future__ import annotations

from .load import (
    FORMAT,
    ScenarioError,
    check_battlefield,
    document,
    is_official_name,
    load,
    parse_document,
    parse_with_deployment,
    read_document,
)

__all__ = ["FORMAT", "ScenarioError", "check_battlefield", "document", "is_official_name",
           "load", "parse_document", "parse_with_deployment", "read_document"]
