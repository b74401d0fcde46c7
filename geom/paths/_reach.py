"""Reach: where a leading model's centre can get to within an allowance (rulebook §8.5.3).

`travel_region` is an inner approximation: visibility fans cast from the start and from
departure points along the corner circles, each trimmed by what sampling between fan rays could
miss (see docs/movement.md for its accuracy). `_RayCaster` finds the first entry of rays into
clearance zones exactly, against offset edges and corner circles.
"""

from __future__ import annotations

import math

import numpy as np
import shapely
from numpy.typing import NDArray
from shapely.geometry import Point as SPoint
from shapely.geometry import Polygon, box
from shapely.geometry.base import BaseGeometry

from ..model import Point
from ..tolerance import (
    FULL_TURN_SLACK,
    ON_CIRCLE,
    PARAMETER_SLACK,
    ROUND_OFF,
    ROUNDING,
)
from ._circles import TWO_PI
from ._freespace import FreeSpace
from ._navigator import Navigator, as_point


def travel_region(nav: Navigator, start: Point, allowance: float, rays: int = 1440) -> BaseGeometry:
    """Points the centre can reach by a legal path no longer than `allowance` (inner
    approximation: visibility fans cast from the start and from departure points along
    the corner circles; see docs/movement.md for its accuracy)."""
    start = as_point(start)
    L = float(allowance)
    if L <= 0:
        return Polygon()
    if nav.unit.flying:
        t = nav.bf.table
        return SPoint(start).buffer(L, quad_segs=64).intersection(box(0, 0, t.width, t.depth))
    es = nav.escape(start)
    if es is None or es[1] >= L:
        return Polygon()
    start, L = es[0], L - es[1]
    caster = _RayCaster(nav.fs)
    parts: list[BaseGeometry] = [caster.star(start, L, rays)]
    s = nav.search(start)
    s.settle(L)
    for k in s.circles_reached():
        rel, cost = s.settled_on(k)
        near = cost < L
        if near.any():
            parts.extend(caster.fans(nav, k, rel[near], cost[near], L))
    region = shapely.union_all([p for p in parts if not p.is_empty])
    x0, y0, x1, y1 = nav.fs.rect
    return region.intersection(box(x0, y0, x1, y1)).buffer(0)


class _RayCaster:
    """First entry of rays into clearance zones: exact against offset edges and circles."""

    def __init__(self, fs: FreeSpace) -> None:
        self.fs = fs
        if len(fs.edges):
            e, u, n, L, rho = fs.offset_edges
            self.lp = np.vstack([e[:, 0:2] + rho[:, None] * n, e[:, 0:2] - rho[:, None] * n])
            self.lu = np.vstack([u, u])
            self.lL = np.concatenate([L, L])
        else:
            self.lp = np.zeros((0, 2))
            self.lu = np.zeros((0, 2))
            self.lL = np.zeros(0)
        self.cc = fs.verts
        self.cr = fs.vert_rho

    def hits(self, origin: NDArray[np.float64], dirs: NDArray[np.float64]) -> NDArray[
            np.float64]:
        """Distance along each ray (origin[i], dirs[i]) to the first clearance zone entry or
        the table box edge."""
        n = len(dirs)
        best = np.full(n, np.inf)
        tiny = PARAMETER_SLACK
        ox, oy = origin[:, 0:1], origin[:, 1:2]
        dx, dy = dirs[:, 0:1], dirs[:, 1:2]
        if len(self.cc):
            wx = ox - self.cc[None, :, 0]
            wy = oy - self.cc[None, :, 1]
            b = wx * dx + wy * dy
            c = wx * wx + wy * wy - self.cr[None, :] ** 2
            disc = b * b - c
            ok = disc > ROUND_OFF
            t = -b - np.sqrt(np.where(ok, disc, 0))
            t = np.where(ok & (t > tiny), t, np.where(ok & (c < -ON_CIRCLE), 0.0, np.inf))
            best = np.minimum(best, t.min(axis=1))
        if len(self.lp):
            nx, ny = -self.lu[None, :, 1], self.lu[None, :, 0]
            den = dx * nx + dy * ny
            num = (self.lp[None, :, 0] - ox) * nx + (self.lp[None, :, 1] - oy) * ny
            with np.errstate(divide="ignore", invalid="ignore"):
                t = num / den
                px = ox + t * dx - self.lp[None, :, 0]
                py = oy + t * dy - self.lp[None, :, 1]
                s = px * self.lu[None, :, 0] + py * self.lu[None, :, 1]
            ok = (np.abs(den) > ROUND_OFF) & (t > tiny) & (s >= 0) & (s <= self.lL[None, :])
            best = np.minimum(best, np.where(ok, t, np.inf).min(axis=1))
        x0, y0, x1, y1 = self.fs.rect
        with np.errstate(divide="ignore", invalid="ignore"):
            tx = np.where(dirs[:, 0] > 0, (x1 - origin[:, 0]) / dirs[:, 0],
                          np.where(dirs[:, 0] < 0, (x0 - origin[:, 0]) / dirs[:, 0], np.inf))
            ty = np.where(dirs[:, 1] > 0, (y1 - origin[:, 1]) / dirs[:, 1],
                          np.where(dirs[:, 1] < 0, (y0 - origin[:, 1]) / dirs[:, 1], np.inf))
        return np.maximum(np.minimum(best, np.minimum(tx, ty)), 0.0)

    def star(self, s: Point, L: float, rays: int) -> BaseGeometry:
        th = np.linspace(0, TWO_PI, rays, endpoint=False)
        dirs = np.column_stack((np.cos(th), np.sin(th)))
        h = np.minimum(self.hits(np.repeat(np.array([s]), rays, axis=0), dirs), L)
        m = np.minimum(h, np.roll(h, -1))  # sector i spans rays i..i+1
        th2 = np.roll(th, -1)
        pts = np.empty((2 * rays, 2))
        pts[0::2] = np.column_stack((s[0] + m * np.cos(th), s[1] + m * np.sin(th)))
        pts[1::2] = np.column_stack((s[0] + m * np.cos(th2), s[1] + m * np.sin(th2)))
        poly = Polygon(pts)
        if not poly.is_valid:
            poly = shapely.make_valid(poly)
        return poly.union(SPoint(s).buffer(0)) if poly.is_empty else poly

    def fans(self, nav: Navigator, k: int, rel_nodes: NDArray[np.float64],
             d_nodes: NDArray[np.float64], L: float) -> list[BaseGeometry]:
        """Regions swept by legs leaving circle k tangentially, both ways round."""
        fs = nav.fs
        C = fs.circles
        arcs = nav.graph.arcs
        r = float(C.r[k])
        if r <= 0.0:
            # a pinch point of a gap (geom.paths._gaps): legs through it are not fanned, so a reach
            # region does not extend through gaps narrower than the base (a legal subset)
            return []
        span = float(C.span[k])
        full = span >= TWO_PI - FULL_TURN_SLACK
        step = min(0.02 / r, math.pi / 90)
        n = max(2, math.ceil(span / step) + 1)
        rel = np.linspace(0, span, n, endpoint=not full)
        kk = np.full(len(rel), k)
        out: list[BaseGeometry] = []
        for sgn in (1.0, -1.0):  # CCW departures come from nodes behind, CW from ahead
            best = np.full(len(rel), np.inf)
            for ra, da in zip(rel_nodes, d_nodes, strict=True):
                if sgn > 0:
                    fwd = rel >= ra
                    lo, hi = np.where(fwd, ra, 0.0), np.where(fwd, rel, 0.0)
                    cost = np.where(fwd & arcs.arc_free(kk, lo, hi), da + r * (rel - ra), np.inf)
                    if full:
                        back = ~fwd
                        wf = arcs.wrap_free(kk, np.full(len(rel), ra), rel)
                        cost = np.minimum(cost, np.where(back & wf,
                                                         da + r * (TWO_PI - ra + rel), np.inf))
                else:
                    fwd = rel <= ra
                    lo, hi = np.where(fwd, rel, 0.0), np.where(fwd, ra, 0.0)
                    cost = np.where(fwd & arcs.arc_free(kk, lo, hi), da + r * (ra - rel), np.inf)
                    if full:
                        back = ~fwd
                        wf = arcs.wrap_free(kk, rel, np.full(len(rel), ra))
                        cost = np.minimum(cost, np.where(back & wf,
                                                         da + r * (TWO_PI - rel + ra), np.inf))
                best = np.minimum(best, cost)
            th = C.start[k] + rel
            dep = np.column_stack((C.x[k] + r * np.cos(th), C.y[k] + r * np.sin(th)))
            dirs = sgn * np.column_stack((-np.sin(th), np.cos(th)))
            room = L - best
            good = np.isfinite(best) & (room > 0)
            if good.sum() < 1:
                continue
            reach = np.zeros(len(rel))
            gi = np.nonzero(good)[0]
            reach[gi] = np.minimum(self.hits(dep[gi], dirs[gi]), room[gi])
            pairs = np.nonzero(good[:-1] & good[1:])[0]
            if full and good[-1] and good[0]:
                pairs = np.concatenate([pairs, [len(rel) - 1]])
            for i in pairs:
                j = (i + 1) % len(rel)
                # the leg from between two samples may start up to r·Δ later: trim by it
                ln = min(reach[i], reach[j]) - r * abs(rel[j] - rel[i] if j else TWO_PI - rel[i])
                if ln <= ROUNDING:
                    continue
                quad = Polygon([tuple(dep[i]), tuple(dep[i] + ln * dirs[i]),
                                tuple(dep[j] + ln * dirs[j]), tuple(dep[j])])
                if quad.is_valid and quad.area > 0:
                    out.append(quad)
        return out


