"""Unit coherency (rulebook §4.4, §8.5.3 step 2, FAQ "측정과 이동"; Squadron "편대" on the
Zergling, Raptor, Hydralisk, Ravager, Stalker … cards).

At the end of an action that moves models, every model must be

1. WHOLLY WITHIN the unit's **coherency distance** of the leading model (every point of its
   base): 3", or 4" for a unit with Squadron (`Unit.coherency_distance`). Exact at the limit: a
   base whose far edge is exactly that far meets it (tolerance 1e-6").
   **Decision (docs/rules.md#coherency-wide-bases):** a base wider than the coherency distance (80 mm and
   larger against 3"; 120 mm and larger against 4") can never lie wholly within it without
   overlapping the leader, so such a model is judged by §4.4's other wording, "placed further
   than 3"" (i.e. it must be WITHIN the distance). A base no wider than the distance is held to
   "wholly within": an 80 mm Stalker (Squadron) must have its far edge within 4"; and
2. joined to the leading model by a chain of valid coherency links.

**Decision (docs/rules.md#no-recorded-leader):** where the scenario names no leading model, the
unit is in coherency when some choice of leading model makes it so, and the answer names that
model (the first such in id order); when none does, the answer shows the choice with the fewest
failing models. Models are taken in id order throughout, so the verdict never depends on the
order in which a file lists them.

A coherency link joins two models of the same unit. FAQ: a link may pass wherever the leading
model could legally travel. A link is a line, not a base (GEOMETRY-RULES §7 revised,
`geom.paths._gaps.line_blockers`): the segment joining the two base centres crosses no movement
obstacle's material — terrain of Size 2+ (GRASS and openings excepted), the edges of raised tops
away from access points, other units' models except the enemy models this unit is engaged with
(§4.4: links may cross them) — and no point of it lies within half the unit's required gap width
of two separate parts at once. Flying units' links ignore terrain and models. A segment that
keeps the clearance from everything (one vectorised query) is valid at once; only the others are
cut by the parts' zones.

**Decision:** a link is drawn centre to centre (the leading model's own path is a centre path).

Casualties never break coherency (§4.4): `coherency` judges positions as they stand, which is
what the rules check at the end of a moving action; `standing` answers between moving actions,
honouring a unit's record (`coherent = true`: it ended its last moving action in coherency and
stays so through casualties; docs/rules.md#coherency-persists).

>>> from geom.model import Base, Battlefield, Model, Table, Unit
>>> b = Base.from_mm(32)
>>> ms = tuple(Model.make(str(i), unit="u", owner="red", at=(5 + 1.5 * i, 5), base=b, size=2)
...            for i in range(3))
>>> bool(coherency(Battlefield(Table(54, 36), (), (Unit("u", "red", 2, ms, b),)), "u"))
True
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import bases
from ..distance import distance as base_distance
from ..engagement import engaged_pairs
from ..model import Battlefield, Model, Unit
from ..paths import FreeSpace, line_blockers, movement_obstacles, point_in_narrow_gap
from ..tolerance import ROUNDING, TOLERANCE
from ..verdict import Verdict

RULE_COHERENCY = "4.4 unit coherency"


@dataclass(frozen=True)
class Link:
    a: str
    b: str
    ok: bool
    blocked_by: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "ok": self.ok, "blocked_by": list(self.blocked_by)}


def engaged_enemy_models(bf: Battlefield, unit: Unit) -> list[str]:
    """Refs of the enemy models some model of `unit` is engaged with (§7.2)."""
    enemy = [m for v in bf.units if v.owner != unit.owner for m in v.models]
    return sorted({p.b.ref for p in engaged_pairs(bf, unit.models, enemy)})


def link_space(bf: Battlefield, unit: Unit, *, engaged: Collection[str] | None = None
               ) -> FreeSpace | None:
    """Where links may run: a leading model's free space, engaged enemies passable. Kept with
    the battlefield (`Prepared.link_spaces`): the obstacles depend on the table, on who the
    unit is (its own models are never obstacles; its size, gap clearance and abilities) and on
    the enemies passed, never on where the unit's models stand."""
    if unit.flying:
        return None
    ignore = engaged_enemy_models(bf, unit) if engaged is None else list(engaged)
    key = (unit.id, unit.size, unit.gap_clearance, unit.abilities, frozenset(ignore))
    kept = bf.prepared.link_spaces
    fs = kept.get(key)
    if fs is None:
        c = unit.gap_clearance / 2
        t = bf.table
        obs = movement_obstacles(bf, unit, ignore_models=ignore)
        fs = kept[key] = FreeSpace(obs, (c, c, t.width - c, t.depth - c), c)
    return fs


def links(bf: Battlefield, unit: Unit, *, engaged: Collection[str] | None = None,
          models: tuple[Model, ...] | None = None) -> list[Link]:
    """Every pair of the unit's models, with whether a coherency link may join them."""
    ms = models if models is not None else unit.models
    pairs = [(a, b) for i, a in enumerate(ms) for b in ms[i + 1:]]
    if not pairs:
        return []
    fs = link_space(bf, unit, engaged=engaged)
    if fs is None:
        return [Link(a.id, b.id, True) for a, b in pairs]
    p = np.array([a.at for a, _ in pairs], dtype=float)
    q = np.array([b.at for _, b in pairs], dtype=float)
    ok = fs.segments_clear(p, q)
    out = []
    for (a, b), good in zip(pairs, ok, strict=True):
        if good:
            out.append(Link(a.id, b.id, True))
            continue
        blk = link_blockers(fs, a, b)
        out.append(Link(a.id, b.id, not blk, tuple(blk)))
    return out


def link_blockers(fs: FreeSpace, a: Model, b: Model) -> list[str]:
    """What stops a link (GEOMETRY-RULES §7, revised with §6): a link is a line, not a base —
    it crosses no obstacle material, and no point of it lies within half the leading model's
    required gap width of two separate parts at once (`geom.paths._gaps.line_blockers`). A model may
    stand where its leader could not pass (in a narrow gap, FAQ); the stretch of its link under
    its own base is where it stands."""
    x0, y0, x1, y1 = fs.rect
    out: list[str] = []
    if not (x0 - ROUNDING <= min(a.at[0], b.at[0]) and max(a.at[0], b.at[0]) <= x1 + ROUNDING
            and y0 - ROUNDING <= min(a.at[1], b.at[1]) and max(a.at[1], b.at[1]) <= y1 + ROUNDING):
        out.append("the table edge")
    exempt = [(m.at, m.base.a) for m in (a, b) if point_in_narrow_gap(fs, m.at)]
    return out + line_blockers(fs, a.at, b.at, exempt)


def wide_base(unit: Unit, m: Model) -> bool:
    """The base is wider than the coherency distance (see the module's wide-bases decision)."""
    return m.base.short > unit.coherency_distance


def _support_sigma(m: Model) -> np.ndarray:
    e = m.ellipse
    c, s = math.cos(e.theta), math.sin(e.theta)
    L = np.array([[c * e.a, -s * e.b], [s * e.a, c * e.b]])
    return L @ L.T


def far_distances(models: Sequence[Model], leads: Sequence[Model]) -> np.ndarray:
    """far[i, j] = the distance from the farthest point of models[i]'s base to leads[j]'s base
    (0 when it lies within it): what WHOLLY WITHIN measures (§4.2).

    For convex bases A and B, max over p in A of dist(p, B) = max over unit n of
    (h_A(n) − h_B(n)), h the support function (swap the two maxima in
    dist(p, B) = max_n (n·p − h_B(n))). Discs: the closed form ``|c_A − c_B| + r_A − r_B``. Ovals:
    h(n) = n·c + sqrt(nᵀΣn) in closed form, maximised over the angle of n by 256 samples and
    golden-section refinement to 1e-13 rad (`geom.bases.maximise_periodic_batch`), so the value
    is exact to rounding — all pairs in one batch."""
    n, k = len(models), len(leads)
    far = np.zeros((n, k))
    if n == 0 or k == 0:
        return far
    ca = np.array([m.at for m in models], dtype=float)
    cb = np.array([m.at for m in leads], dtype=float)
    ra = np.array([m.base.a for m in models])
    rb = np.array([m.base.a for m in leads])
    disc_a = np.array([m.base.is_disc for m in models])
    disc_b = np.array([m.base.is_disc for m in leads])
    gap = np.hypot(ca[:, None, 0] - cb[None, :, 0], ca[:, None, 1] - cb[None, :, 1])
    far[:] = gap + ra[:, None] - rb[None, :]
    ii, jj = np.nonzero(~(disc_a[:, None] & disc_b[None, :]))
    if len(ii):
        Sa = np.array([_support_sigma(m) for m in models])[ii]
        Sb = np.array([_support_sigma(m) for m in leads])[jj]
        v = ca[ii] - cb[jj]

        def g(psi: np.ndarray) -> np.ndarray:
            x, y = np.cos(psi), np.sin(psi)
            ha = np.sqrt(Sa[:, 0, 0, None] * x * x + 2 * Sa[:, 0, 1, None] * x * y
                         + Sa[:, 1, 1, None] * y * y)
            hb = np.sqrt(Sb[:, 0, 0, None] * x * x + 2 * Sb[:, 0, 1, None] * x * y
                         + Sb[:, 1, 1, None] * y * y)
            return v[:, 0, None] * x + v[:, 1, None] * y + ha - hb

        _, best, sampled = bases.maximise_periodic_batch(g, len(ii))
        far[ii, jj] = np.maximum(best, sampled.max(axis=1))
    return np.maximum(far, 0.0)


def range_failure(unit: Unit, m: Model, lead: Model, far: float | None = None) -> str | None:
    """Why `m` is not within the coherency distance of `lead` (§4.4), or None when it is.
    `far`: `far_distances` of the pair when already known. Exact to rounding (closed forms for
    discs, see `far_distances` for ovals)."""
    d = unit.coherency_distance
    if wide_base(unit, m):
        # A base wider than d can never lie wholly within d of a base it does not overlap, so
        # §4.4's "wholly within" would make every such unit incoherent. The same section defines
        # out of coherency as a model placed "further than 3"" (3" 보다 멀리): that reading is
        # used for these bases.
        gap = base_distance(m, lead)
        if gap > d + TOLERANCE:
            return (f'further than {d:g}" from the leading model {lead.id} ({gap:.3f}"; its base '
                    f'is wider than {d:g}", so "wholly within" cannot apply)')
        return None
    if far is None:
        far = float(far_distances([m], [lead])[0, 0])
    if far > d + TOLERANCE:
        return (f'not wholly within {d:g}" of the leading model {lead.id} (its base reaches '
                f'{far:.3f}" away)')
    return None


def _reached(lead: str, adj: dict[str, list[str]]) -> set[str]:
    seen = {lead}
    todo = deque([lead])
    while todo:
        x = todo.popleft()
        for y in adj[x]:
            if y not in seen:
                seen.add(y)
                todo.append(y)
    return seen


def _failures(bf: Battlefield, u: Unit, lead: Model, ls: list[Link], adj: dict[str, list[str]],
              far: dict[str, float]) -> list[dict[str, Any]]:
    seen = _reached(lead.id, adj)
    failures: list[dict[str, Any]] = []
    for m in u.by_id:
        if m.id == lead.id:
            continue
        why: list[str] = []
        out_of_range = range_failure(u, m, lead, far[m.id])
        if out_of_range is not None:
            why.append(out_of_range)
        if m.id not in seen:
            mine = [lk for lk in ls if m.id in (lk.a, lk.b)]
            blockers = sorted({b for lk in mine for b in lk.blocked_by})
            why.append("no chain of coherency links to the leading model"
                       + (f" (its links are blocked by {', '.join(map(bf.title_of, blockers))})"
                          if blockers else ""))
        if why:
            failures.append({"model": m.id, "reason": "; ".join(why)})
    return failures


def coherency(bf: Battlefield, unit: Unit | str, *, leading: str | None = None,
              engaged: Collection[str] | None = None) -> Verdict:
    """Is the unit in coherency (§4.4)? `details` has `failures` [{model, reason}], `links`,
    `leading` (the leading model judged: the given one, the recorded one, or — with neither —
    the first model in id order that puts the unit in coherency), `leading_recorded`,
    `coherency_distance`. `engaged`: enemy model refs (or unit ids) links may cross; default:
    the enemy models the unit is engaged with (geom.engagement).

    Parameters
    ----------
    bf : Battlefield
        The table.
    unit : Unit or str
        The unit (or its id).
    leading : str, optional
        The leading model's id to judge with.
    engaged : collection of str, optional
        Enemy model refs (or unit ids) links may cross.

    Returns
    -------
    Verdict
        In coherency or not (4.4 unit coherency); `details["failures"]` lists each failing
        model with its reason.

    Examples
    --------
    Two models 1.5" apart are in coherency; 5" apart, the far edge of a/2's base is out of
    3" of a/1:

    >>> from shapely.geometry import box
    >>> from geom import Base, Battlefield, Model, Speed, Table, TerrainPiece, Unit, coherency
    >>> base = Base.from_mm(32)
    >>> ms = tuple(Model.make(i, unit="a", owner="red", at=(x, 4), base=base, size=1)
    ...            for i, x in (("1", 8), ("2", 6.5)))
    >>> bf = Battlefield(Table(24, 12), (TerrainPiece("wall", 3, box(11, 0, 13, 8)),),
    ...                  (Unit("a", "red", 1, ms, base, speed=Speed(6)),))
    >>> coherency(bf, "a").ok
    True
    >>> v = coherency(bf.after_action("a", {"2": (3, 4)}), "a")
    >>> v.ok, v.rule, v.details["failures"]
    (False, '4.4 unit coherency', [{'model': '2', 'reason': 'not wholly within 3" of the leading model 1 (its base reaches 5.000" away)'}])
    """
    u = bf.unit(unit) if isinstance(unit, str) else unit
    eng = sorted(engaged) if engaged is not None else engaged_enemy_models(bf, u)
    ls = links(bf, u, engaged=eng, models=u.by_id)
    adj: dict[str, list[str]] = {m.id: [] for m in u.models}
    for lk in ls:
        if lk.ok:
            adj[lk.a].append(lk.b)
            adj[lk.b].append(lk.a)
    if leading is not None:
        candidates: tuple[Model, ...] = (u.model(leading),)
    else:
        candidates = u.leader_candidates
    chosen = leading is None and u.leading is None
    far = far_distances(u.by_id, candidates)
    best: tuple[Model, list[dict[str, Any]]] | None = None
    tried: dict[str, int] = {}
    for j, cand in enumerate(candidates):
        fails = _failures(bf, u, cand, ls, adj, {m.id: float(far[i, j])
                                             for i, m in enumerate(u.by_id)})
        tried[cand.id] = len(fails)
        if best is None or len(fails) < len(best[1]):
            best = (cand, fails)
        if not fails:
            break
    assert best is not None
    lead, failures = best
    d = u.coherency_distance
    details: dict[str, Any] = {
        "leading": lead.id, "leading_recorded": not chosen, "coherency_distance": d,
        "failures": failures, "links": [lk.to_json() for lk in ls], "engaged_with": eng}
    if chosen and len(u.models) > 1:
        details["leaders_tried"] = tried
    within = ("within" if any(wide_base(u, m) for m in u.models) else "wholly within")
    if failures:
        names = ", ".join(f["model"] for f in failures)
        whoever = (f" whatever model leads (shown with {lead.id}, the choice with the fewest "
                   "failing models)" if chosen and len(u.models) > 1 else "")
        return Verdict(False, RULE_COHERENCY, f"{u.id} is out of coherency{whoever}: {names}", None,
                       details)
    n = len(u.models)
    picked = (f"; no leading model is recorded and {lead.id} as leader makes it so"
              if chosen and n > 1 else "")
    return Verdict(True, RULE_COHERENCY, f"{u.id} is in coherency ({n} model{'s' if n != 1 else ''} "
                   f"{within} {d:g}\" of {lead.id} and linked to it{picked})", None, details)


RULE_PERSISTS = "4.4 coherency persists through casualties"


def standing(bf: Battlefield, unit: Unit | str, *, leading: str | None = None) -> Verdict:
    """Is the unit in coherency *now*, between moving actions (§4.4: "어떤 출처로 생긴 사상자도
    대형 유지 확인을 일으키지 않으며" — casualties from any source never cause a coherency check)?
    A unit recorded `coherent = true` (it ended its last moving action in coherency) stays in
    coherency whatever its casualties left; otherwise — not recorded, or recorded `false`
    (out of coherency then, nothing to keep) — its models are judged where they stand
    (`coherency`). `details` adds `recorded` (the record, or None) and `positions_in_coherency`;
    when the record decides against the positions, their failures move to `position_failures`
    and `failures` is empty."""
    u = bf.unit(unit) if isinstance(unit, str) else unit
    v = coherency(bf, u, leading=leading)
    details = {**v.details, "recorded": u.coherent, "positions_in_coherency": v.ok}
    if v.ok or u.coherent is not True:
        return Verdict(v.ok, v.rule, v.reason, v.witness, details)
    details["position_failures"] = details["failures"]
    details["failures"] = []
    spread = ", ".join(f["model"] for f in details["position_failures"])
    return Verdict(True, RULE_PERSISTS,
                   f"{u.id} is in coherency: it ended its last moving action in coherency "
                   f"(recorded coherent = true) and casualties never break coherency (§4.4), "
                   f"though as they stand {spread} would be out of it", v.witness, details)
