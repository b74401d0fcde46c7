"""Constants and helpers shared by the map-data conversion (`_convert.py`, which says how to
run it and where every figure comes from)."""

import json
import math
import sys
from pathlib import Path

from shapely.geometry import Polygon
from shapely.geometry.polygon import orient

HERE = Path(__file__).resolve().parent  # maps/data
CHECKOUT = HERE.parent.parent
sys.path.insert(0, str(CHECKOUT))
from formats.atomic import write_text  # noqa: E402  (the checkout's, run as a script)

DEFAULT_REF = CHECKOUT.parent / "shared" / "reference"

ACCURACY_IN = 0.5  # stated transcription accuracy of the community map positions (inches)
ROUND = 3  # polygon coordinates rounded to 0.001"
MARKER_RADIUS_IN = 16 / 25.4  # mission markers are 32 mm discs (§7.3.2)
COMMUNITY_COMMIT = "ed2611f1be7282e3a5f740bf1c430504c9f8a848"
KO_COMMIT = "d5acb4071fa1977ee336264cf9f4d604683bfd67"

COORDINATES = {
    "frame": "inches; origin bottom-left of the table with the card title upright; x along the long "
    "edge (0..width), y up along the short edge (0..depth)",
    "from_community_terrain": "x,y = top-left corner of the unrotated w x h box in a y-down frame "
    "(N = top); rot = degrees about the box centre, positive = clockwise as seen; converted by "
    "computing the four corners in the y-down frame, then X = x, Y = depth - y, then orienting "
    "counter-clockwise",
    "verified_by": [
        "community code src/engine/terrain/geometry.ts pieceCorners and TableMap.tsx rotate(rot cx cy) "
        "use this convention",
        "standard maps 1-6 are point-symmetric about (27,18) to 0.01\" with this anchor and pivot "
        "(a centre anchor or a corner pivot breaks the symmetry)",
        "rotation sense: with clockwise-positive the two arms of every rotated L wall (map 5) and the "
        "walls drawn to abut (maps 1-3) touch; the opposite sense opens 0.7-1.3\" gaps",
    ],
}

# ----------------------------------------------------------------------------------------------
# Terrain catalogue.  Sizes and footprints: phyersherman/sc-tmg-coop-tabletop
# src/data/terrainCatalog.ts @ed2611f (which says "footprints and Size values as published in the
# Command Center map editor" -- not verified here).  L-wall arms: the same file @8db26b5.
# Korean names: the rulebook's required-terrain lists (core-rulebook-ko.txt, "맵 레이아웃").
# ----------------------------------------------------------------------------------------------
CATALOGUE_SRC = (
    f"phyersherman/sc-tmg-coop-tabletop src/data/terrainCatalog.ts @{COMMUNITY_COMMIT[:7]} "
    "(its own claim: 'footprints and Size values as published in the Command Center map editor', "
    "not verified)"
)
CATALOGUE = [
    # id, name, name_ko, community catalogId, size, grass, w, d, label prefix in terrainMaps.json
    ("wall-set-1", "Wall Set 1", "벽 세트 1", "lt-wall-i-2", 2, False, 7.0, 1.2, "Wall Set 1"),
    ("wall-set-2", "Wall Set 2", "벽 세트 2", "lt-wall-i-3", 2, False, 8.7, 2.2, "Wall Set 2"),
    ("wall-set-3", "Wall Set 3", "벽 세트 3", "lt-wall-i-1", 2, False, 5.1, 1.7, "Wall Set 3"),
    ("wall-set-4", "Wall Set 4 (L)", "벽 세트 4", "lt-wall-l-1", 2, False, 7.5, 4.0, "Wall Set 4 (L)"),
    ("wall-set-5", "Wall Set 5 (L)", "벽 세트 5", "lt-wall-l-2", 2, False, 7.5, 4.0, "Wall Set 5 (L)"),
    ("wall-set-6", "Wall Set 6", "벽 세트 6", "lt-wall-short", 2, False, 3.2, 1.0, "Wall Set 6"),
    ("head-statue", "Head Statue", "두상 석상", "lt-scatter-1", 1, False, 4.2, 2.9, "Head Statue"),
    ("statue-shard", "Statue Shard (Statue Fragment)", "석상 파편", "lt-scatter-2", 1, False, 3.2, 2.6,
     "Statue Shard"),
    ("vespene-geyser", "Vespene Geyser", "베스핀 가스 간헐천", "lt-scatter-3", 1, False, 3.0, 2.0,
     "Vespene Geyser"),
    ("protoss-banner", "Protoss Banner", "프로토스 깃발", "lt-scatter-4", 1, False, 1.8, 0.8,
     "Protoss Banner"),
    ("temple-obelisk", "Temple Obelisk", "사원 오벨리스크", "lt-scatter-5", 1, False, 1.2, 1.2,
     "Temple Obelisk"),
    ("shrubs-a", "Shrubs A", "관목 A", "lt-grass-1", 2, True, 2.8, 1.3, "Shrubs A"),
    ("shrubs-b", "Shrubs B", "관목 B", "lt-grass-1", 2, True, 2.8, 1.3, "Shrubs B"),
    ("lost-temple-ramp", "Lost Temple Ramp", "잃어버린 사원 경사로", "lt-ramp", 3, False, 15.9, 8.15,
     "Lost Temple Ramp"),
]
L_ARMS = {  # terrainCatalog.ts @8db26b5: offsets from the box's top-left corner, y DOWN, inches
    "wall-set-4": [{"x": 0, "y": 0.5, "w": 6.6, "h": 1.4}, {"x": 6.2, "y": 0.5, "w": 1.3, "h": 3.5}],
    "wall-set-5": [{"x": 0, "y": 0, "w": 7.5, "h": 1.4}, {"x": 0, "y": 0, "w": 1.3, "h": 4}],
}

# Required terrain, as printed under the map headings of the rulebook's "맵 레이아웃" section
# (core-rulebook-ko.txt lines 4240, 4250, 4258, 4264).  Only these four maps carry a list.
_STD = [("head-statue", 2), ("statue-shard", 2), ("vespene-geyser", 2), ("shrubs-a", 4),
        ("shrubs-b", 4), ("protoss-banner", 2), ("temple-obelisk", 2)] + [
    (f"wall-set-{i}", 2) for i in range(1, 7)]
_SKI = [(c, n // 2) for c, n in _STD]
REQUIRED = {
    "standard-1": _STD,
    "standard-5": _STD + [("lost-temple-ramp", 2)],
    "skirmish-1": _SKI,
    "skirmish-3": _SKI + [("lost-temple-ramp", 1)],
}
REQUIRED_LINE = {"standard-1": 4240, "standard-5": 4250, "skirmish-1": 4258, "skirmish-3": 4264}
# the list a map without its own list is compared with (information only, not a rulebook statement)
NEAREST_LIST = {"standard-2": "standard-1", "standard-3": "standard-1", "standard-4": "standard-1",
                "standard-6": "standard-5", "skirmish-2": "skirmish-1"}


def r3(v: float) -> float:
    out = round(v + 0.0, ROUND)
    return 0.0 if out == 0 else out


def community_corners(p: dict) -> list[tuple[float, float]]:
    """Corners of a community piece in ITS frame (y down), as its own pieceCorners() computes them."""
    cx, cy = p["x"] + p["w"] / 2, p["y"] + p["h"] / 2
    a = math.radians(p.get("rot", 0) or 0)
    out = []
    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        dx, dy = sx * p["w"] / 2, sy * p["h"] / 2
        out.append((cx + dx * math.cos(a) - dy * math.sin(a), cy + dx * math.sin(a) + dy * math.cos(a)))
    return out


def to_yup(pts, depth):
    return [(x, depth - y) for x, y in pts]


def poly_json(g: Polygon) -> list[list[float]]:
    g = orient(g, 1.0)
    coords = list(g.exterior.coords)[:-1]
    # start at the lowest-then-leftmost vertex so the output is stable
    k = min(range(len(coords)), key=lambda i: (round(coords[i][1], 6), round(coords[i][0], 6)))
    coords = coords[k:] + coords[:k]
    out: list[list[float]] = []
    for x, y in coords:
        q = [r3(x), r3(y)]
        if not out or q != out[-1]:
            out.append(q)
    if out[0] == out[-1]:
        out.pop()
    return out


def penetration(a: Polygon, b: Polygon) -> float:
    """Penetration depth of two CONVEX polygons (separating-axis theorem): the shortest distance one
    must be moved to stop the interiors overlapping; 0 if they do not overlap."""
    pa = list(a.exterior.coords)[:-1]
    pb = list(b.exterior.coords)[:-1]
    best = math.inf
    for pts in (pa, pb):
        for (x1, y1), (x2, y2) in zip(pts, pts[1:] + pts[:1], strict=True):
            nx, ny = y2 - y1, x1 - x2
            n = math.hypot(nx, ny)
            if n < 1e-12:
                continue
            nx, ny = nx / n, ny / n
            A = [x * nx + y * ny for x, y in pa]
            B = [x * nx + y * ny for x, y in pb]
            o = min(max(A) - min(B), max(B) - min(A))
            if o <= 0:
                return 0.0
            best = min(best, o)
    return best


# ----------------------------------------------------------------------------------------------
# Layouts

def tidy(obj):
    """Whole numbers as JSON integers (12 rather than 12.0) so the files read like the cards."""
    if isinstance(obj, float) and obj.is_integer():
        return int(obj)
    if isinstance(obj, list):
        return [tidy(v) for v in obj]
    if isinstance(obj, dict):
        return {k: tidy(v) for k, v in obj.items()}
    return obj


def dump(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(obj, ensure_ascii=False, indent=1) + "\n")

