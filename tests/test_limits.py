"""The documented limits (formats/limits.py, docs/interface.md "Limits"): each accepted exactly at
the limit and refused one step past it, with one line naming the file, the object and the field;
and files that are no scenario (a pipe, a device, a huge file) refused before they are read."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import scenario
from formats import limits
from geom.errors import TmgError
from tmg.cli import main


def write(tmp_path: Path, doc: dict, name: str = "s.json") -> str:
    p = tmp_path / name
    p.write_text(json.dumps(doc), encoding="utf-8")
    return str(p)


def table(w: float = 54, d: float = 36) -> dict:
    return {"format": "tmg-scenario/1", "table": {"width": w, "depth": d}}


def refused(capsys, file: str, *words: str) -> str:
    assert main(["info", file]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 500, err
    assert all(w in err for w in words), (words, err)
    return err


@pytest.mark.parametrize("edge", ["width", "depth"])
def test_table_size_at_the_limit_and_just_past(tmp_path, capsys, edge):
    doc = table()
    doc["table"][edge] = limits.MAX_TABLE
    assert scenario.load(write(tmp_path, doc)).table.width > 0
    doc["table"][edge] = limits.MAX_TABLE + 0.001
    refused(capsys, write(tmp_path, doc), "table", f"'{edge}'", "144")


def _pieces(n: int) -> list[dict]:
    return [{"id": f"p{i}", "size": 1, "kind": "token",
             "rect": {"center": [1 + (i % 100) * 1.4, 1 + (i // 100) * 1.4], "width": 1,
                      "depth": 1}} for i in range(n)]


def test_pieces_at_the_limit_and_one_more(tmp_path, capsys):
    doc = table(144, 144)
    doc["terrain"] = _pieces(limits.MAX_PIECES)
    assert len(scenario.load(write(tmp_path, doc)).terrain) == limits.MAX_PIECES
    doc["terrain"] = _pieces(limits.MAX_PIECES + 1)
    refused(capsys, write(tmp_path, doc), "'terrain'", "1,001 entries", "1,000")


def _models(n: int) -> list[list[float]]:
    return [[1 + (i % 50) * 2.5, 1 + (i // 50) * 2.5] for i in range(n)]


def test_models_at_the_limit_and_one_more(tmp_path, capsys):
    doc = table(144, 144)
    half = limits.MAX_MODELS // 2
    doc["unit"] = [{"id": "a", "owner": "red", "size": 1, "base_mm": 25, "models":
                    _models(half)},
                   {"id": "b", "owner": "blue", "size": 1, "base_mm": 25, "models":
                    [[x, y + 80] for x, y in _models(limits.MAX_MODELS - half)]}]
    assert sum(len(u.models) for u in scenario.load(write(tmp_path, doc)).units) == \
        limits.MAX_MODELS
    doc["unit"][1]["models"].append([140, 140])
    refused(capsys, write(tmp_path, doc), "unit #2", "'models'", "501 entries")


def test_one_unit_of_a_million_models_fails_at_once(tmp_path, capsys):
    doc = table()
    doc["unit"] = [{"id": "a", "owner": "red", "size": 1, "base_mm": 25,
                    "models": [[1, 1]] * 1_000_000}]
    refused(capsys, write(tmp_path, doc), "unit #1", "'models'", "1,000,000 entries")


def _ngon(n: int) -> list[list[float]]:
    import math
    return [[20 + 5 * math.cos(2 * math.pi * k / n), 18 + 5 * math.sin(2 * math.pi * k / n)]
            for k in range(n)]


def test_vertices_per_polygon_at_the_limit_and_one_more(tmp_path, capsys):
    doc = table()
    doc["terrain"] = [{"id": "round", "size": 2, "polygon": _ngon(limits.MAX_VERTICES)}]
    assert scenario.load(write(tmp_path, doc)).terrain[0].id == "round"
    doc["terrain"] = [{"id": "round", "size": 2, "polygon": _ngon(limits.MAX_VERTICES + 1)}]
    refused(capsys, write(tmp_path, doc), "terrain 'round'", "'polygon'", "1,001 entries")


def test_text_length_at_the_limit_and_one_more(tmp_path, capsys):
    doc = table()
    doc["unit"] = [{"id": "u" * limits.MAX_TEXT, "owner": "red", "size": 1, "base_mm": 25,
                    "models": [[5, 5]]}]
    assert scenario.load(write(tmp_path, doc)).units[0].id == "u" * limits.MAX_TEXT
    doc["unit"][0]["id"] += "u"
    refused(capsys, write(tmp_path, doc), "unit #1", "'id'", "201 characters")


def test_nesting_at_the_limit_and_one_more(tmp_path, capsys):
    """A document nested MAX_DEPTH deep is read (and refused for its fields); one level more
    is refused for its depth, and a million levels never exhaust the stack."""
    def nested(depth: int) -> str:  # the `name` value sits at depth 1
        return '{"name": ' + "[" * (depth - 1) + "1" + "]" * (depth - 1) + "}"

    p = tmp_path / "deep.json"
    p.write_text(nested(limits.MAX_DEPTH))
    err = refused(capsys, str(p))
    assert "nested" not in err
    p.write_text(nested(limits.MAX_DEPTH + 1))
    refused(capsys, str(p), "deep.json", "nested more than 32 levels")
    for suffix, text in ((".json", "[" * 1_000_000), (".toml", "a = " + "[" * 1_000_000)):
        q = tmp_path / f"million{suffix}"
        q.write_text(text)
        refused(capsys, str(q), q.name)


def test_huge_integers_and_floats(tmp_path, capsys):
    p = tmp_path / "big.json"
    p.write_text('{"table": {"width": 1' + "0" * 4000 + ', "depth": 36}}')
    err = refused(capsys, str(p), "'width'", "out of range")
    assert len(err) < 200
    p.write_text('{"table": {"width": 1e999, "depth": 36}}')
    refused(capsys, str(p), "'width'", "finite")
    t = tmp_path / "big.toml"
    t.write_text("[table]\nwidth = 10000000000000000000000000\ndepth = 36\n")
    refused(capsys, str(t), "'width'", "out of range")


def test_file_size_limit(tmp_path, capsys):
    p = tmp_path / "huge.json"
    with open(p, "wb") as f:  # a sparse file: no 8 MiB written
        f.truncate(limits.MAX_FILE_BYTES + 1)
    refused(capsys, str(p), "huge.json", "8,388,609 bytes")


def test_pipes_and_devices_are_not_read(tmp_path, capsys):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    refused(capsys, str(fifo), "pipe.toml", "not a regular file")
    refused(capsys, "/dev/zero", "/dev/zero", ".toml or .json")
    refused(capsys, str(tmp_path), str(tmp_path))


def test_bad_encodings(tmp_path, capsys):
    p = tmp_path / "u16.toml"
    p.write_text("[table]\nwidth = 54\ndepth = 36\n", encoding="utf-16")
    refused(capsys, str(p), "u16.toml", "not UTF-8")
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbf[table]\nwidth = 54\ndepth = 36\n")
    assert scenario.load(str(bom)).table.width == 54  # a byte-order mark is fine


def test_survey_grid_limit_at_and_past_it():
    from geom.model import Table
    from survey._grid import MAX_GRID_POINTS, check_grid

    side = 250  # 250 x 400 one-inch cells: exactly the limit
    assert side * (MAX_GRID_POINTS // side) == MAX_GRID_POINTS
    check_grid(Table(side, MAX_GRID_POINTS // side), 1.0)
    with pytest.raises(TmgError, match="more than the 100000"):
        check_grid(Table(side, MAX_GRID_POINTS // side + 0.001), 1.0)
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(TmgError, match="positive number"):
            check_grid(Table(54, 36), bad)
