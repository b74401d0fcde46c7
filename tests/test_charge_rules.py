"""Charge rules of issue 25 (rulebook §8.7.7 step 2; Zergling/Raptor/Swarmling card "대사 촉진"):
Metabolic Boost — 2D6, the higher added to the Speed — and the contract's mends (a charge no
roll reaches has no end and no path; `--roll` always answers roll, roll_distance, roll_succeeds).

The boost's probabilities are checked against the 36 outcomes of two dice, enumerated here; the
thresholds are exact: a charge distance of exactly Speed + k succeeds on k, and 0.001" more
needs k + 1."""

from __future__ import annotations

import itertools
import json

import pytest

from geom.combat._charge import charge, roll_table, success_probability
from geom.errors import TmgError
from geom.model import METABOLIC_BOOST, Base, Battlefield, Model, Speed, Table, Unit
from tmg.cli import main

MM = 25.4
R = 25 / MM / 2  # a 25 mm zergling base
TR = 32 / MM / 2  # a 32 mm target base


def unit(uid, owner, pts, *, mm=25, speed=4, abilities=frozenset()):
    b = Base.from_mm(mm)
    ms = tuple(Model.make(str(i + 1), unit=uid, owner=owner, at=p, base=b, size=1)
               for i, p in enumerate(pts))
    return Unit(uid, owner, 1, ms, b, speed=Speed(speed), abilities=frozenset(abilities),
                tags=("ground",))


def table(path: float, boost: bool = True) -> Battlefield:
    """A zergling whose shortest legal charge (to within 1" of a marine, open table) is
    `path` inches long."""
    x = 5 + R + 1 + TR + path
    us = unit("lings", "red", [(5.0, 10.0)], abilities={METABOLIC_BOOST} if boost else ())
    foe = unit("marine", "blue", [(x, 10.0)], mm=32)
    return Battlefield(Table(40, 20), (), (us, foe))


def two_dice(speed: float, modifier: float, distance: float) -> float:
    """The reference: the share of the 36 outcomes of 2D6 whose higher die reaches."""
    hits = sum(speed + max(a, b) + modifier >= distance - 1e-9
               for a, b in itertools.product(range(1, 7), repeat=2))
    return hits / 36


@pytest.mark.parametrize("k", range(1, 7))
def test_boost_at_the_threshold_speed_plus_k(k):
    at = charge(table(4 + k), "lings", ["marine"], metabolic_boost=True)
    assert at.possible and at.min_roll == k
    assert at.probability == pytest.approx(two_dice(4, 0, 4 + k), abs=1e-12)
    assert at.probability == pytest.approx(1 - ((k - 1) / 6) ** 2, abs=1e-12)
    plain = charge(table(4 + k), "lings", ["marine"])
    assert plain.min_roll == k and plain.probability == pytest.approx((7 - k) / 6)
    past = charge(table(4 + k + 0.001), "lings", ["marine"], metabolic_boost=True)
    if k < 6:
        assert past.min_roll == k + 1
        assert past.probability == pytest.approx(two_dice(4, 0, 4 + k + 0.001), abs=1e-12)
    else:
        assert not past.possible and past.probability == 0.0


@pytest.mark.parametrize(("modifier", "distance"), [(-2, 5.5), (0, 7.0), (2, 11.0), (-2, 9.0)])
def test_roll_table_with_two_dice_against_the_36_outcomes(modifier, distance):
    rt = roll_table(4, modifier, distance, dice=2)
    assert rt.probability == pytest.approx(two_dice(4, modifier, distance), abs=1e-12)
    assert rt.successes == roll_table(4, modifier, distance).successes  # same rolls succeed
    assert success_probability(None, 2) == 0.0


def test_boost_needs_the_ability():
    with pytest.raises(TmgError) as e:
        charge(table(6, boost=False), "lings", ["marine"], metabolic_boost=True)
    assert e.value.field == "metabolic_boost" and e.value.obj == "lings"


def _doc(tmp_path, path_len, unit_type="zergling"):
    x = 5 + R + 1 + TR + path_len
    f = tmp_path / "t.toml"
    f.write_text(f'''format = "tmg-scenario/1"
[table]
width = 40
depth = 20
[[unit]]
id = "lings"
type = "{unit_type}"
owner = "red"
base_mm = 25
models = [[5, 10]]
[[unit]]
id = "marine"
type = "marine"
owner = "blue"
base_mm = 32
models = [[{x!r}, 10]]
''', encoding="utf-8")
    return str(f)


def test_cli_metabolic_boost_and_bad_input(tmp_path, capsys):
    f = _doc(tmp_path, 11.0)  # the Zergling card's Speed 8 + 3
    assert main(["charge", f, "lings", "--targets", "marine", "--metabolic-boost",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["metabolic_boost"] is True and d["min_roll"] == 3
    assert d["probability"] == pytest.approx(two_dice(d["speed"], 0, 11.0), abs=1e-6)  # JSON: 6 places
    assert "higher of 2D6" in d["reason"] and "32 in 36" in d["reason"]
    assert main(["charge", f, "lings", "--targets", "marine", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["probability"] == pytest.approx(4 / 6, abs=1e-6)
    g = _doc(tmp_path, 6.0, unit_type="marine")
    assert main(["charge", g, "lings", "--targets", "marine", "--metabolic-boost"]) == 2
    err = capsys.readouterr().err
    assert "lings" in err and "metabolic" in err.lower()


def test_no_roll_reaches_has_no_end_and_no_path(tmp_path, capsys):
    ans = charge(table(4 + 6 + 0.5), "lings", ["marine"], roll=6)
    assert not ans.possible and ans.end is None and ans.path is None
    assert ans.details["nearest_end"] is not None  # where the shortest charge would end
    f = _doc(tmp_path, 8 + 6 + 0.5)
    assert main(["charge", f, "lings", "--targets", "marine", "--roll", "6", "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert not j["possible"] and j["end"] is None and j["path"] is None
    assert j["roll"] == 6 and j["roll_distance"] == 14 and j["roll_succeeds"] is False


def test_roll_is_answered_when_no_charge_is_possible():
    """An engaged unit cannot charge at all; `--roll` still answers its three keys."""
    us = unit("lings", "red", [(5.0, 10.0)])
    foe = unit("marine", "blue", [(5 + R + TR + 0.5, 10.0)], mm=32)
    ans = charge(Battlefield(Table(40, 20), (), (us, foe)), "lings", ["marine"], roll=3)
    assert not ans.possible and "engaged" in ans.reason
    assert ans.details["roll"] == 3 and ans.details["roll_distance"] == 7
    assert ans.details["roll_succeeds"] is False
