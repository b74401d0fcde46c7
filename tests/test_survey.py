"""The survey engine (survey._survey*): values agree with direct calls of the engine's own rules at
random points; identical results whatever runs the tasks; symmetry and monotonicity."""

from __future__ import annotations

import concurrent.futures as cf
import math
import multiprocessing
import random
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from shapely.geometry import Point, box

import survey as S
from geom.combat._charge import charge, roll_table
from geom.distance import distance
from geom.errors import TmgError
from geom.markers._control import contests
from geom.model import Base, Battlefield, Deployment, Marker, Table, TerrainPiece
from geom.movement._end_position import end_position_ok
from geom.sight._cover import high_ground_cover
from geom.sight._sight import line_of_sight
from survey._charge import best_charge, lower_bounds
from survey._grid import MAX_GRID_POINTS, Grid, check_grid, probe_unit, standing
from survey._job import Charger, Probe, SurveySpec, prepared

T = Table(24, 12)
ZONES = {"red": box(0, 0, 24, 3), "blue": box(0, 9, 24, 12)}
PROBE = Probe(Base.from_mm(32), 2)


def table(extra: tuple[TerrainPiece, ...] = (), markers: tuple[Marker, ...] = ()) -> Battlefield:
    pieces = (
        TerrainPiece("wall", 3, box(6, 5, 11, 6.2)),
        TerrainPiece("low-wall", 2, box(14, 6, 18, 7)),
        TerrainPiece("crate", 1, box(20, 4, 21, 5)),
        TerrainPiece("grass", 2, box(2, 7.5, 4, 8.5), kind="grass"),
        TerrainPiece("hill", 3, box(1, 4.2, 5, 6.4), standable=True,
                     access_points=(box(1, 4.2, 1.7, 6.4),)),
    ) + extra
    dep = Deployment("test", "Test", T, zones=dict(ZONES))
    return Battlefield(T, pieces, markers=markers, deployment=dep, name="test table")


def job(bf: Battlefield | None = None, **kw) -> S.SurveyJob:
    spec = SurveySpec(**{"step": 1.0, "zone_step": 2.0, "probe": PROBE,
                         "measures": (S.EXPOSURE, S.SAFE_AREA), **kw})
    return S.SurveyJob.make(bf or table(), spec, "test", "test")


@pytest.fixture(scope="module")
def exposure():
    return S.run([job(tile_cells=40)])[0]


# --------------------------------------------------------------------------- the grid


def test_cells_tile_the_table_and_points_keep_the_base_on_it():
    g = Grid.build(Table(54, 36), 0.7, Base.from_mm(32))
    c = g.cells()
    assert math.isclose(((c[:, 2] - c[:, 0]) * (c[:, 3] - c[:, 1])).sum(), 54 * 36)
    ok = g.has_point()
    r = Base.from_mm(32).a
    # a cell has a point exactly when some point of it keeps the base on the table (the last
    # column, 0.1" wide at x = 53.9, has none)
    fits = (c[:, 0] <= 54 - r) & (c[:, 2] >= r) & (c[:, 1] <= 36 - r) & (c[:, 3] >= r)
    assert np.array_equal(ok, fits) and ok.sum() == 77 * 51
    xs, ys, c = g.xs[ok], g.ys[ok], c[ok]
    assert (xs >= r - 1e-12).all() and (xs <= 54 - r + 1e-12).all()
    assert ((xs >= c[:, 0]) & (xs <= c[:, 2]) & (ys >= c[:, 1]) & (ys <= c[:, 3])).all()
    centre = ((c[:, 0] + c[:, 2]) / 2, (c[:, 1] + c[:, 3]) / 2)
    inner = (centre[0] >= r) & (centre[0] <= 54 - r) & (centre[1] >= r) & (centre[1] <= 36 - r)
    assert np.allclose(xs[inner], centre[0][inner], rtol=0, atol=1e-12)  # moved only where the
    # base would hang off the table


def test_a_cell_too_narrow_for_the_base_has_no_point():
    g = Grid.build(Table(24, 12), 0.5, Base.from_mm(100))  # radius 1.97": the outer cells go
    assert not g.has_point()[g.index(0, 5)]
    assert g.has_point()[g.index(4, 5)]


def test_standing_follows_the_end_position_rules():
    bf = table()
    pts = [(8.5, 5.6), (3.0, 5.3), (20.5, 4.5), (3.0, 8.0), (12.0, 2.0)]
    got = standing(bf, pts, Base.from_mm(32), 2).tolist()
    unit = probe_unit("p", "red", (0, 0), Base.from_mm(32), 2)
    want = [end_position_ok(bf, unit, p, check_engagement=False).ok for p in pts]
    assert got == want == [False, True, False, True, True]  # wall, hill top, crate, grass, mat


def test_grid_limits_are_one_clear_error():
    check_grid(Table(54, 36), 0.2)
    with pytest.raises(TmgError, match="--step.*more than"):
        check_grid(Table(72, 72), 0.2)
    assert MAX_GRID_POINTS >= 54 * 36 * 25
    with pytest.raises(TmgError, match="--zone-step"):
        check_grid(Table(54, 36), 1.0, zone_step=0.05)


def test_a_job_needs_two_zones_and_the_charger_for_the_charge_threat():
    with pytest.raises(TmgError, match="deployment card"):
        S.SurveyJob.make(Battlefield(T), SurveySpec(), "x", "y")
    with pytest.raises(TmgError, match="--unit"):
        job(measures=(S.CHARGE_THREAT,))
    with pytest.raises(TmgError, match="unknown measure"):
        job(measures=("fire-lanes",))


# --------------------------------------------------------------------------- exposure


def _direct_counts(bf, res, k, owner):
    """Seen and seen-in-cover counts of cell k from `owner`'s zone, by direct engine calls."""
    prep = prepared(res.job)
    probe = prep.probe(k, res.job.other(owner))
    seen = cover = 0
    for obs in prep.observers[owner]:
        v = line_of_sight(bf, obs, probe)
        if v.ok:
            seen += 1
            cover += high_ground_cover(bf, [obs], [probe]).ok
    return seen, cover


def test_zone_samples_are_the_legal_cell_points_of_the_zone(exposure):
    bf = exposure.bf
    for owner, zs in exposure.zones.items():
        g = Grid.build(T, 2.0, PROBE.base)
        want = [g.point(k) for k in range(len(g)) if ZONES[owner].covers(Point(g.point(k)))]
        unit = probe_unit("p", owner, (0, 0), PROBE.base, PROBE.size)
        want = [p for p in want if end_position_ok(bf, unit, p, check_engagement=False).ok]
        assert list(zs.points) == want
        assert len(zs) > 10


def test_exposure_agrees_with_direct_sight_at_random_points(exposure):
    bf = exposure.bf
    rng = random.Random(14)
    cells = [k for k in range(len(exposure.grid)) if exposure.stands[k]]
    picked = rng.sample(cells, 12)
    # and a few that matter: on the hill (high ground cover), by the wall, in the grass
    for p in [(3.5, 5.5), (8.5, 7.5), (3.5, 8.5)]:
        k = exposure.grid.index(int(p[0]), int(p[1]))
        assert exposure.stands[k]
        picked.append(k)
    for k in picked:
        for owner in exposure.owners:
            seen, cover = _direct_counts(bf, exposure, k, owner)
            n = len(exposure.zones[owner])
            assert exposure.columns[f"seen_{owner}_zone"][k] == seen
            assert exposure.columns[f"exposure_{owner}_zone"][k] == seen / n
            assert exposure.columns[f"exposure_{owner}_zone_cover"][k] == cover / n
            assert exposure.columns[f"safe_{owner}_zone"][k] == float(seen == 0)


def test_high_ground_cover_is_counted_on_the_hill(exposure):
    k = exposure.grid.index(3, 5)
    assert exposure.level[k] == "high" and exposure.top[k] == "hill"
    assert exposure.columns["exposure_red_zone_cover"][k] > 0
    assert exposure.columns["exposure_red_zone_cover"][k] == \
        exposure.columns["exposure_red_zone"][k]  # no sample stands on high ground


def test_cells_where_no_probe_stands_have_no_value(exposure):
    k = exposure.grid.index(8, 5)  # inside the wall
    assert not exposure.stands[k]
    assert all(math.isnan(exposure.columns[c][k]) for c in exposure.columns)


def test_a_hidden_probe_is_seen_from_no_farther_than_4_inches():
    res = S.run([job(probe=replace(PROBE, hidden=True), tile_cells=100)])[0]
    bf = res.bf
    prep = prepared(res.job)
    for k in [res.grid.index(5, 3), res.grid.index(12, 4), res.grid.index(22, 7)]:
        probe = prep.probe(k, "red")
        assert probe.hidden
        obs = prep.observers["blue"]
        seen = [o for o in obs if line_of_sight(bf, o, probe).ok]
        assert res.columns["seen_blue_zone"][k] == len(seen)
        assert all(distance(o, probe) <= 4 + 1e-6 for o in seen)
    far = res.grid.index(12, 1)  # 8" from the blue zone: hidden from it
    assert res.columns["seen_blue_zone"][far] == 0


def test_safe_area_is_the_area_of_the_cells_seen_from_nowhere(exposure):
    s = exposure.summary()
    for owner in exposure.owners:
        safe = exposure.columns[f"safe_{owner}_zone"] == 1
        assert s[S.EXPOSURE]["by_zone"][owner]["safe_area_sq_in"] == safe.sum()  # 1" cells
        assert s[S.EXPOSURE]["by_zone"][owner]["safe_area"] == safe.sum() / (24 * 12)
    both = np.concatenate([exposure.columns[f"exposure_{o}_zone"] for o in exposure.owners])
    assert s[S.EXPOSURE]["mean"] == pytest.approx(np.nanmean(both))
    assert s[S.EXPOSURE]["min"] == 0.0 and 0 < s[S.EXPOSURE]["max"] <= 1


# --------------------------------------------------------------------------- markers


def test_contest_reach_agrees_with_the_marker_rules_everywhere():
    markers = (Marker(1, (8.5, 7.5)), Marker(2, (16.5, 4.5)), Marker(3, (3.0, 5.3)))
    res = S.run([job(table(markers=markers), measures=(S.MARKERS,))])[0]
    bf = res.bf
    for m, row in zip(markers, res.markers, strict=True):
        want = []
        for k in np.nonzero(res.stands)[0].tolist():
            unit = probe_unit("u", "red", res.grid.point(k), PROBE.base, PROBE.size)
            if contests(bf, unit, m).ok:
                want.append(k)
        assert row["contest_cells"] == want
        assert len(want) > 3
    # the hill marker is contested from the hill only (same elevation, §8.9.1)
    assert {res.level[k] for k in res.markers[2]["contest_cells"]} == {"high"}
    assert res.markers[2]["elevation"] == "high"


def test_marker_exposure_is_that_of_a_probe_on_the_marker():
    m = Marker(1, (12.0, 7.5))
    res = S.run([job(table(markers=(m,)), measures=(S.MARKERS,))])[0]
    prep = prepared(res.job)
    row = res.markers[0]
    for owner in res.owners:
        probe = probe_unit("x", res.job.other(owner), m.at, PROBE.base, PROBE.size).models[0]
        obs = prep.observers[owner]
        want = sum(line_of_sight(res.bf, o, probe).ok for o in obs) / len(obs)
        assert row["exposure"][owner] == want
        seen = sum(line_of_sight(res.bf, o, m).ok for o in obs) / len(obs)
        assert row["seen"][owner] == seen


# --------------------------------------------------------------------------- charge threat

SMALL = Table(24, 12)
CHARGER = Charger("marine", Base.from_mm(32), 2, 4)


def small_table() -> Battlefield:
    dep = Deployment("t", "T", SMALL, zones={"red": box(0, 0, 24, 2), "blue": box(0, 10, 24, 12)})
    return Battlefield(SMALL, (TerrainPiece("wall", 3, box(5, 5.6, 19, 6.4)),), deployment=dep)


@pytest.fixture(scope="module")
def threat():
    spec = SurveySpec(step=4.0, zone_step=4.0, probe=PROBE, measures=(S.CHARGE_THREAT,),
                      charger=CHARGER, tile_cells=5)
    return S.run([S.SurveyJob.make(small_table(), spec, "small", "t")])[0]


def test_charge_threat_agrees_with_every_start_charged_directly(threat):
    bf = threat.bf
    cap = CHARGER.speed + 6
    rng = random.Random(11)
    far = threat.grid.index(2, 0)  # behind the wall from the blue zone: a detour, a 6+
    assert threat.columns["charge_roll_blue_zone"][far] == 6
    assert set(threat.columns["charge_roll_blue_zone"][threat.stands]) >= {1, 2, 3, 6}
    cells = [far] + rng.sample([k for k in range(len(threat.grid)) if threat.stands[k]], 3)
    for k in cells:
        for owner in threat.owners[:1]:
            target = probe_unit("probe", threat.job.other(owner), threat.grid.point(k),
                                PROBE.base, PROBE.size)
            best = math.inf
            for s in threat.charge_starts[owner].points:
                unit = CHARGER.unit(owner, s)
                a = charge(replace(bf, units=(target, unit)), "charger", ["probe"], place=False)
                if a.min_distance is not None:
                    best = min(best, a.min_distance)
            roll = threat.columns[f"charge_roll_{owner}_zone"][k]
            want = roll_table(CHARGER.speed, 0, best if best < math.inf else None).min_roll
            if want is None:
                assert math.isnan(roll) and threat.columns[f"charge_reach_{owner}_zone"][k] == 0
            else:
                assert roll == want
                assert best <= cap + 1e-6
                assert threat.columns[f"charge_distance_{owner}_zone"][k] == pytest.approx(best)


def test_charge_threat_lower_bound_never_exceeds_the_charge(threat):
    bf = threat.bf
    target = probe_unit("probe", "red", (10.0, 2.0), PROBE.base, PROBE.size)
    starts = threat.charge_starts["blue"].points
    lbs = lower_bounds(CHARGER, "blue", starts, target)
    for s, lb in zip(starts, lbs, strict=True):
        a = charge(replace(bf, units=(target, CHARGER.unit("blue", s))), "charger", ["probe"],
                   place=False)
        if a.min_distance is not None:
            assert lb <= a.min_distance + 1e-9
    th = best_charge(bf, CHARGER, "blue", starts, target)
    assert th.tried < len(starts)  # the bound saved work


def test_no_roll_when_even_a_6_falls_short(threat):
    slow = replace(CHARGER, speed=1)
    target = probe_unit("probe", "red", (10.0, 2.0), PROBE.base, PROBE.size)
    th = best_charge(threat.bf, slow, "blue", threat.charge_starts["blue"].points, target)
    assert th.min_roll is None and th.distance is None  # 9.1" needed, 7" at best


def test_a_start_engaged_with_the_target_cannot_charge(threat):
    bf = threat.bf
    target = probe_unit("probe", "red", (7.0, 9.0), PROBE.base, PROBE.size)
    s = (7.0 + 1.6, 9.0)  # 0.34" apart: engaged
    th = best_charge(bf, CHARGER, "blue", [s], target)
    assert th.min_roll is None and th.distance is None


# --------------------------------------------------------------------------- running


def _equal(a: S.SurveyResult, b: S.SurveyResult) -> None:
    assert a.columns.keys() == b.columns.keys()
    for name in a.columns:
        assert np.array_equal(a.columns[name], b.columns[name], equal_nan=True), name
    assert a.markers == b.markers
    assert a.summary() == b.summary()


def test_identical_results_with_1_2_and_4_workers():
    markers = (Marker(1, (8.5, 7.5)), Marker(2, (16.5, 4.5)))
    j = job(table(markers=markers), step=2.0, tile_cells=7,
            measures=(S.EXPOSURE, S.SAFE_AREA, S.MARKERS))
    assert len(S.plan(j)) >= 6
    alone = S.run([j])[0]
    ctx = multiprocessing.get_context("fork")
    for n in (1, 2, 4):
        with cf.ProcessPoolExecutor(n, mp_context=ctx) as ex:
            done: list[tuple[int, int]] = []
            got = S.run([j], ex, progress=lambda d, t, done=done: done.append((d, t)))[0]
        _equal(alone, got)
        assert done[-1] == (len(S.plan(j)), len(S.plan(j)))
        assert not got.processes & alone.processes  # the work ran in the pool
    with cf.ThreadPoolExecutor(3) as ex:
        _equal(alone, S.run([j], ex)[0])


def test_several_jobs_come_back_in_order():
    a = job(step=3.0)
    b = job(table(extra=(TerrainPiece("block", 3, box(10, 1, 13, 2)),)), step=3.0)
    ra, rb = S.run([a, b])
    assert ra.job is a and rb.job is b
    assert ra.columns["seen_blue_zone"].tolist() != rb.columns["seen_blue_zone"].tolist()


# --------------------------------------------------------------------------- properties


walls = hs.lists(hs.tuples(hs.floats(3, 10), hs.floats(3.5, 5), hs.floats(0.4, 3),
                           hs.floats(0.3, 1.5), hs.integers(1, 4)), min_size=1, max_size=3)


def _symmetric(ws) -> Battlefield:
    """Pieces placed in the lower half and turned 180° about the centre into the upper half."""
    pieces = []
    for i, (x, y, w, d, size) in enumerate(ws):
        pieces.append(TerrainPiece(f"w{i}", size, box(x, y, x + w, y + d)))
        pieces.append(TerrainPiece(f"v{i}", size, box(24 - x - w, 12 - y - d, 24 - x, 12 - y)))
    dep = Deployment("s", "S", T, zones=dict(ZONES))
    return Battlefield(T, tuple(pieces), deployment=dep)


@settings(max_examples=6)
@given(walls)
def test_exposure_is_symmetric_on_a_symmetric_table(ws):
    res = S.run([job(_symmetric(ws), step=2.0)])[0]
    g = res.grid
    red, blue = res.columns["seen_red_zone"], res.columns["seen_blue_zone"]
    for k in range(len(g)):
        iy, ix = divmod(k, g.nx)
        turned = g.index(g.nx - 1 - ix, g.ny - 1 - iy)
        assert np.array_equal(red[k], blue[turned], equal_nan=True)


@settings(max_examples=6)
@given(walls, hs.floats(4, 18), hs.floats(4.5, 6.5))
def test_another_wall_never_lets_a_probe_be_seen_more(ws, x, y):
    bf = _symmetric(ws)
    more = replace(bf, terrain=bf.terrain + (TerrainPiece("extra", 3, box(x, y, x + 2, y + 0.5)),))
    a, b = S.run([job(bf, step=3.0), job(more, step=3.0)])
    both = a.stands & b.stands
    for owner in a.owners:
        sa, sb = a.columns[f"seen_{owner}_zone"], b.columns[f"seen_{owner}_zone"]
        if len(a.zones[owner]) == len(b.zones[owner]):
            assert (sb[both] <= sa[both]).all()


def test_the_engine_imports_no_dask_no_viewer_no_front_end():
    import subprocess
    import sys

    code = ("import sys, survey._survey, survey._charge; print(sorted({m.split('.')[0] for m in "
            "sys.modules} & {'dask', 'distributed', 'tqdm', 'viewer', 'tmg', 'maps', 'scenario',"
            " 'formats', 'pyglet'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_tiles_of_any_size_give_the_same_answer(exposure):
    for cells in (1000, 13):
        again = S.run([job(tile_cells=cells)])[0]
        _equal(exposure, again)
