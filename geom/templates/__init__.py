"""Templates: blast and flamer templates — where one goes and which models it hits (rulebook
§8.7.6 template weapons, §12.8 summary table, FAQ v1.1 "템플릿과 파급"; decisions:
docs/rules.md#template-sizes, docs/rules.md#template-lines).

This wing decides where a template lies on the table, which bases it covers (exactly: a sliver
counts, touching its edge does not), which of them are affected (valid target type, the target
point's elevation, a line not stopped by Size-2+ terrain, with its witness), and which are the
main target and which spillover. The template sizes are provisional data.

Modules:

- `_hits`: resolving an attack (`resolve`): the affected models, the main target, its surge
  result and the spillover batches;
- `_placement`: where a blast or a flamer template goes (`place_blast`, `place_flamer`) and
  which bases it covers (`PlacedTemplate.covers`);
- `_shapes`: the template shapes and sizes as data (`geom/data/templates.json`), checked
  (`make_shape`, `shapes_from_table`), provisional until the real sizes are known.

Imports: the root modules and `geom.lines` (before it in the wing order: tolerance, errors,
model, verdict, bases, distance, elevation, lines, engagement, sight); no later wing.
"""

from ._hits import (
    RULE,
    RULE_PLACE,
    TARGET_TYPES,
    Batch,
    TemplateResult,
    line_obstacles,
    resolve,
)
from ._placement import (
    PlacedTemplate,
    place_blast,
    place_flamer,
)
from ._shapes import (
    BLAST,
    DIMENSIONS,
    FLAMER,
    KINDS,
    MAX_DIMENSION,
    TemplateShape,
    default_shape,
    make_shape,
    shapes_from_table,
)

__all__ = [
    "BLAST",
    "Batch",
    "DIMENSIONS",
    "FLAMER",
    "KINDS",
    "MAX_DIMENSION",
    "PlacedTemplate",
    "RULE",
    "RULE_PLACE",
    "TARGET_TYPES",
    "TemplateResult",
    "TemplateShape",
    "default_shape",
    "line_obstacles",
    "make_shape",
    "place_blast",
    "place_flamer",
    "resolve",
    "shapes_from_table",
]
