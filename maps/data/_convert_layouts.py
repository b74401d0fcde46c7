"""Layouts and the terrain catalogue, converted from the community map data (see `_convert.py`)."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

from _convert_common import (
    ACCURACY_IN,
    CATALOGUE,
    CATALOGUE_SRC,
    COMMUNITY_COMMIT,
    COORDINATES,
    L_ARMS,
    MARKER_RADIUS_IN,
    NEAREST_LIST,
    REQUIRED,
    REQUIRED_LINE,
    community_corners,
    penetration,
    poly_json,
    r3,
    to_yup,
)
from shapely.geometry import Point, Polygon, box


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
