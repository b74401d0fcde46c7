"""§8.8.1 ranks and §8.7.5 casualty order, against small reference implementations written from
the rule text (they share no code with geom.combat._close_combat)."""

import math
from dataclasses import replace

from hypothesis import event, given, settings
from hypothesis import strategies as st
from shapely.geometry import box

from geom.combat._close_combat import all_ranks, ranks, removal_order, valid_casualties
from geom.combat._close_ranks import can_close_ranks, close_ranks
from geom.combat._disengage import disengage
from geom.model import Base, Battlefield, Model, Table, TerrainPiece, Unit

B32 = Base.from_mm(32)
R = B32.a
D = 2 * R  # centre distance of two touching 32 mm bases


def mdl(mid, unit, owner, at):
    return Model.make(mid, unit=unit, owner=owner, at=at, base=B32, size=1)


def unit(uid, owner, pts, ids=None):
    ids = ids or [str(i + 1) for i in range(len(pts))]
    return Unit(uid, owner, 1, tuple(mdl(i, uid, owner, p) for i, p in zip(ids, pts, strict=True)), B32)


def bf_of(*units, terrain=()):
    return Battlefield(Table(54, 36), tuple(terrain), tuple(units))


def test_rulebook_zergling_ranks():
    # §8.8.1 picture: zergling A within 1" of a marine, B touching A, C touching only B.
    marines = unit("marines", "red", [(10, 10)])
    lings = unit("lings", "blue", [(10 + D + 0.5, 10), (10 + 2 * D + 0.5, 10),
                                   (10 + 3 * D + 0.5, 10)], ["A", "B", "C"])
    r = ranks(bf_of(marines, lings), lings, marines)
    assert r.fighting == ("A",) and r.supporting == ("B",) and r.idle == ("C",)
    assert r.supports == {"B": "A"} and r.engaged_with == {"A": "marines/1"}


def test_ranks_are_per_enemy_unit():
    # X fights enemy P only; Y touches X and fights Q: against P, Y supports; against Q, X does.
    p = unit("p", "red", [(10, 10)])
    q = unit("q", "red", [(10 + 3 * D, 10)])
    us = unit("us", "blue", [(10 + D, 10), (10 + 2 * D, 10)], ["X", "Y"])
    bf = bf_of(p, q, us)
    rp, rq = ranks(bf, us, p), ranks(bf, us, q)
    assert rp.fighting == ("X",) and rp.supporting == ("Y",)
    assert rq.fighting == ("Y",) and rq.supporting == ("X",)
    assert {r.enemy for r in all_ranks(bf, us)} == {"p", "q"}


def test_a_wall_keeps_a_model_out_of_the_fighting_rank():
    enemy = unit("e", "red", [(10, 10)])
    us = unit("us", "blue", [(10 + D + 0.8, 10)])
    wall = TerrainPiece("wall", 3, box(10 + R + 0.3, 0, 10 + R + 0.5, 20))
    assert ranks(bf_of(enemy, us, terrain=(wall,)), us, enemy).fighting == ()
    assert ranks(bf_of(enemy, us), us, enemy).fighting == ("1",)


def test_casualty_priorities_in_order():
    enemy = unit("e", "red", [(10, 10)])
    # 1 touches the enemy, 2 is 0.5" away, 3 is far
    us = unit("us", "blue", [(10 + D, 10), (10, 10 + D + 0.5), (20, 20)])
    bf = bf_of(enemy, us)
    v = valid_casualties(bf, us)
    assert v.details["priority"] == {"1": 3, "2": 2, "3": 1}
    assert v.details["valid"] == ["3"]
    steps = removal_order(bf, us)
    assert [s.removed for s in steps] == ["3", "2", "1"]


def test_a_model_holding_an_engagement_goes_last():
    e1 = unit("e1", "red", [(10, 10)])
    e2 = unit("e2", "red", [(30, 10)])
    # 1 and 2 both touch e1; 3 alone is 0.5" from e2 (priority 2, but it holds e2)
    us = unit("us", "blue", [(10 + D, 10), (10 - D, 10), (30 + D + 0.5, 10)])
    bf = bf_of(e1, e2, us)
    v = valid_casualties(bf, us)
    assert v.details["priority"]["3"] == 2 and v.details["breaks"]["3"] == ["e2"]
    assert v.details["valid"] == ["1", "2"]  # priority 3 before the engagement-holding model
    order = [s.removed for s in removal_order(bf, us)]
    assert order[-1] in ("1", "2", "3") and order[:1] in (["1"], ["2"])
    # after one of 1/2 is gone, the other holds e1 and 3 holds e2: both break; priority 2 first
    assert order[1] == "3"


def test_not_engaged_unit_uses_ordinary_rules():
    us = unit("us", "blue", [(20, 20), (22, 20)])
    v = valid_casualties(bf_of(us, unit("e", "red", [(40, 10)])), us)
    assert v.rule.startswith("8.7.4") and v.details["valid"] == ["1", "2"]


# ---------------------------------------------------------------- reference


def ref_valid(ms, enemies):
    """Straight from §8.7.5 with bare geometry (no terrain in these scenes)."""
    def gap(a, b):
        return math.dist(a, b) - D

    def eng(a):
        return {eu for eu, pts in enemies.items() if any(gap(a, p) <= 1 + 1e-9 for p in pts)}

    def prio(a):
        if not eng(a):
            return 1
        touching = any(gap(a, p) <= 1e-6 for pts in enemies.values() for p in pts)
        return 3 if touching else 2

    def breaks(k):
        return any(all(eu not in eng(ms[j]) for j in ms if j != k) for eu in eng(ms[k]))

    keys = list(ms)
    p1 = [k for k in keys if prio(ms[k]) == 1]
    if p1:
        return set(p1)
    for level in (2, 3):
        ok = [k for k in keys if prio(ms[k]) == level and not breaks(k)]
        if ok:
            return set(ok)
    for level in (2, 3):
        lv = [k for k in keys if prio(ms[k]) == level]
        if lv:
            return set(lv)
    return set()


grid = st.integers(0, 8)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(grid, grid), min_size=1, max_size=6, unique=True),
       st.lists(st.tuples(grid, grid), min_size=1, max_size=4, unique=True))
def test_casualty_choice_matches_reference(own, foe):
    # points on a 0.7" lattice; drop overlapping bases
    scale = 0.7
    pts = [(5 + x * scale, 5 + y * scale) for x, y in own]
    fpts = [(5 + x * scale, 5 + y * scale) for x, y in foe]
    keep = []
    for p in pts + fpts:
        if all(math.dist(p, q) >= D - 1e-9 for q in keep):
            keep.append(p)
    pts = [p for p in pts if p in keep]
    fpts = [p for p in fpts if p in keep and p not in pts]
    if not pts or not fpts:
        return
    us = unit("us", "blue", pts)
    foes = [unit(f"e{i}", "red", [p]) for i, p in enumerate(fpts)]
    bf = bf_of(us, *foes)
    ms = {m.id: m.at for m in us.models}
    enemies = {f.id: [f.models[0].at] for f in foes}
    v = valid_casualties(bf, us)
    event("engaged" if v.details["engaged"] else "not engaged")
    if v.details["engaged"]:
        assert set(v.details["valid"]) == ref_valid(ms, enemies)
    # every step of a removal order is a valid choice at that step
    alive = dict(ms)
    for s in removal_order(bf, us):
        assert s.removed in ref_valid(alive, enemies)
        assert set(s.valid) == ref_valid(alive, enemies)
        del alive[s.removed]
    assert not alive


# ---------------------------------------------------------------- close ranks


def close_scene(extra=()):
    from geom.model import Speed
    us = replace(unit("us", "blue", [(10, 10), (8.7, 10)], ["A", "B"]), speed=Speed(4))
    foe = unit("foe", "red", [(10 + D + 0.8, 10)])
    return bf_of(us, foe, *extra), us


def test_close_ranks_must_end_closer_and_within_3():
    bf, us = close_scene()
    ok = close_ranks(bf, us, (10.5, 10), leading="A")
    assert ok and ok.details["after"] < ok.details["before"]
    away = close_ranks(bf, us, (9.5, 10.3), leading="A")
    assert not away and "closer" in away.reason
    # the leader may be a model that is not itself engaged; it still may move only 3"
    far = close_ranks(bf, us, (10 + D + 0.8 - 1.3, 10 + 1.3), leading="B")
    assert not far and '3"' in far.reason or "path" in far.reason


def test_close_ranks_may_not_engage_a_new_unit():
    other = unit("other", "red", [(11.2, 10 + D + 0.9)])
    bf, us = close_scene((other,))
    v = close_ranks(bf, us, (10.5, 10.4), leading="A")
    assert not v and "no new engagements" in v.reason


def test_close_ranks_impossible_when_every_model_is_in_base_contact():
    foe = unit("foe", "red", [(10, 10), (10 + 2 * D, 10)])
    us = unit("us", "blue", [(10 + D, 10), (10 + D, 10 + D)])
    # the second model touches only its friend: move it into contact with the first enemy
    us = replace(us, models=(us.models[0], us.models[1].moved_to((10, 10 + D))))
    bf = bf_of(foe, us)
    v = can_close_ranks(bf, us)
    assert not v and "base contact" in v.reason


def test_can_close_ranks_gives_a_witness_move():
    bf, us = close_scene()
    v = can_close_ranks(bf, us, leading="A")
    assert v
    path = v.witness
    length = sum(math.dist(a, b) for a, b in zip(path, path[1:], strict=False))
    assert length <= 3 + 1e-6
    end = path[-1]
    foe = bf.unit("foe").models[0]
    assert math.dist(end, foe.at) < math.dist((10, 10), foe.at)


# ---------------------------------------------------------------- disengage


def test_disengage_in_the_open_gets_everyone_clear():
    from geom.model import Speed
    us = replace(unit("us", "blue", [(10, 10), (8.7, 10), (8.7, 11.4)]), speed=Speed(4))
    foe = unit("foe", "red", [(10 + D + 0.5, 10)])
    bf = bf_of(us, foe)
    d = disengage(bf, us)
    assert d.possible and d.destroyed == []
    spots = {d.leading: d.end, **d.positions}
    assert len(spots) == 3
    for at in spots.values():
        assert math.dist(at, foe.models[0].at) - D > 1.0
    length = sum(math.dist(a, b) for a, b in zip(d.path, d.path[1:], strict=False))
    assert length <= 4 + 1e-6


def enemy_grid(skip, size=6, step=3.0, start=1.5):
    pts = [(start + i * step, start + j * step) for i in range(size) for j in range(size)]
    return unit("foe", "red", [p for p in pts if p not in skip])


def test_disengage_into_a_pocket_loses_the_models_that_do_not_fit():
    from geom.model import Speed
    # enemies on a 3" grid cover the whole 18" table with their 1" except a corner pocket
    foe = enemy_grid(skip={(1.5, 1.5)})
    us = replace(unit("us", "blue", [(3.0, 3.0), (6.0, 3.0), (3.0, 6.0), (6.0, 6.0),
                                     (9.0, 3.0), (3.0, 9.0)]), speed=Speed(4), leading="1")
    bf = Battlefield(Table(18, 18), (), (us, foe))
    d = disengage(bf, us)
    assert d.possible and d.destroyed  # the leader gets into the pocket, not everyone fits
    assert len(d.destroyed) + len(d.positions) == 5
    for at in [d.end, *d.positions.values()]:
        assert all(math.dist(at, f.at) - D > 1.0 for f in foe.models)


def test_disengage_fails_when_the_leader_cannot_get_clear():
    from geom.model import Speed
    foe = enemy_grid(skip=set())
    us = replace(unit("us", "blue", [(9.0, 9.0)]), speed=Speed(4))
    bf = Battlefield(Table(18, 18), (), (us, foe))
    d = disengage(bf, us)
    assert not d.possible and "fails" in d.reason
