"""The viewer's pure layers (no display needed): scene contents, world→pixel transform, label
placement, picking, the click/key controller, camera maths, PNG encoding, option loading."""

from __future__ import annotations

import doctest
import math
import os
import struct
import zlib

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as hs
from shapely.geometry import Point as SPoint
from shapely.geometry import box

import maps
import scenario
from geom.errors import TmgError
from geom.model import Base, Battlefield, Marker, Model, Table, TerrainPiece, Unit
from viewer import interact, labels, layout, overlays, picking, png, scene, strokes, style
from viewer.layout import Camera, frame_for_width, frame_for_window
from viewer.scene import Area, Stroke, Text, Transform, build_scene

LAYOUTS = maps.layout_ids()


def decode_png(data: bytes) -> np.ndarray:
    """Reference decoder for the files viewer.png writes (8-bit RGB, filter 0)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    i, idat, w, h = 8, b"", 0, 0
    while i < len(data):
        (n,) = struct.unpack(">I", data[i:i + 4])
        kind, body = data[i + 4:i + 8], data[i + 8:i + 8 + n]
        assert zlib.crc32(kind + body) & 0xFFFFFFFF == struct.unpack(">I", data[i + 8 + n:i + 12 + n])[0]
        i += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert (depth, ctype) == (8, 2)
        elif kind == b"IDAT":
            idat += body
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + 3 * w)
    assert (raw[:, 0] == 0).all()
    return raw[:, 1:].reshape(h, w, 3)


def marines(at=((10.0, 10.0), (11.5, 10.0)), owner="red", uid="marines") -> Unit:
    base = Base.from_mm(32)
    models = tuple(Model.make(str(i + 1), unit=uid, owner=owner, at=p, base=base, size=2)
                   for i, p in enumerate(at))
    return Unit(uid, owner, 2, models, base)


# --------------------------------------------------------------------------- doctests

@pytest.mark.parametrize("mod", [scene, layout, picking])
def test_doctests(mod):
    res = doctest.testmod(mod)
    assert res.attempted > 0 and res.failed == 0


# --------------------------------------------------------------------------- transform

@settings(max_examples=60, deadline=None)
@given(hs.floats(0.1, 100), hs.floats(-1e4, 1e4), hs.floats(-1e4, 1e4),
       hs.floats(-100, 100), hs.floats(-100, 100))
def test_transform_round_trip(s, ox, oy, x, y):
    t = Transform(s, ox, oy)
    px, py = t.to_px((x, y))
    wx, wy = t.to_world(px, py)
    assert math.isclose(wx, x, abs_tol=1e-6) and math.isclose(wy, y, abs_tol=1e-6)
    assert np.allclose(t.apply(np.array([[x, y]]))[0], (px, py))


@pytest.mark.parametrize("width", [800, 1600, 2400])
@pytest.mark.parametrize("name", ["standard-1", "skirmish-1"])
def test_frame_fits_table_to_width_y_up(name, width):
    bf = scenario.load(name)
    f = frame_for_width(build_scene(bf), width)
    x0, y0 = f.transform.to_px((0, 0))
    x1, y1 = f.transform.to_px((bf.table.width, bf.table.depth))
    assert 0 < x0 < x1 < width and 0 < y0 < y1 < f.height
    assert y1 > y0  # y is up: the far edge is higher in the picture
    assert math.isclose(x1 - x0, bf.table.width * f.transform.scale)
    # the table takes most of the width; text scales with the width
    assert (x1 - x0) / width > 0.9
    assert f.u == pytest.approx(width / 1600)
    # a picture twice as wide is the same picture scaled by two
    g = frame_for_width(build_scene(bf), width * 2)
    assert g.transform.scale == pytest.approx(2 * f.transform.scale)


# --------------------------------------------------------------------------- scene content

@pytest.mark.parametrize("name", LAYOUTS)
def test_every_piece_is_drawn_in_its_size_colour(name):
    bf = scenario.load(name)
    sc = build_scene(bf)
    for p in bf.terrain:
        areas = [a for a in sc.prims if isinstance(a, Area) and a.tag == f"terrain:{p.id}"]
        assert len(areas) == 1
        assert areas[0].geom.equals(p.footprint)
        assert areas[0].colour == (style.GRASS_FILL if p.grass else style.size_fill(p.size))
        # the triangulation covers the footprint exactly
        tri_area = sum(shapely.Polygon(t).area for t in areas[0].triangles)
        assert tri_area == pytest.approx(p.footprint.area, rel=1e-9)
    sizes = {min(p.size, 3) for p in bf.terrain if not p.grass}
    texts = {e.text for e in sc.legend}
    assert {f"terrain {scene.size_name(s)}" for s in sizes} <= texts


def test_grid_is_every_six_inches():
    bf = Battlefield(Table(54, 36))
    sc = build_scene(bf)
    xs = sorted(p.points[0][0] for p in sc.prims if isinstance(p, Stroke) and p.tag == "grid:x")
    ys = sorted(p.points[0][1] for p in sc.prims if isinstance(p, Stroke) and p.tag == "grid:y")
    assert xs == [6.0 * k for k in range(1, 9)]
    assert ys == [6.0 * k for k in range(1, 6)]


def test_deployment_edges_zones_and_markers():
    bf = scenario.load("typhoon")
    sc = build_scene(bf)
    dep = bf.deployment
    assert dep is not None
    for owner, zone in dep.zones.items():
        (a,) = [p for p in sc.prims if isinstance(p, Area) and p.tag == f"zone:{owner}"]
        assert a.geom.equals(zone)
        edges = [p for p in sc.prims if isinstance(p, Stroke) and p.tag == f"edge:{owner}"]
        assert len(edges) == len(dep.entry_edges[owner])
        for s in edges:  # drawn just outside the table, on the side of its edge
            (x1, y1), (x2, y2) = s.points
            mid = ((x1 + x2) / 2 + s.shift[0] * 0.01, (y1 + y2) / 2 + s.shift[1] * 0.01)
            assert not bf.table.polygon.contains(SPoint(mid))
    for m in bf.markers:
        (a,) = [p for p in sc.prims if isinstance(p, Area) and p.tag == f"marker:{m.id}"]
        c = a.geom.centroid
        assert (c.x, c.y) == pytest.approx(m.at, abs=1e-9)
        assert a.colour == style.MARKER_FILL[m.colour]


def test_units_owner_colours_and_leading_model():
    u = marines()
    v = marines(((30.0, 10.0),), owner="blue", uid="lings")
    bf = Battlefield(Table(54, 36), units=(u, v))
    sc = build_scene(bf)
    for unit in (u, v):
        for m in unit.models:
            (a,) = [p for p in sc.prims if isinstance(p, Area) and p.tag == f"model:{m.ref}"]
            assert a.colour[:3] == style.OWNER[unit.owner][:3]
            assert a.geom.area == pytest.approx(math.pi * m.base.a ** 2, rel=2e-3)
    leaders = [p for p in sc.prims if p.tag.startswith("leader:")]
    assert [p.tag for p in leaders] == ["leader:marines/1", "leader:lings/1"]
    names = {p.text for p in sc.prims if isinstance(p, Text) and p.tag.startswith("label:unit")}
    assert names == {"marines", "lings"}


def test_empty_table_is_fine():
    sc = build_scene(Battlefield(Table(36, 36)))
    assert any("Empty table" in s for s in sc.info)
    f = frame_for_width(sc, 1600)
    assert f.height > 0 and f.dropped == ()


def test_raised_tops_access_points_and_openings_are_drawn():
    ridge = TerrainPiece("ridge", 4, box(4, 4, 16, 14), standable=True,
                         access_points=(box(15, 3.5, 16.5, 5),), label="Ridge")
    wall = TerrainPiece("wall", 2, box(20, 4, 22, 14), openings=(box(20, 8, 22, 9),))
    sc = build_scene(Battlefield(Table(54, 36), (ridge, wall)))
    tags = {p.tag for p in sc.prims}
    assert {"top:ridge", "access:ridge", "opening:wall"} <= tags
    (label,) = [p for p in sc.prims if isinstance(p, Text) and p.tag == "label:terrain:ridge"]
    assert "▲4" in label.text and ridge.footprint.contains(SPoint(label.at))


def test_l_wall_halves_share_one_label():
    bf = scenario.load("standard-1")
    sc = build_scene(bf)
    labels = [p for p in sc.prims if isinstance(p, Text) and p.tag.startswith("label:terrain")]
    assert len(labels) < len(bf.terrain)
    assert sum(t.text.startswith("Wall Set 5 (L)") for t in labels) == 2  # one per L wall


# --------------------------------------------------------------------------- labels

def _boxes_overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("name", LAYOUTS)
def test_movable_labels_never_overlap(name):
    f = frame_for_width(build_scene(scenario.load(name)), 1600)
    boxes = [p.box for p in f.texts if p.text.movable]
    assert boxes
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not _boxes_overlap(a, b)


@settings(max_examples=15, deadline=None)
@given(hs.lists(hs.tuples(hs.floats(2, 50), hs.floats(2, 32)), min_size=2, max_size=12,
                unique_by=lambda p: (round(p[0]), round(p[1]))))
def test_crowded_units_all_keep_their_names(points):
    units = []
    for i, (x, y) in enumerate(points):
        units.append(marines(((x, y),), uid=f"u{i}"))
    # drop units whose bases would overlap (not a legal table)
    keep: list[Unit] = []
    for u in units:
        if all(math.dist(u.models[0].at, k.models[0].at) > 1.3 for k in keep):
            keep.append(u)
    f = frame_for_width(build_scene(Battlefield(Table(54, 36), units=tuple(keep))), 1600)
    placed = [p for p in f.texts if p.text.tag.startswith("label:unit")]
    assert {p.string for p in placed} == {u.id for u in keep}  # every unit keeps its name


def test_text_box_grows_with_text_and_size():
    a = labels.text_box("abc", 10, 0, 0)
    b = labels.text_box("abcdef", 10, 0, 0)
    c = labels.text_box("abc", 20, 0, 0)
    assert b[2] - b[0] > a[2] - a[0] and c[3] - c[1] > a[3] - a[1]


# --------------------------------------------------------------------------- strokes

@settings(max_examples=40, deadline=None)
@given(hs.lists(hs.tuples(hs.floats(-500, 500), hs.floats(-500, 500)), min_size=2, max_size=6),
       hs.floats(2, 30), hs.floats(2, 30))
def test_dashes_lie_on_the_line_and_cover_their_share(pts, on, off):
    arr = np.array(pts, dtype=float)
    total = float(np.hypot(*np.diff(arr, axis=0).T).sum())
    segs = strokes.dash_segments(arr, on, off)
    line = shapely.LineString(arr) if total > 0 else None
    drawn = float(np.hypot(*(segs[:, 1] - segs[:, 0]).T).sum()) if len(segs) else 0.0
    assert drawn <= total + 1e-6
    if line is not None and len(segs):
        for s in segs:
            for p in s:
                assert line.distance(SPoint(p)) < 1e-6
    # a long line is drawn for about on/(on+off) of its length
    if total > 20 * (on + off):
        assert drawn / total == pytest.approx(on / (on + off), abs=0.1)


def test_segment_quads_cover_the_segment():
    segs = np.array([[[0.0, 0.0], [10.0, 0.0]]])
    tris = strokes.segment_quads(segs, 4.0).reshape(-1, 3, 2)
    poly = shapely.union_all([shapely.Polygon(t) for t in tris])
    assert poly.area == pytest.approx(14 * 4)  # square caps: 2 px each end
    assert poly.contains(shapely.LineString([(0, 0), (10, 0)]))


# --------------------------------------------------------------------------- picking

@settings(max_examples=40, deadline=None)
@given(hs.floats(0, 2 * math.pi), hs.floats(0, 0.99))
def test_a_click_inside_a_base_picks_that_model(t, r):
    u = marines()
    bf = Battlefield(Table(54, 36), units=(u,), markers=(Marker(5, (27.0, 18.0)),))
    m = u.models[1]
    pt = (m.at[0] + r * m.base.a * math.cos(t), m.at[1] + r * m.base.a * math.sin(t))
    assert picking.pick(bf, pt, 0.1) == m


def test_pick_prefers_bases_then_markers_then_top_piece():
    low = TerrainPiece("low", 1, box(0, 0, 20, 20), standable=True)
    crate = TerrainPiece("crate", 1, box(2, 2, 4, 4), on="low")
    u = marines(((10.0, 10.0),))
    bf = Battlefield(Table(54, 36), (low, crate), (u,), (Marker(1, (15.0, 15.0)),))
    assert picking.pick(bf, (10.2, 10.0), 0.05) == u.models[0]
    assert picking.pick(bf, (15.0, 15.0), 0.05) == bf.markers[0]
    assert picking.pick(bf, (3, 3), 0.05) == crate
    assert picking.pick(bf, (18, 2), 0.05) == low
    assert picking.pick(bf, (40, 30), 0.05) is None


# --------------------------------------------------------------------------- controller

def test_measure_tool_two_clicks_make_a_tape():
    u = marines()
    v = marines(((30.0, 10.0),), owner="blue", uid="lings")
    bf = Battlefield(Table(54, 36), units=(u, v))
    vw = interact.Viewer(bf)
    assert vw.key("m") and vw.tool == "measure"
    vw.click((10.0, 10.3), 0.1)
    assert vw.picks == [u.models[0]]
    vw.click((40.0, 20.0), 0.1)  # empty table: a point
    (tape,) = vw.results
    assert tape == overlays.Measure(u.models[0], (40.0, 20.0))
    sc = vw.scene()
    assert any('Tape: marines/1 to 40,20' in s for s in sc.info)
    assert sc.info[0].startswith("Measure")  # the hint comes first
    vw.click((30.0, 10.0), 0.1)
    vw.click((11.5, 10.0), 0.1)
    d = math.dist(v.models[0].at, u.models[1].at) - 2 * u.models[0].base.a
    assert any(f'{d:.3f}"' in s for s in vw.scene().info)
    assert vw.key("escape") and vw.tool == "select"
    assert vw.key("escape") and vw.results == []


def test_tape_ends_are_a_shortest_segment():
    from geom import distance
    bf = scenario.load("examples/ridge-dispute.toml")
    cases = [("marines/m1", "zerglings/1"), ("hydras/h1", "marker/5"), ("marines", "terrain/wall"),
             ("hydras/h2", "40,5"), ("hydras/h1", "hydras/h2")]
    from scenario import refs
    for a, b in cases:
        x, y = refs.resolve(bf, a), refs.resolve(bf, b)
        layer = overlays.Measure(x, y).build(bf)
        tape = [p for p in layer.prims if isinstance(p, Stroke) and p.tag == "tape"][0]
        p, q = tape.points
        d = distance(x, y)
        assert math.dist(p, q) == pytest.approx(d, abs=2e-3)
        assert distance(x, p) < 2e-3 and distance(y, q) < 2e-3
        assert f'{d:.3f}"' in layer.info[0]


def test_select_tool_describes_what_is_clicked():
    bf = scenario.load("examples/ridge-dispute.toml")
    vw = interact.Viewer(bf)
    vw.click(bf.unit("marines").model("m1").at, 0.1)
    assert vw.selected is not None and vw.selected.id == "marines"
    assert any("high level" in s for s in vw.selection_info)
    vw.click((24.0, 9.0), 0.1)
    assert vw.selection_info[0].startswith("Terrain Ruined wall (terrain/wall)") and "Size 5" in vw.selection_info[0]
    vw.click((27.0, 18.0), 0.1)
    assert vw.selection_info == ["Marker 5 (neutral) at 27, 18"]
    vw.click((50.0, 30.0), 0.1)
    assert vw.selection_info == ["Table point 50.00, 30.00"]


def test_template_tool_needs_models_and_reports_hits():
    bf = scenario.load("examples/ridge-dispute.toml")
    vw = interact.Viewer(bf)
    assert vw.key("t")
    vw.click((50.0, 30.0), 0.1)
    assert "models" in vw.message and vw.picks == []
    vw.click(bf.unit("marines").model("m1").at, 0.1)
    vw.click(bf.unit("zerglings").models[0].at, 0.1)
    (res,) = vw.results
    assert isinstance(res, overlays.Template) and res.kind == "blast"
    assert any(s.startswith("Main target zerglings") for s in vw.scene().info)


@settings(max_examples=40, deadline=None)
@given(hs.floats(0, 1400), hs.floats(0, 950), hs.floats(0.3, 5), hs.floats(0.5, 2.0))
def test_zoom_keeps_the_point_under_the_cursor(px, py, zoom, factor):
    bf = Battlefield(Table(54, 36))
    sc = build_scene(bf)
    fit = interact.window_fit(sc, 1400, 950)
    cam = Camera(zoom, (20.0, 15.0))
    before = frame_for_window(sc, 1400, 950, cam).transform.to_world(px, py)
    cam2 = interact.zoom_at(cam, fit, bf, px, py, factor)
    if not interact.ZOOM_MIN < zoom * factor < interact.ZOOM_MAX:
        return
    after = frame_for_window(sc, 1400, 950, cam2).transform.to_world(px, py)
    assert after == pytest.approx(before, abs=1e-6)
    assert cam2.zoom == pytest.approx(zoom * factor)


def test_pan_moves_the_table_with_the_mouse():
    bf = Battlefield(Table(54, 36))
    sc = build_scene(bf)
    fit = interact.window_fit(sc, 1400, 950)
    cam = Camera()
    p0 = frame_for_window(sc, 1400, 950, cam).transform.to_px((10, 10))
    cam = interact.pan(cam, fit, bf, 35, -20)
    p1 = frame_for_window(sc, 1400, 950, cam).transform.to_px((10, 10))
    assert (p1[0] - p0[0], p1[1] - p0[1]) == pytest.approx((35, -20))


# --------------------------------------------------------------------------- png and options

def test_png_round_trip_and_atomic_write(tmp_path):
    rng = np.random.default_rng(1)
    img = rng.integers(0, 256, (37, 53, 3), dtype=np.uint8)
    out = tmp_path / "x.png"
    png.write(out, img)
    assert np.array_equal(decode_png(out.read_bytes()), img)
    assert [p.name for p in tmp_path.iterdir()] == ["x.png"]  # no temporary left behind
    mask = os.umask(0)
    os.umask(mask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~mask  # not mkstemp's private 0600
    with pytest.raises(TmgError, match="does not exist"):
        png.write(tmp_path / "nope" / "x.png", img)


def test_load_with_deployment_and_errors(tmp_path):
    from viewer import options
    bf, _ = options.load("standard-3", "gauntlet")
    assert bf.deployment is not None and bf.deployment.id == "gauntlet"
    assert len(bf.terrain) == len(maps.load_layout("standard-3").terrain)
    assert len(bf.markers) == 5 and bf.name == "Standard map 3 · Gauntlet"
    bf, _ = options.load("examples/ridge-dispute.toml", "breach")
    assert bf.deployment is not None and bf.deployment.id == "breach"
    with pytest.raises(TmgError, match="neither a file nor"):
        options.load("standard-99")
    with pytest.raises(TmgError, match="deployment card already"):
        options.load("gauntlet", "typhoon")
    with pytest.raises(TmgError, match="unknown deployment card"):
        options.load("standard-1", "no-such-card")
    bad = tmp_path / "bad.toml"
    bad.write_text("format = 'tmg-scenario/1'\n[table]\nwidth = 'wide'\ndepth = 36\n")
    with pytest.raises(TmgError, match="bad.toml.*width"):
        options.load(str(bad))


# --------------------------------------------------------------------------- movement overlays

ROACH = "examples/roach-charge.toml"


def test_charge_overlay_follows_the_engine_and_the_roll():
    from geom.combat import _charge as ch
    bf = scenario.load(ROACH)
    ans = ch.charge(bf, "roaches", ["marauder"], -2)
    assert ans.min_roll is not None
    for roll in (ans.min_roll - 1, ans.min_roll):
        layer = overlays.Charge("roaches", ("marauder",), roll, -2).build(bf)
        verdict = [s for s in layer.info if s.startswith(f"Roll {roll}")]
        assert verdict and ("SUCCEEDS" in verdict[0]) == (roll >= ans.min_roll)
        (path,) = [p for p in layer.prims if isinstance(p, Stroke) and p.tag == "charge:path"]
        assert path.points == tuple(ans.path)
        reached = [p for p in layer.prims if isinstance(p, Area) and p.tag == "charge:reached"]
        # the shortest charge ends in E; with the smallest roll some of E is reached
        assert bool(reached) == (roll >= ans.min_roll)
    vw = interact.Viewer(bf)
    assert vw.key("g") and vw.key("5")
    vw.click(bf.unit("roaches").models[0].at, 0.1)
    vw.click(bf.unit("marauder").models[1].at, 0.1)
    assert vw.results == [overlays.Charge("roaches", ("marauder",), 5)]
    assert vw.key("6") and vw.results == [overlays.Charge("roaches", ("marauder",), 6)]


HEDGE_DOC = {
    "format": "tmg-scenario/1", "table": {"width": 54, "depth": 36},
    "terrain": [{"id": "hedge", "size": 2, "kind": "grass", "label": "Shrubs",
                 "polygon": [[18.9, 10], [19.1, 10], [19.1, 26], [18.9, 26]]},
                {"id": "far", "size": 2, "kind": "grass", "rect": {"center": [40, 30],
                                                                   "width": 2, "depth": 2}}],
    "unit": [{"id": "lings", "type": "zergling", "owner": "red", "models": [[10, 18]]},
             {"id": "marines", "type": "marine", "owner": "blue", "models": [[20, 18]]}],
}


def test_grass_keyword_the_grass_a_charge_or_move_destroys_is_drawn_gone():
    # one marking for "destroyed by this move", on exactly the pieces the engine names
    from geom.combat import _charge as ch
    from viewer import markings as mk
    bf = scenario.parse_document(HEDGE_DOC)
    ans = ch.charge(bf, "lings", ["marines"])
    assert ans.details["destroys_grass"] == ["hedge"]
    for layer in (overlays.Charge("lings", ("marines",)).build(bf),
                  overlays.Move(bf.unit("lings").models[0], (19.0, 22.0), 12).build(bf)):
        gone = [p for p in layer.prims if p.mark == mk.GONE]
        assert gone and {p.tag.rsplit(":", 1)[1] for p in gone} == {"hedge"}
        assert any("gone for the end" in s and "Shrubs (terrain/hedge)" in s for s in layer.info)
    # a move that crosses nothing draws nothing gone
    layer = overlays.Move(bf.unit("lings").models[0], (10.0, 14.0)).build(bf)
    assert not [p for p in layer.prims if p.mark == mk.GONE]
    sc = build_scene(bf, [overlays.Charge("lings", ("marines",))])
    assert "destroyed by this move (gone)" in [e.text for e in sc.legend]


def test_reach_toggle_needs_a_selected_unit():
    from geom.movement import _moves as movement
    bf = scenario.load(ROACH)
    vw = interact.Viewer(bf)
    vw.key("r")
    assert not vw.reach and "Select a unit" in vw.message
    vw.click(bf.unit("roaches").models[1].at, 0.1)
    vw.key("r")
    assert vw.reach and overlays.Reach("roaches") in vw.overlays()
    u = bf.unit("roaches")
    region = movement.reach(bf, u, u.leading_model.at, movement.allowance_of(u))
    (a,) = [p for p in vw.scene().prims if isinstance(p, Area) and p.tag == "reach:roaches"]
    assert a.geom.equals(region)


COHERENCY_DOC = {
    "format": "tmg-scenario/1", "table": {"width": 36, "depth": 36},
    "terrain": [{"id": "wall", "size": 3, "rect": {"center": [12, 18], "width": 1, "depth": 8}}],
    "unit": [{"id": "marines", "type": "marine", "owner": "red", "leading": "1",
              "models": [[10, 18], [10, 19.5], [10, 16.5], [13.5, 18], [8.5, 18]]},
             {"id": "lings", "type": "zergling", "owner": "blue",
              "models": [[25, 10], [26.4, 10], [27.8, 10], [25, 11.4]]}],
}


def test_coherency_overlay_draws_the_engine_links_and_failures():
    from geom.movement import _coherency as coh
    bf = scenario.parse_document(COHERENCY_DOC)
    layer = overlays.Coherency(None).build(bf)
    for u in bf.units:
        v = coh.coherency(bf, u)
        ok_links = {frozenset((lk["a"], lk["b"])) for lk in v.details["links"] if lk["ok"]}
        drawn = [p.tag.split("/", 1)[1].split("-") for p in layer.prims
                 if p.tag.startswith(f"coherency:link:{u.id}/")]
        # a tree: every model the engine links to the leader is reached, over valid links only
        assert all(frozenset(d) in ok_links for d in drawn)
        failed = {f["model"] for f in v.details["failures"]}
        assert len(drawn) == len(u.models) - 1 - len(failed)
        rings = {p.tag.rsplit("/", 1)[1] for p in layer.prims
                 if p.tag.startswith(f"coherency:fail:{u.id}/")}
        assert rings == failed
        assert any(v.reason in s for s in layer.info)
    assert {f["model"] for f in coh.coherency(bf, "marines").details["failures"]} == {"4"}
    vw = interact.Viewer(bf)
    vw.click(bf.unit("lings").models[0].at, 0.1)
    assert vw.key("c") and vw.coherency
    assert overlays.Coherency(("lings",)) in vw.overlays()


def test_move_overlay_draws_the_engine_path(tmp_path, capsys):
    from geom.movement import _moves as movement
    from tmg import cli
    bf = scenario.load("examples/gap-run.toml")
    m = bf.unit("marines").models[0]
    chk = movement.check_move(bf, bf.unit("marines"), m, (24.0, 27.0), allowance=20)
    assert chk.verdict.ok and chk.path is not None and len(chk.path.points) > 2
    layer = overlays.Move(m, (24.0, 27.0), 20).build(bf)
    (path,) = [p for p in layer.prims if isinstance(p, Stroke) and p.tag == "move:path"]
    assert path.points == tuple(chk.path.points)
    assert "LEGAL" in layer.info[0] and chk.verdict.reason in layer.info[0]
    # the options build the same overlay; bad input is named
    from viewer import options
    p = cli.build_parser()
    args = p.parse_args(["render", "examples/gap-run.toml", "-o", "x.png", "--move",
                         "marines/1", "24,27", "--allowance", "20", "--coherency", "all"])
    ovs = options.overlays_from_args(bf, args)
    assert overlays.Move(m, (24.0, 27.0), 20) in ovs and overlays.Coherency(None) in ovs
    assert cli.main(["render", "examples/gap-run.toml", "-o", str(tmp_path / "x.png"),
                     "--move", "marines/1", "north"]) == 2
    assert "--move expects X,Y" in capsys.readouterr().err
    assert cli.main(["render", "examples/gap-run.toml", "-o", str(tmp_path / "x.png"),
                     "--roll", "3"]) == 2
    assert "--charge" in capsys.readouterr().err


def test_a_footprint_with_repeated_vertices_loads_and_draws():
    # found by benchmarks/fuzz.py: GEOS's constrained triangulation gave up on a ring that
    # repeats a vertex, and `tmg render` ended in an internal error
    ring = [[16, 6], [18, 6], [18, 17.4], [16, 17.4]] + [[16, 6]] * 40
    bf = scenario.parse_document({"format": "tmg-scenario/1",
                                  "table": {"width": 36, "depth": 36},
                                  "terrain": [{"id": "w", "size": 3, "polygon": ring}]})
    assert len(bf.piece("w").footprint.exterior.coords) == 5
    sc = build_scene(bf)
    (a,) = [p for p in sc.prims if isinstance(p, Area) and p.tag == "terrain:w"]
    assert a.triangles.shape[0] >= 2
    assert sum(shapely.Polygon(t).area for t in a.triangles) == pytest.approx(2 * 11.4)
    # and the drawing fallback, for a region the loader did not clean
    raw = Area(shapely.Polygon([(16, 6), (18, 6), (18, 17.4), (16, 17.4)] + [(16, 6)] * 40),
               (0, 0, 0, 255), 0)
    assert sum(shapely.Polygon(t).area for t in raw.triangles) == pytest.approx(2 * 11.4)
