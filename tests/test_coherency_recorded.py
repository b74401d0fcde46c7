"""Coherency persists through casualties (rulebook §4.4: "어떤 출처로 생긴 사상자도 대형 유지 확인을
일으키지 않으며"; docs/rules.md#coherency-persists): a unit recorded `coherent = true` — in coherency
at the end of its last moving action — stays in coherency whatever its casualties left, so it
still contests markers; unrecorded, the same spread unit does not. The record is read, written
back by `--save` after a moving action, and checked against bad input."""

from __future__ import annotations

import json
import tomllib

import pytest

import scenario
from geom.markers._control import marker_control
from geom.movement._coherency import RULE_PERSISTS, standing
from tmg.cli import main

# Three marines: m1 and m2 by the marker, m3 left 6" away (its neighbour was a casualty): out of
# coherency as they stand. A blue marine on the other side of the marker contests it too.
SPREAD = [(25.0, 18.0), (25.0, 19.4), (31.0, 24.0)]


def doc_text(coherent: str | None, red=SPREAD) -> str:
    record = f"coherent = {coherent}\n" if coherent is not None else ""
    models = ", ".join(f"{{ id = \"m{i + 1}\", at = [{x}, {y}] }}" for i, (x, y) in enumerate(red))
    return f'''format = "tmg-scenario/1"
[table]
width = 54
depth = 36
[[unit]]
id = "marines"
type = "marine"
owner = "red"
supply = 2
{record}models = [{models}]
[[unit]]
id = "zerglings"
type = "zergling"
owner = "blue"
supply = 1
models = [{{ id = "z1", at = [29.5, 18] }}]
[[marker]]
id = 1
at = [27, 18]
'''


def load(tmp_path, coherent: str | None, name: str = "t.toml"):
    f = tmp_path / name
    f.write_text(doc_text(coherent), encoding="utf-8")
    return str(f), scenario.load(f)


def test_a_spread_unit_recorded_coherent_contests_the_marker(tmp_path):
    _, plain = load(tmp_path, None)
    _, kept = load(tmp_path, "true", "kept.toml")
    before = marker_control(plain, plain.marker(1))
    after = marker_control(kept, kept.marker(1))
    # unrecorded: out of coherency (m3), so it does not contest; blue alone controls
    assert not before.units["marines"].ok
    assert "out of coherency" in before.units["marines"].reason
    assert before.contesting == {"red": [], "blue": ["zerglings"]}
    assert before.controller == "blue"
    # recorded coherent: it counts, and its supply 2 beats blue's 1
    assert after.units["marines"].ok
    assert "recorded" in after.units["marines"].reason and "§4.4" in after.units["marines"].reason
    assert after.contesting == {"red": ["marines"], "blue": ["zerglings"]}
    assert after.controller == "red"


def test_recorded_false_is_judged_where_it_stands(tmp_path):
    _, off = load(tmp_path, "false")
    v = standing(off, "marines")
    assert not v.ok and v.details["recorded"] is False
    assert not marker_control(off, off.marker(1)).units["marines"].ok


def test_tmg_coherency_honours_the_record_and_shows_the_positions(tmp_path, capsys):
    f, _ = load(tmp_path, "true")
    assert main(["coherency", f, "marines", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["in_coherency"] is True and r["failures"] == [] and r["rule"] == RULE_PERSISTS
    assert r["recorded"] is True and r["positions_in_coherency"] is False
    assert [p["model"] for p in r["position_failures"]] == ["m3"]
    g, _ = load(tmp_path, None, "plain.toml")
    assert main(["coherency", g, "marines", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["in_coherency"] is False and r["recorded"] is None
    assert [p["model"] for p in r["failures"]] == ["m3"]
    assert main(["coherency", f, "marines"]) == 0
    out = capsys.readouterr().out
    assert "recorded coherent = true" in out and "as it stands" in out


def test_markers_cli_says_why_a_spread_unit_counts(tmp_path, capsys):
    f, _ = load(tmp_path, "true")
    assert main(["markers", f, "--json"]) == 0
    m = json.loads(capsys.readouterr().out)["markers"]["1"]
    assert m["contesting"]["red"] == ["marines"] and m["controller"] == "red"
    assert "casualties never break coherency" in m["units"]["marines"]["reason"]


@pytest.mark.parametrize("bad", ['"yes"', "1", "[true]"])
def test_a_bad_record_is_refused_naming_the_field(tmp_path, capsys, bad):
    f = tmp_path / "bad.toml"
    f.write_text(doc_text(bad), encoding="utf-8")
    assert main(["coherency", str(f), "marines"]) == 2
    err = capsys.readouterr().err
    assert "bad.toml" in err and "marines" in err and "coherent" in err
    assert "Traceback" not in err


def test_save_round_trip_keeps_the_record(tmp_path):
    from scenario.save import save

    _, bf = load(tmp_path, "true")
    out = tmp_path / "again.toml"
    save(str(out), bf)
    assert scenario.load(out).unit("marines").coherent is True
    _, plain = load(tmp_path, None, "plain.toml")
    save(str(out), plain)
    assert "coherent" not in out.read_text(encoding="utf-8")
    assert scenario.load(out).unit("marines").coherent is None


def saved_record(path) -> dict[str, bool | None]:
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    return {u["id"]: u.get("coherent") for u in doc["unit"]}


def test_a_move_with_save_records_the_coherency_it_ends_in(tmp_path, capsys):
    """A moving action ends with a coherency check (§4.4): the spread unit recorded `false`
    moves, its others are placed round the leader, and `--save` records it in coherency; the
    unit that did not move keeps its record (none)."""
    f, _ = load(tmp_path, "false")
    after = tmp_path / "after.toml"
    assert main(["move", f, "marines/m1", "--to", "23,16", "--save", str(after), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["legal"] and r["in_coherency"] and r["saved_coherent"] is True
    assert saved_record(after) == {"marines": True, "zerglings": None}
    assert standing(scenario.load(after), "marines").details["positions_in_coherency"]


def test_a_charge_with_save_records_coherency(tmp_path, capsys):
    from pathlib import Path

    ex = Path(__file__).resolve().parent.parent / "examples" / "charge-multi.toml"
    after = tmp_path / "charged.toml"
    assert main(["charge", str(ex), "zerglings", "--targets", "marauder,marines", "--roll", "6",
                 "--save", str(after), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["saved"] == str(after) and r["saved_coherent"] is True
    assert r["placement"]["coherency"]["ok"] is True
    assert saved_record(after)["zerglings"] is True


def test_report_shares_the_recorded_coherency_with_its_markers(tmp_path, capsys):
    f, _ = load(tmp_path, "true")
    assert main(["report", f, "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    (row,) = [c for c in r["coherency"] if c["unit"] == "marines"]
    assert row["in_coherency"] is True and row["failures"] == []
    assert r["markers"]["1"]["contesting"]["red"] == ["marines"]
