"""Tests for geom.lines._segments.find_clear_segment: hand-built cases, the dense brute-force sampler as
slow reference, and an independent witness checker (rulebook §7.1, §7.2.1, §8.7.6)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from hypothesis import example, given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import LineString, Polygon, box

from geom.lines._segments import find_clear_segment, search_clear_segment
from geom.model import Ellipse

TOL = 1e-6


# --------------------------------------------------------------------------- references


def inside_base(e: Ellipse, p: tuple[float, float], slack: float = 1e-7) -> bool:
    """Independent point-in-ellipse test (own algebra, not geom.lines._segments')."""
    c, s = math.cos(e.theta), math.sin(e.theta)
    dx, dy = p[0] - e.cx, p[1] - e.cy
    u, v = c * dx + s * dy, -s * dx + c * dy
    return (u / (e.a + slack)) ** 2 + (v / (e.b + slack)) ** 2 <= 1.0


def witness_ok(a: Ellipse, b: Ellipse, seg, obstacles, max_length=None) -> bool:
    """A witness is valid when its ends lie in the two bases, it is within the length bound
    and it enters no obstacle deeper than the tolerance (round-join shrink: true depth)."""
    p, q = seg
    if not (inside_base(a, p) and inside_base(b, q)):
        return False
    if max_length is not None and math.dist(p, q) > max_length + TOL + 1e-9:
        return False
    line = LineString([p, q]) if p != q else shapely.points(p)
    for o in obstacles:
        core = o.buffer(-(TOL + 1e-8))
        if not core.is_empty and line.intersects(core):
            return False
    return True


def base_samples(e: Ellipse, n: int) -> np.ndarray:
    """n points per rim on the rim and two inner rims, plus the centre."""
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    c, s = math.cos(e.theta), math.sin(e.theta)
    pts = [np.array([[e.cx, e.cy]])]
    for k in (1.0, 0.6, 0.25):
        x, y = k * e.a * np.cos(t), k * e.b * np.sin(t)
        pts.append(np.column_stack((e.cx + c * x - s * y, e.cy + s * x + c * y)))
    return np.vstack(pts)


def brute_force(a: Ellipse, b: Ellipse, obstacles, n: int = 32, max_length=None):
    """Slow reference: every sampled segment against every obstacle shrunk by the tolerance.
    Returns a clear sampled segment or None."""
    pa, pb = base_samples(a, n), base_samples(b, n)
    i, j = np.meshgrid(np.arange(len(pa)), np.arange(len(pb)), indexing="ij")
    segs = np.stack([pa[i.ravel()], pb[j.ravel()]], axis=1)
    if max_length is not None:
        segs = segs[np.hypot(*(segs[:, 1] - segs[:, 0]).T) <= max_length + TOL]
    if len(segs) == 0:
        return None
    lines = shapely.linestrings(segs)
    ok = np.ones(len(segs), dtype=bool)
    for o in obstacles:
        q = shapely.buffer(o, -TOL, join_style="mitre", mitre_limit=10.0)
        if not q.is_empty:
            ok &= ~shapely.intersects(lines, q)
    k = np.nonzero(ok)[0]
    return None if len(k) == 0 else segs[k[0]]


def disc(x, y, r=0.63):
    return Ellipse(x, y, r, r)


# --------------------------------------------------------------------------- hand-built cases


def test_no_obstacle_centre_line():
    a, b = disc(0, 0), disc(10, 0)
    assert find_clear_segment(a, b, []) == ((0.0, 0.0), (10.0, 0.0))


def test_long_wall_blocks():
    a, b = disc(0, 0), disc(10, 0)
    assert find_clear_segment(a, b, [box(4, -3, 5, 3)]) is None


def test_wall_ending_at_tangent_is_grazed():
    # Wall's top edge exactly on the outer common tangent y = r: the tangent line grazes it.
    r = 0.63
    a, b = disc(0, 0, r), disc(10, 0, r)
    wall = box(4, -5, 5, r)
    seg = find_clear_segment(a, b, [wall])
    assert seg is not None and witness_ok(a, b, seg, [wall])
    assert abs(seg[0][1] - r) < 1e-6 and abs(seg[1][1] - r) < 1e-6
    # raise it by 1e-5": now it really blocks
    assert find_clear_segment(a, b, [box(4, -5, 5, r + 1e-5)]) is None


def test_gap_between_two_walls():
    a, b = disc(0, 0), disc(10, 0)
    walls = [box(4, -5, 5, -0.05), box(4, 0.05, 5, 5)]
    seg = find_clear_segment(a, b, walls)
    assert seg is not None and witness_ok(a, b, seg, walls)
    # no gap: blocked
    assert find_clear_segment(a, b, [box(4, -5, 5, -1e-5), box(4, 1e-5, 5, 5)]) is not None
    assert find_clear_segment(a, b, [box(4, -5, 5, 1e-5), box(4, 0.0, 5, 5)]) is None
    # two pieces sharing an edge: by the letter of §0 the seam is only grazed by either piece
    # (geom.sight._sight joins touching pieces that both block before asking)
    assert find_clear_segment(a, b, [box(4, -5, 5, 0.0), box(4, 0.0, 5, 5)]) is not None


def test_slanted_narrow_gap_needs_vertex_lines():
    # A 0.1" gap between two walls, slanted so that no common tangent and no centre line passes.
    a, b = disc(0, 0), disc(10, 1.5)
    w1 = Polygon([(4, -5), (5, -5), (5, 1.0), (4, 1.0)])
    w2 = Polygon([(4, 1.1), (5, 1.1), (5, 8), (4, 8)])
    seg = find_clear_segment(a, b, [w1, w2])
    assert seg is not None and witness_ok(a, b, seg, [w1, w2])
    # shift b up: no line threads the slot any more, and the sampler agrees
    b2 = disc(10, 3)
    assert find_clear_segment(a, b2, [w1, w2]) is None
    assert brute_force(a, b2, [w1, w2], 64) is None


def test_two_staggered_gaps():
    # Two rows of walls, gaps offset: a line must thread both gaps (line through two vertices).
    a, b = disc(0, 0), disc(12, 0)
    obs = [box(4, -6, 4.5, -0.5), box(4, -0.3, 4.5, 6),
           box(8, -6, 8.5, -0.1), box(8, 0.1, 8.5, 6)]
    seg = find_clear_segment(a, b, obs)
    assert seg is not None and witness_ok(a, b, seg, obs)


def test_thin_ovals():
    a = Ellipse(0, 0, 2.0, 0.2, math.radians(90))
    b = Ellipse(10, 0, 2.0, 0.2, math.radians(90))
    wall = box(4, -1.5, 5, 1.5)
    seg = find_clear_segment(a, b, [wall])
    assert seg is not None and witness_ok(a, b, seg, [wall])
    wall2 = box(4, -2.5, 5, 2.5)
    assert find_clear_segment(a, b, [wall2]) is None
    # lying flat, the same ovals hide behind a 1.5"-tall wall
    a2 = Ellipse(0, 0, 2.0, 0.2, 0.0)
    b2 = Ellipse(10, 0, 2.0, 0.2, 0.0)
    assert find_clear_segment(a2, b2, [box(4, -0.5, 5, 0.5)]) is None


def test_max_length_nearest_points():
    a, b = disc(0, 0, 0.5), disc(2, 0, 0.5)
    seg = find_clear_segment(a, b, [], max_length=1.0)
    assert seg is not None and abs(math.dist(*seg) - 1.0) < 1e-9
    assert find_clear_segment(a, b, [], max_length=0.99) is None


def test_max_length_around_corner():
    # Wall between the models' centres; the shortest clear segment passes the wall's end corner.
    a, b = disc(0, 0, 0.5), disc(2.2, 0, 0.5)
    wall = box(0.9, -0.2, 1.3, 3)
    seg = find_clear_segment(a, b, [wall], max_length=1.5)
    assert seg is not None and witness_ok(a, b, seg, [wall], 1.5)
    shortest = math.dist(*seg)
    # the sampler agrees no shorter clear segment exists (to sampling accuracy)
    assert brute_force(a, b, [wall], 64, max_length=shortest - 1e-3) is None
    assert find_clear_segment(a, b, [wall], max_length=shortest - 1e-4) is None


def test_touching_bases():
    a, b = disc(0, 0, 0.5), disc(1.0, 0, 0.5)
    seg = find_clear_segment(a, b, [], max_length=0.0)
    assert seg is not None and math.dist(*seg) < 1e-9


def test_obstacle_overlapping_base():
    # A piece overlaps base a; a clear segment must start outside it.
    a, b = disc(0, 0, 1.0), disc(8, 0, 0.5)
    obs = [box(-2, -2, 0.5, 0.9), box(3, -4, 4, 0.2)]
    seg = find_clear_segment(a, b, obs)
    assert seg is not None and witness_ok(a, b, seg, obs)


def test_search_reports_pieces_between():
    a, b = disc(0, 0), disc(10, 0)
    res = search_clear_segment(a, b, [box(4, -3, 5, 3), box(20, 20, 21, 21)])
    assert res.witness is None and res.between == (0,)


# --------------------------------------------------------------------------- properties

coord = st.floats(0, 12, allow_nan=False)


@st.composite
def bases(draw):
    r = draw(st.floats(0.3, 1.2))
    oval = draw(st.booleans())
    b = draw(st.floats(0.1, r)) if oval else r
    th = draw(st.floats(0, math.pi)) if oval else 0.0
    return Ellipse(draw(coord), draw(coord), r, b, th)


@st.composite
def obstacle(draw):
    kind = draw(st.sampled_from(["rect", "tri", "ell"]))
    x, y = draw(coord), draw(coord)
    if kind == "rect":
        w, d = draw(st.floats(0.05, 4)), draw(st.floats(0.05, 4))
        g = box(x - w / 2, y - d / 2, x + w / 2, y + d / 2)
    elif kind == "tri":
        pts = [(x, y)] + [(x + draw(st.floats(-3, 3)), y + draw(st.floats(-3, 3))) for _ in range(2)]
        g = Polygon(pts)
        if not g.is_valid or g.area < 0.01:
            g = box(x, y, x + 1, y + 0.2)
    else:
        w, d = draw(st.floats(0.3, 3)), draw(st.floats(0.3, 3))
        g = Polygon([(x, y), (x + w, y), (x + w, y + 0.2), (x + 0.2, y + 0.2), (x + 0.2, y + d),
                     (x, y + d)])
    return affinity.rotate(g, draw(st.floats(0, 180)), origin="centroid")


@st.composite
def scene(draw):
    a, b = draw(bases()), draw(bases())
    if math.hypot(a.cx - b.cx, a.cy - b.cy) < a.a + b.a + 0.05:
        b = Ellipse(b.cx + 2 * (a.a + b.a) + 0.1, b.cy, b.a, b.b, b.theta)
    obs = draw(st.lists(obstacle(), min_size=1, max_size=6))
    obs = [o for o in obs if not o.intersects(a.polygon(32, True)) and
           not o.intersects(b.polygon(32, True))]
    return a, b, obs


@settings(deadline=None, max_examples=150)
@given(scene())
def test_never_blocked_where_sampler_sees(sc):
    a, b, obs = sc
    seg = find_clear_segment(a, b, obs)
    ref = brute_force(a, b, obs, 16)
    if ref is not None:
        assert seg is not None
    if seg is not None:
        assert witness_ok(a, b, seg, obs)


@settings(deadline=None, max_examples=60)
@given(scene(), st.floats(0.2, 6))
def test_length_bound_agrees_with_sampler(sc, ell):
    a, b, obs = sc
    seg = find_clear_segment(a, b, obs, max_length=ell)
    ref = brute_force(a, b, obs, 16, max_length=ell)
    if ref is not None:
        assert seg is not None
    if seg is not None:
        assert witness_ok(a, b, seg, obs, ell)


@settings(deadline=None, max_examples=60)
@given(scene())
def test_symmetric_and_monotone(sc):
    a, b, obs = sc
    ab = find_clear_segment(a, b, obs) is not None
    ba = find_clear_segment(b, a, obs) is not None
    assert ab == ba
    if ab:
        for k in range(len(obs)):
            assert find_clear_segment(a, b, obs[:k] + obs[k + 1:]) is not None


@pytest.mark.parametrize("seed", range(5))
def test_random_gap_walls(seed):
    # Narrow gaps at random angles: the exact search finds each line the fine sampler finds.
    rng = np.random.default_rng(seed)
    for _ in range(20):
        a = disc(0, rng.uniform(-1, 1), 0.63)
        b = disc(12, rng.uniform(-3, 3), rng.uniform(0.4, 1.0))
        gy = rng.uniform(-1, 1)
        w = rng.uniform(0.02, 0.3)
        obs = [box(5, -8, 5.5, gy), box(5, gy + w, 5.5, 8)]
        seg = find_clear_segment(a, b, obs)
        ref = brute_force(a, b, obs, 32)
        if ref is not None:
            assert seg is not None
        if seg is not None:
            assert witness_ok(a, b, seg, obs)


def test_wall_through_a_base_is_not_a_separator():
    """Regression: a thin wall cutting across base a meets both outer tangents' sides, yet a line
    leaves a's far side past the wall (the quick "one part separates" proof must not apply when
    an obstacle crosses a rim)."""
    a, b = disc(5.49, 3.21), disc(6.11, 23.66)
    wall = Polygon([(3.0, 4.4), (9.29, 2.2), (9.36, 2.4), (3.07, 4.6)])
    hill = box(5.6, 10.7, 12.0, 15.07)
    for obs in ([wall, hill], [wall, wall, hill]):  # duplicates once hid the rim crossings
        seg = find_clear_segment(a, b, obs)
        assert seg is not None and witness_ok(a, b, seg, obs)
    assert brute_force(a, b, [wall, hill], 16) is not None


# --------------------------------------------------------------------------- batch vs one by one


def random_job(rng: np.random.Generator):
    """Two bases (discs or ovals) and 1–6 obstacles: walls, boxes, triangles, L-shapes, some
    sharing an edge (a wall in sections) or overlapping a base."""
    def base():
        r = float(rng.uniform(0.3, 1.2))
        if rng.random() < 0.35:
            return Ellipse(rng.uniform(0, 12), rng.uniform(0, 12), r, float(rng.uniform(0.1, r)),
                           float(rng.uniform(0, math.pi)))
        return Ellipse(rng.uniform(0, 12), rng.uniform(0, 12), r, r)

    a, b = base(), base()
    if math.hypot(a.cx - b.cx, a.cy - b.cy) < a.a + b.a + 0.05:
        b = Ellipse(b.cx + 2 * (a.a + b.a) + 0.1, b.cy, b.a, b.b, b.theta)
    obs = []
    for _ in range(int(rng.integers(1, 7))):
        x, y = rng.uniform(0, 12, 2)
        kind = int(rng.integers(0, 5))
        if kind == 0:
            w, d = rng.uniform(0.05, 4, 2)
            g = box(x - w / 2, y - d / 2, x + w / 2, y + d / 2)
        elif kind == 1:
            g = Polygon([(x, y)] + [(x + rng.uniform(-3, 3), y + rng.uniform(-3, 3))
                                    for _ in range(2)])
            if not g.is_valid or g.area < 0.01:
                g = box(x, y, x + 1, y + 0.2)
        elif kind == 2:
            w, d = rng.uniform(0.3, 3, 2)
            g = Polygon([(x, y), (x + w, y), (x + w, y + 0.2), (x + 0.2, y + 0.2),
                         (x + 0.2, y + d), (x, y + d)])
        elif kind == 3:  # a wall in two sections that share an edge
            h = rng.uniform(1, 4)
            obs.append(box(x, y, x + 0.3, y + h))
            g = box(x, y + h, x + 0.3, y + 2 * h)
        else:
            g = box(x, y, x + rng.uniform(0.1, 0.5), y + rng.uniform(2, 8))
        obs.append(affinity.rotate(g, rng.uniform(0, 180), origin="centroid")
                   if kind != 3 else g)
    if rng.random() < 0.8:  # usually keep the bases clear of the obstacles (legal positions)
        obs = [o for o in obs if not o.intersects(a.polygon(32, True))
               and not o.intersects(b.polygon(32, True))] or obs[:1]
    return a, b, obs


def test_batch_search_agrees_with_one_by_one_and_the_sampler():
    """2,000 cheap random jobs in one batched call of the exact search (each job with its own
    obstacles, from one table of all of them): every answer equals the one-pair search (on the
    shared table, and for a tenth of the jobs on the job's obstacles prepared alone), no blocked
    job has a clear sampled segment, every witness is valid on its own; a third of the jobs carry
    a length bound."""
    from geom.lines._line_obstacles import PreparedObstacles
    from geom.lines._segments import search_jobs
    from geom.lines._tangents import Frames

    rng = np.random.default_rng(2025)
    jobs = [random_job(rng) for _ in range(2000)]
    polys, ptr = [], [0]
    for _, _, obs in jobs:
        polys.extend(obs)
        ptr.append(len(polys))
    table = PreparedObstacles.build(polys)
    where = {int(i): r for r, i in enumerate(table.index)}
    rows = [[where[i] for i in range(ptr[k], ptr[k + 1]) if i in where]
            for k in range(len(jobs))]
    for bound in (None, 1.5):
        sel = list(range(len(jobs))) if bound is None else list(range(0, len(jobs), 3))
        job_ptr = np.concatenate([[0], np.cumsum([len(rows[k]) for k in sel])])
        job_rows = np.array([r for k in sel for r in rows[k]], dtype=np.int64)
        res = search_jobs(Frames.of([jobs[k][0] for k in sel]),
                          Frames.of([jobs[k][1] for k in sel]), table, job_ptr, job_rows,
                          max_length=bound)
        for n, k in enumerate(sel):
            a, b, obs = jobs[k]
            # one by one on the shared table; every tenth also prepared from its own obstacles
            mine = np.array(rows[k], dtype=np.int64)
            alone = search_jobs(Frames.of([a]), Frames.of([b]), table, np.array([0, len(mine)]),
                                mine, max_length=bound)
            one = None if not alone.clear[0] else alone.witness[0]
            if k % 10 == 0:
                assert (find_clear_segment(a, b, obs, max_length=bound) is None) == (one is None)
            assert bool(res.clear[n]) == (one is not None), (k, bound)
            if res.clear[n]:
                w = res.witness[n]
                seg = ((w[0, 0], w[0, 1]), (w[1, 0], w[1, 1]))
                assert witness_ok(a, b, seg, obs, bound), (k, bound)
            elif k % 4 == 0:  # the sampler on a quarter of the blocked jobs keeps the test quick
                assert brute_force(a, b, obs, 12, max_length=bound) is None, (k, bound)


@settings(max_examples=300, deadline=None)
@given(st.floats(0.3, 3), st.floats(0.3, 3), st.floats(0, 6), st.floats(0, 2 * math.pi),
       st.one_of(st.none(), st.floats(0, 2)))
@example(1.0, 0.5, 1.5, 0.3, None)  # bases in contact, with and without a bound
@example(1.0, 0.5, 1.5, 0.3, 1.0)
@example(0.6, 0.6, 1.2 - 5e-10, 2.0, 0.5)  # in contact to within the tolerance
@example(0.6, 0.6, 1.0, 2.0, None)  # overlapping: left to the full search
def test_open_disc_segment_is_what_the_full_search_answers(ra, rb, d, angle, bound):
    # the shortcut for two discs with nothing between them gives the full search's witness,
    # to the last bit, or leaves the pair to it (overlapping bases)
    from geom.lines._line_obstacles import PreparedObstacles
    from geom.lines._segments import open_disc_segment, search_jobs
    from geom.lines._tangents import Frames

    a = Ellipse(10.0, 10.0, ra, ra)
    b = Ellipse(10.0 + d * math.cos(angle), 10.0 + d * math.sin(angle), rb, rb)
    decided, fast = open_disc_segment(a, b, bound)
    res = search_jobs(Frames.of([a]), Frames.of([b]), PreparedObstacles.build([]),
                      np.array([0, 0]), np.zeros(0, dtype=np.int64), bound)
    full = tuple(map(tuple, res.witness[0])) if res.clear[0] else None
    if not decided:
        assert math.hypot(b.cx - a.cx, b.cy - a.cy) - ra - rb < -1e-9
    else:
        assert fast == full
