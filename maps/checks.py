"""A battlefield's terrain against the terrain guidelines of §9.3 ("지형 밀도 지침") and the
tournament table of terrain counts (§9.3, §12.1). Every finding carries its numbers.

What is measured, and the decisions behind it (docs/maps.md says the same for users):

- **Pieces** are physical pieces: an official L wall (two transcribed arms) counts once, tokens
  (game effects) not at all. Categories: GRASS (Size-2 special) apart; other pieces by their own
  Size 0, 1, 2, 3+.
- **Counts** are the standard-table figures (total 8–12; Size 0: 0–2, Size 1: 2–4, Size 2: 6–8,
  Size 3+ (if any): 1–2, grass 4–6). Other table sizes scale them by area (§9.3: "비례해서 조정"):
  each bound times width×depth / (54×36), the low bound rounded down and the high bound up.
  (The rulebook's own figures do not add up: the category minimums sum to 13 > 12.)
- **Meaningful terrain** (quarters, centre) is Size 2+ — GRASS included, since it is Size 2.
- **Quarters**: the cross at the table centre; a piece counts in the one quarter holding most of
  its area (an exact tie counts in each tied quarter). Each quarter needs at least two.
- **Centre**: some part of a meaningful piece at most 6" from the centre point.
- **Fire lanes** (≥2 open lanes ≥6" wide "roughly from one entry edge toward the other"):
  a lane is a straight band 6" wide whose two ends (where it meets the table edge) lie wholly
  on red's and on blue's entry edges, meeting each of them at most 45° off square, and whose
  interior no footprint of effective Size 2+ (solid, grass, raised tops) enters; Size 0–1 pieces
  do not close a lane (they hide nothing taller than Size 1). Lanes count when disjoint; several
  disjoint lanes may share a direction (a gap 12" wide holds two). Without a deployment card the
  long edges are the entry edges (on a square table both pairs of opposite edges are tried and
  the better is reported). Directions are sampled every 0.25°; at each sampled direction the
  answer is exact (1-D interval arithmetic on the projections), and every reported lane is a
  witness that `lane_polygon` re-checks with shapely.
- **Access points**: every standable piece of Size 3+ needs an access point that a Size-1 or -2
  ground model can reach from a table edge without crossing other Size-2+ terrain (GRASS counts,
  as the guideline says Size 2+): the model's centre keeps 0.5" (half the 1" gap) from such
  footprints and touches the access point.
- **Large structures** (the tournament table's "대형 구조물": pieces of Size 3+, not stacked on
  another piece) stand at least 3" apart, footprint to footprint (§12.1 pre-game protocol:
  "큰 구조물 사이는 최소 3"").
- With markers on the table, one more finding: no marker falls on impassable terrain (§9.3).

>>> from maps import battlefield_by_name
>>> f = {x.rule: x for x in check_layout(battlefield_by_name("standard-1"))}
>>> f["9.3 centre"].ok
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import shapely
from shapely.geometry import LineString, Polygon
from shapely.geometry import Point as SPoint
from shapely.geometry.base import BaseGeometry

from geom import movement
from geom.elevation import piece_effective_size, stacked_with
from geom.model import Base, Battlefield, Deployment, Model, Table, TerrainPiece, Unit
from geom.paths import path_to_region
from geom.tolerance import TOLERANCE

from .loader import PhysicalPiece, default_entry_edges, physical_pieces, quarters
from .tournament import covered_markers

STANDARD_AREA = 54.0 * 36.0
# §9.3 / tournament table: (low, high) pieces per standard table
DENSITY = {"total": (8, 12), "Size 0": (0, 2), "Size 1": (2, 4), "Size 2": (6, 8),
           "Size 3+": (1, 2), "grass": (4, 6)}
QUARTER_MIN = 2
CENTRE_RADIUS = 6.0
LANE_WIDTH = 6.0
LANES_MIN = 2
LANE_MAX_SKEW_DEG = 45.0
LANE_STEP_DEG = 0.25
LARGE_GAP = 3.0
ACCESS_CLEARANCE = 0.5  # half the 1" gap a Size ≤2 unit passes (§4.6)


@dataclass(frozen=True)
class Finding:
    rule: str
    ok: bool
    detail: str
    measured: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "ok": self.ok, "detail": self.detail,
                "measured": self.measured}


# ----------------------------------------------------------------------------- counts

def scaled_range(table: Table, lo: int, hi: int) -> tuple[int, int]:
    r = table.width * table.depth / STANDARD_AREA
    if abs(r - 1) < 1e-9:
        return lo, hi
    return math.floor(lo * r + 1e-9), math.ceil(hi * r - 1e-9)


def category(pp: PhysicalPiece) -> str:
    if pp.grass:
        return "grass"
    return "Size 3+" if pp.size >= 3 else f"Size {pp.size}"


def _counts(bf: Battlefield, pieces: list[PhysicalPiece]) -> list[Finding]:
    out = []
    by_cat: dict[str, list[str]] = {k: [] for k in DENSITY if k != "total"}
    for pp in pieces:
        by_cat[category(pp)].append(pp.id)
    scaled = "" if abs(bf.table.width * bf.table.depth - STANDARD_AREA) < 1e-9 else \
        f" (scaled by area from the 54x36 figures to {bf.table.width:g}x{bf.table.depth:g})"
    for cat, (lo, hi) in DENSITY.items():
        ids = [pp.id for pp in pieces] if cat == "total" else by_cat[cat]
        a, b = scaled_range(bf.table, lo, hi)
        n = len(ids)
        what = "pieces in all" if cat == "total" else (
            "grass pieces" if cat == "grass" else f"{cat} pieces (grass apart)")
        # §9.3: "(있다면) 크기 3+ 지형 1~2개" - Size 3+ only if any: none is fine
        optional = cat == "Size 3+"
        ok = a <= n <= b or (optional and n == 0)
        out.append(Finding(
            f"9.3 terrain density: {cat}", ok,
            f"{n} {what}; guideline {'none or ' if optional and a > 0 else ''}{a}-{b}{scaled}",
            {"count": n, "low": a, "high": b, "optional": optional, "pieces": ids}))
    return out


# ----------------------------------------------------------------------------- distribution

def meaningful(bf: Battlefield, pp: PhysicalPiece) -> bool:
    return any(piece_effective_size(bf, p) >= 2 for p in pp.parts)


def quarter_of(table: Table, footprint: BaseGeometry) -> list[str]:
    """The quarter(s) holding most of the footprint's area (several only on an exact tie)."""
    areas = {q: footprint.intersection(poly).area for q, poly in quarters(table).items()}
    top = max(areas.values())
    return [q for q, a in areas.items() if a >= top - 1e-9]


def _quarters(bf: Battlefield, pieces: list[PhysicalPiece]) -> Finding:
    per: dict[str, list[str]] = {q: [] for q in quarters(bf.table)}
    ties = []
    for pp in pieces:
        if not meaningful(bf, pp):
            continue
        qs = quarter_of(bf.table, pp.footprint)
        if len(qs) > 1:
            ties.append(pp.id)
        for q in qs:
            per[q].append(pp.id)
    counts = {q: len(v) for q, v in per.items()}
    ok = all(n >= QUARTER_MIN for n in counts.values())
    detail = (", ".join(f"{q} {n}" for q, n in counts.items())
              + f" pieces of Size 2+ (grass included; a piece counts in the quarter holding "
                f"most of its area); guideline at least {QUARTER_MIN} in each")
    if ties:
        detail += f"; split exactly, counted in each: {', '.join(ties)}"
    return Finding("9.3 distribution (quarters)", ok, detail,
                   {"counts": counts, "pieces": per, "ties": ties})


def _centre(bf: Battlefield, pieces: list[PhysicalPiece]) -> Finding:
    c = SPoint(bf.table.centre)
    near = sorted((pp.footprint.distance(c), pp.id) for pp in pieces if meaningful(bf, pp))
    inside = [pid for d, pid in near if d <= CENTRE_RADIUS + TOLERANCE]
    if not near:
        return Finding("9.3 centre", False, "no terrain of Size 2+ on the table",
                       {"nearest": None, "distance": None, "within": []})
    d, pid = near[0]
    return Finding(
        "9.3 centre", bool(inside),
        f"{len(inside)} piece(s) of Size 2+ within {CENTRE_RADIUS:g}\" of the centre "
        f"({bf.table.centre[0]:g}, {bf.table.centre[1]:g}); nearest {pid} at {d:.2f}\"",
        {"nearest": pid, "distance": d, "within": inside})


# ----------------------------------------------------------------------------- fire lanes

@dataclass(frozen=True)
class FireLane:
    """A straight band `width` wide: the points p with lo <= p·n <= lo + width, n the left
    normal of the direction `angle` (degrees), running from red's entry edge to blue's."""

    angle: float
    lo: float
    width: float
    corridor: float  # width of the open corridor the lane lies in (at this direction)
    start: tuple[float, float]  # centre line on red's edge
    end: tuple[float, float]  # centre line on blue's edge

    def as_dict(self) -> dict[str, Any]:
        return {"from": list(self.start), "to": list(self.end), "width": self.width,
                "direction_deg": self.angle, "corridor_width": self.corridor}


_EDGES = ("bottom", "right", "top", "left")


def _edge_geometry(table: Table) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each table edge: (a point on it, its inward normal)."""
    w, d = table.width, table.depth
    return {"bottom": (np.array([0.0, 0.0]), np.array([0.0, 1.0])),
            "right": (np.array([w, 0.0]), np.array([-1.0, 0.0])),
            "top": (np.array([0.0, d]), np.array([0.0, -1.0])),
            "left": (np.array([0.0, 0.0]), np.array([1.0, 0.0]))}


def _edge_of(table: Table, seg: LineString) -> str:
    (x1, y1), (x2, y2) = seg.coords[0], seg.coords[-1]
    tol = 1e-6
    if abs(y1) < tol and abs(y2) < tol:
        return "bottom"
    if abs(y1 - table.depth) < tol and abs(y2 - table.depth) < tol:
        return "top"
    if abs(x1) < tol and abs(x2) < tol:
        return "left"
    if abs(x1 - table.width) < tol and abs(x2 - table.width) < tol:
        return "right"
    raise ValueError(f"entry edge {seg.wkt} does not lie on a table edge")


def _union(iv: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1] + 1e-9:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _intersect(x: list[tuple[float, float]], y: list[tuple[float, float]]
               ) -> list[tuple[float, float]]:
    out = []
    i = j = 0
    while i < len(x) and j < len(y):
        a, b = max(x[i][0], y[j][0]), min(x[i][1], y[j][1])
        if b > a:
            out.append((a, b))
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return out


def _subtract_open(x: list[tuple[float, float]], blocked: list[tuple[float, float]]
                   ) -> list[tuple[float, float]]:
    """x minus the union of the open intervals `blocked` (sorted, merged)."""
    out = []
    for a, b in x:
        cur = a
        for lo, hi in blocked:
            if hi <= cur or lo >= b:
                continue
            if lo > cur:
                out.append((cur, lo))
            cur = max(cur, hi)
            if cur >= b:
                break
        if cur < b:
            out.append((cur, b))
    return out


def lane_obstacles(bf: Battlefield) -> list[BaseGeometry]:
    """Footprints that close a fire lane: effective Size 2+ (any kind but tokens)."""
    return [p.footprint for p in bf.terrain
            if not p.is_token and piece_effective_size(bf, p) >= 2]


def open_corridors(table: Table, edges: Mapping[str, Sequence[LineString]],
                   obstacles: Sequence[BaseGeometry], angles_deg: np.ndarray,
                   width: float = LANE_WIDTH, max_skew_deg: float = LANE_MAX_SKEW_DEG
                   ) -> list[list[tuple[float, float]]]:
    """For each direction (degrees; lanes run from red's edge to blue's), the open corridors:
    maximal intervals of n-offsets (n = left normal of the direction) at least `width` wide in
    which every band ends on the entry edges within `max_skew_deg` of square and no obstacle's
    interior enters."""
    geo = _edge_geometry(table)
    cos_max = math.cos(math.radians(max_skew_deg))
    phi = np.radians(np.asarray(angles_deg, dtype=float))
    u = np.column_stack((np.cos(phi), np.sin(phi)))
    n = np.column_stack((-np.sin(phi), np.cos(phi)))
    # obstacle projections onto n, all directions at once
    verts, owner = [], []
    for k, g in enumerate(obstacles):
        for poly in getattr(g, "geoms", [g]):
            c = np.asarray(poly.exterior.coords)[:-1]
            verts.append(c)
            owner.extend([k] * len(c))
    if verts:
        V = np.vstack(verts)
        own = np.asarray(owner)
        order = np.argsort(own, kind="stable")
        V, own = V[order], own[order]
        starts = np.r_[0, np.nonzero(np.diff(own))[0] + 1]
        P = n @ V.T  # (directions, vertices)
        omin = np.minimum.reduceat(P, starts, axis=1)
        omax = np.maximum.reduceat(P, starts, axis=1)
    segs = {c: [(np.asarray(s.coords[0]), np.asarray(s.coords[-1]), _edge_of(table, s))
                for s in edges.get(c, ())] for c in ("red", "blue")}
    out: list[list[tuple[float, float]]] = []
    for i in range(len(phi)):
        ends = []
        for colour, sign in (("red", 1.0), ("blue", -1.0)):
            iv = []
            for a, b, e in segs[colour]:
                if float(geo[e][1] @ (sign * u[i])) >= cos_max - 1e-12:
                    pa, pb = float(n[i] @ a), float(n[i] @ b)
                    iv.append((min(pa, pb), max(pa, pb)))
            ends.append(_union(iv))
        allowed = _intersect(ends[0], ends[1])
        if allowed and verts:
            blocked = _union([(float(a), float(b)) for a, b in zip(omin[i], omax[i], strict=True)
                              if b - a > 1e-12])
            allowed = _subtract_open(allowed, blocked)
        out.append([(a, b) for a, b in allowed if b - a >= width - 1e-9])
    return out


def lane_polygon(table: Table, angle_deg: float, lo: float, width: float = LANE_WIDTH
                 ) -> BaseGeometry:
    """The band lo <= p·n <= lo + width clipped to the table."""
    phi = math.radians(angle_deg)
    u = np.array([math.cos(phi), math.sin(phi)])
    n = np.array([-math.sin(phi), math.cos(phi)])
    big = 4 * (table.width + table.depth)
    c = np.array(table.centre)
    base = c + (lo - float(n @ c)) * n
    corners = [base - big * u, base + big * u, base + big * u + width * n,
               base - big * u + width * n]
    return Polygon([tuple(p) for p in corners]).intersection(table.polygon)


def _centre_line(table: Table, angle_deg: float, s: float
                 ) -> tuple[tuple[float, float], tuple[float, float]]:
    phi = math.radians(angle_deg)
    u = np.array([math.cos(phi), math.sin(phi)])
    n = np.array([-math.sin(phi), math.cos(phi)])
    c = np.array(table.centre)
    p0 = c + (s - float(n @ c)) * n
    big = 4 * (table.width + table.depth)
    chord = LineString([tuple(p0 - big * u), tuple(p0 + big * u)]).intersection(table.polygon)
    pts = sorted(shapely.get_coordinates(chord).tolist(), key=lambda p: float(np.dot(p, u)))
    return (pts[0][0], pts[0][1]), (pts[-1][0], pts[-1][1])


def _lanes_at(table: Table, angle: float, corridors: list[tuple[float, float]],
              width: float) -> list[FireLane]:
    out = []
    for a, b in corridors:
        k = int((b - a + 1e-9) // width)
        for j in range(k):
            lo = a + j * width
            s, e = _centre_line(table, angle, lo + width / 2)
            out.append(FireLane(angle, lo, width, b - a, s, e))
    return out


def fire_lanes(table: Table, edges: Mapping[str, Sequence[LineString]],
               obstacles: Sequence[BaseGeometry], *, width: float = LANE_WIDTH,
               max_skew_deg: float = LANE_MAX_SKEW_DEG, step_deg: float = LANE_STEP_DEG
               ) -> list[FireLane]:
    """The most disjoint open lanes found: all in the best direction, or (when no direction
    holds two) a pair of disjoint lanes in two directions, or the single best lane."""
    angles = np.arange(0.0, 360.0, step_deg)
    cors = open_corridors(table, edges, obstacles, angles, width, max_skew_deg)

    def lanes_in(i: int) -> int:
        return sum(int((b - a + 1e-9) // width) for a, b in cors[i])

    counts = [lanes_in(i) for i in range(len(angles))]
    best = int(np.argmax(counts)) if counts else 0
    if not counts or counts[best] == 0:
        return []
    # prefer, among directions with the most lanes, the widest total corridor
    top = [i for i in range(len(angles)) if counts[i] == counts[best]]
    best = max(top, key=lambda i: (sum(b - a for a, b in cors[i]), -i))
    lanes = _lanes_at(table, float(angles[best]), cors[best], width)
    if len(lanes) >= 2:
        return lanes
    # two directions: try the extreme lanes of every corridor (every 1°)
    cands: list[FireLane] = []
    every = max(1, round(1.0 / step_deg))
    for i in range(0, len(angles), every):
        for a, b in cors[i]:
            for lo in {a, b - width}:
                s, e = _centre_line(table, float(angles[i]), lo + width / 2)
                cands.append(FireLane(float(angles[i]), lo, width, b - a, s, e))
    if len(cands) < 2:
        return lanes
    # interiors meet <=> the bands shrunk by a hair intersect (touching bands are disjoint)
    polys = [lane_polygon(table, c.angle, c.lo, c.width).buffer(-1e-7) for c in cands]
    tree = shapely.STRtree(polys)
    a_idx, b_idx = tree.query(polys, predicate="intersects")
    meet = np.zeros((len(cands), len(cands)), dtype=bool)
    meet[a_idx, b_idx] = True
    free = np.argwhere(~meet & np.triu(np.ones_like(meet), 1).astype(bool))
    if len(free):
        x, y = (int(v) for v in free[0])
        return [cands[x], cands[y]]
    return lanes


def widest_corridor(table: Table, edges: Mapping[str, Sequence[LineString]],
                    obstacles: Sequence[BaseGeometry], *,
                    max_skew_deg: float = LANE_MAX_SKEW_DEG, step_deg: float = LANE_STEP_DEG
                    ) -> tuple[float, float] | None:
    """(width, direction in degrees) of the widest open straight corridor of any width."""
    angles = np.arange(0.0, 360.0, step_deg)
    cors = open_corridors(table, edges, obstacles, angles, 0.0, max_skew_deg)
    best: tuple[float, float] | None = None
    for ang, cs in zip(angles, cors, strict=True):
        for a, b in cs:
            if best is None or b - a > best[0] + 1e-12:
                best = (b - a, float(ang))
    return best


def _fire_lane_finding(bf: Battlefield, deployment: Deployment | None) -> Finding:
    obstacles = lane_obstacles(bf)
    if deployment is not None:
        options = [(deployment.id, deployment.entry_edges)]
    else:
        options = [(_edge_names(bf.table, e), e) for e in default_entry_edges(bf.table)]
    results = []
    for name, edges in options:
        results.append((name, fire_lanes(bf.table, edges, obstacles),
                        widest_corridor(bf.table, edges, obstacles)))
    name, lanes, widest = max(results, key=lambda r: (len(r[1]), r[2][0] if r[2] else -1.0))
    ok = len(lanes) >= LANES_MIN
    if lanes:
        descr = "; ".join(
            f"({ln.start[0]:.1f},{ln.start[1]:.1f})->({ln.end[0]:.1f},{ln.end[1]:.1f}) "
            f"at {ln.angle:g}deg in a corridor {ln.corridor:.1f}\" wide" for ln in lanes)
    else:
        descr = "none"
    wide = ("no straight open corridor joins the entry edges" if widest is None else
            f"widest straight open corridor {widest[0]:.2f}\" at {widest[1]:g}deg")
    detail = (f"{len(lanes)} disjoint open lane(s) {LANE_WIDTH:g}\" wide between the entry "
              f"edges ({name}): {descr}; {wide}; guideline at least {LANES_MIN}")
    return Finding("9.3 fire lanes", ok, detail,
                   {"lanes": [ln.as_dict() for ln in lanes], "entry_edges": name,
                    "widest": None if widest is None else
                    {"width": widest[0], "direction_deg": widest[1]},
                    "tried": {n: len(ls) for n, ls, _ in results},
                    "width": LANE_WIDTH, "max_skew_deg": LANE_MAX_SKEW_DEG,
                    "step_deg": LANE_STEP_DEG})


def _edge_names(table: Table, edges: Mapping[str, Sequence[LineString]]) -> str:
    return " / ".join(f"{c} {'+'.join(_edge_of(table, s) for s in edges[c])}"
                      for c in ("red", "blue"))


# ----------------------------------------------------------------------------- access points

def _access(bf: Battlefield, pieces: list[PhysicalPiece]) -> Finding:
    climbable = [p for p in bf.terrain if p.can_stand_on and p.size >= 3]
    if not climbable:
        return Finding("9.3 access points", True, "no climbable piece of Size 3+ on the table",
                       {"pieces": {}})
    per: dict[str, Any] = {}
    for p in climbable:
        per[p.id] = access_reachability(bf, p.id)
    bad = [pid for pid, r in per.items() if not r["reachable"]]
    detail = "; ".join(
        f"{pid}: {r['reachable_count']} of {r['count']} access point(s) reachable from a "
        f"table edge" for pid, r in per.items())
    return Finding("9.3 access points", not bad,
                   detail + (f"; unreachable: {', '.join(bad)}" if bad else ""), {"pieces": per})


def _probe_battlefield(bf: Battlefield, piece: TerrainPiece) -> Battlefield:
    """The table as the access-point guideline sees it: no units; every other piece of Size 2+
    (GRASS and other raised tops included) a plain obstacle; the piece itself and what stands on
    it unchanged."""
    keep = stacked_with(bf, {piece.id})
    terrain = []
    for p in bf.terrain:
        if p.id not in keep and p.size >= 2 and not p.is_token:
            p = replace(p, kind="solid", standable=False, on=None, openings=(),
                        access_points=())
        elif p.id not in keep:
            p = replace(p, on=None)
        terrain.append(p)
    return replace(bf, terrain=tuple(terrain), units=())


def _edge_starts(table: Table, c: float) -> list[tuple[float, float]]:
    """Ground positions along the table edges (centres `c` in from the edge)."""
    w, d = table.width, table.depth
    pts = []
    for f in (0.5, 0.25, 0.75, 0.1, 0.9):
        pts += [(w * f, c), (w * f, d - c), (c, d * f), (w - c, d * f)]
    return pts


def access_reachability(bf: Battlefield, piece_id: str) -> dict[str, Any]:
    """Which access points of a climbable piece a ground model of Size ≤2 (1" gaps) reaches
    from a table edge without crossing other Size-2+ terrain. The witness is the path of its
    leading model's centre (`geom.movement`) to the ground side of the access point."""
    piece = bf.piece(piece_id)
    probe = _probe_battlefield(bf, piece)
    base = Base.from_mm(25)
    model = Model.make("probe", unit="probe", owner="red", at=(0.0, 0.0), base=base, size=1)
    unit = Unit("probe", "red", 1, (model,), base)
    nav = movement.navigator(probe, unit)
    c = ACCESS_CLEARANCE
    starts = [p for p in _edge_starts(bf.table, c) if not nav.start_blockers(p)]
    rows: list[dict[str, Any]] = []
    for i, ap in enumerate(piece.access_points):
        goal = ap.difference(piece.footprint)
        if goal.is_empty or goal.area < 1e-9:
            goal = ap.buffer(c).difference(piece.footprint)
        path = None
        for s in starts:
            path = path_to_region(nav, s, goal)
            if path is not None:
                break
        rows.append({"index": i, "reachable": path is not None,
                     "path_length": None if path is None else path.length,
                     "path": None if path is None else [list(p) for p in path.points]})
    n_ok = sum(1 for r in rows if r["reachable"])
    return {"count": len(rows), "reachable_count": n_ok, "reachable": n_ok > 0,
            "access_points": rows}


# ----------------------------------------------------------------------------- large structures

def _large(bf: Battlefield, pieces: list[PhysicalPiece]) -> Finding:
    large = [pp for pp in pieces if pp.size >= 3 and not pp.grass
             and all(p.on is None for p in pp.parts)]
    pairs = []
    for i, pa in enumerate(large):
        for pb in large[i + 1:]:
            pairs.append((pa.footprint.distance(pb.footprint), pa.id, pb.id))
    if not pairs:
        return Finding("12.1 large structures 3\" apart", True,
                       f"{len(large)} large structure(s) (Size 3+): nothing to compare",
                       {"pieces": [pp.id for pp in large], "closest": None})
    pairs.sort()
    close = [(d, a, b) for d, a, b in pairs if d < LARGE_GAP - TOLERANCE]
    d, a, b = pairs[0]
    apart = "touch or overlap" if d <= 0 else f"{d:.2f}\" apart"
    return Finding(
        "12.1 large structures 3\" apart", not close,
        f"{len(large)} large structures (Size 3+); closest {a} and {b} {apart}; "
        f"guideline at least {LARGE_GAP:g}\"",
        {"pieces": [pp.id for pp in large], "closest": {"a": a, "b": b, "distance": d},
         "too_close": [{"a": a, "b": b, "distance": d} for d, a, b in close]})


# ----------------------------------------------------------------------------- markers

def _markers(bf: Battlefield) -> Finding:
    cov = covered_markers(bf)
    if not cov:
        return Finding("9.3 markers off impassable terrain", True,
                       f"none of the {len(bf.markers)} markers falls on impassable terrain",
                       {"covered": []})
    return Finding(
        "9.3 markers off impassable terrain", False,
        "; ".join(f"marker {m.id} falls on {pp.title}" for m, pp in cov)
        + " (the terrain moves, not the marker: tmg markers --fix-terrain)",
        {"covered": [{"marker": m.id, "piece": pp.id} for m, pp in cov]})


# ----------------------------------------------------------------------------- all of it

def check_layout(bf: Battlefield, deployment: Deployment | None = None) -> list[Finding]:
    """All §9.3 findings for the battlefield's terrain (entry edges from `deployment`, else
    the battlefield's own card, else the default long edges)."""
    pieces = physical_pieces(bf)
    dep = deployment if deployment is not None else bf.deployment
    out = _counts(bf, pieces)
    out.append(_quarters(bf, pieces))
    out.append(_centre(bf, pieces))
    out.append(_fire_lane_finding(bf, dep))
    out.append(_access(bf, pieces))
    out.append(_large(bf, pieces))
    if bf.markers:
        out.append(_markers(bf))
    return out
