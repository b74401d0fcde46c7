"""The charge's shortcuts agree with the plain search they stand in for (§8.7.7: the charge is
measured along the shortest legal path to a legal end).

`geom.paths._straight_legs.straight_first` answers a question without a search when the cheapest straight
leg decides it; `path_to_ends(fast=False)` always searches. On random tables (walls across the
way, undeclared enemies, several starts, bounds) both give the same shortest distance, and both
say "nothing under the bound" together. The batched membership test of end sets
(`EndSet.contains`) agrees with the one-shape-at-a-time reference, on the boundaries too."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import LineString, box
from shapely.geometry import Point as SPoint

import scenario
from geom.bases import ellipse_distance
from geom.combat._charge import CLOSE_TOL, end_checks, measure, roll_table, suggest_end
from geom.model import Ellipse
from geom.movement._charge_ends import charge_ends, contact_shapes
from geom.movement._charge_region import check_end
from geom.paths._end_shapes import Curve, Disc, Framed, Grown
from geom.paths._endset import EndSet
from geom.paths._goals import EndQuestion, reach_box
from geom.paths._navigator import Navigator, navigator_for
from geom.paths._region_path import path_to_ends

from .test_charge import independent_path_problems, scenes


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


def _random_shape(rng: random.Random):
    kind = rng.choice(["disc", "disc", "grown", "curve", "framed"])
    cx, cy = rng.uniform(2, 12), rng.uniform(2, 12)
    if kind == "disc":
        return Disc(cx, cy, rng.uniform(0.3, 3))
    if kind == "grown":
        core = rng.choice([
            affinity.rotate(box(cx - 1, cy - 0.3, cx + rng.uniform(0, 3), cy + 0.3),
                            rng.uniform(0, 180)),
            SPoint(cx, cy), LineString([(cx, cy), (cx + rng.uniform(-3, 3), cy + 1)])])
        return Grown(core, rng.choice([0.0, rng.uniform(0.2, 2)]))
    e = Ellipse(0, 0, rng.uniform(0.8, 2), rng.uniform(0.3, 0.8), rng.uniform(0, math.pi))
    if kind == "curve":
        return Curve.around((cx, cy), [e], rng.uniform(0, 1.5))
    return Framed(affinity.rotate(box(cx - 1, cy - 0.5, cx + 1, cy + 0.5), rng.uniform(0, 90)),
                  e)


def _boundary_points(shape, rng: random.Random, n: int) -> np.ndarray:
    """Points on the shape's boundary (exactly, where it has a closed form), and just off it."""
    if isinstance(shape, Disc):
        a = np.array([rng.uniform(0, 2 * math.pi) for _ in range(n)])
        r = shape.r + np.array([rng.choice([0.0, 1e-6, -1e-6, 2e-6, -2e-6]) for _ in range(n)])
        return np.column_stack((shape.cx + r * np.cos(a), shape.cy + r * np.sin(a)))
    if isinstance(shape, Grown):
        ring = shape.core.buffer(shape.r, 256).boundary if shape.r else shape.core
        xy = shapely.get_coordinates(ring)  # vertices: on the boundary up to the buffer's
        return xy[[rng.randrange(len(xy)) for _ in range(n)]]  # chords
    if isinstance(shape, Curve):
        z, _ = shape.support(np.array([rng.uniform(0, 2 * math.pi) for _ in range(n)]))
        return z
    x0, y0, x1, y1 = shape.core.bounds
    return np.array([(rng.uniform(x0 - 2, x1 + 2), rng.uniform(y0 - 2, y1 + 2))
                     for _ in range(n)])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 100_000))
def test_batched_membership_agrees_with_one_shape_at_a_time(seed: int) -> None:
    rng = random.Random(seed)
    include = [[_random_shape(rng) for _ in range(rng.randint(1, 5))]
               for _ in range(rng.randint(1, 3))]
    exclude = [_random_shape(rng) for _ in range(rng.randint(0, 8))]
    closed = [rng.random() < 0.4 for _ in exclude]
    es = EndSet((rng.uniform(0, 2), rng.uniform(0, 2), rng.uniform(12, 14), rng.uniform(12, 14)),
                include, exclude, closed)
    pts = [np.array([(rng.uniform(-1, 15), rng.uniform(-1, 15)) for _ in range(300)])]
    for shape in [s for g in include for s in g] + exclude:
        pts.append(_boundary_points(shape, rng, 20))
    P = np.vstack(pts)
    fast, ref = es.contains(P), es.contains_one_by_one(P)
    assert (fast == ref).all()
    assert (es.contains(P[::-1]) == ref[::-1]).all()  # no state kept between calls
    groups = include[1:]
    narrow = EndSet(es.box, include[:1], exclude, closed)
    both = narrow.contains(P) & narrow.in_groups(groups, P)
    assert (both == ref).all()


@settings(max_examples=30, deadline=None)
@given(scenes(), st.sampled_from([-2.0, 0.0, 1.0, 2.0]))
def test_bounded_close_steps_agree_with_measuring_every_step(bf, modifier) -> None:
    """The "as close as possible" end found with bounded steps (the straight-line gap, the
    path into contact cut at the allowance) is as close as the one found by measuring every
    step, to within the search's tolerance, and as legal: a legal end, reached by a legal path
    within the allowance (the independent checkers)."""
    us = bf.unit("us")
    targets = [bf.unit("foe")]
    got = measure(bf, us, list(us.models), targets, 4.0, modifier)
    if got.found is None:
        return
    rolls = roll_table(4.0, modifier, got.found.path.length)
    if rolls.min_roll is None:
        return
    allowance = 4.0 + rolls.min_roll + modifier
    nav = navigator_for(bf, us)
    answers = [suggest_end(bf, us, nav, got.lead, targets, got.ends, got.found, allowance,
                           got.question, bounded=b) for b in (True, False)]
    (fast, how_f, c_f), (slow, how_s, c_s) = answers
    assert (how_f == "base contact") == (how_s == "base contact")
    _same(c_f, c_s)
    lead = got.lead
    if how_f == "base contact":
        assert fast.end == slow.end
        assert fast.path.length == slow.path.length
        return

    def gap(at):
        e = lead.moved_to(at).ellipse
        return min(ellipse_distance(e, o.ellipse) for o in targets[0].models)

    assert abs(gap(fast.end) - gap(slow.end)) <= CLOSE_TOL
    for e in (fast, slow):
        assert check_end(bf, us, lead, e.end, targets).ok
        assert independent_path_problems(bf, us, lead, list(e.path.points), e.end,
                                         allowance) == []


@settings(max_examples=40, deadline=None)
@given(scenes(), st.sampled_from([0.0, 0.3, 0.75, 1.0, None]),
       st.sampled_from([math.inf, 5.0, 9.0]))
def test_a_narrowed_question_answers_as_one_built_afresh(bf, d, bound) -> None:
    """`EndQuestion.narrowed` reuses its parent's pieces, crossings and corner-circle legs, and
    with `within` asks only about the ends a path under the bound can reach: the shortest path
    is the one a question built from scratch on the narrowed end sets finds."""
    us = bf.unit("us")
    targets = [bf.unit("foe")]
    lead = us.models[0]
    ce = charge_ends(bf, us, lead, targets)
    acc, pacc = end_checks(bf, us, lead, targets, ce)
    nav = navigator_for(bf, us)
    parent = EndQuestion(nav, ce.inner)
    path_to_ends(nav, [m.at for m in us.models], parent, accept=acc, path_accept=pacc,
                 stepped=())  # the parent's own legs, as the charge's measure leaves them
    groups = [[Disc(15.0, 15.0, 40.0)]] if d is None else \
        [contact_shapes(lead, [t], d) for t in targets]  # None: a group that cuts nothing
    sets = list(ce.inner)
    for g in groups:
        sets = [s.with_group(g) for s in sets]
    for within in (None, reach_box(lead.at, bound)):
        got = path_to_ends(nav, lead.at, parent.narrowed(groups, within), accept=acc,
                           path_accept=pacc, stepped=(), bound=bound, certify=False,
                           fast=False)  # the search itself, its corner-circle legs
        ref = path_to_ends(Navigator(bf, us), lead.at, sets, accept=acc, path_accept=pacc,
                           stepped=(), bound=bound, certify=False, fast=False)
        _same(got, ref)


_LAYOUT = Path(__file__).resolve().parent.parent / "examples" / "battle-standard-1.toml"


@pytest.mark.parametrize(("uid", "tid"), [("marines-b", "roaches"), ("zerglings-b", "marines-b"),
                                          ("queen", "marauders")])
def test_narrowed_questions_round_official_terrain(uid, tid) -> None:
    """The same on an official layout, where the last legs leave the corners of its terrain
    for ends cut by it: each narrowed question, from several starts and under several bounds,
    finds the path a question built afresh finds."""
    bf = scenario.load(_LAYOUT)
    us, targets = bf.unit(uid), [bf.unit(tid)]
    lead = us.models[0]
    ce = charge_ends(bf, us, lead, targets)
    acc, pacc = end_checks(bf, us, lead, targets, ce)
    nav = navigator_for(bf, us)
    parent = EndQuestion(nav, ce.inner)
    starts = [lead.at, (lead.at[0] + 0.7, lead.at[1] - 0.4), (lead.at[0] - 1.1, lead.at[1] + 0.6)]
    seen = 0
    far = [[Disc(lead.at[0], lead.at[1], 40.0)]]  # cuts nothing: every leg is the parent's
    for d in (0.0, 0.2, 0.55, 0.9, None):
        groups = far if d is None else [contact_shapes(lead, [t], d) for t in targets]
        sets = list(ce.inner)
        for g in groups:
            sets = [s.with_group(g) for s in sets]
        for start in starts:
            if nav.escape(start) is None:
                continue
            for bound in (math.inf, 9.0):
                got = path_to_ends(nav, start, parent.narrowed(groups, reach_box(start, bound)),
                                   accept=acc, path_accept=pacc, stepped=(), bound=bound,
                                   certify=False, fast=False)
                ref = path_to_ends(nav, start, sets, accept=acc, path_accept=pacc, stepped=(),
                                   bound=bound, certify=False, fast=False)
                _same(got, ref)
                seen += got is not None
    assert seen  # some of them reach
