"""Summaries of a survey: per measure the mean, least and greatest value over the points where
a probe stands, the safe area (share of the table seen from nowhere in a zone of influence),
and per marker its exposure and contest reach (rulebook §5.6, §7.1, §8.7.7, §8.9.1; the
measures are defined in `survey._sight` and `survey._charge`).

Values are plain floats, or None where nothing was measured (no probe stands, no sample)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._job import CHARGE_THREAT, EXPOSURE, MARKERS, SAFE_AREA

if TYPE_CHECKING:
    from ._survey import SurveyResult


def stats(values: np.ndarray) -> dict[str, float | None]:
    """mean, min, max of the finite values (None when there are none).

    >>> stats(np.array([0.0, 0.5, np.nan, 1.0]))
    {'mean': 0.5, 'min': 0.0, 'max': 1.0}
    """
    v = values[np.isfinite(values)]
    if not len(v):
        return {"mean": None, "min": None, "max": None}
    return {"mean": float(v.mean()), "min": float(v.min()), "max": float(v.max())}


def safe_share(res: SurveyResult, owner: str) -> tuple[float, float]:
    """(share of the table, square inches) where a probe stands and no sample of `owner`'s
    zone sees it."""
    safe = res.columns[f"safe_{owner}_zone"]
    area = res.cell_areas()
    sq = float(area[safe == 1.0].sum())
    t = res.bf.table
    return sq / (t.width * t.depth), sq


def summarise(res: SurveyResult) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    owners = res.owners
    ms = res.measures
    if EXPOSURE in ms or SAFE_AREA in ms:
        both = np.concatenate([res.columns[f"exposure_{o}_zone"] for o in owners])
        by_zone: dict[str, Any] = {}
        shares = []
        for o in owners:
            share, sq = safe_share(res, o)
            shares.append(share)
            by_zone[o] = {**stats(res.columns[f"exposure_{o}_zone"]),
                          "open": stats(res.columns[f"exposure_{o}_zone_open"])["mean"],
                          "in_cover": stats(res.columns[f"exposure_{o}_zone_cover"])["mean"],
                          "safe_area": share, "safe_area_sq_in": sq,
                          "samples": len(res.zones[o])}
        safe_area = float(np.mean(shares))
        if EXPOSURE in ms:
            out[EXPOSURE] = {**stats(both), "safe_area": safe_area, "by_zone": by_zone}
        if SAFE_AREA in ms:
            flags = np.concatenate([res.columns[f"safe_{o}_zone"] for o in owners])
            out[SAFE_AREA] = {**stats(flags), "safe_area": safe_area,
                              "by_zone": {o: {"safe_area": by_zone[o]["safe_area"],
                                              "safe_area_sq_in": by_zone[o]["safe_area_sq_in"]}
                                          for o in owners}}
    if MARKERS in ms:
        vals = [m["exposure"][o] for m in res.markers for o in owners
                if m["exposure"][o] is not None]
        arr = np.array(vals, dtype=float)
        area = res.cell_areas()
        per: dict[str, Any] = {}
        for m in res.markers:
            cells = np.array(m["contest_cells"], dtype=np.int64)
            unseen = {o: float(area[cells[np.array(m["contest_seen"][o], dtype=np.int64) == 0]]
                               .sum()) if len(cells) else 0.0 for o in owners}
            per[str(m["id"])] = {"exposure": m["exposure"], "seen": m["seen"],
                                 "elevation": m["elevation"],
                                 "contest_area_sq_in": float(area[cells].sum()) if len(cells)
                                 else 0.0,
                                 "contest_unseen_sq_in": unseen}
        out[MARKERS] = {**stats(arr), "by_marker": per}
    if CHARGE_THREAT in ms:
        both = np.concatenate([res.columns[f"charge_roll_{o}_zone"] for o in owners])
        reach = np.concatenate([res.columns[f"charge_reach_{o}_zone"] for o in owners])
        by_zone = {o: {**stats(res.columns[f"charge_roll_{o}_zone"]),
                       "reach": stats(res.columns[f"charge_reach_{o}_zone"])["mean"]}
                   for o in owners}
        out[CHARGE_THREAT] = {**stats(both), "reach": stats(reach)["mean"], "by_zone": by_zone}
    return out
