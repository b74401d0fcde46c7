"""The lazy tangent graph and its search against the eager graph (every node and edge built at
once, scipy's Dijkstra) on random tables, and the search's reuse between questions."""

from __future__ import annotations

import math
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from geom.movement import _moves as mv
from geom.paths._navigator import navigator_for
from geom.paths._point_goals import FixedEnds

from ._movement_ref import eager_path_length
from .test_movement import far_points, free_points, scene


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([2, 3]), st.booleans())
def test_lazy_search_equals_the_eager_graph(seed: int, size: int, models: bool) -> None:
    bf = scene(seed, size=size, pieces=6, models=4 if models else 0)
    u = bf.unit("me")
    nav = mv.Navigator(bf, u)
    rng = random.Random(seed)
    for s, g in [far_points(nav, rng), tuple(free_points(nav, rng, 2))]:
        p = nav.shortest_path(s, g)
        ref = eager_path_length(nav, s, g)
        assert (p is None) == (ref is None)
        if p is not None and ref is not None:
            assert abs(p.length - ref) <= 1e-9 * max(1.0, ref)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000))
def test_one_search_answers_many_questions(seed: int) -> None:
    """Questions asked of one search, in any order, get the answers fresh searches give."""
    bf = scene(seed, pieces=6, models=3)
    u = bf.unit("me")
    nav = mv.Navigator(bf, u)
    rng = random.Random(seed + 7)
    s = free_points(nav, rng, 1)[0]
    goals = free_points(nav, rng, 5)
    shared = nav.search(s)
    for g in goals:
        a = shared.ask(FixedEnds(np.array([g])))
        b = mv.Navigator(bf, u).search(s).ask(FixedEnds(np.array([g])))
        assert (a is None) == (b is None)
        if a is not None and b is not None:
            assert math.isclose(a.path.length, b.path.length, rel_tol=1e-12, abs_tol=1e-12)


def test_several_starts_pick_the_nearest() -> None:
    bf = scene(5, pieces=5, models=0)
    u = bf.unit("me")
    nav = mv.Navigator(bf, u)
    rng = random.Random(3)
    starts = free_points(nav, rng, 4)
    g = free_points(nav, rng, 1)[0]
    found = nav.search(starts, [0.0, 0.5, 0.0, 1.0]).ask(FixedEnds(np.array([g])))
    each = [(nav.shortest_path(p, g), off) for p, off in zip(starts, [0.0, 0.5, 0.0, 1.0],
                                                              strict=True)]
    costs = [p.length + off for p, off in each if p is not None]
    assert found is not None and math.isclose(found.cost, min(costs), abs_tol=1e-9)
    assert found.path.start == starts[found.origin]


def test_navigator_is_kept_with_the_battlefield() -> None:
    bf = scene(1, pieces=3, models=1)
    u = bf.unit("me")
    assert navigator_for(bf, u) is navigator_for(bf, u)
    assert navigator_for(bf, u) is not navigator_for(bf.without_piece("t0"), u)
