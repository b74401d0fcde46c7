"""Property tests for templates against slow, obviously-correct references (point sampling).

- coverage: `PlacedTemplate.covers` never misses a base that a point sampler finds under the
  template, and never claims a base that the sampler proves is clear of it;
- flamer placement: touches the attacker's base, does not overlap it, points at the target point;
- blast placement: centring covers at least as much of an oval as any offset position;
- the whole §8.7.6 decision on random scenes with walls: a model the sampler can reach with a clear
  sampled line is affected, and every witness line is checked on its own.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st
from shapely.geometry import Polygon, box
from shapely.geometry.polygon import orient

from geom import bases
from geom import templates as T
from geom.model import Base, Battlefield, Ellipse, Model, Table, TerrainPiece, Unit
from geom.tolerance import TOLERANCE

K_RADII, J_ANGLES = 24, 192


def base_samples(e: Ellipse) -> tuple[np.ndarray, float]:
    """Points filling the base on a polar grid, and h: every base point is within h of one."""
    r = np.linspace(0, 1, K_RADII + 1)
    t = np.linspace(0, 2 * math.pi, J_ANGLES, endpoint=False)
    rr, tt = np.meshgrid(r, t)
    x, y = e.a * rr.ravel() * np.cos(tt.ravel()), e.b * rr.ravel() * np.sin(tt.ravel())
    c, s = math.cos(e.theta), math.sin(e.theta)
    pts = np.column_stack((e.cx + c * x - s * y, e.cy + s * x + c * y))
    return pts, e.a * (1 / (2 * K_RADII) + math.pi / J_ANGLES)


def depth(tpl: T.PlacedTemplate, pts: np.ndarray) -> np.ndarray:
    """How deep each point lies inside the template (negative outside). For the polygon, the least
    signed distance to the edge lines: exact inside, never below the true value outside."""
    if tpl.kind == T.BLAST:
        p = tpl.target_point
        return tpl.shape["diameter"] / 2 - np.hypot(pts[:, 0] - p[0], pts[:, 1] - p[1])
    ring = np.asarray(orient(Polygon(tpl.corners), 1).exterior.coords)
    out = np.full(len(pts), np.inf)
    for (x0, y0), (x1, y1) in zip(ring[:-1], ring[1:], strict=True):
        ex, ey = x1 - x0, y1 - y0
        ln = math.hypot(ex, ey)
        # inside a counter-clockwise polygon is to the left of every edge
        out = np.minimum(out, (ex * (pts[:, 1] - y0) - ey * (pts[:, 0] - x0)) / ln)
    return out


coord = st.floats(-4, 4)
angle = st.floats(0, math.pi)


@st.composite
def ellipses(draw: st.DrawFn, cx: float = 0.0, cy: float = 0.0, spread: float = 4.0) -> Ellipse:
    a = draw(st.floats(0.3, 1.6))
    b = draw(st.one_of(st.just(a), st.floats(0.2, a)))
    return Ellipse(cx + draw(st.floats(-spread, spread)), cy + draw(st.floats(-spread, spread)),
                   a, b, draw(angle))


@st.composite
def flamer_shapes(draw: st.DrawFn) -> T.TemplateShape:
    narrow = draw(st.one_of(st.just(0.0), st.floats(0.1, 2)))
    wide = narrow + draw(st.floats(0.0, 5))
    assume(wide >= 0.1)
    return T.make_shape("flamer", {"length": draw(st.floats(2, 12)), "narrow": narrow,
                                   "wide": wide}, "test")


@st.composite
def templates(draw: st.DrawFn) -> T.PlacedTemplate:
    if draw(st.booleans()):
        d = draw(st.floats(0.5, 6))
        return T.place_blast(T.make_shape("blast", {"diameter": d}, "test"), (0.0, 0.0))
    att = draw(ellipses(-4, 0, 1.0))
    tp = (draw(st.floats(-1, 4)), draw(st.floats(-3, 3)))
    assume(math.dist(tp, att.centre) > att.a + 0.1)
    return T.place_flamer(draw(flamer_shapes()), att, tp)


@settings(deadline=None, max_examples=100)
@given(templates(), st.lists(ellipses(), min_size=1, max_size=6))
def test_coverage_agrees_with_point_sampling(tpl: T.PlacedTemplate, bs: list[Ellipse]) -> None:
    for e in bs:
        pts, h = base_samples(e)
        deepest = float(depth(tpl, pts).max())
        got = tpl.covers(e)
        event(f"{tpl.kind} {'covered' if got else 'clear'}"
              + (" (within the sampling step of the edge)" if abs(deepest) < h else ""))
        if deepest > TOLERANCE + 1e-9:
            assert got, f"sampler found {e} {deepest:.3g} deep under {tpl.kind}, coverage missed it"
        if deepest + h < TOLERANCE:
            assert not got, f"{e} is clear of the {tpl.kind} by {-deepest:.3g} but was covered"


@settings(deadline=None, max_examples=60)
@given(ellipses(0, 0, 0.0), st.floats(0, 2 * math.pi), st.floats(0.05, 10), flamer_shapes())
def test_flamer_touches_the_attacker_without_overlap_and_points_at_the_target(
        att: Ellipse, phi: float, dist: float, shape: T.TemplateShape) -> None:
    tp = (att.a * 1.0001 * math.cos(phi) + dist * math.cos(phi),
          att.a * 1.0001 * math.sin(phi) + dist * math.sin(phi))
    tpl = T.place_flamer(shape, att, tp)
    pts, _ = base_samples(att)
    assert float(depth(tpl, pts).max()) <= 1e-9  # no overlap
    assert not tpl.covers(att)
    # the contact point is on the attacker's rim and on the template's edge: they touch
    assert tpl.contact is not None
    c, s = math.cos(att.theta), math.sin(att.theta)
    dx, dy = tpl.contact[0] - att.cx, tpl.contact[1] - att.cy
    u, v = c * dx + s * dy, -s * dx + c * dy
    assert abs((u / att.a) ** 2 + (v / att.b) ** 2 - 1) < 1e-9
    boundary = Polygon(tpl.corners).exterior
    assert boundary.distance(shapely.Point(tpl.contact)) < 1e-9
    # the axis (narrow-end middle to wide-end middle) runs through the target point, away from
    # the attacker's centre
    cs = np.asarray(tpl.corners)
    near = cs[0] if len(cs) == 3 else (cs[0] + cs[3]) / 2
    far = (cs[1] + cs[2]) / 2
    ax = far - near
    to_t = np.asarray(tp) - near
    assert abs(ax[0] * to_t[1] - ax[1] * to_t[0]) / np.hypot(*ax) < 1e-7
    to_c = np.asarray(att.centre) - near
    assert float(ax @ to_c) < 0 or np.hypot(*to_c) < 1e-9


@settings(deadline=None, max_examples=25)
@given(st.floats(0.4, 2.0), st.floats(0.15, 1.0), angle, st.floats(0.3, 3.0),
       st.floats(0.02, 0.8), st.floats(0, 2 * math.pi))
def test_centred_blast_covers_most_of_an_oval(a: float, ratio: float, theta: float, d: float,
                                              off: float, phi: float) -> None:
    base = Ellipse(0, 0, a, a * ratio, theta).polygon(512)
    disc = Ellipse(0, 0, d / 2, d / 2).polygon(512)
    moved = shapely.affinity.translate(disc, off * math.cos(phi), off * math.sin(phi))
    assert base.intersection(moved).area <= base.intersection(disc).area + 1e-9


# --------------------------------------------------------------------------- whole scenes


def model(uid: str, mid: str, owner: str, at: tuple[float, float], r: float,
          ratio: float = 1.0, angle: float = 0.0) -> Model:
    return Model.make(mid, unit=uid, owner=owner, at=at, base=Base(2 * r, 2 * r * ratio), size=1,
                      tags=("ground",), angle=angle)


def segment_clear(p: np.ndarray, q: np.ndarray, walls: list[Polygon], shrink: float) -> bool:
    seg = shapely.LineString([p, q]) if np.hypot(*(p - q)) > 0 else shapely.Point(p)
    return not any(seg.intersects(w.buffer(-shrink, join_style="mitre")) for w in walls)


def rim_and_centre(e: Ellipse, n: int = 24) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    c, s = math.cos(e.theta), math.sin(e.theta)
    x, y = e.a * 0.999 * np.cos(t), e.b * 0.999 * np.sin(t)
    rim = np.column_stack((e.cx + c * x - s * y, e.cy + s * x + c * y))
    return np.vstack([rim, [e.centre]])


@st.composite
def scenes(draw: st.DrawFn) -> tuple[Battlefield, Model, Model]:
    """A target at (10, 10), thin walls around it, other models on rings around it; models that
    would overlap a wall or an earlier model are dropped."""
    r = draw(st.floats(0.4, 0.9))
    target = model("tgt", "0", "blue", (10.0, 10.0), r, draw(st.sampled_from([1.0, 0.6])),
                   draw(st.floats(0, 180)))
    walls = []
    for i in range(draw(st.integers(1, 4))):
        rho, phi = draw(st.floats(r + 0.3, 4.5)), draw(st.floats(0, 2 * math.pi))
        cx, cy = 10 + rho * math.cos(phi), 10 + rho * math.sin(phi)
        w, dpt = draw(st.floats(0.1, 0.5)), draw(st.floats(0.5, 5))
        g = shapely.affinity.rotate(box(cx - w / 2, cy - dpt / 2, cx + w / 2, cy + dpt / 2),
                                    draw(st.floats(0, 180)))
        if g.distance(shapely.Point(10, 10)) > r + 0.01:
            walls.append(TerrainPiece(f"w{i}", draw(st.sampled_from([2, 3])), g))
    att = model("att", "1", "red", (1.0, 10.0), 0.6)
    models = [target]
    for i in range(draw(st.integers(1, 6))):
        rho, phi = draw(st.floats(2 * r, 5)), draw(st.floats(0, 2 * math.pi))
        m = model("tgt" if i % 2 else "oth", str(i + 1), "blue",
                  (10 + rho * math.cos(phi), 10 + rho * math.sin(phi)), r,
                  draw(st.sampled_from([1.0, 0.5])), draw(st.floats(0, 180)))
        disc = m.ellipse.polygon(32, outer=True)
        if any(disc.intersects(w.footprint) for w in walls) or \
                any(disc.intersects(o.ellipse.polygon(32, outer=True)) for o in models):
            continue
        models.append(m)
    assume(len(models) > 1)
    units = [Unit("att", "red", 1, (att,), att.base, ("ground",))]
    for uid in ("tgt", "oth"):
        ms = tuple(m for m in models if m.unit == uid)
        if ms:
            units.append(Unit(uid, "blue", 1, ms, ms[0].base, ("ground",)))
    bf = Battlefield(Table(20, 20), tuple(walls), tuple(units))
    return bf, att, target


@settings(deadline=None, max_examples=80)
@given(scenes(), st.sampled_from(["blast", "flamer"]))
def test_affected_models_agree_with_sampled_lines(scene: tuple[Battlefield, Model, Model],
                                                  kind: str) -> None:
    bf, att, target = scene
    shape = T.make_shape(kind, {"diameter": 9} if kind == "blast" else
                         {"length": 16, "narrow": 1, "wide": 8}, "test")
    res = T.resolve(bf, kind, shape, att, target=target)
    walls = [p.footprint for p in bf.terrain]
    origin = target if kind == "blast" else att
    got = {c.details["model"]: c for c in res.checks}
    for m in bf.models():
        if m is att:
            continue
        covered = res.template.covers(m.ellipse)
        assert (m.ref in got) == covered
        if not covered:
            continue
        check = got[m.ref]
        event(f"{kind}: {check.details['test']}")
        if check.ok:
            # the witness, checked on its own: ends on both bases, crosses no wall
            p, q = np.asarray(check.witness[0]), np.asarray(check.witness[1])
            if m is not origin:
                assert float(bases.point_distance(origin.ellipse, p)[0]) < 1e-7
                assert float(bases.point_distance(m.ellipse, q)[0]) < 1e-7
                assert segment_clear(p, q, walls, 2e-6)
        else:
            a_pts, b_pts = rim_and_centre(origin.ellipse), rim_and_centre(m.ellipse)
            for p in a_pts:
                for q in b_pts:
                    assert not segment_clear(p, q, walls, 0.0), \
                        f"{m.ref}: sampled clear line {p}->{q} but the model was not affected"
    assert res.main.count + sum(b.count for b in res.spillover) == \
        sum(1 for c in res.checks if c.ok)
