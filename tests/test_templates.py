"""Blast and flamer templates (rulebook §8.7.6, §12.8, FAQ v1.1).

Hand-built cases from the rules; the property tests against brute-force sampling are in
tests/test_templates_props.py.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import scenario
from geom import templates as T
from geom.errors import TmgError
from geom.model import Battlefield, Ellipse
from tmg.cli import main as cli_main

R32 = 32 / 25.4 / 2  # radius of a 32 mm base
DATA = Path(__file__).resolve().parents[1] / "geom" / "data" / "templates.json"


def bf_of(units: list[dict[str, Any]], terrain: list[dict[str, Any]] | None = None) -> Battlefield:
    doc = {"table": {"width": 54, "depth": 36}, "unit": units, "terrain": terrain or []}
    return scenario.parse_document(doc, "<test>")


def unit(uid: str, owner: str, pts: list[tuple[float, float]], **kw: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"id": uid, "owner": owner, "size": 1, "base_mm": 32,
                         "tags": ["biological", "light"], "models": [list(p) for p in pts]}
    d.update(kw)
    return d


def blast(d: float) -> T.TemplateShape:
    return T.make_shape("blast", {"diameter": d}, "test")


def flamer(length: float, narrow: float, wide: float) -> T.TemplateShape:
    return T.make_shape("flamer", {"length": length, "narrow": narrow, "wide": wide}, "test")


def affected(res: T.TemplateResult) -> set[str]:
    return set(res.affected)


def check_of(res: T.TemplateResult, ref: str) -> Any:
    return next(c for c in res.checks if c.details["model"] == ref)


# --------------------------------------------------------------------------- coverage cases


def test_model_touching_the_target_is_hit_by_a_blast() -> None:
    bf = bf_of([unit("att", "red", [(2, 2)]),
                unit("tgt", "blue", [(10, 10), (10 + 2 * R32, 10), (10, 10 + 2 * R32 + 3)])])
    res = T.resolve(bf, "blast", blast(3), bf.unit("att").models[0],
                    target=bf.unit("tgt").models[0])
    assert res.main.unit == "tgt"
    assert set(res.main.models) == {"1", "2"}  # "3" is 3" away, off the 3" disc
    assert res.surge == 2 and res.spillover == ()
    assert res.template.target_point == (10.0, 10.0)


def test_model_behind_a_wall_from_the_target_point_is_not_hit() -> None:
    wall = {"id": "wall", "size": 3, "polygon": [[12, 5], [12.4, 5], [12.4, 15], [12, 15]]}
    low = {"id": "crate", "size": 1, "polygon": [[8.7, 12], [11.3, 12], [11.3, 12.6], [8.7, 12.6]]}
    bf = bf_of([unit("att", "red", [(2, 2)]),
                unit("tgt", "blue", [(10, 10), (14, 10), (10, 14)])], [wall, low])
    res = T.resolve(bf, "blast", blast(10), bf.unit("att").models[0],
                    target=bf.unit("tgt").models[0])
    assert affected(res) == {"tgt/1", "tgt/3"}  # the Size-1 crate does not stop the line
    c = check_of(res, "tgt/2")
    assert not c.ok and c.details["test"] == "line" and c.details["blocking"] == ["wall"]
    assert c.rule.startswith("8.7.6")
    # the witness for the model behind the crate starts on the target's base, ends on its own
    w = check_of(res, "tgt/3").witness
    assert math.dist(w[0], (10, 10)) <= R32 + 1e-9 and math.dist(w[1], (10, 14)) <= R32 + 1e-9


def test_flying_model_under_a_ground_template_is_not_hit() -> None:
    bf = bf_of([unit("att", "red", [(2, 2)]),
                unit("tgt", "blue", [(10, 10)]),
                unit("fly", "blue", [(11.5, 10)], flying=True, size=3)])
    att, tgt = bf.unit("att").models[0], bf.unit("tgt").models[0]
    res = T.resolve(bf, "blast", blast(4), att, target=tgt)
    assert affected(res) == {"tgt/1"}
    c = check_of(res, "fly/1")
    assert not c.ok and c.details["test"] == "target type"
    # an All weapon on a ground target: the flyer is at no ground elevation, still not hit
    res = T.resolve(bf, "blast", blast(4), att, target=tgt, target_type="all")
    c = check_of(res, "fly/1")
    assert not c.ok and c.details["test"] == "elevation" and res.elevation == "ground"
    # an All weapon placed on the flyer: the template is at the flying elevation
    res = T.resolve(bf, "blast", blast(4), att, target=bf.unit("fly").models[0],
                    target_type="all")
    assert res.elevation == "flying" and affected(res) == {"fly/1"}
    assert check_of(res, "tgt/1").details["test"] == "elevation"
    # a ground-only weapon cannot be placed on a flying model at all
    res = T.resolve(bf, "blast", blast(4), att, target=bf.unit("fly").models[0])
    assert not res.placement.ok and res.main.count == 0


def test_spillover_onto_a_friendly_unit_and_another_enemy() -> None:
    bf = bf_of([unit("att", "red", [(2, 2)]),
                unit("tgt", "blue", [(10, 10), (10, 11.3)]),
                unit("pals", "red", [(11.4, 10), (20, 20)]),
                unit("foes", "blue", [(8.6, 10)])])
    res = T.resolve(bf, "blast", blast(3), bf.unit("att").models[0],
                    target=bf.unit("tgt").models[0])
    assert res.main.models == ("1", "2") and res.surge == 2
    batches = {b.unit: b for b in res.spillover}
    assert set(batches) == {"pals", "foes"}
    assert batches["pals"].models == ("1",) and batches["pals"].owner == "red"
    assert batches["foes"].count == 1


def test_spillover_needs_a_shared_combat_tag() -> None:
    # The scenario loader always adds GROUND or FLYING, so two real units always share one; build
    # tagless units by hand to exercise the rule itself (§8.7.6 step 2).
    from dataclasses import replace
    bf = bf_of([unit("att", "red", [(2, 2)]), unit("tgt", "blue", [(10, 10)]),
                unit("odd", "blue", [(11.4, 10)])])
    odd = bf.unit("odd")
    odd = replace(odd, tags=("mechanical",), models=tuple(replace(m, tags=("mechanical",))
                                                         for m in odd.models))
    tgt = bf.unit("tgt")
    tgt = replace(tgt, tags=("biological",))
    bf = bf.replace_unit(odd).replace_unit(tgt)
    res = T.resolve(bf, "blast", blast(3), bf.unit("att").models[0], target=tgt.models[0])
    assert res.spillover == ()
    assert check_of(res, "odd/1").details["test"] == "tags"


def test_flamer_over_a_unit_at_two_elevations_hits_only_the_target_points_elevation() -> None:
    plateau = {"id": "plateau", "size": 3, "standable": True,
               "polygon": [[12, 7], [18, 7], [18, 13], [12, 13]]}
    bf = bf_of([unit("att", "red", [(5, 10)]),
                unit("tgt", "blue", [(8.5, 10), (10.5, 10), (12.8, 10), (14.5, 10)])], [plateau])
    shape = flamer(12, 1, 4)
    att = bf.unit("att").models[0]
    res = T.resolve(bf, "flamer", shape, att, target=bf.unit("tgt").models[0])
    assert res.elevation == "ground"
    assert affected(res) == {"tgt/1", "tgt/2"}
    assert {check_of(res, r).details["test"] for r in ("tgt/3", "tgt/4")} == {"elevation"}
    # aimed at a model on the plateau: only the high-ground models, and the plateau they stand on
    # does not stop the line from the attacker
    res = T.resolve(bf, "flamer", shape, att, target=bf.unit("tgt").models[3])
    assert res.elevation == "high"
    assert affected(res) == {"tgt/3", "tgt/4"}


def test_coverage_by_a_sliver_counts_and_touching_does_not() -> None:
    t = T.place_blast(blast(3), (10, 10))
    for gap, hit in ((-1e-4, True), (-1e-5, True), (-1e-7, False), (0.0, False), (1e-4, False)):
        assert t.covers(Ellipse(10 + 1.5 + R32 + gap, 10, R32, R32)) is hit, gap
        # an oval whose long axis points at the template's centre
        assert t.covers(Ellipse(10, 10 + 1.5 + 1.0 + gap, 1.0, 0.4, math.pi / 2)) is hit, gap
    f = T.place_flamer(flamer(8, 1, 3), Ellipse(0, 0, R32, R32), (10, 0))
    # the upper side runs from (R32, 0.5) to (R32 + 8, 1.5); put a base just across it
    x0, y0 = R32 + 4, 0.5 + 4 / 8
    nx, ny = -1 / math.sqrt(65), 8 / math.sqrt(65)  # outward normal of that side
    for gap, hit in ((-1e-4, True), (-1e-7, False), (1e-3, False)):
        off = R32 + gap
        e = Ellipse(x0 + nx * off, y0 + ny * off, R32, R32)
        assert f.covers(e) is hit, gap
    # and through a whole scene: a sliver makes a model affected
    bf = bf_of([unit("att", "red", [(2, 2)]),
                unit("tgt", "blue", [(10, 10), (10 + 1.5 + R32 - 1e-4, 10)]),
                unit("near", "blue", [(10, 10 - 1.5 - R32 + 1e-7)])])
    res = T.resolve(bf, "blast", blast(3), bf.unit("att").models[0],
                    target=bf.unit("tgt").models[0])
    assert res.main.models == ("1", "2") and res.spillover == ()


def test_faq_template_without_a_target_model() -> None:
    hill = {"id": "hill", "size": 1, "standable": True,
            "polygon": [[20, 0], [30, 0], [30, 6], [20, 6]]}
    bf = bf_of([unit("caster", "red", [(2, 2)]),
                unit("a", "blue", [(10, 10)]), unit("b", "red", [(11.3, 10)]),
                unit("c", "blue", [(10, 11.4)], flying=True, size=3),
                unit("d", "blue", [(25, 3)]),
                unit("e", "blue", [(25, 6.9)], flying=True, size=3)], [hill])
    caster = bf.unit("caster").models[0]
    res = T.resolve(bf, "blast", blast(3), caster, at=(10.5, 10.5))
    assert res.faq and res.placement.ok and res.elevation == "ground"
    assert res.main.unit is None and res.main.count == 0 and res.surge == 0
    # no tags to match: friend, foe and the flyer (at its stand's elevation, FAQ) are spillover
    assert {b.unit for b in res.spillover} == {"a", "b", "c"}
    # on the hill (mid ground): the flyer whose stand is on the mat beside it is not hit
    res = T.resolve(bf, "blast", blast(3), caster, at=(25, 5))
    assert res.elevation == "mid"
    assert {b.unit for b in res.spillover} == {"d"}
    assert check_of(res, "e/1").details["test"] == "elevation"


def test_target_type_and_side_checks() -> None:
    bf = bf_of([unit("att", "red", [(2, 2)]), unit("tgt", "blue", [(10, 10)]),
                unit("pal", "red", [(14, 14)])])
    att = bf.unit("att").models[0]
    res = T.resolve(bf, "blast", blast(3), att, target=bf.unit("tgt").models[0],
                    target_type="air")
    assert not res.placement.ok and res.main.count == 0
    res = T.resolve(bf, "blast", blast(3), att, target=bf.unit("pal").models[0])
    assert not res.placement.ok and "enemy" in res.placement.reason
    with pytest.raises(TmgError):
        T.resolve(bf, "blast", blast(3), att, target=att)
    with pytest.raises(TmgError):
        T.resolve(bf, "blast", blast(3), att)


# --------------------------------------------------------------------------- placement


def test_flamer_placement_on_a_disc_touches_at_the_middle_of_the_narrow_end() -> None:
    att = Ellipse(5, 5, R32, R32)
    t = T.place_flamer(flamer(8, 1, 3), att, (5, 15))
    assert t.contact is not None
    assert t.contact == pytest.approx((5, 5 + R32))
    assert t.corners[0] == pytest.approx((5.5, 5 + R32)) or \
        t.corners[0] == pytest.approx((4.5, 5 + R32))
    assert not t.covers(att)
    with pytest.raises(TmgError):
        T.place_flamer(flamer(8, 1, 3), att, (5.1, 5.1))


def test_flamer_with_a_pointed_narrow_end_is_a_triangle() -> None:
    t = T.place_flamer(flamer(6, 0, 2), Ellipse(0, 0, 1, 0.5, 0.3), (10, 0))
    assert len(t.corners) == 3 and t.polygon.area == pytest.approx(6.0)


def test_blast_centred_on_an_oval_covers_most() -> None:
    # numeric companion of the symmetry/log-concavity argument in geom/templates.py
    base = Ellipse(10, 10, 50 / 25.4, 20 / 25.4, 0.7)
    poly = base.polygon(720)
    t = T.place_blast(blast(2.0), (10, 10))
    best = poly.intersection(t.polygon).area
    for dx, dy in ((0.2, 0), (0, 0.2), (0.1, -0.3), (0.5, 0.5), (-0.05, 0.02)):
        other = T.place_blast(blast(2.0), (10 + dx, 10 + dy))
        assert poly.intersection(other.polygon).area < best


# --------------------------------------------------------------------------- shapes as data


def test_data_file_marks_its_sizes_provisional() -> None:
    doc = json.loads(DATA.read_text(encoding="utf-8"))
    assert "PROVISIONAL" in doc
    for kind, dims in T.DIMENSIONS.items():
        entry = doc["templates"][kind]
        assert entry["provisional"] is True and "provisional" in entry["source"]
        assert all(isinstance(entry[d], int | float) for d in dims)
    for kind in T.KINDS:
        s = T.default_shape(kind)
        assert s.provisional and s.provisional_dimensions == list(T.DIMENSIONS[kind])
        assert "PROVISIONAL" in s.as_dict()["warning"] and "PROVISIONAL" in s.describe()


def test_given_dimensions_replace_the_placeholder() -> None:
    s = T.make_shape("blast", {"diameter": 5}, "command line")
    assert not s.provisional and s["diameter"] == 5 and dict(s.sources)["diameter"] == "command line"
    part = T.make_shape("flamer", {"length": 9, "narrow": None}, "command line")
    assert part.provisional and part.provisional_dimensions == ["narrow", "wide"]
    shapes = T.shapes_from_table({"flamer": {"length": 9, "narrow": 0.5, "wide": 2}}, "f.toml")
    assert not shapes["flamer"].provisional and shapes["blast"].provisional
    assert dict(shapes["flamer"].sources)["wide"] == "scenario"


@pytest.mark.parametrize("raw, field", [
    ({"blast": {"diameter": -1}}, "diameter"),
    ({"blast": {"diameter": "3"}}, "diameter"),
    ({"blast": {"diameter": True}}, "diameter"),
    ({"blast": {"radius": 1}}, "radius"),
    ({"flamer": {"narrow": 3, "wide": 2}}, "wide"),
    ({"flamer": {"length": 0}}, "length"),
    ({"flamer": {"narrow": -0.5}}, "narrow"),
    ({"cone": {}}, "cone"),
])
def test_bad_template_tables_name_file_object_and_field(raw: dict[str, Any], field: str) -> None:
    with pytest.raises(TmgError) as ei:
        T.shapes_from_table(raw, "s.toml")
    assert ei.value.file == "s.toml" and ei.value.field == field
    assert "templates" in (ei.value.obj or "")


# --------------------------------------------------------------------------- command line


SCENE = """
format = "tmg-scenario/1"
[table]
width = 54
depth = 36
{templates}
[[terrain]]
id = "wall"
size = 3
polygon = [[12, 5], [12.4, 5], [12.4, 15], [12, 15]]
[[unit]]
id = "att"
owner = "red"
size = 1
base_mm = 32
models = [[3, 10]]
[[unit]]
id = "tgt"
owner = "blue"
size = 1
base_mm = 32
models = [[10, 10], [11.3, 10], [13.5, 10]]
[[unit]]
id = "pals"
owner = "red"
size = 1
base_mm = 32
models = [[10, 8.7]]
"""


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = cli_main(["template", *argv])
    out, err = capsys.readouterr()
    if code == 0 and "--json" in argv:
        return code, json.loads(out), err
    return code, out, err


def test_cli_json_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "s.toml"
    f.write_text(SCENE.format(templates=""))
    code, r, _ = run_cli(capsys, str(f), "--blast", "--attacker", "att/1", "--target", "tgt/1",
                         "--json")
    assert code == 0
    for key in ("main", "spillover", "provisional", "shape", "target_point", "template", "counts",
                "surge"):
        assert key in r
    assert r["main"] == {"unit": "tgt", "owner": "blue", "models": ["1", "2"], "count": 2,
                         "surge": 2}
    assert r["spillover"] == [{"unit": "pals", "owner": "red", "models": ["1"], "count": 1}]
    assert r["provisional"] is True and r["shape"]["provisional"] is True
    assert any("PROVISIONAL" in n for n in r["notes"])
    assert r["target_point"] == [10.0, 10.0] and len(r["template"]) >= 64
    # given on the command line: no longer provisional, and the wall now matters
    code, r, _ = run_cli(capsys, str(f), "--blast", "--attacker", "att/1", "--target", "tgt/1",
                         "--diameter", "9", "--json")
    assert r["provisional"] is False and r["shape"]["sources"]["diameter"] == "command line"
    assert r["main"]["models"] == ["1", "2"]
    behind = next(m for m in r["models"] if m["model"] == "tgt/3")
    assert behind["affected"] is False and behind["blocking"] == ["wall"]


def test_cli_text_says_provisional(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "s.toml"
    f.write_text(SCENE.format(templates=""))
    code, out, _ = run_cli(capsys, str(f), "--flamer", "--attacker", "att/1", "--target", "tgt/1")
    assert code == 0 and "PROVISIONAL" in out and "main target tgt" in out


def test_cli_scenario_templates_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "s.toml"
    f.write_text(SCENE.format(templates="[templates.flamer]\nlength = 10\nnarrow = 0.5\nwide = 2"))
    code, r, _ = run_cli(capsys, str(f), "--flamer", "--attacker", "att/1", "--target", "tgt/1",
                         "--json")
    assert code == 0 and r["provisional"] is False
    assert r["shape"]["length"] == 10 and r["shape"]["sources"]["length"] == "scenario"
    # the command line beats the scenario
    code, r, _ = run_cli(capsys, str(f), "--flamer", "--attacker", "att/1", "--target", "tgt/1",
                         "--length", "4", "--json")
    assert r["shape"]["length"] == 4 and r["shape"]["sources"]["wide"] == "scenario"
    f.write_text(SCENE.format(templates="[templates.flamer]\nwide = -2"))
    code, _, err = run_cli(capsys, str(f), "--flamer", "--attacker", "att/1", "--target", "tgt/1")
    assert code == 2 and "s.toml" in err and "templates.flamer" in err and "'wide'" in err


def test_cli_faq_point_and_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "s.toml"
    f.write_text(SCENE.format(templates=""))
    code, r, _ = run_cli(capsys, str(f), "--blast", "--attacker", "att/1", "--at", "10,9.5",
                         "--json")
    assert code == 0 and r["target"] is None and r["main"]["unit"] is None and r["surge"] == 0
    assert {b["unit"] for b in r["spillover"]} == {"tgt", "pals"}
    code, _, err = run_cli(capsys, str(f), "--flamer", "--attacker", "att/1", "--target", "tgt/1",
                           "--diameter", "3")
    assert code == 2 and "--diameter" in err
    code, _, err = run_cli(capsys, str(f), "--blast", "--attacker", "att/1", "--target", "tgt/1",
                           "--diameter", "-3")
    assert code == 2 and "--diameter" in err
    code, _, err = run_cli(capsys, str(f), "--blast", "--attacker", "att/1", "--at", "x")
    assert code == 2 and "--at" in err


def test_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    ex = sorted((Path(__file__).resolve().parents[1] / "examples").glob("template-*.toml"))
    assert ex, "examples/template-*.toml missing"
    for f in ex:
        first = f.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# tmg template"), f
        argv = first[len("# tmg template"):].split()
        code, r, err = run_cli(capsys, str(f), *argv, "--json")
        assert code == 0, err
        assert r["counts"]["total"] >= 1
