"""Gap clearance as the rulebook means it (§4.6, §8.5.3; GEOMETRY-RULES §6 revised): the base
keeps off every obstacle except in a gap, where its centre keeps half the required width.

Expected lengths are computed here by tangent-and-arc geometry (radius = base radius round a
lone corner); paths are checked by sweeping the real base along them (`base_is_legal`)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import box

from geom.model import Battlefield, Table, TerrainPiece
from geom.movement import _moves as mv

from ._movement_ref import grid_path_length, path_is_legal
from .test_movement import mk_unit

MM = 25.4


def round_wall_top(s, g, c1, c2, r):
    """Length of the path s → over the top of a wall whose top corners are c1, c2 → g,
    keeping distance r from the corners (tangent, arc, straight r above the top, arc,
    tangent)."""
    def tangent(p, c, sign):
        D = math.dist(p, c)
        phi = math.atan2(p[1] - c[1], p[0] - c[0])
        return math.sqrt(D * D - r * r), (phi + sign * math.acos(r / D)) % (2 * math.pi)
    t1, th1 = tangent(s, c1, -1)
    t2, th2 = tangent(g, c2, +1)
    return t1 + t2 + r * ((th1 - math.pi / 2) + (math.pi / 2 - th2)) + math.dist(c1, c2)


def wall_table(unit, *pieces, size=(30, 20)):
    return Battlefield(Table(*size), tuple(pieces), (unit,))


@pytest.mark.parametrize(("mm", "size", "large"), [(150, 3, True), (32, 1, False),
                                                    (40, 2, False)])
def test_base_rounds_a_lone_wall_end_clear_of_it(mm, size, large):
    """A Siege Tank (150 mm) and a marine (32 mm) round the end of a lone Size-3 wall: the
    whole base stays off the wall (radius = base radius, not half the gap width)."""
    u = mk_unit("u", "red", [(4, 4)], size=size, mm=mm, large=large)
    bf = wall_table(u, TerrainPiece("w", 3, box(10, 0, 11, 8)))
    p = mv.shortest_path(bf, u, (4, 4), (17, 4))
    r = mm / MM / 2
    assert p is not None
    assert p.length == pytest.approx(round_wall_top((4, 4), (17, 4), (10, 8), (11, 8), r),
                                     abs=1e-6)
    assert path_is_legal(bf, u, p)[0]
    # the old rule's path (centre 1.5" / 0.5" from the corner) is shorter and illegal
    c = u.gap_clearance / 2
    assert p.length > round_wall_top((4, 4), (17, 4), (10, 8), (11, 8), c) + 0.01


def test_tank_figure_round_the_corner():
    u = mk_unit("tank", "red", [(4, 4)], size=3, mm=150, large=True)
    bf = wall_table(u, TerrainPiece("w", 3, box(10, 0, 11, 8)))
    p = mv.shortest_path(bf, u, (4, 4), (17, 4))
    assert p is not None and p.length == pytest.approx(20.121550438, abs=1e-6)


def test_round_a_lone_model_of_another_unit():
    """Past a single enemy model the bases may not overlap: centre keeps r + a from its
    centre (two 32 mm bases: 1.26")."""
    u = mk_unit("m", "red", [(2, 10)], size=1, mm=32)
    e = mk_unit("e", "blue", [(6, 10)], size=1, mm=32)
    bf = Battlefield(Table(12, 20), (), (u, e))
    p = mv.shortest_path(bf, u, (2, 10), (10, 10))
    R = 32 / MM
    t = math.sqrt(16 - R * R)
    expect = 2 * t + 2 * R * math.asin(R / 4)  # tangent, arc over the top, tangent
    assert p is not None and p.length == pytest.approx(expect, abs=1e-6)
    assert path_is_legal(bf, u, p)[0]


@pytest.mark.parametrize(("gap", "size", "large", "mm", "passes"), [
    (1.0, 2, False, 32, True), (0.999, 2, False, 32, False),
    (3.0, 3, False, 100, True), (2.999, 3, False, 100, False),
    (3.0, 2, True, 150, True), (2.999, 2, True, 150, False)])
def test_gap_thresholds(gap, size, large, mm, passes):
    """A gap narrower than the base is passed when at least the required width (1"; 3" for
    Size 3+ or LARGE), exactly at the limit and not 0.001" under it."""
    u = mk_unit("u", "red", [(3.5, 8)], size=size, mm=mm, large=large)
    lo, hi = 8 - gap / 2, 8 + gap / 2
    bf = Battlefield(Table(24, 16), (TerrainPiece("s", 3, box(11, 0, 13, lo)),
                                     TerrainPiece("n", 3, box(11, hi, 13, 16))), (u,))
    p = mv.shortest_path(bf, u, (3.5, 8), (20.5, 8))
    assert (p is not None) is passes
    if p is not None:
        assert p.length == pytest.approx(17.0, abs=1e-9)
        assert path_is_legal(bf, u, p)[0]


def test_abutting_sections_are_no_gap():
    """Two wall sections that abut make one wall (a seam is no gap): the base goes round."""
    u = mk_unit("m", "red", [(4, 4)], size=1, mm=32)
    bf = wall_table(u, TerrainPiece("a", 3, box(10, 0, 11, 4)),
                    TerrainPiece("b", 3, box(10, 4, 11, 8)))
    p = mv.shortest_path(bf, u, (4, 4), (17, 4))
    r = 32 / MM / 2
    assert p is not None
    assert p.length == pytest.approx(round_wall_top((4, 4), (17, 4), (10, 8), (11, 8), r),
                                     abs=1e-6)


def test_gap_between_a_wall_and_an_enemy_model():
    """A wall end and an enemy base 1" apart make a gap a marine squeezes through."""
    u = mk_unit("m", "red", [(4, 9)], size=1, mm=32)
    a = 32 / MM / 2
    e = mk_unit("e", "blue", [(10.5, 9 + 1.0 + a)], size=1, mm=32)
    bf = Battlefield(Table(30, 20), (TerrainPiece("w", 3, box(10, 0, 11, 9)),), (u, e))
    p = mv.shortest_path(bf, u, (4, 9.5), (17, 9.5))
    assert p is not None and path_is_legal(bf, u, p)[0]
    # the base may only overlap the wall once it touches the model too: it enters the gap at
    # its pinch point, so the path bends slightly (a straight line would overlap the corner alone)
    assert 13.0 < p.length < 13.05
    e2 = mk_unit("e", "blue", [(10.5, 9 + 0.999 + a)], size=1, mm=32)
    bf2 = Battlefield(Table(30, 20), (TerrainPiece("w", 3, box(10, 0, 11, 9)),), (u, e2))
    p2 = mv.shortest_path(bf2, u, (4, 9.5), (17, 9.5))
    assert p2 is not None and p2.length > 13.5 and path_is_legal(bf2, u, p2)[0]


def test_u_shaped_channel_is_a_gap():
    """The two arms of one U-shaped piece, 1" apart, are two parts under the base: a marine
    goes into the channel though its base overlaps both arms."""
    from shapely.geometry import Polygon
    u_shape = Polygon([(8, 4), (16, 4), (16, 10), (8, 10), (8, 7.5), (14, 7.5), (14, 6.5),
                       (8, 6.5)])
    u = mk_unit("m", "red", [(4, 7)], size=1, mm=32)
    bf = wall_table(u, TerrainPiece("U", 3, u_shape))
    p = mv.shortest_path(bf, u, (4, 7), (12, 7))
    assert p is not None and p.length == pytest.approx(8.0, abs=1e-9)
    assert path_is_legal(bf, u, p)[0]


def test_wall_near_the_table_edge_is_passed_round_its_other_end():
    """The table edge makes no gap: a wall 1.1" from the edge leaves no room for a 32 mm
    base (1.26"), so the marine goes round the wall's far end."""
    u = mk_unit("m", "red", [(4, 1.5)], size=1, mm=32)
    bf = Battlefield(Table(20, 14), (TerrainPiece("w", 3, box(10, 1.1, 11, 8)),), (u,))
    p = mv.shortest_path(bf, u, (4, 1.5), (16, 1.5))
    assert p is not None and max(y for _, y in p.points) > 8
    assert path_is_legal(bf, u, p)[0]


@settings(max_examples=12, deadline=None)
@given(st.floats(0.6, 3.0), st.floats(3.5, 9.0), st.sampled_from([32, 50, 100]))
def test_swept_base_reference_and_grid(gap, wall_top, mm):
    """Every returned path passes the swept-base check, and is never longer than a grid
    path that keeps the base off everything (an upper bound)."""
    u = mk_unit("u", "red", [(3, 3)], size=2, mm=mm)
    bf = Battlefield(Table(20, 12), (TerrainPiece("a", 3, box(8, 0, 9, wall_top)),
                                     TerrainPiece("b", 3, box(8, wall_top + gap, 9, 12))), (u,))
    p = mv.shortest_path(bf, u, (3, 3), (15, 6))
    ref = grid_path_length(bf, u, (3, 3), (15, 6), h=0.25)
    if p is None:
        assert ref is None
        return
    ok, why = path_is_legal(bf, u, p)
    assert ok, why
    if ref is not None:
        assert p.length <= ref + 1e-6
    assert p.length >= math.dist((3, 3), (15, 6)) - 1e-9


def test_oval_rounds_the_corner_clear_of_it():
    """A hydralisk's 100 mm oval (Size 2) rounds the lone wall end with its whole base off
    the wall: the engine takes the oval as its circumscribed disc (radius = half the long
    axis, a legal bound), so the length is the tangent-and-arc figure for that disc, and the
    swept oval itself never touches the wall."""

    from geom.model import Ellipse

    u = mk_unit("h", "red", [(4, 4)], size=2, mm=(100, 50))
    bf = wall_table(u, TerrainPiece("w", 3, box(10, 0, 11, 8)))
    p = mv.shortest_path(bf, u, (4, 4), (17, 4))
    a = 100 / MM / 2
    assert p is not None
    assert p.length == pytest.approx(round_wall_top((4, 4), (17, 4), (10, 8), (11, 8), a),
                                     abs=1e-6)
    wall = box(10, 0, 11, 8)
    from ._movement_ref import path_samples
    for x, y in path_samples(p, 0.02):
        oval = Ellipse(float(x), float(y), a, 50 / MM / 2, 0.0).polygon(256, outer=True)
        assert oval.intersection(wall).area <= 1e-9


# ---- coherency links (GEOMETRY-RULES §7 revised): a line, not a base -------------------------

def _link(bf, unit):
    from geom.movement._coherency import links

    (lk,) = links(bf, unit)
    return lk


@pytest.mark.parametrize(("gap", "size", "large", "ok"), [
    (1.0, 2, False, True), (0.999, 2, False, False),
    (3.0, 3, False, True), (2.999, 3, False, False),
    (3.0, 1, True, True), (2.999, 1, True, False)])
def test_link_through_a_gap_at_the_width(gap, size, large, ok):
    """A link crosses a gap exactly as wide as the leading model's required width, and not
    0.001" narrower — a LARGE unit on 32 mm bases too (its width is 3")."""
    from .test_movement import gap_table

    u = mk_unit("u", "red", [(10.0, 6.0), (14.0, 6.0)], size=size, large=large, mm=32)
    bf = Battlefield(Table(24, 12), gap_table(gap), (u,))
    lk = _link(bf, u)
    assert lk.ok is ok
    if not ok:
        assert set(lk.blocked_by) == {"terrain/north", "terrain/south"}


def test_link_runs_along_a_lone_wall():
    """Off a gap only material stops a link: 0.2" beside a lone wall is a valid link (the
    earlier rule, half the width from every obstacle, broke it); across the wall it is not."""
    u = mk_unit("u", "red", [(5.0, 4.2), (8.0, 4.2)])
    wall = TerrainPiece("w", 3, box(2, 3, 12, 4))
    assert _link(wall_table(u, wall), u).ok
    v = mk_unit("u", "red", [(5.0, 2.4), (5.0, 4.6)])
    lk = _link(wall_table(v, wall), v)
    assert not lk.ok and lk.blocked_by == ("terrain/w",)


def test_link_past_a_seam_is_one_part():
    """Two abutting sections are one part: a link passing close to both, beside the seam,
    is not in a gap."""
    u = mk_unit("u", "red", [(5.0, 4.3), (9.0, 4.3)])
    a = TerrainPiece("a", 3, box(2, 3, 7, 4))
    b = TerrainPiece("b", 3, box(7, 3, 12, 4))
    assert _link(wall_table(u, a, b), u).ok


def test_link_between_a_wall_and_an_enemy_model():
    """A wall and an enemy base are two parts: the gap between them is judged by its width
    (the enemy's base edge to the wall)."""
    from geom.movement._coherency import links

    r = 32 / MM / 2
    for gap, ok in ((1.0, True), (0.999, False)):
        u = mk_unit("u", "red", [(6.0 + gap / 2, 1.0), (6.0 + gap / 2, 6.0)])
        foe = mk_unit("e", "blue", [(6.0 + gap + r, 3.5)])
        wall = TerrainPiece("w", 3, box(0, 3, 6, 4))
        bf = Battlefield(Table(30, 20), (wall,), (u, foe))
        (lk,) = links(bf, u)
        assert lk.ok is ok, (gap, lk)


def test_gaps_on_path_names_the_gap_and_its_width():
    """The picture's gap mark: a marine squeezing through a 1" gap passes one gap, 1.00" wide,
    between the two walls; rounding a lone wall end passes none."""
    from .test_movement import gap_table

    u = mk_unit("u", "red", [(4.0, 6.0)])
    bf = Battlefield(Table(24, 12), gap_table(1.0), (u,))
    p = mv.shortest_path(bf, u, (4, 6), (20, 6))
    assert p is not None
    (g,) = mv.gaps_on_path(bf, u, p.points)
    assert g.width == pytest.approx(1.0, abs=1e-9)
    assert set(g.sides) == {"terrain/north", "terrain/south"}
    lone = wall_table(u, TerrainPiece("w", 3, box(10, 0, 11, 8)))
    q = mv.shortest_path(lone, u, (4, 4), (17, 4))
    assert q is not None and mv.gaps_on_path(lone, u, q.points) == []


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_pieces_met_agree_with_the_overlay(seed: int) -> None:
    """The distance-only count of separate pieces a base meets (geom.paths._pieces) against the slow,
    obviously-correct overlay: a fine disc ∩ the part's material, its pieces counted — at
    random points near a top's bent edge line crossed by a model's base and an L-shaped
    wall."""
    import random

    import numpy as np
    import shapely
    from shapely.geometry import LineString, Point

    from geom.paths._pieces import Pieces

    rng = random.Random(seed)
    r = rng.uniform(0.5, 1.2)
    bend = LineString([(0, 0), (3, 0), (3 + rng.uniform(-1, 1), rng.uniform(1, 3)),
                       (rng.uniform(-1, 1), 2.5)])
    on = bend.interpolate(rng.uniform(0, 1), normalized=True)
    base = Point(on.x + rng.uniform(-0.3, 0.3), on.y + rng.uniform(-0.3, 0.3))
    ell = box(5, 0, 6, 3).union(box(5, 0, 8, 1))  # not convex: left to the overlay
    cores = np.array([bend, base, box(-2, -2, -1.5, -1)], dtype=object)
    extra = np.array([0.0, 0.63, 0.0])
    part = np.array([0, 0, 1])
    pcs = Pieces.build(cores, extra, part, 1e-6, 256)
    assert pcs.decides.all() and not Pieces.build(np.array([ell], dtype=object), np.zeros(1),
                                                    np.zeros(1, dtype=np.int64), 1e-6,
                                                    256).decides[0]
    material = shapely.union_all([bend, base.buffer(0.63, quad_segs=256)])
    checked = 0
    for _ in range(150):
        p = Point(rng.uniform(-1, 5), rng.uniform(-1, 4))
        if material.distance(p) >= r:
            continue
        disc = p.buffer(r, quad_segs=512)
        under = disc.intersection(material)
        # the overlay's own pieces, joined where they touch
        parts = shapely.get_parts(under)
        ref = len(shapely.get_parts(shapely.union_all(
            [g.buffer(1e-9) for g in parts]))) if len(parts) else 0
        got = pcs.count_met(p, r, np.array([0, 1]))
        if abs(material.distance(p) - r) < 1e-3:
            continue  # a rim grazing the material: the polygonised disc cannot say
        assert (got >= 2) == (ref >= 2), (p.wkt, r, got, ref)
        checked += 1
    assert checked > 0
