"""§7.2, §7.2.1 engagement: hand-built rulebook cases, and properties against a brute-force
reference that samples segments between the two rims (it shares no code with the engine)."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import LineString, Point, box

from geom.engagement import in_engagement_range, models_engaged, units_engaged
from geom.model import Base, Battlefield, Model, Table, TerrainPiece, Unit

B32 = Base.from_mm(32)
R = B32.a


def mdl(mid, unit, owner, at, base=B32, **kw):
    return Model.make(mid, unit=unit, owner=owner, at=at, base=base, size=kw.pop("size", 2), **kw)


def field(*pieces, units=()):
    return Battlefield(Table(54, 36), tuple(pieces), tuple(units))


def pair(gap, y=10.0):
    a = mdl("a", "u", "red", (10, y))
    b = mdl("b", "v", "blue", (10 + 2 * R + gap, y))
    return a, b


def wall_between(size=2, kind="solid", y0=5.0, y1=15.0, **kw):
    x = 10 + R + 0.3
    return TerrainPiece("wall", size, box(x, y0, x + 0.2, y1), kind=kind, **kw)


# ---------------------------------------------------------------- independent reference


def shrunk(w):
    """Tolerance (docs/rules.md#tolerance): running along an edge or grazing a corner is not crossing (the engine
    allows a witness 1e-6" inside an edge, plus 1e-9" of rounding)."""
    return w.buffer(-1.01e-6, join_style="mitre")


def rim(m: Model, n: int) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    e = m.ellipse
    c, s = math.cos(e.theta), math.sin(e.theta)
    x, y = e.a * np.cos(t), e.b * np.sin(t)
    return np.column_stack((e.cx + c * x - s * y, e.cy + s * x + c * y))


def brute_clear(a: Model, b: Model, walls, n=90, reach=1.0):
    """Some sampled rim-to-rim segment of length ≤ reach misses every wall's interior?"""
    pa, pb = rim(a, n), rim(b, n)
    d = np.hypot(pa[:, None, 0] - pb[None, :, 0], pa[:, None, 1] - pb[None, :, 1])
    for i, j in zip(*np.nonzero(d <= reach), strict=True):
        seg = LineString([pa[i], pb[j]])
        if not any(seg.relate_pattern(shrunk(w), "T********") for w in walls):
            return True
    return False


def witness_ok(a: Model, b: Model, w, walls) -> bool:
    p, q = np.array(w[0]), np.array(w[1])
    if np.hypot(*(p - q)) > 1.0 + 1e-6:
        return False
    for m, pt in ((a, p), (b, q)):
        e = m.ellipse
        c, s = math.cos(e.theta), math.sin(e.theta)
        dx, dy = pt[0] - e.cx, pt[1] - e.cy
        u, v = c * dx + s * dy, -s * dx + c * dy
        if (u / e.a) ** 2 + (v / e.b) ** 2 > 1 + 1e-6:
            return False
    seg = LineString([p, q]) if (p != q).any() else Point(p)
    return not any(seg.relate_pattern(shrunk(w), "T********") for w in walls)


# ---------------------------------------------------------------- rulebook cases


def test_wall_between_models_08_apart_means_not_engaged():
    a, b = pair(0.8)
    v = models_engaged(field(wall_between()), a, b)
    assert not v and v.rule == "7.2.1 terrain" and v.details["blocking"] == ["wall"]
    assert in_engagement_range(a, b)  # the bare 1" is met; §7.2.1 is what stops it
    assert not brute_clear(a, b, [wall_between().footprint])


def test_low_barricade_does_not_stop_engagement():
    a, b = pair(0.8)
    v = models_engaged(field(wall_between(size=1)), a, b)
    assert v and v.rule == "7.2 engagement"
    assert witness_ok(a, b, v.witness, [])


def test_engaged_around_the_end_of_a_short_wall():
    a, b = pair(0.8)
    short = wall_between(y0=5.0, y1=10.3)
    v = models_engaged(field(short), a, b)
    assert v and witness_ok(a, b, v.witness, [short.footprint])
    assert brute_clear(a, b, [short.footprint])


def test_out_of_range_flying_and_friends():
    a, b = pair(1.05)
    v = models_engaged(field(), a, b)
    assert not v and v.rule == "7.2 engagement range" and math.isclose(v.details["distance"], 1.05)
    a, b = pair(0.0)
    assert models_engaged(field(), a, b)  # base contact
    flyer = mdl("b", "v", "blue", b.at, flying=True)
    v = models_engaged(field(), a, flyer)
    assert not v and v.rule == "7.2.1 combat tags"
    friend = mdl("b", "w", "red", b.at)
    assert not models_engaged(field(), a, friend)


def test_high_ground_never_engages_ground_level():
    ridge = TerrainPiece("ridge", 3, box(0, 0, 10, 20), standable=True)
    a = mdl("a", "u", "red", (10 - 0.1, 10))  # centre on the ridge, base overhanging
    b = mdl("b", "v", "blue", (10 - 0.1 + 2 * R, 10))  # touching, at ground level
    v = models_engaged(field(ridge), a, b)
    assert not v and v.rule == "7.2.1 elevation" and "high ground" in v.reason
    assert not models_engaged(field(ridge), b, a)


def test_mid_ground_engages_only_through_a_shared_access_point():
    ap = box(9.5, 11, 10.5, 12)
    plat = TerrainPiece("plat", 1, box(0, 0, 10, 20), standable=True, access_points=(ap,))
    a = mdl("a", "u", "red", (9.5, 10))
    b = mdl("b", "v", "blue", (9.5 + 2 * R + 0.3, 10))
    v = models_engaged(field(plat), a, b)
    assert not v and v.rule == "7.2.1 elevation" and "access point" in v.reason
    a2 = mdl("a", "u", "red", (9.5, 11.5))
    b2 = mdl("b", "v", "blue", (9.5 + 2 * R, 11.5))
    v = models_engaged(field(plat), a2, b2)
    assert v and v.details["access_point"] == ["plat", 0]


def test_grass_is_size_2_terrain_for_engagement_but_an_opening_is_a_gap():
    a, b = pair(0.8)
    assert not models_engaged(field(wall_between(kind="grass")), a, b)
    door = box(10 + R + 0.2, 9.5, 10 + R + 0.6, 10.5)
    v = models_engaged(field(wall_between(openings=(door,))), a, b)
    assert v
    x = 10 + R + 0.3
    solid = box(x, 5, x + 0.2, 15).difference(door)
    assert witness_ok(a, b, v.witness, list(getattr(solid, "geoms", [solid])))


def test_height_counts_from_the_lower_standing_surface():
    # A Size-1 crate on a Size-1 platform is 2 high on the mat: it blocks.
    x = 10 + R + 0.3
    plat = TerrainPiece("plat", 1, box(x - 0.1, 0, x + 0.3, 30))
    crate = TerrainPiece("crate", 1, box(x, 5, x + 0.2, 15), on="plat")
    a, b = pair(0.8)
    assert not models_engaged(field(plat, crate), a, b)
    # On a ridge both stand on, a Size-1 crate is only 1 high: it does not block.
    ridge = TerrainPiece("ridge", 3, box(0, 0, 30, 30), standable=True)
    crate2 = TerrainPiece("crate", 1, box(x, 5, x + 0.2, 15), on="ridge")
    v = models_engaged(field(ridge, crate2), a, b)
    assert v, v.reason


def test_units_engaged_and_symmetric():
    a, b = pair(0.5)
    far = mdl("c", "u", "red", (2, 2))
    u = Unit("u", "red", 2, (a, far), B32)
    v = Unit("v", "blue", 2, (b,), B32)
    bf = field(units=(u, v))
    assert units_engaged(bf, u, v) and units_engaged(bf, v, u)
    bf2 = field(wall_between(), units=(u, v))
    r = units_engaged(bf2, u, v)
    assert not r and r.rule == "7.2.1 terrain"


# ---------------------------------------------------------------- properties

coord = st.floats(8.0, 14.0, allow_nan=False)
angle = st.floats(0.0, 180.0, allow_nan=False)
bases_ = st.sampled_from([Base.from_mm(25), Base.from_mm(32), Base.from_mm(50),
                          Base.from_mm((60, 35))])


@st.composite
def scenes(draw):
    ba, bb = draw(bases_), draw(bases_)
    a = mdl("a", "u", "red", (draw(coord), draw(coord)), base=ba, angle=draw(angle))
    b = mdl("b", "v", "blue", (draw(coord), draw(coord)), base=bb, angle=draw(angle))
    walls = []
    for i in range(draw(st.integers(0, 2))):
        cx, cy = draw(coord), draw(coord)
        w, d = draw(st.floats(0.1, 3.0)), draw(st.floats(0.1, 0.6))
        rot = draw(angle)
        poly = affinity.rotate(box(cx - w / 2, cy - d / 2, cx + w / 2, cy + d / 2), rot)
        walls.append(TerrainPiece(f"w{i}", draw(st.sampled_from([1, 2, 3])), poly))
    return a, b, walls


def _legal(a, b, walls):
    from geom.bases import ellipse_distance, geometry_meets
    if ellipse_distance(a.ellipse, b.ellipse) <= 1e-6:
        return False
    return not any(geometry_meets(m.ellipse, w.footprint) for m in (a, b) for w in walls)


@settings(max_examples=60, deadline=None)
@given(scenes())
def test_engagement_is_symmetric(scene):
    a, b, walls = scene
    bf = field(*walls)
    assert models_engaged(bf, a, b).ok == models_engaged(bf, b, a).ok


@settings(max_examples=60, deadline=None)
@given(scenes())
def test_engagement_agrees_with_brute_force_and_witness_is_valid(scene):
    a, b, walls = scene
    if not _legal(a, b, walls):
        return
    bf = field(*walls)
    v = models_engaged(bf, a, b)
    high = [w.footprint for w in walls if w.size >= 2]
    if v:
        assert witness_ok(a, b, v.witness, high)
    elif v.rule == "7.2.1 terrain":
        # the exact search is never worse than sampling
        assert not brute_clear(a, b, high, n=72)
    else:
        assert v.rule == "7.2 engagement range"
        assert not brute_clear(a, b, [], n=72, reach=1.0 - 1e-3)


def test_engagement_of_ovals_across_a_gap_in_two_walls():
    hyd = Base.from_mm((100, 40))
    a = mdl("a", "u", "red", (10, 10), base=hyd, angle=90)
    b = mdl("b", "v", "blue", (10 + hyd.b * 2 + 0.9, 10), base=hyd, angle=90)
    x = 10 + hyd.b + 0.4
    w1 = TerrainPiece("w1", 3, box(x, 0, x + 0.1, 10.4))
    w2 = TerrainPiece("w2", 3, box(x, 10.6, x + 0.1, 20))
    v = models_engaged(field(w1, w2), a, b)
    assert v and witness_ok(a, b, v.witness, [w1.footprint, w2.footprint])
    w3 = TerrainPiece("w3", 3, box(x, 10.3, x + 0.1, 10.7))
    assert not models_engaged(field(w1, w2, w3), a, b)


def test_docstring_examples():
    import doctest

    import geom.combat._charge
    import geom.combat._close_combat
    import geom.engagement
    for mod in (geom.engagement, geom.combat._charge, geom.combat._close_combat):
        assert doctest.testmod(mod).failed == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 20), st.floats(0, 20), st.floats(0.05, 4),
                          st.floats(0.05, 4), st.integers(2, 5)), min_size=1, max_size=12),
       st.floats(2, 18), st.floats(2, 18), st.floats(0, 2 * math.pi), st.floats(0, 1.2),
       st.sampled_from([Base.from_mm(32), Base.from_mm((100, 40))]), st.floats(0, 180))
def test_blocking_pieces_box_filter_drops_nothing_within_reach(boxes, x, y, angle, gap, base,
                                                              turn):
    # the bounding-box prefilter is conservative: the pieces within 1" of both bases are
    # exactly those a distance to every piece finds
    from geom import bases
    from geom.engagement import blocking_pieces
    pieces = tuple(TerrainPiece(f"p{i}", s, box(x0, y0, x0 + w, y0 + h))
                   for i, (x0, y0, w, h, s) in enumerate(boxes))
    a = mdl("a", "u", "red", (x, y), base=base, angle=turn)
    d = 2 * max(base.a, base.b) + gap
    b = mdl("b", "v", "blue", (x + d * math.cos(angle), y + d * math.sin(angle)), base=base)
    bf = field(*pieces, units=())
    got = [p.id for p in blocking_pieces(bf, a, b)]
    ref = [p.id for p in pieces
           if max(bases.ellipse_geometry_distance(m.ellipse, p.footprint) for m in (a, b))
           <= 1.0 + 1e-6]
    assert got == ref
