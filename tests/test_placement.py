"""Directly towards / away (§4.5), PLACE X, placing a unit, deploying (§8.5.5)."""

from __future__ import annotations

import math

import pytest
from shapely.geometry import LineString, box

from geom.errors import TmgError
from geom.model import Battlefield, Deployment, Speed, Table, TerrainPiece
from geom.movement import _placement as pl

from .test_movement import mk_unit


def test_directly_towards_open_ground_moves_full_distance() -> None:
    me = mk_unit("m", "red", [(4, 6)])
    en = mk_unit("e", "blue", [(16, 6)])
    bf = Battlefield(Table(24, 12), (), (me, en))
    v = pl.directly(bf, me, me.models[0], en, 5.0)
    assert v.ok and v.witness == pytest.approx((9.0, 6.0), abs=1e-6)
    assert v.details["full"]


def test_directly_towards_stops_outside_engagement_range() -> None:
    me = mk_unit("m", "red", [(4, 6)])
    en = mk_unit("e", "blue", [(8, 6)])
    bf = Battlefield(Table(24, 12), (), (me, en))
    v = pl.directly(bf, me, me.models[0], en, 5.0)
    r = me.models[0].base.a + en.models[0].base.a
    assert v.ok
    gap = math.dist(v.witness, (8, 6)) - r
    assert 1.0 < gap < 1.02


def test_directly_towards_detours_round_a_blocker_then_rejoins_the_line() -> None:
    me = mk_unit("m", "red", [(4, 6)])
    en = mk_unit("e", "blue", [(20, 6)])
    post = TerrainPiece("post", 3, box(6, 5.6, 6.8, 6.4))
    bf = Battlefield(Table(24, 12), (post,), (me, en))
    v = pl.directly(bf, me, me.models[0], en, 8.0)
    assert v.ok
    x, y = v.witness
    assert y == pytest.approx(6.0, abs=1e-9) and 11.0 < x < 12.0  # on the line, < 8" along it
    assert v.details["path_length"] == pytest.approx(8.0, abs=0.011)


def test_directly_away_and_table_edge() -> None:
    me = mk_unit("m", "red", [(3, 6)])
    en = mk_unit("e", "blue", [(10, 6)])
    bf = Battlefield(Table(24, 12), (), (me, en))
    v = pl.directly(bf, me, me.models[0], en, 6.0, away=True)
    assert v.ok
    # stops with the base at the table edge (the path keeps the 0.5" edge clearance)
    assert v.witness[0] == pytest.approx(me.models[0].base.a, abs=0.02) or \
        v.witness[0] == pytest.approx(0.5, abs=0.02) or v.witness[0] >= 0.5
    assert math.dist(v.witness, (10, 6)) > 7


def test_leading_model_for_directly_is_the_one_with_the_shortest_path() -> None:
    me = mk_unit("m", "red", [(4, 6), (4, 9)])
    en = mk_unit("e", "blue", [(16, 6)])
    wall = TerrainPiece("w", 3, box(8, 3, 9, 8))
    bf = Battlefield(Table(24, 12), (wall,), (me, en))
    assert pl.leading_for_directly(bf, me, en).id == "2"


def test_place_within_x_and_legal() -> None:
    me = mk_unit("m", "red", [(4, 6)])
    en = mk_unit("e", "blue", [(9, 6)])
    mesa = TerrainPiece("mesa", 3, box(3, 8, 6, 11), standable=True)  # no access points
    bf = Battlefield(Table(24, 12), (mesa,), (me, en))
    m = me.models[0]
    assert pl.place(bf, me, m, (6, 6), 3).ok
    assert not pl.place(bf, me, m, (7.5, 6), 3).ok                 # reaches 4.26" away
    assert not pl.place(bf, me, m, (7.2, 6), 4).ok                 # in engagement range
    assert pl.place(bf, me, m, (4.5, 9.5), 5).ok                   # PLACE ignores elevation


def test_check_placement_coherency_and_overlaps() -> None:
    me = mk_unit("m", "red", [(4, 6), (5.5, 6), (7, 6)])
    bf = Battlefield(Table(24, 12), (), (me,))
    assert pl.check_placement(bf, me, {"1": (10, 6), "2": (11.5, 6), "3": (13, 6)}).ok
    bad = pl.check_placement(bf, me, {"1": (10, 6), "2": (10.5, 6), "3": (13, 6)})
    assert not bad.ok and any("overlaps" in f["reason"] for f in bad.details["failures"])
    far = pl.check_placement(bf, me, {"1": (10, 6), "2": (11.5, 6), "3": (16, 6)})
    assert not far.ok and far.details["failures"][0]["model"] == "3"


def deployment(table: Table) -> Deployment:
    zones = {"blue": box(0, table.depth - 6, table.width, table.depth),
             "red": box(0, 0, table.width, 6)}
    return Deployment("test", "Test", table,
                      {"red": (LineString([(0, 0), (table.width, 0)]),),
                       "blue": (LineString([(0, table.depth), (table.width, table.depth)]),)},
                      zones)


def test_deploy_from_the_entry_edge() -> None:
    t = Table(24, 12)
    me = mk_unit("m", "red", [(20, 10.5), (21.5, 10.5)], speed=Speed(6))
    wall = TerrainPiece("w", 3, box(0, 3, 10, 3.5))
    bf = Battlefield(t, (wall,), (me,), deployment=deployment(t))
    v = pl.deploy(bf, me, (12, 4))
    r = me.models[0].base.a
    assert v.ok and v.details["path_length"] == pytest.approx(4 + r, abs=1e-6)
    behind = pl.deploy(bf, me, (5, 4.5))  # behind the wall: round its end, too far
    assert not behind.ok and "Speed" in behind.reason
    into_zone = pl.deploy(bf, me, (12, 4), positions={"2": (12, 5.6)})
    assert not into_zone.ok and "zone of influence" in into_zone.reason
    ok = pl.deploy(bf, me, (12, 4), positions={"2": (13.5, 4)})
    assert ok.ok
    split = pl.deploy(bf, me, (12, 4), positions={"2": (16.5, 4)})
    assert not split.ok and "coherency" in split.reason or "3\"" in split.reason


def test_deploy_needs_an_edge() -> None:
    me = mk_unit("m", "red", [(2, 2)])
    bf = Battlefield(Table(24, 12), (), (me,))
    with pytest.raises(TmgError):
        pl.deploy(bf, me, (5, 5))
    assert pl.deploy(bf, me, (5, 2), edge="west").ok
