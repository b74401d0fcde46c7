"""Property tests for geom.sight._sight on random scenes, against a slow reference: the rules applied
one pair and one piece at a time (geom.sight._cover's scalar statement of them, geom.distance for every
distance) and a dense brute-force sampler of base-to-base segments (rulebook §7.1)."""

from __future__ import annotations

import functools
import math
import os
from dataclasses import replace

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import LineString, Polygon, box

from geom.distance import distance
from geom.elevation import elevation_level, model_effective_size, standing_piece
from geom.model import Base, Battlefield, Model, Table, TerrainPiece, Unit
from geom.sight import _cover as cover
from geom.sight._matrix import BLOCKED, DEAD_ZONE, HIDDEN, VISIBLE, sight_matrix
from geom.sight._pair import pair_sight
from geom.sight._table import SightContext
from geom.sight._verdict import pair_verdict

TOL = 1e-6
# TMG_SIGHT_SCENES=2000 for a long run (the default keeps the file well under a minute)
CHUNKS, SCENES = 4, int(os.environ.get("TMG_SIGHT_SCENES", "100"))


# --------------------------------------------------------------------------- random scenes


def random_scene(rng: np.random.Generator) -> Battlefield:
    pieces: list[TerrainPiece] = []
    hills: list[TerrainPiece] = []
    for h in range(rng.integers(0, 3)):
        x, y = rng.uniform(2, 24), rng.uniform(2, 14)
        g = box(x, y, x + rng.uniform(3, 7), y + rng.uniform(3, 6))
        hill = TerrainPiece(f"hill{h}", int(rng.integers(1, 5)), g, standable=True)
        hills.append(hill)
        pieces.append(hill)
    for k in range(rng.integers(3, 10)):
        x, y = rng.uniform(0, 30), rng.uniform(0, 20)
        kind = rng.integers(0, 5)
        if kind <= 1:  # thin wall
            g = box(x, y, x + rng.uniform(0.1, 0.6), y + rng.uniform(2, 10))
        elif kind == 1:
            g = box(x, y, x + rng.uniform(0.5, 3), y + rng.uniform(0.5, 3))
        elif kind == 2:
            g = Polygon([(x, y), (x + rng.uniform(1, 4), y + rng.uniform(-1, 1)),
                         (x + rng.uniform(-1, 2), y + rng.uniform(1, 4))])
        else:
            w, d = rng.uniform(1, 4), rng.uniform(1, 4)
            g = Polygon([(x, y), (x + w, y), (x + w, y + 0.4), (x + 0.4, y + 0.4),
                         (x + 0.4, y + d), (x, y + d)])
        g = affinity.rotate(g, rng.uniform(0, 180), origin="centroid")
        on = None
        for hill in hills:
            if hill.footprint.contains(g) and rng.random() < 0.7:
                on = hill.id
        kind_s = "grass" if rng.random() < 0.1 else "solid"
        size = int(rng.choice([0, 1, 2, 2, 2, 3, 3, 4, 5]))
        pieces.append(TerrainPiece(f"p{k}", size, g, kind=kind_s, on=on,
                                   standable=bool(rng.random() < 0.1)))
    models: list[Model] = []
    tries = 0
    while len(models) < rng.integers(3, 7) and tries < 200:
        tries += 1
        long = rng.choice([1.26, 1.26, 1.57, 1.97, 3.15])
        base = Base(long, long) if rng.random() < 0.7 else Base(long, rng.uniform(0.4, long))
        at = (rng.uniform(1, 29), rng.uniform(1, 19))
        if rng.random() < 0.5:  # hug a piece: within 1" of it (direct cover, close quarters)
            p = pieces[int(rng.integers(0, len(pieces)))].footprint
            q = p.exterior.interpolate(rng.uniform(0, 1), normalized=True)
            c = p.centroid
            dx, dy = q.x - c.x, q.y - c.y
            n = math.hypot(dx, dy) or 1.0
            off = long / 2 + rng.uniform(0.05, 1.0)
            at = (q.x + dx / n * off, q.y + dy / n * off)
        m = Model.make(f"m{len(models)}", unit=f"u{len(models)}",
                       owner="red" if len(models) % 2 else "blue", at=at, base=base,
                       size=int(rng.integers(0, 4)), angle=float(rng.uniform(0, 180)),
                       flying=bool(rng.random() < 0.15), hidden=bool(rng.random() < 0.1),
                       burrowed=bool(rng.random() < 0.05))
        shape = m.ellipse.polygon(32, outer=True)
        if any(shape.intersects(o.ellipse.polygon(32, outer=True)) for o in models):
            continue
        if rng.random() < 0.7 and any(shape.intersects(p.footprint) and not p.can_stand_on
                                      for p in pieces):
            continue
        models.append(m)
    units = tuple(Unit(m.unit, m.owner, m.size, (m,), m.base, flying=m.flying) for m in models)
    return Battlefield(Table(30, 20), tuple(pieces), units)


# --------------------------------------------------------------------------- the slow reference


def stack(bf: Battlefield, m: Model) -> set[str]:
    out, p = set(), standing_piece(bf, m)
    while p is not None:
        out.add(p.id)
        p = bf.piece(p.on) if p.on else None
    return out


def outer(g):
    return Polygon(g.exterior)


class Ambiguous(Exception):
    """A distance sits on a rules threshold within the reference's own error: skip the pair."""


def dist_bounds(x: Model, y) -> tuple[float, float]:
    """Bounds on the base-to-base (or base-to-footprint) distance, computed independently of the
    engine: discs exactly (geom.distance's closed form), ovals from their inscribed and
    circumscribed 256-gons."""
    if x.base.is_disc and (not isinstance(y, Model) or y.base.is_disc):
        d = distance(x, y)
        return d, d
    gx = gons(x.ellipse)
    gy = gons(y.ellipse) if isinstance(y, Model) else (y, y)
    return float(gx[1].distance(gy[1])), float(gx[0].distance(gy[0]))


@functools.lru_cache(maxsize=4096)
def gons(e):
    return e.polygon(256), e.polygon(256, outer=True)


def within(x: Model, y, d: float) -> bool:
    lo, hi = dist_bounds(x, y)
    if lo <= d + TOL < hi:
        raise Ambiguous
    return hi <= d + TOL


def ref_blocking(bf: Battlefield, a: Model, b: Model) -> dict[str, str]:
    """Pieces that block for the pair, one at a time, with the rule's own scalar statement."""
    ea, eb = model_effective_size(bf, a), model_effective_size(bf, b)
    under = stack(bf, a) | stack(bf, b)
    cq = within(a, b, 3)
    out = {}
    for p in bf.terrain:
        if p.id in under or not cover.can_block(p):
            continue
        pe = cover.piece_effective_size(bf, p)
        fp = outer(p.footprint)
        kind = cover.piece_blocks(pe, ea, eb, within(a, fp, 1), within(b, fp, 1), cq)
        if kind:
            out[p.id] = kind
    return out


def ref_code(bf: Battlefield, a: Model, b: Model) -> int | None:
    """HIDDEN / DEAD_ZONE from the rules, or None when the geometry decides."""
    if b.hidden and not within(a, b, 4):
        return HIDDEN
    # §7.1.4 (docs/rules.md#flying-dead-zone): a flyer counts where its stand's foot is
    fa, fb = foot(a), foot(b)
    la, lb = elevation_level(bf, fa), elevation_level(bf, fb)
    for high, low, lvl in ((fa, fb, lb), (fb, fa, la)):
        if elevation_level(bf, high) == "high" and lvl == "ground" and not within(a, b, 3):
            if any(within(low, outer(bf.piece(pid).footprint), 1) for pid in stack(bf, high)):
                return DEAD_ZONE
    return None


def foot(m: Model) -> Model:
    """The model as it stands for the dead zone: a flyer at its stand's foot."""
    return replace(m, flying=False) if m.flying else m


def ref_obstacles(bf: Battlefield, ids: dict[str, str]) -> list:
    """Blocking footprints, plus touching/overlapping pairs joined (GEOMETRY decision)."""
    fps = [outer(bf.piece(i).footprint) for i in sorted(ids)]
    out = list(fps)
    for x in range(len(fps)):
        for y in range(x + 1, len(fps)):
            if fps[x].distance(fps[y]) <= 2 * TOL:
                grow = shapely.union(fps[x].buffer(2 * TOL, join_style="mitre"),
                                     fps[y].buffer(2 * TOL, join_style="mitre"))
                out.append(grow.buffer(-2 * TOL, join_style="mitre"))
    return out


def samples(m: Model, n: int) -> np.ndarray:
    e = m.ellipse
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    c, s = math.cos(e.theta), math.sin(e.theta)
    pts = [np.array([[e.cx, e.cy]])]
    for k in (1.0, 0.5):
        x, y = k * e.a * np.cos(t), k * e.b * np.sin(t)
        pts.append(np.column_stack((e.cx + c * x - s * y, e.cy + s * x + c * y)))
    return np.vstack(pts)


def sampler_clear(a: Model, b: Model, obstacles, n: int = 16) -> bool:
    """Brute force: does some sampled segment avoid every obstacle shrunk by the tolerance?"""
    pa, pb = samples(a, n), samples(b, n)
    i, j = np.meshgrid(np.arange(len(pa)), np.arange(len(pb)), indexing="ij")
    lines = shapely.linestrings(np.stack([pa[i.ravel()], pb[j.ravel()]], axis=1))
    ok = np.ones(len(lines), dtype=bool)
    for o in obstacles:
        q = shapely.buffer(o, -TOL, join_style="mitre", mitre_limit=10.0)
        if not q.is_empty:
            ok &= ~shapely.intersects(lines, q)
    return bool(ok.any())


def witness_valid(a: Model, b: Model, seg, obstacles) -> bool:
    """Independent check: ends in the bases, no obstacle entered deeper than the tolerance."""
    for end, m in zip(seg, (a, b), strict=True):
        e = m.ellipse
        c, s = math.cos(e.theta), math.sin(e.theta)
        dx, dy = end[0] - e.cx, end[1] - e.cy
        u, w = c * dx + s * dy, -s * dx + c * dy
        if (u / (e.a + 1e-7)) ** 2 + (w / (e.b + 1e-7)) ** 2 > 1:
            return False
    if seg[0] == seg[1]:
        return True
    line = LineString(seg)
    return not any(line.intersects(core) for o in obstacles
                   if not (core := o.buffer(-(TOL + 1e-8))).is_empty)


# --------------------------------------------------------------------------- properties


def check_scene(bf: Battlefield, ctx: SightContext | None = None) -> tuple[int, int]:
    models = list(bf.models())
    ctx = ctx or SightContext(bf)
    mat = sight_matrix(ctx, models, models)
    seen = blocked = 0
    for i, a in enumerate(models):
        for j, b in enumerate(models):
            if i == j:
                continue
            try:
                ids = ref_blocking(bf, a, b)
                rc = ref_code(bf, a, b)
            except Ambiguous:
                continue
            # vectorised cover masks agree with the scalar rule, piece by piece
            for k, p in enumerate(bf.terrain):
                kind = mat.kind(i, j, k)
                assert kind == ids.get(p.id), (a.ref, b.ref, p.id)
            code = int(mat.code[i, j])
            if rc is not None:
                assert code == rc, (a.ref, b.ref)
                continue
            assert code in (VISIBLE, BLOCKED)
            obs = ref_obstacles(bf, ids)
            if code == VISIBLE:
                seen += 1
                w = mat.witness[i, j]
                seg = ((w[0, 0], w[0, 1]), (w[1, 0], w[1, 1]))
                assert witness_valid(a, b, seg, obs), (a.ref, b.ref)
            else:
                blocked += 1
                assert not sampler_clear(a, b, obs), (a.ref, b.ref)
    return seen, blocked


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_scenes_against_reference(chunk):
    """CHUNKS × SCENES random scenes: the engine never says blocked where the sampler finds a
    clear segment; every witness is valid; rules agree pair by pair and piece by piece."""
    rng = np.random.default_rng(1000 + chunk)
    seen = blocked = 0
    for _ in range(SCENES):
        s, b = check_scene(random_scene(rng))
        seen += s
        blocked += b
    assert seen > 0 and blocked > 0  # the generator exercises both outcomes


@settings(deadline=None, max_examples=40)
@given(st.integers(0, 2**32 - 1))
def test_reciprocal(seed):
    """Sight is reciprocal (HIDDEN aside): A sees B iff B sees A."""
    bf = random_scene(np.random.default_rng(seed))
    models = list(bf.models())
    mat = sight_matrix(SightContext(bf), models, models)
    for i, a in enumerate(models):
        for j, b in enumerate(models):
            if a.hidden or b.hidden:
                continue
            assert mat.visible[i, j] == mat.visible[j, i]


@settings(deadline=None, max_examples=25)
@given(st.integers(0, 2**32 - 1))
def test_removing_a_piece_never_blocks(seed):
    """Removing a piece (one no model stands on) never turns "visible" into "blocked"."""
    bf = random_scene(np.random.default_rng(seed))
    models = list(bf.models())
    under = set().union(*(stack(bf, m) for m in models)) if models else set()
    before = sight_matrix(SightContext(bf), models, models).visible
    for p in bf.terrain:
        if p.id in under or any(q.on == p.id for q in bf.terrain):
            continue
        after = sight_matrix(SightContext(bf.without_piece(p.id)), models, models).visible
        assert not (before & ~after).any(), p.id


def test_single_pair_equals_matrix():
    """The per-pair API and the batched matrix give the same verdicts."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        bf = random_scene(rng)
        models = list(bf.models())
        ctx = SightContext(bf)
        mat = sight_matrix(ctx, models, models)
        for i, a in enumerate(models):
            for j, b in enumerate(models):
                if i != j:
                    assert pair_sight(ctx, a, b).ok == bool(mat.visible[i, j])


@pytest.mark.parametrize("seed", range(4))
def test_unit_verdict_summary_equals_the_pairs_verdicts(seed):
    """A unit-level blocked verdict names the union of every pair's blocking pieces and every
    pair's rule; the batch (`SightMatrix.blocked_pieces`) agrees with asking pair by pair."""
    from geom.sight._sight import _blocked_summary

    rng = np.random.default_rng(1000 + seed)
    checked = 0
    for _ in range(60):
        bf = random_scene(rng)
        models = list(bf.models())
        m = sight_matrix(SightContext(bf), models, models)
        pairs = [pair_verdict(m, i, j, minimal=False) for i in range(len(models))
                 for j in range(len(models)) if m.code[i, j] != VISIBLE]
        blocking, rules = _blocked_summary(m)
        assert blocking == sorted({p for v in pairs for p in v.details["blocking"]})
        assert rules == {v.rule for v in pairs}
        checked += sum(1 for v in pairs if "7.1.1" in v.rule)
    assert checked > 50  # blocked pairs were really compared


def _units_of(bf: Battlefield, rng: np.random.Generator) -> Battlefield:
    """The scene's models dealt into four units of two owners."""
    models = list(bf.models())
    groups: dict[tuple[str, str], list[Model]] = {}
    for m in models:
        owner = "red" if rng.random() < 0.5 else "blue"
        uid = f"{owner}{int(rng.integers(0, 2))}"
        groups.setdefault((uid, owner), []).append(replace(m, unit=uid, owner=owner))
    units = tuple(Unit(uid, owner, ms[0].size, tuple(ms), ms[0].base)
                  for (uid, owner), ms in groups.items())
    return replace(bf, units=units)


@pytest.mark.parametrize("seed", range(3))
def test_enemy_unit_sight_equals_unit_by_unit(seed):
    """One matrix per pair of armies, cut per unit, gives the answers of asking unit by unit."""
    from geom.sight._sight import enemy_unit_sight, unit_sight

    rng = np.random.default_rng(2000 + seed)
    compared = 0
    for _ in range(30):
        bf = _units_of(random_scene(rng), rng)
        ctx = SightContext(bf)
        both = enemy_unit_sight(bf, ctx)
        for u in bf.units:
            for v in bf.units:
                if u.owner == v.owner:
                    assert (u.id, v.id) not in both
                    continue
                one, cut = unit_sight(bf, u, v, ctx=ctx), both[(u.id, v.id)]
                assert (cut.visible, cut.visible_models, cut.attackers) == \
                    (one.visible, one.visible_models, one.attackers)
                assert cut.high_ground_cover.ok == one.high_ground_cover.ok
                a, b = cut.verdict(), one.verdict()
                assert (a.ok, a.rule, a.reason, a.witness) == (b.ok, b.rule, b.reason, b.witness)
                assert a.details["blocking"] == b.details["blocking"]
                compared += 1
    assert compared > 30
