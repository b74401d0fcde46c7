"""Line of sight between models, markers, units and armies, exactly, with a witness
(rulebook §7.1, §7.1.1–7.1.4, keywords VISIBLE and HIDDEN, §8.9.1 markers, §8.7.3/§8.7.4 who may
shoot and the casualty cap).

A sees B when some straight segment from a point of A's base to a point of B's base crosses no
piece that blocks for this pair (which pieces block, and why, is `geom.sight._cover`), and neither the
elevation dead zone nor HIDDEN forbids it. The geometric question is answered exactly by
`geom.lines._segments` (finite candidate set; grazing within 1e-6" is not crossing); every visible
verdict carries its witness segment and every blocked one the pieces that block. Pieces that touch
are joined first, so no line slips through a seam (`geom.lines._seams`).

The work is split by what it decides:
- `geom.sight._table.SightContext`: the table prepared once (pieces, obstacles, trees, caches);
- `geom.sight._matrix.sight_matrix`: every pair of two lists at once, on sparse rows;
- `geom.sight._verdict`: the rule, reason and blocking pieces of one pair;
- this module: the questions players ask — one pair, a unit at a unit, an army at an army.

Batch API (for units, armies and surveys): `sight_matrix(SightContext(bf), As, Bs, upto)` returns a
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

from ..model import Battlefield, Marker, Model, Unit
from ..tolerance import TOLERANCE
from ..verdict import Verdict
from . import _cover as cover
from ._matrix import DEAD_ZONE, HIDDEN, SightMatrix, sight_matrix
from ._pair import pair_sight
from ._table import SightContext
from ._verdict import RULE_DEAD_ZONE, RULE_HIDDEN, pair_verdict


def line_of_sight(bf: Battlefield, a: Model | Marker, b: Model | Marker,
                  ctx: SightContext | None = None) -> Verdict:
    """Does `a` see `b`? `b` (or `a`) may be a mission marker (a Size-0 object, §8.9.1).

    `details["blocking"]`: ids of the pieces that block for this pair between them (for a
    blocked pair: an irreducible set that stops every line); the witness is the sight line.

    Parameters
    ----------
    bf : Battlefield
        The table.
    a : Model or Marker
        Who looks.
    b : Model or Marker
        What it looks at.
    ctx : SightContext, optional
        The table prepared for sight; pass one when asking many questions of one table.

    Returns
    -------
    Verdict
        Visible or not, with the rule that decides (7.1 line of sight, 7.1.1 full or direct
        cover, the dead zone, HIDDEN); the witness is a clear line between the bases,
        `details["blocking"]` the pieces in the way and `details["distance"]` the gap.

    Examples
    --------
    A Size-3 wall across half of a 24" x 12" table hides a/1 from b/1, not from b/2:

    >>> from shapely.geometry import box
    >>> from geom import Base, Battlefield, Model, Table, TerrainPiece, line_of_sight
    >>> base = Base.from_mm(32)
    >>> a = Model.make("1", unit="a", owner="red", at=(4, 10), base=base, size=1)
    >>> b1, b2 = (Model.make(i, unit="b", owner="blue", at=(20, y), base=base, size=1)
    ...           for i, y in (("1", 4), ("2", 10)))
    >>> bf = Battlefield(Table(24, 12), (TerrainPiece("wall", 3, box(11, 0, 13, 8)),))
    >>> v = line_of_sight(bf, a, b1)
    >>> v.ok, v.rule, v.details["blocking"]
    (False, '7.1.1 full cover', ['wall'])
    >>> v = line_of_sight(bf, a, b2)
    >>> v.ok, v.rule, v.witness
    (True, '7.1 line of sight', ((4.0, 10.0), (20.0, 10.0)))
    """
    return pair_sight(ctx or SightContext(bf), a, b)


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
            v = pair_verdict(m, int(i), int(j))
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
        first = pair_verdict(m, 0, 0) if m.code.size else None
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
        v = pair_verdict(m, int(i), int(j), minimal=False)  # HIDDEN or the dead zone: a few reads
        blocking.update(v.details["blocking"])
        rules.add(v.rule)
    return sorted(blocking), rules


def unit_sight(bf: Battlefield, attacker: Unit | Sequence[Model], target: Unit | Marker | Model
               | Sequence[Model], weapon_range: float | None = None,
               ctx: SightContext | None = None) -> UnitSight:
    """Which target models the attacking unit sees (they cap casualties, §8.7.4), which attacking
    models see a target model — within `weapon_range` of a visible target model when given
    (§8.7.3) — and whether the target may evade for high ground cover (§7.1.3).

    Parameters
    ----------
    bf : Battlefield
        The table.
    attacker : Unit or sequence of Model
        The attacking unit (or some of its models).
    target : Unit, Marker, Model or sequence of Model
        The target.
    weapon_range : float, optional
        The weapon's range in inches: `attackers` are then only the models within range of a
        target model they see.
    ctx : SightContext, optional
        The table prepared for sight.

    Returns
    -------
    UnitSight
        `visible`, `visible_models` (target model refs some attacking model sees: the casualty
        cap), `attackers` (attacking model refs that may shoot), `high_ground_cover` (a
        Verdict) and the whole `matrix`; `verdict()` sums it up as one Verdict.

    Examples
    --------
    Behind the wall only b/2 is seen, by a/2 alone; with a 12" weapon nobody is in range:

    >>> from shapely.geometry import box
    >>> from geom import Base, Battlefield, Model, Table, TerrainPiece, Unit, unit_sight
    >>> base = Base.from_mm(32)
    >>> def unit(uid, owner, x):
    ...     ms = tuple(Model.make(i, unit=uid, owner=owner, at=(x, y), base=base, size=1)
    ...                for i, y in (("1", 4), ("2", 10)))
    ...     return Unit(uid, owner, 1, ms, base)
    >>> bf = Battlefield(Table(24, 12), (TerrainPiece("wall", 3, box(11, 0, 13, 8)),),
    ...                  (unit("a", "red", 4), unit("b", "blue", 20)))
    >>> s = unit_sight(bf, bf.unit("a"), bf.unit("b"))
    >>> s.visible, s.visible_models, s.attackers, s.verdict().rule
    (True, ['b/2'], ['a/2'], '7.1 line of sight')
    >>> unit_sight(bf, bf.unit("a"), bf.unit("b"), weapon_range=12).attackers
    []
    """
    ctx = ctx or SightContext(bf)
    atk = list(attacker.models) if isinstance(attacker, Unit) else list(attacker)
    if isinstance(target, Unit):
        tgt: list[Model | Marker] = list(target.models)
    elif isinstance(target, Model | Marker):
        tgt = [target]
    else:
        tgt = list(target)
    m = sight_matrix(ctx, atk, tgt, upto=weapon_range or 0.0)
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
        whole = sight_matrix(ctx, atk, tgt, upto=0.0)
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
    return sight_matrix(ctx, ma, mb)


