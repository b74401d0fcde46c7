"""Memory stays bounded whatever the scene (issue: a large scene once made the exact search
allocate an (N, N) array of many GiB): the search works in blocks — candidate lines, (segment,
part) rows, groups of jobs, pairs of the sight matrix — and the blocks never change an answer.
Measured with tracemalloc (numpy reports its allocations to it), not with time."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from shapely.geometry import Polygon

import geom.lines._candidates as candidates
import geom.lines._line_obstacles as obstacles
import geom.lines._segments as segments
import geom.sight._matrix as sight_matrix
from geom.lines._line_obstacles import PreparedObstacles
from geom.lines._segments import search_clear_segment
from geom.model import Ellipse
from geom.sight._table import SightContext
from tests.test_segments import brute_force
from tests.test_sight_props import random_scene


def comb(y: float, x0: float, x1: float, step: float, h: float = 0.05) -> Polygon:
    """A wall along y from x0 to x1 whose top is a row of teeth `step` apart: many corners."""
    n = int(round((x1 - x0) / step))
    xs = np.linspace(x0, x1, 2 * n + 1)
    top = [(x, y + (h if k % 2 else 0.0)) for k, x in enumerate(xs)]
    return Polygon(top + [(x1, y - 0.3), (x0, y - 0.3)])


def test_search_memory_is_bounded_on_a_wall_of_many_corners():
    """Two toothed walls, each with a gap, the gaps out of line: no line joins the bases, no
    single convex part separates them, so every candidate stage runs over ~300 corner pins.
    Testing all lines through two pins against all parts at once would take (pins² / 2) × parts ×
    6 edges × 8 bytes — over a GiB here; the blocked search stays under 64 MB."""
    step = 0.02
    walls = [comb(4.0, 4.0, 9.95, step), comb(4.0, 10.05, 16.0, step),
             comb(7.0, 4.0, 11.0, step), comb(7.0, 11.1, 16.0, step)]
    obs = PreparedObstacles.build(walls)
    a, b = Ellipse(10, 0, 1.5, 1.5), Ellipse(10, 11, 1.5, 1.5)
    seen: list[int] = []
    original = candidates.stage_two

    def counting(pins, jobs, done):
        seen.append(len(pins.X))
        yield from original(pins, jobs, done)

    segments.stage_two = counting  # type: ignore[assignment]
    try:
        tracemalloc.start()
        res = search_clear_segment(a, b, obs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        segments.stage_two = original  # type: ignore[assignment]
    assert res.witness is None
    assert brute_force(a, b, walls, 24) is None
    pins = seen[0]
    naive = pins * (pins - 1) / 2 * len(obs.part_box) * 6 * 8
    assert pins > 250 and naive > 2**30
    assert peak < 64 * 2**20, peak


def test_blocks_never_change_an_answer(monkeypatch):
    """The same random scenes with every block size shrunk to a handful (pairs, rows, lines,
    vertices per group): identical codes and witnesses."""
    rng = np.random.default_rng(99)
    scenes = [random_scene(rng) for _ in range(25)]
    before = []
    for bf in scenes:
        models = list(bf.models())
        mat = sight_matrix.sight_matrix(SightContext(bf), models, models)
        before.append((mat.code.copy(), mat.witness.copy()))
    monkeypatch.setattr(sight_matrix, "PAIR_BLOCK", 3)
    monkeypatch.setattr(obstacles, "ROW_BUDGET", 7)
    monkeypatch.setattr(candidates, "LINE_BUDGET", 5)
    monkeypatch.setattr(segments, "VERTEX_BUDGET", 4)
    monkeypatch.setattr(obstacles, "MANY_PARTS", 2)  # the prepared-shape path too
    for bf, (code, witness) in zip(scenes, before, strict=True):
        models = list(bf.models())
        mat = sight_matrix.sight_matrix(SightContext(bf), models, models)
        assert (mat.code == code).all()
        vis = code == 0
        assert np.allclose(mat.witness[vis], witness[vis], atol=1e-9)


@pytest.mark.parametrize("budget", [1, 3, 50])
def test_row_blocks_cover_every_row_once(budget):
    counts = np.array([0, 3, 1, 0, 5, 2])
    rows = [(int(k), int(j)) for kk, jj in obstacles.row_blocks(counts, budget)
            for k, j in zip(kk, jj, strict=True)]
    assert rows == [(k, j) for k, c in enumerate(counts) for j in range(c)]
    assert all(len(kk) <= budget for kk, _ in obstacles.row_blocks(counts, budget))
