"""scenario.save: load → save → load gives the same Battlefield, for every example, every
official layout with every card of its table size, both ways of writing a layout (expanded, or
`layout = NAME` plus overrides); the TOML emitter agrees with tomllib on arbitrary documents;
the write is atomic."""

from __future__ import annotations

import math
import os
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from shapely.geometry import Polygon

import maps
import scenario
from geom.errors import TmgError
from geom.model import Battlefield, TerrainPiece
from scenario import save
from tmg import cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))


def assert_same(a: Battlefield, b: Battlefield) -> None:
    """Field by field first (a failure then names what differs), then the whole."""
    assert a.table == b.table
    assert [p.id for p in a.terrain] == [p.id for p in b.terrain]
    for p, q in zip(a.terrain, b.terrain, strict=True):
        assert p == q, p.id
    for u, v in zip(a.units, b.units, strict=True):
        assert u == v, u.id
    assert a.markers == b.markers
    assert a.deployment == b.deployment
    assert a == b


def reread(tmp_path: Path, bf: Battlefield, **kw) -> Battlefield:
    path = tmp_path / "saved.toml"
    save.save(path, bf, **kw)
    return scenario.load(path)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_round_trips(tmp_path, path):
    bf = scenario.load(path)
    doc = scenario.read_document(path)
    extra = {k: doc[k] for k in ("templates",) if k in doc}
    assert_same(bf, reread(tmp_path, bf, extra=extra))
    layout = doc["table"].get("layout")
    if layout is not None:
        assert_same(bf, reread(tmp_path, bf, layout=layout, extra=extra))


def _official_pairs() -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = []
    for lay in maps.layout_ids():
        out.append((lay, None))
        table = maps.load_layout(lay).table
        for card in maps.deployment_ids():
            try:
                dep = maps.load_deployment(card)
            except TmgError:
                continue  # a card without geometry
            if dep.table == table:
                out.append((lay, card))
    return out


@pytest.mark.parametrize("layout,card", _official_pairs())
def test_official_layouts_and_cards_round_trip(tmp_path, layout, card):
    doc = {"table": {"layout": layout, **({"deployment": card} if card else {})}}
    bf = scenario.parse_document(doc, "official")
    assert_same(bf, reread(tmp_path, bf))
    assert_same(bf, reread(tmp_path, bf, layout=layout))
    text = save.dumps(save.document(bf, layout=layout))
    assert "[[terrain]]" not in text  # nothing differs from the layout


def test_layout_overrides_are_written_as_differences(tmp_path):
    bf = scenario.load("standard-1")
    gone, changed = bf.terrain[0], bf.terrain[1]
    moved = TerrainPiece(changed.id, changed.size + 1, changed.footprint, label=changed.label)
    new = TerrainPiece("crate", 1, Polygon([(1, 1), (2, 1), (2, 2)]), label='Crate "A"\n')
    edited = Battlefield(bf.table, (moved, *bf.terrain[2:], new), name="edited")
    doc = save.document(edited, layout="standard-1")
    assert [e["id"] for e in doc["terrain"]] == [gone.id, changed.id, "crate"]
    assert doc["terrain"][0] == {"id": gone.id, "remove": True}
    back = reread(tmp_path, edited, layout="standard-1")
    # the layout puts a replaced piece where it was; the rest keeps its order
    assert {p.id: p for p in back.terrain} == {p.id: p for p in edited.terrain}
    assert back.piece("crate").label == 'Crate "A"\n'


def test_odd_figures_read_back_exactly(tmp_path):
    bf = scenario.parse_document({
        "table": {"width": 44.5, "depth": 30},
        "unit": [{"id": "odd", "owner": "red", "size": 1, "base_mm": [61.37, 33.3333],
                  "speed": "4/7", "statuses": ["burrowed"], "abilities": ["squadron"],
                  "models": [{"id": "a", "at": [10.1, 0.1 + 0.2 + 5], "angle": 33.3},
                             {"id": 7, "at": [20, 20]}]}],
    }, "odd")
    back = reread(tmp_path, bf)
    assert_same(bf, back)
    assert back.units[0].models[0].at[1] == 0.1 + 0.2 + 5


def test_saved_file_is_read_by_the_commands(tmp_path, capsys):
    bf = scenario.load(ROOT / "examples" / "sight-dispute.toml")
    path = tmp_path / "dispute.toml"
    save.save(path, bf, layout="standard-1")
    assert cli.main(["los", str(path), "marines/m1", "zerglings/1", "--json"]) == 0
    assert '"visible": true' in capsys.readouterr().out


def test_save_is_atomic_and_refuses_other_suffixes(tmp_path, monkeypatch):
    bf = scenario.load(ROOT / "examples" / "gap-run.toml")
    path = tmp_path / "keep.toml"
    path.write_text("old")
    with pytest.raises(TmgError, match=".toml"):
        save.save(tmp_path / "x.json", bf)

    def fail(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(TmgError, match="No space left"):
        save.save(path, bf)
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.toml"]


# ------------------------------------------------------------------ the emitter against tomllib

keys = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=8)
scalars = (st.booleans() | st.integers(-2 ** 63, 2 ** 63 - 1)
           | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(keys, inner, max_size=3), max_leaves=10)


def test_keys_that_need_quotes():
    doc = {"0\n": 1, "a b": [2], "ok-key_1": {"x.y": True}, "arr": [{"\u00e9": "\t\"\\"}]}
    assert tomllib.loads(save.dumps(doc)) == doc


@given(st.dictionaries(keys, values, max_size=4),
       st.dictionaries(keys, st.dictionaries(keys, values, max_size=3), max_size=2),
       st.lists(st.dictionaries(keys, values, min_size=1, max_size=3), min_size=1, max_size=3))
def test_emitter_reads_back_with_tomllib(top, tables, array):
    doc = {**top, **{k: v for k, v in tables.items() if k not in top}}
    if "arr" not in doc:
        doc["arr"] = array
    back = tomllib.loads(save.dumps(doc))

    def norm(v):
        if isinstance(v, float):
            return ("f", v) if not math.isnan(v) else ("nan",)
        if isinstance(v, dict):
            return {k: norm(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [norm(x) for x in v]
        return v

    assert norm(back) == norm(doc)
