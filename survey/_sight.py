"""Survey measures decided by sight: exposure (with its safe area) and the mission markers'
exposure and contest reach (rulebook §7.1 line of sight, §7.1.1 full and direct cover, the
elevation dead zone and close quarters, §7.1.3 high ground cover, keyword HIDDEN, §8.9.1
contesting a marker).

**Exposure** of a grid point, for each zone of influence: the share of that zone's samples
from which the probe standing at the point is seen — every pair (zone sample, point) decided
exactly by the engine's sight (`geom.sight._sight.SightContext.matrix`: a model of the observer's kind
at the sample looks at the probe). HIDDEN applies as the rules say: a hidden probe is seen
from no farther than 4". Cover blocks sight in this game (full and direct cover, §7.1.1), so it
is already in "seen"; what remains is high ground cover (§7.1.3): a probe standing partly on
high ground, seen from a sample whose base is not, may evade. The survey reports the seen share
split into *seen in the open* and *seen in cover* (seen, but with high ground cover against
that sample).

**Safe area**: the points seen from no sample of a zone (exposure exactly 0).

**Markers** (§8.9.1): a probe at a cell *contests* a marker when `geom.markers._control.contests` says
so for a one-model unit standing there: within 3" of the marker, at the marker's elevation,
and seeing it (the marker counts as Size 0). A marker's exposure is that of a probe standing on
its centre; `seen` is the share of each zone from which the marker itself (Size 0) is seen.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from geom.distance import distance
from geom.markers import CONTEST_RANGE, contests, marker_level
from geom.model import Marker, Model
from geom.sight import VISIBLE, pair_sight, sight_matrix
from geom.tolerance import TOLERANCE
from geom.verdict import Verdict

from ._grid import probe_unit, standing
from ._job import EXPOSURE, SAFE_AREA, Prepared, high_ground


def exposure_tile(prep: Prepared, start: int, stop: int) -> dict[str, np.ndarray]:
    """Seen counts for cells [start, stop): arrays `seen_<owner>`, `cover_<owner>` (−1 where no
    probe stands)."""
    cells = np.arange(start, stop)
    keep = cells[prep.stands[start:stop]]
    owners = prep.job.owners
    # one batch for both zones: a pair's answer does not depend on the batch, nor sight on
    # who owns the models (the probe belongs to the player whose enemy's zone looks at it)
    probes = [prep.probe(int(k), owners[0]) for k in keep]
    obs = [m for o in owners for m in prep.observers[o]]
    seen, covered = _seen(prep, obs, np.concatenate([prep.observers_high[o] for o in owners]),
                          probes)
    out: dict[str, np.ndarray] = {}
    row = 0
    for owner in owners:
        n = len(prep.observers[owner])
        for name, arr in (("seen", seen), ("cover", covered)):
            col = np.full(len(cells), -1, dtype=np.int64)
            col[keep - start] = arr[row:row + n].sum(axis=0)
            out[f"{name}_{owner}"] = col
        row += n
    return out


def _seen(prep: Prepared, obs: list[Model], obs_high: np.ndarray, probes: list[Model]
          ) -> tuple[np.ndarray, np.ndarray]:
    """(samples, probes) booleans: seen, and seen with high ground cover (§7.1.3)."""
    if not obs or not probes:
        z = np.zeros((len(obs), len(probes)), dtype=bool)
        return z, z.copy()
    m = sight_matrix(prep.ctx, obs, probes)
    seen = m.code == VISIBLE
    high = high_ground(prep.job.bf, probes)
    return seen, seen & high[None, :] & ~obs_high[:, None]


def seen_counts_one(prep: Prepared, owner: str, probes: list[Model]
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(seen, seen in cover) counts of each probe over the samples of `owner`'s zone."""
    seen, covered = _seen(prep, prep.observers[owner], prep.observers_high[owner], probes)
    return seen.sum(axis=0).astype(np.int64), covered.sum(axis=0).astype(np.int64)


def _share(n: int, total: int) -> float | None:
    return n / total if total else None


def markers_task(prep: Prepared) -> list[dict[str, Any]]:
    """Per marker: its elevation, exposure, the share of each zone that sees it, and the cells
    from which a probe contests it with their seen counts per zone."""
    job, bf = prep.job, prep.job.bf
    spec = job.spec
    grid = prep.grid
    out: list[dict[str, Any]] = []
    pts = np.column_stack([grid.xs, grid.ys])
    reach = CONTEST_RANGE + spec.probe.base.a + 1.0  # centre distance beyond which none is in range
    ok_coherent = Verdict(True, "4.4 coherency", "a unit of one model is in coherency")
    for mk in bf.markers:
        d = np.hypot(pts[:, 0] - mk.at[0], pts[:, 1] - mk.at[1])
        cand = np.nonzero(prep.stands & (d <= reach + mk.ellipse.a))[0]
        contest: list[int] = []
        for k in cand.tolist():
            owner = job.owners[0]
            u = probe_unit(f"probe-{k}", owner, grid.point(k), spec.probe.base, spec.probe.size)
            if distance(u.models[0], mk) > CONTEST_RANGE + TOLERANCE:
                continue
            if contests(bf, u, mk, sight=partial(pair_sight, prep.ctx), coherent=ok_coherent).ok:
                contest.append(k)
        row: dict[str, Any] = {"id": mk.id, "at": [mk.at[0], mk.at[1]], "colour": mk.colour,
                               "elevation": marker_level(bf, mk), "contest_cells": contest,
                               "exposure": {}, "seen": {}, "contest_seen": {}}
        stand = _stands_at(prep, mk)
        # with the exposure measured, its tiles count the contest cells' samples already
        # (`survey.assemble` copies them): the same pairs are not decided twice
        counted = EXPOSURE in spec.measures or SAFE_AREA in spec.measures
        for owner in job.owners:
            n = len(prep.observers[owner])
            enemy = job.other(owner)
            if not counted:
                probes = [prep.probe(k, enemy) for k in contest]
                seen, _ = seen_counts_one(prep, owner, probes)
                row["contest_seen"][owner] = seen.tolist()
            if stand:
                on_marker = probe_unit("probe-marker", enemy, mk.at, spec.probe.base,
                                       spec.probe.size, hidden=spec.probe.hidden).models[0]
                s, _ = seen_counts_one(prep, owner, [on_marker])
                row["exposure"][owner] = _share(int(s[0]), n)
            else:
                row["exposure"][owner] = None
            row["seen"][owner] = _share(_marker_seen(prep, owner, mk), n)
        row["samples"] = {o: len(prep.observers[o]) for o in job.owners}
        out.append(row)
    return out


def _stands_at(prep: Prepared, mk: Marker) -> bool:
    p = prep.job.spec.probe
    return bool(standing(prep.job.bf, [mk.at], p.base, p.size)[0])


def _marker_seen(prep: Prepared, owner: str, mk: Marker) -> int:
    obs = prep.observers[owner]
    if not obs:
        return 0
    m = sight_matrix(prep.ctx, obs, [mk])
    return int((m.code == VISIBLE).sum())
