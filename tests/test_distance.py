"""§3 distances: exact for discs and ovals; properties against a brute-force reference."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Point, box

from geom import bases
from geom.distance import distance, wholly_within, within
from geom.model import Base, Ellipse, Marker, Model, TerrainPiece


def brute_min(e1: Ellipse, e2: Ellipse, n: int = 720) -> float:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    p, q = bases.boundary_points(e1, t), bases.boundary_points(e2, t)
    d = np.hypot(p[:, None, 0] - q[None, :, 0], p[:, None, 1] - q[None, :, 1])
    return float(d.min())


def brute_point(e: Ellipse, pt, n: int = 20000) -> float:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    p = bases.boundary_points(e, t)
    return float(np.hypot(p[:, 0] - pt[0], p[:, 1] - pt[1]).min())


def m(at, mm=32, angle=0.0, unit="u", mid="m"):
    return Model.make(mid, unit=unit, owner="red", at=at, base=Base.from_mm(mm), size=2,
                      angle=angle)


def test_discs_closed_form():
    a, b = m((0, 0), 25.4), m((5, 0), 50.8)
    assert math.isclose(distance(a, b), 5 - 0.5 - 1.0)
    assert distance(a, m((1, 0), 25.4)) == 0.0  # touching bases are 0" apart


def test_hydralisk_oval_side_and_end():
    # 100x40 mm oval, long axis along x: ends 50 mm, sides 20 mm from the centre.
    h = m((10, 10), (100, 40))
    assert math.isclose(distance(h, (10 + 50 / 25.4 + 1, 10)), 1.0, abs_tol=1e-9)
    assert math.isclose(distance(h, (10, 10 + 20 / 25.4 + 1)), 1.0, abs_tol=1e-9)
    turned = m((10, 10), (100, 40), angle=90)
    assert math.isclose(distance(turned, (10, 10 + 50 / 25.4 + 1)), 1.0, abs_tol=1e-9)


def test_marker_is_a_32mm_disc():
    mk = Marker(1, (20, 20))
    assert math.isclose(distance(mk, (20, 22)), 2 - 16 / 25.4)


def test_terrain_and_zone_distance():
    wall = TerrainPiece("w", 2, box(10, 0, 11, 10))
    assert math.isclose(distance(m((13, 5), 25.4), wall), 1.5)
    assert math.isclose(distance(m((13, 5), 25.4), box(0, 0, 6, 36)), 6.5)


coords = st.floats(-10, 10, allow_nan=False)
axes = st.floats(0.3, 2.5)


@st.composite
def ellipses(draw):
    a, b = draw(axes), draw(axes)
    return Ellipse(draw(coords), draw(coords), max(a, b), min(a, b), draw(st.floats(0, math.pi)))


@settings(max_examples=60, deadline=None)
@given(ellipses(), ellipses())
def test_oval_distance_matches_brute_force(e1, e2):
    d = bases.ellipse_distance(e1, e2)
    assert d >= 0
    assert math.isclose(d, bases.ellipse_distance(e2, e1), abs_tol=1e-6)  # symmetric
    if d > 1e-6:
        # Both rims sampled (an upper bound whatever the sampling), and one rim sampled densely
        # against the exact point distance to the other (tested on its own below): the
        # two-rim sampling alone errs by several 1e-4" where two flat sides face each other.
        assert d <= brute_min(e1, e2, 1000) + 1e-9
        t = np.linspace(0, 2 * np.pi, 100_000, endpoint=False)
        ref = float(bases.point_distance(e2, bases.boundary_points(e1, t)).min())
        assert d <= ref + 1e-9
        assert ref - d < 1e-4
    else:
        inner = e1.polygon(256)
        outer2 = e2.polygon(256, outer=True)
        assert inner.buffer(1e-3).intersects(outer2)


@settings(max_examples=60, deadline=None)
@given(ellipses(), coords, coords)
def test_point_to_oval_matches_brute_force(e, x, y):
    d = float(bases.point_distance(e, (x, y))[0])
    inside = e.polygon(2048).contains(Point(x, y))
    if d == 0:
        assert e.polygon(2048, outer=True).buffer(1e-9).contains(Point(x, y))
    else:
        assert not inside
        assert abs(d - brute_point(e, (x, y))) < 1e-4


@settings(max_examples=60, deadline=None)
@given(ellipses(), ellipses(), st.floats(0, 20))
def test_within_properties(e1, e2, d):
    a = Model.make("a", unit="u", owner="red", at=(e1.cx, e1.cy), size=1,
                   base=Base(2 * e1.a, 2 * e1.b), angle=math.degrees(e1.theta))
    b = Model.make("b", unit="v", owner="red", at=(e2.cx, e2.cy), size=1,
                   base=Base(2 * e2.a, 2 * e2.b), angle=math.degrees(e2.theta))
    dist = distance(a, b)
    assert dist == distance(b, a) or math.isclose(dist, distance(b, a), abs_tol=1e-9)
    assert within(a, b, d) == (dist <= d + 1e-6)
    if wholly_within(a, b, d):
        assert within(a, b, d)


@settings(max_examples=40, deadline=None)
@given(ellipses(), coords, coords)
def test_wholly_within_point_matches_sampling(e, x, y):
    a = Model.make("a", unit="u", owner="red", at=(e.cx, e.cy), size=1,
                   base=Base(2 * e.a, 2 * e.b), angle=math.degrees(e.theta))
    t = np.linspace(0, 2 * np.pi, 4000, endpoint=False)
    p = bases.boundary_points(e, t)
    far = float(np.hypot(p[:, 0] - x, p[:, 1] - y).max())
    assert wholly_within(a, (x, y), far + 1e-4)
    assert not wholly_within(a, (x, y), far - 1e-3)


def test_unit_within_and_wholly_within():
    from geom.model import Unit

    ms = (m((0, 0), 25.4, unit="u", mid="1"), m((4, 0), 25.4, unit="u", mid="2"))
    u = Unit("u", "red", 1, ms, Base.from_mm(25.4))
    target = (6, 0)
    assert within(u, target, 1.5)  # the nearer model is 1.5" away
    assert not wholly_within(u, target, 1.5)  # the far one is not
    assert wholly_within(u, target, 6.5)


@settings(max_examples=300, deadline=None)
@given(st.floats(0.2, 3), st.floats(0.05, 3), st.floats(0, 3.2), st.floats(0.05, 2),
       st.floats(-7, 7), st.floats(-7, 7), st.booleans())
def test_oval_to_disc_by_the_centre_solve_agrees_with_the_separating_axis(a, b, turn, r, x, y,
                                                                         swap):
    # the oval-and-disc shortcut (distance from the disc's centre, less its radius) and the
    # general separating-axis search are two exact methods: they agree to rounding
    from geom.bases import ellipse_distance, ellipse_distances
    from geom.model import Ellipse
    oval, disc = Ellipse(0.0, 0.0, max(a, b), min(a, b), turn), Ellipse(x, y, r, r)
    pair = (disc, oval) if swap else (oval, disc)
    general = float(ellipse_distances([pair[0]], [pair[1]])[0][0])
    assert abs(ellipse_distance(*pair) - general) <= 1e-9
