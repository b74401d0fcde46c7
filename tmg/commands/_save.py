"""`--save` of the moving actions (`tmg move`, `charge`, `disengage`, `fight`): the table an action
leaves, written as a scenario file every command reads, with the unit's coherency at its end
recorded (§4.4: coherency persists through casualties, docs/rules.md#coherency-persists).

A module of its own so that the commands that save nothing (`tmg los`, `distance`, …) never
load the movement wing that judges coherency.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from geom.errors import TmgError
from geom.model import Battlefield
from geom.movement import coherency
from scenario.save import document as save_document
from scenario.save import save as save_scenario
from scenario.save import source_settings


def add_save(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--save", metavar="FILE.toml",
                   help=f"write the table as {what} leaves it (models moved, GRASS destroyed and "
                        "pieces removed gone) as a scenario file, atomically; nothing is written "
                        "when it is not legal")


def save_after(args: argparse.Namespace, out: dict[str, Any], bf: Battlefield, unit: str,
               positions: dict[str, Any] | None, destroyed: Any = (), why_not: str = "",
               moved: bool = True) -> None:
    """`--save`: the table after the action (`Battlefield.after_action`), written as a
    scenario that every command reads, so that sight or engagement can be asked of the table
    the action leaves — the GRASS it trampled gone (docs/rules.md#charge-grass). `positions` None: the action is not legal,
    nothing is written and `save_refused` says why. A moving action (`moved`) records the
    unit's coherency at its end, casualties removed (`coherent`, §4.4:
    docs/rules.md#coherency-persists); `saved_coherent` says what was written."""
    if not getattr(args, "save", None):
        return
    if positions is None:
        out["saved"] = None
        out["save_refused"] = why_not or "the action is not legal"
        return
    gone = [*out.get("destroys_grass", []), *out.get("removed", [])]
    try:
        after = bf.after_action(unit, positions, destroyed=destroyed, pieces_gone=gone)
        if moved and any(u.id == unit for u in after.units):
            coherent = coherency(after, unit).ok
            after = after.replace_unit(replace(after.unit(unit), coherent=coherent))
            out["saved_coherent"] = coherent
        layout, extra = source_settings(args.file)
        kept = getattr(args, "saved_documents", None)
        if kept is not None:  # the service: the document in the answer, nothing written
            kept[args.save] = save_document(after, layout=layout, extra=extra)
        else:
            save_scenario(args.save, after, layout=layout, extra=extra)
    except TmgError as exc:
        raise TmgError(exc.detail, file=args.save, obj="--save", field=exc.field) from None
    out["saved"] = args.save


def saved_line(r: dict[str, Any], what: str) -> str:
    """The text line for `--save` (empty without it)."""
    if "saved" not in r:
        return ""
    if r["saved"] is None:
        return f"  not saved: {r.get('save_refused', '')}"
    return f"  saved the table after {what} as {r['saved']}"
