"""Edit mode: the Editor's changes, undo/redo and placement checks (pure), then the window
driven by synthetic pyglet events — drag a model, save, reload, compare; add a unit by typing
its name; and the window's transform, which answers never move. Window tests need a display
(the suite runs under xvfb-run) and SKIP without one."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import scenario
from geom.errors import TmgError
from viewer import edit, interact, layout, overlays
from viewer.edit import Editor
from viewer.scene import build_scene

from .test_viewer_window import click, open_viewer, press, px_of, send  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
RIDGE = str(ROOT / "examples" / "ridge-dispute.toml")
SIGHT = str(ROOT / "examples" / "sight-dispute.toml")
GAP = str(ROOT / "examples" / "gap-run.toml")


def test_moves_turns_removals_and_history():
    ed = Editor(scenario.load(RIDGE))
    h2 = ed.bf.unit("hydras").model("h2")
    assert not h2.base.is_disc
    ed.turn(h2, 30)
    assert ed.bf.unit("hydras").model("h2").angle == (h2.angle + 30) % 360
    with pytest.raises(TmgError, match="round base"):
        ed.turn(ed.bf.unit("marines").model("m1"), 15)
    marines = ed.bf.unit("marines")
    ed.move_models(marines.models, (1.0, -0.5))
    moved = ed.bf.unit("marines")
    assert [m.at for m in moved.models] == [(m.at[0] + 1.0, m.at[1] - 0.5) for m in marines.models]
    ed.set_leading(moved.model("m3"))
    assert ed.bf.unit("marines").leading_model.id == "m3"
    ed.remove_model(ed.bf.unit("marines").model("m3"))
    assert [m.id for m in ed.bf.unit("marines").models] == ["m1", "m2"]
    assert ed.bf.unit("marines").leading is None  # the leader went with it
    ed.undo()
    assert ed.bf.unit("marines").leading == "m3"
    ed.undo(), ed.undo(), ed.undo()
    assert ed.bf == scenario.load(RIDGE)
    assert ed.undo() == "nothing to undo"
    ed.redo()
    assert ed.bf.unit("hydras").model("h2").angle == (h2.angle + 30) % 360
    ed.remove_unit(ed.bf.unit("hydras"))
    assert ed.redo() == "nothing to redo"  # a new change ends the redo list
    assert "hydras" not in [u.id for u in ed.bf.units]


def test_removing_models_rederives_catalogue_supply():
    bf = scenario.parse_document({"table": {"width": 30, "depth": 20}, "unit": [
        {"id": "m", "type": "marine", "owner": "red",
         "models": [[2 + 1.5 * i, 5] for i in range(7)]}]}, "t")
    ed = Editor(bf)
    assert ed.bf.unit("m").supply == 2  # 7 marines
    ed.remove_model(ed.bf.unit("m").models[0])
    assert ed.bf.unit("m").supply == 1  # 6 marines: the profile again, as the file would say
    given = scenario.parse_document({"table": {"width": 30, "depth": 20}, "unit": [
        {"id": "m", "type": "marine", "owner": "red", "supply": 5,
         "models": [[2 + 1.5 * i, 5] for i in range(7)]}]}, "t")
    ed = Editor(given)
    ed.remove_model(ed.bf.unit("m").models[0])
    assert ed.bf.unit("m").supply == 5  # a supply the file gave stays


def test_add_unit_from_the_catalogue():
    ed = Editor(scenario.load(GAP))
    u = ed.add_unit("zealot", "blue", (ed.bf.table.width - 0.5, 1.0))  # slid onto the table
    assert u.id == "zealot-1" and u.type == "zealot" and u.owner == "blue"
    from scenario import catalogue
    entry = catalogue.find("zealot")
    assert len(u.models) == entry["compositions"][0]["models"]
    assert all(math.dist(a.at, b.at) >= a.base.long for a in u.models for b in u.models
               if a is not b)
    assert ed.add_unit("zealot", "red", (10.0, 30.0)).id == "zealot-2"
    with pytest.raises(TmgError, match="no unit type"):
        ed.add_unit("ultralisk-of-doom", "red", (5, 5))


def test_checks_find_every_refused_placement_and_block_saving(tmp_path):
    bf = scenario.load(SIGHT)
    ed = Editor(bf)
    assert ed.problems == []
    wall = bf.piece("standard-1/13")
    c = wall.footprint.centroid
    m1, m2 = bf.unit("marines").model("m1"), bf.unit("marines").model("m2")
    ed.move_models([m1], (c.x - m1.at[0], c.y - m1.at[1]))  # into the wall
    ed.move_models([ed.bf.unit("marines").model("m2")], (2.0, 0.0))  # onto m3
    refs = sorted(p.model for p in ed.problems)
    assert refs == ["marines/m1", "marines/m2"] or refs == ["marines/m1", "marines/m3"]
    assert any("impassable terrain" in p.message for p in ed.problems)
    with pytest.raises(TmgError, match="not saved"):
        ed.save(tmp_path / "x.toml")
    assert not (tmp_path / "x.toml").exists()
    ed.undo(), ed.undo()
    assert ed.problems == []
    assert m2 == ed.bf.unit("marines").model("m2")


def test_save_target_names(tmp_path):
    path, layout_name, extra = edit.save_target(SIGHT)
    assert path.name == "sight-dispute-edited.toml" and layout_name == "standard-1"
    edited = tmp_path / path.name
    edited.write_text(Path(SIGHT).read_text())
    again, _, _ = edit.save_target(str(edited))
    assert again == edited  # an edited file saves onto itself
    p, lay, _ = edit.save_target("standard-2")
    assert p == Path("standard-2-edited.toml") and lay == "standard-2"
    with_tpl = tmp_path / "tpl.toml"
    with_tpl.write_text('description = "d"\n[templates.blast]\ndiameter = 2.5\n'
                        '[table]\nwidth = 30\ndepth = 20\n')
    _, _, extra = edit.save_target(str(with_tpl))
    assert extra == {"description": "d", "templates": {"blast": {"diameter": 2.5}}}


def test_rebind_asks_the_same_question_of_the_edited_table():
    bf = scenario.load(SIGHT)
    m1, z1 = bf.unit("marines").model("m1"), bf.unit("zerglings").models[0]
    ed = Editor(bf)
    ed.move_models([m1], (0.0, -2.0))
    q = overlays.rebind(overlays.Sight(m1, z1), ed.bf)
    assert q.a.at == (m1.at[0], m1.at[1] - 2.0) and q.b == z1
    ed.remove_model(ed.bf.unit("marines").model("m1"))
    with pytest.raises(TmgError):
        overlays.rebind(overlays.Sight(m1, z1), ed.bf)


# --------------------------------------------------------------------------- the window

def drag(w, a, b, modifiers=0, steps=5):
    from pyglet.window import mouse
    send(w, "on_mouse_press", a[0], a[1], mouse.LEFT, modifiers)
    for k in range(1, steps + 1):
        x, y = a[0] + (b[0] - a[0]) * k / steps, a[1] + (b[1] - a[1]) * k / steps
        send(w, "on_mouse_drag", x, y, (b[0] - a[0]) / steps, (b[1] - a[1]) / steps,
             mouse.LEFT, modifiers)
    send(w, "on_mouse_release", b[0], b[1], mouse.LEFT, modifiers)


def test_drag_a_model_save_reload_compare(open_viewer, tmp_path):  # noqa: F811
    from pyglet.window import key
    bf = scenario.load(SIGHT)
    target = tmp_path / "dispute.toml"
    v, w = open_viewer(bf, source=SIGHT, save_path=str(target))
    tr0 = w.frame.transform
    m1 = bf.unit("marines").model("m1")
    press(w, key.D)
    assert v.edit_mode
    a = px_of(w, m1.at)
    b = (a[0] + 80, a[1] - 40)
    drag(w, a, b)
    moved = v.bf.unit("marines").model("m1")
    s = tr0.scale
    assert moved.at == pytest.approx((m1.at[0] + 80 / s, m1.at[1] - 40 / s), abs=1e-9)
    assert w.frame.transform == tr0  # editing never moves the table
    assert v.camera == layout.Camera()  # the drag moved the model, not the view
    # Shift+drag moves the whole unit
    zl = v.bf.unit("zerglings")
    drag(w, px_of(w, zl.models[0].at), px_of(w, (zl.models[0].at[0] + 1.0,
                                                  zl.models[0].at[1] + 1.0)), key.MOD_SHIFT)
    after = v.bf.unit("zerglings")
    for p, q in zip(zl.models, after.models, strict=True):
        assert q.at == pytest.approx((p.at[0] + 1.0, p.at[1] + 1.0), abs=1e-6)
    press(w, key.S)
    assert target.exists() and "saved" in v.message.lower()
    back = scenario.load(target)
    assert back == v.bf
    assert back.unit("marines").model("m1").at == moved.at
    # undo and redo from the keyboard
    press(w, key.Z, key.MOD_CTRL)
    assert v.bf.unit("zerglings") == zl
    press(w, key.Y, key.MOD_CTRL)
    assert v.bf.unit("zerglings") == after


def test_edit_keys_add_turn_lead_remove(open_viewer, tmp_path):  # noqa: F811
    from pyglet.window import key
    bf = scenario.load(RIDGE)
    v, w = open_viewer(bf, source=RIDGE, save_path=str(tmp_path / "r.toml"))
    press(w, key.D)
    press(w, key.N)
    send(w, "on_text", "n")  # pyglet also sends the key that opened the prompt as text
    for ch in "zeal":
        send(w, "on_text", ch)
    assert v.prompt == "zeal" and "zealot" in v.hint()
    press(w, key.TAB)
    assert v.place_owner == "blue"
    press(w, key.ENTER)
    assert v.tool == "place" and v.place_type == "zealot"
    click(w, *px_of(w, (44.0, 8.0)))
    added = v.bf.unit("zealot-1")
    assert added.owner == "blue" and v.tool == "select"
    # select a hydralisk (an oval), turn it, make it the leader, remove another
    h1 = v.bf.unit("hydras").models[0]
    click(w, *px_of(w, h1.at))
    assert v.selection_thing == h1
    press(w, key.BRACKETLEFT)
    assert v.bf.unit("hydras").models[0].angle == (h1.angle + 15) % 360
    press(w, key.BRACKETRIGHT, key.MOD_SHIFT)
    assert v.bf.unit("hydras").models[0].angle == (h1.angle + 14) % 360
    press(w, key.H)
    assert v.bf.unit("hydras").leading == h1.id
    press(w, key.DELETE)
    assert h1.id not in [m.id for m in v.bf.unit("hydras").models]
    press(w, key.S)
    assert scenario.load(tmp_path / "r.toml") == v.bf


def test_refused_placement_is_ringed_and_not_saved(open_viewer, tmp_path):  # noqa: F811
    from pyglet.window import key
    bf = scenario.load(SIGHT)
    v, w = open_viewer(bf, source=SIGHT, save_path=str(tmp_path / "bad.toml"))
    press(w, key.D)
    m1 = bf.unit("marines").model("m1")
    c = bf.piece("standard-1/13").footprint.centroid
    drag(w, px_of(w, m1.at), px_of(w, (c.x, c.y)))
    assert v.editor is not None and v.editor.problems
    sc = v.scene()
    assert sc.tagged("edit:problem:marines/m1")
    assert any(s.startswith("Placement refused") for s in sc.info)
    assert "placement refused by the checks" in {e.text for e in sc.legend}
    press(w, key.S)
    assert not (tmp_path / "bad.toml").exists() and v.message.startswith("Not saved")


def test_answers_never_move_the_table(open_viewer):  # noqa: F811
    from pyglet.window import key
    bf = scenario.load(SIGHT)
    v, w = open_viewer(bf)
    tr0 = w.frame.transform
    m1 = bf.unit("marines").model("m1")
    probe = px_of(w, (10.0, 10.0))
    press(w, key.M)
    for x in range(6):
        click(w, *px_of(w, (5.0 + x, 30.0)))
        click(w, *px_of(w, (5.0 + x, 33.0)))
    press(w, key.L)
    for z in bf.unit("zerglings").models:
        click(w, *px_of(w, m1.at))
        click(w, *px_of(w, z.at))
    press(w, key.E)
    assert len(v.results) == interact.MAX_RESULTS and len(v.scene().info) >= interact.MAX_RESULTS
    assert w.frame.transform == tr0
    assert px_of(w, (10.0, 10.0)) == probe
    # the transform is the window's alone: any scene gives it
    assert interact.window_fit(build_scene(scenario.load("standard-3")), w.width, w.height) == tr0


def test_window_fits_the_screen(monkeypatch):
    from viewer import backend
    if not backend.has_display():
        pytest.skip("no display (run under xvfb-run)")
    from viewer import window

    assert window.fit_to_screen(1400, 950, (1280, 1024)) == (1240, 841)
    assert window.fit_to_screen(1400, 950, (800, 600))[1] <= 600 - window.SCREEN_MARGIN[1]
    scr = window.screen_size()
    assert scr is not None and scr[0] >= 1400  # the suite's Xvfb screen is 1920x1200
    monkeypatch.setattr(window, "screen_size", lambda: (1280, 1024))
    w = window.open_window(interact.Viewer(scenario.load("standard-1")), 1400, 950,
                           visible=False)
    try:
        assert (w.width, w.height) == (1240, 841)
    finally:
        w.close()


def test_check_this_move_judges_the_edit(open_viewer, tmp_path):  # noqa: F811
    """Edit mode's "check this move" (V): the table before the edit against after it."""
    from pyglet.window import key
    ex = "examples/move-coherency.toml"
    v, w = open_viewer(scenario.load(ex), source=ex, save_path=str(tmp_path / "c.toml"))
    press(w, key.D)
    u = v.bf.unit("marines")
    v._edit(lambda ed: ed.move_models(list(u.models), (-2.0, 3.0)))  # the whole unit: legal
    press(w, key.V)
    assert v.message.startswith("Check: LEGAL"), v.message
    assert any(isinstance(r, overlays.Check) for r in v.results)
    v._edit(lambda ed: ed.move_models([v.bf.unit("marines").model("m2")], (0.0, 5.0)))
    press(w, key.V)
    assert v.message.startswith("Check: NOT LEGAL") and "m2" in v.message, v.message
