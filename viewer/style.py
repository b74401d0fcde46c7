"""Colours and sizes of the picture (the objects of rulebook §7.1 and the set-up of §5.6 and §9.3, made visible).

Sizes are pixels on a picture 1600 px wide (`REFERENCE_WIDTH`); a picture of another width
scales every size by width / 1600, so text stays legible at the width the issue asks for.
Colours are RGBA tuples. Terrain is coloured by its Size (§7.1.2): the darker, the taller.
"""

from __future__ import annotations

RGBA = tuple[int, int, int, int]

REFERENCE_WIDTH = 1600.0

BACKGROUND: RGBA = (250, 249, 245, 255)
MAT: RGBA = (224, 220, 204, 255)
TABLE_EDGE: RGBA = (60, 56, 48, 255)
GRID: RGBA = (150, 144, 128, 150)
GRID_MINOR: RGBA = (150, 144, 128, 70)  # 1" lines of a close-up
TEXT: RGBA = (20, 20, 24, 255)
TEXT_MUTED: RGBA = (90, 88, 80, 255)
HALO: RGBA = (255, 255, 255, 200)

# Terrain fill by Size; grass, tokens and force fields have their own colour.
SIZE_FILL: dict[int, RGBA] = {
    0: (196, 186, 150, 255),
    1: (222, 178, 96, 255),
    2: (160, 108, 66, 255),
    3: (104, 76, 118, 255),  # 3 and taller
}
GRASS_FILL: RGBA = (112, 170, 78, 235)
TOKEN_FILL: RGBA = (150, 158, 172, 255)  # grey-blue: apart from Size 0 sand
FORCE_FIELD_FILL: RGBA = (110, 200, 250, 200)
TERRAIN_EDGE: RGBA = (40, 30, 22, 255)
TOP_EDGE: RGBA = (255, 246, 214, 255)  # inner line of a raised top models stand on
ACCESS_FILL: RGBA = (40, 210, 220, 255)
ACCESS_EDGE: RGBA = (0, 70, 80, 255)
OPENING_EDGE: RGBA = (250, 250, 250, 255)

OWNER: dict[str, RGBA] = {"red": (214, 48, 44, 255), "blue": (40, 92, 214, 255)}
OWNER_DARK: dict[str, RGBA] = {"red": (110, 16, 14, 255), "blue": (10, 34, 110, 255)}
ZONE_ALPHA = 60
LEADER_RING: RGBA = (255, 214, 0, 255)

MARKER_FILL: dict[str, RGBA] = {"red": (236, 92, 84, 255), "blue": (88, 138, 236, 255),
                                "neutral": (246, 246, 246, 255)}
MARKER_EDGE: RGBA = (16, 16, 16, 255)

# Overlays (one colour per meaning: viewer/markings.py pairs each with its legend entry)
SIGHT_CLEAR: RGBA = (0, 180, 60, 255)
SIGHT_BLOCKED: RGBA = (230, 0, 200, 255)
BLOCKING_FILL: RGBA = (230, 0, 200, 150)
PASSED_BY: RGBA = (130, 40, 190, 255)
TAPE: RGBA = (20, 20, 20, 255)
GAP_MARK: RGBA = (176, 0, 160, 255)  # a gap passed: apart from the path's blue and every other marking
TAPE_ALT: RGBA = (255, 220, 0, 255)
PICK: RGBA = (255, 140, 0, 255)
ENGAGEMENT: RGBA = (250, 120, 0, 255)
COHERENCY_OK: RGBA = (0, 140, 140, 255)
COHERENCY_BAD: RGBA = (230, 0, 60, 255)
REACH_FILL: RGBA = (60, 170, 255, 70)
REACH_EDGE: RGBA = (20, 110, 200, 255)
CHARGE_FILL: RGBA = (170, 210, 40, 90)
CHARGE_EDGE: RGBA = (110, 140, 0, 255)
REACHED_FILL: RGBA = (40, 130, 0, 150)
PATH: RGBA = (20, 20, 140, 255)
ILLEGAL: RGBA = (130, 0, 0, 255)
CHECK_FAIL: RGBA = (215, 0, 110, 255)  # a declared end that breaks a rule: apart from the template's hits
BEFORE: RGBA = (70, 110, 150, 255)  # where a model stood before: a faint slate blue
FREE_SPOT_C: RGBA = (0, 150, 90, 255)  # a free legal spot the model could have had
TEMPLATE_FILL: RGBA = (255, 80, 0, 90)
TEMPLATE_EDGE: RGBA = (200, 40, 0, 255)
TEMPLATE_HIT: RGBA = (160, 30, 0, 255)
NOT_AFFECTED: RGBA = (110, 110, 110, 255)
FIGHTING: RGBA = (255, 255, 255, 255)  # white and black dots read on red and blue bases
SUPPORTING: RGBA = (20, 20, 20, 255)
CASUALTY: RGBA = (120, 0, 30, 255)
DESTROYED: RGBA = (200, 0, 0, 255)
GONE: RGBA = (235, 110, 0, 255)  # terrain a move destroys or removes (dashed, over the piece)
PROBLEM: RGBA = (230, 0, 200, 255)
DRAG: RGBA = (0, 120, 255, 255)
INSET_FOCUS: RGBA = (230, 0, 60, 255)  # the close-up's area in the inset of the whole table

# Text sizes (px at the reference width)
TITLE_SIZE = 26.0
SUBTITLE_SIZE = 17.0
LEGEND_SIZE = 17.0
INFO_SIZE = 17.0
AXIS_SIZE = 14.0
TERRAIN_LABEL_SIZE = 14.0
UNIT_LABEL_SIZE = 15.0
MARKER_LABEL_SIZE = 15.0

# Strokes (px at the reference width)
GRID_WIDTH = 1.2
TABLE_EDGE_WIDTH = 3.0
TERRAIN_EDGE_WIDTH = 1.6
BASE_EDGE_WIDTH = 1.6
EDGE_LINE_WIDTH = 9.0
OVERLAY_WIDTH = 4.0

# Average advance of DejaVu Sans as a share of the font size; used to lay labels out
# without a font at hand (slightly generous so that estimated boxes never undershoot).
CHAR_WIDTH = 0.6


# Advance widths of DejaVu Sans (the font drawn) in ems, measured with pyglet; bold is
# BOLD_FACTOR wider. Labels are laid out with these, so a label's box fits its text.
ADVANCE: dict[str, float] = {
    'a': 0.61, 'b': 0.63, 'c': 0.55, 'd': 0.63, 'e': 0.62, 'f': 0.35, 'g': 0.63, 'h': 0.63,
    'i': 0.28, 'j': 0.28, 'k': 0.58, 'l': 0.28, 'm': 0.97, 'n': 0.63, 'o': 0.61, 'p': 0.63,
    'q': 0.63, 'r': 0.41, 's': 0.52, 't': 0.39, 'u': 0.63, 'v': 0.59, 'w': 0.82, 'x': 0.59,
    'y': 0.59, 'z': 0.52, 'A': 0.68, 'B': 0.69, 'C': 0.70, 'D': 0.77, 'E': 0.63, 'F': 0.58,
    'G': 0.77, 'H': 0.75, 'I': 0.30, 'J': 0.30, 'K': 0.66, 'L': 0.56, 'M': 0.86, 'N': 0.75,
    'O': 0.79, 'P': 0.60, 'Q': 0.79, 'R': 0.69, 'S': 0.63, 'T': 0.61, 'U': 0.73, 'V': 0.68,
    'W': 0.99, 'X': 0.69, 'Y': 0.61, 'Z': 0.69, '0': 0.64, '1': 0.64, '2': 0.64, '3': 0.64,
    '4': 0.64, '5': 0.64, '6': 0.64, '7': 0.64, '8': 0.64, '9': 0.64, ' ': 0.32, '.': 0.32,
    ',': 0.32, ':': 0.34, ';': 0.34, '!': 0.40, '?': 0.53, "'": 0.27, '"': 0.46, '(': 0.39,
    ')': 0.39, '[': 0.39, ']': 0.39, '/': 0.34, '-': 0.36, '+': 0.84, '=': 0.84, '_': 0.50,
    '#': 0.84, '%': 0.95, '&': 0.78, '*': 0.50, '<': 0.84, '>': 0.84, '▲': 0.77, '—': 1.00,
    '–': 0.50, '×': 0.84, '·': 0.32, '≥': 0.84, '≤': 0.84, '“': 0.52, '”': 0.52, '…': 1.00,
}
BOLD_FACTOR = 1.16


def text_width(s: str, size: float, bold: bool = False) -> float:
    """Width in pixels of `s` drawn at `size` px (unknown characters count 0.8 em)."""
    w = sum(ADVANCE.get(c, 0.8) for c in s) * size
    return w * BOLD_FACTOR if bold else w


def size_fill(size: int) -> RGBA:
    return SIZE_FILL[min(max(size, 0), 3)]


def with_alpha(c: RGBA, a: int) -> RGBA:
    return (c[0], c[1], c[2], a)
