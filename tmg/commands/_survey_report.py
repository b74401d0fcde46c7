"""The Markdown report of `tmg survey --all`: layouts ranked by exposure and safe area, the §9.3
layout check (`maps.checks.check_layout`) beside each, and the pictures.

Ranking: a lower mean exposure (the share of the enemy zone of influence from which a model is
seen, averaged over the points where one can stand and over both zones) means a table with more
cover; a larger safe area means more ground hidden from a whole zone. Each layout is ranked by
its mean over the cards surveyed with it; each pair is listed too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from maps.checks import check_layout
from survey import EXPOSURE, MARKERS, SAFE_AREA, SurveyResult


def folder_name(res: SurveyResult) -> str:
    """The sub-folder of one layout × card (`standard-1--gauntlet`), which the report links."""
    return f"{res.job.layout}--{res.job.deployment}"


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.1f}%"


def _check(res: SurveyResult) -> tuple[int, int, list[Any]]:
    findings = check_layout(res.bf, res.bf.deployment)
    return sum(f.ok for f in findings), len(findings), findings


def _mean(xs: Sequence[float | None]) -> float | None:
    v = [x for x in xs if x is not None]
    return sum(v) / len(v) if v else None


def report_markdown(results: Sequence[SurveyResult], images: Sequence[Sequence[str]],
                    sources: Sequence[str]) -> str:
    checks = [_check(r) for r in results]
    spec = results[0].job.spec
    lines = [f"# Survey of {len(results)} layout × deployment card pair(s)", "",
             f"Probe: a {spec.probe.describe()} model on every {spec.step:g}\" cell where one "
             f"can stand; each zone of influence sampled every {spec.zone_step:g}\" by a "
             f"{spec.viewer.describe()} model. Exposure is the share of the enemy zone's "
             "samples that see the probe (§7.1, §7.1.1; HIDDEN as the rules say); the safe area "
             "is the share of the table seen from no sample of a zone. The §9.3 column counts "
             "the terrain guidelines met (`tmg check-layout`).", ""]
    summaries = [r.summary() for r in results]

    def exp(i: int) -> float | None:
        s = summaries[i].get(EXPOSURE) or summaries[i].get(SAFE_AREA) or {}
        return s.get("mean") if EXPOSURE in summaries[i] else None

    def safe(i: int) -> float | None:
        s = summaries[i].get(EXPOSURE) or summaries[i].get(SAFE_AREA) or {}
        return s.get("safe_area")

    # layouts ranked by their mean over cards
    by_layout: dict[str, list[int]] = {}
    for i, r in enumerate(results):
        by_layout.setdefault(r.job.layout, []).append(i)
    rows = []
    for lay, idx in by_layout.items():
        ok = [checks[i][0] for i in idx]
        n = checks[idx[0]][1]
        rows.append((lay, _mean([exp(i) for i in idx]), _mean([safe(i) for i in idx]),
                     len(idx), f"{min(ok)}–{max(ok)} of {n}" if min(ok) != max(ok)
                     else f"{ok[0]} of {n}"))
    rows.sort(key=lambda r: (r[1] if r[1] is not None else 2.0, -(r[2] or 0.0), r[0]))
    if len(rows) > 1:
        lines += ["## Layouts, least exposed first", "",
                  "| rank | layout | cards | mean exposure | safe area | §9.3 guidelines met |",
                  "|---:|---|---:|---:|---:|---|"]
        for k, (lay, e, s, n, chk) in enumerate(rows, 1):
            lines.append(f"| {k} | {lay} | {n} | {_pct(e)} | {_pct(s)} | {chk} |")
        lines.append("")
    order = sorted(range(len(results)), key=lambda i: (
        exp(i) if exp(i) is not None else 2.0, -(safe(i) or 0.0), results[i].job.layout,
        results[i].job.deployment))
    safe_rank = {i: k for k, i in enumerate(sorted(range(len(results)),
                                                   key=lambda i: -(safe(i) or 0.0)), 1)}
    lines += ["## Every layout × card, least exposed first", "",
              "| rank | layout | card | mean exposure | safe area (rank) | marker exposure | "
              "§9.3 guidelines met |", "|---:|---|---|---:|---:|---:|---|"]
    for k, i in enumerate(order, 1):
        r = results[i]
        m = summaries[i].get(MARKERS, {})
        lines.append(f"| {k} | [{r.job.layout}](#{_anchor(r)}) | {r.job.deployment} | "
                     f"{_pct(exp(i))} | {_pct(safe(i))} ({safe_rank[i]}) | "
                     f"{_pct(m.get('mean'))} | {checks[i][0]} of {checks[i][1]} |")
    lines.append("")
    for i in order:
        lines += _section(results[i], summaries[i], checks[i], images[i],
                          sources[i] if i < len(sources) else results[i].job.layout)
    return "\n".join(lines)


def _section(r: SurveyResult, summary: dict[str, Any], check: tuple[int, int, list[Any]],
             images: Sequence[str], source: str) -> list[str]:
    lines = [f"## {r.job.layout} · {r.job.deployment}", f"<a id=\"{_anchor(r)}\"></a>", "",
             f"From `{source}`; {int(r.stands.sum())} points where a probe stands; numbers in "
             f"[`{folder_name(r)}/points.csv`]({folder_name(r)}/points.csv).", ""]
    if EXPOSURE in summary:
        for o, z in summary[EXPOSURE]["by_zone"].items():
            lines.append(f"- exposure to the {o} zone: mean {_pct(z['mean'])} (open "
                         f"{_pct(z['open'])}, high ground cover {_pct(z['in_cover'])}), "
                         f"safe area {_pct(z['safe_area'])} ({z['safe_area_sq_in']:.0f} sq in)")
    if MARKERS in summary:
        for mid, mk in summary[MARKERS]["by_marker"].items():
            if all(v is None for v in mk["exposure"].values()):
                exposure = "no model can stand on its centre"
            else:
                exposure = "exposure " + ", ".join(f"{o} {_pct(v)}"
                                                   for o, v in mk["exposure"].items())
            seen = ", ".join(f"{o} {_pct(v)}" for o, v in mk["seen"].items())
            lines.append(f"- marker {mid} ({mk['elevation']}): {exposure}; the marker seen from "
                         f"{seen}; contest reach {mk['contest_area_sq_in']:.0f} sq in")
    ok, n, findings = check
    lines += ["", f"§9.3 layout check: {ok} of {n} guidelines met.", ""]
    lines += [f"- [{'ok' if f.ok else 'NO'}] {f.rule}: {f.detail}" for f in findings]
    lines.append("")
    lines += [f"![{r.job.layout} · {r.job.deployment}: {img[:-4]}]({folder_name(r)}/{img})"
              for img in images]
    return lines + [""]


def _anchor(r: SurveyResult) -> str:
    return folder_name(r).replace(".", "-")
