"""Official layouts and deployment cards through the loaders, the scenario loader and the CLI
(issue 7 items 1-3, 6; rulebook §5.6, §9.3, map layouts).

The figures typed in below come from the rulebook ("맵 레이아웃", required terrain) and from the
official print-and-play card sheets (deployment-cards.p2p.md); they are written out here, not read
from the data files under test.
"""

from __future__ import annotations

import json
import math
import os

import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point

import scenario
from geom.errors import TmgError
from maps import (
    battlefield_by_name,
    deployment_ids,
    deployment_info,
    layout_groups,
    layout_ids,
    load_deployment,
    load_layout,
    physical_pieces,
    piece_groups,
    quarters,
    zone_of_influence,
)
from scenario import parse_document
from tmg.cli import main

LAYOUTS = [f"standard-{i}" for i in range(1, 7)] + [f"skirmish-{i}" for i in range(1, 4)]
CARDS = ["gauntlet", "typhoon", "acropolis", "breach", "proving-grounds", "abandoned-camp",
         "agria-valley", "dirt-side", "frontier", "char-plains"]
UNAVAILABLE = ["encounter", "green-valley"]

# Official P2P card sheets v1.03.26 (markers, x right, y up, origin bottom-left).
SHEET_MARKERS = {
    "gauntlet": {1: (12, 24), 2: (42, 12), 3: (36, 24), 4: (18, 12), 5: (27, 18)},
    "typhoon": {1: (18, 24), 2: (6, 30), 3: (48, 6), 4: (36, 12), 5: (27, 18)},
    "acropolis": {1: (12, 24), 2: (42, 24), 3: (42, 12), 4: (12, 12), 5: (27, 18)},
    "breach": {1: (18, 30), 2: (36, 30), 3: (36, 6), 4: (18, 6), 5: (27, 18)},
    "proving-grounds": {1: (12, 24), 2: (36, 12), 3: (42, 24), 4: (18, 12), 5: (27, 24)},
    "abandoned-camp": {1: (6, 18), 2: (30, 18), 5: (18, 18)},
    "agria-valley": {1: (6, 6), 2: (30, 30), 5: (18, 18)},
    "dirt-side": {1: (6, 18), 2: (30, 18), 5: (18, 18)},
    "frontier": {1: (6, 6), 2: (30, 30), 5: (18, 18)},
    "char-plains": {1: (6, 6), 2: (6, 30), 5: (24, 18)},
}

# Rulebook "맵 레이아웃": required terrain of the maps that print a list (physical pieces; an
# L-shaped wall set is one piece). Keys are the English labels the transcription uses.
_STD = {"Head Statue": 2, "Statue Shard": 2, "Vespene Geyser": 2, "Shrubs A": 4, "Shrubs B": 4,
        "Protoss Banner": 2, "Temple Obelisk": 2, "Wall Set 1": 2, "Wall Set 2": 2,
        "Wall Set 3": 2, "Wall Set 4 (L)": 2, "Wall Set 5 (L)": 2, "Wall Set 6": 2}
_SKI = {k: v // 2 for k, v in _STD.items()}
REQUIRED = {"standard-1": _STD, "standard-5": {**_STD, "Lost Temple Ramp": 2},
            "skirmish-1": _SKI, "skirmish-3": {**_SKI, "Lost Temple Ramp": 1}}


def run_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def label_of(pp) -> str:
    """The catalogue label of a physical piece: an L wall's arms are labelled '… — long side'."""
    return pp.label.split(" — ")[0]


# ------------------------------------------------------------------------- every map and card

def test_ids():
    assert layout_ids() == LAYOUTS
    assert sorted(deployment_ids()) == sorted(CARDS + UNAVAILABLE)


@pytest.mark.parametrize("lid", LAYOUTS)
def test_layout_loads_and_lies_on_its_table(lid):
    lay = load_layout(lid)
    want = (54, 36) if lid.startswith("standard") else (36, 36)
    assert (lay.table.width, lay.table.depth) == want
    table = lay.table.polygon.buffer(1e-9)
    assert lay.terrain
    for p in lay.terrain:
        assert p.footprint.is_valid and p.footprint.area > 0
        assert table.contains(p.footprint), p.id
        for ap in p.access_points:
            assert table.contains(ap) and ap.intersects(p.footprint), p.id
    bf = battlefield_by_name(lid)
    assert bf.terrain == lay.terrain and bf.table == lay.table and not bf.units
    assert scenario.load(lid).terrain == lay.terrain


@pytest.mark.parametrize("lid", sorted(REQUIRED))
def test_required_terrain_counts_match_the_rulebook(lid):
    counts: dict[str, int] = {}
    for pp in physical_pieces(battlefield_by_name(lid)):
        counts[label_of(pp)] = counts.get(label_of(pp), 0) + 1
    assert counts == REQUIRED[lid]


@pytest.mark.parametrize("lid", LAYOUTS)
def test_l_walls_are_one_physical_piece(lid):
    bf = battlefield_by_name(lid)
    groups = piece_groups(bf)
    assert groups == layout_groups(lid)
    pps = physical_pieces(bf)
    assert sum(len(pp.parts) for pp in pps) == len(bf.terrain)
    for gid, parts in groups:
        pp = next(p for p in pps if p.id == gid)
        assert tuple(p.id for p in pp.parts) == parts
        assert "(L)" in pp.label
        assert pp.footprint.is_valid
        assert abs(pp.footprint.area - shapely.union_all(
            [p.footprint for p in pp.parts]).area) < 1e-9
    assert len(pps) == len(bf.terrain) - len(groups)


@pytest.mark.parametrize("cid", CARDS)
def test_card_loads_lies_on_its_table_and_markers_match_the_sheets(cid):
    dep = load_deployment(cid)
    info = deployment_info(cid)
    assert dep.name == info["name"] and dep.name_ko == info["name_ko"]
    want = (36, 36) if cid in SHEET_MARKERS and len(SHEET_MARKERS[cid]) == 3 else (54, 36)
    assert (dep.table.width, dep.table.depth) == want
    assert {m.id: m.at for m in dep.markers} == {
        k: (float(x), float(y)) for k, (x, y) in SHEET_MARKERS[cid].items()}
    colours = {1: "red", 3: "red", 2: "blue", 4: "blue", 5: "neutral"}
    assert all(m.colour == colours[m.id] for m in dep.markers)
    table = dep.table.polygon
    boundary = table.exterior.buffer(1e-9)
    for owner in ("red", "blue"):
        assert dep.entry_edges[owner]
        for seg in dep.entry_edges[owner]:
            assert boundary.contains(seg), (cid, owner, seg.wkt)
        zone = dep.zones[owner]
        assert table.buffer(1e-9).contains(zone)
        # every zone point is within 6" of its entry edge, every edge point is in the zone
        assert max(shapely.distance(Point(c), shapely.union_all(dep.entry_edges[owner]))
                   for c in shapely.get_coordinates(zone)) <= 6 + 1e-9
        for seg in dep.entry_edges[owner]:
            assert zone.buffer(1e-9).contains(seg)
    assert dep.zones["red"].intersection(dep.zones["blue"]).area < 1e-9 or cid == "proving-grounds"
    bf = battlefield_by_name(cid)
    assert bf.markers == dep.markers and bf.deployment == dep and not bf.terrain


@pytest.mark.parametrize("cid", UNAVAILABLE)
def test_unavailable_cards_are_listed_but_refuse_to_load(cid):
    assert deployment_info(cid)["available"] is False
    with pytest.raises(TmgError, match="no geometry"):
        load_deployment(cid)


def test_every_map_and_card_loads_by_name_in_the_cli(capsys):
    r = run_json(capsys, "layouts")
    assert [x["id"] for x in r["layouts"]] == LAYOUTS
    for x in r["layouts"]:
        assert set(x) >= {"id", "name", "table"} and set(x["table"]) == {"width", "depth"}
        assert x["footprints"] == len(load_layout(x["id"]).terrain)
        assert x["pieces"] == len(physical_pieces(battlefield_by_name(x["id"])))
    assert {x["id"] for x in r["deployments"]} == set(CARDS + UNAVAILABLE)
    for x in r["deployments"]:
        assert set(x) >= {"id", "name", "name_ko", "available"}
        assert x["available"] == (x["id"] in CARDS)
    for name in LAYOUTS + CARDS:
        info = run_json(capsys, "info", name)
        if name in LAYOUTS:
            assert len(info["terrain"]) == len(load_layout(name).terrain)
        else:
            assert [m["id"] for m in info["markers"]] == sorted(SHEET_MARKERS[name])
    assert main(["info", "encounter"]) == 2
    assert "no geometry" in capsys.readouterr().err
    assert main(["info", "standard-9"]) == 2
    assert "neither a file nor an official layout" in capsys.readouterr().err


# ------------------------------------------------------------------------- zones of influence

def brute_zone(table, segments, p, depth=6.0) -> bool:
    """A point is in the zone when its foot on some entry-edge segment's line falls on the
    segment and lies at most `depth` away (the strip ends square at the L markers, §9.3)."""
    x, y = p
    if not (0 <= x <= table.width and 0 <= y <= table.depth):
        return False
    for seg in segments:
        (x1, y1), (x2, y2) = seg.coords[0], seg.coords[-1]
        if abs(y1 - y2) < 1e-12:
            if min(x1, x2) - 1e-9 <= x <= max(x1, x2) + 1e-9 and abs(y - y1) <= depth + 1e-9:
                return True
        elif min(y1, y2) - 1e-9 <= y <= max(y1, y2) + 1e-9 and abs(x - x1) <= depth + 1e-9:
            return True
    return False


def test_zone_of_influence_on_an_l_shaped_entry_edge():
    """Typhoon: red enters along the top edge x 30-54 and the right edge y 18-36 (an L round
    the corner); L markers close the zone square at x = 30 and y = 18."""
    dep = load_deployment("typhoon")
    red = dep.zones["red"]
    assert red.area == pytest.approx(24 * 6 + 18 * 6 - 6 * 6)
    inside = [(31, 33), (53, 35), (49, 19), (40, 30.5), (48.5, 25)]
    outside = [(29, 33), (28, 35.9), (49, 17), (53, 17.5), (40, 29.5), (47, 25)]
    for p in inside:
        assert red.covers(Point(p)), p
    for p in outside:
        assert not red.covers(Point(p)), p
    # (29, 33) is only 3.2" from the entry edge: the zone ends square, it is not a 6" buffer
    assert LineString([(30, 36), (54, 36)]).distance(Point(29, 33)) < 6
    # and the L-shaped zone of the opponent sits in the opposite corner, disjoint
    assert red.intersection(dep.zones["blue"]).is_empty


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(CARDS), st.floats(0, 1), st.floats(0, 1), st.sampled_from(["red", "blue"]))
def test_zone_matches_brute_force(cid, fx, fy, owner):
    dep = load_deployment(cid)
    p = (fx * dep.table.width, fy * dep.table.depth)
    got = dep.zones[owner].buffer(1e-7).covers(Point(p))
    assert got == brute_zone(dep.table, dep.entry_edges[owner], p)


@pytest.mark.parametrize("cid", CARDS)
def test_zones_equal_the_cards_own_zone_polygons(cid):
    """The loader computes zones from the entry edges; the data file also lists each card's
    zone rectangles (read off the sheets): the two agree."""
    dep = load_deployment(cid)
    for owner, polys in deployment_info(cid)["zones_of_influence"].items():
        want = shapely.union_all([shapely.Polygon(p) for p in polys])
        assert dep.zones[owner].symmetric_difference(want).area < 1e-9, (cid, owner)


def test_zone_of_influence_function_square_ends():
    from geom.model import Table
    z = zone_of_influence(Table(36, 36), (LineString([(12, 0), (24, 0)]),))
    assert z.bounds == (12, 0, 24, 6) and z.area == pytest.approx(72)


def test_quarters_match_the_card_data():
    data = json.loads((__import__("pathlib").Path(__file__).resolve().parent.parent
                       / "maps" / "data" / "deployments.json").read_text(encoding="utf-8"))
    for scale, bf in (("standard", battlefield_by_name("standard-1")),
                      ("skirmish", battlefield_by_name("skirmish-1"))):
        q = quarters(bf.table)
        want = {e["id"]: shapely.Polygon(e["polygon"]) for e in data["quarters"][scale]["quarters"]}
        assert set(q) == set(want)
        for k in q:
            assert q[k].symmetric_difference(want[k]).area < 1e-9


# ------------------------------------------------------------------------- scenario integration

def scen(**table):
    return {"format": "tmg-scenario/1", "table": table}


def test_scenario_takes_layout_and_card_and_overrides():
    d = scen(layout="skirmish-1", deployment="abandoned-camp")
    d["terrain"] = [
        # replaces the layout's Temple Obelisk (same id): now a Size-3 block elsewhere
        {"id": "skirmish-1/01", "size": 3, "rect": {"center": [18, 30], "width": 2, "depth": 2}},
        {"id": "skirmish-1/13", "remove": True},  # drop the Vespene Geyser
        {"id": "crate", "size": 1, "polygon": [[30, 3], [31, 3], [31, 4], [30, 4]]},
    ]
    d["marker"] = [{"id": 5, "at": [17, 20]}]
    d["unit"] = [{"id": "marines", "type": "marine", "owner": "red",
                  "models": [[2, 2], [3.5, 2]]}]
    bf = parse_document(d, "s.json")
    lay = load_layout("skirmish-1")
    ids = [p.id for p in bf.terrain]
    assert len(ids) == len(set(ids)) == len(lay.terrain) - 1 + 1
    assert "skirmish-1/13" not in ids and "crate" in ids
    assert bf.piece("skirmish-1/01").size == 3
    assert bf.piece("skirmish-1/01").footprint.bounds == (17, 29, 19, 31)
    for p in lay.terrain:
        if p.id not in ("skirmish-1/01", "skirmish-1/13"):
            assert bf.piece(p.id) == p
    dep = load_deployment("abandoned-camp")
    assert bf.deployment == dep
    assert {m.id: m.at for m in bf.markers} == {1: (6.0, 18.0), 2: (30.0, 18.0), 5: (17.0, 20.0)}
    assert bf.marker(5).colour == "neutral"
    assert (bf.table.width, bf.table.depth) == (36, 36)
    # L groups survive a scenario that keeps both arms, and dissolve when an arm is removed
    assert {g for g, _ in piece_groups(bf)} == {"skirmish-1/L1", "skirmish-1/L2"}
    d["terrain"].append({"id": "skirmish-1/02", "remove": True})
    bf2 = parse_document(d, "s.json")
    assert {g for g, _ in piece_groups(bf2)} == {"skirmish-1/L2"}


@pytest.mark.parametrize("table,field,msg", [
    ({"width": 54, "depth": 36, "deployment": "abandoned-camp"}, "deployment", "36x36"),
    ({"layout": "standard-1", "deployment": "frontier"}, "deployment", "36x36"),
    ({"layout": "skirmish-2", "deployment": "gauntlet"}, "deployment", "54x36"),
    ({"layout": "standard-7"}, "layout", "unknown map layout"),
    ({"layout": "skirmish-1", "width": 54, "depth": 36}, "layout", "36x36 table, not 54x36"),
    ({"width": 54, "depth": 36, "deployment": "encounter"}, "deployment", "no geometry"),
    ({"width": 54, "depth": 36, "deployment": "nowhere"}, "deployment", "unknown deployment"),
])
def test_card_or_layout_that_does_not_fit_is_an_error_naming_the_field(table, field, msg):
    with pytest.raises(TmgError) as ei:
        parse_document(scen(**table), "bad.toml")
    e = ei.value
    assert e.field == field and e.file == "bad.toml" and e.obj == "table"
    assert msg in str(e)


def test_remove_of_a_piece_the_layout_does_not_have():
    d = scen(layout="skirmish-1")
    d["terrain"] = [{"id": "skirmish-1/99", "remove": True}]
    with pytest.raises(TmgError) as ei:
        parse_document(d, "x.toml")
    assert ei.value.field == "remove" and "skirmish-1/99" in str(ei.value)


def test_unit_on_a_layout_wall_is_refused():
    d = scen(layout="skirmish-1")
    wall = load_layout("skirmish-1").terrain[9]  # Wall Set 2
    c = wall.footprint.centroid
    d["unit"] = [{"id": "u", "owner": "red", "size": 1, "base_mm": 25,
                  "models": [[c.x, c.y]]}]
    with pytest.raises(TmgError, match="impassable terrain 'skirmish-1/10'"):
        parse_document(d, "x.toml")


def test_layout_by_name_in_cli_rejects_unknown(capsys):
    assert main(["check-layout", "skirmish-9"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "skirmish-9" in err


def test_battlefield_markers_are_marker_discs():
    bf = battlefield_by_name("gauntlet")
    assert all(math.isclose(m.ellipse.a, 16 / 25.4) for m in bf.markers)


def _outside_layout(tmp_path):
    """A real layout file `x.json` outside the packaged data (a copy of standard-1, so that
    reading it would load), and the relative name that reaches it from the layouts folder."""
    from importlib import resources
    layouts = resources.files("maps").joinpath("data", "layouts")
    doc = json.loads(layouts.joinpath("standard-1.json").read_text(encoding="utf-8"))
    doc["id"] = "x"
    (tmp_path / "x.json").write_text(json.dumps(doc), encoding="utf-8")
    return os.path.relpath(tmp_path / "x", str(layouts))


def test_a_layout_name_is_never_a_file_path(tmp_path):
    """Issue 26 item 3: `layout = "../../x"` reaches no file, whatever is there."""
    rel = _outside_layout(tmp_path)
    assert rel.startswith("..") and (tmp_path / "x.json").is_file()
    for name in (rel, str(tmp_path / "x"), "layouts/../standard-1", "./standard-1"):
        with pytest.raises(TmgError) as ei:
            load_layout(name)
        assert "unknown map layout" in str(ei.value)
        with pytest.raises(TmgError) as ei:
            parse_document(scen(layout=name), "bad.toml")
        e = ei.value
        assert (e.file, e.obj, e.field) == ("bad.toml", "table", "layout")
        assert all(lid in str(e) for lid in LAYOUTS)
    assert layout_groups(rel) == ()


def test_a_path_as_layout_or_card_through_the_cli_is_exit_2(tmp_path, capsys):
    rel = _outside_layout(tmp_path)
    s = tmp_path / "s.toml"
    s.write_text(f'[table]\nlayout = "{rel}"\n', encoding="utf-8")
    assert main(["info", str(s)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(s) in err and "table" in err and "'layout'" in err
    assert all(lid in err for lid in LAYOUTS) and "internal error" not in err
    assert main(["info", "standard-1", "--deployment", rel]) == 2
    err = capsys.readouterr().err
    assert "--deployment" in err and "unknown deployment card" in err
    assert all(cid in err for cid in CARDS)
