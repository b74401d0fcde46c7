"""Paths of a leading model's centre: straight segments and arcs round corners (rulebook §4.3,
§8.5.3: the leading model moves along a measured path).

A base that only translates moves every one of its points along a translate of the centre's
path, so "no point of the base moves further than the allowance" is exactly "the centre path is
no longer than the allowance": the length of a `Path` is the distance the move measures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from shapely.geometry import LineString
from shapely.geometry import Point as SPoint

from ..model import Point
from ..tolerance import MIN_CHORD_ANGLE, ZERO_LENGTH

EXACT_BOUND = 1e-6
ARC_SAG = 1e-3       # display polyline: chords within 0.001" of the true arcs



@dataclass(frozen=True)
class Segment:
    a: Point
    b: Point

    @property
    def length(self) -> float:
        return math.dist(self.a, self.b)


@dataclass(frozen=True)
class Arc:
    """Part of a corner circle: from angle `start` turning by `sweep` (radians, + = CCW)."""

    centre: Point
    radius: float
    start: float
    sweep: float

    @property
    def length(self) -> float:
        return self.radius * abs(self.sweep)

    def points(self, sag: float = ARC_SAG) -> list[Point]:
        step = 2 * math.acos(max(-1.0, 1 - sag / self.radius)) if self.radius > sag else math.pi
        n = max(1, math.ceil(abs(self.sweep) / max(step, MIN_CHORD_ANGLE)))
        cx, cy = self.centre
        return [(cx + self.radius * math.cos(self.start + self.sweep * i / n),
                 cy + self.radius * math.sin(self.start + self.sweep * i / n))
                for i in range(n + 1)]


Piece = Segment | Arc


@dataclass(frozen=True)
class Path:
    """A leading model's centre path: straight segments and arcs around corners.

    `points` is a polyline through the path (arcs drawn by chords within 0.001"); `length` is
    the exact length of the curved path; the true shortest legal path is no shorter than
    `length - error_bound`. `grass` lists GRASS pieces the path crosses (destroyed unless the
    mover flies); `levels` the tops (terrain ids) the path passes over, in order.
    """

    points: tuple[Point, ...]
    length: float
    pieces: tuple[Piece, ...] = ()
    error_bound: float = EXACT_BOUND
    flying: bool = False
    grass: tuple[str, ...] = ()
    levels: tuple[str, ...] = ()

    @property
    def start(self) -> Point:
        return self.points[0]

    @property
    def end(self) -> Point:
        return self.points[-1]

    def reversed(self) -> Path:
        pieces = tuple(Segment(pc.b, pc.a) if isinstance(pc, Segment) else
                       Arc(pc.centre, pc.radius, pc.start + pc.sweep, -pc.sweep)
                       for pc in reversed(self.pieces))
        return replace(self, points=tuple(reversed(self.points)), pieces=pieces,
                       levels=tuple(reversed(self.levels)))

    def line(self) -> LineString | SPoint:
        return LineString(self.points) if len(self.points) > 1 else SPoint(self.points[0])

    def to_json(self) -> dict[str, Any]:
        return {"points": [list(p) for p in self.points], "length": self.length,
                "error_bound": self.error_bound, "grass": list(self.grass),
                "levels": list(self.levels)}


def polyline(pieces: Sequence[Piece], start: Point) -> tuple[Point, ...]:
    pts: list[Point] = [start]
    for pc in pieces:
        new = [pc.b] if isinstance(pc, Segment) else pc.points()[1:]
        for p in new:
            if math.dist(p, pts[-1]) > ZERO_LENGTH:
                pts.append(p)
    return tuple(pts)


def cut(path: Path, length: float) -> Path:
    """The first `length` inches of `path` (all of it when it is no longer): a prefix of a
    legal path is a legal path.

    >>> p = Path(((0.0, 0.0), (3.0, 0.0), (3.0, 4.0)), 7.0,
    ...          (Segment((0.0, 0.0), (3.0, 0.0)), Segment((3.0, 0.0), (3.0, 4.0))))
    >>> q = cut(p, 5.0)
    >>> q.end, q.length
    ((3.0, 2.0), 5.0)
    """
    if length >= path.length or not path.pieces:
        return path
    pieces: list[Piece] = []
    left = max(length, 0.0)
    for pc in path.pieces:
        if pc.length <= left:
            pieces.append(pc)
            left -= pc.length
            continue
        if left > 0:
            if isinstance(pc, Segment):
                f = left / pc.length
                pieces.append(Segment(pc.a, (pc.a[0] + f * (pc.b[0] - pc.a[0]),
                                             pc.a[1] + f * (pc.b[1] - pc.a[1]))))
            else:
                pieces.append(Arc(pc.centre, pc.radius, pc.start,
                                  math.copysign(left / pc.radius, pc.sweep)))
        break
    return replace(path, points=polyline(pieces, path.start), pieces=tuple(pieces),
                   length=sum(pc.length for pc in pieces))


def joined(start: Point, path: Path, goal: Point | None) -> Path:
    """`path` with straight steps added from `start` and to `goal` where they differ."""
    pieces = list(path.pieces)
    pts = list(path.points)
    length = path.length
    if math.dist(start, pts[0]) > ZERO_LENGTH:
        pieces.insert(0, Segment(start, pts[0]))
        pts.insert(0, start)
        length += math.dist(start, pts[1])
    if goal is not None and math.dist(goal, pts[-1]) > ZERO_LENGTH:
        pieces.append(Segment(pts[-1], goal))
        length += math.dist(pts[-1], goal)
        pts.append(goal)
    return replace(path, points=tuple(pts), pieces=tuple(pieces), length=length)

