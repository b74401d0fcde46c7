"""Close ranks re-places the whole unit and `tmg check --action close-ranks` judges it
(rulebook §8.8.1 step 1: "가능한 한 모델을 적 모델과 베이스 접촉 상태로 놓습니다"; models already in
base contact do not move; GEOMETRY-RULES §9, §14).

Positions follow the rulebook's round-2 walkthrough (examples/fight-close-ranks.toml: marines
engaged with a queen) and exact constructions along straight lines in the open, where the
shortest path and every distance are known in closed form.
"""

from __future__ import annotations

import math
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scenario
from geom.combat._close_ranks import can_close_ranks, place_close_ranks
from geom.distance import distance
from geom.judge import _check as judge

R = 32 / 25.4 / 2  # a marine's 32 mm base, radius in inches
RQ = 80 / 25.4 / 2  # the queen's 80 mm base
Q = (30.0, 18.0)
EXAMPLE = "examples/fight-close-ranks.toml"


def doc(marine_models, tolerant=False):
    return scenario.parse_document({
        "format": "tmg-scenario/1", "table": {"width": 54, "depth": 36},
        "unit": [{"id": "queen", "type": "queen", "owner": "blue", "models": [list(Q)]},
                 {"id": "marines", "type": "marine", "owner": "red",
                  "models": [{"id": k, "at": list(v)} for k, v in marine_models.items()]}]},
        "<after>" if tolerant else "<before>", tolerant=tolerant)


def on_queen(angle, gap):
    """A marine's centre `gap` inches from the queen's base, at `angle` (degrees)."""
    r = RQ + R + gap
    return (Q[0] - r * math.cos(math.radians(angle)), Q[1] + r * math.sin(math.radians(angle)))


def leaders(r, lead):
    return next(ld for ld in r["units"][0]["leaders"] if ld["leading"] == lead)


def fails(failures, model, rule="8.8.1"):
    return [f for f in failures if f["model"] == model and rule in f["rule"]]


# m1 is engaged (0.5" from the queen) but not held; m2 stands back and leads 3" straight in
BEFORE = {"m1": on_queen(40, 0.5), "m2": on_queen(0, 4.5)}


CONTACT = on_queen(40, 0.0)


def after_lead(step, m1=CONTACT):
    x, y = BEFORE["m2"]
    return doc({"m1": m1, "m2": (x + step, y)}, tolerant=True)


def test_engine_close_ranks_places_every_free_model_in_base_contact():
    b = scenario.load(EXAMPLE)
    u = b.unit("marines")
    cr = can_close_ranks(b, u, best=True)
    pl = place_close_ranks(b, u, cr.details["leading"], tuple(cr.witness[-1]))
    assert not pl.casualties and pl.in_coherency
    assert pl.positions["1"] == u.model("1").at  # held: it stays
    queen = b.unit("queen").models[0]
    for mid, at in pl.positions.items():  # 3, 4 and 5 all reach the queen within 3"
        assert distance(u.model(mid).moved_to(at), queen) <= 1e-4, mid
    a = b.replace_unit(replace(u, models=tuple(m.moved_to(pl.positions[m.id])
                                               for m in u.models)))
    r = judge.check(b, a, action="close-ranks")
    assert r["legal"], r
    assert judge.check(b, a)["units"][0]["action"] == ["close-ranks"]


def test_cli_fight_answers_every_models_end(capsys):
    import json

    from tmg.cli import main

    assert main(["fight", EXAMPLE, "marines", "--json"]) == 0
    c = json.loads(capsys.readouterr().out)["close_ranks"]
    assert set(c["positions"]) == {f"marines/{i}" for i in "12345"}
    assert c["casualties"] == [] and c["in_coherency"] is True
    assert c["positions"]["marines/1"] == [27.795276, 18.0]


def test_leader_allowance_exact_and_0001_past():
    b = doc(BEFORE)
    ok = judge.check(b, after_lead(3.0), action="close-ranks")
    assert ok["legal"] and ok["units"][0]["leading"] == "m2", ok
    bad = judge.check(b, after_lead(3.001), action="close-ranks")
    assert not bad["legal"]
    f = fails(leaders(bad, "m2")["failures"], "m2")
    assert f and abs(f[0]["excess"] - 0.001) < 1e-6, bad
    assert '0.001" beyond the allowance 3"' in f[0]["reason"]


def test_model_left_short_of_base_contact_names_it_and_the_gap():
    b = doc(BEFORE)
    bad = judge.check(b, after_lead(3.0, m1=on_queen(40, 0.001)), action="close-ranks")
    assert not bad["legal"]
    f = fails(leaders(bad, "m2")["failures"], "m1")
    assert f and abs(f[0]["excess"] - 0.001) < 1e-6, bad
    assert "base contact" in f[0]["reason"]
    w = f[0]["witness"]["point"]  # a free spot in base contact, in coherency
    assert abs(math.dist(w, Q) - (RQ + R)) < 1e-3
    assert abs(math.dist(*f[0]["witness"]["segment"]) - 0.001) < 1e-6  # the gap left


def test_closer_exact_and_the_held_model_stays():
    # the leader must end strictly closer: ending where it started is no close ranks
    held = {"m1": on_queen(40, 0.0), "m2": on_queen(0, 1.5)}
    b = doc(held)
    x, y = held["m2"]
    ok = judge.check(b, doc({"m1": held["m1"], "m2": (x + 0.5, y)}, True), action="close-ranks")
    assert ok["legal"], ok
    side = doc({"m1": held["m1"], "m2": on_queen(-30, 1.5)}, True)  # as far as it was
    bad = judge.check(b, side, action="close-ranks")
    assert not bad["legal"] and fails(bad["units"][0]["failures"], "m2"), bad
    # m1 touched the queen: it is physically held; 0.001" moved is a failure with its segment
    nudged = on_queen(40, 0.001)
    bad = judge.check(b, doc({"m1": nudged, "m2": (x + 0.5, y)}, True), action="close-ranks")
    f = fails(bad["units"][0]["failures"], "m1")
    assert f and abs(f[0]["excess"] - 0.001) < 1e-6 and "held" in f[0]["reason"], bad
    assert f[0]["witness"]["segment"][1] == list(nudged)


def test_unit_wholly_in_base_contact_cannot_close_ranks():
    b = doc({"m1": on_queen(40, 0.0)})
    r = judge.check(b, doc({"m1": on_queen(60, 0.0)}, True), action="close-ranks")
    assert not r["legal"] and "cannot close ranks" in r["units"][0]["failures"][0]["reason"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.floats(-60, 60), st.floats(0.5, 2.9))
def test_property_engine_close_ranks_pass_check(angle, step):
    """Random legal close-ranks moves of the leader: the engine's whole-unit placement passes."""
    b = doc(BEFORE)
    u = b.unit("marines")
    lead = u.model("m2")
    end = (lead.at[0] + step * math.cos(math.radians(angle)),
           lead.at[1] + step * math.sin(math.radians(angle)))
    queen = b.unit("queen").models[0]
    if distance(lead.moved_to(end), queen) >= distance(lead, queen) - 0.01 or \
            distance(lead.moved_to(end), queen) < 0.01:
        return  # not closer (or touching the queen): not a legal close-ranks end
    pl = place_close_ranks(b, u, "m2", end)
    a = b.replace_unit(replace(u, models=tuple(m.moved_to(pl.positions[m.id])
                                               for m in u.models if m.id in pl.positions)))
    r = judge.check(b, a, action="close-ranks")
    assert r["legal"] == (not pl.casualties and pl.in_coherency), r


def test_cli_fight_save_writes_the_re_placed_unit(tmp_path, capsys):
    """`tmg fight --save`: the table close ranks leaves, every model where the answer put it and
    the unit's coherency recorded (§4.4); the saved table is one `tmg check` judges legal."""
    import json

    from tmg.cli import main

    out = tmp_path / "after.toml"
    assert main(["fight", EXAMPLE, "marines", "--save", str(out), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["saved"] == str(out) and r["saved_coherent"] is True
    after = scenario.load(str(out))
    u = after.unit("marines")
    assert u.coherent is True
    for ref, at in r["close_ranks"]["positions"].items():
        m = u.model(ref.split("/", 1)[1])
        assert math.dist(m.at, at) < 1e-6
    assert main(["check", EXAMPLE, str(out), "--unit", "marines", "--action", "close-ranks",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["legal"] is True


def test_cli_fight_save_refused_when_close_ranks_is_not_possible(tmp_path, capsys):
    import json

    from tmg.cli import main

    src = tmp_path / "all-in-contact.json"  # every marine already in base contact
    src.write_text(json.dumps({
        "format": "tmg-scenario/1", "table": {"width": 54, "depth": 36},
        "unit": [{"id": "queen", "type": "queen", "owner": "blue", "models": [list(Q)]},
                 {"id": "marines", "type": "marine", "owner": "red",
                  "models": [{"id": "m1", "at": list(on_queen(0, 0.0))},
                             {"id": "m2", "at": list(on_queen(60, 0.0))}]}]}))
    out = tmp_path / "after.toml"
    assert main(["fight", str(src), "marines", "--save", str(out), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["close_ranks"]["possible"] is False
    assert r["saved"] is None and "not possible" in r["save_refused"] and not out.exists()


def test_render_check_rings_the_judged_leader(tmp_path):
    """`tmg render --check`: the yellow ring marks the leading model the check judged (m2 here,
    which leads close ranks), not the scenario's default leader (m1, first in id order)."""
    from geom.judge._check import check
    from viewer.overlays import Check
    from viewer.scene import build_scene

    before = doc(BEFORE)
    after = after_lead(3.0)
    assert after.unit("marines").leading_model.id == "m1"  # the default, unrecorded
    verdict = check(before, after, action="close-ranks")
    (u,) = verdict["units"]
    assert u["legal"] is True and u["leading"] == "m2"
    chk = Check(after, verdict, before=before)
    sc = build_scene(chk.table(), [chk])
    rings = [p.tag for p in sc.prims if p.tag.startswith("leader:marines/")]
    assert rings == ["leader:marines/m2"]
