"""Unit coherency (GEOMETRY-RULES §7; rulebook §4.4, §8.5.3 step 2, FAQ "측정과 이동").

At the end of an action that moves models, every model must be

1. WHOLLY WITHIN 3" of the leading model (every point of its base), and
   **Decision:** for a base wider than 3" (80 mm and larger) "wholly within" can never hold
   without overlapping the leader, so such a model is judged by §4.4's other wording, "placed
   further than 3"" (i.e. it must be WITHIN 3"); and
2. joined to the leading model by a chain of valid coherency links.

A coherency link joins two models of the same unit. FAQ: a link may pass wherever the leading
model could legally travel. So a link is valid when the segment joining the two base centres is a
legal leading-model path for the unit (`geom.freespace`): it keeps the gap clearance from
terrain of Size 2+ (GRASS and openings excepted), from the edges of raised tops except through
access points, and from other units' models — except the enemy models this unit is engaged with
(§4.4: links may cross them). Flying units' links ignore terrain and models.

**Decision:** a link is drawn centre to centre (the leading model's own path is a centre path).

Casualties never break coherency (§4.4): this module judges positions as they stand, which is
what the rules check at the end of a moving action.

>>> from geom.model import Base, Battlefield, Model, Table, Unit
>>> b = Base.from_mm(32)
>>> ms = tuple(Model.make(str(i), unit="u", owner="red", at=(5 + 1.5 * i, 5), base=b, size=2)
...            for i in range(3))
>>> bool(coherency(Battlefield(Table(54, 36), (), (Unit("u", "red", 2, ms, b),)), "u"))
True
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, Point

from . import distance as dist
from .engagement import engaged_pairs
from .freespace import FreeSpace, movement_obstacles
from .model import TOLERANCE, Battlefield, Model, Unit
from .verdict import Verdict

RULE = "4.4 unit coherency"
COHERENCY_RANGE = 3.0


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
    """Where links may run: a leading model's free space, engaged enemies passable."""
    if unit.flying:
        return None
    ignore = engaged_enemy_models(bf, unit) if engaged is None else list(engaged)
    c = unit.gap_clearance / 2
    t = bf.table
    obs = movement_obstacles(bf, unit, ignore_models=ignore)
    return FreeSpace(obs, (c, c, t.width - c, t.depth - c), c)


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
    """What stops a link. A model may legally stand closer to an obstacle than the gap
    clearance (a base overhanging a top's edge, FAQ); near such an end the link only has to
    stay off the obstacle itself rather than out of its clearance zone."""
    line = LineString([a.at, b.at]) if a.at != b.at else Point(a.at)
    x0, y0, x1, y1 = fs.rect
    out: list[str] = []
    if not (x0 - 1e-9 <= min(a.at[0], b.at[0]) and max(a.at[0], b.at[0]) <= x1 + 1e-9
            and y0 - 1e-9 <= min(a.at[1], b.at[1]) and max(a.at[1], b.at[1]) <= y1 + 1e-9):
        out.append("the table edge")
    _, js = fs.blocked_pairs(np.array([line], dtype=object))
    ends = shapely.points([a.at, b.at])
    for j in sorted(set(js.tolist())):
        o = fs.obstacles[j]
        near_end = bool((shapely.distance(ends, o.core) < o.rho).any())
        if near_end:
            if o.core.geom_type == "Point":  # a disc base: the link may not cross the base
                hard = float(shapely.distance(line, o.core)) < o.rho - fs.clearance - TOLERANCE
            elif "LineString" in o.core.geom_type:  # a top's edge: may not cross the edge
                hard = bool(line.intersects(o.core))
            else:
                hard = bool(shapely.relate_pattern(line, o.core, "T********"))
            if not hard:
                continue
        out.append(o.ref)
    return out


def coherency(bf: Battlefield, unit: Unit | str, *, leading: str | None = None,
              engaged: Collection[str] | None = None) -> Verdict:
    """Is the unit in coherency (§4.4)? `details` has `failures` [{model, reason}], `links`,
    `leading`. `engaged`: enemy model refs (or unit ids) links may cross; default: the enemy
    models the unit is engaged with (geom.engagement)."""
    u = bf.unit(unit) if isinstance(unit, str) else unit
    lead = u.model(leading) if leading is not None else u.leading_model
    ls = links(bf, u, engaged=engaged)
    adj: dict[str, list[str]] = {m.id: [] for m in u.models}
    for lk in ls:
        if lk.ok:
            adj[lk.a].append(lk.b)
            adj[lk.b].append(lk.a)
    seen = {lead.id}
    todo = deque([lead.id])
    while todo:
        x = todo.popleft()
        for y in adj[x]:
            if y not in seen:
                seen.add(y)
                todo.append(y)
    failures: list[dict[str, Any]] = []
    for m in u.models:
        if m.id == lead.id:
            continue
        why: list[str] = []
        if m.base.short > COHERENCY_RANGE:
            # A base wider than 3" can never lie wholly within 3" of another base it does not
            # overlap, so §4.4's "wholly within" would make every such unit incoherent. The
            # same section defines out of coherency as a model placed "further than 3""
            # (3" 보다 멀리): that reading is used for these bases.
            gap = dist.distance(m, lead)
            if gap > COHERENCY_RANGE + TOLERANCE:
                why.append(f'further than 3" from the leading model {lead.id} ({gap:.3f}"; '
                           f'its base is wider than 3", so "wholly within" cannot apply)')
        else:
            far = dist.max_distance(m.ellipse, [lead.ellipse])
            if far > COHERENCY_RANGE + TOLERANCE:
                why.append(f'not wholly within 3" of the leading model {lead.id} (its base '
                           f'reaches {far:.3f}" away)')
        if m.id not in seen:
            mine = [lk for lk in ls if m.id in (lk.a, lk.b)]
            blockers = sorted({b for lk in mine for b in lk.blocked_by})
            why.append("no chain of coherency links to the leading model"
                       + (f" (its links are blocked by {', '.join(blockers)})" if blockers else ""))
        if why:
            failures.append({"model": m.id, "reason": "; ".join(why)})
    details = {"leading": lead.id, "failures": failures,
               "links": [lk.to_json() for lk in ls],
               "engaged_with": sorted(engaged) if engaged is not None
               else engaged_enemy_models(bf, u)}
    if failures:
        names = ", ".join(f["model"] for f in failures)
        return Verdict(False, RULE, f"{u.id} is out of coherency: {names}", None, details)
    n = len(u.models)
    return Verdict(True, RULE, f"{u.id} is in coherency ({n} model{'s' if n != 1 else ''} "
                   f"wholly within 3\" of {lead.id} and linked to it)", None, details)
