"""Charges are exact at every threshold (§8.7.7; docs/rules.md#tolerance): a charge that needs
exactly Speed + k (+ modifier) succeeds on k, and 0.001" more needs k + 1 — for disc bases and
oval bases, in the open and round a wall — and the legal ends agree with the exact end check.

The targets are placed with `geom.bases.ellipse_distance` (the separating-axis solver), which
the charge engine does not use to find its ends (it works on end sets and their boundary
pieces), and every answer is re-checked by `check_end` and the independent checker of
tests/test_charge.py."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from shapely.geometry import box

from geom import bases
from geom.combat._charge import charge, roll_table
from geom.model import Base, Battlefield, Model, Speed, Table, TerrainPiece, Unit
from geom.movement._charge_ends import charge_ends
from geom.movement._charge_region import check_end

from .test_charge import assert_answer_valid

HYDRA = (100, 40)  # the catalogue's oval base, mm


def unit(uid: str, owner: str, at: tuple[float, float], mm: float | tuple[float, float],
         angle: float = 0.0, speed: int = 4, size: int = 2) -> Unit:
    b = Base.from_mm(mm)
    m = Model.make("1", unit=uid, owner=owner, at=at, base=b, size=size, angle=angle)
    return Unit(uid, owner, size, (m,), b, speed=Speed(speed))


def target_at_gap(mover: Unit, mm: float | tuple[float, float], angle: float, gap: float,
                  direction: float) -> tuple[float, float]:
    """Where to put a target (base `mm`, turned `angle`) along `direction` from the mover so
    that the two bases are exactly `gap` apart (bisection on the exact base distance)."""
    me = mover.models[0].ellipse
    b = Base.from_mm(mm)
    u = (math.cos(direction), math.sin(direction))
    lo, hi = 0.0, gap + 2 * (me.a + b.a) + 1

    def gap_at(t: float) -> float:
        c = (me.cx + t * u[0], me.cy + t * u[1])
        from geom.model import Ellipse
        return bases.ellipse_distance(me, Ellipse(c[0], c[1], b.a, b.b, math.radians(angle)))

    for _ in range(200):
        mid = (lo + hi) / 2
        if gap_at(mid) < gap:
            lo = mid
        else:
            hi = mid
    t = (lo + hi) / 2
    return (me.cx + t * u[0], me.cy + t * u[1])


def open_table(mover_mm, target_mm, *, mover_angle=0.0, target_angle=0.0, need=7.0,
               direction=0.0, wall=False, at=(10.0, 18.0)) -> Battlefield:
    """A mover at `at` and a target placed so that the charge needs exactly `need`" in the
    open (the base gap is need + 1")."""
    me = unit("me", "blue", at, mover_mm, mover_angle)
    at = target_at_gap(me, target_mm, target_angle, need + 1.0, direction)
    foe = unit("foe", "red", at, target_mm, target_angle)
    terrain: tuple[TerrainPiece, ...] = ()
    if wall:  # a wall beside the straight line, not across it
        terrain = (TerrainPiece("wall", 3, box(12, 19.5, 15, 20.5)),)
    return Battlefield(Table(54, 36), terrain, (me, foe))


def shifted(bf: Battlefield, uid: str, dx: float, dy: float = 0.0) -> Battlefield:
    u = bf.unit(uid)
    return bf.replace_unit(replace(u, models=tuple(m.moved_to((m.at[0] + dx, m.at[1] + dy))
                                                   for m in u.models)))


# ------------------------------------------------------------------ exactly Speed + k

@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("modifier", [0, -2, 1])
def test_disc_charge_needing_exactly_speed_plus_k_succeeds_on_k(k: int, modifier: int) -> None:
    need = 4 + k + modifier
    bf = open_table(32, 40, need=need)
    a = charge(bf, "me", ["foe"], modifier=modifier, place=False)
    assert a.min_distance == pytest.approx(need, abs=1e-6)
    assert a.min_roll == k and a.details["exact"] and "uncertain_rolls" not in a.details
    # 0.001" further: k is no longer enough
    b = charge(shifted(bf, "foe", 0.001), "me", ["foe"], modifier=modifier, place=False)
    assert b.min_distance == pytest.approx(need + 0.001, abs=1e-6)
    assert b.min_roll == (k + 1 if k < 6 else None)


@pytest.mark.parametrize("k", [1, 3, 6])
@pytest.mark.parametrize(("mover", "target"), [(32, HYDRA), (HYDRA, 50), (HYDRA, HYDRA)])
def test_oval_charge_needing_exactly_speed_plus_k_succeeds_on_k(k, mover, target) -> None:
    need = 4 + k - 2
    bf = open_table(mover, target, mover_angle=35.0, target_angle=110.0, need=need,
                    direction=0.3)
    a = charge(bf, "me", ["foe"], modifier=-2, place=False)
    assert a.min_distance == pytest.approx(need, abs=1e-6)
    assert a.min_roll == k and "uncertain_rolls" not in a.details
    assert check_end(bf, bf.unit("me"), bf.unit("me").models[0], a.end, [bf.unit("foe")])
    far = shifted(bf, "foe", 0.001 * math.cos(0.3), 0.001 * math.sin(0.3))
    b = charge(far, "me", ["foe"], modifier=-2, place=False)
    assert b.min_roll == (k + 1 if k < 6 else None)


def test_exact_threshold_with_a_wall_beside_the_way_and_full_answer() -> None:
    bf = open_table(32, 32, need=7.0, wall=True)
    a = charge(bf, "me", ["foe"], modifier=-2)
    assert a.min_distance == pytest.approx(7.0, abs=1e-6) and a.min_roll == 5
    assert_answer_valid(bf, a)


def test_threshold_round_a_corner_is_decided() -> None:
    """Round a wall the distance is an exact tangent path: stating it to the micro-inch, every
    roll is decided and the verdict follows the distance."""
    me = unit("me", "blue", (10, 18), 32, speed=6)
    foe = unit("foe", "red", (20, 18), 32)
    wall = TerrainPiece("wall", 3, box(14, 15, 15, 21))
    bf = Battlefield(Table(54, 36), (wall,), (me, foe))
    a = charge(bf, "me", ["foe"], place=False)
    assert a.possible and "uncertain_rolls" not in a.details
    assert a.min_roll == roll_table(6, 0, a.min_distance).min_roll
    # the path bends round the wall and is longer than the straight line
    assert a.min_distance > 10 - 2 * 16 / 25.4 - 1 + 0.1
    assert a.details["path_summary"]["turning_points"]


# ------------------------------------------------------------------ properties

@settings(max_examples=25, deadline=None)
@given(st.floats(5.0, 11.0), st.floats(-math.pi, math.pi), st.sampled_from([25, 32, 40, 50]),
       st.sampled_from([-2, 0, 1]))
def test_min_roll_is_monotone_in_distance_and_modifier(need, direction, mm, modifier):
    bf = open_table(32, mm, need=need, direction=direction, at=(27.0, 18.0))
    rolls = []
    for extra in (0.0, 0.5, 1.0):
        moved = shifted(bf, "foe", extra * math.cos(direction), extra * math.sin(direction))
        a = charge(moved, "me", ["foe"], modifier=modifier, place=False)
        assert a.min_distance == pytest.approx(need + extra, abs=1e-6)
        rolls.append(a.min_roll if a.min_roll is not None else 7)
    assert rolls == sorted(rolls)
    by_mod = [charge(bf, "me", ["foe"], modifier=m, place=False).min_roll or 7
              for m in (-3, -1, 0, 2)]
    assert by_mod == sorted(by_mod, reverse=True)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_end_sets_agree_with_the_exact_end_check(seed: int) -> None:
    """Membership of the charge's end sets (discs, grown footprints, exclusions) against
    `check_end` (bases, footprints and engagement checked model by model), on random points
    away from the boundary by more than the tolerance."""
    rng = np.random.default_rng(seed)
    me = unit("me", "blue", (6, 6), 32)
    tx, ty = rng.uniform(12, 16), rng.uniform(8, 12)
    foe = Unit("foe", "red", 2, tuple(
        Model.make(str(i), unit="foe", owner="red", at=(tx + 1.5 * i, ty), base=Base.from_mm(32),
                   size=2) for i in range(2)), Base.from_mm(32))
    other = unit("other", "red", (tx + rng.uniform(-3, 3), ty + rng.choice([-3.5, 3.5])), 40)
    wall = TerrainPiece("crate", 1, box(tx - 3, ty - 0.6, tx - 2.2, ty + 0.6))
    bf = Battlefield(Table(30, 20), (wall,), (me, foe, other))
    lead = me.models[0]
    ce = charge_ends(bf, me, lead, [foe])
    assert ce.exact
    pts = np.column_stack((rng.uniform(tx - 5, tx + 7, 400), rng.uniform(ty - 5, ty + 5, 400)))
    got = np.zeros(len(pts), dtype=bool)
    for es in ce.inner:
        got |= es.contains(pts)
    for p, g in zip(pts, got, strict=True):
        at = (float(p[0]), float(p[1]))
        moved = lead.moved_to(at)
        # skip points within 1e-5" of a boundary (the tolerance decides those)
        margins = [abs(bases.ellipse_distance(moved.ellipse, o.ellipse) - d)
                   for o in (*foe.models, *other.models) for d in (0.0, 1.0)]
        margins.append(abs(wall.footprint.distance(moved.ellipse.shape.centroid) - lead.base.a))
        if min(margins) < 1e-5:
            continue
        assert g == check_end(bf, me, lead, at, [foe]).ok, at


# ------------------------------------------------------------------ the round-2 worked examples

def test_worked_example_queen_on_creep_succeeds_on_2_instead_of_3() -> None:
    """Round 2, movement phase: the queen (Speed 4, +1 on creep) charges the marines: "the charge
    now succeeds on 2+ instead of 3+"; James rolls a 2 and she gets into close combat."""
    queen = unit("queen", "blue", (10, 18), 80, speed=4, size=3)
    at = target_at_gap(queen, 32, 0.0, 6.5 + 1.0, 0.0)  # a charge of 6.5"
    marines = unit("marines", "red", at, 32)
    bf = Battlefield(Table(54, 36), (), (queen, marines))
    off_creep = charge(bf, "queen", ["marines"], modifier=0, place=False)
    on_creep = charge(bf, "queen", ["marines"], modifier=1, place=False)
    assert off_creep.min_roll == 3 and on_creep.min_roll == 2
    assert 2 in on_creep.details["successes"]


def test_worked_example_zerglings_need_5_and_roll_4() -> None:
    """Round 2: the new zerglings "need a 5+ to get into engagement; unfortunately a 4"."""
    lings = unit("lings", "blue", (10, 18), 32, speed=4, size=1)
    at = target_at_gap(lings, 32, 0.0, 8.6 + 1.0, 0.0)
    queen_target = unit("foe", "red", at, 32)
    bf = Battlefield(Table(54, 36), (), (lings, queen_target))
    a = charge(bf, "lings", ["foe"], place=False)
    assert a.min_roll == 5 and 4 not in a.details["successes"]


def test_worked_example_multi_charge_through_grass() -> None:
    """Round 2: zerglings declare a multi-charge on the marauders and the new marines; to succeed
    the leading model must engage both; a 6 succeeds, and the zerglings crossing the shrubs
    remove them."""
    b32 = Base.from_mm(32)
    lings = Unit("lings", "blue", 1, (Model.make("1", unit="lings", owner="blue", at=(10, 18),
                                                 base=b32, size=1),), b32, speed=Speed(4))
    mar = unit("marauders", "red", (21.2, 17.0), 50)
    marines = unit("marines", "red", (21.2, 19.3), 32)
    grass = TerrainPiece("shrubs", 2, box(13, 16, 15, 20), kind="grass")
    bf = Battlefield(Table(54, 36), (grass,), (lings, mar, marines))
    both = charge(bf, "lings", ["marauders", "marines"])
    assert both.possible and both.min_roll == 6
    assert set(both.details["end_check"]["engaged_with"]) == {"marauders", "marines"}
    assert "shrubs" in both.details["destroys_grass"]
    alone = charge(bf, "lings", ["marines"], place=False)
    assert alone.min_distance < both.min_distance


@settings(max_examples=12, deadline=None)
@given(st.floats(5.0, 9.5), st.sampled_from([32, 40, HYDRA]), st.sampled_from([25, 50, HYDRA]),
       st.floats(0, 2 * math.pi), st.booleans())
@example(7.0, 32, 25, 0.0, False)  # base contact 8" away: rolls 4-6 end in it, 3 does not
def test_8_7_7_each_roll_ends_within_its_distance_and_in_contact_when_it_reaches(
        need, mover_mm, target_mm, direction, wall):
    # §8.7.7 steps 3-4: a roll under the smallest successful one fails; every other roll ends
    # on a legal end no further than its charge distance, and once the distance reaches base
    # contact (the answer's contact_distance) the end is in base contact
    bf = open_table(mover_mm, target_mm, need=need, direction=direction, wall=wall)
    base = charge(bf, "me", ["foe"], place=False)
    assert base.possible or base.min_roll is None
    contact = base.details.get("contact_distance")
    reached_contact = []
    for r in range(1, 7):
        a = charge(bf, "me", ["foe"], place=False, roll=r)
        assert a.min_roll == base.min_roll and a.min_distance == base.min_distance
        if base.min_roll is None or r < base.min_roll:
            assert a.details.get("roll_succeeds") in (False, None)
            continue
        assert a.details["roll_succeeds"] and a.details["roll_distance"] == 4 + r
        assert a.details["end_path_length"] <= 4 + r + 1e-6
        assert check_end(bf, bf.unit("me"), bf.unit("me").models[0], a.end, [bf.unit("foe")]).ok
        if contact is not None and contact <= 4 + r + 1e-6:  # exactly enough is enough
            assert a.details["end_kind"] == "base contact"
            reached_contact.append(r)
    if (need, mover_mm, target_mm) == (7.0, 32, 25):
        assert reached_contact == [4, 5, 6]
