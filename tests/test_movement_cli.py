"""`tmg move` and `tmg coherency` per docs/interface.md (keys that must be present)."""

from __future__ import annotations

import json

import pytest
from shapely.geometry import Point, shape

from tmg.cli import main


def run_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_move_json_contract(capsys, examples):
    f = str(examples / "gap-run.toml")
    r = run_json(capsys, "move", f, "marines/1", "--to", "14,18")
    for key in ("legal", "path_length", "path", "reason", "rule", "destroys_grass", "allowance"):
        assert key in r
    assert r["legal"] is True and r["path_length"] == pytest.approx(4.0)
    assert r["path"][0] == [10.0, 18.0] and r["path"][-1] == [14.0, 18.0]
    assert r["allowance"] == 4  # three marines: the first Speed value


def test_move_through_the_gap_and_round_it(capsys, examples):
    f = str(examples / "gap-run.toml")
    marines = run_json(capsys, "move", f, "marines/1", "--to", "24,18", "--allowance", "30")
    queen = run_json(capsys, "move", f, "queen/1", "--to", "24,18", "--allowance", "30")
    assert marines["legal"] and marines["path_length"] == pytest.approx(14.0)
    assert queen["legal"] and queen["path_length"] > 20  # Size 3: not through the 1.2" gap


def test_move_reports_the_first_failing_reason(capsys, examples):
    f = str(examples / "gap-run.toml")
    far = run_json(capsys, "move", f, "marines/1", "--to", "24,18")
    assert far["legal"] is False and "allowance" in far["reason"]
    zero = run_json(capsys, "move", f, "marines/1", "--to", "10,18")
    assert zero["legal"] is False and "0\"" in zero["reason"]
    wall = run_json(capsys, "move", f, "marines/1", "--to", "17,10", "--allowance", "30")
    assert wall["legal"] is False and "wall-south" in wall["reason"]


def test_move_reach_polygon(capsys, examples):
    f = str(examples / "move-ramp.toml")
    r = run_json(capsys, "move", f, "marines/m1", "--to", "12,9", "--reach")
    reach = shape(r["reach"])
    assert reach.covers(Point(12, 9)) and not reach.covers(Point(20, 12))
    assert r["reach_area"] == pytest.approx(reach.area)


def test_move_grass_and_ramp(capsys, examples):
    f = str(examples / "move-ramp.toml")
    r = run_json(capsys, "move", f, "marines/m1", "--to", "5,18", "--allowance", "30")
    assert r["legal"] and r["destroys_grass"] == ["scrub"]
    up = run_json(capsys, "move", f, "marines/m1", "--to", "20,12", "--allowance", "30")
    assert up["legal"] and "ramp" in up["levels"] and "plateau" in up["levels"]


def test_move_variants(capsys, examples):
    f = str(examples / "move-ramp.toml")
    t = run_json(capsys, "move", f, "zerglings/1", "--towards", "marines")
    assert t["legal"] and t["path_length"] == pytest.approx(4.0, abs=0.011)
    p = run_json(capsys, "move", f, "zerglings/1", "--to", "31,6", "--place", "3")
    assert p["legal"]
    d = run_json(capsys, "move", f, "zerglings/1", "--to", "31,2", "--deploy", "south")
    assert d["legal"] and d["path"][0][1] < 0  # starts off the table, touching the edge


def test_move_bad_input_exits_2(capsys, examples):
    f = str(examples / "gap-run.toml")
    assert main(["move", f, "marines/9", "--to", "1,1"]) == 2
    assert "marines/9" in capsys.readouterr().err
    assert main(["move", f, "marines/1", "--to", "nowhere"]) == 2
    assert main(["move", f, "marines/1"]) == 2


def test_coherency_json_contract(capsys, examples):
    f = str(examples / "move-coherency.toml")
    r = run_json(capsys, "coherency", f, "marines")
    assert r["in_coherency"] is False
    assert r["failures"] == [{"model": "m3", "reason": r["failures"][0]["reason"]}]
    assert "terrain/wall" in r["failures"][0]["reason"]
    assert any(not lk["ok"] for lk in r["links"])
    z = run_json(capsys, "coherency", f, "zealots")
    assert z["in_coherency"] is True and z["failures"] == []
    assert z["engaged_with"] == ["zerglings/1"]
    assert main(["coherency", f, "marines/m1"]) == 2
