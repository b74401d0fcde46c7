"""§8.7.7 charges: the rulebook's worked example, hand-built cases, and independent checks of
every suggested end and path (the checker below shares no code with geom.combat._charge: it samples
bases, measures polylines and tests segments with shapely directly)."""

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from shapely import affinity
from shapely.geometry import LineString, Point, box

from geom.combat._charge import charge, roll_table
from geom.model import Base, Battlefield, Model, Table, TerrainPiece, Unit
from geom.movement._charge_region import check_end
from scenario import load
from tests.test_engagement import brute_clear, witness_ok

# ---------------------------------------------------------------- independent checker


def rim_points(m: Model, at, n=72, scales=(1.0, 0.5)):
    e = m.ellipse
    c, s = math.cos(e.theta), math.sin(e.theta)
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    out = []
    for k in scales:
        x, y = k * e.a * np.cos(t), k * e.b * np.sin(t)
        out.append(np.column_stack((at[0] + c * x - s * y, at[1] + s * x + c * y)))
    return np.vstack(out + [np.array([at])])


def gap_between(m: Model, at, o: Model) -> float:
    """Base-to-base distance for discs (all the bases in these scenes are discs)."""
    assert m.base.is_disc and o.base.is_disc
    return math.dist(at, o.at) - m.base.a - o.base.a


def independent_end_problems(bf: Battlefield, unit: Unit, lead: Model, at, targets,
                             witnesses=None) -> list[str]:
    """What is wrong with `at` as a charge end. Engagement is accepted when dense sampling finds
    a clear segment of ≤ 1", or when the engine's witness segment for that target (if given)
    checks out on its own (length, ends on the bases, crossing no wall)."""
    problems = []
    r = lead.base.a
    if not (r - 1e-6 <= at[0] <= bf.table.width - r + 1e-6
            and r - 1e-6 <= at[1] <= bf.table.depth - r + 1e-6):
        problems.append("off the table")
    pts = rim_points(lead, at, scales=(0.999, 0.5))
    for p in bf.terrain:
        if p.kind != "grass" and any(p.footprint.contains(Point(q)) for q in pts):
            problems.append(f"overlaps {p.id}")
    tids = {t.id for t in targets}
    for v in bf.units:
        for o in v.models:
            if v.id == unit.id:
                continue
            g = gap_between(lead, at, o)
            if g < -1e-6:
                problems.append(f"overlaps {o.ref}")
            if v.owner != unit.owner and v.id not in tids and not o.flying and g <= 1.0:
                problems.append(f"within 1 of undeclared {o.ref}")
    moved = lead.moved_to(at)
    walls = [p.footprint for p in bf.terrain if p.size >= 2]
    for t in targets:
        # sampled rims overestimate the nearest distance by < 0.001" at n=120
        if any(gap_between(lead, at, o) <= 1.0 + 1e-6
               and brute_clear(moved, o, walls, n=120, reach=1.001) for o in t.models):
            continue
        w = (witnesses or {}).get(t.id)
        if w is not None:
            ref, seg = w
            o = next(o for o in t.models if o.ref == ref)
            if witness_ok(moved, o, seg, walls):
                continue
        problems.append(f"not engaged with {t.id}")
    return problems


def independent_path_problems(bf: Battlefield, unit: Unit, lead: Model, path, end,
                              allowance: float) -> list[str]:
    problems = []
    if math.dist(path[0], lead.at) > 1e-6 or math.dist(path[-1], end) > 1e-6:
        problems.append("path does not join the start to the end")
    length = sum(math.dist(a, b) for a, b in zip(path, path[1:], strict=False))
    if length > allowance + 1e-6:
        problems.append(f"path {length:.4f} longer than {allowance}")
    c = unit.gap_clearance / 2
    line = LineString(path) if len(path) > 1 else Point(path[0])
    for p in bf.terrain:
        if p.size >= 2 and p.kind != "grass" and line.distance(p.footprint) < c - 2e-3:
            problems.append(f"path passes {line.distance(p.footprint):.3f} from {p.id}")
    for o in bf.models():
        if o.unit == unit.id or o.flying:
            continue
        d = line.distance(Point(o.at)) - o.base.a
        if d < c - 2e-3:
            problems.append(f"path passes {d:.3f} from {o.ref}")
    return problems


def assert_answer_valid(bf, answer):
    unit = bf.unit(answer.unit)
    lead = unit.model(answer.leading)
    targets = [bf.unit(t) for t in answer.targets]
    allowance = answer.speed + answer.min_roll + answer.modifier
    check = answer.details["end_check"]
    witnesses = {t: (check["engaged_with"][t], check["segments"][t]) for t in answer.targets}
    assert independent_end_problems(bf, unit, lead, answer.end, targets, witnesses) == []
    assert independent_path_problems(bf, unit, lead, answer.path, answer.end, allowance) == []
    placement = answer.details["placement"]
    # geom.movement._coherency (another module, another author) agrees the placed unit is in coherency
    assert placement["coherency"]["ok"], placement["coherency"]["reason"]
    placed = {**{m: tuple(p) for m, p in placement["positions"].items()},
              lead.id: tuple(answer.end)}
    tids = set(answer.targets)
    for mid, at in placement["positions"].items():
        m = unit.model(mid)
        # wholly within 3" of the leading model (discs: centre distance + radius)
        assert math.dist(at, answer.end) + m.base.a <= 3 + lead.base.a + 1e-6
        for o in bf.models():
            if o.unit == unit.id:
                continue
            g = gap_between(m, at, o)
            assert g >= -1e-6
            if o.owner != unit.owner and o.unit not in tids and not o.flying:
                assert g > 1.0
        for other, p in placed.items():
            if other != mid:
                assert math.dist(at, p) >= m.base.a * 2 - 1e-6


# ---------------------------------------------------------------- rulebook worked example


def test_worked_example_roach_charge_under_concussive_shells(examples):
    bf = load(examples / "roach-charge.toml")
    a = charge(bf, "roaches", ["marauder"], modifier=-2)
    # "measured, the roaches need at least 7"": the nearest roach is 8" + two 25 mm radii from
    # the first marauder, centre to centre, so it must move exactly 7" to come within 1"
    assert a.min_distance == pytest.approx(7.0, abs=1e-6)
    assert a.speed == 4  # three roaches: the first Speed value
    # Concussive Shells (−2"): 4 + 5 − 2 = 7 is exactly enough, so a 5 or a 6 succeeds — the 6
    # James rolled was "enough to catch the marauders"
    assert a.possible and a.min_roll == 5 and a.probability == pytest.approx(2 / 6)
    assert a.details["successes"] == [5, 6] and a.details["exact"]
    assert "uncertain_rolls" not in a.details
    assert_answer_valid(bf, a)
    plain = charge(bf, "roaches", ["marauder"], modifier=0, place=False)
    assert plain.min_roll == 3 and plain.min_distance == pytest.approx(a.min_distance)
    # the marauders 0.001" further away: a 5 is no longer enough
    mar = bf.unit("marauder")
    far = bf.replace_unit(replace(mar, models=tuple(m.moved_to((m.at[0] + 0.001, m.at[1]))
                                                    for m in mar.models)))
    b = charge(far, "roaches", ["marauder"], modifier=-2, place=False)
    assert b.min_distance == pytest.approx(7.001, abs=1e-6) and b.min_roll == 6


def test_roll_table():
    assert roll_table(4, -2, 7.03).successes == (6,)
    assert roll_table(4, -2, 7.0).successes == (5, 6)
    assert roll_table(4, 0, 7.0).min_roll == 3  # exactly enough counts
    assert roll_table(4, -2, 8.5).min_roll is None
    assert roll_table(4, -2, None).probability == 0


# ---------------------------------------------------------------- hand-built cases


def test_charge_only_fits_around_the_wall(examples):
    bf = load(examples / "charge-around-wall.toml")
    a = charge(bf, "zerglings", ["marine"])
    assert a.possible
    lead = bf.unit("zerglings").model("1")
    straight = math.dist(lead.at, (20, 18)) - (2 * 16 / 25.4 + 1)  # through the wall
    assert a.min_distance > straight + 2
    assert any(y < 16 - 0.3 or y > 20 + 0.3 for _, y in a.path)  # it goes round an end
    assert a.end[0] > 19.1  # and comes at the marine from behind the wall
    assert_answer_valid(bf, a)
    # without the wall the straight run is enough
    open_bf = bf.without_piece("wall")
    b = charge(open_bf, "zerglings", ["marine"], place=False)
    assert b.min_distance == pytest.approx(straight, abs=0.01)


def test_undeclared_enemy_makes_every_end_illegal(examples):
    bf = load(examples / "charge-undeclared.toml")
    a = charge(bf, "zerglings", ["medic"], modifier=6)
    assert not a.possible and a.min_roll is None and a.probability == 0
    assert "undeclared" in a.reason
    # the same charge with the guards gone succeeds
    alone = Battlefield(bf.table, bf.terrain, tuple(u for u in bf.units if u.id != "guards"))
    assert charge(alone, "zerglings", ["medic"], place=False).possible


def test_multi_target_charge(examples):
    bf = load(examples / "charge-multi.toml")
    both = charge(bf, "zerglings", ["marauder", "marines"])
    assert both.possible
    assert_answer_valid(bf, both)
    assert set(both.details["end_check"]["engaged_with"]) == {"marauder", "marines"}
    for single in ("marauder", "marines"):
        one = charge(bf, "zerglings", [single], place=False)
        assert one.possible and one.min_distance <= both.min_distance + 1e-6
    # two targets too far apart for one base to engage both
    far = bf.replace_unit(replace(bf.unit("marines"), models=tuple(
        m.moved_to((m.at[0] + 8, m.at[1])) for m in bf.unit("marines").models)))
    none = charge(far, "zerglings", ["marauder", "marines"], place=False)
    assert not none.possible and "no single position" in none.reason


def test_declaration_errors(examples):
    bf = load(examples / "roach-charge.toml")
    assert "not an enemy" in charge(bf, "roaches", ["overseer"]).reason
    assert "FLYING" in charge(bf, "marauder", ["overseer"]).reason
    flying = charge(bf, "overseer", ["marauder"])
    assert not flying.possible and "FLYING" in flying.reason


def test_engaged_unit_cannot_charge():
    b = Base.from_mm(32)
    us = Unit("us", "blue", 1, (Model.make("1", unit="us", owner="blue", at=(10, 10), base=b,
                                           size=1),), b, speed=None)
    from geom.model import Speed
    us = replace(us, speed=Speed(6))
    foe = Unit("foe", "red", 1, (Model.make("1", unit="foe", owner="red", at=(11.5, 10), base=b,
                                            size=1),), b)
    other = Unit("other", "red", 1, (Model.make("1", unit="other", owner="red", at=(20, 10),
                                                base=b, size=1),), b)
    bf = Battlefield(Table(36, 36), (), (us, foe, other))
    a = charge(bf, "us", ["other"])
    assert not a.possible and "engaged" in a.reason


def test_check_end_rejects_ends_behind_a_wall(examples):
    bf = load(examples / "charge-around-wall.toml")
    unit = bf.unit("zerglings")
    lead = unit.model("1")
    v = check_end(bf, unit, lead, (18.264, 18.0), [bf.unit("marine")])
    assert not v and "not be engaged" in v.reason


# ---------------------------------------------------------------- properties


B32 = Base.from_mm(32)


@st.composite
def scenes(draw):
    """A three-model charger at x=6, a target 6–11" away, a wall across the way (sometimes
    low, sometimes with a gap), and sometimes an undeclared enemy beside the target."""
    from geom.model import Speed
    us = Unit("us", "blue", 1, tuple(
        Model.make(str(i + 1), unit="us", owner="blue", at=(6, 14 + 1.4 * i), base=B32, size=1)
        for i in range(3)), B32, speed=Speed(4))
    tx, ty = draw(st.floats(12, 17)), draw(st.floats(12, 20))
    foe = Unit("foe", "red", 1, (Model.make("1", unit="foe", owner="red", at=(tx, ty),
                                            base=B32, size=1),), B32)
    units = [us, foe]
    walls = []
    for i in range(draw(st.integers(0, 2))):
        f = draw(st.floats(0.45, 0.9))
        cx, cy = 6 + f * (tx - 6), 15.4 + f * (ty - 15.4) + draw(st.floats(-1.5, 1.5))
        length, turn = draw(st.floats(0.5, 6.0)), draw(st.floats(60, 120))
        poly = affinity.rotate(box(cx - length / 2, cy - 0.15, cx + length / 2, cy + 0.15), turn)
        if any(poly.distance(Point(m.at)) < 1.0 for m in (*us.models, *foe.models)):
            continue
        walls.append(TerrainPiece(f"w{i}", draw(st.sampled_from([1, 2, 3])), poly))
    if draw(st.booleans()):
        ang = draw(st.floats(0, 2 * math.pi))
        dist = draw(st.floats(2.5, 4.5))
        at = (tx + dist * math.cos(ang), ty + dist * math.sin(ang))
        if all(Point(at).distance(w.footprint) > 0.7 for w in walls) and \
                math.dist(at, (6, 15.4)) > 4:
            units.append(Unit("other", "red", 1, (Model.make("1", unit="other", owner="red",
                                                             at=at, base=B32, size=1),), B32))
    return Battlefield(Table(30, 30), tuple(walls), tuple(units))


@settings(max_examples=30, deadline=None)
@given(scenes(), st.sampled_from([-2, 0, 2]))
def test_suggested_end_and_path_are_independently_valid(bf, modifier):
    a = charge(bf, "us", ["foe"], modifier=modifier)
    event("possible" if a.possible else "impossible")
    if a.possible:
        assert_answer_valid(bf, a)
        assert a.min_distance <= a.speed + 6 + modifier + 1e-6
        if len(a.path) > 2:
            event("path bends")
    elif a.min_distance is not None:
        assert a.min_distance > a.speed + 6 + modifier - 1e-6


@settings(max_examples=10, deadline=None)
@given(scenes())
def test_probability_is_monotone_in_the_modifier(bf):
    answers = [charge(bf, "us", ["foe"], modifier=m, place=False) for m in (-4, -2, 0, 1, 3)]
    probs = [a.probability for a in answers]
    assert probs == sorted(probs)
    # the distance ignores the modifier: exact answers agree, and every certified interval
    # holds the one true distance (behind terrain an answer is refined only until no roll of
    # its own modifier is left inside, so inexact ones may stop at different refinements)
    exact = [a.min_distance for a in answers if a.details.get("exact")]
    assert len({round(d, 9) for d in exact}) <= 1
    bounds = [a.details["distance_bounds"] for a in answers if a.min_distance is not None]
    if bounds:
        assert max(lo for lo, _ in bounds) <= min(hi for _, hi in bounds) + 1e-9


def reference_min_distance(bf: Battlefield, step: float = 0.15) -> float:
    """Slow reference: every grid point near the target that the independent checker accepts,
    measured by movement's shortest path to it; the best over the leading-model choices."""
    from geom.movement._moves import navigator

    unit, foe = bf.unit("us"), bf.unit("foe")
    t = foe.models[0]
    reach = t.base.a + 1 + B32.a
    xs = np.arange(t.at[0] - reach, t.at[0] + reach + step, step)
    ys = np.arange(t.at[1] - reach, t.at[1] + reach + step, step)
    nav = navigator(bf, unit)
    lead = unit.models[0]
    ends = [(x, y) for x in xs for y in ys if math.dist((x, y), t.at) <= reach]
    pairs = sorted((math.dist(m.at, e), m.at, e) for m in unit.models for e in ends)
    legal: dict[tuple[float, float], bool] = {}
    best = math.inf
    for straight, start, e in pairs:
        if straight >= best:
            break  # no path is shorter than the straight line
        if e not in legal:
            legal[e] = not independent_end_problems(bf, unit, lead, e, [foe])
        if not legal[e]:
            continue
        p = nav.shortest_path(start, e)
        if p is not None:
            best = min(best, p.length)
    return best


@settings(max_examples=10, deadline=None)
@given(scenes())
def test_charge_distance_is_never_worse_than_a_grid_reference(bf):
    a = charge(bf, "us", ["foe"], modifier=0, place=False)
    ref = reference_min_distance(bf)
    if math.isfinite(ref):
        assert a.min_distance is not None
        assert a.min_distance <= ref + 0.02
    if a.min_distance is not None:
        # and the engine's own distance is a real one, with an end (a charge no roll reaches
        # has end null and says where the shortest would have ended: `nearest_end`)
        assert (a.end if a.possible else a.details["nearest_end"]) is not None


def test_placement_priorities_are_checked(examples):
    from geom.movement._after_charge import check_charge_placement
    bf = load(examples / "roach-charge.toml")
    a = charge(bf, "roaches", ["marauder"], modifier=-2)
    roaches, targets = bf.unit("roaches"), [bf.unit("marauder")]
    pos = {k: tuple(v) for k, v in a.details["placement"]["positions"].items()}
    assert a.details["placement"]["priority"] == {"2": "A base contact", "3": "A base contact"}
    good = check_charge_placement(bf, roaches, a.end, pos, targets)
    assert good, good.reason
    # leaving roach 2 behind the leader, when base contact was free, breaks priority A
    lazy = dict(pos, **{"2": (a.end[0] - 2.0, a.end[1])})
    v = check_charge_placement(bf, roaches, a.end, lazy, targets)
    assert not v and "could have been placed in base contact" in v.reason
    # too far from the leader
    far = dict(pos, **{"2": (a.end[0] - 4.0, a.end[1])})
    assert "wholly within 3" in check_charge_placement(bf, roaches, a.end, far, targets).reason
    # overlapping a friend
    clash = dict(pos, **{"2": pos["3"]})
    assert "overlaps" in check_charge_placement(bf, roaches, a.end, clash, targets).reason
