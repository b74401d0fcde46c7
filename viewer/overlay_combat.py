"""Overlays for close combat (`geom.combat`): who fights and who supports, close ranks
and the casualty order (§8.8.1, §8.7.5), and disengaging (§8.5.4). The engine decides; this
module draws its answer: ranks as dots on the models, the engine's engaged pairs, the close-ranks
path and end, casualty numbers (1 removed first), the disengage path, ends, and the models that
cannot get clear crossed out."""

from __future__ import annotations

from dataclasses import dataclass

from geom import combat, engagement
from geom.model import Battlefield, Model

from . import markings as mk
from . import style as st
from .overlay_base import Highlight, cross, dot, ghost
from .overlay_move import gap_prims, gone_prims, gone_words, path_prims
from .overlay_sight import engaged_pair_prims
from .scene import L_OVER, L_OVER_TEXT, OverlayLayer, Prim, Text


def _rank_dot(m: Model, colour: st.RGBA, tag: str, mark: mk.Marking) -> Prim:
    return dot(m.at, min(0.22, m.base.b * 0.45), colour, L_OVER + 1, tag, mark)  # over paths


@dataclass(frozen=True)
class Fight:
    """A unit in close combat: fighting and supporting rank against each enemy unit it is
    engaged with (§8.8.1 steps 2 and 4), whether its leading model can close ranks and the best
    legal end (§8.8.1 step 1), and one legal casualty order (§8.7.5)."""

    unit: str

    def build(self, bf: Battlefield) -> OverlayLayer:
        u = bf.unit(self.unit)
        by_id = {m.id: m for m in u.models}
        prims: list[Prim] = []
        ranks = combat.all_ranks(bf, u)
        if not ranks:
            return OverlayLayer(Highlight((u,)).build(bf).prims, [],
                                [f"Fight: {u.id} is engaged with no enemy unit ({combat.RULE_RANKS})"])
        info = [f"Fight ({combat.RULE_RANKS}): {u.id} is engaged with "
                + ", ".join(r.enemy for r in ranks)]
        for r in ranks:
            enemy = bf.unit(r.enemy)
            prims += engaged_pair_prims(engagement.engaged_pairs(bf, u.models, enemy.models))
            for mid in r.fighting:
                prims.append(_rank_dot(by_id[mid], st.FIGHTING, f"fight:fighting:{u.id}/{mid}",
                                       mk.FIGHTING))
            for mid in r.supporting:
                prims.append(_rank_dot(by_id[mid], st.SUPPORTING,
                                       f"fight:supporting:{u.id}/{mid}", mk.SUPPORTING))
            info.append(f"    against {r.enemy}: fighting {', '.join(r.fighting) or 'none'}; "
                        f"supporting {', '.join(r.supporting) or 'none'}")
        close = combat.can_close_ranks(bf, u)
        info.append(f"Close ranks ({close.rule}): "
                    + ("possible — " if close.ok else "not possible — ") + close.reason)
        if close.ok and close.witness:
            lead = u.model(str(close.details.get("leading", u.leading_model.id)))
            end = (float(close.witness[-1][0]), float(close.witness[-1][1]))
            prims += path_prims(close.witness, "fight:close-ranks:path")
            prims += ghost(lead, end, "fight:close-ranks:end")
        steps = combat.removal_order(bf, u)
        for k, step in enumerate(steps, start=1):
            m = by_id[step.removed]
            rb = m.base.b
            prims.append(Text((m.at[0] + rb * 0.75, m.at[1] + rb * 0.75), str(k), 15,
                              st.CASUALTY, L_OVER_TEXT, bold=True, tag=f"fight:casualty:{m.ref}",
                              mark=mk.CASUALTY))
        if steps:
            info.append(f"Casualty order ({combat.RULE_CASUALTIES}): "
                        + ", ".join(f"{k} {s.removed}" for k, s in enumerate(steps, start=1))
                        + f" — first: {steps[0].reason}")
        return OverlayLayer(prims, [], info)


@dataclass(frozen=True)
class Disengage:
    """A unit disengaging (§8.5.4): the leading model's path out of every enemy's engagement
    range and where each model ends, and the models that cannot get clear (crossed out)."""

    unit: str

    def build(self, bf: Battlefield) -> OverlayLayer:
        u = bf.unit(self.unit)
        by_id = {m.id: m for m in u.models}
        ans = combat.disengage(bf, u)
        prims: list[Prim] = []
        if ans.path:
            lead = by_id.get(ans.leading or "")
            prims += path_prims(ans.path, "disengage:path",
                                radius=lead.base.a if lead is not None else 0.0)
            if lead is not None:
                prims += gap_prims(bf, lead, ans.path, "disengage:path")
        if ans.end is not None and ans.leading is not None:
            prims += ghost(by_id[ans.leading], ans.end, "disengage:end")
        for mid, at in ans.positions.items():
            if mid in by_id and mid != ans.leading:
                prims += ghost(by_id[mid], at, f"disengage:end:{mid}")
        for mid in ans.destroyed:
            if mid in by_id:
                prims += cross(by_id[mid], f"disengage:destroyed:{u.id}/{mid}")
        info = [f"Disengage {u.id} ({ans.rule}): "
                + ("possible" if ans.possible else "NOT possible") + f" — {ans.reason}"]
        if ans.destroyed:
            info.append("    destroyed: " + ", ".join(f"{u.id}/{m}" for m in ans.destroyed))
        if ans.possible:
            prims += gone_prims(bf, ans.destroys_grass, ans.removed, "disengage:gone")
            info += gone_words(bf, ans.destroys_grass, ans.removed)
        return OverlayLayer(prims, [], info)
