"""`tmg fight` (§8.8.1 close ranks and declare attackers, §8.7.5 casualty order) and
`tmg disengage` (§8.5.4) on the command line. Positions and distances in the answers are
re-checked here with plain disc arithmetic and shapely, sharing no code with the engine."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest
from shapely.geometry import LineString, Point

import scenario
from geom.combat._close_combat import all_ranks, removal_order
from geom.combat._close_ranks import can_close_ranks
from geom.combat._disengage import disengage
from geom.model import Base, Battlefield, Model, Table, Unit
from tmg.cli import main

EX = Path(__file__).resolve().parents[1] / "examples"
R32 = 16 / 25.4
R50 = 25 / 25.4
R80 = 40 / 25.4


def run_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def gap(a, ra, b, rb):
    return math.dist(a, b) - ra - rb


def polyline_length(pts):
    return sum(math.dist(p, q) for p, q in zip(pts, pts[1:], strict=False))


# ------------------------------------------------------------------ tmg fight

def test_8_8_1_rulebook_round_2_held_zerglings_cannot_close_ranks(capsys):
    """Round 2 of the rulebook's walkthrough: every zergling is in base contact — two with the
    marauder, two with the marines, one with both — so they cannot close ranks."""
    r = run_json(capsys, "fight", str(EX / "fight-held.toml"), "zerglings")
    assert r["engaged_with"] == ["marauder", "marines"]
    assert r["ranks"]["marauder"]["fighting"] == ["zerglings/1", "zerglings/2", "zerglings/5"]
    assert r["ranks"]["marines"]["fighting"] == ["zerglings/3", "zerglings/4", "zerglings/5"]
    assert r["ranks"]["marines"]["engaged_with"]["zerglings/5"] == "marines/1"
    assert ["zerglings/5", "marauder/1"] in r["witness"] and len(r["witness"]) == 6
    cr = r["close_ranks"]
    assert cr["possible"] is False and cr["end"] is None and "physically held" in cr["reason"]
    assert cr["rule"] == "8.8.1 close ranks"
    # §8.7.5: all in base contact (priority 3); the zergling touching both enemies holds both
    # engagements and goes last
    assert r["casualty_order"][-1] == "zerglings/5"
    assert sorted(r["casualty_order"]) == [f"zerglings/{i}" for i in range(1, 6)]
    for step in r["casualty_steps"]:
        assert step["removed"] in step["valid"] and step["reason"].startswith("priority 3")
    assert r["rule"] == "8.8.1 declare attackers" and "marauder, marines" in r["reason"]


def test_8_8_1_supporting_rank_and_close_ranks_into_base_contact(capsys):
    r = run_json(capsys, "fight", str(EX / "fight-close-ranks.toml"), "marines")
    k = r["ranks"]["queen"]
    assert k["fighting"] == ["marines/1", "marines/2"]
    assert k["supporting"] == ["marines/3"] and k["supports"] == {"marines/3": "marines/1"}
    assert k["idle"] == ["marines/4", "marines/5"]
    cr = r["close_ranks"]
    assert cr["possible"] and cr["leading"] == "marines/2"
    # the best legal end: base contact with the queen, 0.6" straight in
    end = cr["end"]
    assert abs(gap(end, R32, (30, 18), R80)) <= 1e-6
    assert cr["path_length"] == pytest.approx(0.6, abs=1e-4)
    assert polyline_length(cr["path"]) == pytest.approx(cr["path_length"], abs=1e-6)
    assert gap(end, R32, (27.79527559, 18), R32) >= -1e-6  # not on the held marine
    # casualties: the three out of every engagement first, then 2 (in range), then 1 (contact)
    assert r["casualty_order"][3:] == ["marines/2", "marines/1"]
    assert set(r["casualty_order"][:3]) == {"marines/3", "marines/4", "marines/5"}


def test_8_8_1_close_ranks_as_near_as_the_3_inch_move_allows():
    """A leader 3.5" from the queen cannot reach base contact with a 3" move: the best end is
    0.5" away (to the search's 1/128")."""
    b32, b80 = Base.from_mm(32), Base.from_mm(80)
    queen = Unit("queen", "blue", 3, (Model.make("1", unit="queen", owner="blue", at=(30, 18),
                                                 base=b80, size=3),), b80)
    held = (30 - R80 - R32, 18)
    far = (30 + R80 + 3.5 + R32, 18)
    ms = tuple(Model.make(i, unit="m", owner="red", at=p, base=b32, size=2)
               for i, p in (("1", held), ("2", far)))
    m = Unit("m", "red", 2, ms, b32)
    bf = Battlefield(Table(54, 36), (), (queen, m))
    v = can_close_ranks(bf, m, best=True)
    assert v.ok and v.details["leading"] == "2"
    end = v.witness[-1]
    g = gap(end, R32, (30, 18), R80)
    assert 0.5 - 1e-6 <= g <= 0.5 + 1 / 128 + 1e-6 and v.details["gap"] == pytest.approx(g)
    assert polyline_length(v.witness) <= 3 + 1e-6
    # without `best` the witness is only the shortest legal move
    short = can_close_ranks(bf, m)
    assert short.ok and short.details["path_length"] < 0.01


def test_8_8_1_fight_answers_do_not_depend_on_the_order_of_models():
    bf = scenario.load(str(EX / "fight-held.toml"))
    u = bf.unit("zerglings")
    flipped = replace(u, models=tuple(reversed(u.models)))
    bf2 = bf.replace_unit(flipped)
    assert [r.as_dict() for r in all_ranks(bf, u)] == [r.as_dict() for r in all_ranks(bf2,
                                                                                      flipped)]
    assert [s.removed for s in removal_order(bf, u)] == \
        [s.removed for s in removal_order(bf2, flipped)]
    bf = scenario.load(str(EX / "fight-close-ranks.toml"))
    u = bf.unit("marines")
    flipped = replace(u, models=tuple(reversed(u.models)))
    a = can_close_ranks(bf, u, best=True)
    b = can_close_ranks(bf.replace_unit(flipped), flipped, best=True)
    assert (a.ok, a.witness, a.details["leading"]) == (b.ok, b.witness, b.details["leading"])


def test_fight_of_a_unit_that_is_not_engaged(capsys):
    r = run_json(capsys, "fight", str(EX / "fight-close-ranks.toml"), "queen")
    assert r["engaged_with"] == ["marines"]  # the queen is engaged too, from its side
    r2 = run_json(capsys, "fight", str(EX / "disengage-pocket.toml"), "roach")
    assert r2["engaged_with"] == ["corner-marines"]
    lone = run_json(capsys, "fight", str(EX / "markers-contest.toml"), "medics")
    assert lone["engaged_with"] == [] and lone["ranks"] == {} and lone["casualty_order"] is None
    assert lone["close_ranks"]["possible"] is False and "not engaged" in lone["reason"]
    assert set(r) >= {"engaged_with", "ranks", "close_ranks", "casualty_order", "rule",
                      "reason"}


# ------------------------------------------------------------------ tmg disengage

WALLS = [((11, 15.6), (14.5, 16)), ((11, 20), (14.5, 20.4)), ((11, 15.6), (11.4, 20.4))]
MARINES = [(15.2, 16.6), (15.2, 18), (15.2, 19.4)]


def test_8_5_4_disengage_into_a_ruin_destroys_the_models_that_do_not_fit(capsys):
    r = run_json(capsys, "disengage", str(EX / "disengage-pocket.toml"), "zerglings")
    assert r["possible"] is True and r["rule"] == "8.5.4 disengage"
    # four fit clear of every marine's 1" (nearest spots first, corners of two ranges found
    # exactly); the fifth cannot and is destroyed
    assert len(r["destroyed"]) == 1 and len(r["clear"]) == 4
    assert set(r["destroyed"]) | set(r["clear"]) == {f"zerglings/{i}" for i in range(1, 6)}
    assert r["leading"] in r["clear"] and r["positions"][r["leading"]] == r["end"]
    assert polyline_length(r["path"]) <= 4 + 1e-6  # Speed 4 (4/8, several models)
    walls = [LineString([a, (b[0], a[1]), b, (a[0], b[1]), a]).convex_hull for a, b in WALLS]
    spots = [r["positions"][m] for m in r["clear"]]
    for p in spots:
        assert all(gap(p, R32, q, R32) > 1.0 for q in MARINES), p  # clear of every 1"
        assert all(Point(p).distance(w) >= R32 - 1e-6 for w in walls), p
    for i, p in enumerate(spots):
        for q in spots[i + 1:]:
            assert gap(p, R32, q, R32) >= -1e-6
    for m in r["destroyed"]:
        assert "no legal spot" in r["destroyed_reasons"][m]


def test_8_5_4_leader_that_cannot_get_clear_fails_the_disengage(capsys):
    r = run_json(capsys, "disengage", str(EX / "disengage-pocket.toml"), "roach")
    assert r["possible"] is False and r["end"] is None and r["path"] is None
    assert r["destroyed"] == ["roach/1"] and r["clear"] == []
    assert "fails" in r["reason"] and "does not move" in r["reason"]


def test_8_5_4_disengage_of_a_unit_that_is_not_engaged(capsys):
    r = run_json(capsys, "disengage", str(EX / "markers-contest.toml"), "medics")
    assert r["possible"] is True and r["destroyed"] == [] and "not engaged" in r["reason"]


def test_8_5_4_disengage_does_not_depend_on_the_order_of_models():
    """No leading model recorded: every model is tried and the answer is the same whatever
    order the file lists them in."""
    from geom.model import Speed

    b32 = Base.from_mm(32)
    foe = Unit("foe", "red", 2, (Model.make("1", unit="foe", owner="red", at=(10, 10),
                                            base=b32, size=2),), b32)
    pts = {"a": (10 + 2 * R32 + 0.3, 10), "b": (10, 10 + 2 * R32 + 0.2), "c": (12.3, 11.4)}
    ms = tuple(Model.make(i, unit="us", owner="blue", at=p, base=b32, size=1)
               for i, p in pts.items())
    us = Unit("us", "blue", 1, ms, b32, speed=Speed(4))
    bf = Battlefield(Table(30, 20), (), (foe, us))
    flipped = replace(us, models=tuple(reversed(ms)))
    a, b = disengage(bf, us), disengage(bf.replace_unit(flipped), flipped)
    assert a.possible and a.as_dict() == b.as_dict()


# ------------------------------------------------------------------ text and bad input

@pytest.mark.parametrize("argv,words", [
    (["fight", "fight-held.toml", "zerglings"], ["against marauder", "against marines",
                                                  "close ranks: not possible",
                                                  "casualty order"]),
    (["fight", "fight-close-ranks.toml", "marines"], ["supporting rank marines/3",
                                                      "into base contact"]),
    (["disengage", "disengage-pocket.toml", "zerglings", "--leading", "2"],
     ["disengage possible", "zerglings/2 ends at", "destroyed: zerglings/"]),
    (["disengage", "disengage-pocket.toml", "roach"], ["DISENGAGE FAILS", "destroyed: roach/1"]),
])
def test_text_output(capsys, argv, words):
    assert main([argv[0], str(EX / argv[1]), *argv[2:]]) == 0
    out = capsys.readouterr().out
    for w in words:
        assert w in out, (w, out)


@pytest.mark.parametrize("argv,field", [
    (["fight", "fight-held.toml", "zerglings", "--leading", "9"], "--leading"),
    (["disengage", "fight-held.toml", "zerglings/1"], "zerglings/1"),
    (["fight", "fight-held.toml", "nobody"], "nobody"),
])
def test_bad_references_are_one_line_exit_2(capsys, argv, field):
    assert main([argv[0], str(EX / argv[1]), *argv[2:]]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and field in err and "fight-held.toml" in err
