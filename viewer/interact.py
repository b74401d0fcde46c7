"""What the viewer window does with clicks and keys, without the window (so it is testable
without a display): tools, toggles, picks, camera, and the overlays they produce.

Tools (a key chooses one; the hint line says what the next click does):

- select (`Esc`): a click on a model shows its unit, on a piece its Size and effective size,
  on a marker its colour; the selected unit is the one the unit toggles use;
- measure (`M`): two clicks — bases or bare points — lay a tape (§4.1);
- sight (`L`): two clicks on models (or a model and a marker) ask for line of sight (§7.1);
- template (`T`; `Shift+T` switches blast/flamer): click the attacker, then the target (§8.7.6);
- charge (`G`): click a model of the charging unit, then one of the target unit (§8.7.7);
  `1`–`6` set the roll (`0` none): the ends that roll reaches are shaded.

Toggles: `E` engagement rings and engaged pairs (§7.2); `C` coherency of the selected unit
(every unit when none is selected, §4.4); `R` reach of a move for the selected unit (§6). Each tool or toggle exists only when its engine module does.

View: drag to pan, wheel to zoom at the cursor, `F` fit, `+`/`-` zoom, arrows; `P` saves the
picture (as `tmg render` draws it) to tmg-view-N.png; `Ctrl+Q` or closing the window quits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from geom.elevation import elevation_level, piece_effective_size
from geom.errors import TmgError
from geom.model import Battlefield, Marker, Model, TerrainPiece, Unit

from . import overlays as ov
from . import picking
from .layout import Camera, bottom_height, fit_transform, window_u
from .scene import OverlayLayer, Scene, Transform, build_scene

PICK_PIXELS = 7.0  # how far from a base a click still picks it
ZOOM_MIN, ZOOM_MAX = 0.3, 40.0
TOOLS = ("select", "measure", "sight", "template", "charge")
MAX_RESULTS = 6  # tapes/sight lines kept on screen at once


def tool_available(tool: str) -> bool:
    return {"sight": ov.available("sight"),
            "template": ov.available("template"),
            "charge": ov.available("charge") and ov.available("reach"),
            "reach": ov.available("reach")}.get(tool, True)


@dataclass
class Viewer:
    bf: Battlefield
    title: str | None = None
    fixed: list[Any] = field(default_factory=list)  # overlays given on the command line
    tool: str = "select"
    picks: list[Any] = field(default_factory=list)
    results: list[Any] = field(default_factory=list)
    selected: Unit | None = None
    selection_info: list[str] = field(default_factory=list)
    selection_thing: Any = None
    engagement: bool = False
    reach: bool = False
    coherency: bool = False
    charge_roll: int | None = None
    template_kind: str = "blast"
    camera: Camera = field(default_factory=Camera)
    message: str = ""
    layers: ov.Layers = field(default_factory=ov.Layers)
    _scene: Scene | None = None

    # ------------------------------------------------------------------ scene

    def overlays(self) -> list[Any]:
        out: list[Any] = list(self.fixed)
        if self.engagement:
            out.append(ov.Engagement())
        if self.coherency:
            out.append(ov.Coherency(None if self.selected is None else (self.selected.id,)))
        if self.reach and self.selected is not None:
            out.append(ov.Reach(self.selected.id))
        out += self.results
        things = list(self.picks)
        if self.selection_thing is not None:
            things.append(self.selection_thing)
        if things:
            out.append(ov.Highlight(tuple(things)))
        return out

    def hint(self) -> str:
        n = len(self.picks)
        if self.tool == "measure":
            return "Measure: click a base or a point " + ("(start)" if n == 0 else "(end)")
        if self.tool == "sight":
            return "Sight: click a model or marker " + ("(first)" if n == 0 else "(second)")
        if self.tool == "template":
            return f"Template ({self.template_kind}): click " + (
                "the attacker" if n == 0 else "the target model")
        if self.tool == "charge":
            roll = f"roll {self.charge_roll}" if self.charge_roll else "no roll (keys 1-6)"
            return f"Charge ({roll}): click " + (
                "a model of the charging unit" if n == 0 else "a model of the target unit")
        keys = ["M measure"]
        if tool_available("sight"):
            keys.append("L sight")
        if tool_available("template"):
            keys.append("T template")
        if tool_available("charge"):
            keys.append("G charge")
        if ov.available("engagement"):
            keys.append("E engagement")
        if ov.available("coherency"):
            keys.append("C coherency")
        if tool_available("reach"):
            keys.append("R reach of the selected unit")
        return "Click to inspect · " + ", ".join(keys) + " · F fit · P save picture · Esc clear"

    def invalidate(self) -> None:
        self._scene = None

    def scene(self) -> Scene:
        if self._scene is None:
            layers: list[OverlayLayer] = []
            for o in self.overlays():
                try:
                    layers.append(self.layers.get(self.bf, o))
                except TmgError as exc:
                    layers.append(OverlayLayer(info=[f"Cannot draw that: {exc}"]))
            info = [self.hint()] + ([self.message] if self.message else []) + self.selection_info
            self._scene = build_scene(self.bf, [*layers, OverlayLayer(info=info)],
                                      title=self.title)
            # the hint goes first: move it ahead of the overlays' verdicts
            self._scene.info = info + [i for i in self._scene.info if i not in info]
        return self._scene

    # ------------------------------------------------------------------ clicks

    def click(self, pt: tuple[float, float], tol: float) -> None:
        """A left click at table point `pt`; `tol` is PICK_PIXELS in inches at this zoom."""
        self.message = ""
        hit = picking.pick(self.bf, pt, tol)
        if self.tool == "select":
            self._select(hit, pt)
        elif self.tool == "measure":
            thing: Any = hit if isinstance(hit, Model | Marker) else (
                round(pt[0], 3), round(pt[1], 3))
            self._second(thing, lambda a, b: ov.Measure(a, b))
        elif self.tool == "sight":
            if not isinstance(hit, Model | Marker):
                self.message = "Sight needs a model or a marker: click on a base."
            elif self.picks and isinstance(self.picks[0], Marker) and isinstance(hit, Marker):
                self.message = "Sight is between a model and a model or marker: pick a model."
            else:
                self._second(hit, lambda a, b: ov.Sight(a, b))
        elif self.tool == "charge":
            if not isinstance(hit, Model):
                self.message = "A charge is between units: click on a model's base."
            else:
                roll = self.charge_roll
                self._second(hit, lambda a, b: ov.Charge(a.unit, (b.unit,), roll))
        elif self.tool == "template":
            if not isinstance(hit, Model):
                self.message = "Templates need models: click on a base."
            else:
                kind = self.template_kind
                self._second(hit, lambda a, b: ov.Template(kind, a, b))
        self.invalidate()

    def _second(self, thing: Any, make: Any) -> None:
        if not self.picks:
            self.picks = [thing]
            return
        first = self.picks[0]
        self.picks = []
        if first == thing:
            self.message = "Picked the same thing twice."
            return
        self.results = (self.results + [make(first, thing)])[-MAX_RESULTS:]

    def _select(self, hit: Any, pt: tuple[float, float]) -> None:
        bf = self.bf
        self.selection_thing = hit
        if isinstance(hit, Model):
            u = bf.unit(hit.unit)
            self.selected = u
            lead = u.leading_model
            speed = f", Speed {u.speed}" if u.speed is not None else ""
            self.selection_info = [
                f"Unit {u.id} ({u.owner}{', ' + u.name if u.name else ''}): "
                f"{len(u.models)} model(s), Size {u.size}{speed}; leading model {lead.id}"
                + (f"; {', '.join(u.statuses)}" if u.statuses else ""),
                f"Model {hit.ref} at {hit.at[0]:.2f}, {hit.at[1]:.2f}: "
                f"{elevation_level(bf, hit)} level"
                + (" (flying)" if hit.flying else "")]
        elif isinstance(hit, Marker):
            self.selection_info = [f"Marker {hit.id} ({hit.colour}) at {hit.at[0]:g}, "
                                   f"{hit.at[1]:g}"]
        elif isinstance(hit, TerrainPiece):
            eff = piece_effective_size(bf, hit)
            bits = [f"Size {hit.size}", hit.kind]
            if eff != hit.size:
                bits.append(f"effective size {eff} (on {hit.on})")
            if hit.can_stand_on:
                bits.append("raised top")
            if hit.access_points:
                bits.append(f"{len(hit.access_points)} access point(s)")
            if hit.openings:
                bits.append(f"{len(hit.openings)} opening(s)")
            self.selection_info = [f"Terrain {hit.id}"
                                   + (f" “{hit.label}”" if hit.label else "")
                                   + ": " + ", ".join(bits)]
        else:
            self.selection_thing = None
            self.selection_info = [f"Table point {pt[0]:.2f}, {pt[1]:.2f}"]

    # ------------------------------------------------------------------ keys

    def key(self, name: str) -> bool:
        """A key by name ("m", "l", "t", "T", "e", "f", "escape", "plus", "minus", "left", …).
        Returns True when the picture changed."""
        if name == "escape":
            if self.picks or self.tool != "select":
                self.picks, self.tool = [], "select"
            else:
                self.results, self.selection_info, self.selection_thing = [], [], None
                self.selected, self.engagement, self.reach = None, False, False
                self.coherency = False
            self.message = ""
        elif name == "m":
            self.tool, self.picks = "measure", []
        elif name == "l" and tool_available("sight"):
            self.tool, self.picks = "sight", []
        elif name == "t" and tool_available("template"):
            self.tool, self.picks = "template", []
        elif name == "T" and tool_available("template"):
            self.tool, self.picks = "template", []
            self.template_kind = "flamer" if self.template_kind == "blast" else "blast"
        elif name == "e" and ov.available("engagement"):
            self.engagement = not self.engagement
        elif name == "c" and ov.available("coherency"):
            self.coherency = not self.coherency
        elif name == "r" and tool_available("reach"):
            if self.selected is None:
                self.message = "Select a unit first (click one of its models), then press R."
            else:
                self.reach = not self.reach
        elif name == "g" and tool_available("charge"):
            self.tool, self.picks = "charge", []
        elif name in "0123456" and len(name) == 1 and tool_available("charge"):
            self.charge_roll = int(name) or None
            # the roll applies to the latest charge on the table
            for i in range(len(self.results) - 1, -1, -1):
                r = self.results[i]
                if isinstance(r, ov.Charge):
                    self.results[i] = replace(r, roll=self.charge_roll)
                    break
        elif name == "f":
            self.camera = Camera()
            return True
        else:
            return False
        self.invalidate()
        return True


# ------------------------------------------------------------------ camera (pure)

def camera_centre(cam: Camera, bf: Battlefield) -> tuple[float, float]:
    return cam.centre if cam.centre is not None else bf.table.centre


def pan(cam: Camera, fit: Transform, bf: Battlefield, dx: float, dy: float) -> Camera:
    """Drag by (dx, dy) pixels: the table follows the mouse."""
    s = fit.scale * cam.zoom
    cx, cy = camera_centre(cam, bf)
    return replace(cam, centre=(cx - dx / s, cy - dy / s))


def zoom_at(cam: Camera, fit: Transform, bf: Battlefield, px: float, py: float,
            factor: float) -> Camera:
    """Zoom by `factor` keeping the table point under pixel (px, py) where it is."""
    s = fit.scale * cam.zoom
    cx, cy = camera_centre(cam, bf)
    fx, fy = fit.to_px(bf.table.centre)
    wx, wy = cx + (px - fx) / s, cy + (py - fy) / s
    z = min(ZOOM_MAX, max(ZOOM_MIN, cam.zoom * factor))
    s2 = fit.scale * z
    return Camera(z, (wx - (px - fx) / s2, wy - (py - fy) / s2))


def window_fit(scene: Scene, width: int, height: int) -> Transform:
    u = window_u(width)
    return fit_transform(scene.table, width, height, u, bottom_height(scene, width, u))


def pick_tolerance(tr: Transform) -> float:
    return PICK_PIXELS / tr.scale if tr.scale > 0 else math.inf
