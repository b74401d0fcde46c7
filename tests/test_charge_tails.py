"""The slow tail of charges (issue 26 item 1, rulebook §8.7.7 with §4.6): a charge whose leading
model starts close to terrain, on an official layout, keeps its verdict — the answer the
unbounded search gave — while the stepped ends are bounded by the distance that could still
win and the escape steps are tested nearest first (geom/region_path.py `_best_stepped`,
geom/navigator.py `_escape`); the batched and remembered tests that make such charges fast
(`Navigator.escapes`, the search's leg memo and twins, the kept questions) change no answer."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scenario
from geom.combat._charge import charge
from geom.paths import _navigator as navmod
from geom.paths._navigator import Navigator

ROOT = Path(__file__).resolve().parent.parent
# The document: three marines (25 mm bases, narrower than the clearance, so ends inside
# clearance zones are sought) by the walls of standard-1, charging four zerglings.
NEAR_TERRAIN = ROOT / "benchmarks" / "data" / "slow-charge-standard-1.json"


def test_the_starting_near_terrain_charge_keeps_its_verdict():
    """Figures of the unbounded search (main before issue 26, `tmg charge FILE marines
    --targets zerglings --modifier 2 --json`), to the printed 1e-6"."""
    bf = scenario.load(NEAR_TERRAIN)
    r = charge(bf, "marines", ["zerglings"], 2).as_dict()
    assert r["possible"] is True and r["leading"] == "m1" and r["rule"] == "8.7.7 charge"
    assert r["min_distance"] == pytest.approx(8.002973, abs=2e-6)
    assert r["min_roll"] == 3 and r["probability"] == pytest.approx(4 / 6, abs=1e-6)
    assert r["end"] == pytest.approx([28.226644, 19.666008], abs=2e-6)
    path = r["path"]
    assert path[0] == [21.5, 14.0] and path[-1] == r["end"]
    length = sum(math.dist(a, b) for a, b in zip(path, path[1:], strict=False))
    # the end is placed with the smallest successful roll's distance: Speed 4 + 2 + 3
    assert r["min_distance"] - 1e-6 <= length <= 4 + 2 + 3 + 1e-6


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10 ** 6), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_escape_nearest_first_is_the_escape_of_all_candidates(which, along, out):
    """Points inside the clearance zones of standard-1's pieces (a core's boundary pushed out
    by up to its clearance): the chunked escape finds exactly the step that a test of every
    candidate at once finds."""
    bf = _near_terrain_table()
    unit = bf.unit("marines")
    nav = Navigator(bf, unit)
    p = _zone_point(nav, which, along, out)
    chunked = nav.escape(p)
    old = navmod.ESCAPE_CHUNK
    try:
        navmod.ESCAPE_CHUNK = 1 << 30
        whole = Navigator(bf, unit).escape(p)
    finally:
        navmod.ESCAPE_CHUNK = old
    assert chunked == whole


@settings(max_examples=10, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10 ** 6), st.floats(0.0, 1.0), st.floats(0.0, 1.0)),
                min_size=1, max_size=24))
def test_escapes_side_by_side_are_the_escapes_one_by_one(specs):
    """`Navigator.escapes` (the stepped-end samples of a charge, their k-th chunks of
    candidates tested together) gives each point the step `escape` gives it alone."""
    bf = _near_terrain_table()
    unit = bf.unit("marines")
    one = Navigator(bf, unit)
    pts = [_zone_point(one, *spec) for spec in specs]
    assert Navigator(bf, unit).escapes(pts) == [one.escape(p) for p in pts]


def test_a_charge_from_a_pocket_keeps_its_verdict_cold_and_warm():
    """Issue 26's slowest charge (benchmarks/data/tails/slow-8.json, standard-5): two of the
    four roachlings are boxed in by terrain, so their searches test every terminal they can
    reach; the shortest legal charge is far beyond every roll. The figures are the engine's
    before the leg memo, the twins and the kept questions (main at 9795003, `--json`); asked
    on a fresh table and on one that has answered the other modifiers first, the answer is the
    same to the last bit."""
    fresh = {m: charge(_pocket_table(), "chargers", ["targets"], m).as_dict()
             for m in (0.0, 2.0, -2.0)}
    r = fresh[0.0]
    assert r["possible"] is False and r["leading"] == "m3"
    assert r["min_distance"] == 19.320616316975034
    assert r["distance_bounds"] == [19.278886593807176, 19.320616316975034]
    assert r["nearest_end"] == [29.53040771735509, 8.567823309188256]
    bf = _pocket_table()
    warm = {m: charge(bf, "chargers", ["targets"], m).as_dict() for m in (2.0, -2.0, 0.0)}
    assert warm == fresh


@settings(max_examples=10, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10 ** 6), st.floats(0.0, 1.0), st.floats(0.0, 1.5)),
                min_size=1, max_size=40))
def test_clearance_of_points_side_by_side_is_their_clearance_one_by_one(specs):
    """Points about the pocket table's obstacles for the roachlings (bases wider than the
    clearance: the gap rule's piece counts, `Pieces.counts_met`, in one call for all): each
    point's clearance is what it is tested alone."""
    bf = _pocket_table()
    nav = Navigator(bf, bf.unit("chargers"))
    pts = np.array([_zone_point(nav, *spec) for spec in specs])
    assert nav.fs.two_clearances
    assert nav.fs.points_clear(pts).tolist() == [bool(nav.fs.points_clear(p[None, :])[0])
                                                for p in pts]


POCKET = ROOT / "benchmarks" / "data" / "tails" / "slow-8.json"


def _pocket_table() -> scenario.Battlefield:
    return scenario.load(POCKET)


def _zone_point(nav: Navigator, which: int, along: float, out: float) -> tuple[float, float]:
    """A point inside the clearance zone of one of the navigator's obstacles (a core's boundary
    pushed out by `out` of its clearance)."""
    fs = nav.fs
    j = which % len(fs.cores)
    core, rho = fs.cores[j], float(fs.rho[j])
    if core.geom_type == "Point":  # a base: its zone is a disc about the centre
        a = 2 * math.pi * along
        return (core.x + out * rho * math.cos(a), core.y + out * rho * math.sin(a))
    g = core.geoms[0] if hasattr(core, "geoms") else core  # a section's first part
    at = (g.exterior if g.geom_type == "Polygon" else g).interpolate(along, normalized=True)
    c = g.centroid
    dx, dy = at.x - c.x, at.y - c.y
    n = math.hypot(dx, dy) or 1.0
    return (at.x + dx / n * out * rho, at.y + dy / n * out * rho)


_TABLES: dict[str, scenario.Battlefield] = {}


def _near_terrain_table() -> scenario.Battlefield:
    if "t" not in _TABLES:
        _TABLES["t"] = scenario.load(NEAR_TERRAIN)
    return _TABLES["t"]
