"""`tmg charge` and `tmg engaged` per docs/interface.md: keys, exit status, errors."""

import json

import pytest

from tmg.cli import main


def run_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_charge_json_keys_worked_example(capsys, examples):
    r = run_json(capsys, "charge", str(examples / "roach-charge.toml"), "roaches",
                 "--targets", "marauder", "--modifier", "-2")
    for key in ("possible", "min_distance", "min_roll", "probability", "end", "path", "reason",
                "rule"):
        assert key in r
    assert r["possible"] is True and r["min_roll"] == 5
    assert r["min_distance"] == pytest.approx(7.0, abs=1e-6)
    assert r["probability"] == pytest.approx(2 / 6, abs=1e-6)
    assert r["path"][0] == [10.0, 18.0] and r["path"][-1] == r["end"]


def test_charge_impossible_has_a_reason(capsys, examples):
    r = run_json(capsys, "charge", str(examples / "charge-undeclared.toml"), "zerglings",
                 "--targets", "medic")
    assert r["possible"] is False and r["min_roll"] is None and r["probability"] == 0
    assert r["end"] is None and r["path"] is None and "undeclared" in r["reason"]


def test_charge_text_output(capsys, examples):
    assert main(["charge", str(examples / "charge-multi.toml"), "zerglings",
                 "--targets", "marauder,marines"]) == 0
    out = capsys.readouterr().out
    assert "succeeds on" in out and "path:" in out
    assert "priority A = base contact" in out  # the priorities are spelled out
    assert out.count("succeeds on") == 1  # the roll is stated once
    assert out.count("(") < 60  # a summarised path, not a list of polygon points


def test_charge_text_states_the_roll_the_distance_needs(capsys, examples):
    assert main(["charge", str(examples / "roach-charge.toml"), "roaches", "--targets",
                 "marauder", "--modifier", "-2"]) == 0
    out = capsys.readouterr().out
    assert "succeeds on 5+ (2 in 6" in out and 'is 7"' in out
    assert out.count("5+") == 1 and "Speed 4 + D6 − 2\"" in out


def test_charge_bad_target_exits_2(capsys, examples):
    assert main(["charge", str(examples / "roach-charge.toml"), "roaches",
                 "--targets", "nobody"]) == 2
    err = capsys.readouterr().err
    assert "nobody" in err and "roach-charge.toml" in err


def test_engaged_json(capsys, examples):
    f = str(examples / "engage-wall.toml")
    r = run_json(capsys, "engaged", f, "marines/1", "zerglings/1")
    assert r["engaged"] is False and r["rule"] == "7.2.1 terrain" and r["blocking"] == ["wall"]
    r = run_json(capsys, "engaged", f, "marines/2", "zerglings/2")
    assert r["engaged"] is True and len(r["witness"]) == 2
    r = run_json(capsys, "engaged", f, "marines", "zerglings")
    assert r["engaged"] is True and r["pairs"] == [["marines/2", "zerglings/2"]]
    assert r["ranks"]["fighting"] == ["2"]
    r = run_json(capsys, "engaged", f, "ridge-marines", "zerglings")
    assert r["engaged"] is False and r["rule"] == "7.2.1 elevation"
    r = run_json(capsys, "engaged", f, "marines/1", "zerglings")
    assert r["engaged"] is False


def test_engaged_rejects_markers(capsys, examples):
    assert main(["engaged", str(examples / "roach-charge.toml"), "roaches", "10,10"]) == 2
    assert "expected a model" in capsys.readouterr().err


def test_8_7_7_the_roll_decides_the_end(capsys, examples):
    # the worked example: 7" needed under Concussive Shells (−2"); base contact is 8" away.
    # A 5 reaches 7" exactly (ends 1" from the marauder), a 6 reaches 8" exactly: step 4
    # puts the leading model in base contact; a 4 fails and the unit does not move (step 3)
    f = str(examples / "roach-charge.toml")

    def ask(roll):
        assert main(["charge", f, "roaches", "--targets", "marauder", "--modifier", "-2",
                     "--roll", str(roll), "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    five, six, four = ask(5), ask(6), ask(4)
    assert five["roll_succeeds"] and five["roll_distance"] == 7
    assert five["end"] == [17.0, 18.0] and five["end_check"]["ok"]
    assert six["roll_succeeds"] and six["end_kind"] == "base contact"
    assert six["end_path_length"] == pytest.approx(8.0, abs=1e-6)
    assert six["end"] == pytest.approx([18.0, 18.0], abs=1e-6)
    assert not four["roll_succeeds"] and "FAILS" in four["reason"] and "placement" not in four
    assert four["min_roll"] == five["min_roll"] == six["min_roll"] == 5
    assert main(["charge", f, "roaches", "--targets", "marauder", "--roll", "7"]) == 2
    assert "--roll" in capsys.readouterr().err
