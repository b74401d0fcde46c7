"""The §9.3 terrain guidelines (`maps.checks`, `tmg check-layout`): hand-built tables for each
guideline, the fire-lane intervals against a shapely brute force, and the nine official layouts
(whose findings docs/maps.md must show exactly as the command prints them)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import LineString, Polygon, box

from geom.model import Battlefield, Marker, Table, TerrainPiece
from maps import battlefield_by_name, default_entry_edges, layout_ids, load_deployment
from maps.checks import (
    DENSITY,
    access_reachability,
    check_layout,
    fire_lanes,
    lane_obstacles,
    lane_polygon,
    open_corridors,
    scaled_range,
    widest_corridor,
)
from tmg.cli import main

STD = Table(54, 36)
SKI = Table(36, 36)
DOCS = Path(__file__).resolve().parent.parent / "docs" / "maps.md"
BOTTOM_TOP = default_entry_edges(STD)[0]


def piece(pid, size, geom, **kw):
    return TerrainPiece(pid, size, geom, **kw)


def findings(bf, dep=None):
    return {f.rule: f for f in check_layout(bf, dep)}


# ----------------------------------------------------------------------------- counts

def test_scaled_ranges():
    assert scaled_range(STD, 8, 12) == (8, 12)
    # 36x36 is 2/3 of the standard area: 8-12 -> 5.33-8 -> 5-8
    assert scaled_range(SKI, 8, 12) == (5, 8)
    assert scaled_range(SKI, 6, 8) == (4, 6)
    assert scaled_range(SKI, 2, 4) == (1, 3)
    assert scaled_range(Table(72, 36), 8, 12) == (10, 16)


def test_counts_by_category_with_size_3_optional():
    ps = [piece(f"w{i}", 2, box(2 + 3 * i, 2, 3 + 3 * i, 3)) for i in range(7)]
    ps += [piece(f"g{i}", 2, box(2 + 3 * i, 30, 3 + 3 * i, 31), kind="grass") for i in range(5)]
    ps += [piece(f"c{i}", 1, box(40, 2 + 3 * i, 41, 3 + 3 * i)) for i in range(3)]
    f = findings(Battlefield(STD, tuple(ps)))
    assert f["9.3 terrain density: Size 2"].ok and f["9.3 terrain density: Size 2"].measured[
        "count"] == 7
    assert f["9.3 terrain density: grass"].measured["count"] == 5
    assert f["9.3 terrain density: Size 1"].ok
    assert f["9.3 terrain density: Size 3+"].ok  # none is fine ("있다면")
    assert not f["9.3 terrain density: total"].ok  # 15 > 12
    assert "15 pieces in all; guideline 8-12" in f["9.3 terrain density: total"].detail
    three = [piece(f"t{i}", 3, box(10 + 5 * i, 15, 12 + 5 * i, 17)) for i in range(3)]
    f = findings(Battlefield(STD, tuple(three)))
    assert not f["9.3 terrain density: Size 3+"].ok  # 3 > 2


@pytest.mark.parametrize("lid", layout_ids())
def test_official_counts_are_physical_pieces(lid):
    from maps import physical_pieces

    bf = battlefield_by_name(lid)
    f = findings(bf)
    pps = physical_pieces(bf)
    assert f["9.3 terrain density: total"].measured["count"] == len(pps)
    total = sum(f[f"9.3 terrain density: {c}"].measured["count"] for c in DENSITY if c != "total")
    assert total == len(pps)
    grass = sum(1 for pp in pps if pp.grass)
    assert f["9.3 terrain density: grass"].measured["count"] == grass


# ----------------------------------------------------------------------------- quarters, centre

def test_quarters_majority_area_and_exact_ties():
    ps = [piece("a", 2, box(5, 5, 8, 6)), piece("b", 2, box(10, 5, 13, 6)),
          # mostly bottom-right (x 26..31 across the 27 line): counts there only
          piece("c", 2, box(26, 5, 31, 6)), piece("d", 2, box(40, 5, 43, 6)),
          # split exactly by the y = 18 line: counts in top-left and bottom-left
          piece("e", 2, box(5, 17, 8, 19)),
          piece("f", 2, box(5, 30, 8, 31)), piece("g", 2, box(40, 30, 43, 31)),
          piece("h", 2, box(45, 30, 48, 31), kind="grass"),
          piece("low", 1, box(45, 10, 48, 11))]
    f = findings(Battlefield(STD, tuple(ps)))["9.3 distribution (quarters)"]
    assert f.measured["counts"] == {"bottom-left": 3, "bottom-right": 2, "top-right": 2,
                                    "top-left": 2}
    assert f.ok and f.measured["ties"] == ["e"]
    assert "c" in f.measured["pieces"]["bottom-right"]
    ps = [p for p in ps if p.id != "g"]
    f = findings(Battlefield(STD, tuple(ps)))["9.3 distribution (quarters)"]
    assert not f.ok and f.measured["counts"]["top-right"] == 1  # grass counts, Size 1 does not


@pytest.mark.parametrize("gap,ok", [(5.9, True), (6.0, True), (6.1, False)])
def test_centre_within_6(gap, ok):
    p = piece("w", 2, box(27 + gap, 17, 29 + gap, 19))
    f = findings(Battlefield(STD, (p, piece("low", 1, box(26, 17, 28, 19)))))["9.3 centre"]
    assert f.ok == ok and f.measured["distance"] == pytest.approx(gap)


# ----------------------------------------------------------------------------- fire lanes

def lanes_on(obstacles, table=STD, edges=None, **kw):
    return fire_lanes(table, edges or default_entry_edges(table)[0], obstacles, **kw)


def test_empty_table_holds_nine_lanes():
    lanes = lanes_on([])
    assert len(lanes) == 9 and all(ln.angle == 90 for ln in lanes)


def test_wall_across_the_table_closes_every_lane():
    assert lanes_on([box(0, 17, 54, 18)]) == []
    assert widest_corridor(STD, BOTTOM_TOP, [box(0, 17, 54, 18)]) is None


@pytest.mark.parametrize("gap,count", [(6.0, 2), (5.9, 0), (12.0, 2), (11.9, 1)])
def test_gaps_in_a_wall(gap, count):
    # a wall across the table with a gap at x 10..10+gap and one at 40..46 only when gap < 12
    if gap >= 11.9:
        walls = [box(0, 17, 10, 18), box(10 + gap, 17, 54, 18)]
    else:
        walls = [box(0, 17, 10, 18), box(10 + gap, 17, 40, 18), box(40 + gap, 17, 54, 18)]
    lanes = lanes_on(walls)
    assert len(lanes) == count
    w = widest_corridor(STD, BOTTOM_TOP, walls)
    assert w is not None and w[0] == pytest.approx(gap, abs=1e-9)
    for ln in lanes:
        band = lane_polygon(STD, ln.angle, ln.lo, ln.width)
        assert all(band.intersection(o).area < 1e-9 for o in walls)


def test_two_lanes_in_two_directions():
    """Left: a vertical corridor x 0..7; right: a corridor slanted at 70 degrees. No single
    direction holds both, the pair is disjoint: two lanes."""
    t = math.tan(math.radians(70))
    block1 = Polygon([(7, 0), (20, 0), (20 + 36 / t, 36), (7, 36)])
    shift = 7 / math.sin(math.radians(70))
    block2 = Polygon([(20 + shift, 0), (54, 0), (54, 36), (20 + shift + 36 / t, 36)])
    obst = [block1, block2]
    lanes = lanes_on(obst)
    assert len(lanes) == 2
    angles = sorted(round(ln.angle) for ln in lanes)
    assert angles[0] in range(68, 73) and angles[1] in range(88, 93)
    a, b = (lane_polygon(STD, ln.angle, ln.lo, ln.width) for ln in lanes)
    assert a.intersection(b).area < 1e-9
    for ln in lanes:
        band = lane_polygon(STD, ln.angle, ln.lo, ln.width)
        assert all(band.intersection(o).area < 1e-9 for o in obst)
    # the per-direction count never reaches two
    cors = open_corridors(STD, BOTTOM_TOP, obst, np.arange(0, 360, 0.25))
    assert max(sum(int((b - a) // 6) for a, b in c) for c in cors) == 1


def test_skew_limit():
    """A corridor slanted 50 degrees off square counts only when 50 degrees is allowed."""
    drift = 36 / math.tan(math.radians(40))  # 42.9" sideways over the 36" depth
    shift = 6.5 / math.sin(math.radians(40))  # a corridor 6.5" wide
    block1 = Polygon([(0, 0), (0.5, 0), (0.5 + drift, 36), (0, 36)])
    block2 = Polygon([(0.5 + shift, 0), (54, 0), (54, 36), (0.5 + shift + drift, 36)])
    assert 0.5 + shift + drift < 54
    assert lanes_on([block1, block2]) == []
    assert len(lanes_on([block1, block2], max_skew_deg=55)) == 1


def test_l_shaped_entry_edges_of_a_card():
    """Typhoon: red enters top x 30-54 + right y 18-36, blue bottom x 0-24 + left y 0-18.
    On an empty table lanes run between them; a lane must end on both players' edges."""
    dep = load_deployment("typhoon")
    lanes = fire_lanes(STD, dep.entry_edges, [])
    assert len(lanes) >= 2
    red = dep.entry_edges["red"]
    blue = dep.entry_edges["blue"]
    for ln in lanes:
        s, e = ln.start, ln.end
        from shapely.geometry import Point
        assert min(seg.distance(Point(s)) for seg in red) < 1e-6
        assert min(seg.distance(Point(e)) for seg in blue) < 1e-6


# --- brute force: the lane conditions checked on the band polygon with shapely


def brute_valid(table, edges, obstacles, angle, lo, width, max_skew=45.0) -> bool:
    band = lane_polygon(table, angle, lo, width)
    if band.is_empty or band.area < 1e-9:
        return False
    if any(band.intersection(o).area > 1e-9 for o in obstacles):
        return False
    phi = math.radians(angle)
    u = np.array([math.cos(phi), math.sin(phi)])
    inward = {"bottom": (0, 1), "top": (0, -1), "left": (1, 0), "right": (-1, 0)}
    w, d = table.width, table.depth

    def edge_of(p):
        x, y = p
        for name, ok in (("bottom", abs(y) < 1e-7), ("top", abs(y - d) < 1e-7),
                         ("left", abs(x) < 1e-7), ("right", abs(x - w) < 1e-7)):
            if ok:
                return name
        return None

    cos_max = math.cos(math.radians(max_skew))
    ends = band.boundary.intersection(table.polygon.exterior)
    c = np.array(band.centroid.coords[0])
    parts = [g for g in getattr(ends, "geoms", [ends]) if g.length > 1e-9]
    seen = {"red": False, "blue": False}
    for g in parts:
        coords = list(g.coords)
        for a, b in zip(coords, coords[1:], strict=False):
            seg = LineString([a, b])
            if seg.length < 1e-9:
                continue
            dvec = np.subtract(b, a) / seg.length
            if abs(dvec @ np.array([-u[1], u[0]])) < 1e-9:
                continue  # a band side running along the table edge, not an end
            mid = (np.add(a, b)) / 2
            side, sign = ("red", 1.0) if (mid - c) @ u < 0 else ("blue", -1.0)
            e = edge_of(mid)
            if e is None or np.dot(inward[e], sign * u) < cos_max - 1e-12:
                return False
            cover = edges[side]
            if not any(s.buffer(1e-7).covers(seg) for s in cover):
                # the end may span two abutting segments
                from shapely import union_all
                if not union_all(list(cover)).buffer(1e-7).covers(seg):
                    return False
            seen[side] = True
    return seen["red"] and seen["blue"]


CARD_TABLES = [("default", STD), ("default", SKI), ("gauntlet", STD), ("typhoon", STD),
               ("acropolis", STD), ("proving-grounds", STD), ("breach", STD),
               ("agria-valley", SKI), ("frontier", SKI), ("char-plains", SKI)]


@settings(max_examples=30, deadline=None)
@given(which=st.sampled_from(CARD_TABLES), angle=st.floats(0, 360),
       rects=st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1), st.floats(0.5, 8),
                                st.floats(0.5, 3), st.floats(0, 180)), max_size=6),
       width=st.sampled_from([6.0, 4.0]))
def test_corridors_agree_with_shapely_brute_force(which, angle, rects, width):
    name, table = which
    edges = default_entry_edges(table)[0] if name == "default" else \
        load_deployment(name).entry_edges
    obst = []
    for fx, fy, w, h, a in rects:
        x, y = fx * (table.width - w), fy * (table.depth - h)
        g = affinity.rotate(box(x, y, x + w, y + h), a).intersection(table.polygon)
        if g.area > 1e-6:
            obst.append(g)
    (cors,) = open_corridors(table, edges, obst, np.array([angle]), width)
    phi = math.radians(angle)
    n = np.array([-math.sin(phi), math.cos(phi)])
    proj = [float(n @ p) for p in ((0, 0), (table.width, 0), (0, table.depth),
                                   (table.width, table.depth))]
    eps = 1e-6
    for lo in np.linspace(min(proj) - 1, max(proj) + 1, 120):
        strict = any(a + eps <= lo and lo + width <= b - eps for a, b in cors)
        loose = any(a - eps <= lo and lo + width <= b + eps for a, b in cors)
        got = brute_valid(table, edges, obst, angle, float(lo), width)
        if strict:
            assert got, (lo, cors)
        if not loose:
            assert not got, (lo, cors)


@pytest.mark.parametrize("lid", layout_ids())
def test_reported_lanes_are_witnesses(lid):
    bf = battlefield_by_name(lid)
    f = findings(bf)["9.3 fire lanes"]
    obst = lane_obstacles(bf)
    assert f.ok == (len(f.measured["lanes"]) >= 2)
    for ln in f.measured["lanes"]:
        phi = math.radians(ln["direction_deg"])
        n = np.array([-math.sin(phi), math.cos(phi)])
        lo = float(n @ np.array(ln["from"])) - ln["width"] / 2
        band = lane_polygon(bf.table, ln["direction_deg"], lo, ln["width"])
        assert all(band.intersection(o).area < 1e-9 for o in obst)
    if f.measured["widest"] is not None:
        assert (f.measured["widest"]["width"] >= 6 - 1e-9) == bool(f.measured["lanes"])


# ----------------------------------------------------------------------------- access points

def plateau(ap=True, **kw):
    aps = (box(19.5, 9.5, 20.5, 10.5),) if ap else ()
    return piece("plateau", 3, box(10, 8, 20, 12), standable=True, access_points=aps, **kw)


def test_access_point_reachable_with_a_path():
    bf = Battlefield(STD, (plateau(),))
    r = access_reachability(bf, "plateau")
    assert r["reachable"] and r["access_points"][0]["path_length"] > 0
    f = findings(bf)["9.3 access points"]
    assert f.ok


@pytest.mark.parametrize("kind", ["solid", "grass"])
def test_access_point_walled_in(kind):
    # a U of walls round the access point (grass counts: the guideline says Size 2+)
    walls = (piece("w1", 2, box(20, 7, 24, 8), kind=kind),
             piece("w2", 2, box(23, 8, 24, 12), kind=kind),
             piece("w3", 2, box(20, 12, 24, 13), kind=kind))
    bf = Battlefield(STD, (plateau(), *walls))
    f = findings(bf)["9.3 access points"]
    assert not f.ok and "unreachable: plateau" in f.detail
    # a 1" gap is enough for Size <= 2 models; 0.9" is not
    for gap, ok in ((1.0, True), (0.9, False)):
        w2 = piece("w2", 2, box(23, 8, 24, 12 - gap), kind=kind)
        bf = Battlefield(STD, (plateau(), walls[0], w2, walls[2]))
        assert findings(bf)["9.3 access points"].ok == ok, gap


def test_climbable_piece_without_access_point():
    f = findings(Battlefield(STD, (plateau(ap=False),)))["9.3 access points"]
    assert not f.ok and "0 of 0" in f.detail


# ----------------------------------------------------------------------------- large structures

@pytest.mark.parametrize("gap,ok", [(2.9, False), (3.0, True)])
def test_large_structures_three_inches_apart(gap, ok):
    a = piece("a", 3, box(10, 10, 14, 14))
    b = piece("b", 4, box(14 + gap, 10, 18 + gap, 14))
    f = findings(Battlefield(STD, (a, b)))["12.1 large structures 3\" apart"]
    assert f.ok == ok and f.measured["closest"]["distance"] == pytest.approx(gap)


def test_markers_on_impassable_terrain_finding():
    bf = Battlefield(STD, (piece("w", 2, box(26, 17, 28, 19)),), markers=(Marker(5, (27, 18)),))
    f = findings(bf)["9.3 markers off impassable terrain"]
    assert not f.ok and f.measured["covered"] == [{"marker": 5, "piece": "w"}]
    assert "9.3 markers off impassable terrain" not in findings(Battlefield(STD))


# ----------------------------------------------------------------------------- CLI and docs

def test_cli_contract(capsys):
    assert main(["check-layout", "skirmish-3", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["findings"] and all({"rule", "ok", "detail"} <= set(f) for f in r["findings"])
    assert main(["check-layout", "standard-2", "--deployment", "typhoon", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    lanes = next(f for f in r["findings"] if f["rule"] == "9.3 fire lanes")
    assert lanes["measured"]["entry_edges"] == "typhoon"
    assert main(["check-layout", "standard-2", "--deployment", "frontier"]) == 2
    assert "36x36" in capsys.readouterr().err


def test_docs_show_the_current_findings_of_every_official_layout(capsys):
    docs = DOCS.read_text(encoding="utf-8")
    for lid in layout_ids():
        assert main(["check-layout", lid]) == 0
        out = capsys.readouterr().out.rstrip("\n")
        assert f"$ tmg check-layout {lid}\n{out}\n" in docs, lid
