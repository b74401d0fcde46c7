"""A quick proof that no line joins two bases: one convex piece of terrain that separates them
(rulebook §7.1 "every line from base to base crosses terrain"; the exact search, `geom.segments`,
uses it before enumerating candidate lines).

The two outer common tangents of disjoint bases a and b bound their convex hull H; their gap
segments are the two sides of H between the bases. If one convex part of an obstacle meets
*neither* base but meets *both* sides, the chord joining those two points lies in the part and
cuts H into a piece holding a and a piece holding b (a and b are connected and miss the chord).
Every segment from a to b lies in H, so it meets the part: blocked. The part is one of the convex
pieces of the obstacle shrunk by 1e-6" + 1e-9" (`geom.obstacles`), so meeting it is crossing.
A False answer says nothing; the full search decides.

>>> from shapely.geometry import box
>>> from geom.model import Ellipse
>>> from geom.obstacles import PreparedObstacles, job_parts
>>> from geom.tangents import Frames, common_tangents
>>> obs = PreparedObstacles.build([box(4, -3, 5, 3), box(4, 2, 5, 9)])
>>> fa = Frames.of([Ellipse(0, 0, 0.5, 0.5)] * 2)
>>> fb = Frames.of([Ellipse(10, 0, 0.5, 0.5)] * 2)
>>> jp = job_parts(obs, np.array([0, 1, 2]), np.array([0, 1]))   # job 0: wall; job 1: the other
>>> separated(fa, fb, common_tangents(fa, fb), np.array([0, 1]), *jp, obs).tolist()
[True, False]
"""

from __future__ import annotations

import numpy as np

from .obstacles import PreparedObstacles, hits_paired, row_blocks
from .tangents import Frames, outer_sides


def part_meets_base(c: np.ndarray, M: np.ndarray, obs: PreparedObstacles, part: np.ndarray
                    ) -> np.ndarray:
    """Row k: does convex part ``part[k]`` meet the base with centre c[k] and frame map M[k]?
    In the base's frame the base is the unit disc: the part meets it iff the origin is inside
    the mapped part or within 1 of one of its edges."""
    cx, cy = c[:, 0, None], c[:, 1, None]
    inside = (obs.part_nx[part] * cx + obs.part_ny[part] * cy <= obs.part_c[part]).all(axis=1)
    dx, dy = obs.part_x[part] - cx, obs.part_y[part] - cy
    qx = M[:, 0, 0, None] * dx + M[:, 0, 1, None] * dy
    qy = M[:, 1, 0, None] * dx + M[:, 1, 1, None] * dy
    ex, ey = np.roll(qx, -1, axis=1) - qx, np.roll(qy, -1, axis=1) - qy
    ee = ex * ex + ey * ey
    t = np.clip(-(qx * ex + qy * ey) / np.where(ee > 0, ee, 1.0), 0.0, 1.0)
    fx, fy = qx + t * ex, qy + t * ey
    return inside | ((fx * fx + fy * fy).min(axis=1) <= (1.0 + 1e-12) ** 2)


def separated(fa: Frames, fb: Frames, tangents: tuple[np.ndarray, np.ndarray, np.ndarray],
              jobs: np.ndarray, jp_ptr: np.ndarray, jp_parts: np.ndarray,
              obs: PreparedObstacles) -> np.ndarray:
    """Row k: True when one convex part of the obstacles of job ``jobs[k]`` (CSR
    ``jp_ptr``/``jp_parts`` over jobs) separates base fa[k] from base fb[k] (see the module
    docstring). The bases must be disjoint; `tangents` are their `common_tangents`."""
    n = len(fa)
    out = np.zeros(n, dtype=bool)
    sides, good = outer_sides(fa, fb, *tangents)
    if not good.any():
        return out
    # a part must come within the box of each side (cheap, and most parts fail it)
    lo0, hi0 = sides[:, 0].min(axis=1), sides[:, 0].max(axis=1)
    lo1, hi1 = sides[:, 1].min(axis=1), sides[:, 1].max(axis=1)
    first = jp_ptr[jobs]
    counts = np.where(good, jp_ptr[jobs + 1] - first, 0)
    for k, j in row_blocks(counts):
        part = jp_parts[first[k] + j]
        pb = obs.part_box[part]
        near = ~out[k]
        for lo, hi in ((lo0, hi0), (lo1, hi1)):
            near &= ((pb[:, 0] <= hi[k, 0]) & (pb[:, 2] >= lo[k, 0]) & (pb[:, 1] <= hi[k, 1])
                     & (pb[:, 3] >= lo[k, 1]))
        k, part = k[near], part[near]
        if not len(k):
            continue
        s = sides[k]
        hit = hits_paired(s[:, 0, 0], s[:, 0, 1], obs, part)
        hit &= hits_paired(s[:, 1, 0], s[:, 1, 1], obs, part)
        k, part = k[hit], part[hit]
        if not len(k):
            continue
        free = ~part_meets_base(fa.c[k], fa.M[k], obs, part)
        free &= ~part_meets_base(fb.c[k], fb.M[k], obs, part)
        out[k[free]] = True
    return out
