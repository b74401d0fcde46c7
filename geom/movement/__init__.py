"""Movement: moves, their legal ends and the whole unit after them — end positions, destroyed
terrain, charge end regions and ends, placing the rest of the unit, placement, coherency
(rulebook §4.3–§4.6, §8.5.3–§8.5.5, §8.3.3, §8.7.7 steps 3–4, keywords GRASS and PLACE, the
Siege Tank card's LARGE, FAQ "측정과 이동"; decisions: docs/rules.md#crossing-a-piece,
docs/rules.md#large, docs/rules.md#directly, docs/rules.md#coherency-wide-bases).

This wing decides whether a model may move or be placed somewhere and where the rest of its
unit goes: whether an end position is legal, what terrain a move destroys or removes, whether
a unit is in coherency, and which ends a charge's leading model may reach (the end sets the
searches of `geom.paths` run to). Every end a search offers is re-checked here exactly.

Modules:

- `_moves`: legal movement of a leading model (`check_move`, `shortest_path`, `reach`): the
  answer to "may this model move there";
- `_end_position`: where a model may end a move (`end_position_ok`), the exact tests shared by
  moves, charges and placements;
- `_move_ends`: the legal ends of a normal move as exact end sets (`move_end_sets`), for
  disengage and close ranks;
- `_destroyed`: the GRASS a move destroys and the Size-0/1 pieces a LARGE unit removes, from
  the base's swept area (`destroyed_by`, `swept_pieces`);
- `_charge_ends`: the legal ends of a charge as exact end sets (`charge_ends`), GRASS the
  charge tramples included;
- `_charge_region`: the end region of a charge as polygons (`end_region`) and the independent
  exact check of an end (`check_end`);
- `_centre_zones`: where a base's centre may stand — Minkowski sums of bases with shapes,
  inner or outer;
- `_after_charge`: placing the other models after a successful charge (`place_rest`), by the
  priorities of §8.7.7 step 4;
- `_unit_move`: placing the other models after any moving action (`place_unit`), keeping the
  unit's shape;
- `_placement`: moves that are not a free leading-model move — directly towards / away, PLACE,
  deploy from an entry edge (`directly`, `place`, `deploy`, `check_placement`);
- `_coherency`: unit coherency (`coherency`, `standing`): wholly within the coherency distance
  of the leading model and linked to it.

Imports: the root modules and `geom.paths` (before it in the wing order: tolerance, errors,
model, verdict, bases, distance, elevation, lines, engagement, sight, templates, paths); no
later wing.
"""

from ._after_charge import (
    GRID,
    LinkChecker,
    Placement,
    check_charge_placement,
    place_rest,
    placement_surfaces,
    spots,
)
from ._centre_zones import (
    grow,
    mover_base,
    shrink,
)
from ._charge_ends import (
    MAX_LEVEL,
    ChargeEnds,
    TargetZone,
    base_reach,
    charge_ends,
    contact_shapes,
    target_zone,
    with_group,
)
from ._charge_region import (
    CONTACT_BAND,
    INSET,
    RULE_CHARGE,
    EndRegion,
    Surface,
    check_end,
    end_region,
    models_near,
    reachable_tops,
)
from ._coherency import (
    RULE_COHERENCY,
    RULE_PERSISTS,
    Link,
    coherency,
    far_distances,
    links,
    range_failure,
    standing,
    wide_base,
)
from ._destroyed import (
    destroyed_by,
    removed_by_large,
    swept_pieces,
    without,
)
from ._end_position import (
    RULE_MOVE,
    bases_overlap,
    end_position_ok,
    may_overlap,
    move_end_region,
)
from ._move_ends import (
    move_end_sets,
)
from ._moves import (
    RULE_GAP,
    allowance_of,
    check_move,
    destroyed_words,
    gaps_on_path,
    navigator,
    path_to_region,
    reach,
    shortest_path,
)
from ._placement import (
    RULE_DEPLOY,
    RULE_PLACE,
    check_placement,
    deploy,
    deploy_path,
    directly,
    entry_edges,
    leading_for_directly,
    place,
    target_model,
    with_entry_access,
)
from ._unit_move import (
    UnitPlacement,
    ends_destroy,
    place_clear,
    place_unit,
    shape_targets,
)

__all__ = [
    "CONTACT_BAND",
    "ChargeEnds",
    "EndRegion",
    "GRID",
    "INSET",
    "Link",
    "LinkChecker",
    "MAX_LEVEL",
    "Placement",
    "RULE_CHARGE",
    "RULE_COHERENCY",
    "RULE_DEPLOY",
    "RULE_GAP",
    "RULE_MOVE",
    "RULE_PERSISTS",
    "RULE_PLACE",
    "Surface",
    "TargetZone",
    "UnitPlacement",
    "allowance_of",
    "base_reach",
    "bases_overlap",
    "charge_ends",
    "check_charge_placement",
    "check_end",
    "check_move",
    "check_placement",
    "coherency",
    "contact_shapes",
    "deploy",
    "deploy_path",
    "destroyed_by",
    "destroyed_words",
    "directly",
    "end_position_ok",
    "end_region",
    "ends_destroy",
    "entry_edges",
    "far_distances",
    "gaps_on_path",
    "grow",
    "leading_for_directly",
    "links",
    "may_overlap",
    "models_near",
    "move_end_region",
    "move_end_sets",
    "mover_base",
    "navigator",
    "path_to_region",
    "place",
    "place_clear",
    "place_rest",
    "place_unit",
    "placement_surfaces",
    "range_failure",
    "reach",
    "reachable_tops",
    "removed_by_large",
    "shape_targets",
    "shortest_path",
    "shrink",
    "spots",
    "standing",
    "swept_pieces",
    "target_model",
    "target_zone",
    "wide_base",
    "with_entry_access",
    "with_group",
    "without",
]
