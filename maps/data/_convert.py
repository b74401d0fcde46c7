#!/usr/bin/env python3
"""Convert the public reference data into tmg-geometry's own map data files.

NOT part of the package (``maps/data`` has no ``__init__``; nothing imports this file).
It is kept so that the provenance of every figure in ``maps/data`` can be reproduced:

    .venv/bin/python maps/data/_convert.py [REFERENCE_DIR]

REFERENCE_DIR is the folder of reference exports (default: ``DEFAULT_REF`` below); it must hold
(each file's origin is listed in that folder's SOURCES.md):

* ``terrain-maps.community.json``  phyersherman/sc-tmg-coop-tabletop src/data/terrainMaps.json @ed2611f
* ``deployments.community.json``   phyersherman/sc-tmg-coop-tabletop src/data/deployments.json @ed2611f
* ``deployments-ko/*.json``         Andrea4595/StarcraftTMG_Simulator Deployments/*.json @d5acb40
* ``deployment-cards.p2p.md``       reading of the official print-and-play card sheets (PRIMARY for cards)

It writes ``maps/data/layouts/<id>.json``, ``maps/data/terrain_catalogue.json`` and
``maps/data/deployments.json``.  Running it twice gives byte-identical files.

Coordinate conversion (determined, then verified; see ``COORDINATES`` below and the layout notes):

* community terrain pieces: ``x, y`` = top-left corner of the UNROTATED ``w x h`` box in a y-DOWN
  frame (N = top edge, y = 0); ``rot`` = degrees about the box CENTRE, positive = clockwise as seen
  (the SVG/screen convention: corner = c + (dx cos r - dy sin r, dx sin r + dy cos r) with y down).
  Evidence: (1) the community renderer/engine (src/engine/terrain/geometry.ts ``pieceCorners``,
  TableMap.tsx ``rotate(rot cx cy)``) uses exactly this; (2) independently, every standard map is
  point-symmetric about the table centre to 0.01" only with the top-left anchor + centre pivot;
  (3) the rotation SENSE is fixed by pieces drawn to meet: with clockwise-positive every L-wall's two
  arms on map 5 and the abutting walls on maps 1-3 touch/overlap, with the opposite sense they open
  gaps of 0.7-1.3".
* our frame: y UP, origin bottom-left: ``X = x``, ``Y = H - y``.  A clockwise-positive angle in the
  y-down frame is a clockwise turn on the table, i.e. a mathematically NEGATIVE angle in the y-up frame.
  Polygons are re-oriented counter-clockwise after the flip.
* community deployments: y down, N = top edge (y = 0), W/E ``from``/``to`` measured from the top.
* Korean simulator deployments: millimetres (/25.4); x/y of markers used as given (y up); the
  simulator draws edge "top" at y = 0 and "bottom" at y = depth (BoardManager.DeploymentZoneVisuals.cs,
  CornerToCenterMm does not flip y, Unity UI is y-up), so in our frame its "top" is our BOTTOM edge.
  Player A is taken as red (this is the only reading under which any of its files matches the other
  sources; the files themselves do not say).
"""


from __future__ import annotations

import sys
from pathlib import Path

from _convert_cards import convert_deployments
from _convert_common import DEFAULT_REF, HERE, dump, tidy
from _convert_layouts import catalogue_entries, convert_layouts


def main(argv: list[str]) -> int:
    ref = Path(argv[1]) if len(argv) > 1 else DEFAULT_REF
    deployments = convert_deployments(ref)
    layouts = convert_layouts(ref, deployments["cards"])
    for lay in layouts:
        dump(HERE / "layouts" / f"{lay['id']}.json", lay)
    dump(HERE / "terrain_catalogue.json", catalogue_entries(ref))
    dump(HERE / "deployments.json", tidy(deployments))
    print(f"wrote {len(layouts)} layouts, terrain_catalogue.json, deployments.json from {ref}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

