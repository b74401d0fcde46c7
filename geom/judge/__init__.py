"""Judge: a judge's check of a declared position — could a legal action of the kind have put the
unit where the player put it (rulebook §4.3, §4.4, §4.6, §8.5.3–§8.5.5, §8.7.1, §8.7.7,
§8.8.1, keyword PLACE; docs/movement.md "Judging a dispute").

This wing decides a dispute by the rules, never by comparing with the engine's own proposal:
given the table before one unit's action (move, deploy, charge, close ranks, PLACE, …) and
after it, is there a leading model whose path is legal within the allowance, is every model's
end legal and in coherency, are the GRASS and LARGE removals exactly those the action causes,
and was no model removed as a casualty that had a legal place. Every failure names the model,
the rule, a reason and its `excess` in inches beyond the limit.

Modules:

- `_check`: the check (`check`), per unit and leader (`judge_unit`, `judge_leader`) and per
  kind of failure (ends, coherency, charges, close ranks), with the witness of each.

Imports: every wing before it in the wing order (tolerance, errors, model, verdict, bases,
distance, elevation, lines, engagement, sight, templates, paths, movement, combat, markers);
it is the last wing: no engine module imports it.
"""

from ._check import (
    KINDS,
    RULE_CHARGE,
    RULE_COHERENCY,
    RULE_DEPLOY,
    RULE_GAP,
    RULE_MOVE,
    RULE_PLACE,
    check,
    depth_in,
    judge_leader,
)

__all__ = [
    "KINDS",
    "RULE_CHARGE",
    "RULE_COHERENCY",
    "RULE_DEPLOY",
    "RULE_GAP",
    "RULE_MOVE",
    "RULE_PLACE",
    "check",
    "depth_in",
    "judge_leader",
]
