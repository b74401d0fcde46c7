"""Which standable tops a ground unit can reach (rulebook §8.5.3, keyword IMPASSABLE TERRAIN,
FAQ "지상 유닛이 이어지지 않은 고지대…" and FAQ 배치 "진입 변이 그 지형에 실제로 닿아 있으면").

A top is a standable piece that is an elevation of its own (`geom.paths._obstacles.is_level`: a ramp, a
piece with access points, or a standable piece of Size 2+). A ground unit can reach a top when

- an **access point** lies on it (§8.5.3: elevation changes only through access points), or
- it is **connected** to a top it can reach (FAQ: ground units move only between connected high
  grounds). **Decision (docs/rules.md#connected-tops):** two tops of the same elevation level
  whose footprints touch or overlap (within 1e-6") are connected; or
- it touches an **entry edge** (FAQ 배치: a unit may deploy straight onto high ground its entry
  edge actually touches).

A top with none of these is one no ground unit can reach: the IMPASSABLE TERRAIN keyword's
"terrain with no access point leading to an adjacent elevation".
**Decision (docs/rules.md#marker-terrain):** any access point on a top makes it reachable,
whatever the access point leads to: layout access points are positions good to ±0.5" (the two
interlocking Lost Temple Ramps of standard map 5 each hold their access point inside the other),
so chains of access points are not followed. Units with Raptor variant (랩터 변종) change
elevation without access points; this is about ordinary ground units.

>>> from shapely.geometry import LineString, box
>>> from geom.model import Battlefield, Table, TerrainPiece
>>> mesa = TerrainPiece("mesa", 3, box(20, 10, 26, 16), standable=True)
>>> hill = TerrainPiece("hill", 3, box(26, 10, 30, 16), standable=True,
...                     access_points=(box(29.5, 12, 30.5, 13),))
>>> sorted(unreachable_tops(Battlefield(Table(54, 36), (mesa,)), []))
['mesa']
>>> unreachable_tops(Battlefield(Table(54, 36), (mesa, hill)), [])
{}
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

import shapely
from shapely.geometry.base import BaseGeometry

from ..model import Battlefield, TerrainPiece
from ..tolerance import AREA_TOLERANCE, TOLERANCE
from ._obstacles import connected_tops, is_level


def _overlaps(a: BaseGeometry, b: BaseGeometry) -> bool:
    return bool(shapely.intersection(a, b).area > AREA_TOLERANCE)


def _has_access(p: TerrainPiece, access: list[BaseGeometry]) -> bool:
    return any(_overlaps(a, p.footprint) for a in access)


def reachable_tops(bf: Battlefield, entry_edges: Iterable[BaseGeometry] = ()
                   ) -> dict[str, str]:
    """Top id -> how a ground unit reaches it (an access point on it, an entry edge it
    touches, or the connected top it is reached through)."""
    access = [a for p in bf.terrain for a in p.access_points]
    edges = [e for e in entry_edges if not e.is_empty]
    how: dict[str, str] = {}
    for p in bf.terrain:
        if not is_level(p):
            continue
        if _has_access(p, access):
            how[p.id] = f"an access point lies on {p.ref}"
        elif any(float(shapely.distance(p.footprint, e)) <= TOLERANCE for e in edges):
            how[p.id] = f"{p.ref} touches an entry edge"
    joined = connected_tops(bf)
    todo = deque(sorted(how))
    while todo:
        x = todo.popleft()
        for y in sorted(joined[x]):
            if y not in how:
                how[y] = f"connected to terrain/{x} (same elevation level, touching)"
                todo.append(y)
    return how


def unreachable_tops(bf: Battlefield, entry_edges: Iterable[BaseGeometry] = ()
                     ) -> dict[str, str]:
    """Top id -> why no ground unit can reach it."""
    reached = reachable_tops(bf, entry_edges)
    return {p.id: (f"{p.ref} has no access point, is connected to no reachable top of its "
                   "elevation level and touches no entry edge")
            for p in bf.terrain if is_level(p) and p.id not in reached}
