#!/usr/bin/env python3
"""Convert the public reference data into tmg-geometry's own map data files.

NOT part of the package (``maps/data`` has no ``__init__``; nothing imports this file).
It is kept so that the provenance of every figure in ``maps/data`` can be reproduced:

    /work/venv/bin/python maps/data/_convert.py [REFERENCE_DIR]

REFERENCE_DIR is the folder of reference exports (default: ``DEFAULT_REF`` below); it must hold
(each file's origin is listed in that folder's SOURCES.md):

* ``terrain-maps.community.json``  phyersherman/sc-tmg-coop-tabletop src/data/terrainMaps.json @ed2611f
* ``deployments.community.json``   phyersherman/sc-tmg-coop-tabletop src/data/deployments.json @ed2611f
* ``deployments-ko/*.json``         Andrea4595/StarcraftTMG_Simulator Deployments/*.json @d5acb40
* ``deployment-cards.p2p.md``       reading of the official print-and-play card sheets (PRIMARY for cards)

It writes ``maps/data/layouts/<id>.json``, ``maps/data/terrain_catalogue.json`` and
``maps/data/deployments.json``.  Running it twice gives byte-identical files.

Coordinate conversion (determined, then verified; see ``COORDINATES`` below and the layout notes):

* community terrain pieces: ``x, y`` = top-left corner of the UNROTATED ``w x h`` box in a y-DOWN
  frame (N = top edge, y = 0); ``rot`` = degrees about the box CENTRE, positive = clockwise as seen
  (the SVG/screen convention: corner = c + (dx cos r - dy sin r, dx sin r + dy cos r) with y down).
  Evidence: (1) the community renderer/engine (src/engine/terrain/geometry.ts ``pieceCorners``,
  TableMap.tsx ``rotate(rot cx cy)``) uses exactly this; (2) independently, every standard map is
  point-symmetric about the table centre to 0.01" only with the top-left anchor + centre pivot;
  (3) the rotation SENSE is fixed by pieces drawn to meet: with clockwise-positive every L-wall's two
  arms on map 5 and the abutting walls on maps 1-3 touch/overlap, with the opposite sense they open
  gaps of 0.7-1.3".
* our frame: y UP, origin bottom-left: ``X = x``, ``Y = H - y``.  A clockwise-positive angle in the
  y-down frame is a clockwise turn on the table, i.e. a mathematically NEGATIVE angle in the y-up frame.
  Polygons are re-oriented counter-clockwise after the flip.
* community deployments: y down, N = top edge (y = 0), W/E ``from``/``to`` measured from the top.
* Korean simulator deployments: millimetres (/25.4); x/y of markers used as given (y up); the
  simulator draws edge "top" at y = 0 and "bottom" at y = depth (BoardManager.DeploymentZoneVisuals.cs,
  CornerToCenterMm does not flip y, Unity UI is y-up), so in our frame its "top" is our BOTTOM edge.
  Player A is taken as red (this is the only reading under which any of its files matches the other
  sources; the files themselves do not say).
"""

from __future__ import annotations

import itertools
import json
import math
import re
import sys
from pathlib import Path

from shapely.geometry import Point, Polygon, box
from shapely.geometry.polygon import orient

HERE = Path(__file__).resolve().parent  # maps/data
CHECKOUT = HERE.parent.parent
sys.path.insert(0, str(CHECKOUT))
from formats.atomic import write_text  # noqa: E402  (the checkout's, run as a script)

DEFAULT_REF = CHECKOUT.parent / "shared" / "reference"

ACCURACY_IN = 0.5  # stated transcription accuracy of the community map positions (inches)
ROUND = 3  # polygon coordinates rounded to 0.001"
MARKER_RADIUS_IN = 16 / 25.4  # mission markers are 32 mm discs (§7.3.2)
COMMUNITY_COMMIT = "ed2611f1be7282e3a5f740bf1c430504c9f8a848"
KO_COMMIT = "d5acb4071fa1977ee336264cf9f4d604683bfd67"

COORDINATES = {
    "frame": "inches; origin bottom-left of the table with the card title upright; x along the long "
    "edge (0..width), y up along the short edge (0..depth)",
    "from_community_terrain": "x,y = top-left corner of the unrotated w x h box in a y-down frame "
    "(N = top); rot = degrees about the box centre, positive = clockwise as seen; converted by "
    "computing the four corners in the y-down frame, then X = x, Y = depth - y, then orienting "
    "counter-clockwise",
    "verified_by": [
        "community code src/engine/terrain/geometry.ts pieceCorners and TableMap.tsx rotate(rot cx cy) "
        "use this convention",
        "standard maps 1-6 are point-symmetric about (27,18) to 0.01\" with this anchor and pivot "
        "(a centre anchor or a corner pivot breaks the symmetry)",
        "rotation sense: with clockwise-positive the two arms of every rotated L wall (map 5) and the "
        "walls drawn to abut (maps 1-3) touch; the opposite sense opens 0.7-1.3\" gaps",
    ],
}

# ----------------------------------------------------------------------------------------------
# Terrain catalogue.  Sizes and footprints: phyersherman/sc-tmg-coop-tabletop
# src/data/terrainCatalog.ts @ed2611f (which says "footprints and Size values as published in the
# Command Center map editor" -- not verified here).  L-wall arms: the same file @8db26b5.
# Korean names: the rulebook's required-terrain lists (core-rulebook-ko.txt, "맵 레이아웃").
# ----------------------------------------------------------------------------------------------
CATALOGUE_SRC = (
    f"phyersherman/sc-tmg-coop-tabletop src/data/terrainCatalog.ts @{COMMUNITY_COMMIT[:7]} "
    "(its own claim: 'footprints and Size values as published in the Command Center map editor', "
    "not verified)"
)
CATALOGUE = [
    # id, name, name_ko, community catalogId, size, grass, w, d, label prefix in terrainMaps.json
    ("wall-set-1", "Wall Set 1", "벽 세트 1", "lt-wall-i-2", 2, False, 7.0, 1.2, "Wall Set 1"),
    ("wall-set-2", "Wall Set 2", "벽 세트 2", "lt-wall-i-3", 2, False, 8.7, 2.2, "Wall Set 2"),
    ("wall-set-3", "Wall Set 3", "벽 세트 3", "lt-wall-i-1", 2, False, 5.1, 1.7, "Wall Set 3"),
    ("wall-set-4", "Wall Set 4 (L)", "벽 세트 4", "lt-wall-l-1", 2, False, 7.5, 4.0, "Wall Set 4 (L)"),
    ("wall-set-5", "Wall Set 5 (L)", "벽 세트 5", "lt-wall-l-2", 2, False, 7.5, 4.0, "Wall Set 5 (L)"),
    ("wall-set-6", "Wall Set 6", "벽 세트 6", "lt-wall-short", 2, False, 3.2, 1.0, "Wall Set 6"),
    ("head-statue", "Head Statue", "두상 석상", "lt-scatter-1", 1, False, 4.2, 2.9, "Head Statue"),
    ("statue-shard", "Statue Shard (Statue Fragment)", "석상 파편", "lt-scatter-2", 1, False, 3.2, 2.6,
     "Statue Shard"),
    ("vespene-geyser", "Vespene Geyser", "베스핀 가스 간헐천", "lt-scatter-3", 1, False, 3.0, 2.0,
     "Vespene Geyser"),
    ("protoss-banner", "Protoss Banner", "프로토스 깃발", "lt-scatter-4", 1, False, 1.8, 0.8,
     "Protoss Banner"),
    ("temple-obelisk", "Temple Obelisk", "사원 오벨리스크", "lt-scatter-5", 1, False, 1.2, 1.2,
     "Temple Obelisk"),
    ("shrubs-a", "Shrubs A", "관목 A", "lt-grass-1", 2, True, 2.8, 1.3, "Shrubs A"),
    ("shrubs-b", "Shrubs B", "관목 B", "lt-grass-1", 2, True, 2.8, 1.3, "Shrubs B"),
    ("lost-temple-ramp", "Lost Temple Ramp", "잃어버린 사원 경사로", "lt-ramp", 3, False, 15.9, 8.15,
     "Lost Temple Ramp"),
]
L_ARMS = {  # terrainCatalog.ts @8db26b5: offsets from the box's top-left corner, y DOWN, inches
    "wall-set-4": [{"x": 0, "y": 0.5, "w": 6.6, "h": 1.4}, {"x": 6.2, "y": 0.5, "w": 1.3, "h": 3.5}],
    "wall-set-5": [{"x": 0, "y": 0, "w": 7.5, "h": 1.4}, {"x": 0, "y": 0, "w": 1.3, "h": 4}],
}

# Required terrain, as printed under the map headings of the rulebook's "맵 레이아웃" section
# (core-rulebook-ko.txt lines 4240, 4250, 4258, 4264).  Only these four maps carry a list.
_STD = [("head-statue", 2), ("statue-shard", 2), ("vespene-geyser", 2), ("shrubs-a", 4),
        ("shrubs-b", 4), ("protoss-banner", 2), ("temple-obelisk", 2)] + [
    (f"wall-set-{i}", 2) for i in range(1, 7)]
_SKI = [(c, n // 2) for c, n in _STD]
REQUIRED = {
    "standard-1": _STD,
    "standard-5": _STD + [("lost-temple-ramp", 2)],
    "skirmish-1": _SKI,
    "skirmish-3": _SKI + [("lost-temple-ramp", 1)],
}
REQUIRED_LINE = {"standard-1": 4240, "standard-5": 4250, "skirmish-1": 4258, "skirmish-3": 4264}
# the list a map without its own list is compared with (information only, not a rulebook statement)
NEAREST_LIST = {"standard-2": "standard-1", "standard-3": "standard-1", "standard-4": "standard-1",
                "standard-6": "standard-5", "skirmish-2": "skirmish-1"}


def r3(v: float) -> float:
    out = round(v + 0.0, ROUND)
    return 0.0 if out == 0 else out


def community_corners(p: dict) -> list[tuple[float, float]]:
    """Corners of a community piece in ITS frame (y down), as its own pieceCorners() computes them."""
    cx, cy = p["x"] + p["w"] / 2, p["y"] + p["h"] / 2
    a = math.radians(p.get("rot", 0) or 0)
    out = []
    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        dx, dy = sx * p["w"] / 2, sy * p["h"] / 2
        out.append((cx + dx * math.cos(a) - dy * math.sin(a), cy + dx * math.sin(a) + dy * math.cos(a)))
    return out


def to_yup(pts, depth):
    return [(x, depth - y) for x, y in pts]


def poly_json(g: Polygon) -> list[list[float]]:
    g = orient(g, 1.0)
    coords = list(g.exterior.coords)[:-1]
    # start at the lowest-then-leftmost vertex so the output is stable
    k = min(range(len(coords)), key=lambda i: (round(coords[i][1], 6), round(coords[i][0], 6)))
    coords = coords[k:] + coords[:k]
    out: list[list[float]] = []
    for x, y in coords:
        q = [r3(x), r3(y)]
        if not out or q != out[-1]:
            out.append(q)
    if out[0] == out[-1]:
        out.pop()
    return out


def penetration(a: Polygon, b: Polygon) -> float:
    """Penetration depth of two CONVEX polygons (separating-axis theorem): the shortest distance one
    must be moved to stop the interiors overlapping; 0 if they do not overlap."""
    pa = list(a.exterior.coords)[:-1]
    pb = list(b.exterior.coords)[:-1]
    best = math.inf
    for pts in (pa, pb):
        for (x1, y1), (x2, y2) in zip(pts, pts[1:] + pts[:1], strict=True):
            nx, ny = y2 - y1, x1 - x2
            n = math.hypot(nx, ny)
            if n < 1e-12:
                continue
            nx, ny = nx / n, ny / n
            A = [x * nx + y * ny for x, y in pa]
            B = [x * nx + y * ny for x, y in pb]
            o = min(max(A) - min(B), max(B) - min(A))
            if o <= 0:
                return 0.0
            best = min(best, o)
    return best


# ----------------------------------------------------------------------------------------------
# Layouts
# ----------------------------------------------------------------------------------------------
def catalogue_for(label: str) -> str:
    for cid, _n, _k, _c, _s, _g, _w, _d, prefix in CATALOGUE:
        if label == prefix or label.startswith(prefix + " —"):
            return cid
    raise ValueError(f"no catalogue entry for label {label!r}")


CAT = {c[0]: c for c in CATALOGUE}


def convert_layouts(ref: Path, cards: list[dict]) -> list[dict]:
    src = json.loads((ref / "terrain-maps.community.json").read_text(encoding="utf-8"))
    layouts = []
    for k, m in enumerate(src["maps"], start=1):
        std = m["scale"] == "standard"
        lid = f"standard-{k}" if std else f"skirmish-{k - 6}"
        num = k if std else k - 6
        W, H = m["table"]["width"], m["table"]["height"]
        table = box(0, 0, W, H)
        notes: list[str] = []
        terrain, prov, shapes, unclipped = [], {}, {}, {}
        for p in m["pieces"]:
            tid = f"{lid}/{p['n']:02d}"
            cid = catalogue_for(p["label"])
            c = CAT[cid]
            assert p["catalogId"] == c[3], (tid, p["catalogId"], c[3])
            assert p["size"] == c[4] and p["grass"] == c[5], tid
            raw = Polygon(to_yup(community_corners(p), H))
            assert raw.is_valid
            unclipped[tid] = raw
            g = raw
            over = raw.difference(table).area
            if over > 1e-9:
                # how far the piece reaches past the table edge
                minx, miny, maxx, maxy = raw.bounds
                reach = max(-minx, -miny, maxx - W, maxy - H)
                g = raw.intersection(table)
                notes.append(
                    f"{tid} ({p['label']}) overhangs the table edge by {reach:.2f}\" in the "
                    f"transcription ({'more' if reach > ACCURACY_IN else 'not more'} than the "
                    f"{ACCURACY_IN}\" accuracy); its polygon is clipped to the table (the overhang "
                    "is outside the playing area)")
            shapes[tid] = g
            entry = {
                "id": tid,
                "label": p["label"],
                "catalogue": cid,
                "size": p["size"],
                "kind": "grass" if p["grass"] else "solid",
                "polygon": poly_json(g),
                "standable": cid == "lost-temple-ramp",
            }
            if p.get("accessPoints"):
                aps = []
                a = math.radians(p.get("rot", 0) or 0)
                for ap in p["accessPoints"]:
                    cx, cy = ap["x"], ap["y"]
                    sq = []
                    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                        dx, dy = sx * ACCURACY_IN, sy * ACCURACY_IN
                        sq.append((cx + dx * math.cos(a) - dy * math.sin(a),
                                   cy + dx * math.sin(a) + dy * math.cos(a)))
                    aps.append(poly_json(Polygon(to_yup(sq, H)).intersection(table)))
                entry["access_points"] = aps
            terrain.append(entry)
            prov[tid] = {k2: p[k2] for k2 in ("n", "catalogId", "label", "x", "y", "w", "h", "rot",
                                                "accessPoints") if k2 in p}

        # Stacking (§7.1.2): a piece lying on a standable top (its footprint within the top's)
        # stands on it, so its effective size adds the top's (Temple Obelisks on the Lost
        # Temple Ramps of standard map 5). Inferred from the geometry; said in the notes
        # (docs/rules.md#obelisks).
        for t in terrain:
            if t["standable"]:
                continue
            for top in terrain:
                if top is t or not top["standable"]:
                    continue
                inside = shapes[t["id"]].intersection(shapes[top["id"]]).area
                if inside >= 0.99 * shapes[t["id"]].area:
                    t["on"] = top["id"]
                    notes.append(
                        f"{t['id']} ({t['label']}) lies within the top of {top['id']} "
                        f"({top['label']}): stored as standing on it (`on`), so its effective "
                        "size adds the top's (§7.1.2); inferred from the footprints, the source "
                        "does not say")
                    break

        # L walls: pair each long side with the short side of the same set that it touches
        groups = []
        longs = [t for t in terrain if t["label"].endswith("long side")]
        shorts = [t for t in terrain if t["label"].endswith("short side")]
        used = set()
        for i, t in enumerate(longs, start=1):
            cands = [s for s in shorts if s["catalogue"] == t["catalogue"] and s["id"] not in used]
            s = min(cands, key=lambda s: shapes[s["id"]].distance(shapes[t["id"]]))
            d = shapes[s["id"]].distance(shapes[t["id"]])
            assert d < ACCURACY_IN, (t["id"], s["id"], d)
            used.add(s["id"])
            groups.append({"id": f"{lid}/L{i}", "catalogue": t["catalogue"],
                           "parts": sorted([t["id"], s["id"]]),
                           "note": "the two arms of one L-shaped wall, transcribed as two rectangles"})
        assert len(used) == len(shorts)
        in_group = {pid: g["id"] for g in groups for pid in g["parts"]}

        # counts per catalogue entry (an L wall counts once)
        counts: dict[str, int] = {}
        for t in terrain:
            if t["label"].endswith("short side"):
                continue
            counts[t["catalogue"]] = counts.get(t["catalogue"], 0) + 1

        req = REQUIRED.get(lid)
        if req:
            required = [{"catalogue": c, "name": CAT[c][1], "name_ko": CAT[c][2], "count": n}
                        for c, n in req]
            want = dict(req)
            diff = {c: (counts.get(c, 0), want.get(c, 0)) for c in set(counts) | set(want)
                    if counts.get(c, 0) != want.get(c, 0)}
            notes.append(
                f"required terrain (rulebook, core-rulebook-ko.txt line {REQUIRED_LINE[lid]}): "
                + ("piece counts match the list" if not diff else f"MISMATCH {diff}"))
        else:
            required = None
            other = NEAREST_LIST[lid]
            want = dict(REQUIRED[other])
            same = all(counts.get(c, 0) == want.get(c, 0) for c in set(counts) | set(want))
            notes.append(
                f"the rulebook prints no required-terrain list under this map (lists appear only "
                f"under standard maps 1 and 5 and skirmish maps 1 and 3); for information, its "
                f"pieces {'equal' if same else 'DIFFER from'} the list printed for {other}")

        # overlaps between impassable pieces (Size >= 2, not grass): convex footprints -> SAT depth
        overlaps = []
        other_overlaps = []
        ids = [t["id"] for t in terrain]
        tmap = {t["id"]: t for t in terrain}
        for a_id, b_id in itertools.combinations(ids, 2):
            ga, gb = shapes[a_id], shapes[b_id]
            if not ga.intersects(gb):
                continue
            area = ga.intersection(gb).area
            if area <= 1e-9:
                continue
            depth = penetration(ga, gb)
            ta, tb = tmap[a_id], tmap[b_id]
            same_l = in_group.get(a_id) is not None and in_group.get(a_id) == in_group.get(b_id)
            rec = {"a": a_id, "b": b_id, "depth_in": r3(depth), "area_sq_in": r3(area)}
            imp = all(t["size"] >= 2 and t["kind"] != "grass" for t in (ta, tb))
            if same_l:
                continue
            if imp:
                rec["beyond_accuracy"] = depth > ACCURACY_IN
                overlaps.append(rec)
            elif depth > ACCURACY_IN:
                other_overlaps.append(rec)
        beyond = [o for o in overlaps if o["beyond_accuracy"]]
        for o in beyond:
            if tmap[o["a"]]["catalogue"] == tmap[o["b"]]["catalogue"] == "lost-temple-ramp":
                notes.append(
                    f"{o['a']} and {o['b']} are two Lost Temple Ramps set end to end; the community "
                    "app says two ramp pieces set together as on this map 'interlock with their "
                    "ramps on opposite sides', so the real outlines are not the full rectangles "
                    "stored here; the overlap region is uncertain")
            notes.append(
                f"overlapping impassable pieces: {o['a']} ({tmap[o['a']]['label']}) and {o['b']} "
                f"({tmap[o['b']]['label']}) overlap {o['depth_in']}\" deep "
                f"({o['area_sq_in']} sq in), more than the {ACCURACY_IN}\" accuracy")
        notes.append(
            f"overlap report (computed by maps/data/_convert.py, SAT penetration depth of the "
            f"footprints): {len(beyond)} pair(s) of impassable (Size>=2, non-grass) pieces overlap "
            f"by more than {ACCURACY_IN}\"; {len(overlaps) - len(beyond)} further pair(s) overlap "
            f"by at most {ACCURACY_IN}\" (pieces drawn touching); the two arms of each L wall are "
            "not counted")
        if other_overlaps:
            notes.append(
                "overlaps deeper than the accuracy involving a Size-1 or grass piece: "
                + "; ".join(f"{o['a']}×{o['b']} {o['depth_in']}\"" for o in other_overlaps))

        # access points that lie inside another impassable piece (unreachable as transcribed)
        for t in terrain:
            for ap in t.get("access_points", []):
                c = Polygon(ap).centroid
                inside = [u["id"] for u in terrain if u["id"] != t["id"] and u["size"] >= 2
                          and u["kind"] != "grass" and shapes[u["id"]].contains(c)]
                if inside:
                    notes.append(
                        f"the access point of {t['id']} at ({c.x:.2f}, {c.y:.2f}) lies inside "
                        f"{', '.join(inside)}: as transcribed it cannot be reached from ground "
                        "level (§9.3 asks for an access point reachable without crossing other "
                        "Size-2+ terrain)")

        # symmetry (a check of the transcription and of the conversion)
        if std:
            worst = 0.0
            for t in terrain:
                ga = unclipped[t["id"]]
                img = Polygon([(W - x, H - y) for x, y in ga.exterior.coords])
                worst = max(worst, min(img.hausdorff_distance(unclipped[u["id"]]) for u in terrain
                                       if u["catalogue"] == t["catalogue"]
                                       and u["label"] == t["label"]))
            notes.append(
                f"the transcription is point-symmetric about the table centre to {worst:.3f}\" "
                "(every piece has a twin turned 180°)")
            notes.append(
                "the rulebook prints standard maps upright (portrait); the community transcription "
                "turned them onto the 54\"×36\" table without recording which way; the map is "
                "point-symmetric, so both turns give the same table")
        else:
            notes.append(
                "skirmish map: orientation as transcribed (rulebook page top = our y = 36 edge); "
                "not checkable by symmetry (one of each piece)")
        if any(t["catalogue"] == "lost-temple-ramp" for t in terrain):
            notes.append(
                "Lost Temple Ramp: one Size-3 standable footprint (high-ground plateau). The source "
                "gives only one access point, at the middle of one short end; it is stored as a "
                f"{2 * ACCURACY_IN}\"-square around that point (the point at the stated accuracy). "
                "The ramp lane itself (Size-1 mid ground, §8.5.3) is NOT modelled: no source gives "
                "its width, length or which long side it runs along (the community app's lane is "
                "its own assumption)")
        notes.append(
            "footprint sizes are as transcribed for this map and differ from the catalogue "
            "footprint by up to " + f"{max_dim_dev(m):.2f}\"" + " (see terrain_catalogue.json "
            "map_footprints)")

        # mission markers of the cards for this table that land on impassable terrain (§9.3)
        for card in cards:
            if not card["available"] or card["table"]["width"] != W:
                continue
            for mk in card["markers"]:
                disc = Point(mk["at"]).buffer(MARKER_RADIUS_IN, 64)
                hit = [t["id"] for t in terrain if t["size"] >= 2 and t["kind"] != "grass"
                       and not t["standable"] and shapes[t["id"]].intersection(disc).area > 1e-9]
                if hit:
                    notes.append(
                        f"with deployment {card['id']}, marker {mk['id']} at {mk['at']} overlaps "
                        f"impassable {', '.join(hit)}: §9.3 says move the terrain, never the marker")

        layouts.append({
            "format": "tmg-layout/1",
            "id": lid,
            "name": f"{'Standard' if std else 'Skirmish'} map {num}",
            "name_ko": f"{'표준 교전' if std else '소규모 교전'} 지도 {num}",
            "table": {"width": W, "depth": H},
            "source": (f"community transcription of the rulebook map pages, "
                       f"phyersherman/sc-tmg-coop-tabletop src/data/terrainMaps.json "
                       f"@{COMMUNITY_COMMIT}, map {m['id']}, page {m['page']}"),
            "accuracy_in": ACCURACY_IN,
            "accuracy_basis": (
                "estimate: positions read off the printed map (6\" grid) by the community author; "
                "the standard maps' internal point symmetry holds to 0.01\", which bounds the "
                "rounding but not a common reading error; per-map footprint sizes differ from the "
                "catalogue footprints (see notes)"),
            "coordinates": COORDINATES,
            "required_terrain": required,
            "terrain": terrain,
            "groups": groups,
            "overlaps": overlaps,
            "notes": notes,
            "provenance": {"frame": "community values verbatim: y DOWN, x,y = top-left of the "
                                    "unrotated box, rot about the box centre, clockwise-positive",
                           "pieces": prov},
            "standable_basis": (
                "rulebook §8.5.3: only horizontal terrain gives an elevation; the Lost Temple Ramp is "
                "the only piece any source describes with a top to stand on (the community catalogue's "
                "'Size 3 plateau'); walls, statues, banner, obelisk, geyser and shrubs are marked not "
                "standable (no source describes a horizontal top)"),
        })
    return layouts


def max_dim_dev(m: dict) -> float:
    dev = 0.0
    for p in m["pieces"]:
        cid = catalogue_for(p["label"])
        if cid in L_ARMS:  # arms, compared in catalogue_entries()
            continue
        c = CAT[cid]
        a, b = sorted((p["w"], p["h"]), reverse=True)
        ca, cb = sorted((c[6], c[7]), reverse=True)
        dev = max(dev, abs(a - ca), abs(b - cb))
    return dev


def catalogue_entries(ref: Path) -> dict:
    src = json.loads((ref / "terrain-maps.community.json").read_text(encoding="utf-8"))
    dims: dict[str, dict[str, list[float]]] = {}
    for m in src["maps"]:
        for p in m["pieces"]:
            cid = catalogue_for(p["label"])
            key = cid + (" long side" if p["label"].endswith("long side") else
                         " short side" if p["label"].endswith("short side") else "")
            a, b = sorted((p["w"], p["h"]), reverse=True)
            d = dims.setdefault(key, {"long": [], "short": []})
            d["long"].append(a)
            d["short"].append(b)
    entries = []
    for cid, name, name_ko, comm, size, grass, w, d, prefix in CATALOGUE:
        e = {
            "id": cid,
            "name": name,
            "name_ko": name_ko,
            "map_label": prefix,
            "community_catalog_id": comm,
            "size": size,
            "kind": "grass" if grass else "solid",
            "standable": cid == "lost-temple-ramp",
            "footprint": {"w": w, "d": d},
            "shape": "L" if cid in L_ARMS else "rectangle",
            "height_in": None,
            "source": CATALOGUE_SRC,
            "name_source": "rulebook required-terrain lists (Korean); English names: community "
                           "terrainMaps.json labels",
        }
        if cid in L_ARMS:
            e["arms"] = L_ARMS[cid]
            e["arms_frame"] = ("offsets from the box's top-left corner, y down, as the community "
                               "file terrainCatalog.ts @8db26b5 gives them (read off the rulebook's "
                               "terrain key by the community author)")
        if cid in ("shrubs-a", "shrubs-b"):
            e["note"] = ("the community catalogue has one grass entry (lt-grass-1, 4 per box) for "
                         "both; the rulebook lists Shrubs A and Shrubs B separately (4 + 4 per "
                         "standard map); footprint of each unknown beyond the shared 2.8×1.3")
        if cid == "lost-temple-ramp":
            e["note"] = ("a Size-3 plateau with a ramp (community: 'one 15.9\"×8.15\" Size 3 plateau "
                         "with a ramp'); the ramp lane's geometry is unknown (null)")
            e["ramp_lane"] = None
            e["access_points"] = "one per piece in the community maps: the middle of one short end"
        if cid == "statue-shard":
            e["note"] = "rulebook 석상 파편 = statue fragment; the community labels it 'Statue Shard'"
        mf = {}
        for key, v in sorted(dims.items()):
            if key == cid or key.startswith(cid + " "):
                part = key[len(cid):].strip() or "piece"
                mf[part] = {"long": [min(v["long"]), max(v["long"])],
                            "short": [min(v["short"]), max(v["short"])], "n": len(v["long"])}
        e["map_footprints"] = mf
        e["map_footprints_note"] = ("range of w×d (long, short) the community transcription uses "
                                    "for this piece across the nine maps (read off the printed maps)")
        entries.append(e)
    return {
        "format": "tmg-terrain-catalogue/1",
        "source": CATALOGUE_SRC,
        "set": "Lost Temple Terrain Expansion Set (+ Lost Temple Ramp)",
        "unknown": "null marks a value no source gives",
        "pieces": entries,
    }


# ----------------------------------------------------------------------------------------------
# Deployment cards
# ----------------------------------------------------------------------------------------------
CARDS = [
    # id, English name, Korean (rulebook), scale, name note
    ("gauntlet", "Gauntlet", "협공로", "standard",
     "rulebook name 협공로 paired with Gauntlet by elimination (the Korean simulator calls the same "
     "card 건틀렛 and its geometry matches)"),
    ("typhoon", "Typhoon", "태풍", "standard", None),
    ("acropolis", "Acropolis", "아크로폴리스", "standard", None),
    ("proving-grounds", "Proving Grounds", "시험장", "standard",
     "Korean simulator name: 성능 시험장"),
    ("breach", "Breach", "돌파구", "standard", "Korean simulator name: 돌파"),
    ("encounter", "Encounter", "조우전", "standard",
     "English name is a translation of 조우전; no source gives this card"),
    ("abandoned-camp", "Abandoned Camp", "버려진 야영지", "skirmish", None),
    ("agria-valley", "Agria Valley", "아그리아 계곡", "skirmish", None),
    ("dirt-side", "Dirt Side", "행성 지표", "skirmish",
     "rulebook name 행성 지표 paired with Dirt Side by elimination; the Korean simulator's 오지 "
     "('backcountry') has Dirt Side's markers"),
    ("frontier", "Frontier", "변경", "skirmish", None),
    ("char-plains", "Char Plains", "차 평원", "skirmish", None),
    ("green-valley", "Green Valley", "녹색 계곡", "skirmish",
     "English name is a translation of 녹색 계곡; no source gives this card"),
]
KO_FILES = {"gauntlet": "54x36 건틀렛.json", "breach": "54x36 돌파.json",
            "proving-grounds": "54x36 성능 시험장.json", "typhoon": "54x36 태풍.json",
            "abandoned-camp": "36x36 버려진 야영지.json", "char-plains": "36x36 차 평원.json",
            "dirt-side": "36x36 오지.json"}
COLOUR = {1: "red", 3: "red", 2: "blue", 4: "blue", 5: "neutral"}


def seg(edge: str, a: float, b: float, W: float, H: float) -> tuple:
    a, b = sorted((a, b))
    if edge == "top":
        return ((a, H), (b, H))
    if edge == "bottom":
        return ((a, 0), (b, 0))
    if edge == "left":
        return ((0, a), (0, b))
    if edge == "right":
        return ((W, a), (W, b))
    raise ValueError(edge)


def parse_p2p(ref: Path) -> dict:
    text = (ref / "deployment-cards.p2p.md").read_text(encoding="utf-8")
    out = {}
    for line in text.splitlines():
        m = re.match(r"\| ([A-Za-z ]+) (\d+)×(\d+) \| (.*?) \| (.*?) \| (.*?) \|$", line)
        if not m:
            continue
        name, W, H = m.group(1).strip(), int(m.group(2)), int(m.group(3))
        cid = name.lower().replace(" ", "-")
        markers = {int(i): (float(x), float(y))
                   for i, x, y in re.findall(r"(\d) \((\d+),(\d+)\)", m.group(6))}
        edges = {}
        for colour, txt in (("red", m.group(4)), ("blue", m.group(5))):
            segs = []
            note = "see note" in txt
            txt = re.sub(r"\s*\(see note\)", "", txt)
            for part in txt.split(" and "):
                part = part.strip()
                if part == "see note":
                    continue
                if part == "both short edges, full length":
                    segs += [seg("left", 0, H, W, H), seg("right", 0, H, W, H)]
                    continue
                mm = re.fullmatch(r"whole (top|bottom|left|right)( short)? edge", part)
                if mm:
                    e = mm.group(1)
                    segs.append(seg(e, 0, W if e in ("top", "bottom") else H, W, H))
                    continue
                mm = re.fullmatch(r"(top|bottom) x (\d+)–(\d+)|(left|right) y (\d+)–(\d+)", part)
                if not mm:
                    raise ValueError(f"cannot read p2p edge text {part!r}")
                if mm.group(1):
                    segs.append(seg(mm.group(1), float(mm.group(2)), float(mm.group(3)), W, H))
                else:
                    segs.append(seg(mm.group(4), float(mm.group(5)), float(mm.group(6)), W, H))
            edges[colour] = (segs, note)
        out[cid] = {"W": W, "H": H, "markers": markers, "edges": edges}
    # notes of the p2p sheet that complete "see note"
    assert "same edges as Agria Valley" in text
    dirt = out["dirt-side"]
    for colour in ("red", "blue"):
        dirt["edges"][colour] = (list(out["agria-valley"]["edges"][colour][0]), True)
    mm = re.search(r"continues 6\"\s+along\s+the\s+right\s+edge\s+\(red\s+y\s+(\d+)–(\d+),\s+blue\s+y\s+(\d+)–(\d+)\)",
                   text)
    assert mm, "Char Plains note not found"
    cp = out["char-plains"]
    cp["extra"] = {"red": [seg("right", float(mm.group(1)), float(mm.group(2)), 36, 36)],
                   "blue": [seg("right", float(mm.group(3)), float(mm.group(4)), 36, 36)]}
    return out


def read_community(ref: Path) -> dict:
    src = json.loads((ref / "deployments.community.json").read_text(encoding="utf-8"))
    out = {}
    names = {"N": "top", "S": "bottom", "W": "left", "E": "right"}
    for lay in src["layouts"]:
        W, H = lay["table"]["width"], lay["table"]["height"]
        edges = {}
        for colour in ("red", "blue"):
            segs = []
            for s in lay["entry"][colour]:
                e = names[s["edge"]]
                if e in ("left", "right"):  # from/to measured from the top (y down)
                    segs.append(seg(e, H - s["to"], H - s["from"], W, H))
                else:
                    segs.append(seg(e, s["from"], s["to"], W, H))
            edges[colour] = segs
        out[lay["id"]] = {"markers": {mk["id"]: (float(mk["x"]), float(H - mk["y"]))
                                      for mk in lay["markers"]}, "edges": edges}
    return out


def read_korean(ref: Path) -> dict:
    out = {}
    for cid, fname in KO_FILES.items():
        d = json.loads((ref / "deployments-ko" / fname).read_text(encoding="utf-8"))
        W, H = (float(v) for v in d["map_preset"].split("x"))  # preset in inches ("54x36")
        drawn = {"top": "bottom", "bottom": "top", "left": "left", "right": "right"}
        edges: dict[str, list] = {"red": [], "blue": []}
        for z in d["deployment_zones"]:
            colour = {"A": "red", "B": "blue"}[z["player"]]
            edges[colour].append(seg(drawn[z["edge"]], r3(z["start_along"] / 25.4),
                                     r3(z["end_along"] / 25.4), W, H))
        out[cid] = {"file": fname, "markers": {o["number"]: (r3(o["x"] / 25.4), r3(o["y"] / 25.4))
                                               for o in d["mission_objectives"]},
                    "edges": edges}
    return out


def fmt_segs(segs) -> str:
    parts = []
    for (x1, y1), (x2, y2) in sorted(segs):
        parts.append(f"({x1:g},{y1:g})-({x2:g},{y2:g})")
    return " + ".join(parts) if parts else "none"


def convert_deployments(ref: Path) -> dict:
    p2p = parse_p2p(ref)
    com = read_community(ref)
    ko = read_korean(ref)
    cards = []
    for cid, name, name_ko, scale, name_note in CARDS:
        W, H = (54, 36) if scale == "standard" else (36, 36)
        card: dict = {"id": cid, "name": name, "name_ko": name_ko, "scale": scale,
                      "table": {"width": W, "depth": H}}
        if cid not in p2p:
            card.update({"available": False, "entry_edges": None, "markers": None,
                         "zone_depth": 6, "zones_of_influence": None,
                         "sources": {"name_ko": "rulebook list of deployment cards "
                                                "(core-rulebook-ko.txt, '배치 카드')",
                                     "geometry": None},
                         "disagreements": [],
                         "notes": ["listed in the rulebook; no source found gives its geometry, so "
                                   "none is given (never invented)"]})
            if name_note:
                card["notes"].append(name_note)
            cards.append(card)
            continue
        P = p2p[cid]
        assert (P["W"], P["H"]) == (W, H)
        segs = {c: list(P["edges"][c][0]) for c in ("red", "blue")}
        dis: list[str] = []
        src_m = ["deployment-cards.p2p.md (primary: official P2P card sheets v1.03.26, read ±0.2\" "
                 "and snapped to whole inches)"]
        src_e = list(src_m)
        # --- Char Plains: the short stroke along the right edge
        if "extra" in P:
            for c in ("red", "blue"):
                segs[c] += P["extra"][c]
            dis.append(
                "entry edges: on the card sheet (p2p) the coloured edge stroke continues 6\" along "
                "the right edge (red y 0–6, blue y 30–36) without saying whether it is entry edge; "
                "the Korean simulator has these pieces as deployment edges; the community file has "
                "only the bottom/top x 18–36 segments. The data INCLUDES the 6\" right-edge pieces, "
                "because the primary drawing shows them in the players' colours and the simulator "
                "agrees; treat them as uncertain")
        if cid == "dirt-side":
            dis.append(
                "entry edges: the p2p reading of the card sheet gives Dirt Side the same edges as "
                "Agria Valley (red top x 0–12 + left y 24–36, blue bottom x 24–36 + right y 0–12); "
                "the community file gives each player two opposite corners (red also bottom x "
                "24–36 + right y 0–12, blue top x 24–36 + right y 24–36 + bottom x 0–12 + left "
                "y 0–12). The data uses the p2p reading (primary); the Korean simulator (오지) "
                "agrees with it")
        # --- markers: primary p2p
        markers = [{"id": i, "at": [P["markers"][i][0], P["markers"][i][1]], "colour": COLOUR[i]}
                   for i in sorted(P["markers"])]
        # --- cross-checks
        for label, other, fileinfo in (
                ("community", com.get(cid), f"deployments.community.json @{COMMUNITY_COMMIT[:7]}"),
                ("Korean simulator", ko.get(cid),
                 f"deployments-ko/{ko[cid]['file']} @{KO_COMMIT[:7]}" if cid in ko else None)):
            if other is None:
                src_m.append(f"{label}: no file for this card")
                continue
            pm = {i: tuple(v) for i, v in P["markers"].items()}
            om = {i: tuple(v) for i, v in other["markers"].items()}
            if pm == om:
                src_m.append(f"{fileinfo}: agrees")
            else:
                src_m.append(f"{fileinfo}: DISAGREES")
                dis.append(f"markers: {label} ({fileinfo}) has {sorted(om.items())}, p2p has "
                           f"{sorted(pm.items())}; the data uses p2p (primary)")
            ok = True
            swapped = (sorted(segs["red"]) == sorted(other["edges"]["blue"])
                       and sorted(segs["blue"]) == sorted(other["edges"]["red"]))
            for c in ("red", "blue"):
                if sorted(segs[c]) != sorted(other["edges"][c]):
                    ok = False
                    dis.append(f"entry edges ({c}): {label} ({fileinfo}) has "
                               f"{fmt_segs(other['edges'][c])}, p2p has {fmt_segs(segs[c])}; "
                               "the data uses p2p (primary)")
            if swapped:
                dis.append(f"{label} ({fileinfo}) gives the same edges with the colours swapped "
                           "(red <-> blue); with the markers unchanged this is the mirror image of "
                           "the p2p card. If the simulator's player A is not always red, this may "
                           "be a labelling difference only")
            src_e.append(f"{fileinfo}: {'agrees' if ok else 'DISAGREES (see disagreements)'}")
            if label == "Korean simulator":
                src_e[-1] += (" (read as the simulator draws it: its 'top' edge is drawn at y=0, "
                              "i.e. our bottom; player A = red)")
        card.update({
            "available": True,
            "entry_edges": {c: [[list(a), list(b)] for a, b in sorted(segs[c])]
                            for c in ("red", "blue")},
            "markers": markers,
            "zone_depth": 6,
            "zones_of_influence": {c: [zone_rect(s, W, H, 6) for s in sorted(segs[c])]
                                   for c in ("red", "blue")},
            "sources": {"markers": src_m, "entry_edges": src_e,
                        "name_ko": "rulebook list of deployment cards (core-rulebook-ko.txt, "
                                   "'배치 카드')"},
            "disagreements": dis,
            "notes": [],
        })
        if name_note:
            card["notes"].append(name_note)
        if any(abs(b[0] - a[0]) + abs(b[1] - a[1]) < (W if a[1] == b[1] else H)
               for c in ("red", "blue") for a, b in segs[c]):
            card["notes"].append(
                "an entry edge does not span a whole table edge: L-shaped zone-of-influence markers "
                "go at its ends (§5.6, §9.3)")
        cards.append(card)
    return {
        "format": "tmg-deployments/1",
        "coordinates": ("inches; origin bottom-left of the card read with its title upright, x to "
                        "the right along the long edge, y up"),
        "sources": {
            "p2p": "deployment-cards.p2p.md (reference export) — reading of the official "
                   "print-and-play card sheets (StarCraft-{Terran,Zerg,Protoss}-P2P-Card-Sheets-A4_EN"
                   ".pdf v1.03.26); PRIMARY",
            "community": f"phyersherman/sc-tmg-coop-tabletop src/data/deployments.json "
                         f"@{COMMUNITY_COMMIT} (y down, N = top)",
            "korean_simulator": f"Andrea4595/StarcraftTMG_Simulator Deployments/*.json @{KO_COMMIT} "
                                "(mm; edge 'top' drawn at y=0)",
            "names_ko": "core-rulebook-ko.txt, list '배치 카드'",
        },
        "marker_colours": "1 and 3 red, 2 and 4 blue, 5 neutral (rulebook §9.2); skirmish cards "
                          "place only 1, 2 and 5",
        "quarters": quarters(),
        "cards": cards,
    }


def zone_rect(s, W, H, depth):
    (x1, y1), (x2, y2) = s
    if y1 == y2 == H:
        g = box(x1, H - depth, x2, H)
    elif y1 == y2 == 0:
        g = box(x1, 0, x2, depth)
    elif x1 == x2 == 0:
        g = box(0, y1, depth, y2)
    else:
        g = box(W - depth, y1, W, y2)
    return poly_json(g)


def quarters() -> dict:
    def q(W, H):
        cx, cy = W / 2, 18
        return {"table": {"width": W, "depth": H}, "centre": [cx, cy], "quarters": [
            {"id": "bottom-left", "polygon": poly_json(box(0, 0, cx, cy))},
            {"id": "bottom-right", "polygon": poly_json(box(cx, 0, W, cy))},
            {"id": "top-right", "polygon": poly_json(box(cx, cy, W, H))},
            {"id": "top-left", "polygon": poly_json(box(0, cy, cx, H))},
        ]}
    return {
        "mission": "Divide and Conquer (분할 정복)",
        "rule": "split the battlefield into four quarters as shown on the deployment card "
                "(core-rulebook-ko.txt: '배치 카드에 나온 대로 전장을 네 구역으로 나눕니다')",
        "source": "deployment-cards.p2p.md: every card diagram draws a centre cross at x = width/2, "
                  "y = 18",
        "standard": q(54, 36),
        "skirmish": q(36, 36),
    }


def tidy(obj):
    """Whole numbers as JSON integers (12 rather than 12.0) so the files read like the cards."""
    if isinstance(obj, float) and obj.is_integer():
        return int(obj)
    if isinstance(obj, list):
        return [tidy(v) for v in obj]
    if isinstance(obj, dict):
        return {k: tidy(v) for k, v in obj.items()}
    return obj


def dump(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(obj, ensure_ascii=False, indent=1) + "\n")


def main(argv: list[str]) -> int:
    ref = Path(argv[1]) if len(argv) > 1 else DEFAULT_REF
    deployments = convert_deployments(ref)
    layouts = convert_layouts(ref, deployments["cards"])
    for lay in layouts:
        dump(HERE / "layouts" / f"{lay['id']}.json", lay)
    dump(HERE / "terrain_catalogue.json", catalogue_entries(ref))
    dump(HERE / "deployments.json", tidy(deployments))
    print(f"wrote {len(layouts)} layouts, terrain_catalogue.json, deployments.json from {ref}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
