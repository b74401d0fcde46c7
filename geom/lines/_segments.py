"""Exact search for a clear segment joining two bases (rulebook §7.1 line of sight, §7.2.1
engagement "no terrain of Size 2+ between them", §8.7.6 step 3 template lines).

Question: is there a segment from a point of base ``a`` to a point of base ``b`` (discs or ovals)
that crosses no obstacle, optionally of length ≤ ``max_length``? The answer is decided from a
finite set of candidate segments (`geom.lines._candidates`), so it is exact — not a verdict from sampled
points. "Crosses" is defined, with its tolerance, in `geom.lines._line_obstacles`.

Exactness argument (no length bound)
    Write a line as (φ, s): direction φ, offset s. Lines meeting both bases form a compact region
    R; since the bases are disjoint convex sets, the directions in R lie in an interval shorter
    than π. On a line L of R the two chords are disjoint, and every a-to-b segment on L contains
    the *gap segment* g(L) between the chords' inner ends; so L carries a clear segment iff g(L)
    misses int(Q) for every obstacle. The set G of such lines is closed, hence compact. Take the
    line L* of G with the least φ, and among those the least s. The constraints that can be
    tight at L* are: "L tangent to a", "L tangent to b", and "L passes through a point X lying
    on g(L)" where X is a vertex of some Q or a point where a base's rim crosses an edge of Q
    (the gap's end lying on an edge). Each constraint is a curve s = f(φ), a graph over φ. If at
    most one curve passed through L*, G would contain lines of smaller φ beside L* (on the free
    side of that curve, or along it) — unless the only free directions through X are isolated,
    which happens exactly when L* runs along an edge of Q at X. So L* is one of:
      * the four common tangents of a and b;
      * the tangents from each point X to a and to b;
      * the line through two points X, Y;
      * the line along an edge of Q incident to a vertex X;
    with every X involved lying on the line's own gap segment. A vertex where Q's interior angle
    exceeds π cannot be tight unless it ends the gap (any line through it enters Q on one side),
    and a point strictly inside another obstacle never is. Only points inside the hull of a ∪ b
    matter (every gap segment lies in it); obstacles that miss the hull are dropped. Each
    candidate's gap segment is tested; any clear one is a witness, and if none is clear no clear
    segment exists.

Exactness argument (with a length bound ℓ)
    The least-φ argument no longer closes, because "gap ≤ ℓ" is not a graph over φ. Instead take
    L* ∈ G minimising the gap length (it exists: G is compact). A clear segment of length ≤ ℓ
    exists iff |g(L*)| ≤ ℓ, since on each line the gap is the shortest a-to-b segment. At L*:
      * no constraint tight → L* is a local minimum of |p − q| over a × b, which for convex bases
        is the global one: the nearest-points segment;
      * only "tangent to a" (or b) tight → impossible: moving the line into a by ε moves the
        gap's a-end forward by ~√ε while the b-end moves by O(ε), so the gap shrinks;
      * only "through X" tight → L* is a local minimum of the gap length among lines through X
        (`candidates.through_pin_minima`);
      * two constraints tight → one of the candidate lines listed above.
    So the candidates are those lines, the nearest-points segment, and the local minima through
    each X; the answer is the shortest clear candidate gap, compared with ℓ (+1e-6").

Order of work, for many jobs (pairs of bases with their own obstacles) at once
    1. the centre-to-centre segment (with a bound: the nearest-points segment);
    2. the separator proof of "blocked" (`geom.lines._separator`);
    3. stage one of the candidates; 4. stage two, in blocks, only for jobs still open.
    Jobs are processed in groups holding at most `VERTEX_BUDGET` obstacle vertices and every
    clearance test runs in bounded blocks (`geom.lines._line_obstacles`), so memory stays bounded whatever
    the scene: a single huge obstacle costs time, never an (N, N) array.

Overlapping bases (never a legal position) are answered by testing their common part (a 64-gon
approximation) and then the line candidates; the proof above assumes disjoint bases. Bases that
touch are joined by the zero-length segment at the contact point when it is clear.

>>> from shapely.geometry import box
>>> from geom.model import Ellipse
>>> a, b = Ellipse(0, 0, 0.5, 0.5), Ellipse(10, 0, 0.5, 0.5)
>>> find_clear_segment(a, b, [box(4, -3, 5, 3)]) is None
True
>>> seg = find_clear_segment(a, b, [box(4, -3, 5, 0.2)])   # a line passes above the wall
>>> seg is not None and seg[0][1] > 0.2 and seg[1][1] > 0.2
True
>>> find_clear_segment(a, b, [box(4, 0.6, 5, 3)], max_length=8.5)   # too far apart
>>> find_clear_segment(a, b, [box(4, 0.6, 5, 3)], max_length=9.0)
((0.5, 0.0), (9.5, 0.0))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from ..bases import ellipse_distances
from ..model import Ellipse, Point
from ..tolerance import BASES_TOUCH, QUERY_MARGIN, TOLERANCE
from ._candidates import make_pins, stage_one, stage_two, through_pin_minima
from ._line_obstacles import PreparedObstacles, job_parts, ranges, segments_clear
from ._separator import separated
from ._tangents import Frames, common_tangents

# how a job was decided
OPEN, FIRST, TOUCH, SEPARATED, FOUND, BLOCKED, TOO_FAR = range(7)
VERTEX_BUDGET = 1 << 14  # obstacle vertices of the jobs searched together



@dataclass(frozen=True)
class Searched:
    """Outcome for each job: a witness segment (NaN where none exists) and how it was decided."""

    witness: np.ndarray  # (J, 2, 2)
    how: np.ndarray  # (J,) FIRST | TOUCH | SEPARATED | FOUND | BLOCKED | TOO_FAR

    @property
    def clear(self) -> np.ndarray:
        return ~np.isnan(self.witness[:, 0, 0])


class _Run:
    """One call of `search_jobs`: shared arrays and the bookkeeping of decided jobs."""

    def __init__(self, fa: Frames, fb: Frames, obs: PreparedObstacles, job_ptr: np.ndarray,
                 job_rows: np.ndarray, limit: float | None) -> None:
        self.fa, self.fb, self.obs = fa, fb, obs
        self.job_ptr, self.job_rows, self.limit = job_ptr, job_rows, limit
        self.jp = job_parts(obs, job_ptr, job_rows)
        n = len(fa)
        self.witness = np.full((n, 2, 2), np.nan)
        self.how = np.zeros(n, dtype=np.int8)
        self.near_p = self.near_q = np.zeros((n, 2))  # nearest points (set where needed)

    def decide(self, jobs: np.ndarray, how: int, segs: np.ndarray | None = None) -> None:
        self.how[jobs] = how
        if segs is not None:
            self.witness[jobs] = segs

    def open(self, jobs: np.ndarray | None = None) -> np.ndarray:
        if jobs is None:
            return np.nonzero(self.how == OPEN)[0]
        return jobs[self.how[jobs] == OPEN]

    def try_segments(self, segs: np.ndarray, job: np.ndarray, how: int = FOUND) -> None:
        """Test candidate segments; the first clear one of each open job is its witness (with a
        length bound: the shortest clear one of those within the bound)."""
        live = self.how[job] == OPEN
        segs, job = segs[live], job[live]
        if self.limit is not None:
            length = np.hypot(*(segs[:, 1] - segs[:, 0]).T)
            keep = length <= self.limit
            segs, job, length = segs[keep], job[keep], length[keep]
            order = np.lexsort((length, job))
        else:
            order = np.argsort(job, kind="stable")
        segs, job = segs[order], job[order]
        clear = segments_clear(segs, job, self.jp, self.obs)
        idx = np.nonzero(clear)[0]
        if len(idx):
            jobs, first = np.unique(job[idx], return_index=True)
            self.decide(jobs, how, segs[idx[first]])

    def groups(self, jobs: np.ndarray) -> list[np.ndarray]:
        """Jobs in groups of at most VERTEX_BUDGET obstacle vertices (a job alone may exceed
        it: its arrays are then linear in its own vertices)."""
        counts = self.job_ptr[jobs + 1] - self.job_ptr[jobs]
        rows = self.job_rows[ranges(self.job_ptr[jobs], counts)]
        verts = self.obs.vert_ptr[rows + 1] - self.obs.vert_ptr[rows]
        per_job = np.zeros(len(jobs), dtype=np.int64)
        np.add.at(per_job, np.repeat(np.arange(len(jobs)), counts), verts)
        out, start, acc = [], 0, 0
        for k, v in enumerate(per_job.tolist()):
            if acc and acc + v > VERTEX_BUDGET:
                out.append(jobs[start:k])
                start, acc = k, 0
            acc += v
        if start < len(jobs):
            out.append(jobs[start:])
        return out


def _first_segments(run: _Run) -> tuple[np.ndarray, np.ndarray]:
    """The segment tried first for each job and the gap between the bases (for ovals clearly
    apart without a bound, a lower bound > 1e-9 that only says "apart")."""
    fa, fb = run.fa, run.fb
    v = fb.c - fa.c
    cd = np.hypot(v[:, 0], v[:, 1])
    gap = cd - fa.a - fb.a
    disc = fa.disc & fb.disc
    gap = np.where(disc, np.maximum(gap, 0.0), gap)
    u = v / np.where(cd > 0, cd, 1.0)[:, None]
    u[cd == 0] = (1.0, 0.0)
    near_p = fa.c + fa.a[:, None] * u
    near_q = fb.c - fb.a[:, None] * u
    need = np.nonzero(~disc & ((run.limit is not None) | (gap <= BASES_TOUCH)))[0].tolist()
    if len(need):
        d, p, q = ellipse_distances([fa.ellipse(k) for k in need], [fb.ellipse(k) for k in need])
        gap[need], near_p[need], near_q[need] = d, p, q
    run.near_p, run.near_q = near_p, near_q
    if run.limit is not None:
        return np.stack([near_p, near_q], axis=1), gap
    return np.stack([fa.c, fb.c], axis=1), gap


def _touching_witness(run: _Run, j: int) -> np.ndarray | None:
    """Touching or overlapping bases: a common point outside every obstacle is a (zero-length)
    witness."""
    a, b = run.fa.ellipse(j), run.fb.ellipse(j)
    rows = run.job_rows[run.job_ptr[j]:run.job_ptr[j + 1]]
    # discs that touch (overlapping by no more than the contact tolerance) share only the
    # contact point: no overlap polygon is worth building
    lens = None if _discs_touch(a, b) else shapely.intersection(a.polygon(64), b.polygon(64))
    if lens is not None and not lens.is_empty and lens.area > 0:
        free = shapely.difference(lens, shapely.union_all(run.obs.tests[rows])) if len(rows) \
            else lens
        if free.is_empty:
            return None
        pt = np.asarray(free.representative_point().coords[0])
    else:  # touching: the contact point
        pt = (run.near_p[j] + run.near_q[j]) / 2
    seg = np.array([[pt, pt]])
    return seg[0] if segments_clear(seg, np.array([j]), run.jp, run.obs)[0] else None


def _discs_touch(a: Ellipse, b: Ellipse) -> bool:
    """Two discs no more than 1e-9 into each other (touching bases)."""
    return a.is_disc and b.is_disc and \
        float(np.hypot(b.cx - a.cx, b.cy - a.cy)) - a.a - b.a >= -BASES_TOUCH


def search_jobs(fa: Frames, fb: Frames, obs: PreparedObstacles, job_ptr: np.ndarray,
                job_rows: np.ndarray, max_length: float | None = None,
                quick: bool = True) -> Searched:
    """The exact search for many jobs at once: job k asks for a clear segment from base fa[k]
    to base fb[k] that misses the obstacle rows ``job_rows[job_ptr[k]:job_ptr[k + 1]]`` (and is
    at most `max_length` long when given). `quick=False`: the caller has already tried the
    first segment and the separator proof; go straight to the candidate lines."""
    limit = None if max_length is None else max_length + TOLERANCE
    run = _Run(fa, fb, obs, np.asarray(job_ptr, dtype=np.int64),
               np.asarray(job_rows, dtype=np.int64), limit)
    if len(fa) == 0:
        return Searched(run.witness, run.how)
    first, gap = _first_segments(run)
    if limit is not None:
        run.decide(np.nonzero(gap > limit)[0], TOO_FAR)
    for j in run.open(np.nonzero(gap <= BASES_TOUCH)[0]).tolist():
        w = _touching_witness(run, j)
        if w is not None:
            run.decide(np.array([j]), TOUCH, w[None])
    if quick:
        jobs = run.open()
        run.try_segments(first[jobs], jobs, FIRST)
    for group in run.groups(run.open()):
        if quick:
            apart = group[gap[group] > BASES_TOUCH]
            sep = separated(fa.take(apart), fb.take(apart), apart, run.jp, obs)
            run.decide(apart[sep], SEPARATED)
            group = run.open(group)
        if not len(group):
            continue
        tangents = common_tangents(fa.take(group), fb.take(group))
        pins = make_pins(obs, fa, fb, group, run.job_ptr, run.job_rows)
        lines = stage_one(obs, fa, fb, group, pins, tangents)  # type: ignore[arg-type]
        segs, ok = lines.gaps(fa, fb, obs)
        run.try_segments(segs[ok], lines.job[ok])
        group = run.open(group)
        if limit is not None and len(group):
            segs, job = through_pin_minima(fa, fb, pins)
            run.try_segments(segs, job)
            group = run.open(group)
        for block in stage_two(pins, group, run.how != OPEN):
            segs, ok = block.gaps(fa, fb, obs)
            run.try_segments(segs[ok], block.job[ok])
    run.decide(run.open(), BLOCKED)
    return Searched(run.witness, run.how)


# --------------------------------------------------------------------------- one pair


@dataclass(frozen=True)
class SegmentSearch:
    """Outcome of a search for one pair: the witness (or None), and the input indices of the
    obstacles that stand between the bases (within reach of their convex hull)."""

    witness: tuple[Point, Point] | None
    between: tuple[int, ...]

    @property
    def clear(self) -> bool:
        return self.witness is not None


def as_tuple(seg: np.ndarray) -> tuple[Point, Point]:
    return ((float(seg[0, 0]), float(seg[0, 1])), (float(seg[1, 0]), float(seg[1, 1])))


def corridor(obs: PreparedObstacles, a: Ellipse, b: Ellipse,
             rows: np.ndarray | None = None) -> np.ndarray:
    """Obstacle rows (of `rows`, default all) within reach of hull(a ∪ b): within the larger
    semi-axis of the centre-to-centre segment — one tree query."""
    if obs.tree is None:
        return np.zeros(0, dtype=np.int64)
    ca, cb = (a.cx, a.cy), (b.cx, b.cy)
    line = shapely.linestrings([ca, cb]) if ca != cb else shapely.points(ca)
    hit = np.sort(obs.tree.query(line, predicate="dwithin", distance=max(a.a, b.a) + QUERY_MARGIN))
    return hit if rows is None else hit[np.isin(hit, rows)]


def open_disc_segment(a: Ellipse, b: Ellipse, max_length: float | None
                      ) -> tuple[bool, tuple[Point, Point] | None]:
    """Two discs with no obstacle between them: (decided, witness) as `search_jobs` answers,
    without its machinery — the nearest-points segment (with a bound), the centre-to-centre
    segment (without), None when the bound is not met, the contact point when they touch; not
    decided when the discs overlap, which the full search settles with its own witness.

    >>> open_disc_segment(Ellipse(0, 0, 1, 1), Ellipse(3, 0, 1, 1), 1.0)
    (True, ((1.0, 0.0), (2.0, 0.0)))
    >>> open_disc_segment(Ellipse(0, 0, 1, 1), Ellipse(3.5, 0, 1, 1), 1.0)
    (True, None)
    """
    vx, vy = b.cx - a.cx, b.cy - a.cy
    cd = float(np.hypot(vx, vy))  # as `_first_segments` computes it, to the last bit
    gap = max(cd - a.a - b.a, 0.0)
    if gap <= BASES_TOUCH:
        if cd <= 0 or cd - a.a - b.a < -BASES_TOUCH:
            return False, None  # overlapping: the full search finds a common point
        ux, uy = vx / cd, vy / cd  # touching: the contact point, as `_touching_witness` has it
        px = (a.cx + a.a * ux + (b.cx - b.a * ux)) / 2
        py = (a.cy + a.a * uy + (b.cy - b.a * uy)) / 2
        return True, ((px, py), (px, py))
    if max_length is None:
        return True, (a.centre, b.centre)
    if gap > max_length + TOLERANCE:
        return True, None
    ux, uy = vx / cd, vy / cd
    return True, ((a.cx + a.a * ux, a.cy + a.a * uy), (b.cx - b.a * ux, b.cy - b.a * uy))


def search_clear_segment(a: Ellipse, b: Ellipse,
                         obstacles: PreparedObstacles | Sequence[BaseGeometry],
                         max_length: float | None = None,
                         rows: np.ndarray | None = None) -> SegmentSearch:
    """The exact search for one pair. `rows`: the obstacle rows to consider (default all)."""
    obs = obstacles if isinstance(obstacles, PreparedObstacles) else PreparedObstacles.build(
        list(obstacles))
    near = corridor(obs, a, b, rows)
    if not len(near) and a.is_disc and b.is_disc:
        decided, w = open_disc_segment(a, b, max_length)
        if decided:
            return SegmentSearch(w, ())
    res = search_jobs(Frames.of([a]), Frames.of([b]), obs, np.array([0, len(near)]), near,
                      max_length)
    w = None if not res.clear[0] else as_tuple(res.witness[0])
    return SegmentSearch(w, tuple(int(obs.index[r]) for r in near))


def find_clear_segment(a: Ellipse, b: Ellipse,
                       obstacles: Sequence[BaseGeometry] | PreparedObstacles,
                       max_length: float | None = None) -> tuple[Point, Point] | None:
    """A segment from a point of base `a` to a point of base `b` that crosses no obstacle
    (grazing within 1e-6" is not crossing), of length ≤ `max_length` when given; None when no
    such segment exists. Exact: see the module docstring for the argument.

    Without `max_length`: the centre-to-centre segment when clear, else a clear candidate line's
    gap segment (it may graze corners). With `max_length`: the nearest-points segment when
    clear, else the shortest clear candidate of the first candidate stage that has one."""
    return search_clear_segment(a, b, obstacles, max_length).witness


def nearest_points(a: Ellipse, b: Ellipse) -> tuple[np.ndarray, np.ndarray]:
    """Nearest points of two bases (for overlapping bases: two points of the overlap region's
    boundary at most ~1e-9 apart is not guaranteed — use `ellipse_distances` to test overlap)."""
    _, p, q = ellipse_distances([a], [b])
    return p[0], q[0]
