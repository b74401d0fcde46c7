"""The loader validates before it builds (issue 26 item 2): each crash signature a fuzzer found —
a ring left with too few corners once repeated points are dropped (`GEOSException` in
`shapely.remove_repeated_points`), an odd layout name (`KeyError` / `OSError` in
`maps.load_layout`), an integer too large for a float (`OverflowError` in
`geom.templates._shapes.make_shape`) — and numbers past the documented limits
(docs/interface.md, "Limits") are clean rejections naming the file, the object and the field.
The documents are our own, built here; each is checked through the loader and through
`tmg.cli.main` (exit 2, one line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geom.errors import TmgError
from geom.templates._shapes import MAX_DIMENSION, make_shape
from maps import load_layout
from scenario import parse_document
from tmg.cli import main

LAYOUTS = [f"standard-{i}" for i in range(1, 7)] + [f"skirmish-{i}" for i in range(1, 4)]


def table(**extra):
    return {"format": "tmg-scenario/1", "table": {"width": 54, "depth": 36}, **extra}


def piece(**shape):
    return {"id": "p", "size": 1, **shape}


def rejected(doc, obj, field, *words):
    """The document is refused by the loader naming obj/field, and by the CLI with exit 2."""
    with pytest.raises(TmgError) as ei:
        parse_document(doc, "bad.json")
    e = ei.value
    assert (e.file, e.obj, e.field) == ("bad.json", obj, field), str(e)
    assert all(w in str(e) for w in words), str(e)
    return e


def cli_rejects(tmp_path: Path, capsys, doc, *words: str) -> str:
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["info", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(f) in err and "internal error" not in err, err
    assert all(w in err for w in words), err
    return err


# --------------------------------------------------------------------------- degenerate rings

@pytest.mark.parametrize("ring,corners", [
    ([[1, 1], [1, 1], [1, 1]], 1),                 # one point three times
    ([[1, 1], [2, 2], [2, 2]], 2),                 # two distinct points
    ([[1, 1], [2, 2], [1, 1], [1, 1]], 2),         # closed back onto the first, twice
    ([[3, 3], [3, 3], [4, 5], [4, 5], [3, 3]], 2),
])
@pytest.mark.parametrize("where", ["polygon", "openings", "access_points"])
def test_a_ring_with_too_few_corners_after_clean_up_is_refused(tmp_path, capsys, ring,
                                                               corners, where):
    p = piece(polygon=ring) if where == "polygon" else \
        piece(rect={"center": [5, 5], "width": 4, "depth": 4}, **{where: [ring]})
    doc = table(terrain=[p])
    rejected(doc, "terrain 'p'", where, "3 distinct corners", f"got {corners}")
    cli_rejects(tmp_path, capsys, doc, f"'{where}'", "3 distinct corners")


def test_repeated_points_in_a_good_ring_are_dropped_not_refused():
    ring = [[1, 1], [1, 1], [4, 1], [4, 1], [4, 4], [1, 4], [1, 1]]
    bf = parse_document(table(terrain=[piece(polygon=ring)]), "ok.json")
    fp = bf.piece("p").footprint
    assert fp.area == 9 and len(fp.exterior.coords) == 5  # 4 corners, closed


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([(0, 0), (0, 3), (3, 3), (3, 0), (1, 2)]), min_size=3,
                max_size=9))
def test_any_ring_of_few_points_loads_or_is_a_clean_rejection(pts):
    """Every ring over a few (often repeated) points: a piece, or a TmgError naming the
    polygon — never a GEOS exception."""
    doc = table(terrain=[piece(polygon=[list(p) for p in pts])])
    try:
        bf = parse_document(doc, "r.json")
    except TmgError as exc:
        assert (exc.obj, exc.field) == ("terrain 'p'", "polygon")
    else:
        assert bf.piece("p").footprint.area > 0


# --------------------------------------------------------------------------- odd layout names

@pytest.mark.parametrize("name", ["_", "-", "standard-1 ", "Standard-1", "standard-01", ".",
                                  "..", "layouts", "../deployments", "../terrain_catalogue",
                                  "x" * 200, "ü", "standard-1/"])
def test_an_odd_layout_name_is_a_clean_rejection(tmp_path, capsys, name):
    doc = {"format": "tmg-scenario/1", "table": {"layout": name}}
    e = rejected(doc, "table", "layout", "unknown map layout")
    assert all(lid in str(e) for lid in LAYOUTS)
    cli_rejects(tmp_path, capsys, doc, "'layout'", "standard-1")


def test_a_layout_name_too_long_for_a_file_name_is_a_clean_rejection(capsys):
    """A scenario's text stops at 200 characters, but a caller of the library (a service) may
    ask for any name: the old lookup built a file name of it (OSError: File name too long)."""
    with pytest.raises(TmgError, match="unknown map layout"):
        load_layout("x" * 5000)
    assert main(["check-layout", "x" * 5000]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error" not in err


# --------------------------------------------------------------------------- huge numbers

@pytest.mark.parametrize("kind,dim", [("blast", "diameter"), ("flamer", "length"),
                                      ("flamer", "narrow"), ("flamer", "wide")])
@pytest.mark.parametrize("value", [10 ** 400, -(10 ** 30), 1e300, MAX_DIMENSION + 0.001],
                         ids=["int-401-digits", "int-negative", "1e300", "just-past"])
def test_a_template_size_past_the_limit_is_refused(tmp_path, capsys, kind, dim, value):
    doc = table(templates={kind: {dim: value}})
    rejected(doc, f"templates.{kind}", dim, "out of range", "100000")
    cli_rejects(tmp_path, capsys, doc, f"templates.{kind}", f"'{dim}'", "out of range")


def test_a_template_size_at_the_limit_is_accepted():
    assert make_shape("blast", {"diameter": MAX_DIMENSION}, "test")["diameter"] == MAX_DIMENSION
    s = make_shape("flamer", {"length": MAX_DIMENSION, "wide": MAX_DIMENSION}, "test")
    assert (s["length"], s["wide"]) == (MAX_DIMENSION, MAX_DIMENSION)
    bf = parse_document(table(templates={"flamer": {"length": 10 ** 5}}), "ok.json")
    assert bf.table.width == 54


@pytest.mark.parametrize("obj,value", [
    ("table.width", 10 ** 400), ("unit.at", 10 ** 400), ("terrain.size", 10 ** 400),
    ("unit.at", -(10 ** 20)), ("terrain.rect", 10 ** 400),
], ids=["width", "at", "size", "at-negative", "rect"])
def test_a_huge_integer_anywhere_is_refused_naming_its_field(tmp_path, capsys, obj, value):
    doc = table(terrain=[piece(rect={"center": [5, 5], "width": 2, "depth": 2})],
                unit=[{"id": "u", "type": "marine", "owner": "red", "models": [[20, 20]]}])
    if obj == "table.width":
        doc["table"]["width"] = value
    elif obj == "unit.at":
        doc["unit"][0]["models"] = [[value, 20]]
    elif obj == "terrain.size":
        doc["terrain"][0]["size"] = value
    else:
        doc["terrain"][0]["rect"]["width"] = value
    err = cli_rejects(tmp_path, capsys, doc)
    field = {"table.width": "'width'", "unit.at": "'models[0]'", "terrain.size": "'size'",
             "terrain.rect": "'rect.width'"}[obj]
    assert field in err and "out of range" in err, err
