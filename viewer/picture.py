"""Pictures of a scene as files: PNG (drawn by OpenGL off screen) or SVG (vector), chosen by
the file's extension; the whole table, or a close-up of a box of it with an inset of the whole
table. `tmg render` and any other caller (survey heatmaps) go through `write_picture`:

    scene = build_scene(bf, [OverlayLayer(prims, legend, info)], title=...)
    frame = write_picture(scene, "out.svg", width=1600, box=(x0, y0, x1, y1))

Both files are written atomically. Pure except for the PNG path, which needs OpenGL.
"""

from __future__ import annotations

import math
from pathlib import Path

from geom.errors import TmgError
from geom.model import Table

from . import draw, png, svg
from . import style as st
from .layout import Frame, frame_for_box, frame_for_width
from .scene import Scene, grid_lines

SUFFIXES = (".png", ".svg")
Box = tuple[float, float, float, float]


def around(table: Table, bounds: Box, radius: float) -> Box:
    """The close-up box: `bounds` (of a model, unit, piece or point) grown by `radius` inches,
    kept on the table (and 1" beyond it, so an edge stays in view)."""
    if not (math.isfinite(radius) and radius > 0):
        raise TmgError(f"--radius must be a positive number of inches, got {radius:g}")
    x0, y0, x1, y1 = bounds
    box = (max(x0 - radius, -1.0), max(y0 - radius, -1.0), min(x1 + radius, table.width + 1.0),
           min(y1 + radius, table.depth + 1.0))
    if not (box[2] > box[0] and box[3] > box[1]):
        raise TmgError("the close-up lies off the table")
    return box


def prepare_closeup(scene: Scene, box: Box) -> None:
    """Add to the scene what a close-up shows besides: a 1" grid over the box, and a line
    saying where the close-up is."""
    scene.prims += grid_lines(scene.table, 1.0, st.GRID_MINOR, st.GRID_WIDTH * 0.6, "grid1",
                              box)
    x0, y0, x1, y1 = box
    scene.info.insert(0, f'Close-up of x {x0:g}–{x1:g}", y {y0:g}–{y1:g}" (the red frame in the '
                         "inset of the whole table); faint lines every inch")


def frame_of(scene: Scene, width: int, box: Box | None = None, inset: bool = True) -> Frame:
    if box is None:
        return frame_for_width(scene, width)
    return frame_for_box(scene, box, width, inset)


def write_picture(scene: Scene, path: str | Path, width: int = 1600, box: Box | None = None,
                  inset: bool = True) -> Frame:
    """Draw the scene into `path` (.png or .svg); with `box`, a close-up (see
    `prepare_closeup`). Returns the frame (its size, transform and placed labels)."""
    out = Path(path)
    suffix = out.suffix.lower()
    if suffix not in SUFFIXES:
        raise TmgError(f"the output must be a .png or .svg file, got {str(path)!r}")
    try:
        is_dir = out.is_dir()
    except OSError as exc:  # a name too long for the file system: refused before drawing
        raise TmgError(f"cannot write {path}: {exc.strerror or exc}") from None
    if is_dir:
        raise TmgError(f"the output {str(path)!r} is a directory")
    if box is not None:
        prepare_closeup(scene, box)
    frame = frame_of(scene, width, box, inset)
    if suffix == ".svg":
        svg.write(out, scene, frame)
        return frame
    with draw.Offscreen() as off:
        picture = off.render(scene, frame)
    png.write(out, picture.top_down())
    return frame
