"""The legal ends of a charge as exact end sets (rulebook §8.7.7 step 3, §7.2, §7.2.1, §8.5.3).

For each surface the leading model could end on (the mat, and every top near enough to the
targets) the legal centres are an `geom.paths._endset.EndSet`:

(Which conditions a charge's end meets: docs/rules.md#charge-targets.)

- *engaged with every declared target*: one include group per target unit, holding one shape
  per ground model of it. In the open the centres at which two bases are within 1" form a disc
  (two disc bases: radius R + 1" + r) or a convex curve (an oval involved: the Minkowski sum of
  the two bases and a 1" disc) — exact. Where Size-2+ terrain comes within 1" of the target
  model, the centres that some clear segment of ≤1" reaches are built as polygons: an inner
  one (rim samples, closed shadows, inscribed arcs: every point truly engaged) and an outer one
  (blockers eroded by the rim sample spacing Δ, the result grown by Δ, circumscribed arcs:
  every engaged centre is inside), refined on demand (`level`);
- *a mid-ground model and a model at another elevation engage only through an access point
  both bases touch*: an extra include group (the access point grown by the mover's base);
- *on the table*: the box; *on a top*: the top's area (not under a higher top);
- *overlapping nothing*: every footprint but the top's own stack (and GRASS, and for a LARGE
  unit the Size-0/1 pieces it removes: `geom.movement._destroyed`) grown by the base,
  and every other unit's base, excluded (open: touching is fine);
- *not within 1" of an undeclared enemy ground model*: its 1" zone excluded (closed: exactly
  1" is within range).

Every end offered by a search is re-checked by `geom.movement._charge_region.check_end`, which shares no
code with these shapes.

**GRASS the charge tramples (keyword GRASS, the round-2 worked example).** GRASS the leading
model's path crosses, or its base ends on, is gone at once, so it no longer stands between the
end and a target. For each set S of the GRASS pieces within 1" of a target model (all subsets
of up to `GRASS_SUBSETS_MAX` pieces; beyond that each piece alone and all of them), the ends
are built again on the table without S, and such an end set `assumes` S: a search offers its
ends together with the path reaching each, and an end counts only when that path's base sweeps
every piece of S (`geom.movement._destroyed`). Where such an end can lie (`EndSet.extra`, `EndSet.rays`):
on the boundary of the set itself; where the base starts to overlap a piece of S (ending on it
destroys it); and on a last leg that grazes the region the centre must cross to trample it
(tangent to its corner circles) — the shortest path to a set whose ends all need S crossed is
of one of these kinds, so the answer is exact. The ends overlap a trampled piece by
`TRAMPLE_DEPTH` (2e-6"), more than the tolerance: touching grass does not destroy it, so the
distance found is at most a few millionths of an inch above the infimum. Not covered: a leg that
must graze two pieces of S at once (the answer may then be longer than the shortest); graze legs
are built for disc bases only (an oval's shortest such charge may likewise be longer).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import shapely
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry

from .. import bases
from ..elevation import GROUND, HIGH, MID, elevation_level, piece_effective_size, standing_piece
from ..engagement import ENGAGEMENT_RANGE, obstacle_shape, stack_ids, surface_size, terrain_blockers
from ..model import Battlefield, Ellipse, Model, TerrainPiece, Unit
from ..paths import Arr, Curve, Disc, EndSet, Framed, Grown, Shape
from ..tolerance import HALO_MARGIN, ROUNDING_RELATIVE, TOLERANCE
from ._centre_zones import QUAD_SEGS, base_shape, grow, mover_base, reach_past
from ._charge_region import (
    RIM_SAMPLES,
    Surface,
    reachable_tops,
    surface_level,
    top_area,
    undeclared_models,
)
from ._destroyed import ends_over, without
from ._end_position import may_overlap, pieces_under

MAX_LEVEL = 3  # refinements of the polygons that approximate engagement behind terrain
GRASS_SUBSETS_MAX = 3  # GRASS pieces near the targets whose every subset is tried
TRAMPLE_DEPTH = 2e-6  # how far an end (or a grazing leg) overlaps GRASS it counts on trampling


@dataclass(frozen=True)
class ChargeEnds:
    """The end sets of one leading model's charge. `inner` holds legal ends only (up to the
    exact re-check); `outer` holds every legal end (None: `inner` is exact). `surfaces[i]` is
    the top (or None, the mat) of end set i."""

    inner: list[EndSet]
    outer: list[EndSet] | None
    surfaces: list[str | None]

    @property
    def exact(self) -> bool:
        return self.outer is None

    @property
    def tramples(self) -> bool:
        """Do some ends need GRASS trampled by the path reaching them?"""
        return any(es.assumes for es in self.inner)


def base_reach(mover: Ellipse, other: Ellipse, centre: tuple[float, float], d: float) -> Shape:
    """Centres at which the mover's base comes within d of `other` (closed; exact)."""
    if mover.is_disc and other.is_disc:
        return Disc(centre[0], centre[1], other.a + mover.a + d)
    return Curve.around(centre, [Ellipse(0, 0, other.a, other.b, other.theta), mover], d)


def grown_by_base(core: BaseGeometry, K: Ellipse, d: float = 0.0) -> Shape:
    """Centres at which the base K comes within d of `core` (exact)."""
    if K.is_disc:
        return Grown(core, K.a + d)
    if d:
        core = core.buffer(d, quad_segs=64)  # only used for d = 0 in practice
    return Framed(core, K)


def _blockers(bf: Battlefield, top: Surface, target: Model) -> list[Polygon]:
    """Size-2+ pieces (as polygons, clipped near the target) that can stop a ≤1" segment."""
    te = target.ellipse
    halo = base_shape(te, outer=True).buffer(ENGAGEMENT_RANGE + HALO_MARGIN, quad_segs=QUAD_SEGS)
    floor = min(0 if top is None else piece_effective_size(bf, top), surface_size(bf, target))
    exclude = stack_ids(bf, target) | pieces_under(bf, top)
    out: list[Polygon] = []
    for p in terrain_blockers(bf, exclude, floor):
        shape = obstacle_shape(p)
        if not shape.intersects(halo):
            continue
        for part in getattr(shape.intersection(halo), "geoms", [shape.intersection(halo)]):
            if isinstance(part, Polygon) and part.area > 0:
                out.append(part)
    return out


def _shadowed(te: Ellipse, K: Ellipse, blockers: list[Polygon], level: int, outer: bool
              ) -> BaseGeometry:
    """Centres engaged with a target behind terrain, as a polygon (see the module docstring)."""
    n = RIM_SAMPLES * 4 ** level
    q = QUAD_SEGS * 2 ** level
    rim = bases.boundary_points(te, np.linspace(0, 2 * math.pi, n, endpoint=False))
    if not outer:
        return grow(reach_past(rim, blockers, ENGAGEMENT_RANGE, q), K, quad_segs=q)
    # any rim point is within Δ of a sample; a segment clear of the blockers, moved by ≤ Δ,
    # stays clear of the blockers shrunk by Δ
    delta = 2 * math.pi * te.a / n
    eroded = [g for b in blockers for g in getattr(b.buffer(-delta * (1 + ROUNDING_RELATIVE)), "geoms",
                                                   [b.buffer(-delta * (1 + ROUNDING_RELATIVE))])
              if isinstance(g, Polygon) and not g.is_empty]
    vis = reach_past(rim, eroded, ENGAGEMENT_RANGE, q, outer=True)
    return grow(vis, K, delta, outer=True, quad_segs=q)


@dataclass(frozen=True)
class TargetZone:
    """One target model's engagement zone: exact shape, or inner and outer polygons; plus the
    access points both bases must touch (mid ground and another level), if any."""

    inner: Shape
    outer: Shape | None
    access: list[Shape] | None


def target_zone(bf: Battlefield, mover: Model, target: Model, top: Surface, level: int
          ) -> TargetZone | None:
    if target.flying or mover.flying:
        return None
    K = mover_base(mover)
    lm, lt = surface_level(bf, top), elevation_level(bf, target)
    if {lm, lt} == {GROUND, HIGH}:
        return None  # high ground never engages ground level (§7.2.1)
    te = target.ellipse
    blockers = _blockers(bf, top, target)
    if blockers:
        zone = TargetZone(Grown(_shadowed(te, K, blockers, level, False), 0.0),
                     Grown(_shadowed(te, K, blockers, level, True), 0.0), None)
    else:
        zone = TargetZone(base_reach(K, te, te.centre, ENGAGEMENT_RANGE), None, None)
    if MID in (lm, lt) and lm != lt:
        # both bases must touch one access point of the mover's or the target's top
        tpiece = standing_piece(bf, target)
        aps = [ap for piece in (top, tpiece) if piece is not None for ap in piece.access_points
               if bases.geometry_meets(te, ap, TOLERANCE)]
        if not aps:
            return None
        zone = TargetZone(zone.inner, zone.outer, [grown_by_base(ap, K) for ap in aps])
    return zone


def grass_near(bf: Battlefield, targets: Sequence[Unit]) -> list[TerrainPiece]:
    """GRASS pieces within 1" of some ground model of a target: the only GRASS that can stand
    between a charge's end and a target (a segment of ≤1" to its base must cross it)."""
    near = [base_shape(m.ellipse, outer=True).buffer(ENGAGEMENT_RANGE + HALO_MARGIN,
                                                      quad_segs=QUAD_SEGS)
            for t in targets for m in t.models if not m.flying]
    if not near:
        return []
    halo = shapely.union_all(near)
    return [p for p in bf.terrain if p.grass and p.footprint.intersects(halo)]


def _subsets(pieces: Sequence[TerrainPiece]) -> list[tuple[TerrainPiece, ...]]:
    n = len(pieces)
    if n <= GRASS_SUBSETS_MAX:
        return [c for k in range(1, n + 1) for c in itertools.combinations(pieces, k)]
    return [(p,) for p in pieces] + [tuple(pieces)]


def _trampled(p: TerrainPiece, K: Ellipse) -> tuple[Shape, Arr]:
    """Centres at which the base K overlaps `p` by TRAMPLE_DEPTH (ending there destroys it),
    and (disc bases) the corner circles of that region, for grazing legs."""
    core = p.footprint.buffer(-TOLERANCE)
    if K.is_disc:
        r = K.a - TRAMPLE_DEPTH
        xy = np.vstack([np.asarray(g.exterior.coords)[:-1, :2]
                        for g in getattr(core, "geoms", [core]) if isinstance(g, Polygon)
                        and not g.is_empty] or [np.zeros((0, 2))])
        return Grown(core, r), np.column_stack((xy, np.full(len(xy), r)))
    small = Ellipse(0.0, 0.0, K.a - TRAMPLE_DEPTH, K.b - TRAMPLE_DEPTH, K.theta)
    return Framed(core, small), np.zeros((0, 3))


def charge_ends(bf: Battlefield, unit: Unit, leader: Model, targets: Sequence[Unit], *,
                level: int = 0, trample: bool = True) -> ChargeEnds:
    """The legal ends of the leading model (see the module docstring); `level` refines the
    polygons of engagement behind terrain. With `trample`, also the ends legal once the
    charge has trampled GRASS near the targets (sets that `assume` it)."""
    plain = _charge_ends(bf, unit, leader, targets, level)
    grass = grass_near(bf, targets) if trample and not unit.flying else []
    if not grass:
        return plain
    K = mover_base(leader)
    inner, outer, surfaces = list(plain.inner), list(plain.outer or plain.inner), \
        list(plain.surfaces)
    exact = plain.exact
    for S in _subsets(grass):
        ids = frozenset(p.id for p in S)
        got = _charge_ends(without(bf, ids), unit, leader, targets, level)
        shapes, circles = zip(*(_trampled(p, K) for p in S), strict=True)
        rays = np.vstack(circles)

        def tag(es: EndSet, ids: frozenset[str] = ids, shapes: tuple[Shape, ...] = shapes,
                rays: Arr = rays) -> EndSet:
            return replace(es, assumes=ids, extra=[*es.extra, *shapes], rays=rays,
                           name=f"{es.name} without {', '.join(sorted(ids))}")

        inner += [tag(es) for es in got.inner]
        outer += [tag(es) for es in (got.outer or got.inner)]
        surfaces += got.surfaces
        exact = exact and got.exact
    return ChargeEnds(inner, None if exact else outer, surfaces)


def _charge_ends(bf: Battlefield, unit: Unit, leader: Model, targets: Sequence[Unit],
                 level: int) -> ChargeEnds:
    """The legal ends on `bf` as it stands (no GRASS trampled)."""
    K = mover_base(leader)
    target_ids = {t.id for t in targets}
    und = undeclared_models(bf, unit, target_ids)
    ex, ey = bases.half_extents(K)
    t = bf.table
    box = (ex, ey, t.width - ex, t.depth - ey)
    inner_sets: list[EndSet] = []
    outer_sets: list[EndSet] = []
    surfaces: list[str | None] = []
    exact = True
    for top in reachable_tops(bf, leader, targets):
        ok = may_overlap(bf, top)
        excl: list[Shape] = [grown_by_base(p.footprint, K) for p in bf.terrain
                             if not ends_over(unit, p) and p.id not in ok]
        excl += [base_reach(K, m.ellipse, m.at, 0.0) for m in bf.models() if m.unit != unit.id]
        closed = [False] * len(excl)
        excl += [base_reach(K, m.ellipse, m.at, ENGAGEMENT_RANGE) for m in und]
        closed += [True] * len(und)
        area = top_area(bf, top)
        base_groups: list[list[Shape]] = [[Grown(area, 0.0)]] if area is not None else []
        # per target: the models' zones; models needing an access point make variants
        per_target: list[list[tuple[list[Shape], list[Shape], list[list[Shape]]]]] = []
        for tu in targets:
            plain_in: list[Shape] = []
            plain_out: list[Shape] = []
            variants: list[tuple[list[Shape], list[Shape], list[list[Shape]]]] = []
            for m in tu.models:
                z = target_zone(bf, leader, m, top, level)
                if z is None:
                    continue
                if z.outer is not None:
                    exact = False
                if z.access is None:
                    plain_in.append(z.inner)
                    plain_out.append(z.outer or z.inner)
                else:
                    variants.append(([z.inner], [z.outer or z.inner], [z.access]))
            if plain_in:
                variants.insert(0, (plain_in, plain_out, []))
            per_target.append(variants)
        if any(not v for v in per_target):
            continue
        for combo in itertools.product(*per_target):
            gin = base_groups + [c[0] for c in combo] + [g for c in combo for g in c[2]]
            gout = base_groups + [c[1] for c in combo] + [g for c in combo for g in c[2]]
            name = top.id if top is not None else "mat"
            inner_sets.append(EndSet(box, gin, excl, closed, name))
            outer_sets.append(EndSet(box, gout, excl, closed, name))
            surfaces.append(top.id if top is not None else None)
    return ChargeEnds(inner_sets, None if exact else outer_sets, surfaces)


def contact_shapes(leader: Model, targets: Sequence[Unit], d: float) -> list[Shape]:
    """Centres at which the leading model's base is within d of some target model (d = 0:
    base contact)."""
    K = mover_base(leader)
    return [base_reach(K, m.ellipse, m.at, d) for tu in targets for m in tu.models
            if not m.flying]


def with_group(ce: ChargeEnds, group: list[Shape]) -> ChargeEnds:
    """The same ends, also inside one of `group`'s shapes."""
    def add(sets: list[EndSet]) -> list[EndSet]:
        return [s.with_group(group) for s in sets]

    return ChargeEnds(add(ce.inner), None if ce.outer is None else add(ce.outer), ce.surfaces)


