"""Coherency with Squadron (§4.4 and the Squadron "편대" card ability: "이 유닛의 수평 대형 유지
거리는 4"입니다"), with no recorded leading model, and exact at the limit (1e-6")."""

from __future__ import annotations

import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from geom.bases import ellipse_distance
from geom.markers._control import contests
from geom.model import SQUADRON, Base, Battlefield, Marker, Model, Table, Unit
from geom.movement._after_charge import check_charge_placement
from geom.movement._coherency import coherency
from geom.movement._placement import check_placement as check_unit_placement

TABLE = Table(54, 36)
B32 = Base.from_mm(32)
B80 = Base.from_mm(80)
HYDRA = Base.from_mm((100, 40))
R32 = B32.a


def squad(uid, pts, *, base=B32, size=1, abilities=(SQUADRON,), owner="blue", leading=None,
          ids=None, angle=0.0):
    ids = ids or [str(i + 1) for i in range(len(pts))]
    ms = tuple(Model.make(i, unit=uid, owner=owner, at=p, base=base, size=size, angle=angle)
               for i, p in zip(ids, pts, strict=True))
    return Unit(uid, owner, size, ms, base, abilities=frozenset(abilities), leading=leading)


def bf_of(*units):
    return Battlefield(TABLE, (), tuple(units))


def far_edge_at(reach):
    """Centre distance that puts the far edge of a same-sized disc `reach` from the leader
    (the far edge is centre distance + r − r away)."""
    return reach


# ---------------------------------------------------------------- the example

def test_4_4_squadron_far_edge_3_6_from_its_leader_is_in_coherency():
    lings = squad("lings", [(10, 10), (10 + far_edge_at(3.6), 10)], leading="1")
    v = coherency(bf_of(lings), "lings")
    assert v.ok and v.details["coherency_distance"] == 4.0
    assert 'wholly within 4"' in v.reason
    # the same unit without Squadron: 3.6" is beyond 3"
    plain = squad("lings", [(10, 10), (13.6, 10)], abilities=(), leading="1")
    v3 = coherency(bf_of(plain), "lings")
    assert not v3.ok and 'not wholly within 3"' in v3.details["failures"][0]["reason"]
    assert "3.600" in v3.details["failures"][0]["reason"]


def test_4_4_squadron_80mm_models_2_inches_apart_are_not_wholly_within_4():
    # Stalkers (Squadron, 80 mm = 3.15"): bases 2" apart put the far edge 5.15" from the
    # leader — not wholly within 4". An 80 mm base is narrower than 4", so "wholly within" can
    # hold (it does at a 0.85" gap) and is what §4.4 asks.
    d = B80.long
    apart = squad("stalkers", [(10, 10), (10 + d + 2, 10)], base=B80, size=3, leading="1")
    v = coherency(bf_of(apart), "stalkers")
    assert not v.ok
    why = v.details["failures"][0]["reason"]
    assert 'not wholly within 4"' in why and f"{d + 2:.3f}" in why
    close = squad("stalkers", [(10, 10), (10 + 4.0, 10)], base=B80, size=3, leading="1")
    assert coherency(bf_of(close), "stalkers").ok  # far edge exactly 4"


def test_4_4_base_wider_than_the_coherency_distance_is_judged_within():
    # Decision (docs/rules.md#coherency-wide-bases): a base wider than the distance can never be wholly
    # within it of another base, so it must be WITHIN it. 120 mm = 4.72" > 4" for a squadron;
    # 80 mm = 3.15" > 3" without Squadron.
    b120 = Base.from_mm(120)
    for base, abilities, limit in ((b120, (SQUADRON,), 4.0), (B80, (), 3.0)):
        for gap, ok in ((limit, True), (limit + 0.001, False)):
            u = squad("big", [(10, 10), (10 + base.long + gap, 10)], base=base, size=3,
                      abilities=abilities, leading="1")
            v = coherency(bf_of(u), "big")
            assert v.ok is ok, (base, gap)
            if not ok:
                assert f'further than {limit:g}"' in v.details["failures"][0]["reason"]


# ---------------------------------------------------------------- exact at the limit

def test_4_4_threshold_exact_for_discs():
    for abilities, limit in (((SQUADRON,), 4.0), ((), 3.0)):
        for reach, ok in ((limit, True), (limit + 1e-7, True), (limit + 0.001, False)):
            u = squad("u", [(10, 10), (10 + reach, 10)], abilities=abilities, leading="1")
            assert coherency(bf_of(u), "u").ok is ok, (abilities, reach)


@settings(max_examples=40, deadline=None)
@given(st.floats(0, 180), st.floats(0, 360), st.booleans())
def test_4_4_threshold_exact_for_ovals(angle, direction, squadron):
    """Two Hydralisk ovals (100x40 mm) turned alike: for any point of one base, the same point
    of the other lies on the leader, so the far edge is exactly the centre distance away."""
    limit = 4.0 if squadron else 3.0
    t = math.radians(direction)
    for reach, ok in ((limit, True), (limit + 0.001, False)):
        at = (20 + reach * math.cos(t), 18 + reach * math.sin(t))
        u = squad("h", [(20, 18), at], base=HYDRA, size=2, angle=angle, leading="1",
                  abilities=(SQUADRON,) if squadron else ())
        if ellipse_distance(u.models[0].ellipse, u.models[1].ellipse) <= 0:
            continue  # overlapping bases are not a position
        assert coherency(bf_of(u), "h").ok is ok, (angle, direction, reach)


# ---------------------------------------------------------------- no recorded leader

def test_4_4_no_recorded_leader_some_choice_makes_it_so_and_is_named():
    # 1 -- 2 -- 3 in a line, 3" between neighbours: only the middle one as leader keeps both
    # others wholly within 3".
    pts = [(10, 10), (13, 10), (16, 10)]
    u = squad("m", pts, abilities=(), leading=None)
    v = coherency(bf_of(u), "m")
    assert v.ok and v.details["leading"] == "2" and not v.details["leading_recorded"]
    assert "no leading model is recorded and 2 as leader makes it so" in v.reason
    assert v.details["leaders_tried"] == {"1": 1, "2": 0}
    # the scenario records model 1 as the leader: then 3 is out
    v1 = coherency(bf_of(squad("m", pts, abilities=(), leading="1")), "m")
    assert not v1.ok and [f["model"] for f in v1.details["failures"]] == ["3"]


def test_4_4_no_leader_and_no_choice_works_shows_the_fewest_failures():
    pts = [(10, 10), (13, 10), (16, 10), (30, 10)]
    v = coherency(bf_of(squad("m", pts, abilities=(), leading=None)), "m")
    assert not v.ok and v.details["leading"] == "2"
    assert [f["model"] for f in v.details["failures"]] == ["4"]
    assert "whatever model leads" in v.reason


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6))
def test_4_4_verdict_never_depends_on_the_order_of_models(seed):
    rng = random.Random(seed)
    pts: list[tuple[float, float]] = []
    while len(pts) < rng.randint(2, 6):
        p = (rng.uniform(5, 20), rng.uniform(5, 14))
        if all(math.dist(p, q) > 2 * R32 + 0.01 for q in pts):
            pts.append(p)
    ids = [f"z{i}" for i in range(len(pts))]
    abilities = (SQUADRON,) if rng.random() < 0.5 else ()
    base = squad("u", pts, ids=ids, abilities=abilities)
    ref = coherency(bf_of(base), "u")
    order = list(range(len(pts)))
    for _ in range(3):
        rng.shuffle(order)
        shuffled = squad("u", [pts[i] for i in order], ids=[ids[i] for i in order],
                         abilities=abilities)
        assert shuffled.leading_model.id == base.leading_model.id
        v = coherency(bf_of(shuffled), "u")
        assert (v.ok, v.reason, v.details) == (ref.ok, ref.reason, ref.details)


# ---------------------------------------------------------------- every rule that says 3"

def test_8_7_7_after_charge_placement_uses_the_squadron_distance():
    """§8.7.7 step 4 places the rest "in coherency": for a squadron a model whose far edge is
    3.6" from the leader is within; without Squadron it is not."""
    target = squad("marines", [(30, 18)], abilities=(), owner="red", size=2)
    lead_end = (30 - 2 * R32, 18)
    for abilities, ok in (((SQUADRON,), True), ((), False)):
        lings = squad("lings", [(20, 18), (20, 21)], abilities=abilities, leading="1")
        v = check_charge_placement(bf_of(target, lings), lings, lead_end,
                            {"2": (lead_end[0] - 3.6, 18)}, [target])
        within = [p for p in v.details["problems"] if "wholly within" in p]
        assert (within == []) is ok, v.details["problems"]
        if not ok:
            assert 'not wholly within 3"' in within[0]


def test_4_4_placing_a_squadron_unit_uses_4_inches():
    """Placing a unit (deployment, PLACE, §8.5.5) must end in coherency: 3.6" passes with
    Squadron, not without."""
    for abilities, ok in (((SQUADRON,), True), ((), False)):
        u = squad("u", [(10, 10), (30, 10)], abilities=abilities, leading="1")
        v = check_unit_placement(bf_of(u), u, {"2": (13.6, 10)}, leading="1")
        assert v.ok is ok, v.reason


def test_8_9_1_contesting_needs_coherency_at_the_squadron_distance():
    """§8.9.1: an out-of-coherency unit never contests. A squadron 3.6" apart is coherent."""
    marker = Marker(5, (27, 18))
    for abilities, ok in (((SQUADRON,), True), ((), False)):
        u = squad("u", [(27, 19.5), (27, 19.5 + 3.6)], abilities=abilities, leading="1")
        bf = Battlefield(TABLE, (), (u,), (marker,))
        v = contests(bf, u, marker)
        assert v.ok is ok, v.reason


BASES = [B32, B80, HYDRA, Base.from_mm((60, 35))]


def _pair(base, a1, a2, dx, dy):
    m = Model.make("m", unit="u", owner="red", at=(20 + dx, 18 + dy), base=base, size=1,
                   angle=a1)
    lead = Model.make("l", unit="u", owner="red", at=(20, 18), base=base, size=1, angle=a2)
    return m, lead


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(BASES), st.floats(0, 180), st.floats(0, 180), st.floats(-6, 6),
       st.floats(-6, 6))
def test_wholly_within_measure_agrees_with_dense_sampling(base, a1, a2, dx, dy):
    """The far-edge measure coherency uses (support functions, batched) against a dense
    sampling of the rim (the maximum of a convex distance lies on the rim)."""
    import numpy as np

    from geom.bases import boundary_points, point_distance
    from geom.movement._coherency import far_distances

    m, lead = _pair(base, a1, a2, dx, dy)
    fast = float(far_distances([m], [lead])[0, 0])
    rim = boundary_points(m.ellipse, np.linspace(0, 2 * np.pi, 8192, endpoint=False))
    sampled = float(point_distance(lead.ellipse, rim).max())
    assert sampled - 1e-9 <= fast <= sampled + 1e-4


@settings(max_examples=6, deadline=None)
@given(st.sampled_from(BASES[2:]), st.floats(0, 180), st.floats(0, 180), st.floats(-6, 6),
       st.floats(-6, 6))
def test_wholly_within_measure_agrees_with_the_rim_search(base, a1, a2, dx, dy):
    """…and against geom.bases' own (slow, scalar) rim search, to 1e-7"."""
    from geom.bases import max_distance_to_ellipse
    from geom.movement._coherency import far_distances

    m, lead = _pair(base, a1, a2, dx, dy)
    fast = float(far_distances([m], [lead])[0, 0])
    assert abs(fast - max(0.0, max_distance_to_ellipse(m.ellipse, lead.ellipse))) <= 1e-7
