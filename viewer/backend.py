"""Choosing how pyglet reaches OpenGL, and turning a missing display into a clear TmgError.

`tmg view` needs a display. `tmg render` does not: with no X11/Wayland display it asks pyglet
for a headless EGL context (Mesa provides one), so pictures can be made on a server; when even
that fails the message suggests `xvfb-run`. The choice must be made before `pyglet.window` is
first imported, which is why `viewer.draw` and `viewer.window` call `configure()` at import.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from geom.errors import TmgError

NO_DISPLAY_HINT = ("use `tmg render FILE -o picture.png` to make a picture without a window, "
                   "or run the viewer under a virtual display: "
                   "`xvfb-run -a tmg view FILE`")


def has_display() -> bool:
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def configure() -> None:
    """Headless EGL when there is no display and pyglet has not chosen a platform yet."""
    import pyglet

    if not has_display() and "pyglet.window" not in sys.modules:
        pyglet.options["headless"] = True


def window_error(exc: BaseException, *, interactive: bool) -> TmgError:
    """A TmgError explaining why no window (or GL context) could be made."""
    what = "open a window" if interactive else "create an OpenGL context for drawing"
    if not has_display():
        why = "no display (DISPLAY is not set)"
    else:
        why = f"{type(exc).__name__}: {exc}".strip()
    hint = NO_DISPLAY_HINT if interactive else (
        "run it under a virtual display: `xvfb-run -a tmg render FILE -o picture.png` "
        "(packages xvfb, xauth, libgl1-mesa-dri)")
    return TmgError(f"cannot {what}: {why}; {hint}")


def make_window(**kw: Any) -> Any:
    """A pyglet window, or TmgError naming the missing display and the way around it."""
    configure()
    interactive = bool(kw.get("visible", True))
    if interactive and not has_display():
        raise window_error(RuntimeError("no display"), interactive=True)
    import pyglet

    try:
        try:
            config = pyglet.gl.Config(  # type: ignore[abstract]
                double_buffer=True, sample_buffers=1, samples=4)
            return pyglet.window.Window(config=config, **kw)
        except pyglet.window.NoSuchConfigException:
            return pyglet.window.Window(**kw)
    except TmgError:
        raise
    except Exception as exc:  # pyglet raises several unrelated types for "no display"
        raise window_error(exc, interactive=interactive) from None
