"""Drawing a `Frame` with pyglet 2: triangles for areas, quads for strokes, labels for text,
on screen (the viewer window) or off screen into a framebuffer object (`tmg render`).

Nothing here decides what is drawn or where: `viewer.scene` does, in pixels. Off-screen
pictures are drawn k times larger and averaged down (supersampling), which smooths edges and
text without relying on multisampling support.

pyglet is imported where it is used, never at this module's import: importing `pyglet.gl`
makes an OpenGL context (its shadow window), and it costs ~0.2 s, which an SVG picture or a
bad option must not pay. `backend.configure()` runs first (it chooses headless EGL when there
is no display, which must happen before pyglet's window module is first imported).
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from geom.errors import TmgError

from . import backend
from . import style as st
from .labels import Placed
from .layout import Frame, inset_prims
from .scene import Area, Prim, Scene, Stroke, Text, Transform
from .strokes import DASH_GAP, dash_segments, segment_quads, stroke_pixels

if TYPE_CHECKING:
    import pyglet
    from pyglet.graphics import Batch, Group

FONT = "DejaVu Sans"
SCREEN_LAYER = 1000
INSET_LAYER = 2 * SCREEN_LAYER  # the inset of a close-up: above the panels and furniture


@cache
def mesh_type() -> Any:
    """`Mesh(vertices, colour, batch, group)`: plain triangles in one colour (the stock Polygon
    cannot have holes). A pyglet shape, so the class is made at first use (see above)."""
    backend.configure()
    from pyglet import shapes

    class Mesh(shapes.ShapeBase):
        def __init__(self, vertices: Sequence[float], colour: tuple[int, int, int, int],
                     batch: Batch | None = None, group: Group | None = None) -> None:
            self._coords = list(vertices)
            self._rgba = colour
            super().__init__(len(self._coords) // 2, batch=batch, group=group)

        def _create_vertex_list(self) -> None:
            n = self._num_verts
            self._vertex_list = self._program.vertex_list(  # type: ignore[assignment]
                n, self._draw_mode, self._batch, self._group,  # type: ignore[arg-type]
                position=("f", self._coords), colors=("Bn", self._rgba * n),
                translation=("f", (0.0, 0.0) * n), rotation=("f", (0.0,) * n))

        def _update_vertices(self) -> None:
            self._vertex_list.position[:] = self._coords  # type: ignore[attr-defined]

    return Mesh


class Drawing:
    """A Frame turned into a pyglet Batch (keep the object alive while drawing)."""

    def __init__(self, frame: Frame, scene: Scene) -> None:
        backend.configure()
        from pyglet import shapes
        from pyglet.graphics import Batch

        self.batch = Batch()
        self.frame = frame
        self._keep: list[Any] = []
        self._groups: dict[int, Group] = {}
        self.labels: list[tuple[Placed, pyglet.text.Label]] = []
        tr = frame.transform
        for p in scene.prims:
            self._add(p, tr, frame.u)
        panel_group = self._group(SCREEN_LAYER - 1)
        for x0, y0, x1, y1 in frame.panels:
            self._keep.append(shapes.Rectangle(x0, y0, x1 - x0, y1 - y0, color=st.BACKGROUND,
                                               batch=self.batch, group=panel_group))
        for p in frame.screen:
            self._add(p, None, frame.u, screen=True)
        for inset in frame.insets:
            for p in inset_prims(scene, inset, frame.u):
                self._add(p, None, frame.u, base=INSET_LAYER)
        for pl in frame.texts:
            self._label(pl, screen=pl.screen)

    def _group(self, order: int) -> Group:
        from pyglet.graphics import Group

        g = self._groups.get(order)
        if g is None:
            g = self._groups[order] = Group(order=order)
        return g

    def _add(self, p: Prim, tr: Transform | None, u: float, screen: bool = False,
             base: int = 0) -> None:
        order = (SCREEN_LAYER if screen else base) + p.layer * 3
        Mesh = mesh_type()
        if isinstance(p, Area):
            tris = p.triangles if tr is None else tr.apply(p.triangles)
            if len(tris):
                self._keep.append(Mesh(tris.reshape(-1).tolist(), p.colour, self.batch,
                                       self._group(order)))
        elif isinstance(p, Stroke):
            pts = stroke_pixels(p, tr, u)
            if p.dash:
                segs = dash_segments(pts, p.dash * u, p.dash * u * DASH_GAP)
            else:
                segs = np.stack([pts[:-1], pts[1:]], axis=1)
            verts = segment_quads(segs, max(1.0, p.width * u))
            if len(verts):
                self._keep.append(Mesh(verts.tolist(), p.colour, self.batch, self._group(order)))
        # world Text is placed by the frame (see Frame.texts)

    def _label(self, pl: Placed, screen: bool) -> None:
        import pyglet
        from pyglet import shapes

        t: Text = pl.text
        base = (SCREEN_LAYER if screen else 0) + t.layer * 3
        label = pyglet.text.Label(
            pl.string, x=pl.x, y=pl.y, anchor_x=pl.anchor_x,  # type: ignore[arg-type]
            anchor_y="center",
            font_name=FONT, font_size=pl.size, dpi=72, weight="bold" if t.bold else "normal",
            color=t.colour, batch=self.batch, group=self._group(base + 2))
        self._keep.append(label)
        self.labels.append((pl, label))
        if t.halo:
            x0, y0, x1, y1 = pl.box
            self._keep.append(shapes.Rectangle(
                x0, y0, x1 - x0, y1 - y0, color=st.HALO, batch=self.batch,
                group=self._group(base + 1)))

    def draw(self) -> None:
        self.batch.draw()


@dataclass
class Picture:
    """A rendered frame: `rgb` is (H, W, 3) uint8 with row 0 at the BOTTOM (pixel y up)."""

    frame: Frame
    rgb: np.ndarray

    def at(self, px: float, py: float) -> tuple[int, int, int]:
        r, g, b = self.rgb[int(math.floor(py)), int(math.floor(px))]
        return (int(r), int(g), int(b))

    def top_down(self) -> np.ndarray:
        return np.ascontiguousarray(self.rgb[::-1])


class Offscreen:
    """An OpenGL context (hidden window or headless EGL) that draws frames into a framebuffer."""

    def __init__(self) -> None:
        self.window = backend.make_window(width=16, height=16, visible=False)
        from pyglet import gl

        v = gl.GLint()
        gl.glGetIntegerv(gl.GL_MAX_RENDERBUFFER_SIZE, v)
        self.max_size = int(v.value)
        gl.glGetIntegerv(gl.GL_MAX_TEXTURE_SIZE, v)
        self.max_size = min(self.max_size, int(v.value))

    def close(self) -> None:
        self.window.close()

    def __enter__(self) -> Offscreen:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def render(self, scene: Scene, frame: Frame, supersample: int = 2) -> Picture:
        """Draw the frame off screen. With `supersample` 2 the picture is drawn twice as large
        and halved by the GPU: a linear-filtered blit at exactly half size samples the corner
        of each 2×2 block, i.e. the mean of its four pixels (`box_filter` is the reference)."""
        import pyglet
        from pyglet import gl
        from pyglet.math import Mat4

        if frame.width < 1 or frame.height < 1:
            raise TmgError("picture has no size")
        if supersample not in (1, 2):
            raise ValueError("supersample must be 1 or 2")
        if max(frame.width, frame.height) > self.max_size:
            raise TmgError(f"picture {frame.width}x{frame.height} px is larger than this "
                           f"OpenGL allows ({self.max_size} px)")
        k = supersample if max(frame.width, frame.height) * supersample <= self.max_size else 1
        big = frame.scaled(k) if k > 1 else frame
        w, h = big.width, big.height
        self.window.switch_to()
        targets = [(w, h)] + ([(frame.width, frame.height)] if k > 1 else [])
        texs = [pyglet.image.Texture.create(tw, th) for tw, th in targets]
        fbos = [pyglet.image.Framebuffer() for _ in texs]
        for fb, tx in zip(fbos, texs, strict=True):
            fb.attach_texture(tx)
        old_projection, old_view = self.window.projection, self.window.view
        fbos[0].bind()
        try:
            gl.glViewport(0, 0, w, h)
            self.window.projection = Mat4.orthogonal_projection(0, w, 0, h, -8192, 8192)
            self.window.view = Mat4()
            c = st.BACKGROUND
            gl.glClearColor(c[0] / 255, c[1] / 255, c[2] / 255, 1.0)
            gl.glClear(gl.GL_COLOR_BUFFER_BIT)
            drawing = Drawing(big, scene)
            drawing.draw()
            del drawing
            if k > 1:
                gl.glBindFramebuffer(gl.GL_READ_FRAMEBUFFER, fbos[0].id)
                gl.glBindFramebuffer(gl.GL_DRAW_FRAMEBUFFER, fbos[1].id)
                gl.glBlitFramebuffer(0, 0, w, h, 0, 0, frame.width, frame.height,
                                     gl.GL_COLOR_BUFFER_BIT, gl.GL_LINEAR)
                gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, fbos[1].id)
            arr = read_pixels(frame.width, frame.height)
        finally:
            gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, 0)
            self.window.projection, self.window.view = old_projection, old_view
            for fb in fbos:
                fb.delete()
            for tx in texs:
                tx.delete()
        return Picture(frame, arr)


def read_pixels(w: int, h: int) -> np.ndarray:
    """The bound framebuffer's (h, w, 3) pixels, row 0 at the bottom."""
    from pyglet import gl

    arr = np.empty((h, w, 4), dtype=np.uint8)
    gl.glPixelStorei(gl.GL_PACK_ALIGNMENT, 1)
    gl.glReadPixels(0, 0, w, h, gl.GL_RGBA, gl.GL_UNSIGNED_BYTE,
                    arr.ctypes.data_as(ctypes.POINTER(gl.GLubyte)))
    return np.ascontiguousarray(arr[:, :, :3])


def box_filter(arr: np.ndarray, k: int) -> np.ndarray:
    """Reference downsampling: each output pixel is the rounded mean of a k×k block."""
    h, w = arr.shape[0] // k, arr.shape[1] // k
    acc = np.zeros((h, w, arr.shape[2]), dtype=np.uint32)
    for i in range(k):
        for j in range(k):
            acc += arr[i::k, j::k][:h, :w]
    return ((acc + k * k // 2) // (k * k)).astype(np.uint8)
