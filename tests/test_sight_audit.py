"""Adversarial hand-built scenes for line of sight and cover (rulebook §7.1, §7.1.1–7.1.4,
keywords EFFECTIVE SIZE, ELEVATION LEVEL, HIDDEN, BURROWED, §8.9.1).

Every expected answer is worked out by hand from the rules in the docstring, not read off the
engine. Figures: a 32 mm base has radius 16/25.4 = 0.62992"; positions are chosen so that base
edges sit exactly on (or just off) the 1", 3" and 4" thresholds.
"""

from __future__ import annotations

import json

import pytest
from shapely.geometry import Polygon, box

from geom.model import Base, Marker, Model, TerrainPiece
from geom.sight._pair import pair_sight
from geom.sight._sight import line_of_sight, unit_sight
from geom.sight._table import SightContext
from tests.factories import battlefield_of
from tmg.cli import main

R = 16 / 25.4  # radius of a 32 mm base
M32 = Base.from_mm(32)


def mk(mid: str, x: float, y: float, size: int = 2, unit: str | None = None, **kw) -> Model:
    return Model.make(mid, unit=unit or mid, owner=kw.pop("owner", "red"), at=(x, y),
                      base=kw.pop("base", M32), size=size, **kw)


def table(pieces, models, markers=()):
    return battlefield_of(pieces, models, markers)


def sight(pieces, a, b, markers=()):
    """Verdicts both ways (sight is reciprocal unless HIDDEN is involved)."""
    bf = table(pieces, [x for x in (a, b) if isinstance(x, Model)], markers)
    ctx = SightContext(bf)
    return pair_sight(ctx, a, b), pair_sight(ctx, b, a)


def wall(pid="wall", size=2, x0=10.0, x1=11.0, y0=0.0, y1=20.0, **kw) -> TerrainPiece:
    return TerrainPiece(pid, size, box(x0, y0, x1, y1), **kw)


# --------------------------------------------------------------------------- direct cover, 1"


@pytest.mark.parametrize("gap, blocked", [(1.0, True), (0.999, True), (1.001, False)])
def test_direct_cover_measured_from_the_base_edge(gap, blocked):
    """§7.1.1 direct cover: the target (Size 2) is within 1" of a Size-2 wall when its base edge
    is ≤ 1" from the footprint (base to footprint, not centre). Shooter Size 3, so no full
    cover (2 < 3); the target's proximity gives direct cover (2 ≥ 2). Exactly 1" is within."""
    a = mk("a", 2, 10, size=3)
    b = mk("b", 11 + gap + R, 10)
    ab, ba = sight([wall()], a, b)
    assert ab.ok is ba.ok is (not blocked)
    if blocked:
        assert ab.rule == "7.1.1 direct cover" and ab.details["blocking"] == ["wall"]


def test_direct_cover_not_from_centre():
    """The target's centre is 1.5" from the wall but its base edge only 0.87": within 1"."""
    a, b = mk("a", 2, 10, size=3), mk("b", 12.5, 10)
    ab, _ = sight([wall()], a, b)
    assert not ab.ok and ab.rule == "7.1.1 direct cover"


@pytest.mark.parametrize("angle, blocked", [(0.0, True), (90.0, False)])
def test_direct_cover_oval_orientation(angle, blocked):
    """A 105x70 mm oval (semi-axes 2.067" and 1.378") with its centre 2.5" from the wall: long
    axis towards the wall → edge 0.43" away (within 1", direct cover); turned 90° → edge
    1.12" away (not within 1", visible: the wall is lower than the Size-3 shooter)."""
    a = mk("a", 2, 10, size=3)
    b = mk("b", 13.5, 10, base=Base.from_mm((105, 70)), angle=angle)
    ab, ba = sight([wall()], a, b)
    assert ab.ok is ba.ok is (not blocked)


def test_direct_cover_from_far_part_of_piece():
    """FAQ "전장": within 1" of any part of the piece counts, even a part the line never
    crosses. L-shaped Size-2 wall; the target hugs the far end of the long arm, the line only
    crosses the short arm."""
    ell = TerrainPiece("ell", 2, Polygon([(10, 0), (11, 0), (11, 9), (30, 9), (30, 10),
                                          (10, 10)]))
    a = mk("a", 2, 5, size=3)
    b = mk("b", 20, 10 + 0.5 + R)  # 0.5" above the long arm, far from the line's crossing
    ab, ba = sight([ell], a, mk("c", 20, 5))
    assert ab.ok  # control: nobody near the piece → no cover
    ab, ba = sight([ell], a, b)
    # every line from a (x≤2.63, y≈5) to b (y≈10.5+) crosses the short arm or the long arm
    assert not ab.ok and not ba.ok and ab.rule == "7.1.1 direct cover"


# --------------------------------------------------------------------------- close quarters


@pytest.mark.parametrize("extra, visible", [(0.0, True), (0.01, False)])
def test_close_quarters_three_inch_boundary(extra, visible):
    """§7.1.1 close quarters: both within 1" of the same 2"-thick Size-2 wall and exactly 3"
    apart (0.5 + 2 + 0.5) → the wall's direct cover is lifted; 3.01" apart → it is not (the
    target, 0.5" away, Size 2 ≤ 2, is in direct cover; shooter Size 3 so no full cover)."""
    w = wall(x0=10, x1=12)
    a = mk("a", 10 - 0.5 - R, 10, size=3)
    b = mk("b", 12 + 0.5 + extra + R, 10)
    ab, ba = sight([w], a, b)
    assert ab.ok is ba.ok is visible
    assert ab.rule == ("7.1.1 close quarters" if visible else "7.1.1 direct cover")


def test_close_quarters_needs_both_within_one_inch():
    """Within 3" of each other but the shooter is 1.2" from the wall: no close quarters."""
    w = wall(x0=10, x1=10.5)
    a = mk("a", 10 - 1.2 - R, 10, size=3)
    b = mk("b", 10.5 + 0.5 + R, 10)
    ab, _ = sight([w], a, b)
    assert not ab.ok and ab.rule == "7.1.1 direct cover"


def test_close_quarters_per_piece():
    """Close quarters lifts direct cover of the piece both hug, not of a second piece between
    them that only the target hugs (each piece judged alone)."""
    w1 = wall("w1", x0=10, x1=10.2)
    w2 = wall("w2", x0=10.75, x1=10.85)
    a = mk("a", 9.7 - R, 10, size=3)  # 0.3" from w1, 1.05" from w2
    b = mk("b", 11.0 + R, 10)  # 0.8" from w1, 0.15" from w2; 1.3" from a
    ab, _ = sight([w1, w2], a, b)
    assert not ab.ok and ab.details["blocking"] == ["w2"]
    ab, _ = sight([w1], a, b)
    assert ab.ok and ab.rule == "7.1.1 close quarters"


# --------------------------------------------------------------------------- full cover


@pytest.mark.parametrize("sa, sb, visible", [(2, 2, False), (1, 2, False), (2, 3, True),
                                             (3, 3, True)])
def test_full_cover_needs_both(sa, sb, visible):
    """§7.1.1 full cover: piece ≥ both effective sizes (equality blocks). Size-2 wall, models
    5" away from it (no direct cover)."""
    a, b = mk("a", 5 - R, 10, size=sa), mk("b", 16 + R, 10, size=sb)
    ab, ba = sight([wall()], a, b)
    assert ab.ok is ba.ok is visible


def test_mid_ground_adds_to_effective_size():
    """§7.1.2: a Size-1 model on a Size-1 crate (mid ground) has effective size 2: a Size-2
    wall is full cover against a Size-2 target; a Size-2 model on the crate (3) sees over."""
    crate = TerrainPiece("crate", 1, box(0, 5, 6, 15), standable=True)
    b = mk("b", 16 + R, 10)
    ab, _ = sight([crate, wall()], mk("a", 3, 10, size=1), b)
    assert not ab.ok and ab.rule == "7.1.1 full cover" and ab.details["blocking"] == ["wall"]
    ab, _ = sight([crate, wall()], mk("a", 3, 10, size=2), b)
    assert ab.ok


def test_stacked_wall_on_hill():
    """§7.1.2 stacking: a Size-2 wall on a Size-3 hill has effective size 5. From the hill a
    Size-2 model (5) is in full cover from a ground target 1.5" off the hill; a Size-3 model
    (6) sees over it. The hill is the shooter's own top and never blocks."""
    hill = TerrainPiece("hill", 3, box(0, 0, 10, 20), standable=True)
    tower = TerrainPiece("tower", 2, box(9, 0, 10, 20), on="hill")
    b = mk("b", 10 + 1.5 + R, 10)
    ab, ba = sight([hill, tower], mk("a", 3, 10, size=2), b)
    assert not ab.ok and not ba.ok and ab.details["blocking"] == ["tower"]
    ab, ba = sight([hill, tower], mk("a", 3, 10, size=3), b)
    assert ab.ok and ba.ok


def test_own_mid_ground_top_never_blocks():
    """§7.1.2 top-down: the crate a model stands on does not block its line, even though the
    target (Size 2, at ground) is within 1" of the crate and the crate's Size 2 ≥ 2 (which
    would be direct cover from any other piece). Mid ground has no dead zone."""
    crate = TerrainPiece("crate", 2, box(0, 5, 10, 15), standable=True)
    a = mk("a", 3, 10, size=1)
    b = mk("b", 10 + 0.5 + R, 10)
    ab, ba = sight([crate], a, b)
    assert ab.ok and ba.ok
    other = TerrainPiece("crate2", 2, box(12, 5, 13, 15))
    ab, _ = sight([other], mk("a", 3, 10, size=3), mk("b", 13 + 0.5 + R, 10))
    assert not ab.ok and ab.rule == "7.1.1 direct cover"  # control: another crate blocks


def test_size_zero_piece_never_blocks_even_on_a_hill():
    """A Size-0 piece is not blocking terrain. Stacked on a Size-4 hill its effective size is 4
    by the stacking rule, but it has no height of its own (§7.1.2 top-down: pieces of effective
    size 0 never block — decision documented in docs/sight.md)."""
    hill = TerrainPiece("hill", 4, box(0, 0, 10, 20), standable=True)
    decal = TerrainPiece("decal", 0, box(4, 0, 5, 20), on="hill")
    ab, _ = sight([hill, decal], mk("a", 2, 10, size=0, burrowed=True), mk("b", 8, 10, size=0,
                                                                            burrowed=True))
    assert ab.ok


def test_token_with_a_size_never_blocks():
    """§7.3.1: tokens are Size-0 terrain, whatever Size a scenario gives them."""
    tok = TerrainPiece("tok", 3, box(10, 5, 11, 15), kind="token")
    ab, _ = sight([tok], mk("a", 10 - 0.2 - R, 10, size=1), mk("b", 11.2 + R, 10, size=1))
    assert ab.ok


def test_courtyard_counts_as_footprint():
    """§7.1: the footprint is the outermost edge; an open interior blocks and a model standing
    in it is within 0" of the piece. Size-3 ring wall, target (Size 2) in the courtyard, a
    Size-4 shooter outside far away: direct cover from the target's proximity."""
    ring = Polygon(box(10, 0, 20, 20).exterior.coords, [box(11, 1, 19, 19).exterior.coords])
    fort = TerrainPiece("fort", 3, ring)
    ab, ba = sight([fort], mk("a", 2, 10, size=4), mk("b", 15, 10))
    assert not ab.ok and not ba.ok and ab.rule == "7.1.1 direct cover"


# --------------------------------------------------------------------------- dead zone


HILL = TerrainPiece("hill", 3, box(0, 0, 10, 20), standable=True)


@pytest.mark.parametrize("gap, dead", [(1.0, True), (1.01, False)])
def test_dead_zone_one_inch_from_the_foot(gap, dead):
    """§7.1.1 dead zone: a high-ground model and a ground-level model whose base is within 1"
    of the hill's foot do not see each other, both ways (5" apart, so no close quarters).
    At 1.01" the hill (the shooter's own top) does not block: visible."""
    h, g = mk("h", 5, 10), mk("g", 10 + gap + R, 10)
    ab, ba = sight([HILL], h, g)
    assert ab.ok is ba.ok is (not dead)
    if dead:
        assert ab.rule == ba.rule == "7.1.1 elevation dead zone"


def test_dead_zone_close_quarters():
    """Both within 1" of the hill (the high model stands on it) and exactly 1" apart: close
    quarters lifts the dead zone."""
    h, g = mk("h", 10 - R, 10), mk("g", 10 + 1 + R, 10)
    ab, ba = sight([HILL], h, g)
    assert ab.ok and ba.ok and ab.rule == "7.1.1 close quarters"


def test_dead_zone_needs_high_ground():
    """Mid ground (Size 2) has no dead zone; a Size-1 crate stacked on a Size-2 hill makes the
    crate's top high ground (effective size 3) with the hill's foot as its dead zone."""
    low = TerrainPiece("hill", 2, box(0, 0, 10, 20), standable=True)
    g = mk("g", 10 + 0.5 + R, 10)
    ab, _ = sight([low], mk("h", 5, 10), g)
    assert ab.ok
    crate = TerrainPiece("crate", 1, box(3, 8, 7, 12), standable=True, on="hill")
    ab, ba = sight([low, crate], mk("h", 5, 10), g)
    assert not ab.ok and not ba.ok and ab.rule == "7.1.1 elevation dead zone"


def test_dead_zone_burrowed_models():
    """A burrowed model counts as Size 0 but keeps its elevation: the dead zone holds both for
    a burrowed ground model and for a burrowed model on the hill."""
    ab, _ = sight([HILL], mk("h", 5, 10), mk("g", 10 + 0.5 + R, 10, burrowed=True))
    assert not ab.ok and ab.rule == "7.1.1 elevation dead zone"
    ab, _ = sight([HILL], mk("h", 5, 10, burrowed=True), mk("g", 10 + 0.5 + R, 10))
    assert not ab.ok and ab.rule == "7.1.1 elevation dead zone"


def test_dead_zone_overhanging_top_needs_high_model_near_the_hill():
    """Regression: a Size-1 tower stacked on a Size-3 hill overhangs it. The high model stands
    on the tower 1.17" from the hill; the ground model is 0.37" from the hill's foot (1.37"
    from the tower) and 2.82" from the high model. Close quarters needs *both* within 1" of
    the same piece: the high model is not within 1" of the hill, so the dead zone holds.
    (The engine used to assume a model on a stack is within 1" of every piece of it.)"""
    hill = TerrainPiece("hill", 3, box(0, 0, 10, 10), standable=True)
    tower = TerrainPiece("tower", 1, box(6, 6, 16, 10), standable=True, on="hill")
    h, g = mk("h", 11.8, 8), mk("g", 11.0, 4)
    ab, ba = sight([hill, tower], h, g)
    assert not ab.ok and not ba.ok
    assert ab.rule == "7.1.1 elevation dead zone" and ab.details["blocking"] == ["hill"]
    assert "not within 1\"" in ab.reason
    # control: the same pair with the high model on the hill itself is close quarters
    ab, _ = sight([hill, tower], mk("h", 9.5, 6.7), mk("g", 11.0, 4.0))
    assert ab.ok and ab.rule == "7.1.1 close quarters"


def test_dead_zone_message_names_piece_with_courtyard():
    """Regression: the dead zone reason named `None` for a fort with a courtyard (the foot was
    measured to the ring, not to the outermost edge used everywhere else, §7.1)."""
    ring = Polygon(box(0, 0, 20, 20).exterior.coords, [box(5, 5, 15, 15).exterior.coords])
    fort = TerrainPiece("fort", 4, ring, standable=True)
    ab, _ = sight([fort], mk("h", 2, 2), mk("g", 10, 10))
    assert not ab.ok and ab.rule == "7.1.1 elevation dead zone"
    assert ab.details["blocking"] == ["fort"] and "None" not in ab.reason


# --------------------------------------------------------------------------- flying


def test_flying_full_cover_ignored():
    """§7.1.4: full cover is ignored to and from a flying model (Size-5 wall, nobody near)."""
    ab, ba = sight([wall(size=5)], mk("a", 2, 10, flying=True), mk("b", 18, 10))
    assert ab.ok and ba.ok


def test_flying_other_models_direct_cover_applies():
    """§7.1.4: the flying shooter still obeys direct cover that applies to the other model (the
    target hugs a Size-5 wall, 5 ≥ 2)."""
    ab, ba = sight([wall(size=5)], mk("a", 2, 10, flying=True), mk("b", 11 + 0.3 + R, 10))
    assert not ab.ok and not ba.ok and ab.rule == "7.1.1 direct cover"


def test_flying_never_gives_direct_cover_by_own_proximity():
    """§7.1.4: a flying model within 1" of a Size-5 wall gets no direct cover from it; the
    ground model is far from the wall (and shorter, but full cover is ignored)."""
    ab, ba = sight([wall(size=5)], mk("a", 11 + 0.3 + R, 10, flying=True), mk("b", 2, 10))
    assert ab.ok and ba.ok


def test_flying_over_a_hill_has_no_top_for_cover():
    """A flying model physically over a hill does not stand on it for cover (flying units
    ignore elevation, terrain never adds to their effective size), so the hill is an ordinary
    piece between it and a ground target hugging the hill's far side: direct cover. On a Size-2
    hill (mid ground, no dead zone) that is the verdict (2 ≥ 2); on a Size-4 hill the dead zone
    decides first (the flyer counts at its stand's foot, on high ground, §7.1.4)."""
    mound = TerrainPiece("hill", 2, box(0, 0, 10, 20), standable=True)
    ab, ba = sight([mound], mk("a", 5, 10, flying=True), mk("b", 10 + 0.5 + R, 10))
    assert not ab.ok and not ba.ok and ab.rule == "7.1.1 direct cover"
    hill = TerrainPiece("hill", 4, box(0, 0, 10, 20), standable=True)
    ab, ba = sight([hill], mk("a", 5, 10, flying=True), mk("b", 10 + 0.5 + R, 10))
    assert not ab.ok and not ba.ok and ab.rule == "7.1.1 elevation dead zone"
    ab, _ = sight([hill], mk("a", 5, 10, flying=True), mk("b", 10 + 1.5 + R, 10))
    assert ab.ok


# --------------------------------------------------------------------------- burrowed, markers


def test_burrowed_is_size_zero_for_cover():
    """BURROWED: Size 0 for every purpose. Behind a Size-1 crate, not within 1": visible to a
    Size-2 model (1 < 2, no full cover); within 1": direct cover (1 ≥ 0); a Size-2 target at
    the same spot is not covered (1 < 2). Two burrowed models: full cover (1 ≥ 0 and 0)."""
    crate = wall("crate", size=1)
    far, near = 11 + 1.5 + R, 11 + 0.5 + R
    assert sight([crate], mk("a", 2, 10), mk("b", far, 10, burrowed=True))[0].ok
    v = sight([crate], mk("a", 2, 10), mk("b", near, 10, burrowed=True))[0]
    assert not v.ok and v.rule == "7.1.1 direct cover"
    assert sight([crate], mk("a", 2, 10), mk("b", near, 10))[0].ok
    v = sight([crate], mk("a", 2, 10, burrowed=True), mk("b", far, 10, burrowed=True))[0]
    assert not v.ok and v.rule == "7.1.1 full cover"


def test_marker_is_size_zero():
    """§8.9.1: sight to a marker treats it as Size 0. Size-1 crate: a Size-2 model sees a
    marker 1.5" behind it; a marker 0.5" behind it is in direct cover (1 ≥ 0); a Size-1 model
    is in full cover (1 ≥ 1 and 1 ≥ 0) even for the far marker."""
    crate = wall("crate", size=1)
    far, near = Marker(1, (11 + 1.5 + R, 10)), Marker(2, (11 + 0.5 + R, 10))
    bf = table([crate], [mk("a", 2, 10), mk("s", 2, 14, size=1)], [far, near])
    a, s = bf.unit("a").models[0], bf.unit("s").models[0]
    assert line_of_sight(bf, a, far).ok
    v = line_of_sight(bf, a, near)
    assert not v.ok and v.rule == "7.1.1 direct cover"
    v = line_of_sight(bf, s, far)
    assert not v.ok and v.rule == "7.1.1 full cover"


# --------------------------------------------------------------------------- HIDDEN


@pytest.mark.parametrize("gap, seen", [(4.0, True), (4.01, False)])
def test_hidden_four_inches_base_to_base(gap, seen):
    """HIDDEN: not visible to a model more than 4" away (exactly 4" is not more)."""
    bf = table([], [a := mk("a", 5, 10), b := mk("b", 5 + 2 * R + gap, 10, hidden=True)])
    v = line_of_sight(bf, a, b)
    assert v.ok is seen
    assert line_of_sight(bf, b, a).ok  # the hidden model itself sees out
    if not seen:
        assert v.rule == "HIDDEN"


def test_hidden_oval_distance_is_base_to_base():
    """A 105x70 mm oval with its long axis towards the viewer, centres 6.5" apart: the bases are
    6.5 − 0.63 − 2.067 = 3.80" apart (≤ 4", visible); across the short axis they would be
    4.49" apart (turned 90°: not visible)."""
    b = mk("b", 6.5, 10, base=Base.from_mm((105, 70)), hidden=True)
    a = mk("a", 0, 10)
    bf = table([], [a, b])
    gap = 6.5 - R - 105 / 25.4 / 2
    assert gap < 4
    assert line_of_sight(bf, a, b).ok
    b90 = mk("b", 6.5, 10, base=Base.from_mm((105, 70)), hidden=True, angle=90)
    assert not line_of_sight(table([], [a, b90]), a, b90).ok


# --------------------------------------------------------------------------- §7.1.3


def _hgc(target_at, attackers_at, target_flying=False, attackers_flying=False, pieces=None):
    hill = TerrainPiece("hill", 3, box(20, 0, 30, 20), standable=True)
    ridge = TerrainPiece("ridge", 4, box(0, 0, 8, 20), standable=True)
    ts = [mk(f"t{k}", x, y, unit="t", owner="blue", flying=target_flying)
          for k, (x, y) in enumerate(target_at)]
    at = [mk(f"a{k}", x, y, unit="a", flying=attackers_flying)
          for k, (x, y) in enumerate(attackers_at)]
    bf = table(pieces or [hill, ridge], at + ts)
    return unit_sight(bf, bf.unit("a"), bf.unit("t")).high_ground_cover


def test_high_ground_cover_rows():
    """§7.1.3: every target model on high ground and one attacker off it → may evade; one
    target off the hill → no; every attacker on high ground (another hill) → no; flying target
    → never; flying attackers are never "from lower elevation"."""
    on = [(22, 10), (24, 10)]
    assert _hgc(on, [(14, 10), (14, 12)]).ok
    assert not _hgc([(22, 10), (16, 10)], [(14, 10)]).ok
    assert not _hgc(on, [(4, 10), (4, 12)]).ok
    assert _hgc(on, [(4, 10), (14, 12)]).ok
    assert not _hgc(on, [(14, 10)], target_flying=True).ok
    assert not _hgc(on, [(14, 10)], attackers_flying=True).ok


def test_high_ground_cover_needs_effective_size_three():
    """High ground is a top of effective size 3+: Size 2 is mid ground (no cover), a Size-1
    crate on a Size-2 hill is high ground (cover)."""
    low = TerrainPiece("hill", 2, box(20, 0, 30, 20), standable=True)
    assert not _hgc([(22, 10)], [(14, 10)], pieces=[low]).ok
    crate = TerrainPiece("crate", 1, box(21, 8, 25, 12), standable=True, on="hill")
    assert _hgc([(22, 10)], [(14, 10)], pieces=[low, crate]).ok


# --------------------------------------------------------------------------- example scenario


@pytest.mark.parametrize(("a", "b", "visible", "rule"), [
    ("marines/m1", "zerglings/z1", False, "7.1.1 elevation dead zone"),
    ("zerglings/z1", "marines/m1", False, "7.1.1 elevation dead zone"),
    ("marines/m2", "zerglings/z1", True, "7.1.1 close quarters"),
    ("zerglings/z1", "marines/m2", True, "7.1.1 close quarters"),
])
def test_stacked_tower_example(examples, capsys, a, b, visible, rule):
    """examples/los-stacked-tower.toml gives the answers its header works out by hand."""
    assert main(["los", str(examples / "los-stacked-tower.toml"), a, b, "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert (r["visible"], r["rule"]) == (visible, rule)
    assert r["blocking"] == ([] if visible else ["hill"])
