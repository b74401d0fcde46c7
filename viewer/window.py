"""The pyglet window of `tmg view`: draws the Viewer's scene and forwards mouse and keys to it.

All decisions live in `viewer.interact` (tools, picks, camera) and `viewer.scene` (layout);
this module only turns pyglet events into those calls and redraws when something changed.
"""

from __future__ import annotations

from typing import Any

from . import backend

backend.configure()

import pyglet  # noqa: E402
from pyglet.window import key, mouse  # noqa: E402

from . import interact, style  # noqa: E402
from .draw import Drawing  # noqa: E402
from .interact import Viewer  # noqa: E402
from .layout import Frame, frame_for_window  # noqa: E402

DRAG_PIXELS = 4  # a press that moves less than this is a click

_KEYS = {key.ESCAPE: "escape", key.M: "m", key.L: "l", key.T: "t", key.E: "e", key.F: "f",
         key.HOME: "f", key.R: "r", key.C: "c", key.G: "g", key._0: "0", key._1: "1", key._2: "2",
         key._3: "3", key._4: "4", key._5: "5", key._6: "6"}


class ViewerWindow(pyglet.window.Window):  # type: ignore[misc]
    def __init__(self, viewer: Viewer, width: int = 1400, height: int = 950,
                 visible: bool = True, **kw: Any) -> None:
        self.viewer = viewer
        self._frame: Frame | None = None
        self._drawing: Drawing | None = None
        self._press: tuple[float, float] | None = None
        self._dragged = False
        super().__init__(width=width, height=height, visible=visible, resizable=True,
                         caption=f"tmg view — {viewer.title or viewer.bf.name or 'battlefield'}",
                         **kw)

    # ------------------------------------------------------------------ drawing

    @property
    def frame(self) -> Frame:
        if self._frame is None:
            self._frame = frame_for_window(self.viewer.scene(), self.width, self.height,
                                           self.viewer.camera)
            self._drawing = None
        return self._frame

    def changed(self, scene: bool = False) -> None:
        if scene:
            self.viewer.invalidate()
        self._frame = None
        self._drawing = None

    def on_draw(self) -> None:
        frame = self.frame
        if self._drawing is None:
            self._drawing = Drawing(frame, self.viewer.scene())
        c = style.BACKGROUND
        pyglet.gl.glClearColor(c[0] / 255, c[1] / 255, c[2] / 255, 1.0)
        self.clear()
        self._drawing.draw()

    def on_resize(self, width: int, height: int) -> None:
        super().on_resize(width, height)
        self.changed()

    # ------------------------------------------------------------------ mouse

    def on_mouse_press(self, x: float, y: float, button: int, modifiers: int) -> None:
        self._press = (x, y)
        self._dragged = False

    def on_mouse_drag(self, x: float, y: float, dx: float, dy: float, buttons: int,
                      modifiers: int) -> None:
        if self._press is not None and not self._dragged:
            if abs(x - self._press[0]) + abs(y - self._press[1]) < DRAG_PIXELS:
                return
            self._dragged = True
            dx, dy = x - self._press[0], y - self._press[1]  # catch up with the threshold
        fit = interact.window_fit(self.viewer.scene(), self.width, self.height)
        self.viewer.camera = interact.pan(self.viewer.camera, fit, self.viewer.bf, dx, dy)
        self.changed()

    def on_mouse_release(self, x: float, y: float, button: int, modifiers: int) -> None:
        was_drag, self._press = self._dragged, None
        self._dragged = False
        if was_drag or button != mouse.LEFT:
            return
        if any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in self.frame.panels):
            return  # a click on the title or legend strip
        tr = self.frame.transform
        self.viewer.click(tr.to_world(x, y), interact.pick_tolerance(tr))
        self.changed(scene=True)

    def on_mouse_scroll(self, x: float, y: float, scroll_x: float, scroll_y: float) -> None:
        if scroll_y == 0:
            return
        fit = interact.window_fit(self.viewer.scene(), self.width, self.height)
        self.viewer.camera = interact.zoom_at(self.viewer.camera, fit, self.viewer.bf, x, y,
                                              1.2 ** scroll_y)
        self.changed()

    # ------------------------------------------------------------------ keys

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        if symbol == key.Q and modifiers & (key.MOD_CTRL | key.MOD_COMMAND):
            self.close()
            return
        fit = interact.window_fit(self.viewer.scene(), self.width, self.height)
        cam, bf = self.viewer.camera, self.viewer.bf
        step = 60
        moves = {key.LEFT: (step, 0), key.RIGHT: (-step, 0), key.UP: (0, -step),
                 key.DOWN: (0, step)}
        if symbol in moves:
            self.viewer.camera = interact.pan(cam, fit, bf, *moves[symbol])
        elif symbol in (key.PLUS, key.EQUAL, key.NUM_ADD, key.MINUS, key.NUM_SUBTRACT):
            f = 1.25 if symbol in (key.PLUS, key.EQUAL, key.NUM_ADD) else 1 / 1.25
            self.viewer.camera = interact.zoom_at(cam, fit, bf, self.width / 2, self.height / 2,
                                                  f)
        elif symbol == key.P:
            self.save_picture()
        else:
            name = _KEYS.get(symbol)
            if name is None:
                return
            if name == "t" and modifiers & key.MOD_SHIFT:
                name = "T"
            if not self.viewer.key(name):
                return
            self.changed(scene=True)
            return
        self.changed()


    def save_picture(self, directory: str | None = None) -> str:
        """`P`: the current scene as a 1600 px picture (what `tmg render` makes), saved as
        tmg-view-N.png in the working directory; the hint line says where."""
        from pathlib import Path

        from geom.errors import TmgError

        from . import png
        from .draw import Offscreen
        from .layout import frame_for_width

        folder = Path(directory or ".")
        n = 1
        while (folder / f"tmg-view-{n}.png").exists():
            n += 1
        path = folder / f"tmg-view-{n}.png"
        scene = self.viewer.scene()
        try:
            with Offscreen() as off:
                picture = off.render(scene, frame_for_width(scene, 1600))
            png.write(path, picture.top_down())
            self.viewer.message = f"Saved the picture as {path}"
        except TmgError as exc:
            self.viewer.message = f"Could not save the picture: {exc}"
        finally:
            self.switch_to()
        self.changed(scene=True)
        return str(path)


def open_window(viewer: Viewer, width: int = 1400, height: int = 950,
                visible: bool = True) -> ViewerWindow:
    """The viewer window, or a TmgError naming the missing display and what to do instead."""
    if visible and not backend.has_display():
        raise backend.window_error(RuntimeError("no display"), interactive=True)
    try:
        try:
            config = pyglet.gl.Config(  # type: ignore[abstract]
                double_buffer=True, sample_buffers=1, samples=4)
            return ViewerWindow(viewer, width, height, visible, config=config)
        except pyglet.window.NoSuchConfigException:
            return ViewerWindow(viewer, width, height, visible)
    except Exception as exc:
        from geom.errors import TmgError
        if isinstance(exc, TmgError):
            raise
        raise backend.window_error(exc, interactive=visible) from None


def run(viewer: Viewer, width: int = 1400, height: int = 950) -> None:
    open_window(viewer, width, height)
    pyglet.app.run()
