"""A path question answered without a search where a straight leg decides it (rulebook §4.3,
§8.7.7: the shortest legal path; the search itself is `geom.paths._search`).

Every path to an end e is at least as long as the straight line to e, so the cheapest straight
leg from the starts to the question's nearest end bounds every answer from below: when it costs
the bound or more nothing is under the bound, and when it is clear and accepted it is the
answer the search would give.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..model import Point
from ..tolerance import ZERO_LENGTH
from ._freespace import FreeSpace
from ._path import Path, Piece, Segment, polyline
from ._search import Found, Question


def straight_first(fs: FreeSpace, q: Question, starts: Sequence[Point],
                   offsets: Sequence[float], bound: float = math.inf
                   ) -> tuple[bool, Found | None]:
    """The question answered without a search where a straight leg decides it: (True, answer)
    or (True, None: nothing under `bound`) when decided, (False, None) when a search is needed.

    Every path to an end e is at least ``offset + |start − e|`` long, and the cheapest terminal
    from the starts is the nearest end of the question (its terminals hold the point nearest
    to any start). So when that cheapest leg already costs `bound` or more, nothing is under
    the bound; when it is clear and accepted, no path to any end is shorter: it is the answer
    the search would give, up to ties (the same order as the search's heap)."""
    st = q.start_terminals_at(list(starts))
    if st is None or not len(st):
        return False, None
    origin = st.origin if st.origin is not None else np.zeros(len(st), dtype=np.int64)
    leg = np.hypot(*(st.end - st.dep).T) + st.extra
    cost = np.asarray(offsets, dtype=float)[origin] + leg
    c0 = float(cost.min())
    if c0 >= bound:
        return True, None
    m = int(np.nonzero(cost == c0)[0][-1])  # the heap pops the last of equal terminals first
    if not fs.segments_clear(st.dep[m:m + 1], st.end[m:m + 1])[0]:
        return False, None
    o = int(origin[m])
    dep = (float(st.dep[m, 0]), float(st.dep[m, 1]))
    end = (float(st.end[m, 0]), float(st.end[m, 1]))
    pieces: list[Piece] = [Segment(dep, end)] if math.dist(dep, end) > ZERO_LENGTH else []
    path = Path(polyline(pieces, starts[o]), sum(pc.length for pc in pieces), tuple(pieces))
    if not q.accept(None, st, m, path):
        return False, None
    return True, Found(c0, st, m, path, o)
