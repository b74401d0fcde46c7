"""The limits every document and question is held to, in one place (docs/interface.md,
"Limits"). They are far above any real game — a grand offensive table is 72"×36", an army a few
dozen models — and they keep every question on an accepted scenario bounded in time and memory.
Each is checked when a file is read, with a message naming the file, the object and the field.

A survey's grid is limited by the engine itself (`survey.check_grid`: 100,000 cells,
steps of at least 0.1"), the one place that limit lives.
"""

from __future__ import annotations

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

