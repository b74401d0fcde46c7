"""Line of sight between models, markers, units and armies, exactly, with a witness
(GEOMETRY-RULES §4; rulebook §7.1, §7.1.1–7.1.4, keywords VISIBLE and HIDDEN, §8.9.1 markers,
§8.7.3/§8.7.4 who may shoot and the casualty cap).

A sees B when some straight segment from a point of A's base to a point of B's base crosses no
piece that blocks for this pair (which pieces block, and why, is `geom.cover`), and neither the
elevation dead zone nor HIDDEN forbids it. The geometric question is answered exactly by
`geom.segments` (finite candidate set; grazing within 1e-6" is not crossing); every visible
verdict carries its witness segment and every blocked one the pieces that block.

Decision — touching pieces: two pieces that both block for the pair and touch (footprints within
2e-6") are joined before the geometric test, so a line cannot slip through the zero-width seam
between, say, the separate sections of one long official wall (FAQ). Pieces that do not touch
keep their gaps, however narrow: a 0.1" gap between two walls lets a line through.

Many questions at once: `SightContext` prepares the table once (effective sizes, shrunk and
prepared footprints, seams, an STRtree); `SightContext.matrix(As, Bs)` answers every pair of two
model lists with shared work: vectorised cover masks over (pair × piece), one vectorised
centre-line test for all pairs, and the exact search only for the pairs whose centre line is
stopped. `unit_sight` adds the unit-level answers of §4 (visible target models, attacking models,
weapon range, high ground cover).

>>> from geom.model import Battlefield, Table, TerrainPiece, Model, Base
>>> from shapely.geometry import box
>>> wall = TerrainPiece("wall", 5, box(12, 0, 13, 20))
>>> hill = TerrainPiece("hill", 4, box(0, 0, 9, 20), standable=True)
>>> bf = Battlefield(Table(54, 36), (wall, hill))
>>> def m(i, x, y, s=2): return Model.make(i, unit="u" + i, owner="red", at=(x, y),
...                                        base=Base.from_mm(32), size=s)
>>> v = line_of_sight(bf, m("a", 5, 10), m("b", 20, 10))   # Size 2 on Size 4 over a Size-5 wall
>>> v.ok, v.rule
(True, '7.1 line of sight')
>>> v = line_of_sight(bf, m("a", 10.5, 10), m("b", 20, 10, s=1))  # ground level: full cover
>>> v.ok, v.rule, v.details["blocking"]
(False, '7.1.1 full cover', ['wall'])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from shapely import STRtree
from shapely.geometry.base import BaseGeometry

from . import cover
from .cover import CLOSE_QUARTERS, COVER_RANGE, HIDDEN_RANGE, Viewer
from .model import TOLERANCE, Battlefield, Marker, Model, Unit
from .segments import PreparedObstacles, convex_parts, search_clear_segment, separated_pairs
from .verdict import Verdict

VISIBLE, HIDDEN, DEAD_ZONE, BLOCKED = 0, 1, 2, 3
RULE_LOS = "7.1 line of sight"
RULE_HIDDEN = "HIDDEN"
RULE_DEAD_ZONE = "7.1.1 elevation dead zone"
RULE_CLOSE_QUARTERS = "7.1.1 close quarters"


def _closing(a: BaseGeometry, b: BaseGeometry) -> BaseGeometry:
    """a ∪ b with seams narrower than 2·TOLERANCE filled."""
    grow = shapely.union(shapely.buffer(a, 2 * TOLERANCE, join_style="mitre"),
                         shapely.buffer(b, 2 * TOLERANCE, join_style="mitre"))
    return shapely.buffer(grow, -2 * TOLERANCE, join_style="mitre")


class SightContext:
    """A battlefield prepared for many sight questions. Holds no state beyond caches of
    answers that depend only on the battlefield it was built from."""

    def __init__(self, bf: Battlefield) -> None:
        self.bf = bf
        self.pieces = bf.terrain
        self.piece_ids = [p.id for p in self.pieces]
        k = len(self.pieces)
        self.piece_eff = np.array([float(cover.piece_effective_size(bf, p)) for p in self.pieces]
                                  ).reshape(k)
        self.blockable = np.array([cover.can_block(p) for p in self.pieces], dtype=bool).reshape(k)
        # §7.1: the footprint is the outermost edge; gaps, windows and open interiors block
        self.footprints = [cover.outer_footprint(p.footprint) for p in self.pieces]
        self.footprint_parts = [convex_parts(g) for g in self.footprints]
        polys = list(self.footprints)
        members: list[tuple[int, ...]] = [(i,) for i in range(k)]
        if k > 1:
            tree = STRtree(polys)
            left, right = tree.query(polys, predicate="dwithin", distance=2 * TOLERANCE)
            for i, j in zip(left.tolist(), right.tolist(), strict=True):
                if i < j and self.blockable[i] and self.blockable[j]:
                    polys.append(_closing(polys[i], polys[j]))
                    members.append((i, j))
        self.obstacles = PreparedObstacles.build(polys)
        self.members = [members[o.index] for o in self.obstacles.items]
        m = np.zeros((len(self.members), k), dtype=np.int32)
        for r, mem in enumerate(self.members):
            m[r, list(mem)] = 1
        self.member_matrix = m
        self.member_count = m.sum(axis=1)
        self.tree = STRtree(self.obstacles.tests) if len(self.members) else None
        self._viewers: dict[Model | Marker, Viewer] = {}

    # ------------------------------------------------------------------ per object

    def viewer(self, obj: Model | Marker) -> Viewer:
        v = self._viewers.get(obj)
        if v is None:
            v = cover.viewer(self.bf, obj)
            self._viewers[obj] = v
        return v

    def _stack_mask(self, vs: Sequence[Viewer]) -> np.ndarray:
        idx = {pid: i for i, pid in enumerate(self.piece_ids)}
        out = np.zeros((len(vs), len(self.piece_ids)), dtype=bool)
        for r, v in enumerate(vs):
            for pid in v.stack:
                out[r, idx[pid]] = True
        return out

    # ------------------------------------------------------------------ all pairs

    def matrix(self, a: Sequence[Model | Marker], b: Sequence[Model | Marker],
               upto: float = HIDDEN_RANGE) -> SightMatrix:
        """Sight from every object of `a` to every object of `b` (HIDDEN is the one rule that
        depends on the direction: a hidden object of `b` beyond 4" is not seen).
        `upto`: pair distances are exact at least up to this (for weapon ranges)."""
        va = [self.viewer(x) for x in a]
        vb = [self.viewer(x) for x in b]
        na, nb, k = len(va), len(vb), len(self.piece_ids)
        near_a = cover.near_matrix([v.ellipse for v in va], self.footprints,
                                   parts=self.footprint_parts)
        near_b = cover.near_matrix([v.ellipse for v in vb], self.footprints,
                                   parts=self.footprint_parts)
        stack_a, stack_b = self._stack_mask(va), self._stack_mask(vb)
        eff_a = np.array([v.effective for v in va], dtype=float).reshape(na)
        eff_b = np.array([v.effective for v in vb], dtype=float).reshape(nb)
        dist = cover.pair_distances([v.ellipse for v in va], [v.ellipse for v in vb],
                                    max(upto, HIDDEN_RANGE, CLOSE_QUARTERS))
        cq = dist <= CLOSE_QUARTERS + TOLERANCE
        full, direct = cover.cover_masks(self.piece_eff, self.blockable, eff_a, eff_b, near_a,
                                         near_b, stack_a, stack_b, cq)
        block = full | direct  # (na, nb, k)

        # dead zone: high model, ground model within 1" of a piece P of the high model's stack,
        # unless close quarters lifts it for P (the high model also within 1" of P, and the two
        # within 3") — a top may overhang the hill under it, so "near P" is not assumed
        high_a = np.array([v.level == cover.HIGH for v in va], dtype=bool).reshape(na)
        high_b = np.array([v.level == cover.HIGH for v in vb], dtype=bool).reshape(nb)
        gnd_a = np.array([v.level == "ground" for v in va], dtype=bool).reshape(na)
        gnd_b = np.array([v.level == "ground" for v in vb], dtype=bool).reshape(nb)

        def meets(x: np.ndarray, y: np.ndarray) -> np.ndarray:
            return (x.astype(np.int32) @ y.T.astype(np.int32)) > 0

        zone_a = meets(stack_a & ~near_a, near_b) | (meets(stack_a & near_a, near_b) & ~cq)
        zone_b = meets(near_a, stack_b & ~near_b) | (meets(near_a, stack_b & near_b) & ~cq)
        dead = ((high_a[:, None] & gnd_b[None, :] & zone_a)
                | (gnd_a[:, None] & high_b[None, :] & zone_b))
        hid_b = np.array([v.hidden for v in vb], dtype=bool).reshape(nb)
        hidden = hid_b[None, :] & (dist > HIDDEN_RANGE + TOLERANCE)

        code = np.full((na, nb), VISIBLE, dtype=np.int8)
        code[dead] = DEAD_ZONE
        code[hidden] = HIDDEN
        witness = np.full((na, nb, 2, 2), np.nan)
        between: dict[tuple[int, int], tuple[int, ...]] = {}

        # obstacles (pieces and joined seams) that block for each pair
        nobs = len(self.members)
        if nobs:
            flat = block.reshape(na * nb, k).astype(np.int32)
            oblock = ((flat @ self.member_matrix.T) == self.member_count[None, :]).reshape(
                na, nb, nobs)
        else:
            oblock = np.zeros((na, nb, 0), dtype=bool)
        todo = code == VISIBLE
        ca = np.array([[v.ellipse.cx, v.ellipse.cy] for v in va]).reshape(na, 2)
        cb = np.array([[v.ellipse.cx, v.ellipse.cy] for v in vb]).reshape(nb, 2)
        centre = np.stack(np.broadcast_arrays(ca[:, None, :], cb[None, :, :]), axis=2)

        any_block = oblock.any(axis=2) & todo
        free = todo & ~any_block
        witness[free] = centre[free]
        ii, jj = np.nonzero(any_block)
        if len(ii):
            segs = centre[ii, jj]
            assert self.tree is not None
            si, oi = self.tree.query(shapely.linestrings(segs), predicate="intersects")
            stopped = np.zeros(len(ii), dtype=bool)
            if len(si):
                real = oblock[ii[si], jj[si], oi]
                stopped[si[real]] = True
            ok = ~stopped
            witness[ii[ok], jj[ok]] = segs[ok]
            si_, sj_ = ii[stopped], jj[stopped]
            apart = dist[si_, sj_] > 1e-9
            quick = np.zeros(len(si_), dtype=bool)
            quick[apart] = separated_pairs([va[i].ellipse for i in si_[apart]],
                                           [vb[j].ellipse for j in sj_[apart]], self.obstacles,
                                           oblock[si_[apart], sj_[apart]])
            code[si_[quick], sj_[quick]] = BLOCKED
            tried = np.zeros((na, nb), dtype=bool)
            tried[si_[apart], sj_[apart]] = True
            for i, j in zip(si_[~quick].tolist(), sj_[~quick].tolist(), strict=True):
                res = search_clear_segment(va[i].ellipse, vb[j].ellipse, self.obstacles,
                                           mask=oblock[i, j], quick_proof=not tried[i, j])
                between[(i, j)] = res.between
                if res.witness is None:
                    code[i, j] = BLOCKED
                else:
                    witness[i, j] = np.array(res.witness)
        return SightMatrix(self, va, vb, code, witness, dist, near_a, near_b, full, direct, cq,
                           between)

    def line_of_sight(self, a: Model | Marker, b: Model | Marker) -> Verdict:
        return self.matrix([a], [b]).verdict(0, 0)


@dataclass
class SightMatrix:
    """Answers for every pair (i, j): object i of `a` looking at object j of `b`."""

    ctx: SightContext
    a: list[Viewer]
    b: list[Viewer]
    code: np.ndarray  # VISIBLE | HIDDEN | DEAD_ZONE | BLOCKED
    witness: np.ndarray  # (na, nb, 2, 2), NaN where not visible
    dist: np.ndarray
    near_a: np.ndarray
    near_b: np.ndarray
    full: np.ndarray
    direct: np.ndarray
    cq: np.ndarray
    between: dict[tuple[int, int], tuple[int, ...]] = field(default_factory=dict)

    @property
    def visible(self) -> np.ndarray:
        return self.code == VISIBLE

    # ------------------------------------------------------------------ explanations

    def _kind(self, i: int, j: int, k: int) -> str | None:
        if self.full[i, j, k]:
            return "full"
        if self.direct[i, j, k]:
            return "direct"
        return None

    def _why(self, i: int, j: int, k: int) -> str:
        """Why piece k blocks for the pair (a sentence fragment)."""
        ctx, va, vb = self.ctx, self.a[i], self.b[j]
        pid, e = ctx.piece_ids[k], _num(ctx.piece_eff[k])
        if self.full[i, j, k]:
            return (f"{pid} gives full cover (effective size {e} ≥ {_num(va.effective)} of "
                    f"{va.ref} and ≥ {_num(vb.effective)} of {vb.ref})")
        who = [v for v, n in ((va, self.near_a[i, k]), (vb, self.near_b[j, k]))
               if n and ctx.piece_eff[k] >= v.effective]
        names = " and ".join(f"{v.ref} is within 1\" of it and its effective size {e} ≥ "
                             f"{_num(v.effective)}" for v in who)
        return f"{pid} gives direct cover ({names})"

    def _why_not(self, i: int, j: int, k: int) -> str:
        """Why piece k, crossed by a line, does not block for the pair."""
        ctx, va, vb = self.ctx, self.a[i], self.b[j]
        p, pid = ctx.pieces[k], ctx.piece_ids[k]
        for v in (va, vb):
            if pid in v.stack:
                return f"{pid}, the top {v.ref} stands on (or under it), which never blocks its sight (§7.1.2)"
        if not ctx.blockable[k] or ctx.piece_eff[k] <= 0:
            return f"{pid} is Size {p.size} and does not block"
        e = _num(ctx.piece_eff[k])
        if self.near_a[i, k] and self.near_b[j, k] and self.cq[i, j]:
            return (f"{pid}: close quarters — both models are within 1\" of it and within 3\" "
                    "of each other, so it gives no direct cover")
        taller = [v for v in (va, vb) if v.effective > ctx.piece_eff[k]]
        tall = " and ".join(f"{v.ref} (effective size {_num(v.effective)})" for v in taller)
        nears = [v for v, n in ((va, self.near_a[i, k]), (vb, self.near_b[j, k])) if n]
        if nears:
            near = " and ".join(v.ref for v in nears)
            return (f"{pid} (effective size {e}): no full cover, as {tall} is taller; {near} "
                    "within 1\" of it but taller than it, so no direct cover")
        return (f"{pid} (effective size {e}): no full cover, as {tall} is taller; no direct "
                "cover, as neither model is within 1\" of it")

    def blocking(self, i: int, j: int) -> list[str]:
        """Ids of the pieces that block for the pair and stand between the two bases."""
        ctx = self.ctx
        ids: list[int] = []
        if (i, j) not in self.between and self.code[i, j] == BLOCKED:
            # decided by the batched quick proof: ask the search which pieces stand between
            mask = np.array([all(self._kind(i, j, k) for k in mem) for mem in ctx.members],
                            dtype=bool).reshape(len(ctx.members))
            self.between[(i, j)] = search_clear_segment(self.a[i].ellipse, self.b[j].ellipse,
                                                        ctx.obstacles, mask=mask).between
        for o in self.between.get((i, j), ()):
            for k in ctx.members[_row(ctx, o)]:
                if k not in ids and self._kind(i, j, k):
                    ids.append(k)
        return [ctx.piece_ids[k] for k in sorted(ids)]

    def verdict(self, i: int, j: int, minimal: bool = True) -> Verdict:
        """The verdict for pair (i, j) with rule, reason, witness and blocking pieces.
        `minimal`: for a blocked pair, name an irreducible set of pieces that together stop
        every line (each dropped piece is re-checked with the exact search)."""
        va, vb = self.a[i], self.b[j]
        code = int(self.code[i, j])
        d = float(self.dist[i, j])
        details: dict[str, Any] = {"blocking": [], "distance": d}
        if code == HIDDEN:
            return Verdict(False, RULE_HIDDEN, f"{vb.ref} is HIDDEN and {d:.2f}\" from {va.ref}, "
                           "more than 4\": it is not visible whatever the sight", None, details)
        if code == DEAD_ZONE:
            high, low = (va, vb) if va.level == cover.HIGH else (vb, va)
            close = bool(self.cq[i, j])
            pid = cover.dead_zone_piece(self.ctx.bf, high, low, close)
            details["blocking"] = [pid] if pid else []
            top = high.stack[0] if high.stack else pid
            on = top if top == pid else f"{top} (stacked on {pid})"
            why = (f"{high.ref} is not within 1\" of {pid}" if close
                   else f"{d:.2f}\" apart, more than 3\"")
            return Verdict(False, RULE_DEAD_ZONE,
                           f"{high.ref} is on high ground on {on} and {low.ref} is at ground "
                           f"level within 1\" of the foot of {pid}; "
                           f"not close quarters ({why}): neither sees the other", None, details)
        if code == BLOCKED:
            ids = self._minimal(i, j) if minimal else self.blocking(i, j)
            kinds = {self._kind(i, j, self.ctx.piece_ids.index(pid)) for pid in ids}
            rule = "7.1.1 " + " and ".join(x for x in ("full", "direct") if x in kinds) + " cover"
            whys = "; ".join(self._why(i, j, self.ctx.piece_ids.index(pid)) for pid in ids)
            together = "together stop" if len(ids) > 1 else "stops"
            details["blocking"] = ids
            return Verdict(False, rule, f"{va.ref} does not see {vb.ref}: every line from base to "
                           f"base crosses a piece that blocks for this pair — {whys}; "
                           f"{'these' if len(ids) > 1 else 'it'} {together} every line.",
                           None, details)
        w = self.witness[i, j]
        seg = ((float(w[0, 0]), float(w[0, 1])), (float(w[1, 0]), float(w[1, 1])))
        crossed = self._crossed(seg)
        notes = [self._why_not(i, j, k) for k in crossed]
        rule = RULE_LOS
        under = set(va.stack) | set(vb.stack)
        if any(self.near_a[i, k] and self.near_b[j, k] and self.cq[i, j]
               and self.ctx.blockable[k] and self.ctx.piece_ids[k] not in under
               for k in crossed):
            rule = RULE_CLOSE_QUARTERS
        lifted = None
        if self.cq[i, j]:
            for high, low in ((va, vb), (vb, va)):
                for pid, _ in cover.dead_zone_pieces(self.ctx.bf, high, low):
                    lifted = lifted or pid
        if lifted:
            rule = RULE_CLOSE_QUARTERS
            notes.append(f"close quarters: the models are within 3\" of each other, so the "
                         f"elevation dead zone of {lifted} does not apply")
        details["blocking"] = self.blocking(i, j)
        line = f"({seg[0][0]:.3f}, {seg[0][1]:.3f})–({seg[1][0]:.3f}, {seg[1][1]:.3f})"
        if notes:
            reason = (f"{va.ref} sees {vb.ref}: the line {line} crosses no piece that blocks for "
                      f"this pair; " + ("it crosses " if crossed else "") + "; ".join(notes) + ".")
        else:
            reason = f"{va.ref} sees {vb.ref}: the line {line} crosses no terrain."
        if details["blocking"]:
            reason += (" It passes beside " + ", ".join(details["blocking"])
                       + ", which would block for this pair.")
        return Verdict(True, rule, reason, seg, details)

    def _crossed(self, seg: tuple[tuple[float, float], tuple[float, float]]) -> list[int]:
        """Pieces whose interior (shrunk by the tolerance) the segment enters."""
        ctx = self.ctx
        if not ctx.pieces or seg[0] == seg[1]:
            return []
        line = shapely.linestrings([seg[0], seg[1]])
        out = []
        for r, o in enumerate(ctx.obstacles.items):
            if len(ctx.members[r]) == 1 and shapely.intersects(line, o.test):
                out.append(ctx.members[r][0])
        return sorted(out)

    def _minimal(self, i: int, j: int) -> list[str]:
        ctx = self.ctx
        keep = [ctx.piece_ids.index(p) for p in self.blocking(i, j)]
        # try dropping direct cover first, then the lower pieces: the reason names the strongest
        order = sorted(keep, key=lambda k: (self.full[i, j, k], ctx.piece_eff[k]))
        for k in order:
            trial = [x for x in keep if x != k]
            if self._blocked_by(i, j, trial):
                keep = trial
        return [ctx.piece_ids[k] for k in sorted(keep)]

    def _blocked_by(self, i: int, j: int, pieces: list[int]) -> bool:
        ctx = self.ctx
        s = set(pieces)
        mask = np.array([set(mem) <= s for mem in ctx.members], dtype=bool).reshape(
            len(ctx.members))
        res = search_clear_segment(self.a[i].ellipse, self.b[j].ellipse, ctx.obstacles,
                                   mask=mask)
        return res.witness is None


def _row(ctx: SightContext, input_index: int) -> int:
    for r, o in enumerate(ctx.obstacles.items):
        if o.index == input_index:
            return r
    raise KeyError(input_index)


def _num(x: float) -> str:
    if math.isinf(x):
        return "above all terrain (flying)"
    return f"{x:g}"


# --------------------------------------------------------------------------- public helpers


def line_of_sight(bf: Battlefield, a: Model | Marker, b: Model | Marker,
                  ctx: SightContext | None = None) -> Verdict:
    """Does `a` see `b`? `b` (or `a`) may be a mission marker (a Size-0 object, §8.9.1).

    `details["blocking"]`: ids of the pieces that block for this pair between them (for a
    blocked pair: an irreducible set that stops every line); the witness is the sight line."""
    return (ctx or SightContext(bf)).line_of_sight(a, b)


def sees(bf: Battlefield, a: Model | Marker, b: Model | Marker,
         ctx: SightContext | None = None) -> bool:
    return line_of_sight(bf, a, b, ctx).ok


@dataclass
class UnitSight:
    """Unit-level sight (GEOMETRY-RULES §4 "Unit level", §7.1.3)."""

    matrix: SightMatrix
    visible: bool
    visible_models: list[str]  # target model refs seen by some attacking model (casualty cap)
    attackers: list[str]  # attacking model refs seeing a target model (within range if given)
    high_ground_cover: Verdict
    weapon_range: float | None

    def verdict(self) -> Verdict:
        m = self.matrix
        if self.visible:
            i, j = np.argwhere(m.visible)[0]
            v = m.verdict(int(i), int(j))
            n = len(self.visible_models)
            reason = (f"{n} target model{'s' if n != 1 else ''} visible "
                      f"({', '.join(self.visible_models)}); e.g. {v.reason}")
            return Verdict(True, v.rule, reason, v.witness, {**v.details,
                           "visible_models": self.visible_models, "attackers": self.attackers})
        codes = {int(c) for c in m.code.ravel()}
        blocking = sorted({p for i in range(len(m.a)) for j in range(len(m.b))
                           for p in m.verdict(i, j, minimal=False).details["blocking"]})
        if codes == {HIDDEN}:
            rule = RULE_HIDDEN
        elif codes == {DEAD_ZONE}:
            rule = RULE_DEAD_ZONE
        else:
            rules = {m.verdict(i, j, minimal=False).rule for i in range(len(m.a))
                     for j in range(len(m.b))}
            rule = "; ".join(sorted(rules))
        first = m.verdict(0, 0) if m.code.size else None
        reason = ("no attacking model sees any target model"
                  + (f"; e.g. {first.reason}" if first is not None else ""))
        return Verdict(False, rule, reason, None, {"blocking": blocking, "visible_models": [],
                                                   "attackers": []})


def unit_sight(bf: Battlefield, attacker: Unit | Sequence[Model], target: Unit | Marker | Model
               | Sequence[Model], weapon_range: float | None = None,
               ctx: SightContext | None = None) -> UnitSight:
    """Which target models the attacking unit sees (they cap casualties, §8.7.4), which attacking
    models see a target model — within `weapon_range` of a visible target model when given
    (§8.7.3) — and whether the target may evade for high ground cover (§7.1.3)."""
    ctx = ctx or SightContext(bf)
    atk = list(attacker.models) if isinstance(attacker, Unit) else list(attacker)
    if isinstance(target, Unit):
        tgt: list[Model | Marker] = list(target.models)
    elif isinstance(target, Model | Marker):
        tgt = [target]
    else:
        tgt = list(target)
    m = ctx.matrix(atk, tgt, upto=weapon_range or 0.0)
    vis = m.visible
    visible_models = [tgt[j].ref for j in range(len(tgt)) if vis[:, j].any()]
    ok = vis.copy()
    if weapon_range is not None:
        ok &= m.dist <= weapon_range + TOLERANCE
    attackers = [atk[i].ref for i in range(len(atk)) if ok[i].any()]
    models = [x for x in atk if isinstance(x, Model)]
    shooters = [x for x in models if x.ref in attackers] or models
    targets = [t for t in tgt if isinstance(t, Model)]
    hgc = cover.high_ground_cover(bf, shooters, targets)
    return UnitSight(m, bool(vis.any()), visible_models, attackers, hgc, weapon_range)


def army_sight(bf: Battlefield, a_owner: str, b_owner: str,
               ctx: SightContext | None = None) -> SightMatrix:
    """Every model of one army looking at every model of the other."""
    ctx = ctx or SightContext(bf)
    ma = [m for m in bf.models() if m.owner == a_owner]
    mb = [m for m in bf.models() if m.owner == b_owner]
    return ctx.matrix(ma, mb)


__all__ = ["SightContext", "SightMatrix", "UnitSight", "army_sight", "line_of_sight", "sees",
           "unit_sight", "COVER_RANGE"]
