"""Every marking the pictures use, each with one meaning and one legend entry.

A primitive that shows something carries its `Marking` (`mark=`); the scene's legend is made
from the markings actually drawn (`viewer.scene.build_scene`), so nothing drawn goes without a
legend entry and nothing in the legend is absent from the picture. Two markings never look
alike: same swatch kind means clearly different colours (`tests/test_viewer_markings.py`
checks every pair in `ALL`).

Swatch kinds: `fill` (area, optional edge), `outline` (dashed area edge; its `edge` is the
ground it is drawn on), `line`, `dash`,
`disc`, `ring` (solid ring around a base), `dashring`, `dot` (a dot on a model), `cross`,
`number` (figures on models), `ramp` (a colour bar, for callers such as survey heatmaps).

>>> LEADER.entry().text
'leading model (yellow ring)'
>>> REACH_OF.variant('reach of 11"').entry().text
'reach of 11"'
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import style as st
from .style import RGBA

KINDS = ("fill", "outline", "line", "dash", "disc", "ring", "dashring", "dot", "cross",
         "number", "ramp")


@dataclass(frozen=True)
class LegendEntry:
    """One line of the legend: a swatch (`kind`, see `KINDS`) and its text.
    A `ramp` (colour bar) takes `stops` ((value 0..1, colour), …) and `ticks` ((value 0..1,
    text), …) and a row of its own."""

    kind: str
    colour: RGBA
    text: str
    edge: RGBA | None = None
    key: str = ""
    stops: tuple[tuple[float, RGBA], ...] = ()
    ticks: tuple[tuple[float, str], ...] = ()



@dataclass(frozen=True)
class Marking:
    """One meaning drawn one way. `key` identifies the meaning (a variant keeps it and only
    changes the legend text, e.g. 'reach of 11"')."""

    key: str
    kind: str
    colour: RGBA
    text: str
    edge: RGBA | None = None

    def variant(self, text: str) -> Marking:
        return replace(self, text=text)

    def entry(self) -> LegendEntry:
        return LegendEntry(self.kind, self.colour, self.text, self.edge, key=self.key)


def _m(key: str, kind: str, colour: RGBA, text: str, edge: RGBA | None = None) -> Marking:
    assert kind in KINDS
    return Marking(key, kind, colour, text, edge)


# --------------------------------------------------------------------------- the table
RED_ZONE = _m("zone:red", "fill", st.with_alpha(st.OWNER["red"], 2 * st.ZONE_ALPHA),
              "red zone of influence", st.OWNER["red"])
BLUE_ZONE = _m("zone:blue", "fill", st.with_alpha(st.OWNER["blue"], 2 * st.ZONE_ALPHA),
               "blue zone of influence", st.OWNER["blue"])
RED_EDGE = _m("edge:red", "line", st.OWNER["red"], "red entry edge")
BLUE_EDGE = _m("edge:blue", "line", st.OWNER["blue"], "blue entry edge")
SIZE = {n: _m(f"terrain:size{n}", "fill", st.SIZE_FILL[n],
              f"terrain Size {n}" + ("+" if n == 3 else ""), st.TERRAIN_EDGE) for n in range(4)}
GRASS = _m("terrain:grass", "fill", st.GRASS_FILL, "grass (Size 2)", st.TERRAIN_EDGE)
TOKEN = _m("terrain:token", "fill", st.TOKEN_FILL, "token (Size 0)", st.TERRAIN_EDGE)
FORCE_FIELD = _m("terrain:force-field", "fill", st.FORCE_FIELD_FILL, "force field",
                 st.TERRAIN_EDGE)
RAISED_TOP = _m("terrain:top", "outline", st.TOP_EDGE, "raised top (dashed inner line)",
                st.SIZE_FILL[3])
OPENING = _m("terrain:opening", "fill", st.with_alpha(st.MAT, 200),
             "opening (gap for movement)", st.OPENING_EDGE)
ACCESS = _m("terrain:access", "fill", st.ACCESS_FILL, "access point", st.ACCESS_EDGE)
MARKER = _m("marker", "disc", st.MARKER_FILL["neutral"], "mission marker (32 mm)",
            st.MARKER_EDGE)
MODELS = {o: _m(f"models:{o}", "disc", st.with_alpha(st.OWNER[o], 235), f"{o} models",
                st.OWNER_DARK[o]) for o in ("red", "blue")}
BURROWED = {o: _m(f"burrowed:{o}", "disc", st.with_alpha(st.OWNER[o], 90),
                  f"{o} burrowed (faint)", st.OWNER_DARK[o]) for o in ("red", "blue")}
FLYING = _m("flying", "dashring", st.TEXT, "flying (dashed rim)")
LEADER = _m("leader", "ring", st.LEADER_RING, "leading model (yellow ring)")

# --------------------------------------------------------------------------- answers
ASKED = _m("asked", "ring", st.PICK, "asked about (orange ring)")
TAPE = _m("tape", "line", st.TAPE_ALT, "tape measure", st.TAPE)
SIGHT_LINE = _m("sight:witness", "line", st.SIGHT_CLEAR, "sight line (witness)")
NO_SIGHT = _m("sight:none", "dash", st.SIGHT_BLOCKED, "no sight line (centres joined)")
BLOCKING = _m("sight:blocking", "fill", st.BLOCKING_FILL, "blocks this sight line",
              st.SIGHT_BLOCKED)
PASSED_BY = _m("sight:beside", "outline", st.PASSED_BY,
               "would block; the line passes beside")
ENGAGEMENT_RANGE = _m("engagement:range", "dashring", st.ENGAGEMENT, '1" engagement range')
ENGAGED_PAIR = _m("engagement:pair", "line", st.ENGAGEMENT, "engaged pair (witness)")
TEMPLATE = _m("template", "fill", st.TEMPLATE_FILL, "template", st.TEMPLATE_EDGE)
TEMPLATE_HIT = _m("template:hit", "ring", st.TEMPLATE_HIT, "affected by the template")
TEMPLATE_MISS = _m("template:miss", "dashring", st.NOT_AFFECTED,
                   "checked, not affected (dashed grey)")
COHERENCY_LINK = _m("coherency:link", "line", st.COHERENCY_OK, "coherency link")
COHERENCY_RANGE = _m("coherency:range", "dashring", st.COHERENCY_OK,
                     "coherency distance of the leading model")
COHERENCY_FAIL = _m("coherency:fail", "ring", st.COHERENCY_BAD, "out of coherency")
COHERENCY_GAP = _m("coherency:gap", "dash", st.COHERENCY_BAD,
                   "nearest link, too long or blocked")
REACH = _m("reach", "fill", st.REACH_FILL, "reach (leader's centre)", st.REACH_EDGE)
PATH = _m("path", "line", st.PATH, "leading model's path")
SWEPT = _m("path:swept", "outline", st.with_alpha(st.PATH, 90),
           "swept base along the path (off every obstacle except in a gap)")
GAP = _m("path:gap", "line", st.GAP_MARK, "gap the base squeezes through, with its width (§4.6)")
ILLEGAL_PATH = _m("path:illegal", "dash", st.ILLEGAL, "path of a move that is not legal")
END = _m("end", "dashring", st.PATH, "end position (base)")
ILLEGAL_END = _m("end:illegal", "dashring", st.ILLEGAL, "asked end position, not legal")
CHARGE_ENDS = _m("charge:ends", "fill", st.CHARGE_FILL, "legal charge ends (leader's centre)",
                 st.CHARGE_EDGE)
REACH_OF = _m("charge:travel", "dash", st.REACH_EDGE, "reach of the charge distance")
REACHED = _m("charge:reached", "fill", st.REACHED_FILL, "charge ends this roll reaches")
FIGHTING = _m("fight:fighting", "dot", st.FIGHTING, "fighting rank")
SUPPORTING = _m("fight:supporting", "dot", st.SUPPORTING, "supporting rank")
CASUALTY = _m("fight:casualty", "number", st.CASUALTY, "casualty order (1 removed first)")
DESTROYED = _m("destroyed", "cross", st.DESTROYED, "destroyed (cannot get clear)")
GONE = _m("terrain:gone", "outline", st.GONE,
          "destroyed by this move (gone)", st.GRASS_FILL)
PROBLEM = _m("edit:problem", "ring", st.PROBLEM, "placement refused by the checks")
DRAGGED = _m("edit:drag", "dashring", st.DRAG, "being moved (release to place)")
BEFORE = _m("check:before", "dashring", st.BEFORE, "where it stood before (BEFORE)")
CHECK_FAIL = _m("check:fail", "ring", st.CHECK_FAIL, "declared end that breaks a rule (AFTER)")
WITNESS = _m("check:witness", "line", st.ILLEGAL, "witness: what the failure measures")
FREE_SPOT = _m("check:spot", "dashring", st.FREE_SPOT_C, "a free legal spot it could have had")

ALL: tuple[Marking, ...] = (
    RED_ZONE, BLUE_ZONE, RED_EDGE, BLUE_EDGE, *SIZE.values(), GRASS, TOKEN, FORCE_FIELD,
    RAISED_TOP, OPENING, ACCESS, MARKER, *MODELS.values(), *BURROWED.values(), FLYING, LEADER,
    ASKED, TAPE, SIGHT_LINE, NO_SIGHT, BLOCKING, PASSED_BY, ENGAGEMENT_RANGE, ENGAGED_PAIR,
    TEMPLATE, TEMPLATE_HIT, TEMPLATE_MISS, COHERENCY_LINK, COHERENCY_RANGE, COHERENCY_FAIL,
    COHERENCY_GAP, REACH, PATH, SWEPT, GAP, ILLEGAL_PATH, END, ILLEGAL_END, CHARGE_ENDS, REACH_OF,
    REACHED, FIGHTING, SUPPORTING, CASUALTY, DESTROYED, GONE, PROBLEM, DRAGGED, BEFORE, CHECK_FAIL,
    WITNESS, FREE_SPOT)

_RANK = {m.key: i for i, m in enumerate(ALL)}
#: markings of the table itself (everything before the answers)
TABLE_KEYS = frozenset(m.key for m in ALL[:ALL.index(ASKED)])


def rank(key: str) -> int:
    """Legend order: the order of `ALL` (table first, then the answers); others last."""
    return _RANK.get(key, len(ALL))
