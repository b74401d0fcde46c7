"""The charge's shortcuts agree with the plain search they stand in for (§8.7.7: the charge is
measured along the shortest legal path to a legal end).

`geom.pathsearch.straight_first` answers a question without a search when the cheapest straight
leg decides it; `path_to_ends(fast=False)` always searches. On random tables (walls across the
way, undeclared enemies, several starts, bounds) both give the same shortest distance, and both
say "nothing under the bound" together."""

from __future__ import annotations

import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from geom.charge import end_checks, measure
from geom.charge_ends import charge_ends
from geom.navigator import Navigator
from geom.region_path import path_to_ends

from .test_charge import scenes


def _same(a, b) -> None:
    assert (a is None) == (b is None)
    if a is not None and b is not None:
        assert math.isclose(a.path.length, b.path.length, rel_tol=1e-12, abs_tol=1e-9)


@settings(max_examples=40, deadline=None)
@given(scenes(), st.integers(0, 10_000), st.sampled_from([math.inf, 4.0, 7.0, 10.0]))
def test_straight_first_agrees_with_the_search(bf, seed, bound) -> None:
    us = bf.unit("us")
    targets = [bf.unit("foe")]
    lead = us.models[0]
    ce = charge_ends(bf, us, lead, targets)
    acc, pacc = end_checks(bf, us, lead, targets, ce)
    rng = random.Random(seed)
    starts = [m.at for m in us.models]
    starts += [(rng.uniform(2, 28), rng.uniform(2, 28)) for _ in range(2)]
    for s in [starts[:1], starts[:3], starts, starts[-1:]]:
        fast = path_to_ends(Navigator(bf, us), s, ce.inner, accept=acc, path_accept=pacc,
                            bound=bound, stepped=())
        slow = path_to_ends(Navigator(bf, us), s, ce.inner, accept=acc, path_accept=pacc,
                            bound=bound, stepped=(), fast=False)
        _same(fast, slow)
        if fast is not None:
            assert fast.path.length < bound
            assert acc is None or acc(fast.tag, fast.end)


@settings(max_examples=15, deadline=None)
@given(scenes())
def test_measured_charge_is_the_same_on_a_kept_navigator(bf) -> None:
    """Asked twice on one battlefield (the navigator, its searches and the prepared questions
    kept), the measured charge does not change."""
    us = bf.unit("us")
    targets = [bf.unit("foe")]
    first = measure(bf, us, list(us.models), targets, 4.0, 0.0)
    again = measure(bf, us, list(us.models), targets, 4.0, 0.0)
    _same(first.found, again.found)
    assert math.isclose(first.low, again.low, abs_tol=1e-12)
