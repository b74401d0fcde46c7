"""Survey measure decided by the charge engine: the charge threat on each grid point (rulebook
§8.7.7 charge, §7.2 engagement range, §4.6 gaps, §8.5.3 movement).

For a unit type (Speed, base, Size, abilities) and each zone of influence: the smallest D6
result with which that unit, its leading model standing anywhere in the zone (at one of the
zone's samples where its base can stand), charges a probe model standing at the point —
every pair (start, point) decided by the engine's own charge (`geom.combat._charge.charge`: the
shortest legal path to a legal end engaged with the probe, around terrain with gap clearance,
through access points). The unit has several models, so a split Speed "a/b" uses a.

Decision — the start: the leading model may start at any zone sample where a model of its
base can stand; a start already within engagement range of the probe cannot charge (§8.7.7:
only a unit that is not engaged charges), and the best start is the one with the shortest
charge distance. No pair is skipped on a guess: starts are tried in the order of a proven lower
bound on their charge distance (the straight base-to-base gap less 1"), and the search stops
only when that bound exceeds the best distance found or the longest charge the dice allow
(Speed + 6 + modifier) — so the smallest roll is exact, and so is the charge distance wherever
a roll succeeds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from geom import bases
from geom.combat import charge, roll_table
from geom.engagement import ENGAGEMENT_RANGE
from geom.model import Battlefield, Unit
from geom.tolerance import TOLERANCE

from ._grid import probe_unit
from ._job import Charger, Prepared


@dataclass(frozen=True)
class Threat:
    """The best charge on one target from one zone: distance (None: no start reaches it within
    Speed + 6 + modifier), the start used, the smallest roll (None: no roll succeeds), whether
    the charge engine reported a roll inside its error bound, and how many starts were tried."""

    distance: float | None
    start: int | None
    min_roll: int | None
    uncertain: bool
    tried: int


def lower_bounds(charger: Charger, owner: str, starts: Sequence[tuple[float, float]],
                 target: Unit) -> np.ndarray:
    """For each start: a lower bound on the charge distance — the leading model's base must
    close the gap to within 1" of the nearest target model, and a base moved by d comes no
    more than d closer to anything."""
    if not starts:
        return np.zeros(0)
    probe = charger.unit(owner, starts[0]).models[0]
    out = np.full(len(starts), np.inf)
    for t in target.models:
        es = [replace(probe.ellipse, cx=x, cy=y) for x, y in starts]
        d = np.array([bases.ellipse_distance(e, t.ellipse) for e in es]) if not (
            probe.base.is_disc and t.base.is_disc) else (
            np.hypot(np.array([s[0] for s in starts]) - t.at[0],
                     np.array([s[1] for s in starts]) - t.at[1]) - probe.base.a - t.base.a)
        out = np.minimum(out, np.maximum(0.0, d - ENGAGEMENT_RANGE))
    return out


def best_charge(bf: Battlefield, charger: Charger, owner: str,
                starts: Sequence[tuple[float, float]], target: Unit) -> Threat:
    """The smallest charge distance on `target` over every start (see the module docstring)."""
    cap = charger.speed + 6 + charger.modifier
    lbs = lower_bounds(charger, owner, starts, target)
    best, best_i, tried, uncertain = math.inf, None, 0, False
    for i in np.argsort(lbs, kind="stable").tolist():
        if lbs[i] > cap + TOLERANCE or lbs[i] >= best:
            break
        unit = charger.unit(owner, starts[i])
        ans = charge(replace(bf, units=(target, unit)), unit.id, [target.id], charger.modifier,
                     place=False)
        tried += 1
        if ans.min_distance is not None and ans.min_distance < best:
            best, best_i = ans.min_distance, i
            uncertain = bool(ans.details.get("uncertain_rolls"))
    if best_i is None or best > cap + TOLERANCE:
        return Threat(None, None, None, False, tried)
    rolls = roll_table(charger.speed, charger.modifier, best)
    return Threat(best, best_i, rolls.min_roll, uncertain, tried)


def charge_tile(prep: Prepared, start: int, stop: int) -> dict[str, np.ndarray]:
    """For cells [start, stop) and each zone: `roll_<owner>` (smallest roll, 0 = none, −1 = no
    probe), `distance_<owner>` (NaN unless a roll succeeds), `start_<owner>` (zone start used,
    −1), `uncertain_<owner>` (the charge engine flagged the roll)."""
    job = prep.job
    charger = job.spec.charger
    assert charger is not None
    p = job.spec.probe
    cells = np.arange(start, stop)
    n = len(cells)
    out: dict[str, np.ndarray] = {}
    for owner in job.owners:
        starts = prep.charge_starts[owner].points
        roll = np.full(n, -1, dtype=np.int64)
        dist = np.full(n, np.nan)
        used = np.full(n, -1, dtype=np.int64)
        unsure = np.zeros(n, dtype=bool)
        for r, k in enumerate(cells.tolist()):
            if not prep.stands[k]:
                continue
            target = probe_unit("probe", job.other(owner), prep.grid.point(k), p.base, p.size,
                                hidden=p.hidden)
            th = best_charge(job.bf, charger, owner, starts, target)
            roll[r] = th.min_roll or 0
            if th.distance is not None and th.min_roll is not None:
                dist[r] = th.distance
                used[r] = -1 if th.start is None else th.start
            unsure[r] = th.uncertain
        out.update({f"roll_{owner}": roll, f"distance_{owner}": dist, f"start_{owner}": used,
                    f"uncertain_{owner}": unsure})
    return out
