"""The viewer window driven by synthetic pyglet events (mouse presses, drags, scrolls, keys
dispatched to the window's handlers), checked against the engine's answers and the pixels
the window draws. Needs a display (the suite runs itself under xvfb-run); SKIPS without one.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import scenario
from geom.errors import TmgError
from geom.model import Battlefield, Table
from viewer import interact, overlays, style
from viewer.interact import Viewer

ROOT = Path(__file__).resolve().parent.parent
RIDGE = str(ROOT / "examples" / "ridge-dispute.toml")
SIGHT = str(ROOT / "examples" / "sight-dispute.toml")
pytestmark = pytest.mark.viewer


@pytest.fixture
def open_viewer():
    from viewer import backend
    if not backend.has_display():
        pytest.skip("no display to open a window on (run under xvfb-run; "
                    "`python -m tests` does that itself)")
    from viewer import window
    opened = []

    def make(bf, **kw):
        v = Viewer(bf, **kw)
        try:
            w = window.open_window(v, 1200, 820, visible=False)
        except TmgError as exc:
            pytest.skip(f"cannot open a window: {exc}")
        opened.append(w)
        w.on_draw()
        return v, w

    yield make
    for w in opened:
        w.close()


def send(w, name, *args):
    w.dispatch_event(name, *args)
    w.dispatch_events()


def click(w, x, y):
    from pyglet.window import mouse
    send(w, "on_mouse_press", x, y, mouse.LEFT, 0)
    send(w, "on_mouse_release", x, y, mouse.LEFT, 0)


def press(w, symbol, modifiers=0):
    send(w, "on_key_press", symbol, modifiers)


def screen(w):
    """The window's pixels as (H, W, 3), row 0 at the bottom (pixel y up)."""
    import pyglet
    w.on_draw()
    img = pyglet.image.get_buffer_manager().get_color_buffer().get_image_data()
    data = np.frombuffer(img.get_data("RGB", img.width * 3), np.uint8)
    return data.reshape(img.height, img.width, 3)


def px_of(w, pt):
    return w.frame.transform.to_px(pt)


def near(c, want, tol):
    return max(abs(int(a) - int(b)) for a, b in zip(c, want, strict=False)) <= tol


def test_click_selects_the_unit_and_rings_the_model(open_viewer):
    bf = scenario.load(RIDGE)
    v, w = open_viewer(bf)
    m = bf.unit("hydras").model("h2")
    click(w, *px_of(w, (m.at[0] + 0.1, m.at[1] + 0.5)))
    assert v.selected is not None and v.selected.id == "hydras"
    assert v.selection_thing == m
    assert any(s.startswith("Unit hydras (blue") for s in v.scene().info)
    img = screen(w)
    # the pick ring lies 0.18" outside the oval's rim, at the (lower) end of its long axis
    x, y = px_of(w, (m.at[0], m.at[1] - m.base.a - 0.18))
    assert near(img[int(y), int(x)], style.PICK, 40)


def test_measure_by_clicking_two_bases(open_viewer):
    from pyglet.window import key
    bf = scenario.load(RIDGE)
    v, w = open_viewer(bf)
    a, b = bf.unit("marines").model("m2"), bf.unit("zerglings").models[3]
    press(w, key.M)
    assert v.tool == "measure"
    click(w, *px_of(w, a.at))
    click(w, *px_of(w, b.at))
    assert v.results == [overlays.Measure(a, b)]
    img = screen(w)
    p, q = overlays.closest_points(a, b)
    hits = 0
    for t in (0.2, 0.3, 0.7, 0.8):
        x, y = px_of(w, (p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
        c = img[int(y), int(x)]
        hits += near(c, style.TAPE_ALT, 70) or near(c, style.TAPE, 70)
    assert hits >= 3
    # a tape between two bare points
    click(w, *px_of(w, (40.0, 30.0)))
    click(w, *px_of(w, (46.0, 30.0)))
    last = v.results[-1]
    assert isinstance(last, overlays.Measure) and isinstance(last.a, tuple)
    assert math.dist(last.a, last.b) == pytest.approx(6.0, abs=2 * interact.pick_tolerance(
        w.frame.transform))


def test_sight_by_clicking_two_models(open_viewer):
    from pyglet.window import key

    from geom.sight._sight import line_of_sight
    bf = scenario.load(SIGHT)
    v, w = open_viewer(bf)
    m1, z1 = bf.unit("marines").model("m1"), bf.unit("zerglings").models[0]
    press(w, key.L)
    assert v.tool == "sight"
    click(w, *px_of(w, (40.0, 33.0)))  # empty table: not a model
    assert v.picks == [] and "model" in v.message
    click(w, *px_of(w, m1.at))
    click(w, *px_of(w, z1.at))
    assert v.results == [overlays.Sight(m1, z1)]
    verdict = line_of_sight(bf, m1, z1)
    assert any(verdict.reason in s for s in v.scene().info)
    img = screen(w)
    (p, q) = verdict.witness
    green = 0
    for t in np.linspace(0.2, 0.8, 7):
        x, y = px_of(w, (p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
        green += near(img[int(y), int(x)], style.SIGHT_CLEAR, 40)
    assert green >= 5


def test_template_by_clicking_and_switching_kind(open_viewer):
    from pyglet.window import key
    bf = scenario.load(RIDGE)
    v, w = open_viewer(bf)
    press(w, key.T, key.MOD_SHIFT)
    assert v.tool == "template" and v.template_kind == "flamer"
    att, tgt = bf.unit("marines").model("m1"), bf.unit("zerglings").models[0]
    click(w, *px_of(w, att.at))
    click(w, *px_of(w, tgt.at))
    (res,) = v.results
    assert res == overlays.Template("flamer", att, tgt)
    assert any(s.startswith("Flamer template from marines/m1") for s in v.scene().info)


def test_drag_pans_scroll_zooms_f_fits(open_viewer):
    from pyglet.window import key, mouse
    bf = scenario.load(RIDGE)
    v, w = open_viewer(bf)
    before = w.frame.transform
    send(w, "on_mouse_press", 600, 400, mouse.LEFT, 0)
    send(w, "on_mouse_drag", 650, 430, 50, 30, mouse.LEFT, 0)
    send(w, "on_mouse_drag", 700, 450, 50, 20, mouse.LEFT, 0)
    send(w, "on_mouse_release", 700, 450, mouse.LEFT, 0)
    after = w.frame.transform
    assert (after.ox - before.ox, after.oy - before.oy) == pytest.approx((100, 50))
    assert v.selection_info == []  # a drag is not a click
    world = w.frame.transform.to_world(300, 500)
    send(w, "on_mouse_scroll", 300, 500, 0, 2)
    assert w.frame.transform.scale == pytest.approx(before.scale * 1.44)
    assert w.frame.transform.to_world(300, 500) == pytest.approx(world)
    press(w, key.F)
    assert w.frame.transform == before


def test_escape_clears_and_panel_clicks_do_nothing(open_viewer):
    from pyglet.window import key
    bf = scenario.load(RIDGE)
    v, w = open_viewer(bf)
    press(w, key.M)
    m = bf.unit("marines").model("m1")
    click(w, *px_of(w, m.at))
    assert v.picks == [m]
    press(w, key.ESCAPE)
    assert v.tool == "select" and v.picks == []
    assert not w.has_exit  # Esc clears, it does not close the window
    click(w, w.width - 20, 10)  # the answer panel
    assert v.selection_info == []
    press(w, key.E)
    assert v.engagement and any(s.startswith("Engagement") for s in v.scene().info)


def test_empty_table_window(open_viewer):
    v, w = open_viewer(Battlefield(Table(36, 36)))
    click(w, *px_of(w, (18.0, 18.0)))
    assert v.selection_info == ["Table point 18.00, 18.00"]
    img = screen(w)
    x, y = px_of(w, (3.3, 3.3))
    assert near(img[int(y), int(x)], style.MAT, 6)


def test_p_saves_the_picture(open_viewer, tmp_path, monkeypatch):
    from pyglet.window import key

    from .test_viewer_scene import decode_png
    monkeypatch.chdir(tmp_path)
    v, w = open_viewer(scenario.load(RIDGE))
    press(w, key.P)
    press(w, key.P)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tmg-view-1.png", "tmg-view-2.png"]
    assert decode_png((tmp_path / "tmg-view-1.png").read_bytes()).shape[1] == 1600
    assert "tmg-view-2.png" in v.message
    w.on_draw()  # the window still draws after the off-screen picture
