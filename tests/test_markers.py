"""Contesting and controlling mission markers (§8.9.1; `geom.markers._control`, `tmg markers`).

Hand-built cases from the rulebook's contest table (flying, burrowed, out of coherency, wrong
elevation, a marker hidden behind a barricade, structures), the control table (supply totals,
ties, sticky control, supply 0 alone), property tests of the control decision against a direct
transcription of the table, and the 3" test against sampled bases."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import box

from geom.markers._control import all_markers, contests, decide_control, marker_control
from geom.model import Base, Battlefield, Marker, Model, Table, TerrainPiece, Unit
from scenario import catalogue
from scenario.units import catalogue_abilities
from tmg.cli import main

EX = Path(__file__).resolve().parent.parent / "examples"
T = Table(54, 36)
R = 16 / 25.4
MK = Marker(5, (27, 18), "neutral")


def unit(uid, owner, pts, *, size=1, mm=32.0, supply=1.0, flying=False, statuses=(),
         tags=(), type=None, abilities=()):
    b = Base.from_mm(mm)
    ms = tuple(Model.make(str(i + 1), unit=uid, owner=owner, at=p, base=b, size=size,
                          flying=flying, burrowed="burrowed" in statuses) for i, p in enumerate(pts))
    return Unit(uid, owner, size, ms, b, tags=tuple(tags), flying=flying, supply=supply,
                statuses=tuple(statuses), type=type, abilities=frozenset(abilities))


def bf_with(*units, terrain=(), markers=(MK,)):
    return Battlefield(T, tuple(terrain), tuple(units), tuple(markers))


def at_gap(gap, y=18.0):
    """x of a 32 mm base whose edge is `gap` inches left of marker 5's edge."""
    return 27 - 2 * R - gap, y


# ----------------------------------------------------------------------------- contest

@pytest.mark.parametrize("gap,ok", [(0.0, True), (2.999, True), (3.0, True), (3.01, False)])
def test_within_three_inches_base_to_marker_edge(gap, ok):
    u = unit("u", "red", [at_gap(gap)])
    v = contests(bf_with(u), u, MK)
    assert v.ok == ok and v.rule == "8.9.1 contesting units"
    assert v.details["models"][0]["distance"] == pytest.approx(gap, abs=1e-9)
    if not ok:
        assert "no model is within 3\"" in v.reason


def test_flying_units_never_contest():
    u = unit("vikings", "red", [(27, 18)], flying=True, size=2, mm=60)
    v = contests(bf_with(u), u, MK)
    assert not v.ok and "flying" in v.reason


def test_burrowed_units_never_contest():
    u = unit("roach", "blue", [at_gap(0.5)], statuses=("burrowed",), size=2, mm=50)
    v = contests(bf_with(u), u, MK)
    assert not v.ok and "burrowed" in v.reason


def test_out_of_coherency_units_never_contest():
    near = at_gap(0.5)
    u = unit("marines", "red", [near, (near[0] - 8, 18)], size=2)
    v = contests(bf_with(u), u, MK)
    assert not v.ok and "out of coherency" in v.reason
    assert v.details["in_coherency"] is False
    ok = unit("marines", "red", [near, (near[0] - 1.4, 18)], size=2)
    assert contests(bf_with(ok), ok, MK).ok


def test_structures_never_contest():
    u = unit("turret", "red", [at_gap(0.5)], tags=("structure",))
    assert not contests(bf_with(u), u, MK).ok
    card = catalogue.find("point-defense-drone")  # the catalogue says STRUCTURE
    drone = unit("pdd", "red", [at_gap(0.5)], type="point-defense-drone",
                 abilities=catalogue_abilities(card))
    v = contests(bf_with(drone), drone, MK)
    assert not v.ok and "STRUCTURE" in v.reason


def test_wrong_elevation_marker_on_mid_ground():
    plat = TerrainPiece("platform", 2, box(25, 16, 29, 20), standable=True)
    low = unit("roaches", "red", [(23.5, 18)], size=2, mm=50)  # ground, 1.87" away
    top = unit("zealot", "blue", [(28.2, 18)], size=2, mm=40)  # on the platform
    bf = bf_with(low, top, terrain=(plat,))
    v = contests(bf, low, MK)
    assert v.details["marker_elevation"] == "mid"
    assert not v.ok and "ground level, the marker at mid level" in v.reason
    assert contests(bf, top, MK).ok


def test_wrong_elevation_model_on_high_ground_beside_a_ground_marker():
    hill = TerrainPiece("hill", 3, box(20, 15, 25.5, 21), standable=True)
    u = unit("marines", "red", [(24.5, 18)], size=2)  # on the hill, 0.24" from the marker
    bf = bf_with(u, terrain=(hill,))
    v = contests(bf, u, MK)
    assert not v.ok and v.details["models"][0]["elevation"] == "high"


def test_marker_hidden_behind_a_barricade():
    """A Size-1 barricade hugging the marker (within 1") gives it direct cover (its effective
    size 1 >= the marker's 0): a model on the far side, not itself within 1" of the barricade,
    cannot see the marker; within 1" of it, close quarters lifts the cover."""
    bar = TerrainPiece("barricade", 1, box(24.5, 16.6, 29.5, 17.2))
    far = unit("marines", "red", [(27, 14.9)], size=2)
    v = contests(bf_with(far, terrain=(bar,)), far, MK)
    assert not v.ok and "does not see it" in v.reason and "barricade" in v.reason
    row = v.details["models"][0]
    assert row["within"] and row["same_elevation"] and not row["sees"]
    hugging = unit("marines", "red", [(27, 15.5)], size=2)  # 0.47" from the barricade
    assert contests(bf_with(hugging, terrain=(bar,)), hugging, MK).ok
    # without the barricade the far model sees the marker
    assert contests(bf_with(far), far, MK).ok
    # a barricade more than 1" from the marker does not hide it from a Size-2 model
    low = TerrainPiece("barricade", 1, box(24.5, 15.9, 29.5, 16.2))
    far2 = unit("marines", "red", [(27, 14.5)], size=2)
    assert contests(bf_with(far2, terrain=(low,)), far2, MK).ok


def test_any_one_model_is_enough_and_the_witness_is_its_sight_line():
    x = at_gap(1.0)[0]
    u = unit("marines", "red", [(x - 2.8, 18), (x, 18), (x - 1.4, 18)], size=2)
    u = Unit(u.id, u.owner, u.size, u.models, u.base, supply=1.0, leading="2")
    v = contests(bf_with(u), u, MK)
    assert v.ok and v.details["qualifying_models"] == ["marines/2", "marines/3"]
    assert not v.details["models"][0]["within"]  # 3.8" away
    (x1, y1), (x2, y2) = v.witness
    assert math.hypot(x1 - x, y1 - 18) <= R + 1e-6  # from model 2's base
    assert math.hypot(x2 - 27, y2 - 18) <= R + 1e-6  # to the marker's disc


# ----------------------------------------------------------------------------- control

def ctl(*units, previous=None, terrain=()):
    return marker_control(bf_with(*units, terrain=terrain), MK, previous)


def test_supply_totals_decide():
    r1 = unit("a", "red", [at_gap(0.2, 18)], supply=1)
    r2 = unit("b", "red", [at_gap(0.2, 19.5)], supply=1)
    b1 = unit("c", "blue", [(29.5, 18)], supply=2)
    r = ctl(r1, r2, b1)
    assert r.contesting == {"red": ["a", "b"], "blue": ["c"]}
    assert r.supply == {"red": 2.0, "blue": 2.0}
    assert r.outcome == "contested" and r.controller is None  # never controlled: neutral
    assert ctl(r1, r2, b1, previous="blue").controller == "blue"  # a tie changes nothing
    b2 = unit("c", "blue", [(29.5, 18)], supply=3)
    r = ctl(r1, r2, b2, previous="red")
    assert r.outcome == "blue" and r.controller == "blue" and r.supply["blue"] == 3


def test_supply_zero_alone_controls_but_cannot_win_a_contest():
    z = unit("z", "red", [at_gap(0.2)], supply=0)
    assert ctl(z).controller == "red"
    b = unit("b", "blue", [(29.5, 18)], supply=0)
    assert ctl(z, b, previous="blue").outcome == "contested"
    assert ctl(z, b, previous="blue").controller == "blue"


def test_sticky_control_and_never_neutral_again():
    assert ctl(previous="red").controller == "red"
    far = unit("far", "blue", [(5, 5)])
    r = ctl(far, previous="red")
    assert r.outcome == "uncontested" and r.controller == "red"
    assert ctl().controller is None


def test_unknown_supply_is_not_guessed():
    a = unit("a", "red", [at_gap(0.2)], supply=None)
    b = unit("b", "blue", [(29.5, 18)], supply=1)
    r = ctl(a, b, previous="blue")
    assert r.outcome == "unknown" and r.controller is None and r.supply["red"] is None
    assert ctl(a).controller == "red"  # alone, its supply does not matter


def table_8_9_1(red: float | None, blue: float | None, previous: str | None) -> str | None:
    """The control table of §8.9.1, written out case by case (None: that side does not
    contest)."""
    if red is None and blue is None:
        return previous  # nobody contests: no change
    if blue is None:
        return "red"  # one side alone, supply 0 included
    if red is None:
        return "blue"
    if red > blue:
        return "red"
    if blue > red:
        return "blue"
    return previous  # contested: no change


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=3), st.lists(st.integers(0, 3), max_size=3),
       st.sampled_from([None, "red", "blue"]))
def test_control_decision_is_the_table(reds, blues, previous):
    ru = [unit(f"r{i}", "red", [(0, 0)], supply=s) for i, s in enumerate(reds)]
    bu = [unit(f"b{i}", "blue", [(0, 0)], supply=s) for i, s in enumerate(blues)]
    outcome, controller, supply, _ = decide_control({"red": ru, "blue": bu}, previous)
    want = table_8_9_1(sum(reds) if reds else None, sum(blues) if blues else None, previous)
    assert controller == want
    # swapping the players swaps the answer
    swap = {"red": "blue", "blue": "red", None: None}
    _, c2, _, _ = decide_control({"red": [unit(u.id, "red", [(0, 0)], supply=u.supply)
                                          for u in bu],
                                  "blue": [unit(u.id, "blue", [(0, 0)], supply=u.supply)
                                           for u in ru]}, swap[previous])
    assert c2 == swap[controller]
    # once controlled, never neutral again
    if previous is not None:
        assert controller is not None


def sampled_gap(a: Model, m: Marker, n: int = 720) -> float:
    """Base-to-marker distance from points sampled on both rims (discs)."""
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ra, rm = a.base.a, R
    pa = np.column_stack((a.at[0] + ra * np.cos(t), a.at[1] + ra * np.sin(t)))
    pm = np.column_stack((m.at[0] + rm * np.cos(t), m.at[1] + rm * np.sin(t)))
    d = np.sqrt(((pa[:, None, :] - pm[None, :, :]) ** 2).sum(axis=2)).min()
    inside = math.dist(a.at, m.at) < ra + rm
    return 0.0 if inside else float(d)


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 2 * math.pi), st.floats(0.0, 4.5), st.sampled_from([25.0, 32.0, 50.0]))
def test_three_inch_test_agrees_with_sampled_bases(theta, gap, mm):
    r = mm / 25.4 / 2
    c = (27 + (r + R + gap) * math.cos(theta), 18 + (r + R + gap) * math.sin(theta))
    u = unit("u", "red", [c], mm=mm)
    v = contests(bf_with(u), u, MK)
    ref = sampled_gap(u.models[0], MK)
    if ref <= 3 - 1e-3:
        assert v.ok
    elif ref > 3 + 1e-3:
        assert not v.ok


# ----------------------------------------------------------------------------- CLI

def run_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_on_the_contest_example(capsys):
    r = run_json(capsys, "markers", str(EX / "markers-contest.toml"), "--previous", "2=red,4=blue")
    m = r["markers"]
    assert set(m) == {"1", "2", "3", "4", "5"}
    for x in m.values():
        assert set(x["contesting"]) == {"red", "blue"} and set(x["supply"]) == {"red", "blue"}
    assert m["1"]["contesting"] == {"red": [], "blue": ["hydralisk"]}
    assert "flying" in m["1"]["units"]["vikings"]["reason"]
    assert m["2"]["supply"] == {"red": 2, "blue": 2} and m["2"]["outcome"] == "contested"
    assert m["2"]["controller"] == "red"
    assert m["3"]["elevation"] == "mid" and m["3"]["controller"] == "blue"
    assert m["3"]["contesting"]["red"] == []
    assert m["4"]["contesting"] == {"red": [], "blue": []} and m["4"]["controller"] == "blue"
    assert "burrowed" in m["4"]["units"]["burrowed-roach"]["reason"]
    assert "out of coherency" in m["4"]["units"]["marines-strung-out"]["reason"]
    assert m["5"]["contesting"] == {"red": [], "blue": ["zerglings"]}
    assert "barricade" in m["5"]["units"]["marines-south"]["reason"]


def test_cli_previous_is_checked(capsys):
    f = str(EX / "markers-contest.toml")
    for bad in ("7=red", "2=green", "2", "2=red,2=blue"):
        assert main(["markers", f, "--previous", bad]) == 2
        err = capsys.readouterr().err
        assert "--previous" in err and err.count("\n") == 1
    assert main(["markers", "standard-1"]) == 2  # a layout has no markers
    assert "no mission markers" in capsys.readouterr().err


def test_cli_fix_terrain_on_the_tournament_example(capsys):
    r = run_json(capsys, "markers", str(EX / "markers-tournament.toml"), "--fix-terrain")
    moved = {s["piece"]: s for s in r["terrain_moved"]}
    assert set(moved) == {"standard-6/L2", "standard-6/L4"}
    for s in moved.values():
        assert s["moved"] and s["chooser"] == "blue" and len(s["parts"]) == 2
        assert math.hypot(*s["displacement"]) == pytest.approx(s["distance"])
        assert s["to"][0] - s["from"][0] == pytest.approx(s["displacement"][0], abs=1e-5)
    assert {s["marker"] for s in moved.values()} == {1, 3}


def test_all_markers_matches_one_by_one():
    bf = __import__("scenario").load(EX / "markers-contest.toml")
    everything = all_markers(bf, {2: "red"})
    for mid, r in everything.items():
        one = marker_control(bf, bf.marker(mid), {2: "red"}.get(mid))
        assert (one.contesting, one.supply, one.controller) == (
            r.contesting, r.supply, r.controller)
