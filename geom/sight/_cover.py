"""Which pieces block sight for a pair of models, and why (rulebook §7.1, §7.1.1 full cover,
direct cover, elevation dead zone, close quarters; §7.1.2 effective size and top-down
perspective; §7.1.3 high ground cover; §7.1.4 flying units; keywords HIDDEN, VISIBLE).

This module decides the *rules*; `geom.sight._sight` decides the *geometry* (whether some line misses
every piece that blocks). A piece k blocks for the pair (A, B) when it can block at all and

- full cover: eff(k) ≥ eff(A) and eff(k) ≥ eff(B) (a flying model's effective size is +inf, so
  full cover never applies to or from a flying model, §7.1.4); or
- direct cover: A is within 1" of k (base to footprint, any part of the piece, FAQ "전장") and
  eff(k) ≥ eff(A), or the same for B — unless close quarters lifts it: both models within 1" of
  k and within 3" of each other (for that piece only: docs/rules.md#close-quarters).

Decisions (docs/rules.md has them all):

- A piece "can block" when its own Size is ≥ 1 and it is not a token (§7.1 "blocking terrain":
  effective size ≥ 1; a Size-0 piece does not rise above its surface, so stacking it on a hill
  does not make it block — §7.1.2 top-down perspective; docs/rules.md#footprints).
- The top a model stands on, and every piece under that top, never block that model's sight
  (§7.1.2: "the horizontal surface a model stands on does not block"). This holds for the
  whole pair: the top of A never stops a line between A and B.
- Elevation dead zone: model H stands on high ground (its standing top has effective size 3+),
  model G is at ground level, and G is within 1" of the footprint of the piece H stands on *or
  of any piece under it in the stack* ("the base of the same piece", §7.1.1). Then neither sees
  the other, unless close quarters lifts it for that piece: H is also within 1" of it and the two
  are within 3" of each other. H is usually within 1" of every piece of its stack, but a top
  stacked on a hill may overhang it, so this is checked, not assumed (docs/rules.md#dead-zone).
- Flying models and the dead zone (§7.1.4: "직접 엄폐와 고도 사각지대 규칙은 여전히
  적용됩니다"; docs/rules.md#flying-dead-zone): for the dead zone a flying model stands
  at the elevation of what its base (the stand's foot) stands on — ground level on the mat — so a
  flyer at the foot of a hill and a model on the hill cannot see each other, unless close
  quarters applies. For cover it stays above every piece.
- HIDDEN (keyword): a hidden model more than 4" from the viewer is not visible to it, whatever
  the sight; this is the one rule that is not reciprocal (docs/rules.md#hidden).
- A mission marker is a Size-0 object (§8.9.1) on whatever top its centre is on; the same rules
  apply to it as to a Size-0 model (docs/rules.md#markers-sight).
- Pieces of effective size 0 never block; several pieces never add up (each judged alone).

>>> import math
>>> piece_blocks(5, math.inf, 2, False, True, False)   # flying shooter, target hugs the wall
'direct'
>>> piece_blocks(5, 6, 2, False, False, False) is None  # Size-2 on Size-4 hill over a Size-5 wall
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .. import bases
from ..bases import ellipse_convex_distances, ellipse_distances
from ..elevation import (
    GROUND,
    HIGH,
    base_on_high_ground,
    elevation_level,
    piece_effective_size,
    standing_piece,
)
from ..model import Battlefield, Ellipse, Marker, Model, TerrainPiece
from ..tolerance import QUERY_MARGIN, SAME_AXES, TOLERANCE
from ..verdict import Verdict

COVER_RANGE = 1.0  # §7.1.1 "within 1" of the piece"
CLOSE_QUARTERS = 3.0  # §7.1.1 "within 3" of each other"
HIDDEN_RANGE = 4.0  # keyword HIDDEN


def can_block(piece: TerrainPiece) -> bool:
    """Can this piece ever block sight? (own Size ≥ 1, not a token)."""
    return piece.size >= 1 and not piece.is_token


@dataclass(frozen=True)
class Viewer:
    """A model or a mission marker as the sight rules see it. `zone_level` and `zone_stack` are
    the elevation and stack used for the dead zone (a flyer's are those of its stand's foot)."""

    ref: str
    ellipse: Ellipse
    effective: float  # +inf for flying models
    level: str  # ground | mid | high | flying
    stack: tuple[str, ...]  # the top it stands on and every piece under it
    hidden: bool
    flying: bool
    model: Model | None  # None for a marker
    zone_level: str = GROUND
    zone_stack: tuple[str, ...] = ()


def stack_of(bf: Battlefield, piece: TerrainPiece | None) -> tuple[str, ...]:
    out: list[str] = []
    while piece is not None and piece.id not in out:
        out.append(piece.id)
        piece = bf.piece(piece.on) if piece.on is not None else None
    return tuple(out)


def as_model(obj: Model | Marker) -> Model:
    """A marker as a Size-0 ground model with the marker's disc (§8.9.1)."""
    if isinstance(obj, Model):
        return obj
    return Model.make(obj.ref, unit="marker", owner="neutral", at=obj.at, base=obj.base, size=0)


def viewer(bf: Battlefield, obj: Model | Marker) -> Viewer:
    m = as_model(obj)
    top = standing_piece(bf, m)
    eff = math.inf if m.flying else m.rules_size + (piece_effective_size(bf, top) if top else 0)
    foot = replace(m, flying=False) if m.flying else m
    foot_top = standing_piece(bf, foot) if m.flying else top
    return Viewer(obj.ref, m.ellipse, float(eff), elevation_level(bf, m), stack_of(bf, top),
                  bool(m.hidden) if isinstance(obj, Model) else False, m.flying,
                  obj if isinstance(obj, Model) else None, elevation_level(bf, foot),
                  stack_of(bf, foot_top))


# --------------------------------------------------------------------------- one piece, one pair


def piece_blocks(piece_eff: float, eff_a: float, eff_b: float, near_a: bool, near_b: bool,
                 close_quarters: bool) -> str | None:
    """'full', 'direct' or None for one piece that can block and is not under either model.

    `close_quarters`: the two models are within 3" of each other (the "both within 1" of this
    piece" half of the test is `near_a and near_b`)."""
    if piece_eff <= 0:
        return None
    if piece_eff >= eff_a and piece_eff >= eff_b:
        return "full"
    if near_a and near_b and close_quarters:
        return None
    if (near_a and piece_eff >= eff_a) or (near_b and piece_eff >= eff_b):
        return "direct"
    return None


def cover_rows(piece_eff: np.ndarray, ok: np.ndarray, eff_a: np.ndarray, eff_b: np.ndarray,
               near_a: np.ndarray, near_b: np.ndarray, cq: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """`piece_blocks` for many (pair, piece) rows at once: returns (full, direct) masks.
    `ok`: the piece can block and is not under either model; `cq`: the pair is within 3"."""
    ok = ok & (piece_eff > 0)
    ge_a = piece_eff >= eff_a
    ge_b = piece_eff >= eff_b
    full = ok & ge_a & ge_b
    lifted = near_a & near_b & cq
    direct = ok & ~full & ~lifted & ((near_a & ge_a) | (near_b & ge_b))
    return full, direct


def dead_zone_pieces(bf: Battlefield, high: Viewer, ground: Viewer) -> list[tuple[str, bool]]:
    """The pieces of `high`'s stack whose foot `ground` is within 1" of (the dead zone premise),
    each with whether `high` is itself within 1" of that piece (the first half of close
    quarters; a top stacked on a hill may overhang it, so standing on the stack does not make
    the high model near the hill). Empty when `high` is not on high ground or `ground` is not
    at ground level (a flyer counts at its stand's foot). Footprints are the outermost edge
    (§7.1), as for cover."""
    if high.zone_level != HIGH or ground.zone_level != GROUND:
        return []
    out = []
    for pid in high.zone_stack:
        fp = outer_footprint(bf.piece(pid).footprint)
        if bases.ellipse_geometry_distance(ground.ellipse, fp) <= COVER_RANGE + TOLERANCE:
            near = bases.ellipse_geometry_distance(high.ellipse, fp) <= COVER_RANGE + TOLERANCE
            out.append((pid, near))
    return out


def dead_zone_piece(bf: Battlefield, high: Viewer, ground: Viewer, close: bool = False
                    ) -> str | None:
    """The piece whose dead zone stops sight between `high` and `ground`, or None.
    `close`: the models are within 3" of each other (close quarters then lifts the dead zone of
    every piece both are within 1" of)."""
    for pid, near in dead_zone_pieces(bf, high, ground):
        if not (close and near):
            return pid
    return None


def outer_footprint(g: BaseGeometry) -> BaseGeometry:
    """§7.1: the footprint is the outermost edge; gaps, windows and open interiors are filled."""
    if g.geom_type == "Polygon":
        return shapely.Polygon(g.exterior) if len(g.interiors) else g
    if g.geom_type == "MultiPolygon":
        return shapely.MultiPolygon([shapely.Polygon(p.exterior) for p in g.geoms])
    return g


def near_pieces(ellipses: Sequence[Ellipse], footprints: np.ndarray, tree: shapely.STRtree,
                parts: Callable[[int], list[np.ndarray]], d: float = COVER_RANGE
                ) -> tuple[np.ndarray, np.ndarray]:
    """(base, piece) index pairs with base i within d of footprint k (exact for discs and
    ovals), from one tree query: pieces far from every base cost nothing. `parts(k)`: footprint
    k's convex pieces (for the exact oval distance in the band where it matters)."""
    n = len(ellipses)
    if n == 0 or len(footprints) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    arr = np.array([(e.cx, e.cy, e.a, e.b) for e in ellipses], dtype=float).reshape(n, 4)
    pts = shapely.points(arr[:, 0], arr[:, 1])
    lim = d + TOLERANCE
    ii, kk = tree.query(pts, predicate="dwithin", distance=lim + arr[:, 2] + QUERY_MARGIN)
    cd = np.asarray(shapely.distance(pts[ii], footprints[kk]), dtype=float)
    sure = cd - arr[ii, 3] <= lim  # even the inscribed disc is within d
    maybe = np.nonzero((cd - arr[ii, 2] <= lim) & ~sure)[0]
    if len(maybe):  # ovals: inscribed and circumscribed 64-gons bracket the distance
        gons = [(ellipses[int(i)].polygon(64), ellipses[int(i)].polygon(64, outer=True))
                for i in ii[maybe]]
        far = np.asarray(shapely.distance([g[0] for g in gons], footprints[kk[maybe]]))
        near = np.asarray(shapely.distance([g[1] for g in gons], footprints[kk[maybe]]))
        sure[maybe[far <= lim]] = True
        maybe = maybe[(far > lim) & (near <= lim)]  # only these sit on the threshold
    if len(maybe):
        rows, polys = [], []
        for r in maybe.tolist():
            for q in parts(int(kk[r])):
                rows.append(r)
                polys.append(q)
        width = max(len(q) for q in polys)
        pad = np.array([np.vstack([q, np.repeat(q[:1], width - len(q), axis=0)]) for q in polys])
        dist = ellipse_convex_distances([ellipses[int(ii[r])] for r in rows], pad)
        best = np.full(len(ii), np.inf)
        np.minimum.at(best, np.array(rows), dist)
        sure[maybe] = best[maybe] <= lim
    return ii[sure].astype(np.int64), kk[sure].astype(np.int64)


def pair_distances(a: Sequence[Ellipse], b: Sequence[Ellipse], upto: float) -> np.ndarray:
    """(na, nb) base-to-base distances, exact where ≤ `upto` (+ slack); elsewhere a lower bound
    that is already > `upto`."""
    ax = np.array([[e.cx, e.cy, e.a, e.b] for e in a]).reshape(-1, 4)
    bx = np.array([[e.cx, e.cy, e.a, e.b] for e in b]).reshape(-1, 4)
    cd = np.hypot(ax[:, None, 0] - bx[None, :, 0], ax[:, None, 1] - bx[None, :, 1])
    lower = np.maximum(0.0, cd - ax[:, None, 2] - bx[None, :, 2])
    discs_a = np.abs(ax[:, 2] - ax[:, 3]) < SAME_AXES
    discs_b = np.abs(bx[:, 2] - bx[:, 3]) < SAME_AXES
    out = lower.copy()
    need = ~(discs_a[:, None] & discs_b[None, :]) & (lower <= upto + TOLERANCE)
    ii, jj = np.nonzero(need)
    if len(ii):
        out[ii, jj] = ellipse_distances([a[int(i)] for i in ii], [b[int(j)] for j in jj])[0]
    return out


# --------------------------------------------------------------------------- high ground cover


def high_ground_cover(bf: Battlefield, attackers: Sequence[Model], targets: Sequence[Model]
                      ) -> Verdict:
    """§7.1.3: may the target unit evade ranged attacks from these attacking models?

    Every target model must have part of its base on high ground (a top of effective size 3+),
    no target may be flying, and at least one attacking model must have no part of its base on
    high ground — a flying attacker never attacks from lower elevation ("part of the base", and
    only attackers that see a target count: docs/rules.md#high-ground-cover)."""
    rule = "7.1.3 high ground cover"
    if not targets:
        return Verdict(False, rule, "no target models")
    if any(t.flying for t in targets):
        return Verdict(False, rule, "flying units never benefit from high ground cover (§7.1.3)")
    off = [t.ref for t in targets if not base_on_high_ground(bf, t)]
    if off:
        return Verdict(False, rule, f"not every target model is on high ground: {', '.join(off)} "
                       f"{'has' if len(off) == 1 else 'have'} no part of the base on high ground",
                       details={"off_high_ground": off})
    lower = [m.ref for m in attackers if not m.flying and not base_on_high_ground(bf, m)]
    if not lower:
        return Verdict(False, rule, "every attacking model is on high ground or flying, so the "
                       "attack does not come from lower elevation", details={"lower": []})
    return Verdict(True, rule, f"every target model stands partly on high ground and "
                   f"{', '.join(lower)} attack{'s' if len(lower) == 1 else ''} from lower "
                   "elevation: the target may evade", details={"lower": lower})
