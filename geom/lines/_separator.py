"""A quick proof that no line joins two bases: one convex piece of terrain that separates them
(rulebook §7.1 "every line from base to base crosses terrain"; the exact search, `geom.lines._segments`,
uses it before enumerating candidate lines).

The two outer common tangents of disjoint bases a and b bound their convex hull H; their gap
segments are the two sides of H between the bases. If one convex part of an obstacle meets
*neither* base but meets *both* sides, the chord joining those two points lies in the part and
cuts H into a piece holding a and a piece holding b (a and b are connected and miss the chord).
Every segment from a to b lies in H, so it meets the part: blocked. The part is one of the convex
pieces of the obstacle shrunk by 1e-6" + 1e-9" (`geom.lines._line_obstacles`), so meeting it is crossing.
A False answer says nothing; the full search decides.

>>> from shapely.geometry import box
>>> from geom.model import Ellipse
>>> from geom.lines._line_obstacles import PreparedObstacles, job_parts
>>> from geom.lines._tangents import Frames
>>> obs = PreparedObstacles.build([box(4, -3, 5, 3), box(4, 2, 5, 9)])
>>> fa = Frames.of([Ellipse(0, 0, 0.5, 0.5)] * 2)
>>> fb = Frames.of([Ellipse(10, 0, 0.5, 0.5)] * 2)
>>> jp = job_parts(obs, np.array([0, 1, 2]), np.array([0, 1]))   # job 0: wall; job 1: the other
>>> separated(fa, fb, np.array([0, 1]), jp, obs).tolist()
[True, False]
"""

from __future__ import annotations

import numpy as np
import shapely

from ..tolerance import ROUND_OFF
from ._line_obstacles import (
    EX,
    EY,
    NX,
    NY,
    C,
    Jobs,
    PreparedObstacles,
    X,
    Y,
    hits_paired,
    job_parts,
    row_blocks,
)
from ._tangents import Frames, outer_sides


def part_meets_base(c: np.ndarray, M: np.ndarray, obs: PreparedObstacles, part: np.ndarray
                    ) -> np.ndarray:
    """Row k: does convex part ``part[k]`` meet the base with centre c[k] and frame map M[k]?
    In the base's frame the base is the unit disc: the part meets it iff the origin is inside
    the mapped part or within 1 of one of its edges."""
    cx, cy = c[:, 0, None], c[:, 1, None]
    g = obs.part_pack[part]
    inside = (g[:, NX] * cx + g[:, NY] * cy <= g[:, C]).all(axis=1)
    dx, dy = g[:, X] - cx, g[:, Y] - cy
    m00, m01, m10, m11 = M[:, 0, 0, None], M[:, 0, 1, None], M[:, 1, 0, None], M[:, 1, 1, None]
    qx, qy = m00 * dx + m01 * dy, m10 * dx + m11 * dy
    ex0, ey0 = g[:, EX], g[:, EY]
    ex, ey = m00 * ex0 + m01 * ey0, m10 * ex0 + m11 * ey0
    ee = ex * ex + ey * ey
    t = np.clip(-(qx * ex + qy * ey) / np.where(ee > 0, ee, 1.0), 0.0, 1.0)
    fx, fy = qx + t * ex, qy + t * ey
    return inside | ((fx * fx + fy * fy).min(axis=1) <= (1.0 + ROUND_OFF) ** 2)


def separated(fa: Frames, fb: Frames, idx: np.ndarray, jobs: Jobs, obs: PreparedObstacles
              ) -> np.ndarray:
    """Row k: True when one convex part of the obstacles of job ``idx[k]`` separates base fa[k]
    from base fb[k] (see the module docstring). The bases must be disjoint."""
    n = len(fa)
    out = np.zeros(n, dtype=bool)
    sides, good = outer_sides(fa, fb)
    if not good.any():
        return out
    # a part must come within the box of each side (cheap, and most parts fail it)
    lo, hi = sides.min(axis=2), sides.max(axis=2)  # (n, 2 sides, 2)
    first = jobs.part_ptr[idx]
    counts = np.where(good, jobs.part_ptr[idx + 1] - first, 0)
    for k, j in row_blocks(counts):
        part = jobs.parts[first[k] + j]
        pb = obs.part_box[part][:, None, :]
        near = ((pb[..., 0] <= hi[k, :, 0]) & (pb[..., 2] >= lo[k, :, 0])
                & (pb[..., 1] <= hi[k, :, 1]) & (pb[..., 3] >= lo[k, :, 1])).all(axis=1)
        k, part = k[near], part[near]
        if not len(k):
            continue
        for side in range(2):
            s = sides[k, side]
            hit = hits_paired(s[:, 0], s[:, 1], obs, part)
            k, part = k[hit], part[hit]
        if not len(k):
            continue
        # a part whose box misses both bases' boxes meets neither base
        pb = obs.part_box[part]
        free = np.ones(len(k), dtype=bool)
        for f in (fa, fb):
            c, r = f.c[k], f.a[k]
            free &= ((pb[:, 0] > c[:, 0] + r) | (pb[:, 2] < c[:, 0] - r)
                     | (pb[:, 1] > c[:, 1] + r) | (pb[:, 3] < c[:, 1] - r))
        out[k[free]] = True
        k, part = k[~free & ~out[k]], part[~free & ~out[k]]
        if not len(k):
            continue
        meets = part_meets_base(np.concatenate([fa.c[k], fb.c[k]]),
                                np.concatenate([fa.M[k], fb.M[k]]), obs,
                                np.concatenate([part, part])).reshape(2, -1).any(axis=0)
        out[k[~meets]] = True
    return out


def pair_separated(fa: Frames, fb: Frames, rows: np.ndarray, obs: PreparedObstacles) -> bool:
    """`separated` for one pair of disjoint bases (one-row `Frames`) and obstacle rows, tried
    first on the obstacles that are a single convex part (most walls): two prepared-shape tests
    (GEOS) against the two sides, and a box test that keeps the part clear of both bases — a few
    calls instead of the vectorised machinery. Any other case goes to `separated`."""
    sides, good = outer_sides(fa, fb)
    if not good[0]:
        return False
    single = rows[obs.part_ptr[rows + 1] - obs.part_ptr[rows] == 1]
    if len(single):
        both = np.asarray(shapely.intersects(shapely.linestrings(sides[0])[:, None],
                                             obs.tests[single][None, :]), dtype=bool).all(axis=0)
        hit = single[both]
        if len(hit):
            pb = obs.boxes[hit]
            free = np.ones(len(hit), dtype=bool)
            for f in (fa, fb):
                (cx, cy), r = f.c[0], f.a[0]
                free &= ((pb[:, 0] > cx + r) | (pb[:, 2] < cx - r) | (pb[:, 1] > cy + r)
                         | (pb[:, 3] < cy - r))
            if free.any():
                return True
    return bool(separated(fa, fb, np.array([0]), job_parts(obs, np.array([0, len(rows)]), rows),
                          obs)[0])
