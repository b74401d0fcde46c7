"""GRASS trampled by a move or a charge, and standable tops (rulebook §8.5.3 "지형 상호작용",
keyword GRASS, §8.5.4, §8.5.5, §8.8.1; FAQ v1.1 "지상 유닛이 이어지지 않은 고지대…", FAQ 배치
"고지대가 테이블 가장자리에 닿아 있으면…").

GRASS: "어떤 이동 액션(이동, 배치, 질주, 돌격, 이탈, 대열 좁히기) 중이든 선도 모델의 이동 경로가 풀숲
지형을 지나거나 유닛의 어느 모델이라도 풀숲 지형 위에서 끝나면, 그 풀숲 지형은 즉시 게임에서
제거됩니다." and "풀숲 위를 지나가는 공중 유닛은 풀숲 지형을 파괴하지 않습니다 … 풀숲 지형 위에서
끝나면 평소대로 제거됩니다." The round-2 worked example: "저글링이 풀숲을 지나가며 그것을 제거합니다."
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import box

from geom.combat._charge import charge
from geom.combat._close_ranks import can_close_ranks
from geom.combat._disengage import disengage
from geom.elevation import top_at
from geom.model import Base, Battlefield, Model, Speed, Table, TerrainPiece, Unit
from geom.movement import _moves as mv
from geom.movement._charge_region import check_end
from geom.movement._destroyed import destroyed_by, without
from geom.movement._placement import deploy
from geom.paths._navigator import navigator_for
from tmg.cli import main

from ._movement_ref import path_is_legal

B32 = Base.from_mm(32)
R = B32.a


def mk(uid: str, owner: str, pts, *, size: int = 1, speed: int = 6, flying: bool = False,
       leading: str | None = None) -> Unit:
    ms = tuple(Model.make(str(i + 1), unit=uid, owner=owner, at=p, base=B32, size=size,
                          flying=flying) for i, p in enumerate(pts))
    return Unit(uid, owner, size, ms, B32, speed=Speed(speed), flying=flying, leading=leading)


def shrubs(x0: float, y0: float, x1: float, y1: float, pid: str = "shrubs") -> TerrainPiece:
    return TerrainPiece(pid, 2, box(x0, y0, x1, y1), kind="grass", label="Shrubs")


# --------------------------------------------------------------------------- GRASS, charges

def test_grass_keyword_a_charge_ends_with_the_shrubs_it_tramples_gone():
    # a 0.2" hedge 0.27" in front of the target: every end within 1" of the marine is behind it.
    # Standing, it blocks engagement (Size-2 terrain, §7.2.1); a charge whose leading model
    # ends on it destroys it at once, so that end is engaged. The base must overlap the hedge
    # (touching does not trample it): the distance is the straight run to overlap it.
    hedge = shrubs(18.9, 10, 19.1, 26)
    lings = mk("lings", "red", [(10, 18)])
    marines = mk("marines", "blue", [(20, 18)], size=2)
    bf = Battlefield(Table(54, 36), (hedge,), (lings, marines))
    a = charge(bf, "lings", ["marines"])
    touch = 18.9 - R - 10
    assert a.possible and touch < a.min_distance <= touch + 1e-5
    assert a.details["exact"] and a.details["destroys_grass"] == ["shrubs"]
    assert "destroys GRASS Shrubs (terrain/shrubs)" in a.reason
    end = tuple(a.details["nearest_end"])  # the suggested end is in base contact
    assert end == pytest.approx((10 + a.min_distance, 18.0), abs=1e-9)
    after = without(bf, ["shrubs"])
    assert check_end(after, bf.unit("lings"), bf.unit("lings").models[0], end, [marines]).ok
    assert not check_end(bf, bf.unit("lings"), bf.unit("lings").models[0], end, [marines]).ok
    # the same hedge as a Size-2 wall is not trampled: the charge must go round it
    wall = TerrainPiece("shrubs", 2, box(18.9, 10, 19.1, 26))
    w = charge(Battlefield(Table(54, 36), (wall,), (lings, marines)), "lings", ["marines"])
    assert w.min_distance is None or w.min_distance > a.min_distance + 5


def test_grass_keyword_a_charge_through_thick_shrubs_needs_no_detour():
    # 0.5"-thick shrubs just in front: the nearest engaged end is on them (destroyed)
    hedge = shrubs(18.2, 10, 18.7, 26)
    lings = mk("lings", "red", [(10, 18)])
    marines = mk("marines", "blue", [(20, 18)], size=2)
    a = charge(Battlefield(Table(54, 36), (hedge,), (lings, marines)), "lings", ["marines"])
    assert a.min_distance == pytest.approx(20 - 2 * R - 1 - 10, abs=1e-9)
    assert a.details["destroys_grass"] == ["shrubs"]


@pytest.mark.parametrize("k", [1, 3, 6])
def test_grass_keyword_charge_exact_at_speed_plus_k(k):
    # the thin-hedge charge above needs d; with modifier m = d − Speed − k a roll of k is
    # exactly enough, and 0.001" less makes it k + 1 (or impossible)
    hedge = shrubs(18.9, 10, 19.1, 26)
    lings = mk("lings", "red", [(10, 18)], speed=2)
    marines = mk("marines", "blue", [(20, 18)], size=2)
    bf = Battlefield(Table(54, 36), (hedge,), (lings, marines))
    d = charge(bf, "lings", ["marines"], place=False).min_distance
    assert d is not None
    at = charge(bf, "lings", ["marines"], d - 2 - k, place=False)
    assert at.min_roll == k
    past = charge(bf, "lings", ["marines"], d - 2 - k - 0.001, place=False)
    assert past.min_roll == (k + 1 if k < 6 else None)


def test_grass_keyword_flying_models_passing_over_do_not_destroy_it():
    g = shrubs(10, 4, 12, 8)
    vikings = mk("vikings", "red", [(5, 6)], size=2, flying=True)
    marines = mk("marines", "red", [(5, 6)], size=2)
    bf = Battlefield(Table(24, 12), (g,), (vikings,))
    over = mv.check_move(bf, vikings, vikings.models[0], (16, 6), allowance=12).verdict
    assert over.ok and over.details["destroys_grass"] == []
    on = mv.check_move(bf, vikings, vikings.models[0], (11, 6), allowance=12).verdict
    assert on.ok and on.details["destroys_grass"] == ["shrubs"]  # ending on it does
    bf = Battlefield(Table(24, 12), (g,), (marines,))
    walk = mv.check_move(bf, marines, marines.models[0], (16, 6), allowance=12).verdict
    assert walk.ok and walk.details["destroys_grass"] == ["shrubs"]


@pytest.mark.parametrize(("closer", "gone"), [(0.0, []), (0.001, ["shrubs"])])
def test_grass_a_base_brushing_the_shrubs_tramples_them_only_when_it_overlaps(closer, gone):
    # the leading model's path is its base's swept area (docs/rules.md#crossing-a-piece)
    y0 = 6 + R - closer
    bf = Battlefield(Table(24, 12), (shrubs(10, y0, 12, y0 + 2),), (mk("m", "red", [(4, 6)]),))
    u = bf.unit("m")
    v = mv.check_move(bf, u, u.models[0], (18, 6), allowance=14).verdict
    assert v.ok and v.details["destroys_grass"] == gone


def test_tmg_charge_names_the_grass_destroyed(tmp_path, capsys):
    f = tmp_path / "s.json"
    f.write_text(json.dumps({
        "format": "tmg-scenario/1", "table": {"width": 54, "depth": 36},
        "terrain": [{"id": "hedge", "size": 2, "kind": "grass", "label": "Shrubs",
                     "polygon": [[18.9, 10], [19.1, 10], [19.1, 26], [18.9, 26]]}],
        "unit": [{"id": "lings", "type": "zergling", "owner": "red", "models": [[10, 18]]},
                 {"id": "marines", "type": "marine", "owner": "blue", "models": [[20, 18]]}]}),
        encoding="utf-8")
    assert main(["charge", str(f), "lings", "--targets", "marines", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["possible"] and r["destroys_grass"] == ["hedge"] and r["removed"] == []
    assert main(["charge", str(f), "lings", "--targets", "marines"]) == 0
    assert "destroys GRASS (gone for this charge's end): Shrubs (terrain/hedge)" in \
        capsys.readouterr().out


# the exact charge against a brute-force reference: every end on a 0.1" grid round the
# target, reached by the engine's shortest path to it, legal on the table without what that
# path (its swept base) destroys. The engine's charge may not be longer than the best of
# those, and its own end must pass the same test.

@st.composite
def hedged_targets(draw):
    angle = draw(st.floats(0, 360))
    gap = draw(st.floats(0.05, 0.9))
    thick = draw(st.floats(0.1, 0.6))
    length = draw(st.floats(2.0, 9.0))
    shift = draw(st.floats(-3.0, 3.0))
    hedge = box(20 + R + gap, 18 - length / 2 + shift, 20 + R + gap + thick,
                18 + length / 2 + shift)
    pieces = [TerrainPiece("hedge", 2, affinity.rotate(hedge, angle, origin=(20, 18)),
                           kind="grass")]
    if draw(st.booleans()):  # a wall on another side of the target
        wa = draw(st.floats(0, 360))
        w = box(20 + R + 0.1, 16.5, 20 + R + 0.4, 19.5)
        pieces.append(TerrainPiece("wall", 3, affinity.rotate(w, wa, origin=(20, 18))))
    dist = draw(st.floats(5.0, 9.0))
    heading = math.radians(draw(st.floats(0, 360)))
    start = (20 + dist * math.cos(heading), 18 + dist * math.sin(heading))
    return pieces, start


@settings(max_examples=6, deadline=None)
@given(hedged_targets())
def test_grass_charge_against_a_sampled_reference(scene):
    pieces, start = scene
    lings = mk("lings", "red", [start], speed=12)
    marines = mk("marines", "blue", [(20, 18)], size=2)
    bf = Battlefield(Table(40, 36), tuple(pieces), (lings, marines))
    if any(p.footprint.distance(Model.make("x", unit="x", owner="red", at=start, base=B32,
                                           size=1).ellipse.shape) <= 0 for p in pieces):
        return
    lead = lings.models[0]
    a = charge(bf, "lings", ["marines"], place=False)
    nav = navigator_for(bf, lings)
    best = math.inf
    xs = np.arange(20 - 2.4, 20 + 2.4, 0.1)
    for x in xs:
        for y in np.arange(18 - 2.4, 18 + 2.4, 0.1):
            if math.dist((x, y), (20, 18)) > 2 * R + 1:
                continue
            p = nav.shortest_path(start, (x, y))
            if p is None or p.length >= best:
                continue
            gone = destroyed_by(bf, lings, lead, p).grass
            if check_end(without(bf, gone), lings, lead, (x, y), [marines]).ok:
                best = p.length
    if a.min_distance is None:
        assert best == math.inf
        return
    assert a.min_distance <= best + 1e-6
    # the engine's own end and path pass the same test
    end = tuple(a.details["nearest_end"])
    path = nav.shortest_path(start, end)
    assert path is not None and path.length <= a.min_distance + 1e-6
    assert path_is_legal(bf, lings, path)[0]
    gone = destroyed_by(bf, lings, lead, path).grass
    assert check_end(without(bf, gone), lings, lead, end, [marines]).ok


# --------------------------------------------------------------------------- standable tops

def test_faq_touching_tops_of_one_level_are_connected():
    a = TerrainPiece("a", 3, box(4, 2, 10, 10), standable=True,
                     access_points=(box(3.5, 5, 4.5, 7),))
    b = TerrainPiece("b", 3, box(10, 2, 16, 10), standable=True)  # no access point of its own
    u = mk("marines", "red", [(7, 6)], size=2)
    bf = Battlefield(Table(24, 12), (a, b), (u,))
    p = mv.shortest_path(bf, u, (7, 6), (13, 6))
    assert p is not None and p.length == pytest.approx(6.0, abs=1e-9)  # across the seam
    assert path_is_legal(bf, u, p)[0]
    v = mv.check_move(bf, u, u.models[0], (13, 6)).verdict
    assert v.ok and v.details["standing_on"] == "b"
    # a Size-1 top beside a Size-3 one is another elevation: the seam is a wall
    low = TerrainPiece("b", 1, box(10, 2, 16, 10), standable=True,
                       access_points=(box(15.5, 5, 16.5, 7),))
    q = mv.shortest_path(Battlefield(Table(24, 12), (a, low), (u,)), u, (7, 6), (13, 6))
    assert q is not None and q.length > 15
    # 0.001" of air between two Size-3 tops: not connected
    apart = TerrainPiece("b", 3, box(10.001, 2, 16, 10), standable=True,
                         access_points=(box(15.5, 5, 16.5, 7),))
    r = mv.shortest_path(Battlefield(Table(24, 12), (a, apart), (u,)), u, (7, 6), (13, 6))
    assert r is not None and r.length > 15


def test_faq_deploy_onto_a_top_the_entry_edge_touches():
    cliff = TerrainPiece("cliff", 3, box(10, 0, 16, 6), standable=True)  # touches y = 0
    u = mk("marines", "red", [(30, 20)], size=2)
    bf = Battlefield(Table(54, 36), (cliff,), (u,))
    v = deploy(bf, u, (13, 3), edge="south")
    assert v.ok, v.reason
    assert v.details["path_length"] == pytest.approx(3 + R, abs=1e-9)  # from touching the edge
    # the same cliff 0.5" in from the edge has no way up (no access point)
    inset = TerrainPiece("cliff", 3, box(10, 0.5, 16, 6.5), standable=True)
    w = deploy(Battlefield(Table(54, 36), (inset,), (u,)), u, (13, 3.5), edge="south")
    assert not w.ok


def test_8_5_4_disengage_across_the_top_it_stands_on():
    # both units on a Size-2 platform whose only access point is far away: the unit steps back
    # across the platform (it is no obstacle to a unit standing on it)
    deck = TerrainPiece("deck", 2, box(5, 5, 25, 25), standable=True,
                        access_points=(box(24.5, 24, 25.5, 25),))
    us = mk("us", "red", [(15, 15)], size=2, speed=4)
    foe = mk("foe", "blue", [(15, 15 + 2 * R + 0.3)], size=2)
    bf = Battlefield(Table(30, 30), (deck,), (us, foe))
    d = disengage(bf, us)
    assert d.possible and d.end is not None and d.path_length is not None
    assert d.path_length == pytest.approx(1.0 - 0.3, abs=1e-5)  # just past 1" away
    assert top_at(bf, d.end).id == "deck"
    assert math.dist(d.end, foe.models[0].at) - 2 * R > 1.0


def test_8_8_1_close_ranks_on_the_top_it_stands_on():
    deck = TerrainPiece("deck", 2, box(5, 5, 25, 25), standable=True,
                        access_points=(box(24.5, 24, 25.5, 25),))
    us = mk("us", "red", [(15, 15), (15, 15 - 2 * R)], size=2, leading="1")
    foe = mk("foe", "blue", [(15, 15 + 2 * R + 0.6)], size=2)
    bf = Battlefield(Table(30, 30), (deck,), (us, foe))
    v = can_close_ranks(bf, us, best=True)
    assert v.ok and v.details["gap"] <= 1e-6, v.reason  # into base contact, on the deck
    assert v.details["path_length"] == pytest.approx(0.6, abs=1e-6)


def test_8_5_4_disengage_through_shrubs_destroys_them():
    g = shrubs(8, 10, 14.3, 20)  # just behind the unit: stepping back tramples it
    us = mk("us", "red", [(15, 15)], size=2, speed=6)
    foe = mk("foe", "blue", [(15 + 2 * R + 0.3, 15)], size=2)
    bf = Battlefield(Table(30, 30), (g,), (us, foe))
    d = disengage(bf, us)
    assert d.possible and d.destroys_grass == ["shrubs"] and "destroys GRASS" in d.reason


# --------------------------------------------------------------------------- exact end sets
# disengage and close ranks against a grid of end points, each judged by the exact checks
# alone (no end set): the engine finds a move whenever the grid does, never a longer one (a
# single-model disengage), and its own end passes the same checks

@st.composite
def crowded(draw):
    n = draw(st.integers(1, 3))
    a0 = draw(st.floats(0, 2 * math.pi))
    foes = []
    for k in range(n):
        ang = a0 + k * 2 * math.pi / n + draw(st.floats(-0.3, 0.3))
        gap = draw(st.floats(0.0, 0.95)) if k == 0 else draw(st.floats(0.2, 3.0))
        d = 2 * R + gap
        foes.append((15 + d * math.cos(ang), 15 + d * math.sin(ang)))
    walls = []
    if draw(st.booleans()):  # a wall on one side, clear of the unit
        x = draw(st.sampled_from([11.4, 12.2, 16.8, 17.6])) + draw(st.floats(0, 0.4))
        walls.append(TerrainPiece("wall", 3, box(x, 12, x + 0.4, 18)))
    if draw(st.booleans()):
        walls.append(TerrainPiece("deck", 2, box(11, 11, 19, 19), standable=True,
                                  access_points=(box(18.5, 18, 19.5, 19),)))
    return foes, walls


def _crowd(foes, walls, speed=2, n=1):
    us = mk("us", "red", [(15, 15), (15 - 2 * R, 15)][:n], size=2, speed=speed, leading="1")
    foe = mk("foe", "blue", foes, size=2)
    bf = Battlefield(Table(30, 30), tuple(walls), (us, foe))
    ms = list(bf.models())
    if any(math.dist(a.at, b.at) < 2 * R - 1e-9 for i, a in enumerate(ms) for b in ms[i + 1:]):
        return None
    if any(w.footprint.distance(Model.make("x", unit="x", owner="red", at=m.at, base=B32,
                                           size=1).ellipse.shape) <= 0
           for w in walls if w.id == "wall" for m in ms):
        return None
    return bf, us


@settings(max_examples=8, deadline=None)
@given(crowded())
def test_8_5_4_disengage_against_a_grid_of_ends(scene):
    got = _crowd(*scene)
    if got is None:
        return
    bf, us = got
    d = disengage(bf, us)
    lead = us.models[0]
    nav = navigator_for(bf, us)
    best = math.inf
    for x in np.arange(15 - 2.0, 15 + 2.0, 0.1):
        for y in np.arange(15 - 2.0, 15 + 2.0, 0.1):
            if math.dist((x, y), lead.at) > 2 or not mv.end_position_ok(bf, us, (x, y),
                                                                        model=lead).ok:
                continue
            p = nav.shortest_path(lead.at, (x, y))
            if p is not None and p.length <= 2 + 1e-9:
                best = min(best, p.length)
    if not d.leading or d.end is None:  # not engaged, or failed
        assert (d.end is None and best == math.inf) or "not engaged" in d.reason
        return
    assert d.possible and d.path_length is not None and d.path_length <= best + 1e-6
    assert mv.end_position_ok(bf, us, d.end, model=lead).ok


@settings(max_examples=8, deadline=None)
@given(crowded())
def test_8_8_1_close_ranks_against_a_grid_of_ends(scene):
    from geom.combat._close_ranks import close_ranks

    got = _crowd(*scene, n=2)
    if got is None:
        return
    bf, us = got
    v = can_close_ranks(bf, us, leading="1")
    if "not engaged" in v.reason or "base contact" in v.reason:
        return
    lead = us.models[0]
    found = False
    for x in np.arange(15 - 3.0, 15 + 3.0, 0.2):
        for y in np.arange(15 - 3.0, 15 + 3.0, 0.2):
            if math.dist((x, y), lead.at) <= 3 and close_ranks(bf, us, (x, y), leading="1"):
                found = True
                break
        if found:
            break
    if found:
        assert v.ok, v.reason
    if v.ok:
        end = tuple(v.witness[-1])
        assert close_ranks(bf, us, end, leading="1").ok


def test_8_8_1_close_ranks_check_finds_the_better_spot_on_the_leaders_top():
    """The judge looks for a better placement on the top the leader stands on, as the
    placement itself does: the second marine left behind on the deck, when base contact with
    the enemy was free on the deck, fails §8.8.1 step 1 (before: only the mat was searched,
    and the deck is no place to stand from the mat)."""
    from geom.judge import _check as judge

    deck = TerrainPiece("deck", 2, box(5, 5, 25, 25), standable=True,
                        access_points=(box(24.5, 24, 25.5, 25),))
    us = mk("us", "red", [(15, 15), (15, 15 - 2 * R)], size=2, leading="1")
    foe = mk("foe", "blue", [(15, 15 + 2 * R + 0.6)], size=2)
    before = Battlefield(Table(30, 30), (deck,), (us, foe))
    moved = Unit(us.id, us.owner, us.size, (us.models[0].moved_to((15, 15.6)), us.models[1]),
                 us.base, speed=us.speed, leading="1")
    after = Battlefield(Table(30, 30), (deck,), (moved, foe))
    v = judge.check(before, after, action="close-ranks")
    (u,) = v["units"]
    (f,) = [f for f in u["failures"] if f["model"] == "2"]
    assert "could have been placed in base contact" in f["reason"]
    spot = us.models[1].moved_to(tuple(f["witness"]["point"]))
    assert top_at(after, spot.at).id == "deck"
    assert math.dist(spot.at, foe.models[0].at) == pytest.approx(2 * R, abs=3e-3)


def test_8_7_7_charge_placement_check_finds_the_better_spot_on_the_leaders_top():
    """The same for a charge's placement (§8.7.7 step 4): base contact with the target free on
    the deck the leader charged across, the second model left behind fails priority A."""
    from geom.movement._after_charge import check_charge_placement

    deck = TerrainPiece("deck", 2, box(5, 5, 25, 25), standable=True,
                        access_points=(box(24.5, 24, 25.5, 25),))
    us = mk("us", "red", [(15, 15), (15, 15 - 2 * R)], size=2, leading="1")
    foe = mk("foe", "blue", [(15, 15 + 2 * R + 0.6)], size=2)
    bf = Battlefield(Table(30, 30), (deck,), (us, foe))
    v = check_charge_placement(bf, us, (15, 15.6), {"2": (15, 15 - 2 * R)}, [foe])
    assert not v and "could have been placed in base contact" in v.reason
    (b,) = v.details["better_spots"]
    assert b["model"] == "2" and top_at(bf, tuple(b["spot"])).id == "deck"
    assert b["excess"] == pytest.approx(2 * R + 0.6, abs=1e-6)  # its gap to the target
