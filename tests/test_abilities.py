"""Unit-card abilities as data (the unit cards; §4.4 Squadron "편대", Raptor variant "랩터 변종",
LARGE "대형", STRUCTURE "구조물"): the catalogue carries each card's geometric abilities with the
rulebook line they come from, a scenario may give or override them, and `tmg units` shows them.

The card lines below were found by searching the rulebook's unit cards for each ability's
Korean name ("편대지속", "랩터 변종지속", "대형지속", "구조물지속"); the data file must hold exactly
these, quoting the card text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from geom.model import ABILITIES, LARGE, METABOLIC_BOOST, RAPTOR_VARIANT, SQUADRON, STRUCTURE
from scenario import catalogue
from scenario.abilities import INFO, parse_ability
from tmg.cli import main

DATA = Path(__file__).resolve().parents[1] / "scenario" / "data" / "units.json"
SQUADRON_TEXT = '편대지속 이 유닛의 수평 대형 유지 거리는 4"입니다.'
RAPTOR_TEXT = "랩터 변종지속 이 유닛은 크기 4 이하의 통과 불가 지형을 지나갈 수 있고, 출입 지점 없이 고도를 바꿀 수 있습니다."

# card -> rulebook line of its "편대" ability
SQUADRON_CARDS = {
    "hydralisk": 2493, "kerrigan-swarm-raptor-zergling": 2616, "zergling": 2899,
    "raptor-zergling": 2948, "swarmling-zergling": 2999, "ravager": 3045, "stalker": 3546,
}
RAPTOR_CARDS = {"kerrigan-swarm-raptor-zergling": 2618, "raptor-zergling": 2950}
# card -> rulebook line of its "대사 촉진" (Metabolic Boost) ability: the three cards the rulebook
# search for "대사 촉진" finds; the official export and the community file list it on the same
# three (Zergling, Raptor, Swarmling), not on Kerrigan's Swarm Raptors
METABOLIC_CARDS = {"zergling": 2903, "raptor-zergling": 2958, "swarmling-zergling": 3009}
METABOLIC_TEXT = ("대사 촉진활성1 BM 이 유닛의 돌격 거리를 정할 때 D6 대신 2D6을 굴려 높은 결과를 "
                  "유닛의 속도 능력치에 더합니다.")


@pytest.fixture(scope="module")
def units() -> dict[str, dict]:
    return {u["id"]: u for u in json.loads(DATA.read_text(encoding="utf-8"))["units"]}


def card_range(units: dict[str, dict], uid: str) -> tuple[int, int]:
    """The rulebook lines of a card: from its own line to the next card's."""
    starts = sorted(u["rulebook_line"] for u in units.values())
    lo = units[uid]["rulebook_line"]
    return lo, next((s for s in starts if s > lo), 10**9)


def test_4_4_every_squadron_card_has_squadron(units):
    # the issue names Zerglings, Raptors, Hydralisks, Ravagers and Stalkers; the rulebook's
    # search adds Kerrigan's Swarm Raptors and Swarmlings
    have = {uid for uid, u in units.items() if SQUADRON in u["abilities"]}
    assert have == set(SQUADRON_CARDS)
    for uid, line in SQUADRON_CARDS.items():
        src = units[uid]["ability_sources"][SQUADRON]
        assert src["source"] == "rulebook" and src["rulebook_line"] == line, uid
        assert src["card_text"] == SQUADRON_TEXT and src["name_ko"] == "편대", uid
        lo, hi = card_range(units, uid)
        assert lo < line < hi, (uid, "the line lies on the card")


def test_raptor_variant_cards(units):
    have = {uid for uid, u in units.items() if RAPTOR_VARIANT in u["abilities"]}
    assert have == set(RAPTOR_CARDS)
    for uid, line in RAPTOR_CARDS.items():
        src = units[uid]["ability_sources"][RAPTOR_VARIANT]
        assert (src["rulebook_line"], src["card_text"]) == (line, RAPTOR_TEXT), uid
        assert SQUADRON in units[uid]["abilities"]  # both raptor cards are squadrons too


def test_siege_tank_card_large_and_faq_size_3(units):
    t = units["siege-tank"]
    assert t["abilities"] == [LARGE] and t["large"] is True and t["base_mm"] == 150
    src = t["ability_sources"][LARGE]
    assert src["rulebook_line"] == 2248 and src["card_text"].startswith("대형지속")
    assert "3\" 미만인 틈" in src["card_text"]
    # FAQ v1.1: "크기 3인 공성 전차"; the community list says 2 — the conflict is kept
    assert t["size"] == 3 and t["provenance"]["size"] == "rulebook"
    assert any(d.startswith("size:") and "3" in d and "community" in d and "2" in d
               for d in t["disagreements"])
    assert "FAQ" in t["notes"] and "line 5975" in t["notes"]
    assert [u for u, e in units.items() if e["large"]] == ["siege-tank"]


def test_structure_cards_and_the_disagreement_over_pylon_and_omega_worm(units):
    have = {uid for uid, u in units.items() if STRUCTURE in u["abilities"]}
    assert have == {"point-defense-drone", "pylon", "omega-worm"}
    assert units["point-defense-drone"]["ability_sources"][STRUCTURE]["rulebook_line"] == 2133
    for uid in ("pylon", "omega-worm"):
        u = units[uid]
        src = u["ability_sources"][STRUCTURE]
        # not in the rulebook's card text: the source is the official export, said so
        assert src["source"] == "official-export" and src["rulebook_line"] is None
        assert "Mission Markers" in src["card_text_en"]
        assert any(d.startswith("abilities:") and "rulebook" in d for d in u["disagreements"])
    for u in units.values():
        assert u["structure"] is (STRUCTURE in u["abilities"]), u["id"]


def test_8_7_7_metabolic_boost_cards(units):
    have = {uid for uid, u in units.items() if METABOLIC_BOOST in u["abilities"]}
    assert have == set(METABOLIC_CARDS)
    for uid, line in METABOLIC_CARDS.items():
        src = units[uid]["ability_sources"][METABOLIC_BOOST]
        assert src["source"] == "rulebook" and src["rulebook_line"] == line, uid
        assert src["card_text"] == METABOLIC_TEXT and src["name_ko"] == "대사 촉진", uid
        lo, hi = card_range(units, uid)
        assert lo < line < hi, (uid, "the line lies on the card")
    assert parse_ability("대사 촉진") == METABOLIC_BOOST == parse_ability("Metabolic Boost")


def test_every_ability_is_known_sourced_and_quoted(units):
    for uid, u in units.items():
        assert set(u["abilities"]) <= set(ABILITIES), uid
        assert len(u["abilities"]) == len(set(u["abilities"])), uid
        assert u["large"] is (LARGE in u["abilities"]), uid
        keys = set(u["ability_sources"])
        assert keys == set(u["abilities"]) | ({"flying"} if u["flying"] else set()), uid
        for a, src in u["ability_sources"].items():
            assert src["source"] in {"rulebook", "official-export", "community"}, (uid, a)
            if src["source"] == "rulebook":
                assert isinstance(src["rulebook_line"], int) and src["card_text"], (uid, a)
                assert src["card_text"].startswith(src["name_ko"]) or a == "flying", (uid, a)
        assert u["provenance"]["abilities"] in {"rulebook", "official-export"}, uid
        for x in u["unmodelled_abilities"]:
            lo, hi = card_range(units, uid)
            assert lo < x["rulebook_line"] < hi and x["effect"], (uid, x)


def test_ability_names_the_cards_use_are_accepted():
    assert parse_ability("편대") == SQUADRON and parse_ability("Squadron") == SQUADRON
    assert parse_ability("랩터 변종") == RAPTOR_VARIANT == parse_ability("raptor strain")
    assert parse_ability("대형") == LARGE and parse_ability(" STRUCTURE ") == STRUCTURE
    assert parse_ability("flying") is None and parse_ability("squad") is None
    assert set(INFO) == set(ABILITIES)


# ------------------------------------------------------------------ scenario files

def _scenario(tmp_path: Path, unit_lines: str) -> Path:
    p = tmp_path / "s.toml"
    p.write_text('format = "tmg-scenario/1"\n[table]\nwidth = 54\ndepth = 36\n'
                 f'[[unit]]\nid = "u"\nowner = "red"\n{unit_lines}\n'
                 'models = [[10, 10], [20, 10]]\n', encoding="utf-8")
    return p


def test_zergling_card_squadron_reaches_the_unit(tmp_path):
    import scenario

    u = scenario.load(str(_scenario(tmp_path, 'type = "zergling"'))).unit("u")
    assert u.has(SQUADRON) and u.coherency_distance == 4.0
    t = scenario.load(str(_scenario(tmp_path, 'type = "siege-tank"'))).unit("u")
    assert t.has(LARGE) and t.large and t.size == 3 and t.gap_clearance == 3.0
    m = scenario.load(str(_scenario(tmp_path, 'type = "marine"'))).unit("u")
    assert m.abilities == frozenset() and m.coherency_distance == 3.0


@pytest.mark.parametrize("lines,expect", [
    ('type = "zergling"\nabilities = []', frozenset()),
    ('type = "marine"\nabilities = ["편대"]', frozenset({SQUADRON})),
    ('type = "marine"\nabilities = ["Squadron", "large"]', frozenset({SQUADRON, LARGE})),
    ('type = "siege-tank"\nlarge = false', frozenset()),
    ('type = "zergling"\nlarge = true', frozenset({SQUADRON, LARGE, METABOLIC_BOOST})),
    ('size = 1\nbase_mm = 32\nabilities = ["raptor-variant", "squadron"]',
     frozenset({SQUADRON, RAPTOR_VARIANT})),
])
def test_scenario_gives_or_overrides_abilities(tmp_path, lines, expect):
    import scenario

    u = scenario.load(str(_scenario(tmp_path, lines))).unit("u")
    assert u.abilities == expect
    assert u.large is (LARGE in expect)
    assert u.coherency_distance == (4.0 if SQUADRON in expect else 3.0)


def test_unknown_ability_is_one_line_naming_the_field(tmp_path, capsys):
    p = _scenario(tmp_path, 'type = "marine"\nabilities = ["squad"]')
    assert main(["coherency", str(p), "u"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "unit 'u'" in err and "abilities" in err and "'squad'" in err


# ------------------------------------------------------------------ tmg units

def test_units_command_shows_abilities_with_their_source(capsys):
    assert main(["units", "raptor-zergling", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    by = {a["id"]: a for a in r["abilities"]}
    assert set(by) == {SQUADRON, RAPTOR_VARIANT, METABOLIC_BOOST}
    assert by[METABOLIC_BOOST]["rulebook_line"] == 2958 and "--metabolic-boost" in \
        by[METABOLIC_BOOST]["applied"]
    assert by[SQUADRON]["rulebook_line"] == 2948 and by[SQUADRON]["card_text"] == SQUADRON_TEXT
    assert by[RAPTOR_VARIANT]["name_ko"] == "랩터 변종" and by[RAPTOR_VARIANT]["applied"]
    assert main(["units", "raptor-zergling"]) == 0
    out = capsys.readouterr().out
    assert "squadron (Squadron, 편대, §4.4)" in out and "rulebook line 2948" in out
    assert SQUADRON_TEXT in out and "ability_sources" not in out
    assert main(["units", "siege-tank"]) == 0
    out = capsys.readouterr().out
    assert "large (Large, 대형, §4.6)" in out and "not applied: Siege Mode" in out
    assert main(["units", "--json"]) == 0
    rows = {u["id"]: u for u in json.loads(capsys.readouterr().out)["units"]}
    assert rows["stalker"]["abilities"] == [SQUADRON] and rows["marine"]["abilities"] == []
    assert catalogue.find("편대") is None  # abilities are not unit names


def test_units_command_finds_a_card_by_part_of_its_name(capsys):
    # one entry containing the words: shown whole; several: listed; none: the nearest named
    assert main(["units", "siege", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["unit"]["id"] == "siege-tank"
    assert main(["units", "raptor", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["search"] == "raptor"
    assert {u["id"] for u in r["units"]} == {u["id"] for u in catalogue.units()
                                              if "raptor" in u["id"]}
    assert all(RAPTOR_VARIANT in u["abilities"] for u in r["units"])
    assert main(["units", "hydralisc"]) == 2
    assert "did you mean hydralisk" in capsys.readouterr().err
    assert main(["units", "qqqq"]) == 2
    assert "did you mean" not in capsys.readouterr().err


def test_an_unknown_unit_type_in_a_scenario_names_the_nearest_cards(tmp_path, capsys):
    f = tmp_path / "s.toml"
    f.write_text('format = "tmg-scenario/1"\n[table]\nwidth = 20\ndepth = 20\n'
                 '[[unit]]\nid = "r"\ntype = "raptor"\nowner = "red"\nmodels = [[5, 5]]\n',
                 encoding="utf-8")
    assert main(["info", str(f)]) == 2
    err = capsys.readouterr().err
    assert "unit 'r'" in err and "field 'type'" in err and "raptor-zergling" in err
