"""Loading and validation (docs/interface.md): every bad input ends as one ScenarioError naming
the file, the object and the field; the CLI turns it into exit status 2."""

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scenario
from geom.errors import TmgError
from scenario import ScenarioError, parse_document
from tmg.cli import main

GOOD = {
    "format": "tmg-scenario/1",
    "table": {"width": 54, "depth": 36},
    "terrain": [
        {"id": "plateau", "size": 3, "standable": True,
         "polygon": [[10, 10], [20, 10], [20, 20], [10, 20]]},
        {"id": "wall", "size": 2, "rect": {"center": [30, 5], "width": 4, "depth": 1}},
    ],
    "unit": [
        {"id": "marines", "type": "marine", "owner": "red",
         "models": [{"id": "m1", "at": [15, 15]}, {"id": "m2", "at": [40, 30]}]},
        {"id": "lings", "owner": "blue", "size": 1, "base_mm": 32, "speed": "4/8",
         "models": [[5, 5], [6.5, 5]]},
    ],
    "marker": [{"id": 5, "at": [27, 18]}],
}


def doc(**changes):
    d = json.loads(json.dumps(GOOD))
    for path, value in changes.items():
        *head, last = path.split("__")
        tgt = d
        for k in head:
            tgt = tgt[int(k)] if k.isdigit() else tgt[k]
        if value is DELETE:
            del tgt[last if not last.isdigit() else int(last)]
        elif last.isdigit():
            tgt[int(last)] = value
        else:
            tgt[last] = value
    return d


DELETE = object()


def test_good_document_loads():
    bf = parse_document(GOOD, "good.json")
    assert bf.unit("marines").size == 2  # from the catalogue
    assert bf.unit("marines").models[0].base.long == pytest.approx(32 / 25.4)
    assert bf.unit("lings").models[1].id == "2"  # bare points get ids "1", "2", ...
    assert str(bf.unit("lings").speed) == "4/8"
    assert bf.unit("lings").current_speed() == 4


@pytest.mark.parametrize("changes, obj, field", [
    ({"table__height": 3}, "table", "height"),                          # unknown field
    ({"terrain__0__size": "big"}, "terrain 'plateau'", "size"),         # wrong type
    ({"terrain__0__size": -1}, "terrain 'plateau'", "size"),
    ({"terrain__1__id": "plateau"}, "terrain 'plateau'", "id"),         # duplicate id
    ({"unit__1__id": "marines"}, "unit 'marines'", "id"),
    ({"terrain__1__on": "nowhere"}, "terrain 'wall'", "on"),            # unknown reference
    ({"unit__0__leading": "m9"}, "unit 'marines'", "leading"),
    ({"unit__0__type": "battlecruiser"}, "unit 'marines'", "type"),
    ({"terrain__0__polygon": [[0, 0], [4, 4], [4, 0], [0, 4]]}, "terrain 'plateau'", "polygon"),
    ({"unit__1__models__0": [0.2, 5]}, "unit 'lings' model '1'", "at"),    # off the table
    ({"unit__1__models__1": [5.5, 5]}, "unit 'lings' model '2'", "at"),    # overlapping base
    ({"unit__1__models__0": [30, 5.2]}, "unit 'lings' model '1'", "at"),   # on a wall
    ({"unit__0__owner": "green"}, "unit 'marines'", "owner"),
    ({"unit__1__speed": "fast"}, "unit 'lings'", "speed"),
    ({"marker__0__id": 7}, "marker #1", "id"),
    ({"unit__1__size": DELETE}, "unit 'lings'", "size"),
    ({"format": "tmg-scenario/9"}, "scenario", "format"),
])
def test_bad_input_names_object_and_field(changes, obj, field):
    with pytest.raises(ScenarioError) as exc:
        parse_document(doc(**changes), "bad.json")
    assert exc.value.file == "bad.json"
    assert exc.value.obj == obj
    assert exc.value.field == field
    assert str(exc.value).startswith(f"bad.json: {obj}: field {field!r}: ")


def test_stacking_cycle():
    d = doc(terrain__0__on="wall", terrain__1__on="plateau")
    with pytest.raises(ScenarioError, match="stacking cycle") as exc:
        parse_document(d, "cyc.json")
    assert exc.value.field == "on"


def test_model_on_standable_top_may_overlap_its_footprint():
    # m1 stands on the plateau (centre inside its top): not an overlap with impassable terrain.
    bf = parse_document(GOOD, "good.json")
    assert bf.unit("marines").models[0].at == (15.0, 15.0)


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_unparsable_files_exit_2(tmp_path, capsys):
    bad_toml = write(tmp_path, "x.toml", "format = \n[table")
    assert main(["info", str(bad_toml)]) == 2
    err = capsys.readouterr().err
    assert str(bad_toml) in err and "TOML" in err
    bad_json = write(tmp_path, "x.json", "{]")
    assert main(["info", str(bad_json)]) == 2
    assert main(["info", str(tmp_path / "missing.toml")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_cli_message_is_one_line_without_traceback(tmp_path):
    p = write(tmp_path, "dup.json", json.dumps(doc(unit__1__id="marines")))
    r = subprocess.run([sys.executable, "-m", "tmg.cli", "info", str(p)], capture_output=True,
                       text=True)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "unit 'marines'" in r.stderr and "'id'" in r.stderr


def test_examples_load(examples):
    for f in sorted(examples.glob("*.toml")) + sorted(examples.glob("*.json")):
        bf = scenario.load(f)
        assert bf.table.width > 0


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 60) | st.floats(-1e3, 1e3) | st.just(float("nan")) | st.just(float("inf"))
    | st.text(max_size=6),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["id", "size", "at", "polygon", "models", "owner", "type",
                                       "width", "depth", "rect", "circle", "center", "radius",
                                       "on", "base_mm", "kind", "x"]), children, max_size=5),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["format", "table", "terrain", "unit", "marker", "junk"]),
                       json_values, max_size=5))
def test_fuzz_random_documents_raise_only_our_error(d):
    try:
        parse_document(d, "fuzz.json")
    except TmgError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_fuzz_mutated_good_document(data):
    d = json.loads(json.dumps(GOOD))
    # Replace one leaf somewhere in a valid document with a random value.
    paths = []

    def walk(x, path):
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, path + [k])
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, path + [i])
        paths.append(path)

    walk(d, [])
    path = data.draw(st.sampled_from([p for p in paths if p]))
    tgt = d
    for k in path[:-1]:
        tgt = tgt[k]
    tgt[path[-1]] = data.draw(json_values)
    try:
        parse_document(d, "fuzz.json")
    except TmgError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_fuzz_random_bytes(tmp_path_factory, blob):
    p = tmp_path_factory.mktemp("fz") / "f.toml"
    p.write_bytes(blob)
    try:
        scenario.load(p)
    except TmgError:
        pass
