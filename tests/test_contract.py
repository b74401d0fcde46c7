"""The user-facing contract of docs/interface.md, checked as a user's script would:
every command of the table, run through `tmg.cli.main([..., "--json"])` on the examples, gives
every promised JSON key with the promised type and sensible values; every command that takes a
FILE also takes an official layout or card name; exit status is 0 whatever the verdict; and bad
arguments or files end with exit status 2 and ONE line on stderr naming the file / object /
field, never a traceback (those run as real subprocesses).
"""

from __future__ import annotations

import json
import math
import struct
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import scenario
from geom.errors import TmgError
from maps import deployment_ids, deployment_info, layout_ids
from tmg.cli import main

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"

# docs/interface.md "References on the command line": the official names a FILE may be.
LAYOUTS = [f"standard-{i}" for i in range(1, 7)] + [f"skirmish-{i}" for i in range(1, 4)]
CARDS = ["gauntlet", "typhoon", "acropolis", "breach", "proving-grounds", "abandoned-camp",
         "agria-valley", "dirt-side", "frontier", "char-plains"]


def ex(name: str) -> str:
    return str(EX / name)


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    rc = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, (argv, err)
    return json.loads(out)


def run_text(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    assert rc == 0, (argv, err)
    assert out.strip(), argv
    return out


# --------------------------------------------------------------------------- type checks

def is_num(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def is_point(p: Any) -> bool:
    return isinstance(p, list) and len(p) == 2 and all(is_num(v) for v in p)


def is_segment_or_null(w: Any) -> bool:
    return w is None or (isinstance(w, list) and len(w) == 2 and all(is_point(p) for p in w))


def is_str_list(x: Any) -> bool:
    return isinstance(x, list) and all(isinstance(v, str) and v for v in x)


def check_sentence(r: dict[str, Any], key: str = "reason") -> None:
    assert isinstance(r[key], str) and len(r[key].split()) >= 3, r[key]


def piece_ids(file: str) -> set[str]:
    return {p.id for p in scenario.load(file).terrain}


# --------------------------------------------------------------------------- distance

@pytest.mark.parametrize("a,b", [("marines/m1", "zerglings/1"), ("marines", "hydras"),
                                 ("zerglings", "marker/5"), ("terrain/wall", "hydras/h2"),
                                 ("3,4", "marines")])
def test_distance(capsys, a, b):
    f = ex("ridge-dispute.toml")
    r = run_json(capsys, "distance", f, a, b)
    assert is_num(r["distance"]) and r["distance"] >= 0
    assert "within" not in r and "wholly_within" not in r
    for d in (0.0, r["distance"] + 0.01, 100.0):
        w = run_json(capsys, "distance", f, a, b, "--within", str(d))
        assert w["distance"] == r["distance"]
        assert isinstance(w["within"], bool) and isinstance(w["wholly_within"], bool)
        assert w["within"] == (r["distance"] <= d + 1e-6)
        assert not w["wholly_within"] or w["within"]  # WHOLLY WITHIN implies WITHIN
    assert run_json(capsys, "distance", f, a, b, "--within", "100")["wholly_within"] is True


# --------------------------------------------------------------------------- los

LOS_CASES = [
    ("los-high-ground.toml", "marines", "zerglings"),
    ("los-high-ground.toml", "marines/m1", "zerglings/z1"),  # dead zone: not visible
    ("los-high-ground.toml", "sentinel", "drone"),
    ("los-wall-gap.toml", "marines/m1", "zerglings/z1"),
    ("los-wall-gap.toml", "marines/m2", "zerglings/z2"),
    ("los-wall-gap.toml", "hydras/h1", "roaches/r1"),
    ("markers-contest.toml", "marines-south", "marker/5"),
    ("markers-contest.toml", "zerglings/1", "marker/5"),
]


@pytest.mark.parametrize("file,a,b", LOS_CASES)
def test_los(capsys, file, a, b):
    f = ex(file)
    r = run_json(capsys, "los", f, a, b)
    assert isinstance(r["visible"], bool)
    assert isinstance(r["rule"], str) and r["rule"][0].isdigit(), r["rule"]
    check_sentence(r)
    assert is_segment_or_null(r["witness"])
    assert r["visible"] == (r["witness"] is not None)
    # pieces that block for this pair (a visible pair may still have some: sight through a gap)
    assert is_str_list(r["blocking"]) and set(r["blocking"]) <= piece_ids(f)
    if "/" not in a or "/" not in b:  # a unit on either side
        if "/" not in a:
            assert "visible_models" in r and "attackers" in r
        if "visible_models" in r:
            assert is_str_list(r["visible_models"]) and is_str_list(r["attackers"])
            assert bool(r["visible_models"]) == r["visible"] == bool(r["attackers"])
            assert all(m.startswith(b.split("/")[0]) for m in r["visible_models"])
            assert all(m.startswith(a.split("/")[0] + "/") for m in r["attackers"])


def test_los_range_narrows_attackers(capsys):
    f = ex("los-high-ground.toml")
    full = run_json(capsys, "los", f, "marines", "zerglings")
    assert full["attackers"]
    none = run_json(capsys, "los", f, "marines", "zerglings", "--range", "0.01")
    assert none["attackers"] == [] and is_str_list(none["visible_models"])
    wide = run_json(capsys, "los", f, "marines", "zerglings", "--range", "100")
    assert wide["attackers"] == full["attackers"]


# --------------------------------------------------------------------------- engaged

@pytest.mark.parametrize("a,b,engaged", [("marines/1", "zerglings/1", False),
                                         ("marines/2", "zerglings/2", True),
                                         ("ridge-marines", "zerglings", False),
                                         ("marines", "zerglings", True),
                                         ("marines/2", "zerglings", True)])
def test_engaged(capsys, a, b, engaged):
    r = run_json(capsys, "engaged", ex("engage-wall.toml"), a, b)
    assert r["engaged"] is engaged
    check_sentence(r)


# --------------------------------------------------------------------------- coherency

@pytest.mark.parametrize("file", sorted(p.name for p in EX.glob("*.toml")))
def test_coherency_every_unit_of_every_example(capsys, file):
    f = ex(file)
    for u in scenario.load(f).units:
        r = run_json(capsys, "coherency", f, u.id)
        assert isinstance(r["in_coherency"], bool)
        assert isinstance(r["failures"], list)
        ids = {m.id for m in u.models}
        for fl in r["failures"]:
            assert set(fl) >= {"model", "reason"} and fl["model"] in ids
            check_sentence(fl)
        assert r["in_coherency"] == (r["failures"] == [])


# --------------------------------------------------------------------------- move

@pytest.mark.parametrize("argv,legal", [
    (["marines/m1", "--to", "20,12"], False),                  # too far on the ramp
    (["marines/m1", "--to", "20,12", "--allowance", "30"], True),
    (["marines/m1", "--to", "12.5,7"], True),
])
def test_move(capsys, argv, legal):
    f = ex("move-ramp.toml")
    r = run_json(capsys, "move", f, *argv)
    assert r["legal"] is legal
    check_sentence(r)
    assert isinstance(r["path"], list) and all(is_point(p) for p in r["path"])
    assert r["path_length"] is None or (is_num(r["path_length"]) and r["path_length"] >= 0)
    if r["path"]:
        start = scenario.load(f).unit("marines").model("m1").at
        assert r["path"][0] == pytest.approx(list(start))
        assert r["path"][-1] == pytest.approx([float(v) for v in argv[2].split(",")])
        polyline = sum(math.dist(p, q) for p, q in zip(r["path"], r["path"][1:], strict=False))
        assert r["path_length"] == pytest.approx(polyline, abs=1e-3)
    if legal:
        assert r["path"] and r["path_length"] <= r["allowance"] + 1e-6


# --------------------------------------------------------------------------- charge

@pytest.mark.parametrize("file,unit,targets,extra", [
    ("charge-around-wall.toml", "zerglings", "marine", []),
    ("charge-multi.toml", "zerglings", "marauder,marines", []),
    ("charge-undeclared.toml", "zerglings", "medic", []),
    ("roach-charge.toml", "roaches", "marauder", ["--modifier", "-2"]),
    ("roach-charge.toml", "roaches", "marauder", []),
])
def test_charge(capsys, file, unit, targets, extra):
    r = run_json(capsys, "charge", ex(file), unit, "--targets", targets, *extra)
    assert isinstance(r["possible"], bool)
    assert r["min_roll"] is None or (isinstance(r["min_roll"], int) and 1 <= r["min_roll"] <= 6)
    assert is_num(r["probability"]) and 0 <= r["probability"] <= 1
    assert r["min_distance"] is None or (is_num(r["min_distance"]) and r["min_distance"] >= 0)
    assert r["end"] is None or is_point(r["end"])
    assert r["path"] is None or (isinstance(r["path"], list) and all(is_point(p)
                                                                     for p in r["path"]))
    # possible <=> some D6 roll succeeds; the probability is that of rolling min_roll or more
    assert r["possible"] == (r["min_roll"] is not None)
    want = 0.0 if r["min_roll"] is None else (7 - r["min_roll"]) / 6
    assert r["probability"] == pytest.approx(want, abs=1e-6)
    if r["possible"]:
        assert r["end"] is not None and r["path"] and r["path"][-1] == pytest.approx(r["end"])
    check_sentence(r)


# --------------------------------------------------------------------------- template

@pytest.mark.parametrize("argv", [
    ["template-shock-cannon.toml", "--blast", "--attacker", "tank/1", "--target", "lings/1"],
    ["template-flamer-ridge.toml", "--flamer", "--attacker", "hellbat/1", "--target", "lings/1",
     "--length", "10", "--narrow", "1", "--wide", "3"],
    ["template-shock-cannon.toml", "--blast", "--attacker", "tank/1", "--at", "30,18"],
])
def test_template(capsys, argv):
    f = ex(argv[0])
    r = run_json(capsys, "template", f, *argv[1:])
    bf = scenario.load(f)
    main_ = r["main"]
    assert set(main_) >= {"unit", "models"} and is_str_list(main_["models"])
    if main_["unit"] is not None:
        u = bf.unit(main_["unit"])
        assert set(main_["models"]) <= {m.id for m in u.models}
    assert isinstance(r["spillover"], list)
    seen = {main_["unit"]}
    for b in r["spillover"]:
        assert set(b) >= {"unit", "models"} and b["models"] and is_str_list(b["models"])
        assert b["unit"] not in seen  # one entry per unit, never the main target
        seen.add(b["unit"])
        assert set(b["models"]) <= {m.id for m in bf.unit(b["unit"]).models}


# --------------------------------------------------------------------------- layouts

def test_layouts(capsys):
    r = run_json(capsys, "layouts")
    ids = [x["id"] for x in r["layouts"]]
    assert set(LAYOUTS) <= set(ids) and len(ids) == len(set(ids))
    for lay in r["layouts"]:
        assert isinstance(lay["name"], str) and lay["name"]
        t = lay["table"]
        assert is_num(t["width"]) and is_num(t["depth"]) and t["width"] >= t["depth"] > 0
    cards = {c["id"]: c for c in r["deployments"]}
    assert set(CARDS) <= set(cards)
    for c in r["deployments"]:
        assert isinstance(c["name"], str) and c["name"]
        assert c["name_ko"] is None or isinstance(c["name_ko"], str)
        assert isinstance(c["available"], bool)
    assert all(cards[c]["available"] for c in CARDS)
    assert ids == layout_ids() and list(cards) == deployment_ids()


# --------------------------------------------------------------------------- check-layout

@pytest.mark.parametrize("file", ["skirmish-2", "standard-1", "gauntlet",
                                  ex("markers-tournament.toml"), ex("ridge-dispute.toml")])
def test_check_layout(capsys, file):
    r = run_json(capsys, "check-layout", file)
    assert isinstance(r["findings"], list) and r["findings"]
    for f in r["findings"]:
        assert isinstance(f["rule"], str) and f["rule"]
        assert isinstance(f["ok"], bool)
        assert isinstance(f["detail"], str) and f["detail"]


# --------------------------------------------------------------------------- render

def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    w, h = struct.unpack(">II", head[16:24])
    return w, h


def test_render(capsys, tmp_path):
    out = tmp_path / "table.png"
    try:
        rc = main(["render", "skirmish-2", "-o", str(out), "--json"])
    except TmgError as exc:  # pragma: no cover - only without any OpenGL
        pytest.skip(f"no OpenGL context: {exc}")
    o, err = capsys.readouterr()
    if rc == 2 and "OpenGL" in err:  # pragma: no cover
        pytest.skip(err)
    assert rc == 0, err
    r = json.loads(o)
    assert r["output"] == str(out) and r["width"] == 1600 and isinstance(r["height"], int)
    assert png_size(out) == (r["width"], r["height"])
    assert [p.name for p in tmp_path.iterdir()] == ["table.png"]  # no temporary left behind
    small = tmp_path / "small.png"
    r = run_json(capsys, "render", ex("ridge-dispute.toml"), "-o", str(small), "--width", "400")
    assert r["width"] == 400 and png_size(small) == (400, r["height"])


# --------------------------------------------------------------------------- markers

@pytest.mark.parametrize("argv", [[ex("markers-contest.toml")],
                                  [ex("markers-contest.toml"), "--previous", "2=red,4=blue"],
                                  [ex("markers-tournament.toml"), "--fix-terrain"],
                                  [ex("ridge-dispute.toml")],
                                  ["proving-grounds"]])
def test_markers(capsys, argv):
    r = run_json(capsys, "markers", *argv)
    bf = scenario.load(argv[0])
    per_id = r["markers"]
    assert set(per_id) == {str(m.id) for m in bf.markers}
    units = {u.id: u.owner for u in bf.units}
    for m in per_id.values():
        assert set(m["contesting"]) == {"red", "blue"} and set(m["supply"]) == {"red", "blue"}
        for side in ("red", "blue"):
            assert is_str_list(m["contesting"][side]) or m["contesting"][side] == []
            assert all(units[u] == side for u in m["contesting"][side])
            s = m["supply"][side]
            assert s is None or (is_num(s) and s >= 0)
            if not m["contesting"][side]:
                assert s == 0
        check_sentence(m)
    if "--fix-terrain" in argv:
        assert isinstance(r["terrain_moved"], list) and r["terrain_moved"]


def test_markers_contest_example_outcomes(capsys):
    """The example's comments say who contests what; the JSON must agree."""
    r = run_json(capsys, "markers", ex("markers-contest.toml"), "--previous", "2=red,4=blue")
    m = r["markers"]
    assert m["1"]["contesting"] == {"red": [], "blue": ["hydralisk"]}
    assert m["2"]["supply"]["red"] == m["2"]["supply"]["blue"] and m["2"]["controller"] == "red"
    assert m["3"]["contesting"]["blue"] == ["zealot-on-platform"]
    assert m["4"]["contesting"] == {"red": [], "blue": []} and m["4"]["controller"] == "blue"
    assert "marines-south" not in m["5"]["contesting"]["red"]


# --------------------------------------------------------------------------- official names

def test_every_official_name_is_a_file(capsys):
    for name in LAYOUTS + CARDS:
        r = run_json(capsys, "info", name)
        assert r["table"]["width"] > 0 and isinstance(r["terrain"], list)
        if name in CARDS:
            assert r["deployment"]["id"] == name
            assert {m["id"] for m in r["markers"]} >= {1, 2, 5} or \
                {m["id"] for m in r["markers"]} == {m["id"] for m in
                                                    deployment_info(name)["markers"]}
        else:
            assert r["terrain"]


def test_every_file_command_takes_a_name(capsys, tmp_path):
    """Commands that need units still accept the name: the error is about the unit, not the
    file (an official layout has no units)."""
    assert run_json(capsys, "distance", "gauntlet", "marker/1", "marker/5")["distance"] > 0
    assert isinstance(run_json(capsys, "los", "gauntlet", "marker/1", "marker/5")["visible"],
                      bool)
    assert run_json(capsys, "markers", "proving-grounds")["markers"]
    assert run_json(capsys, "check-layout", "skirmish-2")["findings"]
    assert run_json(capsys, "report", "standard-1")["info"]["terrain"]
    for argv in (["engaged", "standard-1", "a", "b"], ["coherency", "skirmish-3", "a"],
                 ["move", "typhoon", "a/1", "--to", "1,1"],
                 ["charge", "breach", "a", "--targets", "b"],
                 ["template", "frontier", "--blast", "--attacker", "a/1", "--at", "3,3"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "no unit 'a'" in err and "neither a file" not in err, err


# --------------------------------------------------------------------------- text output

TEXT_RUNS = [
    ["distance", ex("ridge-dispute.toml"), "marines", "hydras", "--within", "12"],
    ["los", ex("los-high-ground.toml"), "marines", "zerglings"],
    ["engaged", ex("engage-wall.toml"), "marines", "zerglings"],
    ["coherency", ex("move-coherency.toml"), "marines"],
    ["move", ex("move-ramp.toml"), "marines/m1", "--to", "20,12"],
    ["charge", ex("charge-multi.toml"), "zerglings", "--targets", "marauder,marines"],
    ["template", ex("template-shock-cannon.toml"), "--blast", "--attacker", "tank/1",
     "--target", "lings/1"],
    ["layouts"],
    ["check-layout", "skirmish-2"],
    ["markers", ex("markers-contest.toml"), "--previous", "2=red,4=blue"],
    ["report", ex("ridge-dispute.toml")],
    ["report", ex("move-coherency.toml")],
    ["info", ex("ridge-dispute.toml")],
    ["units", "hydralisk"],
]


@pytest.mark.parametrize("argv", TEXT_RUNS, ids=lambda a: a[0])
def test_text_output_says_things_once(capsys, argv):
    out = run_text(capsys, *argv)
    for line in out.splitlines():
        words = line.split()
        # no "marker 5: marker 5:" or "marines: marines ..." stutter at the start of a line
        assert not (len(words) >= 4 and words[:2] == words[2:4]), line
        assert not (len(words) >= 2 and words[0].rstrip(":") == words[1]
                    and words[0].endswith(":")), line
        assert not line.split(":")[0].rstrip().endswith("]"), line  # no Python list as a label
        assert "None" not in words, line


def test_move_text_names_the_point(capsys):
    out = run_text(capsys, "move", ex("move-ramp.toml"), "marines/m1", "--to", "20,12")
    assert out.startswith("marines/m1 -> (20, 12): ")


def test_markers_text_has_each_reason_once(capsys):
    out = run_text(capsys, "markers", ex("markers-contest.toml"))
    assert "\n  marker 1: " not in out and "vikings: vikings" not in out
    assert "vikings does not contest marker 1: it is flying" in out
    out = run_text(capsys, "report", ex("ridge-dispute.toml"))
    assert "marker 5: marker 5" not in out and "marker 5: no unit contests it" in out


# --------------------------------------------------------------------------- bad input

def bad_files(d: Path) -> dict[str, Path]:
    def put(name: str, data: str | bytes) -> Path:
        p = d / name
        if isinstance(data, bytes):
            p.write_bytes(data)
        else:
            p.write_text(data, encoding="utf-8")
        return p

    good_unit = '[[unit]]\nid = "a"\nowner = "red"\nsize = 1\nbase_mm = 32\n'
    (d / "folder.toml").mkdir()
    return {
        "dir": d / "folder.toml",
        "binary": put("blob.toml", bytes(range(256)) * 4),
        "yaml": put("s.yaml", "table:\n  width: 54\n  depth: 36\n"),
        "top": put("top.toml", "bogus = 1\n[table]\nwidth = 54\ndepth = 36\n"),
        "type": put("type.toml", "[table]\nwidth = 54\ndepth = 36\n[[unit]]\nid = \"x\"\n"
                    "type = \"marinez\"\nowner = \"red\"\nmodels = [[5, 5]]\n"),
        "layout": put("layout.toml", "[table]\nlayout = \"standard-7\"\n"),
        "empty-model": put("empty.toml", "[table]\nwidth = 54\ndepth = 36\n" + good_unit
                           + "models = [{ id = \"\", at = [5, 5] }]\n"),
        "reserved": put("reserved.toml", "[table]\nwidth = 54\ndepth = 36\n"
                        + good_unit.replace('"a"', '"marker"') + "models = [[5, 5]]\n"),
        "huge": put("huge.json", json.dumps({"table": {"width": 1e300, "depth": 36}})),
        "marker-off": put("moff.toml", "[table]\nwidth = 54\ndepth = 36\n[[marker]]\nid = 1\n"
                          "at = [60, 10]\n"),
    }


RIDGE = ex("ridge-dispute.toml")
# (argv, words the one line must hold). {x} is a bad file from bad_files.
BAD = [
    (["info", "{dir}"], ["folder.toml", "cannot read"]),
    (["info", "{binary}"], ["blob.toml", "TOML"]),
    (["info", "{yaml}"], ["s.yaml", ".toml or .json"]),
    (["info", "{top}"], ["top.toml", "'bogus'", "unknown field"]),
    (["distance", "{type}", "x", "x"], ["type.toml", "unit 'x'", "'type'", "marinez"]),
    (["check-layout", "{layout}"], ["layout.toml", "'layout'", "standard-7"]),
    (["info", "{empty-model}"], ["empty.toml", "unit 'a'", "'id'"]),
    (["info", "{reserved}"], ["reserved.toml", "unit 'marker'", "'id'"]),
    (["report", "{huge}"], ["huge.json", "'width'", "out of range"]),
    (["markers", "{marker-off}"], ["moff.toml", "marker 1", "'at'"]),
    (["info", "standard-7"], ["standard-7", "neither a file"]),
    (["markers", "gauntlett"], ["gauntlett", "neither a file"]),
    (["info", ""], ["no scenario given"]),
    (["distance", RIDGE, "marines", "ghosts"], [RIDGE, "ghosts", "no unit"]),
    (["distance", RIDGE, "marines", "marker/9"], [RIDGE, "marker/9", "no marker 9"]),
    (["distance", RIDGE, "marines", "marker/x"], [RIDGE, "marker/x", "marker/N"]),
    (["los", RIDGE, "marines/", "zerglings"], [RIDGE, "marines/", "model id is empty"]),
    (["engaged", RIDGE, "/m1", "zerglings"], [RIDGE, "/m1", "unit id is empty"]),
    (["distance", RIDGE, "nan,1", "zerglings"], [RIDGE, "nan,1", "X,Y"]),
    (["distance", RIDGE, "marines", "zerglings", "--within", "-3"], ["--within", "-3"]),
    (["distance", RIDGE, "marines", "zerglings", "--within", "inf"], ["--within", "inf"]),
    (["move", RIDGE, "marines/m1", "--to", "garbage"], ["--to", "garbage"]),
    (["move", RIDGE, "marines/m1", "--to", "nan,2"], ["--to", "nan,2"]),
    (["move", RIDGE, "marines/m1", "--to", "3,3", "--allowance", "-1"], ["--allowance"]),
    (["move", RIDGE, "marines/m1"], ["--to"]),
    (["move", RIDGE, "marines", "--to", "3,3"], [RIDGE, "marines", "UNIT/MODEL"]),
    (["charge", RIDGE, "zerglings", "--targets", "marines", "--modifier", "abc"],
     ["--modifier", "abc"]),
    (["charge", RIDGE, "zerglings", "--targets", "marines", "--modifier", "nan"],
     ["--modifier", "nan"]),
    (["charge", RIDGE, "zerglings"], ["--targets"]),
    (["charge", RIDGE, "zerglings", "--targets", ","], [RIDGE, "--targets"]),
    (["charge", RIDGE, "zerglings", "--targets", "ghosts"], [RIDGE, "ghosts"]),
    (["coherency", RIDGE, "marker/5"], [RIDGE, "marker/5", "unit"]),
    (["template", ex("template-shock-cannon.toml"), "--blast", "--attacker", "tank/1",
      "--at", "nan,2"], ["--at", "nan,2"]),
    (["template", ex("template-shock-cannon.toml"), "--blast", "--attacker", "tank/1",
      "--target", "lings/9"], ["template-shock-cannon.toml", "lings/9", "no model"]),
    (["markers", ex("markers-contest.toml"), "--previous", "9=red"], ["--previous", "9=red"]),
    (["markers", ex("move-ramp.toml")], ["move-ramp.toml", "no mission markers"]),
    (["check-layout", "skirmish-2", "--deployment", "gauntlet"], ["--deployment", "36x36"]),
    (["render", "skirmish-2", "-o", "{dir}/../x.txt"], [".png"]),
    (["units", "ghost-of-nothing"], ["ghost-of-nothing"]),
    (["nosuchcommand"], ["nosuchcommand"]),
]


def _fill(items: list[str], files: dict[str, Path]) -> list[str]:
    return [a.format(**files) if "{" in a else a for a in items]


def _judge(argv: list[str], words: list[str], rc: int | None, out: str, err: str) -> str | None:
    lines = err.splitlines()
    if rc != 2 or len(lines) != 1 or "Traceback" in err or out.strip():
        return f"{argv}: exit {rc}, stderr {err!r}"
    if not all(w in lines[0] for w in words):
        return f"{argv}: {lines[0]!r} lacks one of {words}"
    return None


def test_bad_input_one_line_exit_2(tmp_path, capsys, monkeypatch):
    """Every case in-process (fast): exit 2, one line naming what is wrong, nothing on stdout."""
    files = bad_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    problems = []
    for case in BAD:
        argv, words = _fill(case[0], files), _fill(case[1], files)
        try:
            rc: int | None = main(argv)
        except SystemExit as exc:  # argparse: a usage error
            rc = exc.code if isinstance(exc.code, int) else None
        out, err = capsys.readouterr()
        problems.append(_judge(argv, words, rc, out, err))
    assert not [p for p in problems if p], "\n".join(p for p in problems if p)


# The same through the real entry point: no traceback ever reaches the user's terminal.
SUBPROCESS = ["{dir}", "{binary}", "{yaml}", "{huge}", "marker/9", "marines/", "--within",
              "--modifier", "nan,2", "nosuchcommand"]


def test_bad_input_as_a_subprocess(tmp_path):
    files = bad_files(tmp_path)
    cases = [c for c in BAD if any(k in c[0] for k in SUBPROCESS)]
    assert len(cases) >= len(SUBPROCESS)

    def one(case: tuple[list[str], list[str]]) -> str | None:
        argv, words = _fill(case[0], files), _fill(case[1], files)
        p = subprocess.run([sys.executable, "-m", "tmg.cli", *argv], capture_output=True,
                           text=True, cwd=tmp_path, timeout=120)
        return _judge(argv, words, p.returncode, p.stdout, p.stderr)

    with ThreadPoolExecutor(max_workers=2) as pool:
        problems = [p for p in pool.map(one, cases) if p]
    assert not problems, "\n".join(problems)
