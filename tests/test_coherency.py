"""Coherency (rulebook §4.4, FAQ): wholly within 3" of the leading model,
and a chain of links the leading model could travel."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, box

from geom.model import Battlefield, Table, TerrainPiece
from geom.movement._coherency import coherency, link_space, links

from ._movement_ref import zones
from .test_movement import mk_unit


def test_in_coherency_on_open_ground() -> None:
    u = mk_unit("m", "red", [(5, 6), (6.5, 6), (8, 6)])
    v = coherency(Battlefield(Table(20, 12), (), (u,)), "m")
    assert v.ok and v.details["failures"] == []


def test_model_beyond_3_inches_fails_by_name() -> None:
    u = mk_unit("m", "red", [(5, 6), (6.5, 6), (8.2, 6)])  # base reaches 3.2" from the leader
    v = coherency(Battlefield(Table(20, 12), (), (u,)), "m", leading="1")
    assert not v.ok
    assert [f["model"] for f in v.details["failures"]] == ["3"]
    assert "wholly within 3\"" in v.details["failures"][0]["reason"]


def test_link_through_a_wall_breaks_coherency() -> None:
    u = mk_unit("m", "red", [(5, 6), (6.9, 6)])
    wall = TerrainPiece("wall", 3, box(5.8, 0, 6.1, 12))
    v = coherency(Battlefield(Table(20, 12), (wall,), (u,)), "m")
    assert not v.ok
    f = v.details["failures"][0]
    assert f["model"] == "2" and "terrain/wall" in f["reason"]
    # Size-1 terrain and grass do not stop links
    for low in (TerrainPiece("crate", 1, box(5.8, 0, 6.1, 12)),
                TerrainPiece("hedge", 2, box(5.8, 0, 6.1, 12), kind="grass")):
        assert coherency(Battlefield(Table(20, 12), (low,), (u,)), "m").ok


def test_link_through_engaged_enemy_model_is_fine() -> None:
    u = mk_unit("m", "red", [(5, 6), (7.9, 6)])
    enemy = mk_unit("e", "blue", [(6.45, 6.2)])  # between the two, engaged with both
    v = coherency(Battlefield(Table(20, 12), (), (u, enemy)), "m")
    assert v.ok, v.details
    assert v.details["engaged_with"] == ["e/1"]
    # the same base belonging to another friendly unit blocks the link
    friend = mk_unit("f", "red", [(6.45, 6.2)])
    v2 = coherency(Battlefield(Table(20, 12), (), (u, friend)), "m")
    assert not v2.ok and "model/f/1" in v2.details["failures"][0]["reason"]


def test_link_space_is_kept_with_the_table_by_what_decides_it() -> None:
    """One link space per battlefield and question (Prepared.link_spaces): asked again — also
    for the unit moved, whose own models are never obstacles — it is the same object; other
    enemies to cross, or another table, give another; and the verdict does not depend on
    whether it was kept (a fresh table answers the same)."""
    u = mk_unit("m", "red", [(5, 6), (7.9, 6)])
    enemy = mk_unit("e", "blue", [(6.45, 6.2)])
    bf = Battlefield(Table(20, 12), (), (u, enemy))
    fs = link_space(bf, u, engaged=["e/1"])
    assert fs is link_space(bf, u, engaged=["e/1"])
    moved = bf.after_action("m", {"2": (8.5, 6)}).unit("m")
    assert link_space(bf, moved, engaged=["e/1"]) is fs
    assert link_space(bf, u, engaged=[]) is not fs
    assert link_space(Battlefield(Table(20, 12), (), (u, enemy)), u, engaged=["e/1"]) is not fs
    twice = coherency(bf, "m").details, coherency(bf, "m").details
    assert twice[0] == twice[1] == coherency(Battlefield(Table(20, 12), (), (u, enemy)),
                                             "m").details


def test_link_may_not_pass_a_gap_the_leading_model_could_not() -> None:
    """Two Size-2 models either side of a 0.8" slot in a wall: no link; 1.2": a link."""
    for gap, ok in ((0.8, False), (1.2, True)):
        walls = (TerrainPiece("s", 3, box(5.8, 0, 6.2, 6 - gap / 2)),
                 TerrainPiece("n", 3, box(5.8, 6 + gap / 2, 6.2, 12)))
        u = mk_unit("m", "red", [(5, 6), (7, 6)])
        assert coherency(Battlefield(Table(20, 12), walls, (u,)), "m").ok is ok


def test_link_through_access_point_to_a_top() -> None:
    top = TerrainPiece("plat", 3, box(6, 2, 12, 10), standable=True,
                       access_points=(box(5.5, 5, 6.5, 7),))
    u = mk_unit("m", "red", [(4.6, 6), (7.2, 6)])  # on the ground, and up on the platform
    assert coherency(Battlefield(Table(20, 12), (top,), (u,)), "m").ok
    u2 = mk_unit("m", "red", [(4.6, 3), (7.2, 3)])  # same, but across the cliff edge
    v = coherency(Battlefield(Table(20, 12), (top,), (u2,)), "m")
    assert not v.ok and "the edge of terrain/plat" in v.details["failures"][0]["reason"]
    assert v.details["links"][0]["blocked_by"] == ["edge/plat"]


def test_model_overhanging_a_top_edge_keeps_its_links() -> None:
    """FAQ: a base may overhang the edge of high ground; links on the top still work."""
    top = TerrainPiece("plat", 3, box(6, 2, 12, 10), standable=True,
                       access_points=(box(5.5, 5, 6.5, 7),))
    u = mk_unit("m", "red", [(8, 6), (6.2, 8)])  # 2nd centre 0.2" from the edge
    assert coherency(Battlefield(Table(20, 12), (top,), (u,)), "m").ok


def test_flying_links_ignore_terrain_and_models() -> None:
    u = mk_unit("mutas", "red", [(5, 6), (6.9, 6)], flying=True)
    wall = TerrainPiece("wall", 3, box(5.8, 0, 6.1, 12))
    other = mk_unit("e", "blue", [(5.95, 9)])
    assert coherency(Battlefield(Table(20, 12), (wall,), (u, other)), "mutas").ok


def test_chain_through_other_models() -> None:
    """The chain may run model to model: 3 links to 1 only through 2."""
    wall = TerrainPiece("wall", 3, box(6.2, 3, 6.5, 6.6))
    u = mk_unit("m", "red", [(5.4, 6), (6.35, 8.6), (7.3, 6)])
    v = coherency(Battlefield(Table(20, 12), (wall,), (u,)), "m")
    assert v.ok
    direct = [lk for lk in v.details["links"] if {lk["a"], lk["b"]} == {"1", "3"}]
    assert not direct[0]["ok"]


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_links_agree_with_independent_clearance_check(seed: int) -> None:
    rng = random.Random(seed)
    terrain = []
    for i in range(4):
        cx, cy = rng.uniform(2, 18), rng.uniform(2, 10)
        terrain.append(TerrainPiece(f"t{i}", 3, box(cx - rng.uniform(0.2, 2), cy - 0.3,
                                                     cx + rng.uniform(0.2, 2), cy + 0.3)))
    pts: list[tuple[float, float]] = []
    while len(pts) < 4:
        p = (rng.uniform(1, 19), rng.uniform(1, 11))
        if all(np.hypot(p[0] - q[0], p[1] - q[1]) > 1.3 for q in pts) and not any(
                t.footprint.buffer(0.7).contains(LineString([p, p]).centroid) for t in terrain):
            pts.append(p)
    u = mk_unit("m", "red", pts)
    bf = Battlefield(Table(20, 12), tuple(terrain), (u,))
    zs = zones(bf, u)
    for lk in links(bf, u):
        a, b = u.model(lk.a).at, u.model(lk.b).at
        seg = LineString([a, b])
        crosses_core = any(z.intersects(seg) for z, _ in zs)
        clear = all(z.distance(seg) >= d - 1e-9 for z, d in zs)
        if clear:
            assert lk.ok
        if crosses_core:
            assert not lk.ok


def test_bases_wider_than_3_inches_use_within_3():
    # Two 80 mm stalkers in base contact: the far rim is 3.15" from the leader's base, so a
    # literal "wholly within 3"" could never hold; §4.4's "further than 3"" decides instead.
    from geom.model import Base, Battlefield, Model, Table, Unit
    from geom.movement._coherency import coherency

    b = Base.from_mm(80)
    d = b.long
    near = tuple(Model.make(str(i), unit="s", owner="blue", at=(10 + i * d, 10), base=b, size=3)
                 for i in range(2))
    bf = Battlefield(Table(54, 36), (), (Unit("s", "blue", 3, near, b),))
    assert coherency(bf, "s").ok
    far = tuple(Model.make(str(i), unit="s", owner="blue", at=(10 + i * (d + 3.2), 10), base=b,
                           size=3) for i in range(2))
    bf = Battlefield(Table(54, 36), (), (Unit("s", "blue", 3, far, b),))
    v = coherency(bf, "s")
    assert not v.ok and "further than 3" in v.details["failures"][0]["reason"]
