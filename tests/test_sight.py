"""Line of sight and cover from the rulebook (§7.1, §7.1.1–7.1.4, the LoS and cover summary
tables, FAQ "전장", keyword HIDDEN, §8.9.1 markers). Each table row has at least one test; the
row is named in the test's docstring."""

from __future__ import annotations

import json
import math

import pytest
from shapely.geometry import Polygon, box

from geom.model import Base, Marker, Model, TerrainPiece
from geom.sight._pair import pair_sight
from geom.sight._sight import line_of_sight, unit_sight
from geom.sight._table import SightContext
from tests.factories import battlefield_of
from tmg.cli import main

MARINE = Base.from_mm(32)


def model(mid, x, y, size=2, unit=None, owner="red", **kw):
    return Model.make(mid, unit=unit or mid, owner=owner, at=(x, y),
                      base=kw.pop("base", MARINE), size=size, **kw)


def field(pieces, models, markers=()):
    return battlefield_of(pieces, models, markers)


def los(pieces, a, b, markers=()):
    return line_of_sight(field(pieces, [a, b] if isinstance(b, Model) else [a], markers), a, b)


def both_ways(pieces, a, b):
    bf = field(pieces, [a, b])
    return line_of_sight(bf, a, b), line_of_sight(bf, b, a)


def wall(pid="wall", size=2, x=10.0, y0=0.0, y1=20.0, w=1.0, **kw):
    return TerrainPiece(pid, size, box(x, y0, x + w, y1), **kw)


def check_witness(v, a, b):
    """Ends inside the two bases (own algebra)."""
    assert v.witness is not None
    for end, m in zip(v.witness, (a, b), strict=True):
        e = m.ellipse
        c, s = math.cos(e.theta), math.sin(e.theta)
        dx, dy = end[0] - e.cx, end[1] - e.cy
        u, w = c * dx + s * dy, -s * dx + c * dy
        assert (u / (e.a + 1e-7)) ** 2 + (w / (e.b + 1e-7)) ** 2 <= 1


# --------------------------------------------------------------------------- basic system §7.1


def test_no_blocking_terrain_visible():
    """Row "line does not cross blocking terrain": visible, no further check."""
    a, b = model("a", 5, 5), model("b", 20, 5)
    v = los([wall(x=30)], a, b)
    assert v.ok and v.rule == "7.1 line of sight" and v.details["blocking"] == []
    check_witness(v, a, b)


def test_any_part_of_base_to_any_part():
    """Row "2D top-down, any part of the base to any part": the centre line is blocked but a line
    from the bases' edges passes the end of the wall."""
    a, b = model("a", 5, 5), model("b", 20, 5)
    w = wall(size=5, y0=4.6, y1=20)
    v = los([w], a, b)
    assert v.ok
    check_witness(v, a, b)
    assert max(v.witness[0][1], v.witness[1][1]) <= 4.6 + 1e-6


def test_line_crossing_terrain_checks_cover():
    """Row "line crosses blocking terrain → check cover": a Size-1 barricade far from both Size-2
    models does not block (too small); at Size 2 it gives full cover."""
    a, b = model("a", 5, 10), model("b", 20, 10)
    assert los([wall(size=1)], a, b).ok
    v = los([wall(size=2)], a, b)
    assert not v.ok and v.rule == "7.1.1 full cover" and v.details["blocking"] == ["wall"]
    assert "wall" in v.reason and "a" in v.reason


def test_footprint_is_outermost_edge():
    """Row "footprint = outermost edge": windows, doorways and open interiors block sight."""
    ring = Polygon([(8, 0), (14, 0), (14, 20), (8, 20)], [[(9, 1), (13, 1), (13, 19), (9, 19)]])
    ruin = TerrainPiece("ruin", 3, ring, openings=(box(8, 9, 9, 11),))
    a, b = model("a", 5, 10), model("b", 20, 10)
    v = los([ruin], a, b)
    assert not v.ok and v.details["blocking"] == ["ruin"]


# --------------------------------------------------------------------------- §7.1.2 effective size


def test_high_ground_model_sees_over_wall():
    """Row "model on high ground = model + terrain": a Size-2 marine on a Size-4 hill has effective
    size 6 and sees over a Size-5 wall (§7.1.2 example); from the ground it does not."""
    hill = TerrainPiece("hill", 4, box(0, 0, 8, 20), standable=True)
    tall = wall(size=5, x=12)
    a, b = model("a", 5, 10), model("b", 20, 10)
    v = los([hill, tall], a, b)
    assert v.ok and v.rule == "7.1 line of sight"
    check_witness(v, a, b)
    a_ground = model("a", 10, 10)
    v = los([hill, tall], a_ground, b)
    assert not v.ok and v.rule == "7.1.1 full cover" and v.details["blocking"] == ["wall"]


def test_ground_model_no_bonus():
    """Row "ground-level model: no bonus": effective size is the Size stat, so a Size-2 wall
    gives full cover between two Size-2 models but not when one is Size 3."""
    a, b = model("a", 5, 10), model("b", 20, 10)
    assert not los([wall(size=2)], a, b).ok
    assert los([wall(size=2)], model("a", 5, 10, size=3), b).ok


def test_stacked_terrain_adds_size():
    """Row "terrain on high ground = terrain + terrain": Size-1 crates on a Size-4 ridge have
    effective size 5 and give full cover between two Size-1 models on the ridge."""
    ridge = TerrainPiece("ridge", 4, box(0, 0, 30, 20), standable=True)
    crates = TerrainPiece("crates", 1, box(12, 0, 13, 20), on="ridge")
    a, b = model("a", 5, 10, size=1), model("b", 20, 10, size=1)
    v = los([ridge, crates], a, b)
    assert not v.ok and v.details["blocking"] == ["crates"]
    assert "effective size 5" in v.reason
    loose = TerrainPiece("crates", 1, box(12, 0, 13, 20))  # on the mat it would not
    assert los([ridge, loose], a, b).ok


def test_top_model_stands_on_does_not_block():
    """§7.1.2 top-down perspective: the surface a model stands on never blocks its sight, even
    when the line crosses a lot of it."""
    plateau = TerrainPiece("plateau", 3, box(0, 0, 15, 20), standable=True)
    a, b = model("a", 2, 10, size=1), model("b", 25, 10)
    v = los([plateau], a, b)
    assert v.ok and "plateau" in v.reason


def test_burrowed_counts_as_size_zero():
    """A burrowed model counts as Size 0 (§2): a Size-1 piece within 1" gives it direct cover."""
    a = model("a", 5, 10)
    b = model("b", 12.2, 10, size=2, burrowed=True)
    assert not los([wall(size=1, x=10.5)], a, b).ok
    assert los([wall(size=1, x=10.5)], a, model("b", 12.2, 10, size=2)).ok


# --------------------------------------------------------------------------- §7.1.1 cover


def test_full_cover_both_ways():
    """Row "full cover: piece ≥ both effective sizes" (reciprocal)."""
    a, b = model("a", 5, 10), model("b", 20, 10, size=1)
    ab, ba = both_ways([wall(size=2)], a, b)
    assert not ab.ok and not ba.ok and ab.rule == ba.rule == "7.1.1 full cover"


def test_direct_cover_attacker_behind():
    """Row "direct cover (attacker behind the piece)": the attacker is within 1" of a piece at
    least its own effective size; blocked unless close quarters."""
    a = model("a", 9.5, 10)  # 0.5 - 0.63 → touching the wall's face region within 1"
    b = model("b", 20, 10, size=3)
    v = los([wall(size=2)], a, b)
    assert not v.ok and v.rule == "7.1.1 direct cover" and v.details["blocking"] == ["wall"]
    assert "a is within 1\" of it" in v.reason
    far = model("a", 5, 10)
    assert los([wall(size=2)], far, b).ok


def test_direct_cover_target_behind():
    """Row "direct cover (target behind the piece)"."""
    a = model("a", 2, 10, size=3)
    b = model("b", 12.0, 10)
    v = los([wall(size=2)], a, b)
    assert not v.ok and v.rule == "7.1.1 direct cover"
    b_far = model("b", 14.0, 10)  # 2.37" from the wall: not within 1"
    assert los([wall(size=2)], a, b_far).ok


def test_close_quarters_reopens_direct_cover():
    """Rows "⚠ close quarters exception": both within 1" of the same piece and within 3" of each
    other: direct cover is ignored (both ways)."""
    w = wall(size=2, x=10, w=2.5, y0=0, y1=20)  # x 10..12.5
    a = model("a", 9.2, 10, size=2)  # 0.17" from the wall: direct cover (2 ≥ 2)
    b = model("b", 13.4, 10, size=3)  # 0.27" from the wall, 2.94" from a
    ab, ba = both_ways([w], a, b)
    assert ab.ok and ba.ok and ab.rule == ba.rule == "7.1.1 close quarters"
    check_witness(ab, a, b)
    # 3.44" apart, both still within 1" of the wall: no longer close quarters
    b2 = model("b", 13.9, 10, size=3)
    v = los([w], a, b2)
    assert not v.ok and v.rule == "7.1.1 direct cover"


def test_close_quarters_needs_the_same_piece():
    """Close quarters needs both models within 1" of the *same* piece: here b is near another
    piece, so a keeps its direct cover from w1."""
    w1 = wall("w1", size=2, x=10, w=0.4)
    w2 = wall("w2", size=1, x=12.0, w=0.4)
    a = model("a", 9.2, 10, size=2)  # within 1" of w1 only
    b = model("b", 13.2, 10, size=3)  # within 1" of w2 only; 2.74" from a
    v = los([w1, w2], a, b)
    assert not v.ok and v.rule == "7.1.1 direct cover" and v.details["blocking"] == ["w1"]
    b_near = model("b", 11.8, 10, size=3)  # within 1" of w1 too: close quarters
    assert los([w1], a, b_near).ok


def test_close_quarters_never_reopens_full_cover():
    """Close quarters lifts direct cover and the dead zone, never full cover."""
    w = wall(size=3, x=10, w=0.4)
    a, b = model("a", 9.2, 10), model("b", 11.2, 10)
    v = los([w], a, b)
    assert not v.ok and v.rule == "7.1.1 full cover"


def test_terrain_too_small():
    """Row "terrain too small: full cover fails and nobody within 1"": visible."""
    a, b = model("a", 5, 10, size=3), model("b", 20, 10, size=3)
    v = los([wall(size=2)], a, b)
    assert v.ok and "no direct cover, as neither model is within 1\" of it" in v.reason


def test_several_small_pieces_never_add_up():
    """Row "several small pieces": each piece is judged alone."""
    pieces = [wall(f"w{k}", size=1, x=8 + 2 * k) for k in range(4)]
    a, b = model("a", 5, 10), model("b", 20, 10)
    assert los(pieces, a, b).ok


def test_model_not_within_one_inch():
    """Row "model not within 1" of the piece": direct cover fails (1.01" away)."""
    b_near = model("b", 11 + 0.63 + 0.99, 10)
    b_far = model("b", 11 + 0.63 + 1.01, 10)
    a = model("a", 2, 10, size=3)
    assert not los([wall(size=2)], a, b_near).ok
    assert los([wall(size=2)], a, b_far).ok


def test_direct_cover_any_part_of_piece():
    """FAQ "전장": within 1" of any part of the piece counts, even a part away from the line."""
    ell = TerrainPiece("ell", 2, Polygon([(10, 0), (11, 0), (11, 9), (16, 9), (16, 10), (10, 10)]))
    a = model("a", 2, 4, size=3)
    b = model("b", 15, 11.2)  # within 1" of the top arm only
    v = los([ell], a, b)
    assert not v.ok and v.rule == "7.1.1 direct cover"


# --------------------------------------------------------------------------- dead zone


def test_elevation_dead_zone():
    """Row "high-ground model and a ground model within 1" of the foot of the piece": blocked
    both ways, even with nothing in between; 1.5" from the foot it sees."""
    hill = TerrainPiece("hill", 3, box(0, 0, 10, 20), standable=True)
    high = model("h", 8, 10)
    low = model("g", 10 + 0.63 + 0.9, 14)
    ab, ba = both_ways([hill], high, low)
    assert not ab.ok and not ba.ok and ab.rule == "7.1.1 elevation dead zone"
    assert ab.details["blocking"] == ["hill"] and ab.witness is None
    low2 = model("g", 10 + 0.63 + 1.5, 14)
    assert los([hill], high, low2).ok


def test_dead_zone_close_quarters():
    """Row "close quarters exception": within 3" of each other the dead zone is lifted."""
    hill = TerrainPiece("hill", 3, box(0, 0, 10, 20), standable=True)
    high = model("h", 9.0, 10)
    low = model("g", 11.2, 10)
    v = los([hill], high, low)
    assert v.ok


def test_dead_zone_only_same_piece_and_high_ground():
    """The dead zone needs the piece the high model stands on; mid ground has none."""
    hill = TerrainPiece("hill", 3, box(0, 0, 10, 20), standable=True)
    other = TerrainPiece("rock", 3, box(30, 0, 31, 20))
    high = model("h", 5, 10)
    low = model("g", 30 - 0.63 - 0.5, 10)  # near the rock (not between them), not the hill
    assert los([hill, other], high, low).ok
    mid = TerrainPiece("hill", 2, box(0, 0, 10, 20), standable=True)
    low2 = model("g", 10 + 0.63 + 0.5, 14)
    assert los([mid], high, low2).ok


def test_dead_zone_stacked_top():
    """Decision: a model on a top stacked on a hill is in the dead zone of a ground model within
    1" of the hill's foot."""
    hill = TerrainPiece("hill", 3, box(0, 0, 10, 20), standable=True)
    tower = TerrainPiece("tower", 1, box(2, 2, 6, 6), standable=True, on="hill")
    high = model("h", 4, 4)
    low = model("g", 10 + 0.63 + 0.5, 4)
    v = los([hill, tower], high, low)
    assert not v.ok and v.rule == "7.1.1 elevation dead zone"


# --------------------------------------------------------------------------- §7.1.4 flying


def test_7_1_4_flyer_at_the_foot_of_a_hill_and_a_model_on_the_hill_cannot_see_each_other():
    """§7.1.4: "직접 엄폐와 고도 사각지대 규칙은 여전히 적용됩니다" — the dead zone still applies
    to flying models. Decision (docs/rules.md#flying-dead-zone): for the dead zone a
    flying model stands at the elevation of what its base (the stand's foot) stands on — ground
    level on the mat. A flyer 0.5" from the foot of a Size-3 hill and a model on the hill do not
    see each other, both ways, though nothing stands between them; within 3" with both within 1"
    of the hill, close quarters lifts it; 1.5" from the foot the flyer sees and is seen. A flyer
    whose stand stands on the hill is on high ground for the dead zone too."""
    hill = TerrainPiece("hill", 3, box(0, 0, 10, 20), standable=True)
    high = model("h", 6, 10)
    flyer = model("f", 10 + 0.63 + 0.5, 14, flying=True)
    ab, ba = both_ways([hill], high, flyer)
    assert not ab.ok and not ba.ok
    assert ab.rule == ba.rule == "7.1.1 elevation dead zone"
    assert ab.details["blocking"] == ["hill"] and "flying" in ab.reason
    near = model("h", 9.0, 14)  # within 1" of the hill's edge and 2.6" from the flyer
    assert los([hill], near, flyer).ok
    far = model("f", 10 + 0.63 + 1.5, 14, flying=True)
    assert los([hill], high, far).ok
    up = model("f", 5, 4, flying=True)  # over the hill: its stand's foot is on high ground
    foot = model("g", 10 + 0.63 + 0.5, 14)
    v = los([hill], up, foot)
    assert not v.ok and v.rule == "7.1.1 elevation dead zone"



def test_flying_ignores_full_cover():
    """Row (flying) "full cover is ignored to or from a flying model": a flying target behind a
    Size-5 wall is seen."""
    a = model("a", 2, 10)
    b = model("b", 13, 10, flying=True)
    v = los([wall(size=5)], a, b)
    assert v.ok


def test_flying_target_gets_no_direct_cover():
    """Row (flying) "direct cover (target)": the flying target hugging the wall gets none."""
    a = model("a", 2, 10)
    b = model("b", 11.7, 10, flying=True)
    assert los([wall(size=5)], a, b).ok


def test_flying_target_seen_unless_shooter_hugs_wall():
    """The shooter within 1" of a piece at least its effective size has direct cover, which
    also stops sight to a flying target."""
    b = model("b", 20, 10, flying=True)
    v = los([wall(size=2)], model("a", 9.5, 10), b)
    assert not v.ok and v.rule == "7.1.1 direct cover"
    assert los([wall(size=2)], model("a", 6, 10), b).ok


def test_flying_attacker_and_target_in_cover():
    """Row (flying) "direct cover (attacker)": a flying attacker, the target within 1" of a
    piece at least its effective size: blocked."""
    a = model("a", 2, 10, flying=True)
    b = model("b", 11.7, 10)
    v = los([wall(size=2)], a, b)
    assert not v.ok and v.rule == "7.1.1 direct cover"
    assert los([wall(size=1)], a, b).ok


# --------------------------------------------------------------------------- §7.1.3 high ground


def _hg_field(attacker_on_hill: bool, target_flying: bool = False):
    hill = TerrainPiece("hill", 3, box(20, 0, 30, 20), standable=True)
    hill2 = TerrainPiece("hill2", 3, box(0, 0, 10, 20), standable=True)
    t = [model("t1", 21, 10, unit="t", owner="blue", flying=target_flying),
         model("t2", 19.8, 12, unit="t", owner="blue", flying=target_flying)]  # overhangs
    ax = 5 if attacker_on_hill else 14
    a = [model("a1", ax, 10, unit="a"), model("a2", ax, 12, unit="a")]
    return field([hill, hill2], a + t)


def test_high_ground_cover():
    """Row "high ground cover": every target model partly on high ground and an attacker not:
    the target may evade (also when a model only overhangs the edge)."""
    bf = _hg_field(False)
    us = unit_sight(bf, bf.unit("a"), bf.unit("t"))
    assert us.high_ground_cover.ok and us.visible


def test_high_ground_cover_attacker_also_high():
    """Row "attacker also on high ground": no bonus."""
    bf = _hg_field(True)
    us = unit_sight(bf, bf.unit("a"), bf.unit("t"))
    assert not us.high_ground_cover.ok


def test_high_ground_cover_never_for_flying():
    """Row (flying) "high ground cover": flying units never get it."""
    bf = _hg_field(False, target_flying=True)
    assert not unit_sight(bf, bf.unit("a"), bf.unit("t")).high_ground_cover.ok


# --------------------------------------------------------------------------- HIDDEN, markers


def test_hidden_beyond_four_inches():
    """HIDDEN: not visible to a model more than 4" away, whatever the sight; within 4" normal.
    Distance is horizontal, so the high model's height does not matter (§4.1)."""
    hill = TerrainPiece("hill", 4, box(0, 0, 10, 20), standable=True)
    a = model("a", 9, 10)
    far = model("b", 9 + 1.26 + 4.1, 10, hidden=True)
    near = model("b", 9 + 1.26 + 3.9, 10, hidden=True)
    v = los([hill], a, far)
    assert not v.ok and v.rule == "HIDDEN"
    assert los([hill], a, near).ok
    # the hidden model itself still sees out
    assert los([hill], far, a).ok


def test_marker_is_size_zero():
    """§8.9.1: a marker is a Size-0 object, so any blocking piece within 1" of it that the line
    crosses gives it direct cover; a Size-1 barricade does not stop sight between models."""
    mk = Marker(1, (12.3, 10))
    a = model("a", 2, 10)
    bf = field([wall(size=1)], [a], [mk])
    v = line_of_sight(bf, a, mk)
    assert not v.ok and v.rule == "7.1.1 direct cover"
    mk2 = Marker(1, (16, 10))
    assert line_of_sight(field([wall(size=1)], [a], [mk2]), a, mk2).ok


def test_size_zero_and_tokens_never_block():
    """Pieces of effective size 0 never block; tokens neither (Size-0 by definition)."""
    a, b = model("a", 5, 10, size=0), model("b", 11.7, 10, size=0)
    assert los([wall(size=0)], a, b).ok
    assert los([TerrainPiece("tok", 0, box(8, 8, 9, 12), kind="token")], a, b).ok


# --------------------------------------------------------------------------- geometry cases


def test_gap_between_two_walls():
    """Two walls with a 0.1" gap do not block a line through the gap; touching sections of one
    wall (separate pieces, FAQ) do not let a line slip through the seam."""
    a, b = model("a", 2, 10), model("b", 20, 10.5)
    w1, w2 = wall("w1", 3, y0=0, y1=10), wall("w2", 3, y0=10.1, y1=20)
    v = los([w1, w2], a, b)
    assert v.ok
    check_witness(v, a, b)
    y = v.witness[0][1] + (v.witness[1][1] - v.witness[0][1]) * (10.5 - v.witness[0][0]) / (
        v.witness[1][0] - v.witness[0][0])
    assert 10 - 1e-6 <= y <= 10.1 + 1e-6
    s1, s2 = wall("w1", 3, y0=0, y1=10), wall("w2", 3, y0=10, y1=20)
    v = los([s1, s2], model("a", 2, 10), model("b", 20, 10))
    assert not v.ok and v.details["blocking"] == ["w1", "w2"]


def test_thin_oval_bases():
    """Oval bases: a 100×40 mm base turned across the line peeks past a wall that hides it when
    turned along the line."""
    oval = Base.from_mm((100, 40))
    w = wall(size=3, x=10, y0=8.6, y1=11.4)
    a = model("a", 3, 10, base=oval, angle=90)
    b = model("b", 18, 10, base=oval, angle=90)
    v = los([w], a, b)
    assert v.ok
    check_witness(v, a, b)
    a2 = model("a", 3, 10, base=oval, angle=0)
    b2 = model("b", 18, 10, base=oval, angle=0)
    assert not los([w], a2, b2).ok


def test_irreducible_blocking_set():
    """The reason names pieces that together stop every line, none of them superfluous."""
    a, b = model("a", 2, 10), model("b", 20, 10)
    w1, w2 = wall("w1", 3, y0=0, y1=10.05), wall("w2", 3, y0=9.95, y1=20, x=12)
    extra = wall("w3", 3, x=15, y0=9, y1=11)
    v = los([w1, w2, extra], a, b)
    assert not v.ok
    assert v.details["blocking"] in (["w1", "w2"], ["w3"]) or len(v.details["blocking"]) <= 2
    for pid in v.details["blocking"]:
        rest = [p for p in (w1, w2, extra) if p.id in v.details["blocking"] and p.id != pid]
        assert los(rest, a, b).ok  # dropping any named piece opens a line


# --------------------------------------------------------------------------- units and CLI


def test_unit_visible_models_and_attackers():
    """Unit level: visible target models cap casualties; attackers with --range are only those
    with a visible target model in range."""
    w = wall(size=3, x=15, y0=0, y1=10)
    atk = [model(f"a{k}", 5, 4 + 4 * k, unit="atk") for k in range(3)]  # y = 4, 8, 12
    tgt = [model(f"t{k}", 25, 4 + 4 * k, unit="tgt", owner="blue") for k in range(3)]
    bf = field([w], atk + tgt)
    ctx = SightContext(bf)
    us = unit_sight(bf, bf.unit("atk"), bf.unit("tgt"), ctx=ctx)
    vis = {t.ref for t in tgt if any(pair_sight(ctx, x, t).ok for x in atk)}
    assert set(us.visible_models) == vis
    seeing = {x.ref for x in atk if any(pair_sight(ctx, x, t).ok for t in tgt)}
    assert set(us.attackers) == seeing
    us_r = unit_sight(bf, bf.unit("atk"), bf.unit("tgt"), weapon_range=19.0, ctx=ctx)
    for x in atk:
        ok = any(pair_sight(ctx, x, t).ok and math.dist(x.at, t.at) - 1.26 <= 19.0 for t in tgt)
        assert (x.ref in us_r.attackers) == ok


def _write(tmp_path, text):
    p = tmp_path / "s.toml"
    p.write_text(text)
    return str(p)


SCEN = """
format = "tmg-scenario/1"
[table]
width = 54
depth = 36
[[terrain]]
id = "wall"
size = 3
polygon = [[10, 0], [11, 0], [11, 10], [10, 10]]
[[unit]]
id = "a"
owner = "red"
size = 2
base_mm = 32
models = [[5, 5], [5, 15]]
[[unit]]
id = "b"
owner = "blue"
size = 2
base_mm = 32
models = [[20, 5], [20, 8]]
[[marker]]
id = 2
at = [20, 30]
"""


def test_cli_los_json(tmp_path, capsys):
    f = _write(tmp_path, SCEN)
    assert main(["los", f, "a/1", "b/1", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["visible"] is False and r["blocking"] == ["wall"] and r["witness"] is None
    assert r["rule"] == "7.1.1 full cover" and "wall" in r["reason"]
    assert main(["los", f, "a", "b", "--range", "16", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    for key in ("visible", "rule", "reason", "witness", "blocking", "visible_models", "attackers",
                "high_ground_cover"):
        assert key in r
    assert r["visible"] is True and r["attackers"] == ["a/2"]
    assert set(r["visible_models"]) <= {"b/1", "b/2"} and r["visible_models"]
    assert main(["los", f, "a/1", "marker/2", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["visible"] is True and len(r["witness"]) == 2


def test_cli_los_bad_reference(tmp_path, capsys):
    f = _write(tmp_path, SCEN)
    assert main(["los", f, "a/1", "marker/7"]) == 2
    err = capsys.readouterr().err
    assert "marker/7" in err and "s.toml" in err


@pytest.mark.parametrize("name", ["ridge-dispute.toml"])
def test_example_scenarios(examples, name, capsys):
    assert main(["los", str(examples / name), "marines", "zerglings", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["visible"] is True and len(r["visible_models"]) == 4


EXAMPLE_CASES = [
    ("los-high-ground.toml", "marines/m1", "zerglings/z1", False, "7.1.1 elevation dead zone"),
    ("los-high-ground.toml", "marines/m2", "zerglings/z2", True, "7.1.1 close quarters"),
    ("los-high-ground.toml", "marines/m1", "zerglings/z3", True, "7.1 line of sight"),
    ("los-high-ground.toml", "sentinel/s1", "drone/d1", False, "7.1.1 direct cover"),
    ("los-high-ground.toml", "zerglings/z3", "drone/d1", True, "7.1 line of sight"),
    ("los-high-ground.toml", "marines/m1", "roach/r1", False, "HIDDEN"),
    ("los-wall-gap.toml", "marines/m1", "zerglings/z1", True, "7.1 line of sight"),
    ("los-wall-gap.toml", "marines/m2", "zerglings/z2", False, "7.1.1 full cover"),
    ("los-wall-gap.toml", "hydras/h1", "roaches/r1", True, "7.1 line of sight"),
    ("los-wall-gap.toml", "hydras/h2", "roaches/r2", False, "7.1.1 full cover"),
]


@pytest.mark.parametrize(("name", "a", "b", "visible", "rule"), EXAMPLE_CASES)
def test_los_examples(examples, capsys, name, a, b, visible, rule):
    """The documented example scenarios give the documented answers, both ways (HIDDEN aside)."""
    assert main(["los", str(examples / name), a, b, "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert (r["visible"], r["rule"]) == (visible, rule)
    assert (r["witness"] is not None) == visible
    if rule != "HIDDEN":
        assert main(["los", str(examples / name), b, a, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["visible"] == visible


def test_high_ground_example_units(examples, capsys):
    """Unit level on the example: the dead-zone zergling is not among the visible models."""
    assert main(["los", str(examples / "los-high-ground.toml"), "marines", "zerglings",
                 "--range", "8", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["visible"] and "zerglings/z1" not in r["visible_models"]
    assert r["attackers"] == ["marines/m2"]  # only m2 has a visible zergling within 8"
    assert r["high_ground_cover"] is False
