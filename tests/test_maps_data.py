"""Tests on the map data files only (maps/data): json + shapely, no project loader code.

What is checked, and why each test would fail on wrong data:
* the nine layouts and the catalogue parse, have the right ids, tables and keys;
* every footprint is a valid counter-clockwise polygon on its table;
* every polygon equals an independent re-derivation from the community values kept in
  ``provenance`` (shapely.affinity, not the converter's formula), so a wrong anchor, pivot, rotation
  sense or y flip fails here; the standard maps' point symmetry and the L walls' touching arms are
  checked as well (they fail for a wrong pivot or a wrong rotation sense respectively);
* piece counts equal the rulebook's required-terrain lists (typed in here from the rulebook);
* the overlap report in each layout's notes equals an independent recomputation;
* deployment markers equal the p2p card-sheet table (typed in here), red = 1 and 3, entry edges
  lie on table edges, unavailable cards carry no geometry.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from shapely import affinity
from shapely.geometry import LineString, Polygon, box

DATA = Path(__file__).resolve().parent.parent / "maps" / "data"
LAYOUT_IDS = [f"standard-{i}" for i in range(1, 7)] + [f"skirmish-{i}" for i in range(1, 4)]
TERRAIN_KEYS = {"id", "label", "catalogue", "size", "kind", "polygon", "standable", "on",
                "openings", "access_points"}
KINDS = {"solid", "grass", "ramp", "token", "force-field"}


def load(name: str):
    return json.loads((DATA / name).read_text(encoding="utf-8"))


LAYOUTS = {lid: load(f"layouts/{lid}.json") for lid in LAYOUT_IDS}
CATALOGUE = load("terrain_catalogue.json")
CAT = {c["id"]: c for c in CATALOGUE["pieces"]}
DEPLOY = load("deployments.json")


def poly(coords) -> Polygon:
    return Polygon(coords)


# --------------------------------------------------------------------------------- layouts
def test_layout_files_are_exactly_the_nine():
    files = sorted(p.stem for p in (DATA / "layouts").glob("*.json"))
    assert files == sorted(LAYOUT_IDS)


@pytest.mark.parametrize("lid", LAYOUT_IDS)
def test_layout_header(lid):
    d = LAYOUTS[lid]
    assert d["format"] == "tmg-layout/1"
    assert d["id"] == lid
    want = {"width": 54, "depth": 36} if lid.startswith("standard") else {"width": 36, "depth": 36}
    assert d["table"] == want
    assert "terrainMaps.json" in d["source"] and "ed2611f" in d["source"]
    assert 0 < d["accuracy_in"] <= 1
    assert isinstance(d["notes"], list) and all(isinstance(n, str) for n in d["notes"])
    assert d["terrain"], "no terrain"


def test_terrain_ids_unique_everywhere():
    ids = [t["id"] for d in LAYOUTS.values() for t in d["terrain"]]
    assert len(ids) == len(set(ids))
    for lid, d in LAYOUTS.items():
        assert all(t["id"].startswith(lid + "/") for t in d["terrain"])


@pytest.mark.parametrize("lid", LAYOUT_IDS)
def test_terrain_entries_use_scenario_keys_and_catalogue(lid):
    for t in LAYOUTS[lid]["terrain"]:
        assert set(t) <= TERRAIN_KEYS, set(t) - TERRAIN_KEYS
        assert {"id", "size", "polygon", "kind", "standable"} <= set(t)
        assert t["kind"] in KINDS
        assert isinstance(t["size"], int) and t["size"] >= 0
        assert isinstance(t["standable"], bool)
        c = CAT[t["catalogue"]]
        assert t["size"] == c["size"] and t["kind"] == c["kind"] and t["standable"] == c["standable"]
        assert (t["kind"] == "grass") == t["catalogue"].startswith("shrubs")


@pytest.mark.parametrize("lid", LAYOUT_IDS)
def test_polygons_valid_ccw_on_table(lid):
    d = LAYOUTS[lid]
    W, H = d["table"]["width"], d["table"]["depth"]
    table = box(0, 0, W, H).buffer(d["accuracy_in"], join_style=2)
    strict = box(0, 0, W, H).buffer(1e-6, join_style=2)
    for t in d["terrain"]:
        pts = t["polygon"]
        assert len(pts) >= 4, t["id"]
        assert all(round(v, 3) == v for p in pts for v in p), t["id"]
        g = poly(pts)
        assert g.is_valid and g.area > 0.1, t["id"]
        assert g.exterior.is_ccw, t["id"]
        assert table.contains(g), t["id"]
        assert strict.contains(g), f"{t['id']} is off the table (overhangs must be clipped)"
        for ap in t.get("access_points", []):
            a = poly(ap)
            assert len(ap) >= 4 and a.is_valid and a.exterior.is_ccw and strict.contains(a)
            assert a.intersects(g), f"access point of {t['id']} does not touch it"


def from_provenance(p: dict, depth: float) -> Polygon:
    """Independent re-derivation: the community box (y down, top-left anchor), turned about its
    centre with shapely (positive shapely angle = counter-clockwise in a y-up frame, which in the
    y-down frame is clockwise as seen), then mirrored into our y-up frame."""
    g = box(p["x"], p["y"], p["x"] + p["w"], p["y"] + p["h"])
    g = affinity.rotate(g, p.get("rot", 0) or 0, origin="center")
    return affinity.scale(g, 1, -1, origin=(0, depth / 2))


@pytest.mark.parametrize("lid", LAYOUT_IDS)
def test_polygons_match_provenance(lid):
    d = LAYOUTS[lid]
    W, H = d["table"]["width"], d["table"]["depth"]
    prov = d["provenance"]["pieces"]
    assert set(prov) == {t["id"] for t in d["terrain"]}
    for t in d["terrain"]:
        raw = from_provenance(prov[t["id"]], H)
        want = raw.intersection(box(0, 0, W, H))
        assert poly(t["polygon"]).hausdorff_distance(want) < 0.002, t["id"]
        if raw.difference(box(0, 0, W, H)).area > 1e-6:
            assert any(t["id"] in n and "overhangs" in n for n in d["notes"]), t["id"]


@pytest.mark.parametrize("lid", [f"standard-{i}" for i in range(1, 7)])
def test_standard_maps_point_symmetric(lid):
    """Every piece has a twin turned 180° about the table centre (fails for a wrong pivot)."""
    d = LAYOUTS[lid]
    W, H = d["table"]["width"], d["table"]["depth"]
    prov = d["provenance"]["pieces"]
    raw = {t["id"]: from_provenance(prov[t["id"]], H) for t in d["terrain"]}
    for t in d["terrain"]:
        img = affinity.rotate(raw[t["id"]], 180, origin=(W / 2, H / 2))
        best = min(img.hausdorff_distance(raw[u["id"]]) for u in d["terrain"]
                   if u["label"] == t["label"])
        assert best < 0.05, (t["id"], best)


def test_rotation_sense_l_arms_touch():
    """Both arms of every L wall touch.  Map 5 turns its L walls by non-right angles, so the
    opposite rotation sense would pull its arms 0.7-1.0 in apart."""
    for d in LAYOUTS.values():
        T = {t["id"]: t for t in d["terrain"]}
        for g in d["groups"]:
            a, b = (poly(T[i]["polygon"]) for i in g["parts"])
            assert a.distance(b) < 1e-3, g["id"]
            assert {T[i]["label"].rsplit("— ", 1)[1] for i in g["parts"]} == {"long side",
                                                                                 "short side"}
    # and with the opposite sense they would not: a control on the test itself
    d = LAYOUTS["standard-5"]
    H = d["table"]["depth"]
    prov = d["provenance"]["pieces"]

    def flipped(p):
        q = dict(p)
        q["rot"] = -(p.get("rot", 0) or 0)
        return from_provenance(q, H)

    gaps = [flipped(prov[a]).distance(flipped(prov[b])) for a, b in
            (g["parts"] for g in d["groups"])]
    assert max(gaps) > 0.5


# Required terrain, typed in from core-rulebook-ko.txt ("맵 레이아웃", lines 4240-4264).
STD = {"head-statue": 2, "statue-shard": 2, "vespene-geyser": 2, "shrubs-a": 4, "shrubs-b": 4,
       "protoss-banner": 2, "temple-obelisk": 2, "wall-set-1": 2, "wall-set-2": 2, "wall-set-3": 2,
       "wall-set-4": 2, "wall-set-5": 2, "wall-set-6": 2}
SKI = {k: v // 2 for k, v in STD.items()}
RULEBOOK_REQUIRED = {"standard-1": STD, "standard-5": {**STD, "lost-temple-ramp": 2},
                     "skirmish-1": SKI, "skirmish-3": {**SKI, "lost-temple-ramp": 1}}


def piece_counts(d) -> dict[str, int]:
    """Physical pieces per catalogue entry: an L wall's two arms count once."""
    grouped = {i for g in d["groups"] for i in g["parts"]}
    counts: dict[str, int] = {}
    for t in d["terrain"]:
        if t["id"] not in grouped:
            counts[t["catalogue"]] = counts.get(t["catalogue"], 0) + 1
    for g in d["groups"]:
        counts[g["catalogue"]] = counts.get(g["catalogue"], 0) + 1
    return counts


@pytest.mark.parametrize("lid", LAYOUT_IDS)
def test_required_terrain(lid):
    d = LAYOUTS[lid]
    if lid in RULEBOOK_REQUIRED:
        want = RULEBOOK_REQUIRED[lid]
        assert {r["catalogue"]: r["count"] for r in d["required_terrain"]} == want
        assert piece_counts(d) == want
        assert sum(want.values()) in (30, 32, 15, 16)
    else:
        assert d["required_terrain"] is None


def test_groups_are_l_walls_only():
    for d in LAYOUTS.values():
        seen = [i for g in d["groups"] for i in g["parts"]]
        assert len(seen) == len(set(seen))
        ls = {t["id"] for t in d["terrain"] if "(L)" in t["label"]}
        assert set(seen) == ls


def depth_sampled(a: Polygon, b: Polygon, n: int = 7200) -> float:
    """Penetration depth by brute force over sampled directions (convex pieces)."""
    best = math.inf
    pa, pb = list(a.exterior.coords), list(b.exterior.coords)
    for k in range(n):
        t = math.pi * k / n
        ux, uy = math.cos(t), math.sin(t)
        A = [x * ux + y * uy for x, y in pa]
        B = [x * ux + y * uy for x, y in pb]
        best = min(best, max(0.0, min(max(A) - min(B), max(B) - min(A))))
    return best


@pytest.mark.parametrize("lid", LAYOUT_IDS)
def test_overlap_report_matches_recomputation(lid):
    d = LAYOUTS[lid]
    acc = d["accuracy_in"]
    T = d["terrain"]
    same_l = {frozenset(g["parts"]) for g in d["groups"]}
    flagged = {frozenset((o["a"], o["b"])) for o in d["overlaps"] if o["beyond_accuracy"]}
    imp = [t for t in T if t["size"] >= 2 and t["kind"] != "grass"]
    for i, a in enumerate(imp):
        for b in imp[i + 1:]:
            pair = frozenset((a["id"], b["id"]))
            if pair in same_l:
                continue
            ga, gb = poly(a["polygon"]), poly(b["polygon"])
            assert ga.convex_hull.area - ga.area < 1e-6 and gb.convex_hull.area - gb.area < 1e-6
            dep = depth_sampled(ga, gb) if ga.intersects(gb) else 0.0
            if dep > acc + 0.01:
                assert pair in flagged, (a["id"], b["id"], dep)
                assert any(a["id"] in n and b["id"] in n and "overlap" in n for n in d["notes"])
            elif dep < acc - 0.01:
                assert pair not in flagged, (a["id"], b["id"], dep)
    assert any(n.startswith("overlap report") for n in d["notes"])


def test_catalogue():
    assert CATALOGUE["format"] == "tmg-terrain-catalogue/1"
    want = {f"wall-set-{i}" for i in range(1, 7)} | {
        "head-statue", "statue-shard", "vespene-geyser", "shrubs-a", "shrubs-b", "protoss-banner",
        "temple-obelisk", "lost-temple-ramp"}
    assert set(CAT) == want
    for c in CATALOGUE["pieces"]:
        assert {"id", "name", "name_ko", "size", "kind", "footprint", "source"} <= set(c)
        assert c["footprint"]["w"] > 0 and c["footprint"]["d"] > 0
        assert "height_in" in c and c["height_in"] is None
    assert CAT["lost-temple-ramp"]["size"] == 3 and CAT["lost-temple-ramp"]["standable"]
    assert CAT["shrubs-a"]["kind"] == "grass" and CAT["wall-set-2"]["size"] == 2
    used = {t["catalogue"] for d in LAYOUTS.values() for t in d["terrain"]}
    assert used == want


# ------------------------------------------------------------------------------ deployments
# The p2p card-sheet table (deployment-cards.p2p.md), typed in: y up, origin bottom-left.
P2P_MARKERS = {
    "gauntlet": {1: (12, 24), 3: (36, 24), 4: (18, 12), 2: (42, 12), 5: (27, 18)},
    "typhoon": {1: (18, 24), 2: (6, 30), 3: (48, 6), 4: (36, 12), 5: (27, 18)},
    "acropolis": {1: (12, 24), 2: (42, 24), 3: (42, 12), 4: (12, 12), 5: (27, 18)},
    "breach": {1: (18, 30), 2: (36, 30), 3: (36, 6), 4: (18, 6), 5: (27, 18)},
    "proving-grounds": {1: (12, 24), 3: (42, 24), 5: (27, 24), 4: (18, 12), 2: (36, 12)},
    "abandoned-camp": {1: (6, 18), 2: (30, 18), 5: (18, 18)},
    "agria-valley": {1: (6, 6), 2: (30, 30), 5: (18, 18)},
    "dirt-side": {1: (6, 18), 2: (30, 18), 5: (18, 18)},
    "frontier": {1: (6, 6), 2: (30, 30), 5: (18, 18)},
    "char-plains": {1: (6, 6), 2: (6, 30), 5: (24, 18)},
}
NAMES_KO = {"gauntlet": "협공로", "typhoon": "태풍", "acropolis": "아크로폴리스",
            "proving-grounds": "시험장", "breach": "돌파구", "encounter": "조우전",
            "abandoned-camp": "버려진 야영지", "agria-valley": "아그리아 계곡",
            "dirt-side": "행성 지표", "frontier": "변경", "char-plains": "차 평원",
            "green-valley": "녹색 계곡"}
STANDARD = {"gauntlet", "typhoon", "acropolis", "proving-grounds", "breach", "encounter"}
CARDS = {c["id"]: c for c in DEPLOY["cards"]}


def test_twelve_cards():
    assert DEPLOY["format"] == "tmg-deployments/1"
    assert len(DEPLOY["cards"]) == 12 and set(CARDS) == set(NAMES_KO)
    for cid, c in CARDS.items():
        assert c["name_ko"] == NAMES_KO[cid]
        want = {"width": 54, "depth": 36} if cid in STANDARD else {"width": 36, "depth": 36}
        assert c["table"] == want, cid
        assert c["zone_depth"] == 6
        assert isinstance(c["disagreements"], list) and c["sources"]
        assert c["available"] == (cid in P2P_MARKERS)


def test_unavailable_cards_have_no_geometry():
    for cid in ("encounter", "green-valley"):
        c = CARDS[cid]
        assert c["available"] is False
        assert c["entry_edges"] is None and c["markers"] is None
        assert c.get("zones_of_influence") is None


@pytest.mark.parametrize("cid", sorted(P2P_MARKERS))
def test_markers_equal_p2p(cid):
    c = CARDS[cid]
    got = {m["id"]: tuple(m["at"]) for m in c["markers"]}
    assert got == {k: (float(x), float(y)) for k, (x, y) in P2P_MARKERS[cid].items()}
    for m in c["markers"]:
        assert m["colour"] == {1: "red", 3: "red", 2: "blue", 4: "blue", 5: "neutral"}[m["id"]]
    ids = sorted(got)
    assert ids == ([1, 2, 5] if cid not in STANDARD else [1, 2, 3, 4, 5])
    W, H = c["table"]["width"], c["table"]["depth"]
    assert all(0 < x < W and 0 < y < H for x, y in got.values())


@pytest.mark.parametrize("cid", sorted(P2P_MARKERS))
def test_entry_edges_on_table_edges(cid):
    c = CARDS[cid]
    W, H = c["table"]["width"], c["table"]["depth"]
    for colour in ("red", "blue"):
        segs = c["entry_edges"][colour]
        assert segs
        for (x1, y1), (x2, y2) in segs:
            assert (x1, y1) != (x2, y2)
            assert all(0 <= x <= W for x in (x1, x2)) and all(0 <= y <= H for y in (y1, y2))
            assert (y1 == y2 and y1 in (0, H)) or (x1 == x2 and x1 in (0, W)), (cid, colour)
    # red and blue edges never share a stretch of edge
    red = [LineString(s) for s in c["entry_edges"]["red"]]
    blue = [LineString(s) for s in c["entry_edges"]["blue"]]
    assert all(r.intersection(b).length < 1e-9 for r in red for b in blue), cid


def test_specific_edges():
    e = {cid: c["entry_edges"] for cid, c in CARDS.items() if c["available"]}
    assert e["gauntlet"]["red"] == [[[0, 36], [54, 36]]]
    assert e["breach"]["red"] == [[[54, 0], [54, 36]]]
    assert sorted(e["typhoon"]["red"]) == [[[30, 36], [54, 36]], [[54, 18], [54, 36]]]
    assert e["proving-grounds"]["blue"] == [[[18, 36], [36, 36]]]
    assert e["abandoned-camp"]["red"] == [[[0, 0], [36, 0]]]
    assert e["dirt-side"] == e["agria-valley"]  # p2p reading (community disagrees: recorded)


def test_disagreements_recorded():
    assert any("community" in s for s in CARDS["dirt-side"]["disagreements"])
    assert any("right edge" in s for s in CARDS["char-plains"]["disagreements"])
    assert any("Korean" in s for s in CARDS["abandoned-camp"]["disagreements"])


def test_quarters():
    q = DEPLOY["quarters"]
    for scale, W in (("standard", 54), ("skirmish", 36)):
        s = q[scale]
        assert s["centre"] == [W / 2, 18]
        polys = [poly(p["polygon"]) for p in s["quarters"]]
        assert len(polys) == 4 and all(p.is_valid for p in polys)
        assert abs(sum(p.area for p in polys) - W * 36) < 1e-9
        assert all(abs(p.area - W * 36 / 4) < 1e-9 for p in polys)
