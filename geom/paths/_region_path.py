"""The shortest legal path to a set of end positions (rulebook §4.3, §8.5.3, §8.7.7: a charge is
measured along the real path to the nearest legal end).

The last leg of a shortest path to a set E leaves the start, or leaves a corner circle
tangentially; every point where it may stop is computed in closed form and offered to the
search (`geom.paths._search`) as a terminal (`geom.paths._goals`). The cheapest one whose leg is
clear is the exact answer — no polygon stands in for a circle, so a distance exactly at a
limit comes out at it.

Ends inside a clearance zone ("stepped" ends: the gap rule is about passing, not stopping,
§4.6; a base may overhang a top's edge, FAQ) are reached by a straight step from the free
space (`Navigator.escape`). They are found by sampling E's boundary inside the zones and
refining around the best sample; `error_bound` then carries the sample spacing.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray
from shapely.geometry import Point as SPoint
from shapely.geometry import box as sbox
from shapely.geometry.base import BaseGeometry

from ..model import Model, Point
from ..tolerance import ROUNDING, ZERO_LENGTH
from ._crossings import nearest_members
from ._end_shapes import Arr, Grown, Shape
from ._endset import EndSet
from ._freespace import FreeSpace
from ._goals import Accept, EndQuestion, EndTarget, PathAccept
from ._navigator import Navigator, as_point
from ._path import EXACT_BOUND, Path, Segment, joined
from ._search import Search
from ._straight_legs import straight_first

STEP_SAMPLE = 0.05       # spacing of sampled stepped ends on the boundary
STEP_SAMPLES_MAX = 400
STEP_REFINE = 2          # rounds of refinement around the best sampled stepped end


# --------------------------------------------------------------------------- the answers

@dataclass(frozen=True)
class EndPath:
    """A shortest path to an end set: the path (start to end), which end set (`tag`) and
    whether the end is a stepped one."""

    path: Path
    tag: int
    stepped: bool = False
    origin: int = 0  # which of the starts asked about it leaves from

    @property
    def end(self) -> Point:
        return self.path.end


def path_to_ends(nav: Navigator, start: Point | Sequence[Point],
                 ends: Sequence[EndSet] | EndQuestion, *,
                 accept: Accept | None = None, bound: float = math.inf,
                 stepped: Sequence[EndSet] | None = None, step: float = STEP_SAMPLE,
                 certify: bool = True, path_accept: PathAccept | None = None,
                 fast: bool = True) -> EndPath | None:
    """Shortest legal path from `start` (or from the best of several starts) to a point of one
    of the end sets, shorter than `bound` (None if there is none). Exact for the shapes of
    `geom.paths._endset`, up to the oval bounds of `Navigator` and the sample spacing of stepped ends
    (`error_bound`). Ends inside clearance zones are sought in `stepped` (default: the same
    sets; empty: none). A prepared `EndQuestion` (for the same navigator) may stand for the
    end sets. `path_accept` judges an end with the path that reaches it. With `fast`, a
    straight leg that decides the question is taken without a search
    (`geom.paths._straight_legs.straight_first`; `fast=False`: always the search, the reference)."""
    raw = [start] if isinstance(start[0], int | float) else list(start)  # type: ignore[list-item]
    starts = [as_point(p) for p in raw]  # type: ignore[arg-type]
    if isinstance(ends, EndQuestion):
        q = ends
        q.check = accept
        q.path_check = path_accept
        ends = [t.ends for t in q.targets]
    else:
        q = EndQuestion(nav, ends, accept, path_accept) if not nav.unit.flying else \
            EndQuestion(nav, [])
    if nav.unit.flying:
        got = [(i, _flying(nav, p, ends, accept, bound)) for i, p in enumerate(starts)]
        best_f = min(((i, g) for i, g in got if g is not None), default=None,
                     key=lambda ig: ig[1].path.length)  # type: ignore[union-attr]
        return None if best_f is None else replace(best_f[1], origin=best_f[0])
    if q.empty:
        return None
    for i, p in enumerate(starts):
        for ti, t in enumerate(q.targets):
            if t.ends.contains(np.array([p]))[0] and (accept is None or accept(ti, p)) and (
                    path_accept is None or path_accept(t.ends, p, Path((p,), 0.0))):
                return EndPath(nav.finish(Path((p,), 0.0)), ti, origin=i)
    sq = q if stepped is None else EndQuestion(nav, stepped, accept, path_accept)
    if len(starts) > 1 and not sq.empty:  # stepped ends are sought from one start at a time
        each = [path_to_ends(nav, p, q, accept=accept, bound=bound, stepped=stepped, step=step,
                             certify=certify, path_accept=path_accept, fast=fast)
                for p in starts]
        pick = min(((i, e) for i, e in enumerate(each) if e is not None), default=None,
                   key=lambda ie: ie[1].path.length)  # type: ignore[union-attr]
        return None if pick is None else replace(pick[1], origin=pick[0])
    escapes = [(i, nav.escape(p)) for i, p in enumerate(starts)]
    valid = [(i, e) for i, e in escapes if e is not None]
    if not valid:
        return None
    firsts, offsets = [e[0] for _, e in valid], [e[1] for _, e in valid]
    real = {e[0]: starts[i] for i, e in valid}
    q.join = sq.join = lambda p: joined(real.get(p.start, p.start), p, None)
    decided, found = straight_first(nav.fs, q, firsts, offsets, bound) if fast else (False, None)
    if not decided:
        found = nav.search(firsts, offsets).ask(q, bound)
    best: EndPath | None = None
    if found is not None:
        i = valid[found.origin][0]
        best = EndPath(joined(starts[i], found.path, None), found.tag, origin=i)
    if not sq.empty:
        (i, (_, s_step)), = valid
        limit = best.path.length if best is not None else bound
        alt = _stepped(nav, nav.search(firsts, offsets), starts[i], s_step, sq, limit, accept,
                       step, path_accept)
        if alt is not None and (best is None or alt.path.length < best.path.length - EXACT_BOUND):
            best = alt
    if best is None:
        return None
    if not certify:
        return replace(best, path=nav.finish(best.path))
    windows = [t.window for t in q.targets]
    return replace(best, path=_certified(nav, best.path, starts[best.origin], ends, accept,
                                         windows, path_accept, fast))


def _certified(nav: Navigator, path: Path, start: Point, ends: Sequence[EndSet],
               accept: Accept | None, windows: Sequence[tuple[float, float, float, float]],
               path_accept: PathAccept | None = None, fast: bool = True) -> Path:
    """Oval bases among the obstacles: the same question on inscribed polygons bounds the
    error (`Navigator` docstring) — unless no oval comes near enough to matter: a shorter path
    would pass x with |start − x| + dist(x, ends) < the length found, and an oval's zone holds
    no such point when |start − core| + dist(core, window) − 2ρ is already longer."""
    if nav.inner_mode or not nav.inexact:
        return nav.finish(path)
    s = SPoint(start)
    wins = [sbox(*w) for w in windows]
    if all(o.exact or s.distance(o.core) + min(w.distance(o.core) for w in wins) - 2 * o.rho
           >= path.length + EXACT_BOUND for o in nav.fs.obstacles):
        return nav.finish(path)
    low = path_to_ends(nav.inner(), start, ends, accept=accept, stepped=(), certify=False,
                       path_accept=path_accept, fast=fast)
    bound = path.length - low.path.length if low is not None else math.inf
    return nav.finish(replace(path, error_bound=max(path.error_bound,
                                                     max(bound, 0.0) + EXACT_BOUND)))


def _flying(nav: Navigator, start: Point, ends: Sequence[EndSet], accept: Accept | None,
            bound: float) -> EndPath | None:
    """A flying mover goes straight: the nearest candidate end of any set."""
    best: tuple[float, int, Point] | None = None
    for ti, es in enumerate(ends):
        for e in itertools.islice(nearest_members(es, start), 2000):
            d = math.dist(start, (e[0], e[1]))
            if (best is not None and d >= best[0]) or d >= bound:
                break
            if accept is None or accept(ti, (float(e[0]), float(e[1]))):
                best = (d, ti, (float(e[0]), float(e[1])))
                break
    if best is None:
        return None
    d, ti, end = best
    path = Path((start, end), d, (Segment(start, end),), flying=True) if d > 0 else \
        Path((start,), 0.0, flying=True)
    return EndPath(nav.finish(path), ti)


# --------------------------------------------------------------------------- stepped ends

def _stepped(nav: Navigator, search: Search, start: Point, step0: float, q: EndQuestion,
             limit: float, accept: Accept | None, h: float = STEP_SAMPLE,
             path_accept: PathAccept | None = None) -> EndPath | None:
    """The best end inside a clearance zone (see the module docstring), if any beats
    `limit`."""
    fs = nav.fs
    best: EndPath | None = None
    for ti, t in enumerate(q.targets):
        pts, where = _stepped_samples(t, fs, h)
        if not len(pts):
            continue
        for _ in range(STEP_REFINE + 1):
            got = _best_stepped(nav, search, start, step0, pts, ti, limit, accept, path_accept,
                                t.ends)
            if got is None:
                break
            i, ep = got
            if best is None or ep.path.length < best.path.length:
                best = replace(ep, path=replace(ep.path, error_bound=ep.path.error_bound + h))
                limit = min(limit, ep.path.length)
            # refine along the piece the best sample came from
            pts, where, h = _around(t, where[i], h)
            keep = t.ends.contains(pts) & ~fs.points_clear(pts)
            pts, where = pts[keep], where[keep]
            if not len(pts):
                break
    return best


def _stepped_samples(t: EndTarget, fs: FreeSpace, h: float) -> tuple[Arr, NDArray[np.float64]]:
    """The samples of t's boundary (spacing h) that are ends inside a clearance zone, with
    where they lie; worked out once per end target (every start and bound asks the same)."""
    got = t.stepped.get(h)
    if got is not None and got[0] is fs:
        return got[1], got[2]
    pts, where = _boundary_samples(t, h)
    # the set's test on all the samples (an oval's distance is iterated until the whole batch
    # converges: the same batch, the same bits), the clearance test only on those it and the
    # box keep (it judges each point alone)
    keep = np.flatnonzero(t.ends.contains(pts) & fs.in_rect(pts, fs.clearance)) if len(pts) \
        else np.zeros(0, dtype=np.int64)
    if len(keep):
        keep = keep[~fs.points_clear(pts[keep])]
    t.stepped[h] = (fs, pts[keep], where[keep])
    return pts[keep], where[keep]


def _best_stepped(nav: Navigator, search: Search, start: Point, step0: float, pts: Arr, ti: int,
                  limit: float, accept: Accept | None, path_accept: PathAccept | None = None,
                  es: EndSet | None = None) -> tuple[int, EndPath] | None:
    entries = []
    # Only samples that could still beat `limit` are escaped (each escape is a clearance
    # search of its own): every path from `start` to e is at least |start - e| long, and the
    # search returns only paths shorter than `limit`, so the others cannot change the answer.
    near = np.hypot(pts[:, 0] - start[0], pts[:, 1] - start[1]) < limit + EXACT_BOUND
    idx = np.flatnonzero(near).tolist()
    for i, esc in zip(idx, nav.escapes([(float(pts[i, 0]), float(pts[i, 1])) for i in idx]),
                      strict=True):
        if esc is not None:
            entries.append((i, esc[0], esc[1]))
    if not entries:
        return None
    qs = np.array([x[1] for x in entries])
    steps = np.array([x[2] for x in entries])
    found = search.ask(nav.fixed_ends(qs, steps), limit)
    if found is None:
        return None
    i, _, st = entries[found.tag]
    e = (float(pts[i, 0]), float(pts[i, 1]))
    if accept is not None and not accept(ti, e):
        return None
    p = joined(start, found.path, None)
    p = replace(p, points=(*p.points, e), pieces=(*p.pieces, Segment(p.end, e)),
                length=p.length + st)
    if path_accept is not None and es is not None and not path_accept(es, e, p):
        return None
    return i, EndPath(p, ti, stepped=True)


def _boundary_samples(t: EndTarget, h: float) -> tuple[Arr, NDArray[np.float64]]:
    """Points along the end set's boundary pieces, at spacing about h, with where they lie:
    (kind, piece index, parameter)."""
    pts: list[Arr] = []
    info: list[Arr] = []
    for i, (x, y, r) in enumerate(t.prims.circles):
        n = int(min(STEP_SAMPLES_MAX, max(8, math.ceil(2 * math.pi * r / h))))
        a = np.linspace(0, 2 * math.pi, n, endpoint=False)
        pts.append(np.column_stack((x + r * np.cos(a), y + r * np.sin(a))))
        info.append(np.column_stack((np.zeros(n), np.full(n, i), a)))
    for i, (x0, y0, x1, y1) in enumerate(t.prims.segments):
        L = math.hypot(x1 - x0, y1 - y0)
        n = int(min(STEP_SAMPLES_MAX, max(2, math.ceil(L / h) + 1)))
        u = np.linspace(0, 1, n)
        pts.append(np.column_stack((x0 + u * (x1 - x0), y0 + u * (y1 - y0))))
        info.append(np.column_stack((np.ones(n), np.full(n, i), u)))
    if not pts:
        return np.zeros((0, 2)), np.zeros((0, 3))
    return np.vstack(pts), np.vstack(info)


def _around(t: EndTarget, where: Arr, h: float) -> tuple[Arr, NDArray[np.float64], float]:
    kind, i, par = int(where[0]), int(where[1]), float(where[2])
    n = 41
    if kind == 0:
        x, y, r = t.prims.circles[i]
        a = par + np.linspace(-h / r, h / r, n)
        pts = np.column_stack((x + r * np.cos(a), y + r * np.sin(a)))
        info = np.column_stack((np.zeros(n), np.full(n, i), a))
    else:
        x0, y0, x1, y1 = t.prims.segments[i]
        L = max(math.hypot(x1 - x0, y1 - y0), ZERO_LENGTH)
        u = np.clip(par + np.linspace(-h / L, h / L, n), 0, 1)
        pts = np.column_stack((x0 + u * (x1 - x0), y0 + u * (y1 - y0)))
        info = np.column_stack((np.ones(n), np.full(n, i), u))
    return pts, info, 2 * h / (n - 1)


def stepped_needed(nav: Navigator, lead: Model, sets: Sequence[EndSet]) -> bool:
    """Can a legal end lie inside a clearance zone? Only when the base is narrower than the
    clearance (the gap rule then keeps the centre further from a wall or a base than the base
    itself reaches), or near the edge of a top (a base may overhang it, FAQ)."""
    if min(lead.base.a, lead.base.b) < nav.fs.clearance - ROUNDING:
        return True
    windows = [w for es in sets if (w := es.window()) is not None]
    return any(o.kind == "edge" and any(o.core.distance(sbox(*w)) < o.rho for w in windows)
               for o in nav.fs.obstacles)


# --------------------------------------------------------------------------- polygon regions

def path_to_region(nav: Navigator, start: Point, region: BaseGeometry) -> Path | None:
    """Shortest legal path from `start` to the nearest point of `region`, a polygon of legal
    END positions for the centre (ends where the mover's base would cross an obstacle itself
    are not offered)."""
    if region is None or region.is_empty:
        return None
    t = nav.bf.table
    r = max(m.base.a for m in nav.unit.models)
    fs = nav.fs
    excl: list[Shape] = []
    closed: list[bool] = []
    if not nav.unit.flying and len(fs.obstacles):
        # a base sitting on a wall, another base or across a top's edge is no end, whatever
        # the region says (only reachable by a stepped end, inside a clearance zone)
        for j in fs.tree.query(region, predicate="dwithin", distance=fs.rho_max + r):
            grow = (float(fs.rho[j]) - fs.clearance if fs.cores[j].geom_type == "Point"
                    else 0.0)
            excl.append(Grown(fs.cores[j], grow + r))
            closed.append(False)
    plain = EndSet((0.0, 0.0, t.width, t.depth), [[Grown(region, 0.0)]])
    hard = EndSet((r, r, t.width - r, t.depth - r), [[Grown(region, 0.0)]], excl, closed)
    got = path_to_ends(nav, start, [plain], stepped=[hard])
    return got.path if got is not None else None

