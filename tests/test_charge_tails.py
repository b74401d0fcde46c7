"""The slow tail of charges (issue 26 item 1, rulebook §8.7.7 with §4.6): a charge whose leading
model starts close to terrain, on an official layout, keeps its verdict — the answer the
unbounded search gave — while the stepped ends are bounded by the distance that could still
win and the escape steps are tested nearest first (geom/region_path.py `_best_stepped`,
geom/navigator.py `_escape`)."""

from __future__ import annotations

import math
from pathlib import Path

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
    fs = nav.fs
    j = which % len(fs.cores)
    core, rho = fs.cores[j], float(fs.rho[j])
    if core.geom_type == "Point":  # a base: its zone is a disc about the centre
        a = 2 * math.pi * along
        p = (core.x + out * rho * math.cos(a), core.y + out * rho * math.sin(a))
    else:
        at = core.exterior.interpolate(along, normalized=True)
        c = core.centroid
        dx, dy = at.x - c.x, at.y - c.y
        n = math.hypot(dx, dy) or 1.0
        p = (at.x + dx / n * out * rho, at.y + dy / n * out * rho)
    chunked = nav.escape(p)
    old = navmod.ESCAPE_CHUNK
    try:
        navmod.ESCAPE_CHUNK = 1 << 30
        whole = Navigator(bf, unit).escape(p)
    finally:
        navmod.ESCAPE_CHUNK = old
    assert chunked == whole


_TABLES: dict[str, scenario.Battlefield] = {}


def _near_terrain_table() -> scenario.Battlefield:
    if "t" not in _TABLES:
        _TABLES["t"] = scenario.load(NEAR_TERRAIN)
    return _TABLES["t"]
