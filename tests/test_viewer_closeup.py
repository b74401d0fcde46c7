"""Close-ups (`tmg render --around/--box`) with an inset of the whole table, the SVG backend
drawing the same primitives, the close-combat and disengage overlays, and per-overlay options
bound to their overlay. Pixels are checked where the engine puts its witness."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import scenario
from geom import combat as cc
from geom.errors import TmgError
from tmg import cli
from viewer import overlays, picture, style
from viewer.layout import frame_for_box, frame_for_width
from viewer.scene import Stroke, Text, build_scene

from .test_viewer_render import close_to, in_boxes, label_boxes, off  # noqa: F401
from .test_viewer_scene import decode_png

ROOT = Path(__file__).resolve().parent.parent
SIGHT = str(ROOT / "examples" / "sight-dispute.toml")
MELEE = str(ROOT / "examples" / "melee-ranks.toml")
SVG = "{http://www.w3.org/2000/svg}"
pytestmark = pytest.mark.viewer


def _sight_scene():
    bf = scenario.load(SIGHT)
    m1, z1 = bf.unit("marines").model("m1"), bf.unit("zerglings").models[0]
    return bf, m1, z1, build_scene(bf, [overlays.Sight(m1, z1)])


def test_closeup_frame_maps_the_box_to_the_view():
    bf, m1, _, sc = _sight_scene()
    box = picture.around(bf.table, (m1.at[0], m1.at[1], m1.at[0], m1.at[1]), 3.0)
    assert box == (m1.at[0] - 3, m1.at[1] - 3, m1.at[0] + 3, m1.at[1] + 3)
    f = frame_for_box(sc, box, 1200)
    assert f.view is not None and len(f.insets) == 1
    x0, y0 = f.transform.to_px(box[:2])
    x1, y1 = f.transform.to_px(box[2:])
    assert (x0, y0, x1, y1) == pytest.approx(f.view)
    assert x1 - x0 == pytest.approx(1200 - 2 * 44 * 1200 / 1600)
    # the inset shows the whole table inside the view, and the close-up's area in it
    ins = f.insets[0]
    tx0, ty0 = ins.transform.to_px((0, 0))
    tx1, ty1 = ins.transform.to_px((54, 36))
    assert ins.box[0] <= tx0 < tx1 <= ins.box[2] and ins.box[1] <= ty0 < ty1 <= ins.box[3]
    assert f.view[0] <= ins.box[0] and ins.box[3] <= f.view[3]
    # a finer scale: figures every inch
    assert [float(t.string) for t in f.texts if t.text.tag == "axis:x"] == \
        [float(k) for k in range(math.ceil(box[0]), math.floor(box[2]) + 1)]


def test_around_keeps_the_box_near_the_table_and_refuses_bad_radii():
    bf = scenario.load(SIGHT)
    assert picture.around(bf.table, (1, 1, 1, 1), 5) == (-1, -1, 6, 6)
    for r in (0, -2, math.inf, math.nan):
        with pytest.raises(TmgError, match="radius"):
            picture.around(bf.table, (1, 1, 1, 1), r)


def test_closeup_pixels_on_the_witness_and_in_the_inset(off):  # noqa: F811
    bf, m1, z1, sc = _sight_scene()
    v = overlays.sight_verdict(bf, m1, z1)
    (p, q) = v.witness
    box = picture.around(bf.table, (m1.at[0], m1.at[1], m1.at[0], m1.at[1]), 3.0)
    picture.prepare_closeup(sc, box)
    frame = frame_for_box(sc, box, 1400)
    pic = off.render(sc, frame)
    boxes = label_boxes(frame) + [frame.insets[0].box]
    vx0, vy0, vx1, vy1 = frame.view
    hits = 0
    for t in np.linspace(0.12, 0.6, 21):
        x, y = p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])
        px, py = frame.transform.to_px((x, y))
        if not (vx0 + 3 <= px <= vx1 - 3 and vy0 + 3 <= py <= vy1 - 3) or in_boxes(px, py, boxes):
            continue
        assert close_to(pic.at(px, py), style.SIGHT_CLEAR[:3], 30), t
        hits += 1
    assert hits >= 8
    # 0.3" to the side of the line (a few pixels at this scale): not green
    nx, ny = -(q[1] - p[1]), q[0] - p[0]
    n = math.hypot(nx, ny)
    px, py = frame.transform.to_px((p[0] + 0.3 * (q[0] - p[0]) + 0.3 * nx / n,
                                    p[1] + 0.3 * (q[1] - p[1]) + 0.3 * ny / n))
    assert not close_to(pic.at(px, py), style.SIGHT_CLEAR[:3], 60)
    # outside the view (the panels): background, nothing of the table leaks
    assert close_to(pic.at(3, vy0 + 5), style.BACKGROUND[:3], 3)
    # the inset: the mat at the table's centre, the focus frame around the close-up
    ins = frame.insets[0]
    cx, cy = ins.transform.to_px((39.0, 32.5))
    assert close_to(pic.at(cx, cy), style.MAT[:3], 12)
    fx, fy = ins.transform.to_px((box[0], (box[1] + box[3]) / 2))
    assert close_to(pic.at(fx, fy), style.INSET_FOCUS[:3], 70)


def _svg(path):
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    return root


def _points(el):
    return [tuple(float(v) for v in pair.split(",")) for pair in el.get("points").split()]


def test_render_svg_parses_and_draws_the_witness(tmp_path, capsys):
    out = tmp_path / "close.svg"
    assert cli.main(["render", SIGHT, "-o", str(out), "--los", "marines/m1", "zerglings/1",
                     "--around", "marines/m1", "--radius", "3", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    root = _svg(out)
    assert (int(root.get("width")), int(root.get("height"))) == (r["width"], r["height"])
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "Sight dispute: through the gap" in texts
    assert any(t and t.startswith("Close-up of x") for t in texts)
    assert root.find(f"{SVG}defs/{SVG}clipPath") is not None
    # the witness polyline: green, and on the engine's witness through the frame's transform
    bf, m1, z1, sc = _sight_scene()
    v = overlays.sight_verdict(bf, m1, z1)
    box = picture.around(bf.table, (*m1.at, *m1.at), 3.0)
    picture.prepare_closeup(sc, box)
    frame = frame_for_box(sc, box, 1600)
    want = [frame.transform.to_px(pt) for pt in v.witness]
    want = [(x, frame.height - y) for x, y in want]
    green = [e for e in root.iter(f"{SVG}polyline")
             if e.get("stroke") == "rgb({},{},{})".format(*style.SIGHT_CLEAR[:3])]
    assert any(np.allclose(_points(e), want, atol=0.02) for e in green)
    assert len(list(root.iter(f"{SVG}path"))) > 30  # terrain, bases, zones…


def test_svg_and_png_draw_the_same_primitives(off, tmp_path):  # noqa: F811
    bf, m1, z1, sc = _sight_scene()
    frame = frame_for_width(sc, 800)
    from viewer import svg

    text = svg.svg_text(sc, frame)
    root = ET.fromstring(text)
    n_strokes = sum(1 for p in sc.prims if isinstance(p, Stroke)) + \
        sum(1 for p in frame.screen if isinstance(p, Stroke))
    assert len(list(root.iter(f"{SVG}polyline"))) == n_strokes
    labels = {pl.string for pl in frame.texts}
    assert labels == {t.text for t in root.iter(f"{SVG}text")}
    # the PNG of the same frame shows the witness where the SVG puts it
    pic = off.render(sc, frame)
    (w,) = [p for p in sc.prims if isinstance(p, Stroke) and p.tag == "sight:witness"]
    mid = ((w.points[0][0] + w.points[1][0]) / 2, (w.points[0][1] + w.points[1][1]) / 2)
    px, py = frame.transform.to_px(mid)
    if not in_boxes(px, py, label_boxes(frame)):
        assert close_to(pic.at(px, py), style.SIGHT_CLEAR[:3], 40)


def test_render_box_png_and_errors(tmp_path, capsys):
    out = tmp_path / "box.png"
    assert cli.main(["render", SIGHT, "-o", str(out), "--box", "18,10,26,16", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    img = decode_png(out.read_bytes())
    assert img.shape[:2] == (r["height"], r["width"])
    for argv, msg in [(["--box", "1,2,3"], "--box"), (["--box", "5,5,1,1"], "--box"),
                      (["--around", "marines/m1", "--box", "1,1,2,2"], "not both"),
                      (["--radius", "3"], "--radius"), (["--around", "nobody/1"], "nobody"),
                      (["--around", "marines/m1", "--radius", "-1"], "radius")]:
        assert cli.main(["render", SIGHT, "-o", str(tmp_path / "x.png"), *argv]) == 2, argv
        assert msg in capsys.readouterr().err
    assert cli.main(["render", SIGHT, "-o", str(tmp_path / "x.jpg")]) == 2
    assert ".svg" in capsys.readouterr().err


# --------------------------------------------------------------------------- close combat

def test_fight_overlay_marks_the_engine_ranks(off):  # noqa: F811
    bf = scenario.load(MELEE)
    u = bf.unit("marines")
    (ranks,) = cc.all_ranks(bf, u)
    assert ranks.fighting and ranks.supporting  # the example has both ranks
    sc = build_scene(bf, [overlays.Fight("marines")])
    frame = frame_for_width(sc, 1600)
    pic = off.render(sc, frame)
    for mid in ranks.fighting:
        m = u.model(mid)
        assert close_to(pic.at(*frame.transform.to_px(m.at)), style.FIGHTING[:3], 30), mid
    for mid in ranks.supporting:
        m = u.model(mid)
        assert close_to(pic.at(*frame.transform.to_px(m.at)), style.SUPPORTING[:3], 30), mid
    idle = [m for m in u.models if m.id not in ranks.fighting + ranks.supporting]
    for m in idle:
        assert not close_to(pic.at(*frame.transform.to_px(m.at)), style.FIGHTING[:3], 60)
    order = [s.removed for s in cc.removal_order(bf, u)]
    numbers = {p.tag.rsplit("/", 1)[-1]: int(p.text) for p in sc.prims
               if isinstance(p, Text) and p.tag.startswith("fight:casualty:")}
    assert numbers == {mid: k for k, mid in enumerate(order, start=1)}
    assert {e.text for e in sc.legend} >= {"fighting rank", "supporting rank",
                                           "casualty order (1 removed first)"}
    assert any(s.startswith("Close ranks (8.8.1 close ranks)") for s in sc.info)


def test_disengage_overlay_draws_the_engine_path(tmp_path, capsys):
    bf = scenario.load(MELEE)
    ans = cc.disengage(bf, bf.unit("zerglings"))
    sc = build_scene(bf, [overlays.Disengage("zerglings")])
    (path,) = [p for p in sc.prims if isinstance(p, Stroke) and p.tag == "disengage:path"]
    assert np.allclose(path.points, ans.path)
    ends = [p for p in sc.prims if p.tag.startswith("disengage:end")]
    assert ends and any(ans.reason in s for s in sc.info)
    out = tmp_path / "dis.svg"
    assert cli.main(["render", MELEE, "-o", str(out), "--disengage", "zerglings",
                     "--fight", "marines"]) == 0
    _svg(out)


def test_disengage_marks_destroyed_models():
    bf = scenario.load(MELEE)
    u = bf.unit("marines")
    fake = cc.DisengageAnswer("marines", False, "m2", None, None, ["m2"], {}, cc.RULE_DISENGAGE,
                              "boxed in")
    import viewer.overlay_combat as oc

    real = cc.disengage
    try:
        cc.disengage = lambda bf, unit, **kw: fake  # type: ignore[assignment]
        layer = oc.Disengage("marines").build(bf)
    finally:
        cc.disengage = real  # type: ignore[assignment]
    crosses = [p for p in layer.prims if p.tag == "disengage:destroyed:marines/m2"]
    assert len(crosses) == 2
    m2 = u.model("m2")
    assert all(math.dist(np.mean(c.points, axis=0), m2.at) < 1e-9 for c in crosses)
    assert any("destroyed: marines/m2" in s for s in layer.info)


# --------------------------------------------------------------------------- bound options

def _args(argv):
    from tmg.cli import build_parser

    return build_parser().parse_args(["render", *argv])


def test_each_move_has_its_own_allowance():
    from viewer import options

    bf = scenario.load(str(ROOT / "examples" / "gap-run.toml"))
    args = _args(["x.toml", "-o", "a.png", "--move", "marines/1", "24,18", "--allowance", "16",
                  "--move", "queen/1", "24,18", "--allowance", "8"])
    args.file = "gap-run"
    moves = [o for o in options.overlays_from_args(bf, args) if isinstance(o, overlays.Move)]
    assert [(m.model.ref, m.allowance) for m in moves] == [("marines/1", 16.0), ("queen/1", 8.0)]
    # given before every move: the default of all of them; a move's own wins
    args = _args(["x.toml", "-o", "a.png", "--allowance", "5", "--move", "marines/1", "24,18",
                  "--move", "queen/1", "24,18", "--allowance", "8"])
    moves = [o for o in options.overlays_from_args(bf, args) if isinstance(o, overlays.Move)]
    assert [m.allowance for m in moves] == [5.0, 8.0]
    with pytest.raises(TmgError, match="twice"):
        options.overlays_from_args(bf, _args(["x.toml", "-o", "a.png", "--move", "marines/1",
                                              "24,18", "--allowance", "1", "--allowance", "2"]))
    with pytest.raises(TmgError, match="--allowance goes with"):
        options.overlays_from_args(bf, _args(["x.toml", "-o", "a.png", "--allowance", "3"]))


def test_each_charge_has_its_own_targets_and_roll():
    from viewer import options

    bf = scenario.load(str(ROOT / "examples" / "charge-multi.toml"))
    args = _args(["x.toml", "-o", "a.png", "--charge", "zerglings", "--targets", "marauder",
                  "--roll", "3", "--charge", "zerglings", "--targets", "marauder,marines"])
    charges = [o for o in options.overlays_from_args(bf, args)
               if isinstance(o, overlays.Charge)]
    assert [(c.targets, c.roll) for c in charges] == [(("marauder",), 3),
                                                      (("marauder", "marines"), None)]
    with pytest.raises(TmgError, match="--targets"):
        options.overlays_from_args(bf, _args(["x.toml", "-o", "a.png", "--charge", "zerglings"]))
