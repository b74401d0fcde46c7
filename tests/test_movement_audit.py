"""Audit regressions (rulebook §4.6, §8.5.3, §8.5.4, §8.7.7).

Hand-built scenes whose answers are derived by hand from the rules, not from the engine.
"""

from __future__ import annotations

import math

import pytest
from shapely.geometry import Point as SPoint
from shapely.geometry import box

from geom.combat._charge import charge
from geom.combat._disengage import disengage
from geom.model import Battlefield, Speed, Table, TerrainPiece
from geom.movement import _moves as mv

from .test_movement import gap_table, mk_unit


def test_size3_small_base_reaches_base_contact_with_a_lone_enemy() -> None:
    """§4.6: a gap is the space *between* obstacles; a lone enemy model in the open is not a
    gap, so a Size-3 model on a 50 mm base (radius < 1.5") can end in base contact. Before the
    fix, paths to regions cut every clearance zone out, so the charge said "base contact out
    of reach" while `check_move` accepted the very same end."""
    u = mk_unit("big", "red", [(4, 6)], size=3, mm=50, speed=Speed(6))
    e = mk_unit("m", "blue", [(12, 6)])
    bf = Battlefield(Table(24, 12), (), (u, e))
    r, re_ = u.models[0].base.a, e.models[0].base.a
    contact = 8 - r - re_                      # straight in until the bases touch
    a = charge(bf, "big", ["m"])
    assert a.possible
    assert a.min_distance == pytest.approx(contact - 1.0, abs=0.01)   # 1" short of contact
    assert a.details["end_kind"] == "base contact"                   # a 1 on the D6 is 7"
    assert a.details["contact_distance"] == pytest.approx(contact, abs=0.01)
    assert math.dist(a.end, e.models[0].at) == pytest.approx(r + re_, abs=1e-6)
    same = mv.check_move(bf, u, u.models[0], a.end, engage_ok=["m"], allowance=20)
    assert same.verdict.ok and same.path is not None
    assert same.path.length == pytest.approx(a.details["contact_distance"], abs=0.01)


def test_path_to_region_inside_a_single_clearance_zone() -> None:
    """A region lying wholly inside a wall's clearance zone (a Size-3 model on a 50 mm base
    standing next to a wall, open ground on its other side) is reached straight."""
    wall = TerrainPiece("wall", 3, box(11, 2, 12, 10))
    u = mk_unit("big", "red", [(4, 6)], size=3, mm=50)
    bf = Battlefield(Table(24, 12), (wall,), (u,))
    r = u.models[0].base.a
    region = SPoint(11 - r, 6).buffer(0.05)    # base touching the wall's west face
    p = mv.path_to_region(bf, u, (4, 6), region)
    assert p is not None
    assert p.length == pytest.approx(11 - r - 0.05 - 4, abs=0.01)
    assert region.buffer(1e-6).covers(SPoint(p.end))


def test_stepped_ends_do_not_open_a_narrow_gap() -> None:
    """The straight step into a clearance zone must not let a Size-3 model through a 2" gap:
    a region on the far side of the only (too narrow) gap stays out of reach."""
    u = mk_unit("big", "red", [(4, 6)], size=3, mm=50)
    bf = Battlefield(Table(24, 12), gap_table(2.0), (u,))
    assert mv.path_to_region(bf, u, (4, 6), SPoint(14.5, 6).buffer(0.6)) is None
    assert mv.path_to_region(bf, u, (4, 6), SPoint(20, 6).buffer(1.0)) is None


def test_ground_model_may_end_touching_an_enemy_flyer_and_flyer_ending_on_grass() -> None:
    """§8.5.3: ground and flying bases may end in contact; a flying model passing over GRASS
    does not destroy it, one ending on it does."""
    me = mk_unit("marines", "red", [(2, 6)])
    fly_enemy = mk_unit("mutas", "blue", [(10, 6)], flying=True)
    bf = Battlefield(Table(24, 12), (), (me, fly_enemy))
    r = 2 * me.models[0].base.a
    assert mv.end_position_ok(bf, me, (10 - r, 6)).ok
    grass = TerrainPiece("hedge", 2, box(6, 4, 8, 8), kind="grass")
    fly = mk_unit("vikings", "red", [(2, 6)], flying=True)
    bf2 = Battlefield(Table(24, 12), (grass,), (fly,))
    over = mv.check_move(bf2, fly, fly.models[0], (10, 6), allowance=8)
    assert over.verdict.ok and over.verdict.details["destroys_grass"] == []
    on = mv.check_move(bf2, fly, fly.models[0], (7, 6))
    assert on.verdict.ok and on.verdict.details["destroys_grass"] == ["hedge"]
    walk = mk_unit("marines", "red", [(2, 6)])
    bf3 = Battlefield(Table(24, 12), (grass,), (walk,))
    through = mv.check_move(bf3, walk, walk.models[0], (10, 6), allowance=8)
    assert through.verdict.ok and through.verdict.details["destroys_grass"] == ["hedge"]


def test_failed_disengage_removes_only_the_leading_model() -> None:
    """§8.5.4: if the leading model cannot end outside every enemy's engagement range the
    disengage fails: the unit does not move and the leading model is removed — not the unit."""
    us = mk_unit("us", "blue", [(9, 9), (9, 9 + 1.3)], speed=Speed(1))
    foes = [(9 + dx, 9 + dy) for dx in (-1.4, 0.0, 1.4) for dy in (-1.4, 0.0, 1.4, 2.7)
            if (dx, dy) not in ((0.0, 0.0), (0.0, 1.4))]
    foe = mk_unit("foe", "red", foes)
    bf = Battlefield(Table(18, 18), (), (us, foe))
    d = disengage(bf, us, leading="1")
    assert not d.possible
    assert d.destroyed == ["1"]
