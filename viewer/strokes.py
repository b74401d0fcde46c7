"""The pixel geometry of strokes: dashes (`dash_segments`) and each segment as two triangles
with square caps (`segment_quads`). Pure numpy; the OpenGL drawing and the SVG writer agree
on these lengths (the SVG writer uses `stroke-dasharray` with the same on/off lengths)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .scene import Stroke, Transform

DASH_GAP = 0.7  # a gap is this share of a dash


def stroke_pixels(s: Stroke, tr: Transform | None, u: float) -> np.ndarray:
    """A stroke's points in pixels (through `tr`, or already pixels), shifted, closed."""
    pts = np.asarray(s.points, dtype=float)
    if tr is not None:
        pts = tr.apply(pts)
    pts = pts + np.array(s.shift) * u
    if s.closed:
        pts = np.vstack([pts, pts[:1]])
    return pts


def segment_quads(segs: np.ndarray, width: float) -> np.ndarray:
    """Triangles (flat x,y list) for segments (n, 2, 2) drawn `width` px wide, with square
    caps half a width long so that consecutive segments join without notches."""
    if len(segs) == 0:
        return np.zeros(0)
    a, b = segs[:, 0, :], segs[:, 1, :]
    d = b - a
    length = np.hypot(d[:, 0], d[:, 1])
    keep = length > 1e-9
    a, b, d, length = a[keep], b[keep], d[keep], length[keep]
    if len(a) == 0:
        return np.zeros(0)
    t = d / length[:, None] * (width / 2)
    n = np.stack([-t[:, 1], t[:, 0]], axis=1)
    a, b = a - t, b + t
    p1, p2, p3, p4 = a + n, b + n, b - n, a - n
    tris = np.stack([p1, p2, p3, p1, p3, p4], axis=1)
    return tris.reshape(-1)


def dash_segments(pts: np.ndarray, on: float, off: float) -> np.ndarray:
    """Split a polyline (pixels) into dashes `on` px long with `off` px gaps."""
    out = []
    pos, draw, left = 0.0, True, on
    for p, q in zip(pts[:-1], pts[1:], strict=False):
        seg = float(np.hypot(*(q - p)))
        start = 0.0
        while seg - start > 1e-9:
            step = min(left, seg - start)
            if draw:
                out.append([p + (q - p) * (start / seg), p + (q - p) * ((start + step) / seg)])
            start += step
            left -= step
            if left <= 1e-9:
                draw = not draw
                left = on if draw else off
        pos += seg
    return np.array(out, dtype=float).reshape(-1, 2, 2)
