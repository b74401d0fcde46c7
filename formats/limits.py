"""The limits every document and question is held to, in one place (docs/interface.md,
"Limits"). They are far above any real game — a grand offensive table is 72"×36", an army a few
dozen models — and they keep every question on an accepted scenario bounded in time and memory.
Each is checked when a file is read, with a message naming the file, the object and the field.

>>> try:
...     grid_points(54, 36, 0.01)
... except TmgError as exc:
...     print(exc)
--step: 0.01" gives 19,449,001 grid points on a 54x36 table, more than the 250,000 accepted; use a step of at least 0.09"
"""

from __future__ import annotations

import math

from geom.errors import TmgError

MAX_FILE_BYTES = 8 * 1024 * 1024  # a scenario file; the largest official layout is ~40 kB
MAX_DEPTH = 32                    # nesting of tables and lists (the format needs 6)
MAX_TABLE = 144.0                 # inches, either edge (twice a grand offensive table)
MAX_PIECES = 1000                 # terrain pieces on one table (a layout has 20-50)
MAX_UNITS = 200
MAX_MODELS = 500                  # models on one table, all units together
MAX_VERTICES = 1000               # points in one polygon
MAX_SHAPES = 64                   # openings, or access points, of one piece
MAX_TOTAL_VERTICES = 100_000      # points in all polygons of one table
MAX_TEXT = 200                    # characters in an id, a name, a label, a tag or a type
MAX_DESCRIPTION = 20_000          # characters in a scenario's description
MAX_GRID_POINTS = 250_000         # probe points of one survey grid


def grid_points(width: float, depth: float, step: float, what: str = "--step") -> int:
    """The number of probe points of a grid of `step` inches on a `width` × `depth` table;
    a TmgError naming `what` when it is not a positive step or gives more than MAX_GRID_POINTS.
    """
    if not (isinstance(step, int | float) and math.isfinite(step) and step > 0):
        raise TmgError(f"expected a step > 0 in inches, got {step!r}", obj=what)
    n = (math.floor(width / step) + 1) * (math.floor(depth / step) + 1)
    if n > MAX_GRID_POINTS:
        least = math.sqrt(width * depth / MAX_GRID_POINTS)
        raise TmgError(f"{step:g}\" gives {n:,} grid points on a {width:g}x{depth:g} table, more "
                       f"than the {MAX_GRID_POINTS:,} accepted; use a step of at least "
                       f"{math.ceil(least * 100) / 100:g}\"", obj=what)
    return n
