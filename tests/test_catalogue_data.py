"""Checks of the built-in unit catalogue data file itself (scenario/data/units.json).

These tests read the JSON directly (no loader code), so they pin down the data: the schema,
that every entry is complete or explicitly marked unknown, and known facts from the cards.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "scenario" / "data" / "units.json"

REQUIRED_KEYS = {
    "id", "name", "name_ko", "faction", "base_mm", "size", "speed", "tags", "flying", "large",
    "armour", "evade", "hp", "shield", "supply_profile", "provenance", "disagreements", "notes",
}
# fields whose origin must be stated in provenance
FIGURES = ("base_mm", "size", "speed", "tags", "armour", "evade", "hp", "shield", "supply_profile")
TAGS = {"ground", "flying", "biological", "light", "armoured", "mechanical", "psionic"}
SOURCES = {"rulebook", "official-export", "community", "issue"}
BASE_DISCS = {25, 32, 40, 50, 60, 80, 100, 120, 130, 150, 160}
HANGUL = re.compile(r"[\uac00-\ud7a3]")
ROLL = re.compile(r"^[2-6]\+$")
SPLIT_SPEED = re.compile(r"^(\d+)/(\d+)$")


@pytest.fixture(scope="module")
def doc():
    raw = DATA.read_bytes()
    text = raw.decode("utf-8")  # must be UTF-8
    return json.loads(text) | {"_text": text}


@pytest.fixture(scope="module")
def units(doc):
    return doc["units"]


@pytest.fixture(scope="module")
def by_id(units):
    return {u["id"]: u for u in units}


# ---------------------------------------------------------------- file / schema

def test_header(doc):
    assert doc["format"] == "tmg-units/1"
    assert {"rulebook", "official-export", "community"} <= set(doc["sources"])
    assert "032b717" in doc["sources"]["official-export"]
    assert "desjani/StarcraftTMG" in doc["sources"]["official-export"]
    assert "army_units_cleaned.json" in doc["sources"]["official-export"]
    assert "5cd4ffd" in doc["sources"]["community"]
    for desc in doc["sources"].values():
        assert isinstance(desc, str) and desc.strip()


def test_written_as_readable_utf8(doc):
    # pretty-printed with ensure_ascii=False: Korean is stored as text, not \u escapes
    assert "해병" in doc["_text"]
    assert not re.search(r"\\u[0-9a-fA-F]{4}", doc["_text"])
    assert doc["_text"].startswith("{\n")


def test_every_rulebook_card_is_present(units):
    # the rulebook has 8 Terran, 13 Zerg and 10 Protoss unit cards
    counts = {}
    for u in units:
        counts[u["faction"]] = counts.get(u["faction"], 0) + 1
    assert counts == {"terran": 8, "zerg": 13, "protoss": 10}
    names = {u["name"] for u in units}
    for n in ("Marine", "Marauder", "Medic", "Jim Raynor", "Point Defense Drone",
              "Raynor's Raider (Marine)", "Goliath", "Siege Tank",
              "Hydralisk", "Kerrigan", "Omega Worm", "Kerrigan Swarm Raptor (Zergling)", "Queen",
              "Roach", "Corpser (Roach)", "Roachling", "Vile (Roach)", "Zergling",
              "Raptor (Zergling)", "Swarmling (Zergling)", "Ravager",
              "Adept", "Artanis", "Praetor Guard (Zealot)", "Pylon", "Sentry", "Stalker",
              "Zealot", "Immortal", "Zeratul", "Nerazim Watchers (Adept)"):
        assert n in names, n


def test_required_keys(units):
    for u in units:
        missing = REQUIRED_KEYS - set(u)
        assert not missing, (u.get("id"), missing)


def test_ids_unique_kebab_case(units):
    ids = [u["id"] for u in units]
    assert len(ids) == len(set(ids))
    for i in ids:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i), i


def test_names(units):
    for u in units:
        assert u["name"].strip() and u["name"].isascii()
        assert HANGUL.search(u["name_ko"]), u["id"]
        assert u["faction"] in {"terran", "zerg", "protoss"}


# ---------------------------------------------------------------- each field valid or marked unknown

def _note_mentions(u, field):
    return field in u["notes"]


def test_base_mm(units):
    for u in units:
        b = u["base_mm"]
        if isinstance(b, list):
            assert len(b) == 2 and all(isinstance(x, int) for x in b), u["id"]
            assert b[0] >= b[1] > 0, u["id"]  # [long, short]
        else:
            assert isinstance(b, int) and b in BASE_DISCS, (u["id"], b)


def test_size_int_or_null_with_note(units):
    for u in units:
        s = u["size"]
        if s is None:
            assert _note_mentions(u, "size"), u["id"]
        else:
            assert isinstance(s, int) and not isinstance(s, bool) and s >= 0, u["id"]


def test_speed(units):
    for u in units:
        sp = u["speed"]
        if sp is None:
            assert _note_mentions(u, "speed"), u["id"]
        elif isinstance(sp, str):
            m = SPLIT_SPEED.match(sp)
            assert m or sp == "-", (u["id"], sp)
            if m:
                assert int(m.group(1)) < int(m.group(2)), u["id"]
        else:
            assert isinstance(sp, int) and sp > 0, u["id"]


def test_rolls_and_hp_shield(units):
    for u in units:
        for f in ("armour", "evade"):
            v = u[f]
            if v is None:
                assert _note_mentions(u, f) and u["provenance"][f] == "unknown", (u["id"], f)
            else:
                assert ROLL.match(v) or v == "-", (u["id"], f, v)
        assert u["armour"] is not None and ROLL.match(u["armour"]), u["id"]  # every card has Armour
        assert isinstance(u["hp"], int) and u["hp"] >= 1, u["id"]
        assert isinstance(u["shield"], int) and u["shield"] >= 0, u["id"]
        if u["faction"] != "protoss":
            assert u["shield"] == 0, u["id"]  # only Protoss cards have a Shield stat
        else:
            assert u["shield"] > 0, u["id"]


def test_tags_ground_xor_flying_and_flags(units):
    for u in units:
        tags = u["tags"]
        assert tags and set(tags) <= TAGS, (u["id"], tags)
        assert len(tags) == len(set(tags)), u["id"]
        assert ("ground" in tags) != ("flying" in tags), u["id"]
        assert u["flying"] is ("flying" in tags), u["id"]
        assert isinstance(u["large"], bool), u["id"]


def test_supply_profile(units):
    for u in units:
        sp = u["supply_profile"]
        if not sp:
            assert _note_mentions(u, "supply_profile"), u["id"]
            continue
        expect = 1
        last_supply = -1
        for row in sp:
            assert row["models"] == expect, u["id"]  # contiguous from 1 model
            assert row["models_max"] >= row["models"], u["id"]
            assert row["supply"] >= last_supply, u["id"]
            expect = row["models_max"] + 1
            last_supply = row["supply"]


def test_compositions_match_supply_profile(units):
    for u in units:
        comps = u.get("compositions", [])
        if u.get("summoned"):
            assert comps == [], u["id"]
            assert u["supply_profile"][-1]["supply"] == 0, u["id"]
        for c in comps:
            row = next(r for r in u["supply_profile"] if r["models"] <= c["models"] <= r["models_max"])
            assert row["supply"] == c["supply"], u["id"]
            assert c["models"] == u["supply_profile"][-1]["models_max"] or len(comps) > 1, u["id"]


def test_provenance(units):
    for u in units:
        prov = u["provenance"]
        for f in FIGURES:
            assert f in prov, (u["id"], f)
            if prov[f] == "unknown":
                assert u[f] is None, (u["id"], f)
            else:
                assert prov[f] in SOURCES, (u["id"], f, prov[f])
        for f, src in prov.items():
            assert f in u, (u["id"], f)
            assert src in SOURCES | {"unknown"}, (u["id"], f, src)
        # tags, base sizes and supply profiles are read off the rulebook cards
        assert prov["tags"] == "rulebook" and prov["supply_profile"] == "rulebook"
        assert prov["base_mm"] in {"rulebook", "issue"}


def test_stats_from_official_export_where_it_has_the_unit(units):
    for u in units:
        in_export = "official-export" in u["in_sources"]
        for f in ("size", "armour", "hp"):
            if in_export:
                assert u["provenance"][f] == "official-export", (u["id"], f)
            else:
                assert u["provenance"][f] != "official-export", (u["id"], f)
        if not in_export:
            assert "not in the official export" in u["notes"], u["id"]


def test_disagreements_name_a_field_and_sources(units):
    for u in units:
        assert isinstance(u["disagreements"], list)
        for d in u["disagreements"]:
            m = re.match(r"^([a-z_]+): (.+)$", d)
            assert m, (u["id"], d)
            assert m.group(1) in u, (u["id"], d)  # names a field of the entry
            named = [s for s in ("rulebook", "official-export", "community") if s in m.group(2)]
            assert named, (u["id"], d)


def test_unknowns_are_explained(units):
    for u in units:
        for f in ("size", "speed", "armour", "evade", "hp", "shield"):
            if u[f] is None:
                assert _note_mentions(u, f), (u["id"], f)


# ---------------------------------------------------------------- facts from the cards

def test_marine(by_id):
    m = by_id["marine"]
    assert (m["name"], m["name_ko"], m["faction"]) == ("Marine", "해병", "terran")
    assert m["base_mm"] == 32 and m["size"] == 2 and m["speed"] == "4/7"
    assert (m["armour"], m["evade"], m["hp"], m["shield"]) == ("5+", "5+", 2, 0)
    assert m["tags"] == ["ground", "biological", "light"]
    assert not m["flying"] and not m["large"]
    assert [(r["models"], r["models_max"], r["supply"]) for r in m["supply_profile"]] == [
        (1, 3, 0), (4, 6, 1), (7, 9, 2)]
    assert m["compositions"] == [{"models": 6, "minerals": 160, "supply": 1},
                                 {"models": 9, "minerals": 210, "supply": 2}]
    assert m["disagreements"] == []


def test_hydralisk_oval_base(by_id):
    h = by_id["hydralisk"]
    assert h["name_ko"] == "히드라리스크"
    assert h["base_mm"] == [100, 40]
    assert h["speed"] == "4/8" and h["size"] == 2
    assert [(r["models"], r["models_max"], r["supply"]) for r in h["supply_profile"]] == [
        (1, 1, 1), (2, 2, 2), (3, 4, 3)]


def test_siege_tank_is_large(by_id):
    t = by_id["siege-tank"]
    assert t["large"] is True and t["base_mm"] == 150
    assert t["tags"] == ["ground", "armoured", "mechanical"]
    assert sum(u["large"] for u in by_id.values()) == 1


def test_point_defense_drone_is_the_only_flyer(by_id):
    d = by_id["point-defense-drone"]
    assert d["flying"] and "flying" in d["tags"] and "ground" not in d["tags"]
    assert [u["id"] for u in by_id.values() if u["flying"]] == ["point-defense-drone"]
    assert d["size"] is None  # export prints '-', community says 0: not chosen silently
    assert any(x.startswith("size:") for x in d["disagreements"])


@pytest.mark.parametrize("uid,base,size", [
    ("marauder", 50, 2), ("medic", 32, 2), ("jim-raynor", 40, 2), ("goliath", 80, 3),
    ("zergling", 32, 1), ("roach", 50, 2), ("queen", 80, 3), ("omega-worm", 80, 3),
    ("zealot", 40, 2), ("stalker", 80, 3), ("sentry", 50, 1), ("pylon", 80, 3),
    ("immortal", 100, 3), ("ravager", 80, 3),
])
def test_base_and_size(by_id, uid, base, size):
    assert by_id[uid]["base_mm"] == base
    assert by_id[uid]["size"] == size


def test_recorded_disagreements(by_id):
    # the official export (032b717) prices differ from the rulebook / community file
    for uid, text in [("stalker", "170"), ("jim-raynor", "250"), ("corpser-roach", "240"),
                      ("swarmling-zergling", "260")]:
        ds = by_id[uid]["disagreements"]
        assert any(d.startswith("compositions:") and text in d and "official-export" in d
                   for d in ds), uid


def test_immobile_and_no_evade(by_id):
    for uid in ("pylon", "omega-worm", "point-defense-drone"):
        assert by_id[uid]["speed"] == "-"
    for uid in ("goliath", "queen", "pylon", "omega-worm"):
        assert by_id[uid]["evade"] == "-"
    # not in the export and the community file gives no evade: unknown, not guessed
    for uid in ("siege-tank", "immortal"):
        assert by_id[uid]["evade"] is None and by_id[uid]["provenance"]["evade"] == "unknown"
