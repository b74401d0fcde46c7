"""The pyglet window of `tmg view`: draws the Viewer's scene and forwards mouse and keys to it.

All decisions live in `viewer.interact` (tools, picks, camera) and `viewer.scene` (layout);
this module only turns pyglet events into those calls and redraws when something changed.
pyglet is imported where it is used (see `window_type`), so importing this module (as `tmg view`
does to build its options) needs no display.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from geom.errors import TmgError

from . import backend, interact, png, style
from .draw import Drawing, Offscreen
from .interact import Viewer
from .layout import Frame, frame_for_width, frame_for_window

DRAG_PIXELS = 4  # a press that moves less than this is a click


@cache
def _keys() -> dict[int, str]:
    backend.configure()
    from pyglet.window import key

    return {key.ESCAPE: "escape", key.M: "m", key.L: "l", key.T: "t", key.E: "e", key.F: "f",
            key.HOME: "f", key.R: "r", key.C: "c", key.G: "g", key._0: "0", key._1: "1",
            key._2: "2", key._3: "3", key._4: "4", key._5: "5", key._6: "6", key.D: "d",
            key.S: "s", key.N: "n", key.H: "h", key.V: "v", key.K: "k", key.J: "j",
            key.BRACKETLEFT: "[", key.BRACKETRIGHT: "]", key.DELETE: "delete",
            key.BACKSPACE: "backspace", key.TAB: "tab", key.ENTER: "enter",
            key.RETURN: "enter"}


_SHIFTED = {"t": "T", "[": "{", "]": "}", "delete": "Delete", "backspace": "Delete"}


def key_name(symbol: int, modifiers: int) -> str | None:
    """The viewer's name for a key press (`interact.Viewer.key`), modifiers included."""
    from pyglet.window import key

    ctrl = modifiers & (key.MOD_CTRL | key.MOD_COMMAND)
    if ctrl and symbol == key.Z:
        return "redo" if modifiers & key.MOD_SHIFT else "undo"
    if ctrl and symbol == key.Y:
        return "redo"
    if ctrl:
        return None
    name = _keys().get(symbol)
    if name is not None and modifiers & key.MOD_SHIFT:
        name = _SHIFTED.get(name, name)
    return name


@cache
def window_type() -> Any:
    """`ViewerWindow(viewer, width, height, visible, **kw)`: the pyglet window of `tmg view`.
    A pyglet class, so it is made at first use: importing `pyglet.window` connects to the
    display (or makes a headless GL context), which `tmg view --help` or a missing display must
    not need; `backend.configure()` chooses the platform first."""
    backend.configure()
    import pyglet
    from pyglet.window import key, mouse

    class ViewerWindow(pyglet.window.Window):  # type: ignore[misc]
        def __init__(self, viewer: Viewer, width: int = 1400, height: int = 950,
                     visible: bool = True, **kw: Any) -> None:
            self.viewer = viewer
            self._frame: Frame | None = None
            self._drawing: Drawing | None = None
            self._press: tuple[float, float] | None = None
            self._dragged = False
            self._moving = False  # edit mode: the press was on a base, the drag moves it
            self._swallow_text = False  # the character of the key that opened a text prompt
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
            self._moving = False
            if button == mouse.LEFT and not self._in_panel(x, y):
                tr = self.frame.transform
                self._moving = self.viewer.start_drag(tr.to_world(x, y), interact.pick_tolerance(tr),
                                                      bool(modifiers & key.MOD_SHIFT))

        def _in_panel(self, x: float, y: float) -> bool:
            return any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in self.frame.panels)

        def on_mouse_drag(self, x: float, y: float, dx: float, dy: float, buttons: int,
                          modifiers: int) -> None:
            if self._press is not None and not self._dragged:
                if abs(x - self._press[0]) + abs(y - self._press[1]) < DRAG_PIXELS:
                    return
                self._dragged = True
                dx, dy = x - self._press[0], y - self._press[1]  # catch up with the threshold
            if self._moving and self._press is not None:
                s = self.frame.transform.scale
                self.viewer.drag_to(((x - self._press[0]) / s, (y - self._press[1]) / s))
                self.changed(scene=True)
                return
            fit = interact.window_fit(self.viewer.scene(), self.width, self.height)
            self.viewer.camera = interact.pan(self.viewer.camera, fit, self.viewer.bf, dx, dy)
            self.changed()

        def on_mouse_release(self, x: float, y: float, button: int, modifiers: int) -> None:
            was_drag, self._press = self._dragged, None
            moving, self._moving = self._moving, False
            self._dragged = False
            if moving:
                if was_drag:
                    self.viewer.drop()
                    self.changed(scene=True)
                    return
                self.viewer.drag = None  # a click on a base in edit mode: select it, as usual
            if was_drag or button != mouse.LEFT:
                return
            if self._in_panel(x, y):
                return  # a click on the title or the answer panel
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
            elif symbol == key.P and self.viewer.prompt is None:
                self.save_picture()
            else:
                name = key_name(symbol, modifiers)
                if name is None:
                    return
                opening = name == "n" and self.viewer.prompt is None
                if not self.viewer.key(name):
                    return
                self._swallow_text = opening and self.viewer.prompt is not None
                self.changed(scene=True)
                return
            self.changed()

        def on_text(self, text: str) -> None:
            if self._swallow_text:  # pyglet sends the key that opened the prompt as text too
                self._swallow_text = False
                return
            if self.viewer.type_text(text):
                self.changed(scene=True)


        def save_picture(self, directory: str | None = None) -> str:
            """`P`: the current scene as a 1600 px picture (what `tmg render` makes), saved as
            tmg-view-N.png in the working directory; the hint line says where."""

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

    return ViewerWindow


SCREEN_MARGIN = (40, 90)  # room left for the desktop's bars and the window's frame


def fit_to_screen(width: int, height: int, screen: tuple[int, int]) -> tuple[int, int]:
    """The window size asked for, shrunk (aspect kept) to fit a screen of `screen` pixels.

    >>> fit_to_screen(1400, 950, (1280, 1024))
    (1240, 841)
    >>> fit_to_screen(1400, 950, (2560, 1440))
    (1400, 950)
    """
    room_w, room_h = screen[0] - SCREEN_MARGIN[0], screen[1] - SCREEN_MARGIN[1]
    k = min(1.0, room_w / width, room_h / height)
    return max(200, int(width * k)), max(200, int(height * k))


def screen_size() -> tuple[int, int] | None:
    """The size of the screen the window opens on (pyglet's default screen), if known."""
    backend.configure()
    import pyglet

    try:
        scr = pyglet.display.get_display().get_default_screen()
        return int(scr.width), int(scr.height)
    except Exception:  # no display, or a platform that cannot say: keep the size asked for
        return None


def open_window(viewer: Viewer, width: int = 1400, height: int = 950,
                visible: bool = True) -> Any:
    """The viewer window, shrunk to fit its screen, or a TmgError naming the missing display
    and what to do instead."""
    if visible and not backend.has_display():
        raise backend.window_error(RuntimeError("no display"), interactive=True)
    scr = screen_size()
    if scr is not None:
        width, height = fit_to_screen(width, height, scr)
    try:
        viewer_window = window_type()  # pyglet's window module: it reaches for the display
        import pyglet

        try:
            config = pyglet.gl.Config(  # type: ignore[abstract]
                double_buffer=True, sample_buffers=1, samples=4)
            return viewer_window(viewer, width, height, visible, config=config)
        except pyglet.window.NoSuchConfigException:
            return viewer_window(viewer, width, height, visible)
    except Exception as exc:
        if isinstance(exc, TmgError):
            raise
        raise backend.window_error(exc, interactive=visible) from None


def run(viewer: Viewer, width: int = 1400, height: int = 950) -> None:
    open_window(viewer, width, height)
    import pyglet

    pyglet.app.run()
