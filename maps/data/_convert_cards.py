"""Deployment cards, converted from the print-and-play reading, the community data and the Korean
simulator (see `_convert.py`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from _convert_common import COMMUNITY_COMMIT, KO_COMMIT, poly_json, r3
from shapely.geometry import box

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

