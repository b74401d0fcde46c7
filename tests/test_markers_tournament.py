"""Impassable terrain moves off mission markers; the marker never moves (§9.3, tournament rules
"임무 마커와 통과 불가 지형"). Results are re-checked with plain shapely and against a brute-force
search over a grid of translations."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import shapely
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import Point, Polygon, box

from geom.model import Battlefield, Marker, Table, TerrainPiece, marker_colour
from maps import battlefield_by_name, deployment_ids, deployment_info, layout_ids, load_deployment
from maps.tournament import covered_markers, shift_terrain_off_markers

R = 16 / 25.4  # marker radius
T = Table(54, 36)


def mk(i, x, y):
    return Marker(i, (x, y), marker_colour(i))


def legal(bf: Battlefield, moved_ids: set[str]) -> list[str]:
    """Independent check of the moved pieces: on the table, off every marker disc, overlapping
    no other impassable piece (touching allowed)."""
    bad = []
    table = bf.table.polygon.buffer(1e-6)
    for pid in moved_ids:
        p = bf.piece(pid)
        if not table.contains(p.footprint):
            bad.append(f"{pid} off the table")
        for m in bf.markers:
            if p.footprint.distance(Point(m.at)) < R - 1e-6:
                bad.append(f"{pid} on marker {m.id}")
        for q in bf.terrain:
            if q.id in moved_ids or not q.impassable:
                continue
            if p.impassable and p.footprint.intersection(q.footprint).area > 1e-7:
                bad.append(f"{pid} overlaps {q.id}")
    return bad


def test_centred_square_moves_one_plus_radius_and_the_four_ways_tie():
    bf = Battlefield(T, (TerrainPiece("wall", 2, box(26, 17, 28, 19)),), markers=(mk(5, 27, 18),))
    new, shifts = shift_terrain_off_markers(bf)
    (s,) = shifts
    assert s.moved and s.marker == 5 and s.chooser == "roll-off"
    exact = 1 + R
    assert exact - 1e-9 <= s.distance <= exact + 6e-5  # never short, at most the polygon excess
    assert s.tied and len(s.alternatives) == 3
    dirs = {(round(x / s.distance), round(y / s.distance)) for x, y in
            (s.displacement, *s.alternatives)}
    assert dirs == {(1, 0), (-1, 0), (0, 1), (0, -1)}
    assert new.markers == bf.markers  # the marker never moves
    assert not legal(new, {"wall"})
    assert not covered_markers(new)


def test_off_centre_piece_takes_the_short_way():
    bf = Battlefield(T, (TerrainPiece("wall", 3, box(27.2, 17, 30, 19)),), markers=(mk(1, 27, 18),))
    _, (s,) = shift_terrain_off_markers(bf)
    assert s.displacement[0] == pytest.approx(R - 0.2, abs=6e-5)
    assert s.displacement[1] == pytest.approx(0, abs=1e-6)
    assert not s.tied and s.chooser == "blue"  # marker 1 is red: blue decides
    assert s.start == pytest.approx((28.6, 18)) and s.end == pytest.approx((28.6 + R - 0.2, 18),
                                                                            abs=1e-4)


def test_table_edge_and_other_pieces_are_respected():
    # the short way (left, 0.43") is off the table; right is blocked by another wall
    wall = TerrainPiece("wall", 2, box(0, 10, 1.2, 14))
    block = TerrainPiece("block", 2, box(1.6, 8, 3, 16))
    bf = Battlefield(T, (wall, block), markers=(mk(2, 0.9, 12),))
    new, (s,) = shift_terrain_off_markers(bf)
    assert s.moved and s.chooser == "red"
    dx, dy = s.displacement
    assert abs(dx) < 1e-6 and abs(dy) == pytest.approx(2 + R, abs=6e-5)
    assert s.tied  # up or down: equally near
    assert not legal(new, {"wall"})


def test_what_does_not_move():
    grass = TerrainPiece("shrubs", 2, box(26, 17, 28, 19), kind="grass")
    low = TerrainPiece("crate", 1, box(5, 5, 7, 7))
    # a plateau a ground unit can climb (an access point on it): markers may sit on high ground
    top = TerrainPiece("plateau", 3, box(40, 10, 50, 20), standable=True,
                       access_points=(box(39.5, 14, 40.5, 16),))
    bf = Battlefield(T, (grass, low, top),
                     markers=(mk(5, 27, 18), mk(1, 6, 6), mk(2, 45, 15)))
    assert covered_markers(bf) == []
    new, shifts = shift_terrain_off_markers(bf)
    assert shifts == [] and new == bf


def test_touching_is_not_covering():
    bf = Battlefield(T, (TerrainPiece("wall", 2, box(27 + R, 17, 30, 19)),),
                     markers=(mk(5, 27, 18),))
    assert covered_markers(bf) == []


def test_stacked_piece_rides_along_and_l_walls_move_whole():
    base = TerrainPiece("bunker", 2, box(20, 20, 24, 24), standable=True,
                        access_points=(box(19.5, 21, 20.5, 22),))
    wall = TerrainPiece("wall", 2, box(22, 22, 23, 23), on="bunker")
    pillar = TerrainPiece("pillar", 2, box(10, 10, 11, 11))
    bf = Battlefield(T, (base, wall, pillar), markers=(mk(5, 22.5, 22.5), mk(4, 10.5, 10.5)))
    # the bunker is standable (a marker may sit on it): only the wall on it covers marker 5
    new, shifts = shift_terrain_off_markers(bf)
    by = {s.piece: s for s in shifts}
    assert set(by) == {"wall", "pillar"}
    assert by["pillar"].chooser == "red" and by["wall"].chooser == "roll-off"
    # a standable block that is not standable moves, with what stands on it
    bf2 = Battlefield(T, (TerrainPiece("bunker", 2, box(20, 20, 24, 24)), wall),
                      markers=(mk(3, 22, 21),))
    new2, (s,) = shift_terrain_off_markers(bf2)
    assert set(s.parts) == {"bunker", "wall"}
    dx, dy = s.displacement
    for pid in ("bunker", "wall"):
        assert new2.piece(pid).footprint.equals_exact(
            affinity.translate(bf2.piece(pid).footprint, dx, dy), 1e-9)


@pytest.mark.parametrize("lid", layout_ids())
def test_every_official_layout_with_every_card_ends_clear(lid):
    lay = battlefield_by_name(lid)
    for cid in deployment_ids():
        info = deployment_info(cid)
        if not info["available"] or (info["table"]["width"], info["table"]["depth"]) != (
                lay.table.width, lay.table.depth):
            continue
        dep = load_deployment(cid)
        bf = Battlefield(lay.table, lay.terrain, markers=dep.markers, deployment=dep)
        new, shifts = shift_terrain_off_markers(bf)
        assert covered_markers(new) == [], (lid, cid)
        assert new.markers == bf.markers
        moved = {pid for s in shifts for pid in s.parts}
        assert all(s.moved for s in shifts)
        assert not legal(new, moved), (lid, cid, legal(new, moved))
        # pieces not moved are untouched
        for p in bf.terrain:
            if p.id not in moved:
                assert new.piece(p.id) == p
        for s in shifts:
            # arms of an L wall move by the same displacement
            for pid in s.parts:
                a, b = bf.piece(pid).footprint.centroid, new.piece(pid).footprint.centroid
                assert (b.x - a.x, b.y - a.y) == pytest.approx(s.displacement, abs=1e-9)
            assert s.distance < 2.0  # every official overlap is shallow


def test_official_case_l_wall_moves_as_one_piece():
    lay = battlefield_by_name("standard-6")
    dep = load_deployment("breach")
    bf = Battlefield(lay.table, lay.terrain, markers=dep.markers, deployment=dep)
    _, shifts = shift_terrain_off_markers(bf)
    by = {s.piece: s for s in shifts}
    assert "standard-6/L2" in by and len(by["standard-6/L2"].parts) == 2


def test_no_legal_spot():
    # a wall as wide as the table and a marker on it, with markers above and below it
    wall = TerrainPiece("wall", 2, box(0, 10, 54, 26))
    bf = Battlefield(T, (wall,), markers=(mk(5, 27, 18), mk(1, 5, 5), mk(2, 5, 31)))
    new, (s,) = shift_terrain_off_markers(bf)
    assert not s.moved and "no spot" in s.reason and new == bf


# ----------------------------------------------------------------------- brute-force minimality

def brute_best(bf: Battlefield, pid: str, upto: float, step: float,
               around: tuple[float, float, float] | None = None) -> float | None:
    """The shortest legal translation on a grid of spacing `step` within `upto` (None if none);
    with `around` = (dx, dy, r), only on the grid's points within r of that translation."""
    p = bf.piece(pid)
    others = [q.footprint for q in bf.terrain if q.id != pid and q.impassable]
    xs = np.arange(-upto, upto + step / 2, step)
    if around is not None:
        cx, cy, r = around
        xs_x = xs[np.abs(xs - cx) <= r]
        xs_y = xs[np.abs(xs - cy) <= r]
    else:
        xs_x = xs_y = xs
    best = None
    table = bf.table.polygon.buffer(1e-9)
    discs = [Point(m.at).buffer(R - 1e-4, quad_segs=64) for m in bf.markers]
    for dx in xs_x:
        for dy in xs_y:
            d = math.hypot(dx, dy)
            if d > upto or (best is not None and d >= best):
                continue
            g = affinity.translate(p.footprint, dx, dy)
            if not table.contains(g):
                continue
            if any(g.intersection(o).area > 1e-9 for o in others + discs):
                continue
            best = d
    return best


@settings(max_examples=25, deadline=None)
@example(w=3.0, h=2.0, ang=148.0, ox=-0.25, oy=-0.9375,  # a spot in a corner-to-edge wedge
         others=[(24.0, 13.25, 3.0, 1.875)])
@example(w=1.921875, h=2.25, ang=72.0, ox=0.0, oy=-1.0,  # a wedge only a 1/1280" grid resolves
         others=[(25.0, 13.0, 3.0, 2.5)])
@given(w=st.floats(0.8, 6), h=st.floats(0.8, 3), ang=st.floats(0, 180),
       ox=st.floats(-1, 1), oy=st.floats(-1, 1),
       others=st.lists(st.tuples(st.floats(22, 32), st.floats(13, 23), st.floats(0.5, 3),
                                 st.floats(0.5, 3)), max_size=3))
def test_shift_is_legal_and_as_short_as_a_brute_force_grid(w, h, ang, ox, oy, others):
    piece = affinity.rotate(box(27 - w / 2 + ox, 18 - h / 2 + oy, 27 + w / 2 + ox,
                                18 + h / 2 + oy), ang)
    assume(piece.distance(Point(27, 18)) < R - 1e-3)
    rest = []
    for i, (x, y, a, b) in enumerate(others):
        g = box(x, y, x + a, y + b)
        if g.intersects(piece) or g.distance(Point(27, 18)) < R:
            continue
        rest.append(TerrainPiece(f"o{i}", 2, g))
    bf = Battlefield(T, (TerrainPiece("p", 2, piece), *rest), markers=(mk(5, 27, 18),))
    new, (s,) = shift_terrain_off_markers(bf)
    assert s.moved
    assert not legal(new, {"p"})
    # Nothing on the grid is shorter than the answer (beyond the grid's own resolution), and a
    # grid fine enough comes within its resolution of it. A legal spot in a narrow wedge (a corner
    # against an edge) needs a finer grid than open ground, so near the answer the grid is refined
    # up to 64× (in a shrinking window) before the answer is called too long. The grid may find nothing at all when the
    # only legal spots near the answer form a slot narrower than its spacing (a piece just
    # fitting between two others): the answer's own legality is checked above, independently.
    step = 0.05
    brute = brute_best(bf, "p", s.distance + 2 * step, step)
    if brute is not None:
        assert brute >= s.distance - 1e-3 - 1e-9
        dx, dy = s.displacement
        for fine in (step, step / 4, step / 16, step / 64):
            near = brute_best(bf, "p", s.distance + 2 * step, fine,
                              around=(dx, dy, min(4 * step, 64 * fine)))
            if near is not None and near <= s.distance + fine * math.sqrt(2) + 1e-3:
                break
        else:
            raise AssertionError(f"no grid down to {step / 64:g}\" comes near the answer "
                                 f"{s.distance:.4f}\" (coarse grid: {brute:.4f}\")")


def test_shift_into_a_slot_narrower_than_the_grid():
    # Found by the property test above: a 3.328"-wide piece is pushed off the marker into the
    # 3.340" slot between two walls below it — legal, though a 0.05" grid finds no spot there.
    piece = box(27 - 3.328125 / 2, 18 - 1.5 - 1, 27 + 3.328125 / 2, 18 + 1.5 - 1)
    rest = (TerrainPiece("o0", 2, box(22.96875, 13, 22.96875 + 2.4375, 15)),
            TerrainPiece("o1", 2, box(28.75, 13, 29.75, 15)))
    bf = Battlefield(T, (TerrainPiece("p", 2, piece), *rest), markers=(mk(5, 27, 18),))
    new, (s,) = shift_terrain_off_markers(bf)
    assert s.moved and not legal(new, {"p"})
    moved = new.piece("p").footprint
    assert moved.distance(Point(27, 18)) >= R - 1e-4
    assert all(moved.intersection(o.footprint).area < 1e-9 for o in rest)
    # Straight down would catch o0 (its right edge at 25.406 is past the piece's left edge at
    # 25.336), so the piece goes down until its top edge clears the marker (top at 18 - R) and
    # right by 0.0703" into the slot: the shortest translation is the hypotenuse of the two.
    dx = 22.96875 + 2.4375 - piece.bounds[0]
    dy = piece.bounds[3] - (18 - R)
    assert s.distance == pytest.approx(math.hypot(dx, dy), abs=2e-4)  # circumscribed disc: 6e-5


def test_shapely_only_reference_on_the_marker_disc():
    """The move uses the circumscribed 256-gon of the marker: never short of the true disc."""
    from maps.tournament import _disc

    m = mk(5, 27, 18)
    d = _disc(m)
    assert d.buffer(1e-9).contains(Point(27, 18).buffer(R, quad_segs=256))
    assert shapely.hausdorff_distance(d, Point(27, 18).buffer(R, quad_segs=256)) < 6e-5
    assert isinstance(d, Polygon)


# ------------------------------------------------------------------ tops no ground unit reaches

def _mesa(**kw):
    return TerrainPiece("mesa", 3, box(25, 16, 29, 20), standable=True, **kw)


def test_9_3_top_no_ground_unit_can_reach_is_impassable_for_markers():
    """Keyword IMPASSABLE TERRAIN: "terrain with no access point leading to an adjacent
    elevation is impassable" — a mesa with no access point, not connected to a reachable top
    and not touching an entry edge may not hold a marker: it is moved off like a wall."""
    bf = Battlefield(T, (_mesa(),), markers=(mk(5, 27, 18),))
    (m, pp), = covered_markers(bf)
    assert (m.id, pp.id) == (5, "mesa")
    new, (s,) = shift_terrain_off_markers(bf)
    assert s.moved and "no ground unit can reach" in s.reason and "terrain/mesa" in s.reason
    assert covered_markers(new) == [] and not legal(new, {"mesa"})
    assert s.distance == pytest.approx(2 + R, abs=1e-3)  # half the 4" mesa plus the marker


@pytest.mark.parametrize("extra,why", [
    ({"access_points": (box(24.5, 17.5, 25.5, 18.5),)}, "an access point lies on it"),
])
def test_9_3_a_top_with_an_access_point_keeps_its_marker(extra, why):
    bf = Battlefield(T, (_mesa(**extra),), markers=(mk(5, 27, 18),))
    assert covered_markers(bf) == [], why


def test_9_3_a_top_connected_to_a_reachable_top_of_its_level_keeps_its_marker():
    # a hill with a ladder touches the mesa; both are high ground (Size 3): connected (FAQ)
    hill = TerrainPiece("hill", 3, box(29, 16, 33, 20), standable=True,
                        access_points=(box(32.5, 17.5, 33.5, 18.5),))
    bf = Battlefield(T, (_mesa(), hill), markers=(mk(5, 27, 18),))
    assert covered_markers(bf) == []
    # a touching top of another level (mid ground) does not connect them
    low = replace(hill, size=2)
    bf2 = Battlefield(T, (_mesa(), low), markers=(mk(5, 27, 18),))
    assert [pp.id for _, pp in covered_markers(bf2)] == ["mesa"]
    # nor does a reachable high top that stops 0.01" short
    apart = replace(hill, footprint=affinity.translate(hill.footprint, 0.01, 0))
    bf3 = Battlefield(T, (_mesa(), apart), markers=(mk(5, 27, 18),))
    assert [pp.id for _, pp in covered_markers(bf3)] == ["mesa"]


def test_9_3_a_top_touching_an_entry_edge_keeps_its_marker():
    """FAQ 배치: a unit may deploy straight onto high ground its entry edge touches."""
    dep = load_deployment("gauntlet")  # entry edges: the two long edges, y = 0 and y = 36
    cliff = TerrainPiece("cliff", 3, box(20, 0, 24, 4), standable=True)  # on blue's edge
    side = TerrainPiece("cliff", 3, box(0, 16, 4, 20), standable=True)  # on a short edge
    assert covered_markers(Battlefield(dep.table, (cliff,), markers=(mk(1, 22, 2),),
                                       deployment=dep)) == []
    assert [pp.id for _, pp in covered_markers(Battlefield(
        dep.table, (side,), markers=(mk(1, 2, 18),), deployment=dep))] == ["cliff"]
    # without a card, any edge that could be an entry edge counts (the long edges here)
    assert covered_markers(Battlefield(T, (cliff,), markers=(mk(1, 22, 2),))) == []
    inland = replace(cliff, footprint=affinity.translate(cliff.footprint, 0, 0.5))
    assert covered_markers(Battlefield(T, (inland,), markers=(mk(1, 22, 2.5),)))


def test_9_3_lost_temple_ramps_with_their_access_points_are_not_moved():
    """Decision (docs/rules.md#marker-terrain): any access point on a top makes it
    reachable; map 5's two Lost Temple Ramps hold each other's access point, and stay."""
    from geom.paths._tops import unreachable_tops
    from maps.tournament import entry_edges

    lay = battlefield_by_name("standard-5")
    dep = load_deployment("gauntlet")
    bf = Battlefield(lay.table, lay.terrain, markers=dep.markers, deployment=dep)
    assert unreachable_tops(bf, entry_edges(bf)) == {}
    assert all("Lost Temple" not in (pp.label or "") for _, pp in covered_markers(bf))
