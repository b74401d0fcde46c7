"""Pictures: render official layouts, a deployment card and a dispute scenario off screen and
check pixels against the scene's world→pixel transform (table size, 6" grid, terrain colours
inside footprints, markers at their coordinates, overlays where the engine's answer lies),
and the `tmg render` command end to end.

Needs OpenGL: a display (the suite runs itself under xvfb-run) or a headless EGL context;
without either these tests SKIP with the reason.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import shapely
from shapely.geometry import Point as SPoint

import maps
import scenario
from geom.errors import TmgError
from geom.model import Base, Battlefield, Model, Table, Unit
from tmg import cli
from viewer import overlays, style
from viewer.layout import frame_for_width
from viewer.scene import Stroke, build_scene

from .test_viewer_scene import decode_png

ROOT = Path(__file__).resolve().parent.parent
RIDGE = str(ROOT / "examples" / "ridge-dispute.toml")
pytestmark = pytest.mark.viewer


@pytest.fixture(scope="module")
def off():
    try:
        from viewer import draw
        o = draw.Offscreen()
    except TmgError as exc:
        pytest.skip(f"no OpenGL context for drawing (run under xvfb-run): {exc}")
    yield o
    o.close()


def render(off, bf, overlay_list=(), width=1600):
    sc = build_scene(bf, overlay_list)
    frame = frame_for_width(sc, width)
    pic = off.render(sc, frame)
    assert pic.rgb.shape == (frame.height, frame.width, 3)
    return sc, frame, pic


def blend(fg, bg):
    a = fg[3] / 255
    return tuple(round(fg[i] * a + bg[i] * (1 - a)) for i in range(3))


def close_to(c, want, tol=6):
    return max(abs(int(a) - int(b)) for a, b in zip(c, want, strict=True)) <= tol


def label_boxes(frame, pad=1.5):
    return [(b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad) for b in (p.box for p in frame.texts)]


def in_boxes(px, py, boxes):
    return any(b[0] <= px <= b[2] and b[1] <= py <= b[3] for b in boxes)


def near_grid(x, y, d):
    return min(x % 6, 6 - x % 6) < d or min(y % 6, 6 - y % 6) < d


# --------------------------------------------------------------------------- layouts

def _darkness_centre(pic, py, lo, hi, ref):
    """Sub-pixel centre of the pixels darker than `ref` along row py between columns lo..hi."""
    row = pic.rgb[int(py), int(lo):int(hi) + 1].astype(float)
    dark = np.clip(np.array(ref[:3], float) - row, 0, None).sum(axis=1)
    if dark.sum() < 30:
        return None
    return int(lo) + float((dark * np.arange(len(dark))).sum() / dark.sum()) + 0.5


def _darkness_centre_col(pic, px, lo, hi, ref):
    col = pic.rgb[int(lo):int(hi) + 1, int(px)].astype(float)
    dark = np.clip(np.array(ref[:3], float) - col, 0, None).sum(axis=1)
    if dark.sum() < 30:
        return None
    return int(lo) + float((dark * np.arange(len(dark))).sum() / dark.sum()) + 0.5


@pytest.mark.parametrize("name", maps.layout_ids())
def test_official_layout_pixels(off, name):
    bf = scenario.load(name)
    sc, frame, pic = render(off, bf)
    tr, t = frame.transform, bf.table
    assert frame.width == 1600
    boxes = label_boxes(frame)
    terrain = shapely.union_all([p.footprint for p in bf.terrain])
    # -- table size in pixels: the border's centre lines are width·scale apart
    found = 0
    for y in np.arange(1.0, t.depth - 1, 0.5):
        if terrain.distance(shapely.box(-1, y - 0.5, 2, y + 0.5)) < 0.1 or \
                terrain.distance(shapely.box(t.width - 2, y - 0.5, t.width + 1, y + 0.5)) < 0.1:
            continue
        x0, py = tr.to_px((0, y))
        x1, _ = tr.to_px((t.width, y))
        if in_boxes(x0, py, boxes) or in_boxes(x1, py, boxes) or near_grid(3, y, 0.3):
            continue
        left = _darkness_centre(pic, py, x0 - 6, x0 + 6, style.MAT)
        right = _darkness_centre(pic, py, x1 - 6, x1 + 6, style.MAT)
        assert left == pytest.approx(x0, abs=0.75) and right == pytest.approx(x1, abs=0.75)
        assert right - left == pytest.approx(t.width * tr.scale, abs=1.5)
        found += 1
    assert found >= 3
    # -- the 6" grid: every line where the engine's transform puts it, 6·scale px apart
    centres = {}
    for k in range(1, int(t.width // 6) + (0 if t.width % 6 else 0)):
        x = 6.0 * k
        if x >= t.width:
            break
        for y in np.arange(0.75, t.depth - 0.5, 0.25):
            if near_grid(1, y, 0.5) or terrain.distance(SPoint(x, y)) < 0.7:
                continue
            px, py = tr.to_px((x, y))
            if in_boxes(px - 10, py, boxes) or in_boxes(px + 10, py, boxes) or \
                    in_boxes(px, py, boxes):
                continue
            c = _darkness_centre(pic, py, px - 8, px + 8, style.MAT)
            assert c == pytest.approx(px, abs=0.75), (name, x, y)
            centres[k] = c
            break
    assert len(centres) == len([k for k in range(1, 10) if 6 * k < t.width])
    ks = sorted(centres)
    for a, b in zip(ks, ks[1:], strict=False):
        assert (centres[b] - centres[a]) / (b - a) == pytest.approx(6 * tr.scale, abs=0.6)
    # -- terrain colour inside every footprint: the Size colour (grass composited over what
    #    lies below it), at points clear of edges, grid lines and labels
    areas = [a for a in sc.prims if a.tag.startswith("terrain:") and hasattr(a, "geom")]
    edges = shapely.union_all([q.footprint.boundary for q in bf.terrain])
    tops = shapely.union_all([q.footprint.buffer(-0.2).boundary for q in bf.terrain
                              if q.can_stand_on] or [shapely.Point()])
    aps = shapely.union_all([ap for q in bf.terrain for ap in q.access_points]
                            or [shapely.Point()])
    for p in bf.terrain:
        inner = p.footprint.buffer(-0.12)
        x0, y0, x1, y1 = inner.bounds if not inner.is_empty else (0, 0, 0, 0)
        checked = 0
        for x in np.arange(x0, x1, 0.1):
            for y in np.arange(y0, y1, 0.1):
                if checked >= 4:
                    break
                q = SPoint(x, y)
                if not inner.contains(q) or edges.distance(q) < 0.12 or near_grid(x, y, 0.12) \
                        or tops.distance(q) < 0.15 or aps.distance(q) < 0.15:
                    continue
                stack = [a for a in areas if a.geom.contains(q)]
                if stack[-1].tag != f"terrain:{p.id}":
                    continue  # another piece is drawn over this point
                px, py = tr.to_px((x, y))
                if in_boxes(px, py, boxes):
                    continue
                want = style.MAT[:3]
                for a in stack:
                    want = blend(a.colour, want)
                assert close_to(pic.at(px, py), want), (p.id, (x, y), pic.at(px, py), want)
                checked += 1
        assert checked >= 1, f"no free pixel inside {p.id}"
    # -- outside the table: background
    assert close_to(pic.at(2, frame.height / 2), style.BACKGROUND[:3])


def test_deployment_card_markers_zones_and_edges(off):
    bf = scenario.load("typhoon")
    sc, frame, pic = render(off, bf)
    tr = frame.transform
    for m in bf.markers:
        r = m.ellipse.a
        cx, cy = tr.to_px(m.at)
        for ang in (0, 90, 180, 270):
            px = cx + 0.75 * r * tr.scale * math.cos(math.radians(ang))
            py = cy + 0.75 * r * tr.scale * math.sin(math.radians(ang))
            assert close_to(pic.at(px, py), style.MARKER_FILL[m.colour][:3]), (m.id, ang)
        out = pic.at(cx + 1.6 * r * tr.scale, cy)
        assert not close_to(out, style.MARKER_FILL[m.colour][:3], 30)
    dep = bf.deployment
    assert dep is not None
    for owner, zone in dep.zones.items():
        markers = shapely.union_all([m.ellipse.shape for m in bf.markers])
        inner = zone.buffer(-0.3)
        x0, y0, x1, y1 = inner.bounds
        pt = next(q for q in (SPoint(x, y) for x in np.arange(x0, x1, 0.25)
                              for y in np.arange(y0, y1, 0.25))
                  if inner.contains(q) and not near_grid(q.x, q.y, 0.2)
                  and markers.distance(q) > 0.3)
        px, py = tr.to_px((pt.x, pt.y))
        want = blend(style.with_alpha(style.OWNER[owner], style.ZONE_ALPHA), style.MAT)
        assert close_to(pic.at(px, py), want), owner
        for seg in dep.entry_edges[owner]:
            (x1, y1), (x2, y2) = seg.coords[0], seg.coords[-1]
            mx, my = tr.to_px(((x1 + x2) / 2, (y1 + y2) / 2))
            # the edge line lies just outside the table edge
            nx = -1 if x1 == x2 == 0 else 1 if x1 == x2 else 0
            ny = -1 if y1 == y2 == 0 else 1 if y1 == y2 else 0
            off_px = (style.EDGE_LINE_WIDTH / 2 + style.TABLE_EDGE_WIDTH / 2) * frame.u
            assert close_to(pic.at(mx + nx * off_px, my + ny * off_px), style.OWNER[owner][:3],
                            12), owner


def test_empty_table_renders(off):
    sc, frame, pic = render(off, Battlefield(Table(36, 36)), width=900)
    cx, cy = frame.transform.to_px((3, 3))
    assert close_to(pic.at(cx, cy), style.MAT[:3])
    assert frame.width == 900


# --------------------------------------------------------------------------- overlays

def test_tape_is_drawn_where_the_engine_measures(off):
    bf = scenario.load(RIDGE)
    a, b = bf.unit("marines").model("m1"), bf.unit("hydras").model("h2")
    sc, frame, pic = render(off, bf, [overlays.Measure(a, b)])
    (tape,) = [p for p in sc.prims if isinstance(p, Stroke) and p.tag == "tape"][:1]
    (p, q) = tape.points
    boxes = label_boxes(frame, 0)
    hits = 0
    for t in np.linspace(0.1, 0.9, 17):
        x, y = p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])
        px, py = frame.transform.to_px((x, y))
        if in_boxes(px, py, boxes):
            continue
        c = pic.at(px, py)
        assert close_to(c, style.TAPE_ALT[:3], 60) or close_to(c, style.TAPE[:3], 60), (t, c)
        hits += 1
    assert hits >= 10


def test_template_area_and_hits(off):
    bf = scenario.load(RIDGE)
    ov = overlays.Template("blast", bf.unit("marines").model("m1"),
                           bf.unit("zerglings").models[0])
    sc, frame, pic = render(off, bf, [ov])
    layer = ov.build(bf)
    tpl = [p for p in layer.prims if p.tag == "template:area"][0].geom
    models = shapely.union_all([m.ellipse.shape.buffer(0.25) for m in bf.models()])
    inside = [SPoint(x, y) for x in np.arange(27, 34, 0.1) for y in np.arange(5, 12, 0.1)]
    free = [q for q in inside if tpl.buffer(-0.15).contains(q) and models.distance(q) > 0.05
            and not near_grid(q.x, q.y, 0.15)]
    assert free
    want = blend(style.TEMPLATE_FILL, style.MAT)
    for q in free[:: max(1, len(free) // 5)]:
        px, py = frame.transform.to_px((q.x, q.y))
        assert close_to(pic.at(px, py), want, 8)
    assert any(s.startswith("Main target zerglings: 4") for s in sc.info)


def test_engaged_pair_is_drawn_on_the_engine_witness(off):
    from geom import engagement

    base = Base.from_mm(32)
    a = Model.make("1", unit="a", owner="red", at=(10, 10), base=base, size=1)
    b = Model.make("1", unit="b", owner="blue", at=(12.1, 10.3), base=base, size=1)
    bf = Battlefield(Table(36, 36), units=(Unit("a", "red", 1, (a,), base),
                                           Unit("b", "blue", 1, (b,), base)))
    v = engagement.models_engaged(bf, a, b)
    assert v.ok
    sc, frame, pic = render(off, bf, [overlays.Engagement()])
    (pair,) = [p for p in sc.prims if isinstance(p, Stroke) and p.tag == "engagement:pair"]
    assert np.allclose(pair.points, v.witness)
    (x1, y1), (x2, y2) = v.witness
    px, py = frame.transform.to_px(((x1 + x2) / 2, (y1 + y2) / 2))
    assert close_to(pic.at(px, py), style.ENGAGEMENT[:3], 25)
    assert any(s.startswith("Engaged: a and b") for s in sc.info)


SIGHT = str(ROOT / "examples" / "sight-dispute.toml")


def test_sight_line_is_drawn_on_the_engine_witness(off):
    from geom.sight._sight import line_of_sight

    bf = scenario.load(SIGHT)
    m1 = bf.unit("marines").model("m1")
    seen, hidden = bf.unit("zerglings").models[0], bf.unit("zerglings").models[2]
    v_seen, v_hidden = line_of_sight(bf, m1, seen), line_of_sight(bf, m1, hidden)
    assert v_seen.ok and not v_hidden.ok and v_hidden.details["blocking"]
    sc, frame, pic = render(off, bf, [overlays.Sight(m1, seen), overlays.Sight(m1, hidden)])
    (w,) = [p for p in sc.prims if isinstance(p, Stroke) and p.tag == "sight:witness"]
    assert np.allclose(w.points, v_seen.witness)
    # the witness starts off the marine's centre: the dispute is about a line from its rim
    assert math.dist(w.points[0], m1.at) > 0.3
    boxes = label_boxes(frame)
    (p, q), hits = w.points, 0
    for t in np.linspace(0.15, 0.85, 15):
        x, y = p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])
        px, py = frame.transform.to_px((x, y))
        if in_boxes(px, py, boxes):
            continue
        assert close_to(pic.at(px, py), style.SIGHT_CLEAR[:3], 30), t
        hits += 1
    assert hits >= 8
    # the piece that blocks the other pair is painted over, away from lines and labels
    for pid in v_hidden.details["blocking"]:
        piece = bf.piece(pid)
        want = blend(style.BLOCKING_FILL, style.size_fill(piece.size))
        inner = piece.footprint.buffer(-0.2)
        line = shapely.LineString([m1.at, hidden.at]).buffer(0.3)
        pts = [SPoint(x, y) for x in np.arange(*inner.bounds[0::2], 0.2)
               for y in np.arange(*inner.bounds[1::2], 0.2)]
        free = [pt for pt in pts if inner.contains(pt) and line.distance(pt) > 0
                and not in_boxes(*frame.transform.to_px((pt.x, pt.y)), boxes)]
        assert free
        for pt in free[:: max(1, len(free) // 6)]:
            assert close_to(pic.at(*frame.transform.to_px((pt.x, pt.y))), want, 8), pid
    assert any(v_hidden.rule in s and v_hidden.reason in s for s in sc.info)


def test_label_boxes_fit_their_text(off):
    from viewer import draw

    bf = scenario.load(SIGHT)
    sc = build_scene(bf)
    frame = frame_for_width(sc, 1600)
    d = draw.Drawing(frame, sc)
    assert d.labels
    for pl, label in d.labels:
        x0, _, x1, _ = pl.box
        room = (x1 - x0) - 0.5 * pl.size  # the box minus the halo's padding
        assert label.content_width <= room + 0.06 * pl.size + 1, pl.string
        assert label.content_width >= 0.85 * room - 2, pl.string


# --------------------------------------------------------------------------- the command

def test_tmg_render_command(off, tmp_path, capsys):
    out = tmp_path / "ridge.png"
    rc = cli.main(["render", RIDGE, "-o", str(out), "--width", "1000", "--json",
                   "--measure", "marines/m1", "marker/5"])
    assert rc == 0
    r = json.loads(capsys.readouterr().out)
    assert r["output"] == str(out) and r["width"] == 1000 and r["height"] > 600
    img = decode_png(out.read_bytes())
    assert img.shape == (r["height"], 1000, 3)
    assert any("Tape: marines/m1 to marker/5" in s for s in r["info"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ridge.png"]
    # an independent decoder agrees
    import pyglet
    im = pyglet.image.load(str(out))
    assert (im.width, im.height) == (1000, r["height"])
    data = np.frombuffer(im.get_image_data().get_data("RGB", im.width * 3), np.uint8)
    assert np.array_equal(data.reshape(im.height, im.width, 3)[::-1], img)


@pytest.mark.parametrize("argv, message", [
    (["standard-77", "-o", "x.png"], "neither a file nor"),
    ([RIDGE, "-o", "x.jpg"], ".png"),
    ([RIDGE, "-o", "x.png", "--width", "50"], "--width"),
    ([RIDGE, "-o", "x.png", "--measure", "marines/m9", "marker/5"], "no model 'm9'"),
    ([RIDGE, "-o", "x.png", "--measure", "ghosts", "marker/5"], "no unit 'ghosts'"),
    (["standard-1", "--deployment", "nowhere", "-o", "x.png"], "unknown deployment card"),
    ([RIDGE, "-o", "x.png", "--blast", "marines", "zerglings/1"], "needs a model"),
])
def test_tmg_render_errors(tmp_path, capsys, argv, message, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["render", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())


def test_bad_scenario_file_is_named(tmp_path, capsys):
    bad = tmp_path / "broken.toml"
    bad.write_text("format = 'tmg-scenario/1'\n[table\n")
    assert cli.main(["render", str(bad), "-o", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "broken.toml" in err and "not valid TOML" in err


def _no_display_env():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["PYTHONPATH"] = str(ROOT)
    return env


def test_render_without_any_display(tmp_path):
    """No DISPLAY at all: headless EGL draws the picture, or the error says what to do."""
    out = tmp_path / "s.png"
    p = subprocess.run([sys.executable, "-m", "tmg.cli", "render", "skirmish-2", "-o", str(out),
                        "--width", "600"], env=_no_display_env(), capture_output=True, text=True,
                       timeout=120)
    assert "Traceback" not in p.stderr
    if p.returncode == 0:
        assert decode_png(out.read_bytes()).shape[1] == 600
    else:
        assert p.returncode == 2 and "xvfb-run" in p.stderr


def test_view_without_display_explains(tmp_path):
    p = subprocess.run([sys.executable, "-m", "tmg.cli", "view", "standard-1"],
                       env=_no_display_env(), capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert "no display" in p.stderr and "tmg render" in p.stderr and "xvfb-run" in p.stderr
    assert "Traceback" not in p.stderr


def test_reach_region_pixels(off):
    from geom.movement import _moves as movement
    bf = scenario.load(str(ROOT / "examples" / "gap-run.toml"))
    u = bf.unit("marines")
    region = movement.reach(bf, u, u.leading_model.at, 10)
    sc, frame, pic = render(off, bf, [overlays.Reach("marines", 10)])
    boxes = label_boxes(frame)
    bases = shapely.union_all([m.ellipse.shape.buffer(0.3) for m in bf.models()])
    terrain = shapely.union_all([p.footprint.buffer(0.1) for p in bf.terrain])
    inside = region.buffer(-0.2)
    outside = region.buffer(0.2).symmetric_difference(region.buffer(3)).difference(terrain)
    tint = blend(style.REACH_FILL, style.MAT)
    n_in = n_out = 0
    for x in np.arange(0.5, 35.5, 0.7):
        for y in np.arange(0.5, 35.5, 0.7):
            q = SPoint(x, y)
            if near_grid(x, y, 0.15) or bases.contains(q):
                continue
            px, py = frame.transform.to_px((x, y))
            if in_boxes(px, py, boxes):
                continue
            if inside.contains(q) and not terrain.contains(q):
                assert close_to(pic.at(px, py), tint), (x, y)
                n_in += 1
            elif outside.contains(q):
                assert close_to(pic.at(px, py), style.MAT[:3]), (x, y)
                n_out += 1
    assert n_in > 50 and n_out > 50


def test_render_template_size_options(off, tmp_path, capsys):
    out = tmp_path / "t.png"
    assert cli.main(["render", RIDGE, "-o", str(out), "--json", "--blast", "marines/m1",
                     "zerglings/1", "--diameter", "1.2"]) == 0
    info = json.loads(capsys.readouterr().out)["info"]
    assert any('diameter 1.2"' in s and "PROVISIONAL" not in s for s in info)
    assert any(s.startswith("Main target zerglings: 1 model") for s in info)
    assert cli.main(["render", RIDGE, "-o", str(out), "--blast", "marines/m1", "zerglings/1",
                     "--diameter", "-1"]) == 2
    assert "--diameter" in capsys.readouterr().err


def test_gpu_halving_equals_the_box_filter(off):
    """The fast path (a linear blit at half size) against the obviously correct one (draw at
    twice the size, average every 2×2 block in numpy)."""
    from viewer import draw

    bf = scenario.load(RIDGE)
    sc = build_scene(bf, [overlays.Measure(bf.unit("marines").model("m1"), (40.0, 30.0))])
    frame = frame_for_width(sc, 700)
    fast = off.render(sc, frame, supersample=2).rgb
    big = off.render(sc, frame.scaled(2), supersample=1).rgb
    slow = draw.box_filter(big, 2)
    assert fast.shape == slow.shape
    diff = np.abs(fast.astype(int) - slow.astype(int))
    assert diff.max() <= 2 and diff.mean() < 0.1
