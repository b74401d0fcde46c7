"""What every overlay shares: naming things, the orange ring of what an answer is about
(`Highlight`), dots, the end-position ghost, and crosses. Markings come from
`viewer.markings` (one meaning each)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry

from geom.model import Battlefield, Marker, Model, TerrainPiece, Unit
from scenario import refs

from . import markings as mk
from . import style as st
from .markings import Marking
from .scene import L_OVER, Area, OverlayLayer, Point, Prim, Stroke, outline

Thing: TypeAlias = Model | Unit | Marker | TerrainPiece | tuple[float, float] | BaseGeometry


def label(x: Any) -> str:
    """How text names a thing: model and marker references, unit ids, a piece's title
    (`Wall Set 2 (terrain/standard-1/12)`), points as X,Y."""
    if isinstance(x, TerrainPiece):
        return x.title
    return refs.label(x)


def dot(p: Point, r: float, colour: st.RGBA, layer: int, tag: str,
        mark: Marking | None = None) -> Area:
    return Area(SPoint(p).buffer(r, quad_segs=8), colour, layer, tag, mark)


def seg(p: Any, q: Any) -> tuple[Point, Point]:
    return ((float(p[0]), float(p[1])), (float(q[0]), float(q[1])))


def ghost(m: Model, at: Point, tag: str, mark: Marking = mk.END) -> list[Prim]:
    """The base outline at the end of a move, charge or disengage."""
    return list(outline(m.moved_to(at).ellipse.polygon(64), mark.colour, 2.5, L_OVER, dash=6,
                        tag=tag, mark=mark))


def cross(m: Model, tag: str, mark: Marking = mk.DESTROYED) -> list[Prim]:
    """An × over a base (a model removed)."""
    x, y = m.at
    r = m.base.b * 0.8
    return [Stroke(((x - r, y - r), (x + r, y + r)), mark.colour, 4.0, L_OVER, tag=tag,
                   mark=mark),
            Stroke(((x - r, y + r), (x + r, y - r)), mark.colour, 4.0, L_OVER, tag=tag,
                   mark=mark)]


def base_ring(m: Model | Marker, out: float, colour: st.RGBA, width: float, tag: str,
              mark: Marking, dash: float | None = None) -> list[Prim]:
    """A ring `out` inches outside a base's rim."""
    return list(outline(m.ellipse.polygon(64).buffer(out), colour, width, L_OVER, dash=dash,
                        tag=tag, mark=mark))


@dataclass(frozen=True)
class Highlight:
    """Orange rings around what an answer is about (also the first click of a question)."""

    things: tuple[Thing, ...]

    def build(self, bf: Battlefield) -> OverlayLayer:
        prims: list[Prim] = []
        m = mk.ASKED
        for x in self.things:
            if isinstance(x, Model | Marker):
                prims += base_ring(x, 0.18, st.PICK, 4.0, f"pick:{label(x)}", m)
            elif isinstance(x, Unit):
                for mm in x.models:
                    prims += base_ring(mm, 0.18, st.PICK, 4.0, f"pick:{label(mm)}", m)
            elif isinstance(x, TerrainPiece):
                prims += outline(x.footprint, st.PICK, 5.0, L_OVER, tag=f"pick:{label(x)}",
                                 mark=m)
            elif isinstance(x, tuple):
                cx, cy = x
                for dx, dy in ((0.35, 0), (0, 0.35)):
                    prims.append(Stroke(((cx - dx, cy - dy), (cx + dx, cy + dy)), st.PICK, 3.0,
                                        L_OVER, tag="pick:point", mark=m))
        return OverlayLayer(prims)
