"""Engagement between models and units (rulebook §7.2, §7.2.1).

Two enemy models are *engaged* when their bases are within 1" (engagement range, measured
horizontally) and all of §7.2.1 holds:

- combat tags: both GROUND; a flying model never engages;
- terrain: no terrain of Size 2+ between them. **Decision**
  (docs/rules.md#engagement-terrain): some segment of length ≤ 1" joining the two bases crosses the interior of no Size-2+
  footprint, pieces that touch being joined first, exactly as for sight (`geom.lines._seams`), so no
  segment slips through the zero-width seam between two sections of one wall. This is decided
  exactly by `geom.lines._segments.find_clear_segment`, whose segment is the witness;
- elevation: high ground never engages ground level (and vice versa); a mid-ground model engages a
  ground-level or high-ground model only when both bases touch the same access point.

A unit is engaged with an enemy unit when some pair of their models is engaged (§7.2).

Decisions taken here (none of them changes a rules figure; see docs/engagement.md):

- *Which pieces are "Size 2+" for a pair*: a piece blocks when its height above the lower of the
  two models' standing surfaces is 2 or more (effective size of the piece minus effective size of
  that surface). On the mat this is the piece's effective size, so a Size-1 crate stacked on a
  Size-1 platform is a Size-2 obstacle, while a Size-1 crate on the ridge two models stand on is
  not. The top a model stands on, and the pieces under it, never block for that model (§7.1.2).
- GRASS is Size-2 terrain and the rulebook gives it no engagement exception: it blocks.
- Openings (doorways, breaches) are gaps in a piece: a segment through an opening is not blocked
  (docs/rules.md#openings).
- The access point a mid-ground model engages through must belong to the top one of the two
  models stands on (a ladder or ramp end of that piece), and both bases must touch it
  (docs/rules.md#mid-ground-engagement).
- "Within engagement range" alone (`in_engagement_range`) is the bare 1" test, used where the
  rulebook forbids *ending within range* of an enemy (§7.2: moves, charges, placing).

>>> from geom.model import Battlefield, Table, Model, Base
>>> a = Model.make("a", unit="u", owner="red", at=(5, 5), base=Base.from_mm(25.4), size=1)
>>> b = Model.make("b", unit="v", owner="blue", at=(6.8, 5), base=Base.from_mm(25.4), size=1)
>>> bool(models_engaged(Battlefield(Table(54, 36)), a, b))
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from shapely.geometry import Polygon
from shapely.ops import unary_union

from . import bases
from .elevation import GROUND, HIGH, MID, elevation_level, piece_effective_size, standing_piece
from .lines import PreparedObstacles, find_clear_segment, line_obstacles
from .model import Battlefield, Model, TerrainPiece, Unit
from .tolerance import TOLERANCE
from .verdict import Verdict

ENGAGEMENT_RANGE = 1.0  # §7.2
BLOCKING_HEIGHT = 2  # §7.2.1: "Size 2+" terrain stops engagement

RULE_RANGE = "7.2 engagement range"
RULE_TAGS = "7.2.1 combat tags"
RULE_TERRAIN = "7.2.1 terrain"
RULE_ELEVATION = "7.2.1 elevation"
RULE_ENGAGED = "7.2 engagement"


def base_gap(a: Model, b: Model) -> float:
    """Horizontal base-to-base distance (§4.1)."""
    return bases.ellipse_distance(a.ellipse, b.ellipse)


def in_engagement_range(a: Model, b: Model) -> bool:
    """The bare 1" test (§7.2), without the restrictions of §7.2.1."""
    if not _near(a, b, ENGAGEMENT_RANGE):
        return False
    return base_gap(a, b) <= ENGAGEMENT_RANGE + TOLERANCE


def in_base_contact(a: Model, b: Model) -> bool:
    """Bases touch (0" apart within the tolerance; docs/rules.md#tolerance)."""
    if not _near(a, b, 0.0):
        return False
    return base_gap(a, b) <= TOLERANCE


def _near(a: Model, b: Model, d: float) -> bool:
    """Cheap reject on centres: bases farther than d apart whatever their orientation."""
    reach = a.base.a + b.base.a + d + TOLERANCE
    return (a.at[0] - b.at[0]) ** 2 + (a.at[1] - b.at[1]) ** 2 <= reach * reach


def enemies(a: Model, b: Model) -> bool:
    return a.owner != b.owner


# --------------------------------------------------------------------------- terrain


def _stack(bf: Battlefield, piece: TerrainPiece | None) -> list[TerrainPiece]:
    out: list[TerrainPiece] = []
    while piece is not None:
        out.append(piece)
        piece = bf.piece(piece.on) if piece.on else None
    return out


def _surface_size(bf: Battlefield, piece: TerrainPiece | None) -> int:
    return piece_effective_size(bf, piece) if piece is not None else 0


def _obstacle_shape(piece: TerrainPiece) -> Polygon:
    """The footprint with its openings cut out (a doorway is a gap, not wall)."""
    if not piece.openings:
        return piece.footprint
    shape = piece.footprint.difference(unary_union(list(piece.openings)))
    return shape  # type: ignore[return-value]


def stack_ids(bf: Battlefield, m: Model) -> set[str]:
    """Ids of the piece the model stands on and every piece under it."""
    return {p.id for p in _stack(bf, standing_piece(bf, m))}


def surface_size(bf: Battlefield, m: Model) -> int:
    """Effective size of the surface the model stands on (0 on the mat)."""
    return _surface_size(bf, standing_piece(bf, m))


def terrain_blockers(bf: Battlefield, exclude: set[str], floor: int) -> list[TerrainPiece]:
    """Pieces at least 2 high above `floor`, other than the stacks in `exclude` (§7.2.1)."""
    return [p for p in bf.terrain
            if p.id not in exclude and not p.is_token and p.size > 0
            and piece_effective_size(bf, p) - floor >= BLOCKING_HEIGHT]


def obstacle_shape(piece: TerrainPiece) -> Polygon:
    """The footprint with its openings cut out (a doorway is a gap, not wall)."""
    return _obstacle_shape(piece)


def blocking_pieces(bf: Battlefield, a: Model, b: Model,
                    reach: float = ENGAGEMENT_RANGE) -> list[TerrainPiece]:
    """Pieces that stop engagement between a and b if a segment must cross them (§7.2.1):
    height ≥ 2 above the lower standing surface, not under either model, and within `reach` of
    both bases (no segment of length ≤ reach can touch a piece farther away)."""
    own = stack_ids(bf, a) | stack_ids(bf, b)
    floor = min(surface_size(bf, a), surface_size(bf, b))
    boxes = bases.piece_boxes(bf)
    both = (bases.boxes_near(boxes, a.ellipse, reach + TOLERANCE)
            & bases.boxes_near(boxes, b.ellipse, reach + TOLERANCE))
    near = {bf.terrain[i].id for i in np.flatnonzero(both)}
    out = []
    for p in terrain_blockers(bf, own, floor):
        if p.id not in near:
            continue
        if bases.ellipse_geometry_distance(a.ellipse, p.footprint) > reach + TOLERANCE:
            continue
        if bases.ellipse_geometry_distance(b.ellipse, p.footprint) > reach + TOLERANCE:
            continue
        out.append(p)
    return out


def clear_segment(bf: Battlefield, a: Model, b: Model,
                  pieces: Sequence[TerrainPiece] | None = None
                  ) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """A segment of length ≤ 1" from a's base to b's base crossing no blocking piece, or None.
    Pieces that touch are joined first (`geom.lines._seams`), as for sight and template lines."""
    if pieces is None:
        pieces = blocking_pieces(bf, a, b)
    kept = bf.prepared.engagement_obstacles
    key = tuple(p.id for p in pieces)  # the same few, again and again
    obs = kept.get(key)
    if obs is None:
        shapes: list[Polygon] = []
        for p in pieces:
            s = _obstacle_shape(p)
            shapes.extend(getattr(s, "geoms", [s]))
        obs = kept[key] = PreparedObstacles.build(line_obstacles(shapes))
    return find_clear_segment(a.ellipse, b.ellipse, obs, max_length=ENGAGEMENT_RANGE)


# --------------------------------------------------------------------------- elevation


def _access_point_shared(bf: Battlefield, a: Model, b: Model) -> tuple[str, int] | None:
    """(piece id, index) of an access point of a's or b's standing piece touched by both bases."""
    for piece in (standing_piece(bf, a), standing_piece(bf, b)):
        if piece is None:
            continue
        for i, ap in enumerate(piece.access_points):
            if bases.geometry_meets(a.ellipse, ap, TOLERANCE) and \
                    bases.geometry_meets(b.ellipse, ap, TOLERANCE):
                return piece.id, i
    return None


def elevation_verdict(bf: Battlefield, a: Model, b: Model) -> Verdict:
    """§7.2.1 elevation restrictions only (both models assumed ground)."""
    la, lb = elevation_level(bf, a), elevation_level(bf, b)
    levels = {la, lb}
    if levels == {GROUND, HIGH}:
        return Verdict(False, RULE_ELEVATION,
                       f"{_who(a, la)} and {_who(b, lb)}: high ground never engages ground level",
                       details={"levels": [la, lb]})
    if MID in levels and len(levels) == 2:
        shared = _access_point_shared(bf, a, b)
        if shared is None:
            return Verdict(False, RULE_ELEVATION,
                           f"{_who(a, la)} and {_who(b, lb)}: a mid-ground model engages another "
                           "elevation only when both bases touch the same access point, and "
                           "they do not", details={"levels": [la, lb]})
        return Verdict(True, RULE_ELEVATION,
                       f"both bases touch access point {shared[1] + 1} of {shared[0]!r}",
                       details={"levels": [la, lb], "access_point": list(shared)})
    return Verdict(True, RULE_ELEVATION, "same elevation" if la == lb else
                   f"{la} and {lb} may engage", details={"levels": [la, lb]})


def _who(m: Model, level: str) -> str:
    where = {GROUND: "at ground level", MID: "on mid ground", HIGH: "on high ground"}
    return f"{m.ref} ({where.get(level, level)})"


# --------------------------------------------------------------------------- models


def models_engaged(bf: Battlefield, a: Model, b: Model) -> Verdict:
    """Are two models engaged (§7.2, §7.2.1)? The witness is a clear segment of length ≤ 1".

    Parameters
    ----------
    bf : Battlefield
        The table.
    a, b : Model
        The two models.

    Returns
    -------
    Verdict
        Engaged or not, with the rule that decides (range, elevation, terrain, FLYING);
        `details["distance"]` is the gap between the bases, `details["blocking"]` the pieces
        in the way.

    Examples
    --------
    Two bases 0.64" apart with a Size-3 wall between them are not engaged (§7.2.1):

    >>> from shapely.geometry import box
    >>> from geom import Base, Battlefield, Model, Table, TerrainPiece, Unit, models_engaged
    >>> base = Base.from_mm(32)
    >>> a = Model.make("1", unit="a", owner="red", at=(10.3, 6), base=base, size=1)
    >>> b = Model.make("1", unit="b", owner="blue", at=(12.2, 6), base=base, size=1)
    >>> bf = Battlefield(Table(24, 12), (TerrainPiece("wall", 3, box(11, 0, 11.5, 8)),),
    ...                  (Unit("a", "red", 1, (a,), base), Unit("b", "blue", 1, (b,), base)))
    >>> v = models_engaged(bf, a, b)
    >>> v.ok, v.rule, v.details["blocking"]
    (False, '7.2.1 terrain', ['wall'])
    >>> print(v.reason)
    a/1 and b/1 are 0.640" apart, but every segment of 1" or less between their bases crosses Size 2+ terrain (terrain/wall)
    """
    if a.unit == b.unit and a.id == b.id:
        return Verdict(False, RULE_ENGAGED, f"{a.ref} is one model")
    if not enemies(a, b):
        return Verdict(False, RULE_ENGAGED,
                       f"{a.ref} and {b.ref} are on the same side ({a.owner}); only enemies engage")
    flyers = [m.ref for m in (a, b) if m.flying]
    if flyers:
        return Verdict(False, RULE_TAGS,
                       f"{' and '.join(flyers)} {'is' if len(flyers) == 1 else 'are'} FLYING; "
                       "flying models never engage")
    gap = base_gap(a, b) if _near(a, b, ENGAGEMENT_RANGE) else None
    if gap is None or gap > ENGAGEMENT_RANGE + TOLERANCE:
        shown = gap if gap is not None else base_gap(a, b)
        return Verdict(False, RULE_RANGE,
                       f'{a.ref} and {b.ref} are {shown:.3f}" apart, more than 1"',
                       details={"distance": shown})
    elev = elevation_verdict(bf, a, b)
    if not elev:
        return Verdict(False, elev.rule, elev.reason, details={"distance": gap, **elev.details})
    pieces = blocking_pieces(bf, a, b)
    seg = clear_segment(bf, a, b, pieces)
    if seg is None:
        ids = [p.id for p in pieces]
        return Verdict(False, RULE_TERRAIN,
                       f'{a.ref} and {b.ref} are {gap:.3f}" apart, but every segment of 1" or '
                       f"less between their bases crosses Size 2+ terrain "
                       f"({', '.join(p.title for p in pieces)})",
                       details={"distance": gap, "blocking": ids, **elev.details})
    return Verdict(True, RULE_ENGAGED,
                   f'{a.ref} and {b.ref} are engaged: {gap:.3f}" apart'
                   + (f", {elev.reason}" if "access point" in elev.reason else "")
                   + ("" if not pieces else
                      f", clear of {', '.join(p.title for p in pieces)} along the witness segment"),
                   witness=[list(seg[0]), list(seg[1])],
                   details={"distance": gap, "blocking": [], **elev.details})


# --------------------------------------------------------------------------- units


@dataclass(frozen=True)
class Pairing:
    """One engaged pair of models (a from the first unit, b from the second)."""

    a: Model
    b: Model
    verdict: Verdict


def engaged_pairs(bf: Battlefield, models_a: Iterable[Model], models_b: Iterable[Model],
                  first_only: bool = False) -> list[Pairing]:
    out = []
    bs = list(models_b)
    for a in models_a:
        for b in bs:
            if not enemies(a, b) or a.flying or b.flying or not _near(a, b, ENGAGEMENT_RANGE):
                continue
            v = models_engaged(bf, a, b)
            if v:
                out.append(Pairing(a, b, v))
                if first_only:
                    return out
    return out


def units_engaged(bf: Battlefield, u: Unit, v: Unit) -> Verdict:
    """§7.2: two units are engaged when any model of one is engaged with any model of the other.
    When they are not, the reason is the closest pair's reason.

    Parameters
    ----------
    bf : Battlefield
        The table.
    u, v : Unit
        The two units.

    Returns
    -------
    Verdict
        Engaged or not; `details["pair"]` names the engaged pair (or the closest one), the
        witness is its clear segment.

    Examples
    --------
    b/1 is behind the wall, but b/2 is 0.34" from a/1 in the open:

    >>> from shapely.geometry import box
    >>> from geom import Base, Battlefield, Model, Table, TerrainPiece, Unit, units_engaged
    >>> base = Base.from_mm(32)
    >>> a = Model.make("1", unit="a", owner="red", at=(10.3, 6), base=base, size=1)
    >>> b = tuple(Model.make(i, unit="b", owner="blue", at=p, base=base, size=1)
    ...           for i, p in (("1", (12.2, 6)), ("2", (10.3, 7.6))))
    >>> bf = Battlefield(Table(24, 12), (TerrainPiece("wall", 3, box(11, 0, 11.5, 8)),),
    ...                  (Unit("a", "red", 1, (a,), base), Unit("b", "blue", 1, b, base)))
    >>> v = units_engaged(bf, bf.unit("a"), bf.unit("b"))
    >>> v.ok, v.rule, v.details["pair"]
    (True, '7.2 engagement', ['a/1', 'b/2'])
    """
    if u.id == v.id:
        return Verdict(False, RULE_ENGAGED, f"{u.id} is one unit")
    pairs = engaged_pairs(bf, u.models, v.models, first_only=True)
    if pairs:
        p = pairs[0]
        return Verdict(True, RULE_ENGAGED, f"{u.id} and {v.id} are engaged (for example {p.verdict.reason})",
                       witness=p.verdict.witness,
                       details={"pair": [p.a.ref, p.b.ref], **p.verdict.details})
    best = min(((a, b) for a in u.models for b in v.models), key=lambda ab: base_gap(*ab))
    why = models_engaged(bf, *best)
    return Verdict(False, why.rule,
                   f"no model of {u.id} is engaged with a model of {v.id}; closest pair: "
                   f"{why.reason}", details={"pair": [best[0].ref, best[1].ref], **why.details})

