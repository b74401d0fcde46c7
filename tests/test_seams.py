"""Pieces that touch stop a line as one piece, for sight, engagement and template lines alike
(rulebook §7.1, §7.2.1, §8.7.6 step 3; FAQ: long official walls are several separate pieces;
docs/rules.md#seams).

Property: split one wall into 2–5 touching sections at random (square or slanted cuts, some placed
exactly where a line along the cut would join two bases) — no verdict changes: who sees whom, who is
engaged with whom, which models a blast template hits, and how long a move around the wall is.
The wall is Size 5 and the models are ground models of Size ≤ 3 on the mat, so the wall gives full
cover whoever stands near it: splitting it cannot change *whether* a piece blocks, only where the
seams are — exactly what the joins must make invisible. A control check shows the same cuts, with
their seams left open, would let lines through.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Polygon, box

from geom import engagement, templates
from geom.lines._seams import close_seams
from geom.lines._segments import find_clear_segment
from geom.model import Base, Battlefield, Model, Table, TerrainPiece, Unit
from geom.movement._moves import shortest_path
from geom.sight._matrix import sight_matrix
from geom.sight._pair import pair_sight
from geom.sight._table import SightContext

WALL = 5


def wall_geometry(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, float]:
    """A wall from P to Q (unit axis u), `width` thick."""
    P = np.array([rng.uniform(8, 12), rng.uniform(4, 8)])
    ang = rng.uniform(0, math.pi)
    length = rng.uniform(6, 12)
    u = np.array([math.cos(ang), math.sin(ang)])
    return P, P + length * u, float(rng.uniform(0.2, 0.6))


def sections(P: np.ndarray, Q: np.ndarray, width: float, cuts: list[tuple[float, float]]
             ) -> list[Polygon]:
    """The wall cut at params (t on one long side, t' on the other): consecutive sections share
    their cut edge exactly (the same corner points)."""
    u = (Q - P) / np.linalg.norm(Q - P)
    n = np.array([-u[1], u[0]]) * width / 2
    L = float(np.linalg.norm(Q - P))
    ts = [(0.0, 0.0), *cuts, (1.0, 1.0)]
    out = []
    for (a0, a1), (b0, b1) in zip(ts, ts[1:], strict=False):
        left0, left1 = P + a0 * L * u + n, P + b0 * L * u + n
        right0, right1 = P + a1 * L * u - n, P + b1 * L * u - n
        out.append(Polygon([tuple(left0), tuple(left1), tuple(right1), tuple(right0)]))
    return out


def scene(seed: int):
    rng = np.random.default_rng(seed)
    P, Q, width = wall_geometry(rng)
    u = (Q - P) / np.linalg.norm(Q - P)
    nrm = np.array([-u[1], u[0]])
    L = float(np.linalg.norm(Q - P))
    others = []
    for k in range(int(rng.integers(0, 4))):
        x, y = rng.uniform(0, 28), rng.uniform(0, 18)
        others.append(TerrainPiece(f"o{k}", int(rng.integers(1, 3)),
                                   box(x, y, x + rng.uniform(0.3, 2), y + rng.uniform(0.3, 2))))
    models: list[Model] = []
    tries = 0
    whole = Polygon(sections(P, Q, width, [])[0])
    while len(models) < 8 and tries < 400:
        tries += 1
        side = 1.0 if len(models) % 2 else -1.0
        r = float(rng.choice([0.5, 0.63, 0.8]))
        along = rng.uniform(-0.1, 1.1) * L
        off = width / 2 + r + (rng.uniform(0.0, 0.5) if rng.random() < 0.6 else rng.uniform(0.5, 4))
        at = P + along * u + side * off * nrm
        m = Model.make(f"m{len(models)}", unit=f"u{len(models)}",
                       owner="red" if side > 0 else "blue", at=(float(at[0]), float(at[1])),
                       base=Base(2 * r, 2 * r), size=int(rng.integers(1, 4)))
        shape = m.ellipse.polygon(32, outer=True)
        if shape.intersects(whole) or any(shape.intersects(o.footprint) for o in others):
            continue
        if any(math.dist(m.at, o.at) < r + o.base.a + 0.02 for o in models):
            continue
        models.append(m)
    # cuts: some where a line along the cut would join two bases across the wall
    k = int(rng.integers(2, 6)) - 1
    params = []
    reds = [m for m in models if m.owner == "red"]
    blues = [m for m in models if m.owner == "blue"]
    for _ in range(k):
        if rng.random() < 0.5 and reds and blues:
            a, b = reds[int(rng.integers(len(reds)))], blues[int(rng.integers(len(blues)))]
            t = float((np.dot(np.array(a.at) - P, u) + np.dot(np.array(b.at) - P, u)) / 2 / L)
        else:
            t = float(rng.uniform(0.05, 0.95))
        slant = 0.0 if rng.random() < 0.6 else float(rng.uniform(-0.05, 0.05))
        params.append((t, t + slant))
    params = sorted({(min(max(a, 0.02), 0.98), min(max(b, 0.02), 0.98)) for a, b in params})
    params = [p for p, q in zip(params, params[1:] + [(2.0, 2.0)], strict=True)
              if q[0] - p[0] > 0.01 and q[1] - p[1] > 0.01]
    one = [TerrainPiece("wall", WALL, sections(P, Q, width, [])[0])]
    split = [TerrainPiece(f"wall{s}", WALL, g)
             for s, g in enumerate(sections(P, Q, width, params))]
    return others, one, split, models


def field(pieces: list[TerrainPiece], models: list[Model]) -> Battlefield:
    """Every model its own unit, all sharing the GROUND tag (so a template's spillover reaches
    every model under it)."""
    units = tuple(Unit(m.unit, m.owner, m.size, (m,), m.base, tags=("ground",)) for m in models)
    return Battlefield(Table(30, 20), tuple(pieces), units)


def sight_answers(bf: Battlefield, models: list[Model]) -> np.ndarray:
    mat = sight_matrix(SightContext(bf), models, models)
    return mat.visible


@settings(deadline=None, max_examples=25)
@given(st.integers(0, 2**32 - 1))
def test_splitting_a_wall_into_touching_sections_changes_no_verdict(seed):
    others, one, split, models = scene(seed)
    bf1 = field(others + one, models)
    bf2 = field(others + split, models)
    # sight, by the batch and one question at a time
    v1, v2 = sight_answers(bf1, models), sight_answers(bf2, models)
    assert (v1 == v2).all()
    ctx = SightContext(bf2)
    for i, a in enumerate(models):
        for j, b in enumerate(models[:4]):
            if i != j:
                assert pair_sight(ctx, a, b).ok == bool(v1[i, j])
    # engagement across the wall (bases within 1")
    for a in models:
        for b in models:
            if a.owner != b.owner and engagement.in_engagement_range(a, b):
                assert bool(engagement.models_engaged(bf1, a, b)) == \
                    bool(engagement.models_engaged(bf2, a, b)), (a.ref, b.ref)
    # blast template lines from the target model to the models under the template
    shape = templates.make_shape(templates.BLAST, {"diameter": 6.0}, "test")
    for t in models[:3]:
        atk = next(m for m in models if m.owner != t.owner)
        r1 = templates.resolve(bf1, templates.BLAST, shape, atk, target=t)
        r2 = templates.resolve(bf2, templates.BLAST, shape, atk, target=t)
        assert set(r1.affected) == set(r2.affected)


@settings(deadline=None, max_examples=6)
@given(st.integers(0, 2**32 - 1))
def test_moves_around_a_split_wall_are_as_long(seed):
    """Movement unions its obstacles before it routes: the path from one side of the wall to the
    other is as long around the sections as around the whole wall."""
    others, one, split, models = scene(seed)
    red = next((m for m in models if m.owner == "red"), None)
    blue = next((m for m in models if m.owner == "blue"), None)
    if red is None or blue is None:
        return
    lens = []
    for pieces in (one, split):
        bf = field(others + pieces, [red])
        unit = bf.unit(red.unit)
        path = shortest_path(bf, unit, red.at, blue.at)
        lens.append(None if path is None else round(path.length, 6))
    assert lens[0] == lens[1]


def test_open_seams_would_let_lines_through():
    """Control: the cuts the property places on lines between two bases do matter — tested
    without joining, a segment slips through a seam; joined, the sections stop exactly the lines
    the whole wall stops."""
    leaks = 0
    for seed in range(16):
        _, one, split, models = scene(seed)
        polys = [p.footprint for p in split]
        joined = close_seams(polys).polys
        for a in models:
            for b in models:
                if a.owner == "red" and b.owner == "blue":
                    raw = find_clear_segment(a.ellipse, b.ellipse, polys)
                    closed = find_clear_segment(a.ellipse, b.ellipse, joined)
                    whole = find_clear_segment(a.ellipse, b.ellipse, [one[0].footprint])
                    assert (closed is None) == (whole is None), (seed, a.ref, b.ref)
                    if raw is not None and whole is None:
                        leaks += 1
    assert leaks >= 2, leaks


def test_two_sections_of_one_wall():
    """Two sections of a straight wall meeting at y = 5: the only line between the models runs
    along the seam. Joined, it is stopped, for sight, engagement and a blast's line (the blast on
    `a` would reach `b` across the seam)."""
    a, b = box(0, 0, 0.5, 5), box(0, 5, 0.5, 10)
    r = 0.63
    pa = Model.make("a", unit="a", owner="red", at=(-r - 0.2, 5), base=Base(2 * r, 2 * r), size=1)
    pb = Model.make("b", unit="b", owner="blue", at=(0.5 + r + 0.2, 5), base=Base(2 * r, 2 * r),
                    size=1)
    shooter = Model.make("s", unit="s", owner="blue", at=(-8, 15), base=Base(2 * r, 2 * r),
                         size=1)
    assert find_clear_segment(pa.ellipse, pb.ellipse, [a, b]) is not None  # the open seam
    shape = templates.make_shape(templates.BLAST, {"diameter": 8.0}, "test")
    bf = field([TerrainPiece("w", WALL, box(20, 0, 21, 1))], [pa, pb, shooter])
    assert templates.resolve(bf, templates.BLAST, shape, shooter, target=pa).affected == \
        ["a/a", "b/b"]  # no wall: the blast reaches b
    for walls in ([TerrainPiece("w", WALL, a.union(b))],
                  [TerrainPiece("w1", WALL, a), TerrainPiece("w2", WALL, b)]):
        bf = field(walls, [pa, pb, shooter])
        assert not pair_sight(SightContext(bf), pa, pb).ok
        assert not engagement.models_engaged(bf, pa, pb).ok
        res = templates.resolve(bf, templates.BLAST, shape, shooter, target=pa)
        assert res.affected == ["a/a"]
