"""§2 elevation and effective size, from the rulebook's statements (§7.1.2, §7.1.4)."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import box

from geom.elevation import (
    base_on_high_ground,
    elevation_level,
    model_effective_size,
    piece_effective_size,
    standing_piece,
)
from geom.model import Base, Battlefield, Model, Table, TerrainPiece


def model(at, size=2, **kw):
    return Model.make("m", unit="u", owner="red", at=at, base=Base.from_mm(32), size=size, **kw)


HILL = TerrainPiece("hill", 4, box(0, 0, 10, 10), standable=True)
CRATE = TerrainPiece("crate", 1, box(2, 2, 4, 4), standable=True, on="hill")
LEDGE = TerrainPiece("ledge", 2, box(20, 0, 26, 6), standable=True)
RAMP = TerrainPiece("ramp", 1, box(30, 0, 34, 2), kind="ramp")
WALL = TerrainPiece("wall", 5, box(12, 0, 13, 10))
BF = Battlefield(Table(54, 36), (HILL, CRATE, LEDGE, RAMP, WALL))


def test_marine_on_size4_high_ground_has_effective_size_6():
    # §7.1.2: "a Size-2 marine on Size-4 high ground has effective size 6"
    m = model((5, 7))
    assert standing_piece(BF, m) is HILL
    assert model_effective_size(BF, m) == 6
    assert elevation_level(BF, m) == "high"


def test_stacking_adds_sizes():
    assert piece_effective_size(BF, CRATE) == 5
    m = model((3, 3))
    assert standing_piece(BF, m) is CRATE  # the highest top under the centre
    assert model_effective_size(BF, m) == 7


def test_levels_ground_mid_high():
    assert elevation_level(BF, model((40, 20))) == "ground"
    assert model_effective_size(BF, model((40, 20))) == 2
    assert elevation_level(BF, model((23, 3))) == "mid"
    assert elevation_level(BF, model((32, 1))) == "mid"  # ramps are mid ground
    assert elevation_level(BF, model((5, 5))) == "high"


def test_non_standable_piece_is_not_stood_on():
    assert standing_piece(BF, model((12.5, 5))) is None


def test_centre_decides_even_when_base_overhangs():
    # FAQ decision: the centre must be on the top; a base overhanging the edge does not count.
    inside = model((9.9, 5))
    outside = model((10.1, 5))
    assert elevation_level(BF, inside) == "high"
    assert elevation_level(BF, outside) == "ground"
    assert base_on_high_ground(BF, outside)  # part of the base is over the top (§7.1.3)


def test_flying_is_above_all_terrain_and_burrowed_is_size_0():
    f = model((5, 5), flying=True)
    assert math.isinf(model_effective_size(BF, f))
    assert elevation_level(BF, f) == "flying"
    b = model((40, 20), burrowed=True)
    assert model_effective_size(BF, b) == 0
    assert model_effective_size(BF, model((5, 5), burrowed=True)) == 4


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 20), st.floats(0, 20), st.floats(0.3, 6),
                          st.floats(0.3, 6), st.integers(1, 5), st.booleans()),
                min_size=1, max_size=8),
       st.floats(0, 24), st.floats(0, 24), st.sampled_from([25.0, 50.0, (100.0, 40.0)]),
       st.floats(0, 180))
def test_7_1_3_part_of_the_base_on_high_ground_agrees_with_the_definition(
        tops, x, y, mm, angle):
    # the kept, box-filtered answer is the rulebook's definition asked of every piece: some
    # standable top of effective size 3+ under part of the base
    import shapely

    from geom.elevation import base_on_high_ground, piece_effective_size
    pieces = tuple(TerrainPiece(f"t{i}", s, box(x0, y0, x0 + w, y0 + h), standable=st_)
                   for i, (x0, y0, w, h, s, st_) in enumerate(tops))
    bf = Battlefield(Table(30, 30), pieces)
    m = Model.make("m", unit="u", owner="red", at=(x, y), base=Base.from_mm(mm), size=1,
                   angle=angle)
    ref = any(p.can_stand_on and piece_effective_size(bf, p) >= 3
              and shapely.intersection(p.footprint, m.ellipse.shape).area > 1e-9
              for p in pieces)
    assert base_on_high_ground(bf, m) == ref
    assert base_on_high_ground(bf, m) == ref  # and again, from what the battlefield kept
