"""`tmg distance` and `tmg info` per docs/interface.md."""

import json
import math

import pytest

from tmg.cli import main


def run_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_distance_json_keys(capsys, examples):
    f = str(examples / "ridge-dispute.toml")
    r = run_json(capsys, "distance", f, "marines/m1", "zerglings/1")
    assert r["distance"] == pytest.approx(math.hypot(16, 1) - 32 / 25.4)
    r = run_json(capsys, "distance", f, "marines/m1", "zerglings/1", "--within", "15")
    assert r["within"] is True and r["wholly_within"] is False
    r = run_json(capsys, "distance", f, "marines", "marker/5", "--within", "30")
    assert r["within"] is True and r["wholly_within"] is True


def test_info_json_reports_elevation_and_effective_size(capsys, examples):
    r = run_json(capsys, "info", str(examples / "ridge-dispute.toml"))
    marines = next(u for u in r["units"] if u["id"] == "marines")
    m1 = marines["models"][0]
    assert m1["elevation"] == "high" and m1["stands_on"] == "ridge"
    assert m1["effective_size"] == 6  # Size 2 on Size 4 (§7.1.2)
    crates = next(p for p in r["terrain"] if p["id"] == "crates")
    assert crates["effective_size"] == 5


def test_unknown_reference_exits_2(capsys, examples):
    assert main(["distance", str(examples / "ridge-dispute.toml"), "marines/m9", "marker/5"]) == 2
    err = capsys.readouterr().err
    assert "marines/m9" in err and "no model" in err
