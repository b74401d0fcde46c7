"""Obstacles for a line, seams closed: pieces that touch stop a line as one (rulebook §7.1 line of
sight, §7.2.1 engagement across terrain, §8.7.6 step 3 template lines; FAQ: the long official
walls are several separate pieces; docs/rules.md#seams).

Decision: two pieces whose footprints touch or overlap (within 2e-6") are joined before a line is
tested against them, so no line slips through the zero-width seam between two sections of one
wall. Joining only removes seams — whether each piece blocks at all is still judged piece by
piece, and a join stands only where both of its pieces block. Pieces that do not touch keep their
gaps, however narrow: a 0.1" gap between two walls lets a line through. Sight, engagement and
template lines all take their obstacles from `close_seams`, so the three agree on one table
(movement unions every obstacle before it routes, which closes the same seams).

>>> from shapely.geometry import box
>>> s = close_seams([box(0, 0, 1, 3), box(0, 3, 1, 6), box(5, 0, 6, 1)])
>>> len(s.polys), s.members.tolist()   # the two wall sections touch: one join
(4, [[0, -1], [1, -1], [2, -1], [0, 1]])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely import STRtree
from shapely.geometry.base import BaseGeometry

from ..tolerance import TOLERANCE

SEAM = 2 * TOLERANCE  # footprints this close touch


@dataclass(frozen=True)
class Seamed:
    """The shapes, then one joined shape per touching pair; `members` (n, 2) names the input
    shapes each stands for (−1 pads a single shape's second column)."""

    polys: list[BaseGeometry]
    members: np.ndarray


def closing(a: BaseGeometry, b: BaseGeometry) -> BaseGeometry:
    """a ∪ b with seams narrower than 2·SEAM filled."""
    grow = shapely.union(shapely.buffer(a, SEAM, join_style="mitre"),
                         shapely.buffer(b, SEAM, join_style="mitre"))
    return shapely.buffer(grow, -SEAM, join_style="mitre")


def touching_pairs(shapes: Sequence[BaseGeometry], joinable: np.ndarray | None = None
                   ) -> list[tuple[int, int]]:
    """Pairs i < j of shapes within 2e-6" of each other (both `joinable` when given)."""
    if len(shapes) < 2:
        return []
    geoms = np.empty(len(shapes), dtype=object)
    geoms[:] = list(shapes)
    left, right = STRtree(geoms).query(geoms, predicate="dwithin", distance=SEAM)
    keep = left < right
    if joinable is not None:
        keep &= joinable[left] & joinable[right]
    return sorted(zip(left[keep].tolist(), right[keep].tolist(), strict=True))


def close_seams(shapes: Sequence[BaseGeometry], joinable: np.ndarray | None = None) -> Seamed:
    """The obstacles a line must miss: every shape, and the join of every touching pair."""
    polys = list(shapes)
    members = [(i, -1) for i in range(len(polys))]
    for i, j in touching_pairs(shapes, joinable):
        polys.append(closing(shapes[i], shapes[j]))
        members.append((i, j))
    return Seamed(polys, np.array(members, dtype=np.int64).reshape(-1, 2))


def line_obstacles(shapes: Sequence[BaseGeometry]) -> list[BaseGeometry]:
    """Obstacles for a line when every shape blocks it: the shapes with their seams closed."""
    return close_seams(shapes).polys
