"""The charge's target model (rulebook §8.7.7 step 2: "선도 모델을 고르고, 대상 유닛마다 모델 하나를
돌격 목표로 지정합니다"; step 4: the leading model in base contact with the charge's target if it
can, else as close as possible within 1").

`--targets UNIT/MODEL` names it; without one the engine chooses and the answer says which
(`target_models`, `target_model_choice`). The target model moves the leader's end, not the
charge's success: step 3 asks for engagement range of every declared *unit*, so `min_distance`
and the rolls that succeed do not depend on it — the roll that reaches base contact with it
(`contact_distance`, `contact_roll`) does, exactly at the threshold. HIDDEN does not protect from
a charge (§8.7.7 step 1: a charge needs no sight)."""

from __future__ import annotations

import json
import math
import tomllib

import httpx
import pytest

from geom.combat._charge import charge, split_targets
from geom.errors import TmgError
from geom.judge._check import check
from geom.model import Base, Battlefield, Model, Speed, Table, Unit
from scenario import load as scenario_load
from scenario import parse_document
from tests._service import running_server
from tmg.cli import main

MM = 25.4
R = 25 / MM / 2  # a 25 mm zergling base
TR = 32 / MM / 2  # a 32 mm marine base
START = (5.0, 10.0)
NEAR = 2.0  # the shortest legal charge: to within 1" of marine 1, straight east
FAR = 9.0  # the path into base contact with marine 2: Speed 4 + 5 exactly
ANGLE = math.radians(40)  # marine 2's bearing: the straight way to it clears marine 1 by far
M1 = (START[0] + R + 1 + TR + NEAR, START[1])
M2 = (START[0] + (FAR + R + TR) * math.cos(ANGLE), START[1] + (FAR + R + TR) * math.sin(ANGLE))


def unit(uid: str, owner: str, pts, *, mm: int = 25, statuses: tuple[str, ...] = ()) -> Unit:
    b = Base.from_mm(mm)
    ms = tuple(Model.make(str(i + 1), unit=uid, owner=owner, at=p, base=b, size=1,
                          hidden="hidden" in statuses) for i, p in enumerate(pts))
    return Unit(uid, owner, 1, ms, b, speed=Speed(4), tags=("ground",), statuses=statuses)


def table(statuses: tuple[str, ...] = ()) -> Battlefield:
    return Battlefield(Table(40, 30), (), (unit("lings", "red", [START]),
                                            unit("marines", "blue", [M1, M2], mm=32,
                                                 statuses=statuses)))


def touches(end, model_at) -> float:
    """How far the leader's base is from touching the model's: centre distance − radii."""
    return math.dist(end, model_at) - (R + TR)


def test_split_targets_reads_unit_and_unit_model():
    assert split_targets(["marauder/m2", "zerglings"]) == (["marauder", "zerglings"],
                                                           {"marauder": "m2"})
    for bad in (["marauder/"], ["/m2"], ["a/1", "a/2"]):
        with pytest.raises(TmgError) as e:
            split_targets(bad)
        assert e.value.field == "targets"


def test_a_named_target_model_takes_the_leaders_base_contact():
    bf = table()
    default = charge(bf, "lings", ["marines"], roll=6)
    aimed = charge(bf, "lings", ["marines/2"], roll=6)
    # the engine's choice: base contact with marine 1, the nearest (the shortest path into it)
    assert default.details["target_models"] == {"marines": "1"}
    assert default.details["target_model_choice"] == {"marines": "base contact"}
    assert abs(touches(default.end, M1)) <= 1e-6
    # named: base contact with marine 2, and not with marine 1
    assert aimed.details["target_models"] == {"marines": "2"}
    assert aimed.details["target_model_choice"] == {"marines": "named"}
    assert aimed.details["end_kind"] == "base contact"
    assert abs(touches(aimed.end, M2)) <= 1e-6
    assert touches(aimed.end, M1) > 1.0
    assert aimed.details["placement"]["ok"]
    # step 3 asks for engagement range of the unit: success does not depend on the model
    assert (aimed.possible, aimed.min_distance, aimed.min_roll, aimed.probability) == \
        (default.possible, default.min_distance, default.min_roll, default.probability)
    assert aimed.min_distance == pytest.approx(NEAR, abs=1e-6)


@pytest.mark.parametrize("short", [0.0, 0.001])
def test_base_contact_with_the_target_model_is_exact_at_the_threshold(short):
    """The path into contact with marine 2 is Speed 4 + 5 exactly: a 5 reaches it; with 0.001"
    less the leader stops as close as it can, 0.001" short, and contact needs a 6."""
    ans = charge(table(), "lings", ["marines/2"], modifier=-short, roll=5)
    d = ans.details
    assert d["roll_succeeds"] and d["contact_distance"] == pytest.approx(FAR, abs=1e-6)
    gap = touches(ans.end, M2)
    if short == 0:
        assert d["end_kind"] == "base contact" and d["contact_roll"] == 5
        assert abs(gap) <= 1e-6
        assert d["end_path_length"] <= 4 + 5 + 1e-6
    else:
        assert d["end_kind"] != "base contact" and d["contact_roll"] == 6
        assert gap == pytest.approx(0.001, abs=1 / 256)  # as close as possible (CLOSE_TOL)
        assert gap > 1e-6
        assert d["end_path_length"] <= 4 + 5 - 0.001 + 1e-6
    # the charge itself succeeds on a 1 either way (marine 1's unit is 2" away)
    assert ans.min_roll == 1


def test_the_engine_names_the_nearest_when_contact_is_out_of_reach():
    far = (START[0] + R + 1 + TR + 5.5, START[1])  # only a 2+ charge, no contact with a 1
    bf = Battlefield(Table(40, 30), (), (unit("lings", "red", [START]),
                                         unit("marines", "blue", [far, (far[0] + 3, 14)],
                                              mm=32)))
    ans = charge(bf, "lings", ["marines"], roll=2)
    assert ans.details["end_kind"] != "base contact"
    assert ans.details["target_models"] == {"marines": "1"}
    assert ans.details["target_model_choice"] == {"marines": "nearest"}


def test_a_hidden_unit_may_still_be_charged():
    seen = charge(table(), "lings", ["marines/2"], roll=6).as_dict()
    hidden = charge(table(("hidden",)), "lings", ["marines/2"], roll=6).as_dict()
    assert hidden["possible"] is True
    assert hidden == seen


def _doc(tmp_path, name="t.toml", hidden=False, lings=START):
    f = tmp_path / name
    status = 'statuses = ["hidden"]\n' if hidden else ""
    f.write_text(f'''format = "tmg-scenario/1"
[table]
width = 40
depth = 30
[[unit]]
id = "lings"
owner = "red"
size = 1
speed = 4
base_mm = 25
models = [{list(lings)!r}]
[[unit]]
id = "marines"
owner = "blue"
size = 1
speed = 6
base_mm = 32
{status}models = [{{id = "m1", at = {list(M1)!r}}}, {{id = "m2", at = {list(M2)!r}}}]
''', encoding="utf-8")
    return str(f)


def test_cli_names_the_target_models_and_refuses_an_unknown_one(tmp_path, capsys):
    f = _doc(tmp_path)
    assert main(["charge", f, "lings", "--targets", "marines/m2", "--roll", "6", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["target_models"] == {"marines": "m2"} and abs(touches(d["end"], M2)) <= 1e-6
    assert main(["charge", f, "lings", "--targets", "marines", "--roll", "6"]) == 0
    out = capsys.readouterr().out
    assert "target model: marines/m1 (the engine's choice" in out
    assert main(["charge", f, "lings", "--targets", "marines/m9"]) == 2
    err = capsys.readouterr().err
    assert all(w in err for w in (f, "--targets", "marines", "m9")), err
    assert "Traceback" not in err
    hid = _doc(tmp_path, "hidden.toml", hidden=True)
    assert main(["charge", hid, "lings", "--targets", "marines/m2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["possible"] is True


def test_check_holds_the_leader_to_the_named_target_model(tmp_path, capsys):
    """A 6 reaches contact with marine 2: a leader that ends touching marine 1 is legal when the
    target model is marine 1 (or the engine's choice) and not when it is marine 2."""
    bf = table()
    at_m1 = charge(bf, "lings", ["marines"], roll=6).end
    before = _doc(tmp_path, "before.toml")
    after = _doc(tmp_path, "after.toml", lings=at_m1)
    b, a = (parse_document(tomllib.loads(open(p, encoding="utf-8").read()), p)
            for p in (before, after))
    ok = check(b, a, unit="lings", action="charge", roll=6, targets=["marines/m1"])
    assert ok["legal"], ok["reason"]
    bad = check(b, a, unit="lings", action="charge", roll=6, targets=["marines/m2"])
    assert not bad["legal"] and "base contact" in bad["reason"]
    assert main(["check", before, after, "--action", "charge", "--roll", "6",
                 "--targets", "marines/m2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["legal"] is False
    assert main(["check", before, after, "--action", "charge", "--targets", "marines/m7"]) == 2
    assert "m7" in capsys.readouterr().err


def test_service_passes_unit_model_targets_through(tmp_path, capsys):
    f = _doc(tmp_path)
    doc = tomllib.loads(open(f, encoding="utf-8").read())
    assert main(["charge", f, "lings", "--targets", "marines/m2", "--roll", "6", "--json"]) == 0
    want = json.loads(capsys.readouterr().out)
    with running_server("--workers", "1") as url:
        r = httpx.post(f"{url}/charge", json={"scenario": doc, "unit": "lings",
                                              "targets": "marines/m2", "roll": 6}, timeout=120)
        assert r.status_code == 200, r.text
        got = r.json()
        got.pop("text")
        assert got == want and got["target_models"] == {"marines": "m2"}
        bad = httpx.post(f"{url}/charge", json={"scenario": doc, "unit": "lings",
                                                "targets": "marines/m9"}, timeout=120)
        assert bad.status_code == 422, bad.text
        err = bad.json()["error"]
        assert "targets" in err["field"] and "m9" in err["message"]


def test_the_picture_charges_the_named_target_model(tmp_path):
    """`tmg render --charge lings --targets marines/m2`: the overlay keeps the target model, so
    the leader's drawn end is the one in base contact with it."""
    from tmg.cli import build_parser
    from viewer import options, overlays

    f = _doc(tmp_path)
    bf = scenario_load(f)
    args = build_parser().parse_args(["render", f, "-o", "a.png", "--charge", "lings",
                                      "--targets", "marines/m2", "--roll", "6"])
    (ch,) = [o for o in options.overlays_from_args(bf, args) if isinstance(o, overlays.Charge)]
    assert ch.targets == ("marines/m2",)
    end = charge(bf, ch.unit, list(ch.targets), roll=ch.roll).end
    assert abs(touches(end, M2)) <= 1e-6
