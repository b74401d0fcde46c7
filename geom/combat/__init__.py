"""Combat: charges, close ranks, close combat and disengage (rulebook §8.7.7 charges, §8.7.5
removing casualties, §8.8.1 close ranks, ranks and several enemy units, §8.5.4 disengage,
§7.2 engagement; decisions: docs/rules.md#charge-targets, docs/rules.md#casualties,
docs/rules.md#close-ranks, docs/rules.md#disengage).

This wing decides the actions of close combat: whether a charge succeeds and on which rolls
(the shortest legal path to a legal end, exactly at every roll), where its leading model ends
and where the rest go; which models fight and support, in what order casualties are removed;
whether a unit may close ranks and where it ends; and who gets clear in a disengage.

Modules:

- `_charge`: charges (`charge`, `roll_table`, `suggest_end`): the charge distance, the rolls
  that succeed and their probability, base contact or as close as possible, target models;
- `_close_ranks`: close ranks (`close_ranks`, `place_close_ranks`), a normal move of at most
  3" that must end closer to the enemy;
- `_close_combat`: fighting and supporting ranks (`ranks`, `all_ranks`) and the casualty order
  (`removal_order`, `valid_casualties`);
- `_disengage`: disengage (`disengage`), a normal move that must end outside every enemy's
  engagement range, or fails.

Imports: the root modules, `geom.paths` and `geom.movement` (before it in the wing order:
tolerance, errors, model, verdict, bases, distance, elevation, lines, engagement, sight,
templates, paths, movement); no later wing.
"""

from ._charge import (
    CLOSE_TOL,
    D6,
    Measured,
    aimed_at,
    charge,
    end_checks,
    measure,
    named_target_models,
    path_summary,
    roll_table,
    split_targets,
    success_probability,
    suggest_end,
    target_model_choice,
)
from ._close_combat import (
    RULE_CASUALTIES,
    RULE_RANKS,
    all_ranks,
    ranks,
    removal_order,
    valid_casualties,
)
from ._close_ranks import (
    CLOSE_RANKS_MOVE,
    can_close_ranks,
    close_ranks,
    close_ranks_end,
    engaged_enemy_units,
    in_contact_with_enemy,
    nearest_gap,
    place_close_ranks,
)
from ._disengage import (
    RULE_DISENGAGE,
    DisengageAnswer,
    disengage,
)

__all__ = [
    "CLOSE_RANKS_MOVE",
    "CLOSE_TOL",
    "D6",
    "DisengageAnswer",
    "Measured",
    "RULE_CASUALTIES",
    "RULE_DISENGAGE",
    "RULE_RANKS",
    "aimed_at",
    "all_ranks",
    "can_close_ranks",
    "charge",
    "close_ranks",
    "close_ranks_end",
    "disengage",
    "end_checks",
    "engaged_enemy_units",
    "in_contact_with_enemy",
    "measure",
    "named_target_models",
    "nearest_gap",
    "path_summary",
    "place_close_ranks",
    "ranks",
    "removal_order",
    "roll_table",
    "split_targets",
    "success_probability",
    "suggest_end",
    "target_model_choice",
    "valid_casualties",
]
