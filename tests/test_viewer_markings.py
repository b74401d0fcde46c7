"""One meaning per marking, every marking in the legend; pieces named the same way in text and
pictures; labels and axis figures behave when the window is zoomed and panned; the hook for
extra primitives and legend entries (a colour bar); the pure viewer modules' docstrings."""

from __future__ import annotations

import doctest
import importlib
import itertools
import math
from pathlib import Path

import pytest
import shapely

import maps
import scenario
from viewer import markings as mk
from viewer import overlays
from viewer.layout import Camera, frame_for_width, frame_for_window
from viewer.markings import LegendEntry
from viewer.scene import Area, OverlayLayer, Stroke, Text, build_scene, short_label

ROOT = Path(__file__).resolve().parent.parent
SIGHT = str(ROOT / "examples" / "sight-dispute.toml")
MELEE = str(ROOT / "examples" / "melee-ranks.toml")
FURNITURE = ("table", "grid")  # the mat, its edge and the grid: named by the subtitle


def _distance(a, b):
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)))


def test_no_two_markings_look_alike():
    keys = [m.key for m in mk.ALL]
    assert len(keys) == len(set(keys))
    for a, b in itertools.combinations(mk.ALL, 2):
        if a.kind != b.kind:
            continue
        apart = _distance(a.colour, b.colour) >= 45 or (
            a.edge is not None and b.edge is not None and _distance(a.edge, b.edge) >= 45)
        assert apart, (a.key, b.key)


def test_the_issue_s_double_meanings_are_gone():
    # yellow ring: only the leading model; dashed magenta: only "no sight line"
    rings = [m for m in mk.ALL if m.kind in ("ring", "dashring")]
    yellow = [m.key for m in rings if _distance(m.colour, mk.LEADER.colour) < 45]
    assert yellow == ["leader"]
    assert mk.PASSED_BY.kind != mk.NO_SIGHT.kind and \
        _distance(mk.PASSED_BY.colour, mk.NO_SIGHT.colour) >= 45
    assert mk.SIGHT_LINE.colour != mk.COHERENCY_LINK.colour


def _every_overlay_scene():
    bf = scenario.load(SIGHT)
    m1, zs = bf.unit("marines").model("m1"), bf.unit("zerglings").models
    ovs = [overlays.Sight(m1, zs[0]), overlays.Sight(m1, zs[2]), overlays.Measure(m1, zs[1]),
           overlays.Highlight((bf.piece("standard-1/13"),)), overlays.Engagement(),
           overlays.Coherency(None), overlays.Template("blast", m1, zs[0]),
           overlays.Reach("marines"), overlays.Move(m1, (21.5, 11.0)),
           overlays.Move(m1, (21.5, 17.5))]
    return bf, build_scene(bf, ovs)


def test_every_drawn_marking_is_in_the_legend_and_nothing_else():
    for _bf, sc in [_every_overlay_scene(), (scenario.load(MELEE), build_scene(
            scenario.load(MELEE), [overlays.Fight("marines"), overlays.Disengage("zerglings")])),
            (scenario.load("typhoon"), build_scene(scenario.load("typhoon")))]:
        drawn = set()
        for p in sc.prims:
            if isinstance(p, Text):
                if p.mark is not None:  # figures on models (casualty order) are markings too
                    drawn.add((p.mark.key, p.mark.text))
                continue
            if p.mark is None:
                assert p.tag.split(":")[0] in FURNITURE, p.tag
                continue
            drawn.add((p.mark.key, p.mark.text))
        legend = {(e.key, e.text) for e in sc.legend}
        assert drawn == legend
        # every answer's prims carry a marking from the registry
        registry = {m.key for m in mk.ALL}
        assert {k for k, _ in drawn} <= registry


def test_terrain_is_named_by_title_in_text_and_short_labels_are_not_bare_figures():
    bf, sc = _every_overlay_scene()
    wall = bf.piece("standard-1/13")
    assert any(wall.title in s for s in sc.info)  # "Wall Set 2 (terrain/standard-1/13)"
    for name in maps.layout_ids():
        for p in scenario.load(name).terrain:
            s = short_label(p)
            assert s is None or not s.replace(".", "").isdigit(), (name, p.id, s)
    labels = {t.text: t for t in sc.prims if isinstance(t, Text)
              and t.tag == f"label:terrain:{wall.id}"}
    assert list(labels) == ["Wall Set 2 #13"] and labels["Wall Set 2 #13"].fallback == "#13"


def test_zoomed_window_pins_axis_figures_and_hides_off_view_labels():
    bf = scenario.load("standard-1")
    sc = build_scene(bf)
    for cam in (Camera(4.0, (10.0, 10.0)), Camera(6.0, (45.0, 28.0)), Camera(3.0, (27, 18))):
        f = frame_for_window(sc, 1400, 950, cam)
        vx0, vy0, vx1, vy1 = f.view
        xs = [t for t in f.texts if t.text.tag == "axis:x"]
        ys = [t for t in f.texts if t.text.tag == "axis:y"]
        assert len(xs) >= 2 and len(ys) >= 2
        for t in xs + ys:
            assert vx0 <= t.x <= vx1 and vy0 <= t.y <= vy1
        # a finer step when zoomed in: consecutive figures 1" or 2" apart
        vals = sorted(float(t.string) for t in xs)
        assert min(b - a for a, b in itertools.pairwise(vals)) <= 2
        for pl in f.texts:
            tag = pl.text.tag
            if not tag.startswith("label:terrain:"):
                continue
            p = bf.piece(tag.removeprefix("label:terrain:"))
            a = f.transform.to_px(p.footprint.bounds[:2])
            b = f.transform.to_px(p.footprint.bounds[2:])
            assert a[0] <= vx1 and b[0] >= vx0 and a[1] <= vy1 and b[1] >= vy0, p.id


def test_window_transform_ignores_the_answers():
    bf, sc = _every_overlay_scene()
    plain = build_scene(bf)
    for size in ((1400, 950), (1240, 841), (900, 1100)):
        a, b = frame_for_window(plain, *size), frame_for_window(sc, *size)
        assert a.transform == b.transform and a.view == b.view


def test_callers_add_primitives_and_a_colour_bar():
    """The hook survey heatmaps use: an OverlayLayer of marked or unmarked primitives plus
    legend entries (here a colour bar) and sentences."""
    bf = scenario.load("standard-1")
    cells = [Area(shapely.box(x, 0, x + 1, 1), (255, int(255 * x / 53), 0, 120), 12,
                  "survey:cell") for x in range(54)]
    bar = LegendEntry("ramp", (0, 0, 0, 255), "exposure", stops=((0.0, (255, 0, 0, 255)),
                      (1.0, (255, 255, 0, 255))), ticks=((0.0, "0%"), (1.0, "100%")))
    sc = build_scene(bf, [OverlayLayer(cells, [bar], ["Exposure from the blue zone"])])
    assert bar in sc.legend and "Exposure from the blue zone" in sc.info
    assert sum(1 for p in sc.prims if p.tag == "survey:cell") == 54
    f = frame_for_width(sc, 1200)
    ramp = [p for p in f.screen if p.tag == "legend:ramp"]
    assert len([p for p in ramp if isinstance(p, Area)]) == 64
    assert {t.string for t in f.texts if t.text.tag == "legend:ramp"} == {"0%", "100%"}
    assert any(isinstance(p, Stroke) for p in ramp)


@pytest.mark.parametrize("name", ["viewer.scene", "viewer.layout", "viewer.labels",
                                  "viewer.markings", "viewer.picking", "viewer.svg",
                                  "viewer.edit", "viewer.picture"])
def test_viewer_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name),
                             optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
