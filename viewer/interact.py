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
(every unit when none is selected, §4.4); `R` reach of a move for the selected unit (§8.5.3); `K`
close combat of the selected unit (ranks, close ranks, casualty order; §8.8.1, §8.7.5), `J` its
disengage (§8.5.4). Each tool or toggle exists only when its engine module does.

Edit mode (`D`, see `viewer.edit`): drag a model to move it (`Shift`: its whole unit), `[` `]`
turn the selected oval base by 15° (`{` `}`: 1°), `Delete` removes the selected model
(`Shift+Delete` its unit), `H` makes it the leading model, `N` adds a unit from the catalogue
(type its name, `Tab` switches red/blue, `Enter`, then click where), `Ctrl+Z` / `Ctrl+Y` undo
and redo. The placement checks run after every change; `S` saves the table as TOML.

View: drag to pan, wheel to zoom at the cursor, `F` fit, `+`/`-` zoom, arrows; `P` saves the
picture (as `tmg render` draws it) to tmg-view-N.png; `Ctrl+Q` or closing the window quits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from geom.elevation import elevation_level, piece_effective_size
from geom.errors import TmgError
from geom.judge import check
from geom.model import Battlefield, Marker, Model, TerrainPiece, Unit
from scenario import catalogue

from . import edit, layout, picking
from . import markings as mk
from . import overlays as ov
from . import style as st
from .layout import Camera
from .overlay_base import base_ring
from .scene import OverlayLayer, Prim, Scene, Transform, build_scene, outline

EDIT_KEYS = {"v", "d", "s", "undo", "redo", "n", "[", "]", "{", "}", "delete", "Delete", "h"}
L_DRAG = 17  # above the answers
PICK_PIXELS = 7.0  # how far from a base a click still picks it
ZOOM_MIN, ZOOM_MAX = 0.3, 40.0
TOOLS = ("select", "measure", "sight", "template", "charge", "place")
MAX_RESULTS = 6  # tapes/sight lines kept on screen at once


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
    fight: bool = False
    disengage: bool = False
    camera: Camera = field(default_factory=Camera)
    message: str = ""
    layers: ov.Layers = field(default_factory=ov.Layers)
    source: str | None = None  # the file or name the table came from (where `S` saves)
    save_path: str | None = None  # `tmg view --save FILE`
    edit_mode: bool = False
    edit_before: Any = None  # the table when edit mode was entered: "check this move" (V)
    editor: edit.Editor | None = None
    drag: tuple[tuple[Model, ...], tuple[float, float]] | None = None
    prompt: str | None = None  # the unit type being typed after `N`
    place_type: str | None = None
    place_owner: str = "red"
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
        if self.fight and self.selected is not None:
            out.append(ov.Fight(self.selected.id))
        if self.disengage and self.selected is not None:
            out.append(ov.Disengage(self.selected.id))
        out += self.results
        things = list(self.picks)
        if self.selection_thing is not None:
            things.append(self.selection_thing)
        if things:
            out.append(ov.Highlight(tuple(things)))
        return out

    def hint(self) -> str:
        n = len(self.picks)
        if self.prompt is not None:
            known = self.type_matches(self.prompt)
            return (f"Add a {self.place_owner} unit: type its name: {self.prompt}▏ "
                    f"(Tab: red/blue, Enter: choose, Esc: cancel)"
                    + (f" — {', '.join(known[:6])}" if known else " — no such unit type"))
        if self.tool == "place":
            return f"Add {self.place_type} ({self.place_owner}): click where it goes (Esc cancels)"
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
        keys = ["M measure", "L sight", "T template", "G charge", "E engagement", "C coherency",
                "R reach of the selected unit", "K fight, J disengage (selected unit)"]
        if self.edit_mode:
            return ("EDIT: drag a model (Shift: its unit) · [ ] turn · Del remove · H leading · "
                    "N add · Ctrl+Z/Y undo/redo · S save · D leave · " + ", ".join(keys))
        return ("Click to inspect · " + ", ".join(keys) + " · D edit · S save · F fit · "
                "P save picture · Esc clear")

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
            layers.append(self._edit_layer())
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
        if self.tool == "place" and self.place_type is not None:
            self._edit(lambda ed: ed.add_unit(str(self.place_type), self.place_owner, pt).id)
            self.tool, self.place_type = "select", None
        elif self.tool == "select":
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
            self.selection_info = [f"Terrain {hit.title}: " + ", ".join(bits)]
        else:
            self.selection_thing = None
            self.selection_info = [f"Table point {pt[0]:.2f}, {pt[1]:.2f}"]

    # ------------------------------------------------------------------ keys

    # ------------------------------------------------------------------ edit mode

    def _editor(self) -> edit.Editor:
        if self.editor is None:
            self.editor = edit.Editor(self.bf)
        return self.editor

    def _edit(self, change: Any) -> None:
        """Apply an edit (a function of the Editor returning what it did), then ask every
        question on the table again of the new table."""
        ed = self._editor()
        try:
            self.message = str(change(ed))
        except TmgError as exc:
            self.message = f"Cannot do that: {exc}"
            return
        self._use(ed.bf)

    def _use(self, bf: Battlefield) -> None:
        self.bf = bf
        lost: list[str] = []

        def again(o: Any) -> Any:
            try:
                return ov.rebind(o, bf)
            except TmgError:
                lost.append(type(o).__name__.lower())
                return None

        self.fixed = [o for o in (again(o) for o in self.fixed) if o is not None]
        self.results = [o for o in (again(o) for o in self.results) if o is not None]
        self.picks = [p for p in (ov.rebound(p, bf) if not isinstance(p, Model) or
                                  _has_model(bf, p) else None for p in self.picks)
                      if p is not None]
        if isinstance(self.selection_thing, Model):
            self.selection_thing = (ov.rebound(self.selection_thing, bf)
                                    if _has_model(bf, self.selection_thing) else None)
        if self.selected is not None:
            self.selected = next((u for u in bf.units if u.id == self.selected.id), None)
            if isinstance(self.selection_thing, Model):
                self._select(self.selection_thing, self.selection_thing.at)
        if lost:
            self.message += f" (dropped {', '.join(lost)}: a model it asked about is gone)"
        self.invalidate()

    def check_move(self) -> None:
        """"Check this move" (GEOMETRY-RULES §14): the table before the edit against now, by
        `geom.judge` — the verdict as the message and the Check overlay (declared ends, path,
        failures)."""
        try:
            verdict = check(self.edit_before or self.bf, self.bf)
        except TmgError as exc:
            self.message = f"Cannot check: {exc}"
            return
        self.results = [r for r in self.results if not isinstance(r, ov.Check)]
        self.results.append(ov.Check(self.bf, verdict, before=self.edit_before))
        self.message = f"Check: {'LEGAL' if verdict['legal'] else 'NOT LEGAL'} — {verdict['reason']}"
        self.invalidate()

    def _selected_model(self) -> Model | None:
        return self.selection_thing if isinstance(self.selection_thing, Model) else None

    def _edit_key(self, name: str) -> bool:
        m = self._selected_model()
        if name == "d":
            self.edit_mode = not self.edit_mode
            self.edit_before = self.bf if self.edit_mode else None
            self.message = ("Edit mode: drag a model (Shift: its unit) · [ ] turn · Del remove · "
                            "H leading · N add a unit · Ctrl+Z/Ctrl+Y undo/redo · V check this "
                            "move · S save · D leave"
                            if self.edit_mode else "Edit mode off")
        elif name == "v" and self.edit_mode:
            self.check_move()
        elif name == "s":
            self.save()
        elif name == "undo":
            self._edit(lambda ed: ed.undo())
        elif name == "redo":
            self._edit(lambda ed: ed.redo())
        elif not self.edit_mode:
            return False
        elif name == "n":
            self.prompt, self.tool, self.picks = "", "select", []
        elif m is None:
            self.message = "Select a model first (click its base)."
        elif name in "[]{}":
            deg = {"[": 15.0, "]": -15.0, "{": 1.0, "}": -1.0}[name]
            self._edit(lambda ed: ed.turn(m, deg))
        elif name == "delete":
            self._edit(lambda ed: ed.remove_model(m))
        elif name == "Delete":
            self._edit(lambda ed: ed.remove_unit(self.bf.unit(m.unit)))
        elif name == "h":
            self._edit(lambda ed: ed.set_leading(m))
        self.invalidate()
        return True

    def type_matches(self, text: str) -> list[str]:
        t = text.strip().lower().replace(" ", "-")
        return [u["id"] for u in catalogue.units() if u["id"].startswith(t)
                or str(u.get("name", "")).lower().replace(" ", "-").startswith(t)]

    def type_text(self, text: str) -> bool:
        """Typed characters while a unit type is being asked for."""
        if self.prompt is None:
            return False
        self.prompt += "".join(c for c in text if c.isprintable() and c not in "\t\r\n")
        self.invalidate()
        return True

    def _prompt_key(self, name: str) -> bool:
        assert self.prompt is not None
        if name == "escape":
            self.prompt = None
        elif name == "backspace" or name == "delete":
            self.prompt = self.prompt[:-1]
        elif name == "tab":
            self.place_owner = "blue" if self.place_owner == "red" else "red"
        elif name == "enter":
            found = catalogue.find(self.prompt)
            matches = self.type_matches(self.prompt)
            if found is None and len(matches) >= 1:
                found = catalogue.find(matches[0])
            if found is None:
                self.message = f"No unit type {self.prompt!r} in the catalogue."
            else:
                self.place_type, self.tool, self.prompt = str(found["id"]), "place", None
        else:
            return False
        self.invalidate()
        return True

    def start_drag(self, pt: tuple[float, float], tol: float, whole_unit: bool) -> bool:
        """Edit mode: a press on a base starts moving it (or its unit). True if it did."""
        if not self.edit_mode:
            return False
        hit = picking.pick_base(self.bf, pt, tol)
        if not isinstance(hit, Model):
            return False
        models = self.bf.unit(hit.unit).models if whole_unit else (hit,)
        self.drag = (tuple(models), (0.0, 0.0))
        self.invalidate()
        return True

    def drag_to(self, delta: tuple[float, float]) -> None:
        if self.drag is not None:
            self.drag = (self.drag[0], delta)
            self.invalidate()

    def drop(self) -> None:
        if self.drag is None:
            return
        models, delta = self.drag
        self.drag = None
        if delta != (0.0, 0.0):
            self._edit(lambda ed: ed.move_models(models, delta))
        self.invalidate()

    def save(self) -> str | None:
        """`S`: the table as a TOML scenario, where `edit.save_target` says (or `--save`)."""
        try:
            path, layout_name, extra = edit.save_target(self.source or "table")
            if self.save_path:
                path = Path(self.save_path)
            self.message = self._editor().save(path, layout_name, extra).capitalize()
            return str(path)
        except TmgError as exc:
            self.message = f"Not saved: {exc}"
            return None
        finally:
            self.invalidate()

    def _edit_layer(self) -> OverlayLayer:
        prims: list[Prim] = []
        info: list[str] = []
        if self.editor is not None:
            by_ref = {m.ref: m for m in self.bf.models()}
            for p in self.editor.problems:
                if p.model in by_ref:
                    prims += base_ring(by_ref[p.model], 0.14, st.PROBLEM, 4.0,
                                       f"edit:problem:{p.model}", mk.PROBLEM)
                info.append(f"Placement refused: {p.message}")
        if self.drag is not None:
            models, (dx, dy) = self.drag
            for m in models:
                poly = m.moved_to((m.at[0] + dx, m.at[1] + dy)).ellipse.polygon(64)
                prims += outline(poly, st.DRAG, 3.0, L_DRAG, dash=6, tag=f"edit:drag:{m.ref}",
                                 mark=mk.DRAGGED)
        return OverlayLayer(prims, [], info)

    def key(self, name: str) -> bool:
        """A key by name ("m", "l", "t", "T", "e", "f", "escape", "plus", "minus", "left", …).
        Returns True when the picture changed."""
        if self.prompt is not None:
            return self._prompt_key(name)
        if name in EDIT_KEYS:
            return self._edit_key(name)
        if name == "escape":
            if self.picks or self.tool != "select":
                self.picks, self.tool = [], "select"
            else:
                self.results, self.selection_info, self.selection_thing = [], [], None
                self.selected, self.engagement, self.reach = None, False, False
                self.coherency = self.fight = self.disengage = False
            self.message = ""
        elif name == "m":
            self.tool, self.picks = "measure", []
        elif name == "l":
            self.tool, self.picks = "sight", []
        elif name == "t":
            self.tool, self.picks = "template", []
        elif name == "T":
            self.tool, self.picks = "template", []
            self.template_kind = "flamer" if self.template_kind == "blast" else "blast"
        elif name == "e":
            self.engagement = not self.engagement
        elif name == "c":
            self.coherency = not self.coherency
        elif name == "r":
            if self.selected is None:
                self.message = "Select a unit first (click one of its models), then press R."
            else:
                self.reach = not self.reach
        elif name in ("k", "j"):
            if self.selected is None:
                self.message = "Select a unit first (click one of its models), then press " \
                    + name.upper() + "."
            elif name == "k":
                self.fight = not self.fight
            else:
                self.disengage = not self.disengage
        elif name == "g":
            self.tool, self.picks = "charge", []
        elif name in "0123456" and len(name) == 1:
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


def _has_model(bf: Battlefield, m: Model) -> bool:
    return any(u.id == m.unit and any(x.id == m.id for x in u.models) for u in bf.units)


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
    """The fitted transform of the window: the table and the window size decide it, never
    the answers on the table."""
    return layout.window_fit(scene.table, width, height)


def pick_tolerance(tr: Transform) -> float:
    return PICK_PIXELS / tr.scale if tr.scale > 0 else math.inf
