"""Survey heatmaps as the viewer's scene primitives (what `tmg survey` draws; the measures are
those of `survey`: exposure §7.1–§7.1.3, safe area, markers §8.9.1, charge threat §8.7.7).

Each picture is an `OverlayLayer` laid over the ordinary table scene (`viewer.scene.build_scene`),
so every backend that draws a scene draws it (PNG and SVG): grid cells as filled `Area`s (cells
of one colour class joined into one area), terrain and zone outlines redrawn above them, the
samples of the zone concerned as dots, and a colour bar (a `ramp` legend entry whose stops are
the classes, low to high) or, for categories, one swatch per class. Cells where no probe can
stand are left unfilled, so the terrain shows through.

>>> [c for c, _ in exposure_classes()][:2] == [SAFE, ramp(0.0)]
True
>>> [t for _, t in exposure_classes()][:3]
['seen from nowhere (safe)', 'up to 10% of the zone', '10–20%']
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from survey import CHARGE_THREAT, EXPOSURE, MARKERS, SAFE_AREA, SurveyResult

from . import draw, png, svg
from . import style as st
from .layout import frame_for_width
from .markings import LegendEntry
from .scene import (
    L_UNDER,
    OverlayLayer,
    Prim,
    build_scene,
    outline,
)
from .scene import Area as AreaPrim

L_HEAT = 9  # above every terrain fill (cells on raised tops must show), below markers and text
HEAT_ALPHA = 205
SAFE: st.RGBA = (46, 170, 120, HEAT_ALPHA)
NO_ROLL: st.RGBA = (176, 184, 196, HEAT_ALPHA)  # grey-blue: apart from the mat of unpainted cells
SEEN_BOTH: st.RGBA = (120, 40, 40, HEAT_ALPHA)
SAMPLE_DOT: st.RGBA = (30, 30, 30, 220)
CONTEST_EDGE: st.RGBA = (0, 0, 0, 255)
# light yellow → orange → dark red (readable under terrain labels, distinct from zone tints)
_RAMP = ((255, 244, 170), (253, 190, 90), (240, 110, 50), (200, 40, 40), (110, 10, 40))


def ramp(t: float) -> st.RGBA:
    """Colour at t in [0, 1] on the heat ramp."""
    t = min(1.0, max(0.0, t)) * (len(_RAMP) - 1)
    i = min(int(t), len(_RAMP) - 2)
    f = t - i
    a, b = _RAMP[i], _RAMP[i + 1]
    r, g, bl = (round(a[k] + (b[k] - a[k]) * f) for k in range(3))
    return (r, g, bl, HEAT_ALPHA)


def exposure_classes() -> list[tuple[st.RGBA, str]]:
    """The colour bar of an exposure map: safe, then ten 10% bins."""
    out = [(SAFE, "seen from nowhere (safe)")]
    for i in range(10):
        text = "up to 10% of the zone" if i == 0 else f"{10 * i}–{10 * (i + 1)}%"
        out.append((ramp(i / 9), text))
    return out


def exposure_class(share: np.ndarray) -> np.ndarray:
    """Class index per cell (0 safe, 1..10 the 10% bins; −1 no value)."""
    out = np.full(len(share), -1, dtype=np.int64)
    ok = np.isfinite(share)
    s = share[ok]
    cls = np.where(s <= 0, 0, np.clip(np.ceil(s * 10 - 1e-9), 1, 10)).astype(np.int64)
    out[ok] = cls
    return out


def bar(classes: Sequence[tuple[st.RGBA, str]], text: str,
        ticks: Sequence[tuple[float, str]]) -> LegendEntry:
    """A colour bar of equal steps, one per class (each a flat band: the cells are classed,
    not shaded continuously)."""
    n = len(classes)
    stops = tuple(s for i, (c, _) in enumerate(classes) for s in ((i / n, c), ((i + 1) / n, c)))
    return LegendEntry("ramp", classes[0][0], text, stops=stops, ticks=tuple(ticks))


NO_PROBE = LegendEntry("fill", st.MAT, "no model can stand here", st.TERRAIN_EDGE)


def charge_classes() -> list[tuple[st.RGBA, str]]:
    out = [(ramp(1 - (r - 1) / 5), f"charged on a {r}+" if r > 1 else "charged on any roll")
           for r in range(1, 7)]
    return out + [(NO_ROLL, "no roll reaches it")]


@dataclass(frozen=True)
class Picture:
    """One heatmap: file stem, title, subtitle and the layer drawn over the table."""

    name: str
    title: str
    subtitle: str
    layer: OverlayLayer


def _cells(res: SurveyResult, mask: np.ndarray) -> BaseGeometry:
    c = res.grid.cells()[mask]
    if not len(c):
        return shapely.Polygon()
    return shapely.union_all(shapely.box(c[:, 0], c[:, 1], c[:, 2], c[:, 3]))


def _class_areas(res: SurveyResult, cls: np.ndarray, classes: Sequence[tuple[st.RGBA, str]],
                 tag: str) -> tuple[list[Prim], list[LegendEntry]]:
    """One area per class (its cells joined), and a swatch per class."""
    prims: list[Prim] = []
    legend: list[LegendEntry] = []
    for i, (colour, text) in enumerate(classes):
        mask = cls == i
        if mask.any():
            prims.append(AreaPrim(_cells(res, mask), colour, L_HEAT, f"heat:{tag}:{i}"))
        legend.append(LegendEntry("fill", colour, text, st.TERRAIN_EDGE))
    return prims, legend


_PCT_TICKS = tuple((i / 5, f"{20 * i}%") for i in range(6))


def _frame_prims(res: SurveyResult, owner: str | None) -> list[Prim]:
    """Terrain and zone outlines over the cells, and the samples of `owner`'s zone."""
    out: list[Prim] = []
    for p in res.bf.terrain:
        out += outline(p.footprint, st.TERRAIN_EDGE, st.TERRAIN_EDGE_WIDTH, L_UNDER,
                       tag=f"heat:terrain:{p.id}")
    dep = res.bf.deployment
    if dep is not None:
        for o, zone in dep.zones.items():
            out += outline(zone, st.OWNER.get(o, st.TEXT), 2.5, L_UNDER, dash=10,
                           tag=f"heat:zone:{o}")
    if owner is not None:
        for x, y in res.zones[owner].points:
            out.append(AreaPrim(shapely.Point(x, y).buffer(0.09, quad_segs=4), SAMPLE_DOT,
                                L_UNDER, "heat:sample"))
    return out


def _contest_outlines(res: SurveyResult) -> list[Prim]:
    out: list[Prim] = []
    for m in res.markers:
        cells = np.zeros(len(res.grid), dtype=bool)
        cells[np.array(m["contest_cells"], dtype=np.int64)] = True
        if cells.any():
            out += outline(_cells(res, cells), CONTEST_EDGE, 2.6, L_UNDER, dash=6,
                           tag=f"heat:contest:{m['id']}")
    return out


def _probe_words(res: SurveyResult) -> str:
    return f"a {res.job.spec.probe.describe()} model"


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.0f}%"


def _info(res: SurveyResult, measure: str, owner: str | None = None) -> list[str]:
    s = res.summary()[measure]
    z = s["by_zone"][owner] if owner is not None and "by_zone" in s else s
    pct = _pct
    if measure == EXPOSURE and owner is not None:
        return [f"Exposure to the {owner} zone: mean {pct(z['mean'])} (in the open "
                f"{pct(z['open'])}, in high ground cover {pct(z['in_cover'])}); safe "
                f"{pct(z['safe_area'])} of the table ({z['safe_area_sq_in']:.0f} sq in), from "
                f"{z['samples']} samples every {res.job.spec.zone_step:g}\" (§7.1)."]
    if measure == CHARGE_THREAT and owner is not None:
        c = res.job.spec.charger
        assert c is not None
        mean = "–" if z["mean"] is None else f"{z['mean']:.1f}"
        return [f"Charge threat of {c.type} (Speed {c.speed}, modifier {c.modifier:+g}\") from "
                f"the {owner} zone: {pct(z['reach'])} of the points can be charged; mean "
                f"roll needed {mean} (§8.7.7)."]
    return []


def exposure_picture(res: SurveyResult, owner: str) -> Picture:
    share = res.columns[f"exposure_{owner}_zone"]
    classes = exposure_classes()
    prims, swatches = _class_areas(res, exposure_class(share), classes, f"exposure:{owner}")
    prims += _frame_prims(res, owner) + _contest_outlines(res)
    legend = [swatches[0], NO_PROBE,
              bar(classes[1:], f"seen from this share of the {owner} zone", _PCT_TICKS),
              LegendEntry("disc", SAMPLE_DOT, f"{owner} zone sample")]
    if res.markers:
        legend.append(LegendEntry("dash", CONTEST_EDGE, "contest reach of a marker"))
    info = [f"Each {res.grid.step:g}\" cell: the share of the {owner} zone of influence from "
            f"which {_probe_words(res)} standing there is seen."] + _info(res, EXPOSURE, owner)
    return Picture(f"exposure-from-{owner}", f"{_title(res)} — exposure to the {owner} zone",
                   _subtitle(res), OverlayLayer(prims, legend, info))


def _who_sees(a: str, b: str, neither: str, both: str) -> list[tuple[st.RGBA, str]]:
    """Classes 0..3: seen from neither zone, only from b's, only from a's, from both (the
    colour says who sees the cell)."""
    return [(SAFE, neither),
            (st.with_alpha(st.OWNER.get(b, st.TEXT), 150), f"seen from {b} only"),
            (st.with_alpha(st.OWNER.get(a, st.TEXT), 150), f"seen from {a} only"),
            (SEEN_BOTH, both)]


def safe_picture(res: SurveyResult) -> Picture:
    a, b = res.owners
    sa, sb = res.columns[f"safe_{a}_zone"], res.columns[f"safe_{b}_zone"]
    cls = np.full(len(res.grid), -1, dtype=np.int64)
    ok = np.isfinite(sa) & np.isfinite(sb)
    cls[ok & (sa == 1) & (sb == 1)] = 0
    cls[ok & (sa == 1) & (sb == 0)] = 1
    cls[ok & (sa == 0) & (sb == 1)] = 2
    cls[ok & (sa == 0) & (sb == 0)] = 3
    classes = _who_sees(a, b, "unseen from both zones", "seen from both")
    prims, legend = _class_areas(res, cls, classes, "safe")
    legend.append(NO_PROBE)
    prims += _frame_prims(res, None) + _contest_outlines(res)
    s = res.summary()[SAFE_AREA]["by_zone"]
    info = [f"Safe from the {o} zone: {100 * s[o]['safe_area']:.0f}% of the table "
            f"({s[o]['safe_area_sq_in']:.0f} sq in)." for o in res.owners]
    info.insert(0, f"Each {res.grid.step:g}\" cell: which zones of influence see "
                f"{_probe_words(res)} standing there (safe: no sample of the zone sees it).")
    return Picture("safe-area", f"{_title(res)} — safe area", _subtitle(res),
                   OverlayLayer(prims, legend, info))


def markers_picture(res: SurveyResult) -> Picture:
    a, b = res.owners
    cls = np.full(len(res.grid), -1, dtype=np.int64)
    for m in res.markers:
        cells = np.array(m["contest_cells"], dtype=np.int64)
        if not len(cells):
            continue
        ua = np.array(m["contest_seen"][a]) == 0
        ub = np.array(m["contest_seen"][b]) == 0
        cls[cells] = np.select([ua & ub, ua, ub], [0, 1, 2], 3)
    classes = _who_sees(a, b, "contest unseen", "contest seen from both")
    prims, legend = _class_areas(res, cls, classes, "markers")
    prims += _frame_prims(res, None) + _contest_outlines(res)
    info = []
    for m in res.markers:
        if all(m["exposure"][o] is None for o in res.owners):
            exp = "no model can stand on its centre"
        else:
            exp = "exposure on it " + ", ".join(f"{o} zone {_pct(m['exposure'][o])}"
                                                for o in res.owners)
        seen = ", ".join(f"{o} {_pct(m['seen'][o])}" for o in res.owners)
        info.append(f"Marker {m['id']} ({m['elevation']}): {exp}; the marker itself seen from "
                    f"{seen}; contested from {len(m['contest_cells'])} cells (§8.9.1: within "
                    "3\", sees it, same elevation).")
    legend.append(LegendEntry("dash", CONTEST_EDGE, "contest reach of a marker"))
    info.insert(0, f"Cells from which {_probe_words(res)} contests a marker, coloured by the "
                "zones of influence that see it there.")
    return Picture("markers", f"{_title(res)} — mission markers", _subtitle(res),
                   OverlayLayer(prims, legend, info))


def charge_picture(res: SurveyResult, owner: str) -> Picture:
    roll = res.columns[f"charge_roll_{owner}_zone"]
    reach = res.columns[f"charge_reach_{owner}_zone"]
    cls = np.full(len(res.grid), -1, dtype=np.int64)
    ok = np.isfinite(roll)
    cls[ok] = roll[ok].astype(np.int64) - 1
    cls[np.isfinite(reach) & (reach == 0)] = 6
    classes = charge_classes()
    prims, swatches = _class_areas(res, cls, classes, f"charge:{owner}")
    prims += _frame_prims(res, None)
    ticks = [((i + 0.5) / 6, f"{i + 1}+") for i in range(6)]
    legend = [bar(classes[:6], "smallest D6 that charges it", ticks), swatches[6], NO_PROBE]
    for x, y in res.charge_starts[owner].points:
        prims.append(AreaPrim(shapely.Point(x, y).buffer(0.09, quad_segs=4), SAMPLE_DOT,
                              L_UNDER, "heat:start"))
    legend.append(LegendEntry("disc", SAMPLE_DOT, f"start of the leading model ({owner} zone)"))
    c = res.job.spec.charger
    assert c is not None
    info = [f"Each {res.grid.step:g}\" cell: the smallest D6 with which {c.type} (Speed "
            f"{c.speed}), its leading model anywhere in the {owner} zone, charges "
            f"{_probe_words(res)} standing there."] + _info(res, CHARGE_THREAT, owner)
    return Picture(f"charge-from-{owner}", f"{_title(res)} — charge threat from {owner}",
                   _subtitle(res), OverlayLayer(prims, legend, info))


def _subtitle(res: SurveyResult) -> str:
    p = res.job.spec.probe
    return (f'probe Size {p.size}{" HIDDEN" if p.hidden else ""} · {res.grid.step:g}" cells · '
            f'zone samples every {res.job.spec.zone_step:g}"')


def _title(res: SurveyResult) -> str:
    return f"{res.job.layout} · {res.job.deployment}"


def pictures(res: SurveyResult) -> list[Picture]:
    """Every heatmap for the measures the survey answered."""
    out: list[Picture] = []
    ms = res.measures
    if EXPOSURE in ms:
        out += [exposure_picture(res, o) for o in res.owners]
    if SAFE_AREA in ms:
        out.append(safe_picture(res))
    if MARKERS in ms:
        out.append(markers_picture(res))
    if CHARGE_THREAT in ms:
        out += [charge_picture(res, o) for o in res.owners]
    return out


def scene_of(res: SurveyResult, pic: Picture) -> Any:
    return build_scene(res.bf, [pic.layer], title=pic.title, subtitle=pic.subtitle)


def render(results: Sequence[SurveyResult], out_dirs: Sequence[Path], width: int = 1600,
           formats: Sequence[str] = ("png", "svg")) -> list[list[Path]]:
    """Draw every picture of every result into its folder, as PNG and SVG (each atomically);
    returns the paths written per result. PNG needs an OpenGL context (a display, Xvfb or
    headless EGL), drawn in one context for all the pictures; SVG needs none."""
    written: list[list[Path]] = []
    with contextlib.ExitStack() as stack:
        off = None
        if "png" in formats:
            off = stack.enter_context(draw.Offscreen())
        for res, d in zip(results, out_dirs, strict=True):
            paths = []
            for pic in pictures(res):
                scene = scene_of(res, pic)
                frame = frame_for_width(scene, width)
                if off is not None:
                    paths.append(d / f"{pic.name}.png")
                    png.write(paths[-1], off.render(scene, frame).top_down())
                if "svg" in formats:
                    paths.append(d / f"{pic.name}.svg")
                    svg.write(paths[-1], scene, frame)
            written.append(paths)
    return written


__all__ = ["Picture", "exposure_classes", "pictures", "render", "scene_of"]
