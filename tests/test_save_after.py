"""`--save FILE.toml` on `tmg charge`, `tmg move` and `tmg disengage`: the table as the action
leaves it, so that sight and engagement can be asked of it (keyword GRASS: grass the move
tramples "is removed from the game at once" — it no longer blocks sight or engagement; §8.5.4: a
failed disengage removes the leading model)."""

from __future__ import annotations

import json

import pytest

import scenario
from tmg.cli import main

HEDGE = {"id": "hedge", "size": 2, "kind": "grass", "label": "Shrubs",
         "polygon": [[18.9, 10], [19.1, 10], [19.1, 26], [18.9, 26]]}


def _scene(tmp_path, units, terrain=(HEDGE,)):
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"format": "tmg-scenario/1", "table": {"width": 54, "depth": 36},
                             "terrain": list(terrain), "unit": units}), encoding="utf-8")
    return f


def _json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_grass_keyword_sight_after_a_charge_through_the_hedge(tmp_path, capsys):
    # the zerglings charge the marines through the hedge; marines on one side of the hedge could not
    # see a marine on the other before the charge, and can on the table the charge leaves
    f = _scene(tmp_path, [
        {"id": "lings", "type": "zergling", "owner": "red", "models": [[10, 18]]},
        {"id": "gunners", "type": "marine", "owner": "red", "models": [[15, 24]]},
        {"id": "marines", "type": "marine", "owner": "blue", "models": [[20, 18]]},
        {"id": "observer", "type": "marine", "owner": "blue", "models": [[23, 24]]}])
    before = _json(capsys, "los", str(f), "gunners/1", "observer/1")
    assert before["visible"] is False
    out = tmp_path / "after.toml"
    r = _json(capsys, "charge", str(f), "lings", "--targets", "marines", "--save", str(out))
    assert r["possible"] and r["destroys_grass"] == ["hedge"] and r["saved"] == str(out)
    after = scenario.load(out)
    assert [p.id for p in after.terrain] == []
    lead = after.unit("lings").models[0]
    assert lead.at == pytest.approx(tuple(r["end"]), abs=1e-6)  # the JSON rounds to 1e-6
    assert _json(capsys, "los", str(out), "gunners/1", "observer/1")["visible"] is True
    assert _json(capsys, "engaged", str(out), "lings/1", "marines/1")["engaged"] is True
    # the other units are exactly where they were
    for uid in ("gunners", "marines", "observer"):
        assert after.unit(uid) == scenario.load(f).unit(uid)


def test_save_writes_nothing_when_the_action_is_not_legal(tmp_path, capsys):
    f = _scene(tmp_path, [
        {"id": "lings", "type": "zergling", "owner": "red", "models": [[10, 18]]},
        {"id": "marines", "type": "marine", "owner": "blue", "models": [[40, 18]]}])
    out = tmp_path / "after.toml"
    r = _json(capsys, "charge", str(f), "lings", "--targets", "marines", "--save", str(out))
    assert not r["possible"] and r["saved"] is None and "cannot" in r["save_refused"]
    m = _json(capsys, "move", str(f), "lings/1", "--to", "50,18", "--save", str(out))
    assert not m["legal"] and m["saved"] is None
    assert not out.exists()
    assert main(["move", str(f), "lings/1", "--to", "50,18", "--save", str(out)]) == 0
    assert "not saved: the move is not legal" in capsys.readouterr().out


def test_save_after_a_move_through_grass_and_a_failed_disengage(tmp_path, capsys):
    f = _scene(tmp_path, [
        {"id": "lings", "type": "zergling", "owner": "red", "models": [[10, 18], [10, 19.5]]}])
    out = tmp_path / "moved.toml"
    m = _json(capsys, "move", str(f), "lings/1", "--to", "22,18", "--allowance", "12",
              "--save", str(out))
    assert m["legal"] and m["destroys_grass"] == ["hedge"]
    after = scenario.load(out)
    assert after.terrain == () and after.unit("lings").model("1").at == (22.0, 18.0)
    # the others are placed with it (§8.5.3 step 2), keeping the unit's shape
    assert after.unit("lings").model("2").at == (22.0, 19.5)
    # a failed disengage: the unit stays, its leading model is destroyed
    pocket = "examples/disengage-pocket.toml"
    out2 = tmp_path / "dis.toml"
    d = _json(capsys, "disengage", pocket, "roach", "--save", str(out2))
    assert not d["possible"] and d["destroyed"] == ["roach/1"] and d["saved"] == str(out2)
    with pytest.raises(Exception, match="roach"):
        scenario.load(out2).unit("roach")  # its only model is gone, and the unit with it


def test_save_keeps_a_layout_by_name(tmp_path, capsys):
    src = "examples/battle-standard-1.toml"
    out = tmp_path / "after.toml"
    m = _json(capsys, "move", src, "marines-a/1", "--to", "13.5,21.5", "--save", str(out))
    assert m["legal"]
    text = out.read_text(encoding="utf-8")
    assert 'layout = "standard-1"' in text and 'deployment = "gauntlet"' in text
    a, b = scenario.load(src), scenario.load(out)
    assert a.terrain == b.terrain
    assert b.unit("marines-a").model("1").at == (13.5, 21.5)


def test_save_needs_a_toml_path(tmp_path, capsys):
    f = _scene(tmp_path, [
        {"id": "lings", "type": "zergling", "owner": "red", "models": [[10, 18]]}])
    assert main(["move", str(f), "lings/1", "--to", "12,18", "--save",
                 str(tmp_path / "a.json")]) == 2
    err = capsys.readouterr().err
    assert "--save" in err and ".toml" in err
