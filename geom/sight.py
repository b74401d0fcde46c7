"""Line of sight between models, markers, units and armies, exactly, with a witness
(rulebook §7.1, §7.1.1–7.1.4, keywords VISIBLE and HIDDEN, §8.9.1 markers, §8.7.3/§8.7.4 who may
shoot and the casualty cap).

A sees B when some straight segment from a point of A's base to a point of B's base crosses no
piece that blocks for this pair (which pieces block, and why, is `geom.cover`), and neither the
elevation dead zone nor HIDDEN forbids it. The geometric question is answered exactly by
`geom.segments` (finite candidate set; grazing within 1e-6" is not crossing); every visible
verdict carries its witness segment and every blocked one the pieces that block. Pieces that touch
are joined first, so no line slips through a seam (`geom.seams`).

The work is split by what it decides:
- `geom.sight_table.SightContext`: the table prepared once (pieces, obstacles, trees, caches);
- `geom.sight_matrix.sight_matrix`: every pair of two lists at once, on sparse rows;
- `geom.sight_verdict`: the rule, reason and blocking pieces of one pair;
- this module: the questions players ask — one pair, a unit at a unit, an army at an army.

Batch API (for units, armies and surveys): `SightContext(bf).matrix(As, Bs, upto)` returns a
`SightMatrix` with `code`, `visible`, `witness` (na, nb, 2, 2) and `dist` (na, nb); memory is that
output plus sparse (pair, obstacle) rows.

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

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import cover
from .cover import COVER_RANGE
from .model import TOLERANCE, Battlefield, Marker, Model, Unit
from .sight_matrix import BLOCKED, DEAD_ZONE, HIDDEN, VISIBLE, SightMatrix
from .sight_table import SightContext
from .sight_verdict import RULE_CLOSE_QUARTERS, RULE_DEAD_ZONE, RULE_HIDDEN, RULE_LOS
from .verdict import Verdict


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
    """Unit-level sight (rulebook §7.1, §8.7.3, §8.7.4 casualty cap, §7.1.3)."""

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
        blocking, rules = _blocked_summary(m)
        if codes == {HIDDEN}:
            rule = RULE_HIDDEN
        elif codes == {DEAD_ZONE}:
            rule = RULE_DEAD_ZONE
        else:
            rule = "; ".join(sorted(rules))
        first = m.verdict(0, 0) if m.code.size else None
        reason = ("no attacking model sees any target model"
                  + (f"; e.g. {first.reason}" if first is not None else ""))
        return Verdict(False, rule, reason, None, {"blocking": blocking, "visible_models": [],
                                                   "attackers": []})


def _blocked_summary(m: SightMatrix) -> tuple[list[str], set[str]]:
    """The pieces blocking some pair and the rules of the pairs that do not see: the union of
    what each such pair's verdict says (`minimal=False`), with the BLOCKED pairs' pieces found
    in one batch (`SightMatrix.blocked_pieces`)."""
    ii, jj, ks, full = m.blocked_pieces()
    ctx = m.ctx
    blocking = {ctx.piece_ids[int(k)] for k in ks}
    rules: set[str] = set()
    pair = ii * len(m.b) + jj
    for key in np.unique(pair):
        kinds = full[pair == key]
        names = [x for x, there in (("full", kinds.any()), ("direct", (~kinds).any())) if there]
        rules.add("7.1.1 " + " and ".join(names) + " cover")
    for i, j in zip(*np.nonzero(np.isin(m.code, (HIDDEN, DEAD_ZONE))), strict=True):
        v = m.verdict(int(i), int(j), minimal=False)  # HIDDEN or the dead zone: a few reads
        blocking.update(v.details["blocking"])
        rules.add(v.rule)
    return sorted(blocking), rules


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
    return _unit_sight(bf, m, atk, tgt, weapon_range)


def _unit_sight(bf: Battlefield, m: SightMatrix, atk: Sequence[Model | Marker],
                tgt: Sequence[Model | Marker], weapon_range: float | None) -> UnitSight:
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


def enemy_unit_sight(bf: Battlefield, ctx: SightContext | None = None
                     ) -> dict[tuple[str, str], UnitSight]:
    """`unit_sight` for every attacking unit and every enemy target unit, from one matrix per
    pair of armies (the same answers as asking unit by unit, at a fraction of the cost)."""
    ctx = ctx or SightContext(bf)
    out: dict[tuple[str, str], UnitSight] = {}
    for a_owner in sorted({u.owner for u in bf.units}):
        mine = [u for u in bf.units if u.owner == a_owner]
        theirs = [u for u in bf.units if u.owner != a_owner]
        atk = [m for u in mine for m in u.models]
        tgt = [m for u in theirs for m in u.models]
        if not atk or not tgt:
            continue
        whole = ctx.matrix(atk, tgt, upto=0.0)
        rows = _index_by_unit(atk)
        cols = _index_by_unit(tgt)
        for u in mine:
            for v in theirs:
                m = whole.sub(rows[u.id], cols[v.id])
                out[(u.id, v.id)] = _unit_sight(bf, m, list(u.models), list(v.models), None)
    return out


def _index_by_unit(models: Sequence[Model]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, m in enumerate(models):
        out.setdefault(m.unit, []).append(i)
    return out


def army_sight(bf: Battlefield, a_owner: str, b_owner: str,
               ctx: SightContext | None = None) -> SightMatrix:
    """Every model of one army looking at every model of the other."""
    ctx = ctx or SightContext(bf)
    ma = [m for m in bf.models() if m.owner == a_owner]
    mb = [m for m in bf.models() if m.owner == b_owner]
    return ctx.matrix(ma, mb)


__all__ = ["BLOCKED", "COVER_RANGE", "DEAD_ZONE", "HIDDEN", "RULE_CLOSE_QUARTERS",
           "RULE_DEAD_ZONE", "RULE_HIDDEN", "RULE_LOS", "VISIBLE", "SightContext", "SightMatrix",
           "UnitSight", "army_sight", "enemy_unit_sight", "line_of_sight", "sees", "unit_sight"]
