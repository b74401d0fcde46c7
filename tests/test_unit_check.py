"""Whole-unit moves (GEOMETRY-RULES §6, §7) and the judge's check of a declared position (§14).

Positions are built to give the worked example's numbers (rulebook "진행 예시: 첫 라운드들"):
marines of Speed 4 move towards the centre in coherency 3"; the zerglings, with Squadron
("편대": coherency 4"), spread further than 3" from their leader.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scenario
from geom.judge import _check as judge
from geom.movement._unit_move import place_unit
from tmg.cli import main

R = 32 / 25.4 / 2  # a 32 mm base's radius, inches (marines)


@pytest.fixture
def run_tmg(capsys):
    def run(*argv):
        import json

        assert main([*argv]) == 0
        return json.loads(capsys.readouterr().out)
    return run


@pytest.fixture
def run_tmg_fail(capsys):
    def run(*argv):
        assert main([*argv]) == 2
        return capsys.readouterr().err
    return run


def table(units, terrain=()):
    return scenario.parse_document({
        "format": "tmg-scenario/1", "table": {"width": 54, "depth": 36},
        "terrain": list(terrain), "unit": list(units)}, "<test>")


def after_of(units, terrain=()):
    return scenario.parse_document({
        "format": "tmg-scenario/1", "table": {"width": 54, "depth": 36},
        "terrain": list(terrain), "unit": list(units)}, "<after>", tolerant=True)


def marines(models, uid="marines", owner="red"):
    return {"id": uid, "type": "marine", "owner": owner,
            "models": [{"id": k, "at": list(v)} for k, v in models.items()]}


WALL = {"id": "wall", "size": 3, "polygon": [[20, 5], [21, 5], [21, 15], [20, 15]]}
ENEMY = {"id": "roach", "type": "roach", "owner": "blue", "models": [{"id": "r1", "at": [30, 25]}]}
# m2 stands far away: it cannot lead (its path to any end near m1 is over 4"), so m1 must
BEFORE = {"m1": (10.0, 10.0), "m2": (10.0, 30.0)}


def judged(after_models, *, extra=(), terrain=(WALL,), before=BEFORE, **kw):
    b = table([marines(before), ENEMY, *extra], terrain)
    a = after_of([marines(after_models), ENEMY, *extra], terrain)
    return judge.check(b, a, **kw)


def failure(r, model, rule_part):
    fs = [f for u in r["units"] for f in u["failures"]
          if f["model"] == model and rule_part in f["rule"]]
    assert fs, r
    return fs[0]


# --------------------------------------------------------------------------- whole-unit moves

def test_move_places_every_model_in_shape_and_coherency():
    bf = table([marines({"m1": (10, 10), "m2": (11.4, 10), "m3": (10, 11.4), "m4": (11.4, 11.4),
                         "m5": (8.6, 10)}), ENEMY], [WALL])
    u = bf.unit("marines")
    p = place_unit(bf, u, "m1", (13, 10))
    assert p.in_coherency and not p.casualties
    # the unit keeps its shape: each model where it stood relative to the leader, moved 3"
    for m in u.models:
        assert math.dist(p.positions[m.id], (m.at[0] + 3, m.at[1])) < 1e-6


def test_shape_blocked_by_a_wall_the_model_goes_to_the_nearest_legal_spot():
    bf = table([marines({"m1": (17, 10), "m2": (19.0, 10)})], [WALL])
    p = place_unit(bf, bf.unit("marines"), "m1", (18.5, 10))  # m2's spot (20.5, 10) is in the wall
    x, y = p.positions["m2"]
    assert p.in_coherency
    assert x <= 20 - R + 1e-6  # clear of the wall, still within 3" of m1
    assert math.dist((x, y), (18.5, 10)) <= 3 + 1e-6


def test_cli_move_answers_positions_and_saves_all_models(tmp_path, run_tmg):
    out = tmp_path / "after.toml"
    r = run_tmg("move", "examples/move-coherency.toml", "marines/m1", "--to", "7,9",
                "--save", str(out), "--json")
    assert r["legal"] and r["in_coherency"] and r["casualties"] == []
    assert set(r["positions"]) == {"marines/m1", "marines/m2", "marines/m3"}
    saved = scenario.load(out)
    for ref, at in r["positions"].items():
        assert math.dist(saved.unit("marines").model(ref.split("/")[1]).at, at) < 1e-9
    chk = run_tmg("check", "examples/move-coherency.toml", str(out), "--json")
    assert chk["legal"] and chk["units"][0]["leading"] == "m1"


def test_zerglings_squadron_places_at_four_inches():
    """The worked example: the zerglings use Squadron to spread 4" (3.5" is illegal for marines)."""
    lings = {"id": "lings", "type": "zergling", "owner": "blue",
             "models": [{"id": "z1", "at": [40, 20]}, {"id": "z2", "at": [40, 30]}]}
    b = table([lings])
    a = after_of([{**lings, "models": [{"id": "z1", "at": [44, 20]},
                                        {"id": "z2", "at": [44, 23.5]}]}])
    assert judge.check(b, a)["legal"]
    m = marines({"m1": (40, 20), "m2": (40, 30)})
    r = judge.check(table([m]), after_of([marines({"m1": (44, 20), "m2": (44, 23.5)})]))
    assert not r["legal"]
    assert failure(r, "m2", "4.4")["excess"] == pytest.approx(0.5, abs=1e-6)


# --------------------------------------------------------------------------- the judge at limits

def test_allowance_exact_and_past():
    ok = judged({"m1": (14.0, 10.0), "m2": (14.0, 12.0)})
    assert ok["legal"] and ok["units"][0]["leading"] == "m1"
    bad = judged({"m1": (14.001, 10.0), "m2": (14.0, 12.0)})
    assert not bad["legal"]
    f = failure(bad, "m1", "8.5.3")
    assert f["excess"] == pytest.approx(0.001, abs=1e-6)
    assert '0.001" beyond the allowance 4"' in f["reason"]


def test_coherency_distance_exact_and_past():
    assert judged({"m1": (13.0, 10.0), "m2": (16.0, 10.0)})["legal"]  # wholly within 3": 3.000
    bad = judged({"m1": (13.0, 10.0), "m2": (16.001, 10.0)})
    f = failure(bad, "m2", "4.4")
    assert f["excess"] == pytest.approx(0.001, abs=1e-6)
    assert '3.001" from the leading model m1: 0.001" beyond 3"' in f["reason"]


def test_engagement_exact_and_past():
    rr = table([ENEMY]).unit("roach").models[0].base.a
    y = 25 - rr - R - 1.001  # m2's gap to the roach at (30, 25): 1.001", then 0.999"
    before = {"m1": (26, y - 1), "m2": (10, 30)}
    assert judged({"m1": (28, y), "m2": (30, y)}, before=before)["legal"]
    bad = judged({"m1": (28, y), "m2": (30, y + 0.002)}, before=before)
    f = failure(bad, "m2", "7.2")
    assert f["excess"] == pytest.approx(0.001, abs=1e-6)


def test_wall_overlap_depth_is_the_excess():
    before = {"m1": (14, 11), "m2": (10, 30)}
    assert judged({"m1": (17.0, 10.0), "m2": (20 - R, 10.0)}, before=before)["legal"]
    bad = judged({"m1": (17.0, 10.0), "m2": (20 - R + 0.001, 10.0)}, before=before)
    f = failure(bad, "m2", "8.5.3")
    assert "overlaps" in f["reason"] and f["excess"] == pytest.approx(0.001, abs=1e-6)


def test_base_overlap_and_off_table_are_read_and_judged():
    bad = judged({"m1": (13.0, 10.0), "m2": (13.0 + 2 * R - 0.25, 10.0)})
    assert failure(bad, "m2", "8.5.3")["excess"] == pytest.approx(0.25, abs=1e-6)
    off = judged({"m1": (12.0, 2.0), "m2": (12.0, 0.5)}, before={"m1": (10, 3), "m2": (10, 30)})
    assert failure(off, "m2", "8.5.3")["excess"] == pytest.approx(R - 0.5, abs=1e-6)


def seg_len(f):
    (x1, y1), (x2, y2) = f["witness"]["segment"]
    return math.hypot(x2 - x1, y2 - y1)


def test_each_failure_carries_a_witness_that_measures_it():
    """The witness segment's length is the distance the verdict measures (coherency: leader's
    base to the far side of the model's; engagement: the gap; overlaps and the edge: the depth)."""
    coh = failure(judged({"m1": (13.0, 10.0), "m2": (16.25, 10.0)}), "m2", "4.4")
    assert seg_len(coh) == pytest.approx(3.25, abs=1e-6)
    assert coh["witness"]["segment"][1] == pytest.approx([16.25 + R, 10.0])
    wall = failure(judged({"m1": (17.0, 10.0), "m2": (20 - R + 0.3, 10.0)},
                          before={"m1": (14, 11), "m2": (10, 30)}), "m2", "8.5.3")
    assert seg_len(wall) == pytest.approx(wall["excess"], abs=1e-6)
    assert wall["witness"]["segment"][0] == pytest.approx([20.0, 10.0])
    over = failure(judged({"m1": (13.0, 10.0), "m2": (13.0 + 2 * R - 0.25, 10.0)}), "m2", "8.5.3")
    assert seg_len(over) == pytest.approx(0.25, abs=1e-6)
    off = failure(judged({"m1": (12.0, 2.0), "m2": (12.0, 0.5)},
                         before={"m1": (10, 3), "m2": (10, 30)}), "m2", "8.5.3")
    assert sum(off["witness"]["segment"], []) == pytest.approx([12.0, 0.0, 12.0, 0.5 - R], abs=1e-6)
    rr = table([ENEMY]).unit("roach").models[0].base.a
    y = 25 - rr - R - 0.5
    eng = failure(judged({"m1": (28, y - 1), "m2": (30, y)}, before={"m1": (26, y - 2),
                                                                     "m2": (10, 30)}), "m2", "7.2")
    assert seg_len(eng) == pytest.approx(0.5, abs=1e-6)
    far = failure(judged({"m1": (14.5, 10.0), "m2": (14.0, 12.0)}), "m1", "8.5.3")
    assert far["witness"]["path"][0] == [10.0, 10.0] and far["witness"]["path"][-1] == [14.5, 10]


def test_engine_proposals_pass_and_0001_past_fails_for_each_model():
    """Every placement the engine proposes is accepted; pushing any model 0.001" beyond the
    coherency distance is rejected naming that model."""
    before = {"m1": (10, 10), "m2": (11.4, 10), "m3": (10, 11.4), "m4": (11.4, 11.4)}
    b = table([marines(before), ENEMY], [WALL])
    u = b.unit("marines")
    p = place_unit(b, u, "m1", (13, 10))
    a = after_of([marines(p.positions), ENEMY], [WALL])
    assert judge.check(b, a)["legal"]
    lead = p.positions["m1"]
    for mid in ("m2", "m3", "m4"):
        x, y = p.positions[mid]
        d = math.dist((x, y), lead)
        k = 3.001 / d
        pushed = dict(p.positions, **{mid: (lead[0] + (x - lead[0]) * k,
                                            lead[1] + (y - lead[1]) * k)})
        ua = after_of([marines(pushed), ENEMY], [WALL]).unit("marines")
        led = judge.judge_leader(b, u, ua, "m1", "move", 4.0, set())
        assert not led["legal"]
        assert [(f["model"], f["rule"]) for f in led["failures"]] == [(mid, judge.RULE_COHERENCY)]
        assert led["failures"][0]["excess"] == pytest.approx(0.001, abs=1e-6)


def test_verdict_does_not_depend_on_order_or_recorded_leader():
    after = {"m1": (13.0, 10.0), "m2": (16.001, 10.0)}
    r1 = judged(after)
    rev = marines(dict(reversed(list(after.items()))))
    rev["leading"] = "m2"
    b = table([marines(dict(reversed(list(BEFORE.items())))), ENEMY], [WALL])
    r2 = judge.check(b, after_of([rev, ENEMY], [WALL]))
    assert r1 == r2


def test_casualty_with_a_legal_place_is_not_allowed():
    r = judged({"m1": (13.0, 10.0)})
    assert failure(r, "m2", "4.4 casualties")
    assert not r["legal"]


def test_grass_must_go_when_crossed():
    grass = {"id": "g", "size": 2, "kind": "grass",
             "polygon": [[11, 9], [12, 9], [12, 11], [11, 11]]}
    b = table([marines(BEFORE), ENEMY], [WALL, grass])
    kept = after_of([marines({"m1": (13.0, 10.0), "m2": (13.0, 12.0)}), ENEMY], [WALL, grass])
    r = judge.check(b, kept)
    assert not r["legal"] and any(f["rule"].startswith("8.5.3 GRASS") for f in
                                  r["units"][0]["failures"])
    gone = after_of([marines({"m1": (13.0, 10.0), "m2": (13.0, 12.0)}), ENEMY], [WALL])
    assert judge.check(b, gone)["legal"]


def test_place_judged_per_model_within_x():
    r = judged({"m1": (12.0, 10.0), "m2": (10.0, 31.0)}, action="place", allowance=2.0)
    assert not r["legal"]
    ok = judged({"m1": (12.0, 10.0), "m2": (10.0, 31.0)}, action="place", allowance=22.0)
    assert failure(ok, "m2", "4.4")  # far from m1: out of coherency, though within 22"


def test_cli_check_bad_input_names_the_file(tmp_path, run_tmg_fail):
    bad = tmp_path / "a.toml"
    bad.write_text('format = "tmg-scenario/1"\n[table]\nwidth = 54\ndepth = 36\n'
                   '[[unit]]\nid = "ghosts"\ntype = "marine"\nowner = "red"\n'
                   'models = [[5, 5]]\n')
    err = run_tmg_fail("check", "examples/move-coherency.toml", str(bad))
    assert "ghosts" in err and str(bad) in err


# --------------------------------------------------------------------------- properties

def reference_ok(lead, m2, enemy):
    """Slow, obvious reference for a two-marine unit led by m1 on the open table with the
    wall: distances between discs and from the wall rectangle."""
    import shapely.geometry as sg

    wall = sg.Polygon(WALL["polygon"])
    rr = table([ENEMY]).unit("roach").models[0].base.a
    x, y = m2
    if not (R <= x <= 54 - R and R <= y <= 36 - R):
        return False
    if wall.distance(sg.Point(m2)) < R:
        return False
    d = math.dist(m2, lead)
    if d < 2 * R or d > 3.0:
        return False
    return math.dist(m2, enemy) - R - rr > 1.0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.floats(0, 2 * math.pi), st.floats(1.0, 4.0), st.floats(-4, 4), st.floats(-4, 4))
def test_property_engine_moves_pass_and_perturbations_match_reference(ang, dist, dx, dy):
    end = (10 + dist * math.cos(ang), 10 + dist * math.sin(ang))
    b = table([marines(BEFORE), ENEMY], [WALL])
    p = place_unit(b, b.unit("marines"), "m1", end)
    a = after_of([marines(p.positions), ENEMY], [WALL])
    assert judge.check(b, a)["legal"]
    m2 = (p.positions["m2"][0] + dx, p.positions["m2"][1] + dy)
    # keep clear of the band a reference of distances cannot decide
    d = math.dist(m2, end)
    if min(abs(d - 3.0), abs(d - 2 * R), abs(m2[0] - R), abs(m2[1] - R)) < 0.01:
        return
    import shapely.geometry as sg
    if abs(sg.Polygon(WALL["polygon"]).distance(sg.Point(m2)) - R) < 0.01:
        return
    r = judge.check(b, after_of([marines({"m1": end, "m2": m2}), ENEMY], [WALL]))
    assert r["legal"] == reference_ok(end, m2, (30, 25))


# --------------------------------------------------------------------------- charge

def test_roach_charge_of_the_worked_example_legal_on_3_not_on_2(tmp_path, run_tmg):
    """Round 1: the roaches must move at least 7" to reach their target (Speed 4: a 3 rolled)."""
    ex = "examples/roach-charge.toml"
    out = tmp_path / "charged.toml"
    c = run_tmg("charge", ex, "roaches", "--targets", "marauder", "--roll", "3",
                "--save", str(out), "--json")
    assert c["min_distance"] == pytest.approx(7.0, abs=1e-6) and c["min_roll"] == 3
    ok = run_tmg("check", ex, str(out), "--action", "charge", "--roll", "3", "--json")
    assert ok["legal"] and ok["units"][0]["action"] == "charge"
    bad = run_tmg("check", ex, str(out), "--action", "charge", "--roll", "2", "--json")
    assert not bad["legal"]
    f = bad["units"][0]["failures"][0]
    assert f["rule"] == judge.RULE_CHARGE and f["excess"] == pytest.approx(1.0, abs=1e-6)
    anyroll = run_tmg("check", ex, str(out), "--json")
    assert anyroll["legal"] and anyroll["units"][0]["action"] == ["charge"]


# --------------------------------------------------------------------------- reserve, deploy

def test_reserve_unit_deploys_checked_from_the_entry_edge():
    doc = {"format": "tmg-scenario/1",
           "table": {"width": 54, "depth": 36, "deployment": "gauntlet"}}
    reserve = {"id": "marines", "type": "marine", "owner": "red", "reserve": True,
               "models": ["m1", "m2"]}
    b = scenario.parse_document({**doc, "unit": [reserve]}, "<before>")
    assert b.units == () and [u.id for u in b.reserves] == ["marines"]

    def after(y1):
        return scenario.parse_document({**doc, "unit": [marines({"m1": (20, y1),
                                                                 "m2": (21.5, y1 - 0.5)})]},
                                       "<after>", tolerant=True)

    # red enters at y = 36: the leader starts touching the edge (centre 36 + r), Speed 4
    ok = judge.check(b, after(32 + R))
    assert ok["legal"] and ok["units"][0]["action"] == ["deploy"]
    bad = judge.check(b, after(32 + R - 0.001))
    assert not bad["legal"]
    assert all(f["excess"] == pytest.approx(0.001, abs=1e-6) for f in
               bad["units"][0]["failures"] if f["rule"] == judge.RULE_DEPLOY)
    moved = judge.check(b, after(33), action="move")
    assert not moved["legal"] and "reserve" in moved["reason"]


def test_cli_deploy_from_reserve_saves_and_checks(tmp_path, run_tmg):
    before = tmp_path / "reserve.toml"
    before.write_text('format = "tmg-scenario/1"\n[table]\nwidth = 54\ndepth = 36\n'
                      'deployment = "gauntlet"\n[[unit]]\nid = "marines"\ntype = "marine"\n'
                      'owner = "red"\nreserve = true\nmodels = ["m1", "m2", "m3"]\n')
    after = tmp_path / "deployed.toml"
    r = run_tmg("move", str(before), "marines/m1", "--deploy", "--to", "20,33",
                "--save", str(after), "--json")
    assert r["legal"] and r["in_coherency"] and len(r["positions"]) == 3
    assert scenario.load(after).reserves == ()
    chk = run_tmg("check", str(before), str(after), "--json")
    assert chk["legal"] and chk["units"][0]["action"] == ["deploy"]


def test_ten_zerglings_on_standard_1_engine_move_passes_check(tmp_path, run_tmg):
    """The benchmark's case: the models placed on GRASS destroy it, and the saved table says so."""
    ex = "examples/battle-standard-1.toml"
    out = tmp_path / "z.toml"
    r = run_tmg("move", ex, "zerglings-a/1", "--to", "12.5,16", "--save", str(out), "--json")
    assert r["legal"] and r["in_coherency"] and len(r["positions"]) == 10
    assert r["destroys_grass"]  # the shrubs the placed models end on
    chk = run_tmg("check", ex, str(out), "--action", "move", "--json")
    assert chk["legal"] and chk["units"][0]["leading"] == "1"


# --------------------------------------------------------------------------- the picture

def test_render_check_before_after_draws_both_tables_and_every_witness(tmp_path, run_tmg,
                                                                       capsys):
    """`tmg render --check BEFORE AFTER` (and the older `tmg render BEFORE --check AFTER`): the
    table as the player left it (solid bases), BEFORE faint, the failing model ringed and each
    failure's witness drawn (here m3: in the wall, 3.413" from its leader)."""
    from viewer.overlays import Check
    from viewer.scene import build_scene

    ex = "examples/move-coherency.toml"
    text = open(ex).read()
    for a, b in (("[9, 6]", "[7, 9]"), ("[9, 7.5]", "[7, 10.5]"), ("[11, 6]", "[10.4, 8.7]")):
        text = text.replace(a, b)
    after = tmp_path / "after.toml"
    after.write_text(text)
    before_bf, after_bf = scenario.load(ex), scenario.load(str(after), tolerant=True)
    verdict = judge.check(before_bf, after_bf)
    scene = build_scene(after_bf, [Check(after_bf, verdict, before=before_bf)])
    marks = {p.mark.key for p in scene.prims if getattr(p, "mark", None) is not None}
    assert {"check:before", "check:fail", "check:witness"} <= marks
    segs = [p.points for p in scene.prims if getattr(p, "mark", None) is not None
            and p.mark.key == "check:witness"]
    assert sorted(round(math.dist(*s), 3) for s in segs) == [0.43, 3.413]
    new = run_tmg("render", "--check", ex, str(after), "-o", str(tmp_path / "a.svg"), "--json")
    old = run_tmg("render", ex, "--check", str(after), "-o", str(tmp_path / "b.svg"), "--json")
    assert new["info"] == old["info"] and any("NOT LEGAL" in i for i in new["info"])
    svg = (tmp_path / "a.svg").read_text()
    assert svg == (tmp_path / "b.svg").read_text()
    assert "where it stood before" in svg and "witness: what the failure measures" in svg
    assert main(["render", "--check", ex, "-o", str(tmp_path / "c.svg")]) == 2
    assert "--check takes BEFORE AFTER" in capsys.readouterr().err


def test_charge_check_names_the_better_spot_a_model_was_denied(tmp_path, run_tmg):
    """§8.7.7 step 4: a roach left 2" behind its leader when base contact with the marauder was
    open to it fails priority A; the failure carries the excess (its gap to the target's base)
    and a witness (a free spot in base contact, the base drawn there)."""
    import json
    import tomllib

    from geom import bases

    ex = "examples/roach-charge.toml"
    out = tmp_path / "charged.toml"
    c = run_tmg("charge", ex, "roaches", "--targets", "marauder", "--roll", "3",
                "--save", str(out), "--json")
    doc = tomllib.loads(out.read_text(encoding="utf-8"))
    roaches = next(u for u in doc["unit"] if u["id"] == "roaches")
    lead = next(m for m in roaches["models"] if m["id"] == c["leading"])
    lazy = next(m for m in roaches["models"] if m["id"] != c["leading"])
    lazy["at"] = [lead["at"][0] - 2.0, lead["at"][1]]
    bad_file = tmp_path / "lazy.json"
    bad_file.write_text(json.dumps(doc), encoding="utf-8")
    r = run_tmg("check", ex, str(bad_file), "--action", "charge", "--roll", "3", "--json")
    assert not r["legal"]
    (f,) = [f for f in r["units"][0]["failures"] if "could have been placed" in f["reason"]]
    assert f["model"] == lazy["id"] and f["rule"] == judge.RULE_CHARGE
    after = scenario.load(str(bad_file), tolerant=True)
    m = after.unit("roaches").model(lazy["id"])
    target = after.unit("marauder").models
    gap = min(bases.ellipse_distance(m.ellipse, o.ellipse) for o in target)
    assert f["excess"] == pytest.approx(gap, abs=1e-5) and gap > 0.5
    # the spot lies in the band the placement searches for base contact (2e-3")
    from geom.movement._charge_region import CONTACT_BAND

    spot = m.moved_to(tuple(f["witness"]["point"]))
    assert min(bases.ellipse_distance(spot.ellipse, o.ellipse) for o in target) <= CONTACT_BAND
