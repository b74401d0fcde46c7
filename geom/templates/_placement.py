"""Where a template goes on the table (rulebook §8.7.6 step 1 alignment; FAQ v1.1 "템플릿과
파급" for a template without a target model).

- Blast (BT): a disc centred on the target point, the centre of the target model's base. Centring
  covers as much of the base as possible, for discs and ovals alike: the covered area as a function
  of the template's centre p is the convolution f(p) = (1_base * 1_disc)(p) of two indicators of
  convex sets symmetric about the base centre; such a convolution is log-concave (Prékopa) and even,
  so f(0) ≥ √(f(p)·f(−p)) = f(p) (Anderson's theorem). `tests/test_templates.py` checks it
  numerically on ovals too.
- Flamer (FT): the axis runs from the attacker's base centre through the target point; the template
  is slid along it until it touches the attacker's base edge without overlapping it. **Decision**
  (docs/rules.md#template-lines): for a disc the contact is the middle of the narrow end; for an
  oval set at an angle the contact can fall off the middle (or, for a narrow end much smaller than
  the oval, on a side), the position nearest the attacker that does not overlap its base. Computed
  in closed form (`_flamer_offset`).
- FAQ (no target model, e.g. Psionic Storm): the point under the template's centre is the target
  point; a blast is centred on it, a flamer points at it.

Coverage of a base (`PlacedTemplate.covers`) is exact: a closed form for the blast disc,
`geom.bases.geometry_meets` on the exact ellipse for the flamer polygon; a sliver counts, a base
that only touches the template's edge (overlap ≤ 1e-6") does not.

>>> from geom.templates._shapes import make_shape
>>> t = place_blast(make_shape("blast", {"diameter": 3.0}, "example"), (10.0, 10.0))
>>> from geom.model import Ellipse
>>> t.covers(Ellipse(12.0, 10.0, 0.6, 0.6)), t.covers(Ellipse(12.1, 10.0, 0.6, 0.6))
(True, False)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import shapely
from shapely.geometry import Polygon

from .. import bases
from ..errors import TmgError
from ..model import Ellipse, Point
from ..tolerance import SUPPORT_SLACK, TOLERANCE
from ._shapes import BLAST, FLAMER, TemplateShape


@dataclass(frozen=True)
class PlacedTemplate:
    """A template on the table. Blast: a disc centred on `target_point`. Flamer: the polygon
    `corners` (narrow end first), touching the attacker's base at `contact`."""

    kind: str
    shape: TemplateShape
    target_point: Point
    corners: tuple[Point, ...] = ()
    contact: Point | None = None

    @property
    def centre(self) -> Point:
        """The point under the template's centre (blast) / its centroid (flamer)."""
        if self.kind == BLAST:
            return self.target_point
        c = self.polygon.centroid
        return (c.x, c.y)

    @property
    def radius(self) -> float:
        return self.shape["diameter"] / 2 if self.kind == BLAST else math.nan

    @cached_property
    def polygon(self) -> Polygon:
        """Exact for the flamer; for the blast a circumscribed 128-gon (for drawing only —
        coverage uses the exact circle)."""
        if self.kind == FLAMER:
            return Polygon(self.corners)
        e = Ellipse(self.target_point[0], self.target_point[1], self.radius, self.radius)
        return e.polygon(128, outer=True)

    @cached_property
    def _eroded(self) -> Polygon:
        # A convex polygon shrunk with mitred joins is exactly its edges moved inwards.
        g = self.polygon.buffer(-TOLERANCE, join_style="mitre")
        shapely.prepare(g)
        return g  # type: ignore[no-any-return]

    def covers(self, e: Ellipse) -> bool:
        """Is some part of the base under the template (overlap deeper than 1e-6")?"""
        if self.kind == BLAST:
            return float(bases.point_distance(e, self.target_point)[0]) <= \
                self.radius - TOLERANCE
        if self._eroded.is_empty:
            return False
        return bases.geometry_meets(e, self._eroded)

    def outline(self) -> list[list[float]]:
        return [[float(x), float(y)] for x, y in self.polygon.exterior.coords[:-1]]

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.kind == BLAST:
            out["circle"] = {"center": list(self.target_point), "radius": self.radius}
            out["polygon_note"] = "circumscribed 128-gon for drawing; coverage uses the circle"
        else:
            out["contact"] = list(self.contact) if self.contact else None
        return out


def place_blast(shape: TemplateShape, target_point: Point) -> PlacedTemplate:
    """§8.7.6 step 1: the blast disc centred on the target point (see the module docstring for why
    that covers as much of the target's base as possible)."""
    if shape.kind != BLAST:
        raise TmgError(f"place_blast needs a blast shape, got {shape.kind}")
    return PlacedTemplate(BLAST, shape, (float(target_point[0]), float(target_point[1])))


def _support(e: Ellipse, q: np.ndarray) -> np.ndarray:
    """The point of the base maximising p·q (q ≠ 0)."""
    c, s = math.cos(e.theta), math.sin(e.theta)
    m = np.array([[c * e.a, -s * e.b], [s * e.a, c * e.b]])
    w = m.T @ q
    return np.array(e.centre) + m @ (w / np.hypot(w[0], w[1]))


def _chord_ends(e: Ellipse, n: np.ndarray, s: float) -> list[np.ndarray]:
    """Rim points p with (p − centre)·n = s."""
    c, sn = math.cos(e.theta), math.sin(e.theta)
    m = np.array([[c * e.a, -sn * e.b], [sn * e.a, c * e.b]])
    w = m.T @ n
    rho = float(np.hypot(w[0], w[1]))
    if abs(s) > rho:
        return []
    phi, off = math.atan2(w[1], w[0]), math.acos(max(-1.0, min(1.0, s / rho)))
    return [np.array(e.centre) + m @ np.array([math.cos(t), math.sin(t)])
            for t in (phi + off, phi - off)]


def _flamer_offset(e: Ellipse, d: np.ndarray, narrow: float, wide: float,
                   length: float) -> tuple[float, np.ndarray]:
    """How far along the unit axis d (from the base centre) the narrow end must sit so that the
    template touches the base without overlapping it, and the contact point.

    A base point at axial offset u and lateral offset v lies in the template whose narrow end is at
    offset t iff t ≤ g(u, v) = u − max(0, |v| − narrow/2)/k, with k = (wide − narrow)/(2·length)
    the sides' spread (ignoring the far end, which is beyond any base). The answer is max g over
    the base; g is concave and piecewise linear, so its maximum is one of: the support point in
    direction d if it lies in the narrow end's strip; the ends of the chords |v| = narrow/2; the
    support point in direction d ∓ n/k if it lies beyond the matching chord. All closed form."""
    n = np.array([-d[1], d[0]])
    c = np.array(e.centre)
    half = narrow / 2
    k = (wide - narrow) / (2 * length)
    cands: list[tuple[float, np.ndarray]] = []
    p = _support(e, d)
    if abs(float((p - c) @ n)) <= half + SUPPORT_SLACK:
        cands.append((float((p - c) @ d), p))
    for s in (half, -half):
        for q in _chord_ends(e, n, s):
            cands.append((float((q - c) @ d), q))
    if k > 0:
        for sign in (1.0, -1.0):
            q = _support(e, d - sign * n / k)
            v = sign * float((q - c) @ n)
            if v >= half:
                cands.append((float((q - c) @ d) - (v - half) / k, q))
    t, contact = max(cands, key=lambda tc: tc[0])
    return t, contact


def place_flamer(shape: TemplateShape, attacker: Ellipse, target_point: Point) -> PlacedTemplate:
    """§8.7.6 step 1: narrow end against the attacker's base, pointing at the target point."""
    if shape.kind != FLAMER:
        raise TmgError(f"place_flamer needs a flamer shape, got {shape.kind}")
    if float(bases.point_distance(attacker, target_point)[0]) <= TOLERANCE:
        raise TmgError("the target point is on the attacker's own base; a flamer template "
                       "cannot point at it")
    c = np.array(attacker.centre)
    d = np.array(target_point, dtype=float) - c
    d /= np.hypot(d[0], d[1])
    n = np.array([-d[1], d[0]])
    length, narrow, wide = shape["length"], shape["narrow"], shape["wide"]
    t, contact = _flamer_offset(attacker, d, narrow, wide, length)
    q = c + t * d
    far = q + length * d
    pts = [q - narrow / 2 * n, far - wide / 2 * n, far + wide / 2 * n, q + narrow / 2 * n]
    if narrow == 0:
        pts = pts[:3]
    corners = tuple((float(x), float(y)) for x, y in pts)
    return PlacedTemplate(FLAMER, shape, (float(target_point[0]), float(target_point[1])),
                          corners, (float(contact[0]), float(contact[1])))


