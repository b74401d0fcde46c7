"""What `tmg survey` writes into its folder, every file atomically (`formats.atomic`):

- one sub-folder per layout × card (`standard-1--gauntlet/`) holding `points.csv` (one row per
  grid cell), `survey.json` (the grid, the zone samples, every column, the markers, the
  summary) and the heatmaps (`exposure-from-red.png`, `safe-area.png`, `markers.png`,
  `charge-from-blue.png`, …);
- `survey.json` at the top: what `--json` prints;
- `report.md` when several pairs were surveyed: layouts ranked by exposure and safe area, the
  §9.3 layout check beside each, and the pictures.

CSV, not Parquet: a few thousand rows per table open in any spreadsheet, and pyarrow would be a
large dependency for no gain at this size.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from formats.atomic import write_text
from survey import SurveyResult
from viewer import heatmap

from ._survey_report import folder_name, report_markdown


def _num(v: Any) -> Any:
    """A JSON-safe number: NaN and infinities become None; integral floats stay floats."""
    if isinstance(v, float | np.floating):
        f = float(v)
        return None if not math.isfinite(f) else round(f, 6)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, dict):
        return {str(k): _num(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_num(x) for x in v]
    return v


def _json(doc: Any) -> str:
    return json.dumps(_num(doc), ensure_ascii=False, indent=1, allow_nan=False) + "\n"


def _cell(v: float) -> str:
    if not math.isfinite(v):
        return ""
    return f"{v:.6g}"


def points_csv(res: SurveyResult) -> str:
    cells = res.grid.cells()
    names = list(res.columns)
    contest = res.contest_markers() if res.markers else None
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    head = ["cell", "x", "y", "cell_x0", "cell_y0", "cell_x1", "cell_y1", "stands",
            "elevation", "top"] + names + (["contests_markers"] if contest is not None else [])
    w.writerow(head)
    for k in range(len(res.grid)):
        x, y = res.grid.point(k)
        row = [str(k), _cell(x), _cell(y), *(_cell(float(v)) for v in cells[k]),
               "1" if res.stands[k] else "0", res.level[k], res.top[k]]
        row += [_cell(float(res.columns[n][k])) for n in names]
        if contest is not None:
            row.append(";".join(str(i) for i in contest[k]))
        w.writerow(row)
    return buf.getvalue()


def job_document(res: SurveyResult) -> dict[str, Any]:
    spec = res.job.spec
    doc: dict[str, Any] = {
        "layout": res.job.layout, "deployment": res.job.deployment,
        "table": {"width": res.bf.table.width, "depth": res.bf.table.depth},
        "grid": {"step": res.grid.step, "nx": res.grid.nx, "ny": res.grid.ny,
                 "cell_order": "k = iy * nx + ix, rows from y = 0",
                 "points": int(res.stands.sum())},
        "probe": {"size": spec.probe.size, "base_mm": spec.probe.base.mm(),
                  "hidden": spec.probe.hidden},
        "observer": {"size": spec.viewer.size, "base_mm": spec.viewer.base.mm()},
        "zone_samples": {o: {"step": z.step, "count": len(z), "points": [list(p) for p in z.points]}
                         for o, z in res.zones.items()},
        "measures": list(res.measures),
        "summary": res.summary(),
        "markers": res.markers,
        "columns": {"x": res.grid.xs.tolist(), "y": res.grid.ys.tolist(),
                    "stands": res.stands.astype(int).tolist(), "elevation": res.level,
                    **{n: v.tolist() for n, v in res.columns.items()}},
    }
    c = spec.charger
    if c is not None:
        doc["charger"] = {"type": c.type, "speed": c.speed, "modifier": c.modifier,
                          "size": c.size, "base_mm": c.base.mm()}
        doc["charge_starts"] = {o: [list(p) for p in z.points]
                                for o, z in res.charge_starts.items()}
    return doc


def layout_summary(res: SurveyResult) -> dict[str, Any]:
    return {"layout": res.job.layout, "deployment": res.job.deployment,
            "folder": folder_name(res), "points": int(res.stands.sum()), **res.summary()}


def write_all(out: Path, results: Sequence[SurveyResult], sources: Sequence[str], workers: int,
              where: str, *, pictures: bool, width: int, report: bool) -> dict[str, Any]:
    dirs = []
    for res in results:
        d = out / folder_name(res)
        d.mkdir(exist_ok=True)
        write_text(d / "points.csv", points_csv(res))
        write_text(d / "survey.json", _json(job_document(res)))
        dirs.append(d)
    images: list[list[str]] = [[] for _ in results]
    if pictures and results:
        written = heatmap.render(results, dirs, width)
        images = [[p.name for p in paths] for paths in written]
    measures = list(dict.fromkeys(m for r in results for m in r.measures))
    summary: dict[str, Any] = {
        "output": str(out), "measures": measures,
        "points": int(sum(int(r.stands.sum()) for r in results)),
        "workers": workers, "where": where,
        "layouts": [{**layout_summary(r), "pictures": imgs}
                    for r, imgs in zip(results, images, strict=True)],
    }
    if report:
        write_text(out / "report.md", report_markdown(results, images, sources))
        summary["report"] = str(out / "report.md")
    write_text(out / "survey.json", _json(summary))
    return summary
