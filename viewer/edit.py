"""Edit mode: rebuilding a table state in the viewer — move a model or a whole unit, turn an
oval base, add a unit from the catalogue, remove a model, choose the leading model — with
undo/redo, the scenario loader's own placement checks after every change, and saving the table
as a TOML scenario (`scenario.save`) that every `tmg` command reads.

Pure (no window): every change makes a new `Battlefield` (they are immutable), so undo and
redo are a list of tables. Units are rebuilt through the scenario reader (`parse_unit` of the
unit as a file would write it), so an edited unit is exactly what loading the saved file gives.

A change is never refused: a judge may pass through an illegal arrangement on the way to the
one in dispute. The checks run after each change (bases off the table, overlapping another base
or impassable terrain — `scenario.check_battlefield`) and their findings are shown and ringed;
saving is refused while any remain, since the loader would refuse the file.

>>> import scenario
>>> ed = Editor(scenario.load("examples/gap-run.toml"))
>>> m = ed.bf.unit("marines").models[0]
>>> ed.move_models([m], (0.5, 0.0))
'moved marines/1 by 0.50", 0.00"'
>>> ed.bf.unit("marines").models[0].at == (m.at[0] + 0.5, m.at[1])
True
>>> ed.undo(), ed.bf.unit("marines").models[0].at == m.at
('undid: moved marines/1 by 0.50", 0.00"', True)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from formats.fields import Ctx
from geom.errors import TmgError
from geom.model import Battlefield, Model, Unit
from scenario import catalogue, check_battlefield, is_official_name, save
from scenario.units import parse_unit

MAX_HISTORY = 200
ADD_GAP = 0.25  # inches between the bases of a unit added from the catalogue


@dataclass(frozen=True)
class Problem:
    """A placement the scenario checks refuse: the model (if one is named) and the message."""

    model: str | None
    message: str


class _Refused(Exception):
    def __init__(self, obj: str | None, fld: str | None, msg: str) -> None:
        super().__init__(msg)
        self.obj, self.fld, self.msg = obj, fld, msg


_MODEL_OBJ = re.compile(r"^unit (['\"])(.*)\1 model (['\"])(.*)\3$")


def _without_model(bf: Battlefield, unit: str, model: str) -> Battlefield:
    u = bf.unit(unit)
    rest = tuple(m for m in u.models if m.id != model)
    if not rest:
        return replace(bf, units=tuple(v for v in bf.units if v.id != unit))
    return bf.replace_unit(replace(u, models=rest, leading=None if u.leading == model
                                   else u.leading))


def placement_problems(bf: Battlefield) -> list[Problem]:
    """Everything the scenario loader's placement checks refuse on this table: after each
    finding the model it names is set aside and the checks run again, so every refused model
    is found, not just the first."""
    out: list[Problem] = []
    cur = bf
    for _ in range(sum(len(u.models) for u in bf.units) + 1):
        try:
            check_battlefield(cur, lambda o, f, m: _Refused(o, f, m))
            return out
        except _Refused as r:
            where = f"{r.obj}: " if r.obj else ""
            hit = _MODEL_OBJ.match(r.obj or "")
            if hit is None:
                out.append(Problem(None, where + r.msg))
                return out
            ref = f"{hit.group(2)}/{hit.group(4)}"
            out.append(Problem(ref, where + r.msg))
            cur = _without_model(cur, hit.group(2), hit.group(4))
    return out


def rebuilt(u: Unit, models: Sequence[Model] | None = None, **changes: Any) -> Unit:
    """The unit as the scenario reader builds it from its file entry, with other models or
    fields. A catalogue unit whose supply came from its supply profile gets it again for its new
    number of models."""
    entry = save.unit_entry(u)
    ctx = Ctx("edit")
    if models is not None:
        keep = {m.id for m in models}
        entry["models"] = [e for e in entry["models"] if e["id"] in keep]
        if u.type is not None and "supply" in entry:
            derived = parse_unit(ctx, {k: v for k, v in save.unit_entry(u).items()
                                       if k != "supply"}, 0).supply
            if derived == u.supply:
                del entry["supply"]
    entry.update(changes)
    if entry.get("leading") is None:
        entry.pop("leading", None)
    return parse_unit(ctx, entry, 0)


def _onto_table(bf: Battlefield, pts: list[tuple[float, float]], r: float
                ) -> list[tuple[float, float]]:
    """The group of bases slid (as a whole) so that it lies on the table where it can."""
    t = bf.table
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    dx = max(0.0, r - min(xs)) - max(0.0, max(xs) + r - t.width)
    dy = max(0.0, r - min(ys)) - max(0.0, max(ys) + r - t.depth)
    return [(x + dx, y + dy) for x, y in pts]


def new_unit(bf: Battlefield, type_name: str, owner: str, at: tuple[float, float],
             unit_id: str | None = None) -> Unit:
    """A unit of a catalogue type (its first listed composition's number of models, else
    one), its bases in rows of five around `at`, `ADD_GAP` apart."""
    entry = catalogue.find(type_name)
    if entry is None:
        raise TmgError(f"no unit type {type_name!r} in the catalogue (see `tmg units`)")
    comps = [c for c in entry.get("compositions") or [] if c.get("models")]
    n = int(comps[0]["models"]) if comps else 1
    if unit_id is None:
        k = 1
        while any(u.id == f"{entry['id']}-{k}" for u in bf.units):
            k += 1
        unit_id = f"{entry['id']}-{k}"
    probe = parse_unit(Ctx("catalogue"), {"id": unit_id, "type": entry["id"], "owner": owner,
                                          "models": [[0.0, 0.0]]}, 0)
    step = probe.base.long + ADD_GAP
    cols = min(n, 5)
    rows = (n + cols - 1) // cols
    pts = [(at[0] + (i % cols - (cols - 1) / 2) * step, at[1] - (i // cols - (rows - 1) / 2)
            * step) for i in range(n)]
    pts = _onto_table(bf, pts, probe.base.long / 2)
    return parse_unit(Ctx("catalogue"), {
        "id": unit_id, "type": entry["id"], "owner": owner,
        "models": [{"id": str(i + 1), "at": list(p)} for i, p in enumerate(pts)]}, 0)


@dataclass
class Editor:
    """The table being edited, its history and the checks' findings."""

    bf: Battlefield
    done: list[tuple[Battlefield, str]] = field(default_factory=list)
    undone: list[tuple[Battlefield, str]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    changed: bool = False

    def __post_init__(self) -> None:
        self.problems = placement_problems(self.bf)

    def _apply(self, bf: Battlefield, what: str) -> str:
        self.done = (self.done + [(self.bf, what)])[-MAX_HISTORY:]
        self.undone = []
        self.bf = bf
        self.changed = True
        self.problems = placement_problems(bf)
        return what

    # ------------------------------------------------------------------ changes

    def move_models(self, models: Sequence[Model], delta: tuple[float, float]) -> str:
        """Move models (of one or several units) by `delta` inches."""
        dx, dy = delta
        bf = self.bf
        by_unit: dict[str, dict[str, Model]] = {}
        for m in models:
            by_unit.setdefault(m.unit, {})[m.id] = m
        for uid, moved in by_unit.items():
            u = bf.unit(uid)
            bf = bf.replace_unit(replace(u, models=tuple(
                m.moved_to((m.at[0] + dx, m.at[1] + dy)) if m.id in moved else m
                for m in u.models)))
        who = models[0].ref if len(models) == 1 else (
            models[0].unit if len(by_unit) == 1 and len(models) == len(
                self.bf.unit(models[0].unit).models) else f"{len(models)} models")
        return self._apply(bf, f'moved {who} by {dx:.2f}", {dy:.2f}"')

    def turn(self, model: Model, degrees: float) -> str:
        """Turn an oval base about its centre (a disc looks the same every way)."""
        if model.base.is_disc:
            raise TmgError(f"{model.ref} has a round base: turning it changes nothing")
        u = self.bf.unit(model.unit)
        angle = (model.angle + degrees) % 360.0
        new = tuple(replace(m, angle=angle) if m.id == model.id else m for m in u.models)
        return self._apply(self.bf.replace_unit(replace(u, models=new)),
                           f"turned {model.ref} to {angle:g}°")

    def remove_model(self, model: Model) -> str:
        u = self.bf.unit(model.unit)
        rest = [m for m in u.models if m.id != model.id]
        if not rest:
            return self.remove_unit(u)
        leading = None if u.leading == model.id else u.leading
        new = rebuilt(u, rest, leading=leading)
        return self._apply(self.bf.replace_unit(new), f"removed {model.ref}")

    def remove_unit(self, unit: Unit) -> str:
        return self._apply(replace(self.bf, units=tuple(v for v in self.bf.units
                                                        if v.id != unit.id)),
                           f"removed unit {unit.id}")

    def set_leading(self, model: Model) -> str:
        u = self.bf.unit(model.unit)
        return self._apply(self.bf.replace_unit(replace(u, leading=model.id)),
                           f"{model.ref} is the leading model of {u.id}")

    def add_unit(self, type_name: str, owner: str, at: tuple[float, float]) -> Unit:
        u = new_unit(self.bf, type_name, owner, at)
        self._apply(replace(self.bf, units=(*self.bf.units, u)),
                    f"added {u.id} ({len(u.models)} model(s), {owner})")
        return u

    # ------------------------------------------------------------------ history

    def _step(self, source: list[tuple[Battlefield, str]], target: list[tuple[Battlefield, str]],
              done: str, empty: str) -> str:
        if not source:
            return empty
        bf, what = source.pop()
        target.append((self.bf, what))
        self.bf, self.changed = bf, True
        self.problems = placement_problems(bf)
        return f"{done}: {what}"

    def undo(self) -> str:
        return self._step(self.done, self.undone, "undid", "nothing to undo")

    def redo(self) -> str:
        return self._step(self.undone, self.done, "redid", "nothing to redo")

    # ------------------------------------------------------------------ saving

    def save(self, path: str | Path, layout: str | None = None,
             extra: dict[str, Any] | None = None) -> str:
        """Write the table as a TOML scenario (atomically); refused while a placement check
        fails, since the loader would refuse the file."""
        if self.problems:
            raise TmgError(f"not saved: {len(self.problems)} placement(s) refused — "
                           f"{self.problems[0].message}")
        save.save(path, self.bf, layout=layout, extra=extra)
        self.changed = False
        return f"saved the table as {path}"


def save_target(source: str) -> tuple[Path, str | None, dict[str, Any]]:
    """Where `S` saves a table opened from `source`, and how: beside a scenario file as
    NAME-edited.toml (the file itself once it is an -edited one), in the working directory for
    an official name; a layout stays `layout = NAME` plus the pieces that differ; a scenario's
    `description` and `[templates]` are carried over."""
    layout, extra = save.source_settings(source)
    if is_official_name(source):
        return Path(f"{source}-edited.toml"), layout, {}
    p = Path(source)
    stem = p.stem if p.stem.endswith("-edited") else f"{p.stem}-edited"
    return p.with_name(f"{stem}.toml"), layout, extra
