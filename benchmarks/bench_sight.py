"""Benchmark: exact line of sight (geom.sight._sight) — the batch, one question at a time, the naive
samplers, and how the cost scales.

Run: `python benchmarks/bench_sight.py [--pairs-64 N] [--seed S] [--random-table] [--no-scaling]`

Scene: an official-size table (54"×36") with the terrain of layout `standard-1` when the map data
is installed (34 pieces), otherwise 34 random pieces with a fixed seed; two 40-model armies (discs
of 25, 32, 40 and 50 mm and a few 40×100 mm ovals, Sizes 1–3, 5 % hidden) placed at random,
legally, with a fixed seed. Every pair red → blue is asked (1600 pairs). Everything below is
measured in one run; ratios are what to compare (the machine is shared).

1. Batch: `sight_matrix(SightContext(bf), red, blue)`, table preparation timed apart; the best of
   `--repeat` runs, each on a fresh table. Per-pair cost: every pair's share of the work all pairs
   share, plus — for the pairs that needed candidate lines — an equal share of the time the exact
   search spends on those (measured by running that search again on them alone). The mean is the
   total over the number of pairs.
2. Samplers: the same rules (the same obstacles block for each pair; HIDDEN and the dead zone are
   decided the same way), but the geometry is "some segment between n rim points of A's base and
   n rim points of B's base misses every blocking obstacle", every sampled segment tested against
   every blocking obstacle with shapely 2 (vectorised), for n = 16, 32, 64. A sampler can only miss
   lines ("blocked" where the exact search has a witness); the other direction would be an
   exactness bug and is counted separately.
3. One question at a time: `pair_sight(ctx, a, b)` on the prepared table (viewers cached), for
   visible and for blocked pairs; then the same with the verdict's reason read (for a blocked
   pair that includes the irreducible set of blocking pieces).
4. Scaling: per-pair cost against models per side (5–160, standard-1, 32 mm bases), against
   pieces far from the armies (10–1,000 pieces on a table that grows with them, the armies in one
   54"×36" corner), and against pieces on the same table (10–1,000, each smaller as they multiply
   so the table stays as covered), with fitted exponents (least squares on log cost against log
   size). The last row is the worst case of the exact search: many small pieces that block only
   together leave no single separating piece, so every candidate line is tried.

Before this rewrite (commit cd6fdc8, the same scene, measured on this machine at the start of the
work): 31.1 µs median and 75.4 µs mean per pair (issue 15 quotes 33 µs and 73 µs).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import shapely
from shapely import affinity
from shapely.geometry import Polygon, box

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from geom.lines._segments import BLOCKED as SEARCH_BLOCKED
from geom.lines._segments import FIRST, FOUND, SEPARATED, search_jobs
from geom.model import Base, Battlefield, Marker, Model, Table, TerrainPiece, Unit
from geom.sight._matrix import BLOCKED, VISIBLE, SightMatrix, blocking_rows, sight_matrix
from geom.sight._pair import pair_sight
from geom.sight._table import SightContext

BASELINE = {"median": 31.1, "mean": 75.4, "source": "commit cd6fdc8, measured at the start"}


def random_pieces(rng: np.random.Generator, k: int, width: float, depth: float,
                  scale: float = 1.0, prefix: str = "t") -> list[TerrainPiece]:
    """k random walls, boxes and triangles (Sizes 1–4, some grass) inside the rectangle."""
    pieces = []
    for n in range(k):
        x, y = rng.uniform(3, width - 3), rng.uniform(3, depth - 3)
        if n % 3 == 0:
            g = box(x, y, x + scale * rng.uniform(0.3, 1.0), y + scale * rng.uniform(3, 8))
        elif n % 3 == 1:
            g = box(x, y, x + scale * rng.uniform(1, 4), y + scale * rng.uniform(1, 4))
        else:
            g = Polygon([(x, y), (x + 3 * scale, y + 0.5 * scale), (x + scale, y + 3 * scale)])
        g = affinity.rotate(g, rng.uniform(0, 180), origin="centroid")
        pieces.append(TerrainPiece(f"{prefix}{n:04d}", int(rng.choice([1, 2, 2, 3, 4])), g,
                                   kind="grass" if n % 7 == 0 else "solid"))
    return pieces


def terrain(rng: np.random.Generator, random_table: bool = False
            ) -> tuple[tuple[TerrainPiece, ...], str]:
    try:
        if random_table:
            raise LookupError("random table asked for")
        from maps.loader import load_layout

        layout = load_layout("standard-1")
        if len(layout.terrain) >= 30:
            return tuple(layout.terrain), "standard-1"
    except Exception:  # noqa: BLE001 - map data not installed: fall back to a random table
        pass
    seed = int(rng.integers(1 << 30))
    return tuple(random_pieces(np.random.default_rng(seed), 34, 54, 36)), f"random-34 ({seed})"


def armies(rng: np.random.Generator, pieces: tuple[TerrainPiece, ...], n: int = 40,
           depth: float = 36.0, mixed: bool = True) -> tuple[list[Model], list[Model]]:
    """Two armies in the two halves of a 54" × `depth` region, off every piece one cannot stand
    on, bases apart. `mixed`: bases of 25–50 mm and an oval in ten; else all 32 mm."""
    solid = [p.footprint for p in pieces if not p.can_stand_on]
    blocked = shapely.union_all(solid) if solid else shapely.Polygon()
    shapely.prepare(blocked)
    placed: list[Model] = []
    out: dict[str, list[Model]] = {"red": [], "blue": []}
    bases = [Base.from_mm(25), Base.from_mm(32), Base.from_mm(40), Base.from_mm(50)]
    tries = 0
    for owner, (x0, x1) in (("red", (1.5, 24)), ("blue", (30, 52.5))):
        while len(out[owner]) < n:
            tries += 1
            if tries > 1000 * n:
                raise SystemExit(f"cannot place {n} models per side on this table")
            oval = mixed and len(out[owner]) % 10 == 9
            base = Base.from_mm((100, 40)) if oval else (
                bases[int(rng.integers(0, 4))] if mixed else bases[1])
            m = Model.make(f"m{len(out[owner])}", unit=f"{owner}{len(out[owner]) // 10}",
                           owner=owner, at=(rng.uniform(x0, x1), rng.uniform(1.5, depth - 1.5)),
                           base=base, size=int(rng.integers(1, 4)),
                           angle=float(rng.uniform(0, 180)), hidden=bool(rng.random() < 0.05))
            if m.ellipse.polygon(32, outer=True).intersects(blocked):
                continue
            if any(math.dist(m.at, o.at) < (m.base.a + o.base.a) + 0.05 for o in placed):
                continue
            placed.append(m)
            out[owner].append(m)
    return out["red"], out["blue"]


def battlefield(pieces: tuple[TerrainPiece, ...], red: list[Model], blue: list[Model],
                table: Table | None = None) -> Battlefield:
    units = []
    for owner_models in (red, blue):
        by_unit: dict[str, list[Model]] = {}
        for m in owner_models:
            by_unit.setdefault(m.unit, []).append(m)
        units += [Unit(u, ms[0].owner, ms[0].size, tuple(ms), ms[0].base)
                  for u, ms in by_unit.items()]
    return Battlefield(table or Table(54, 36), pieces, tuple(units))


def rim_points(m: Model, n: int) -> np.ndarray:
    e = m.ellipse
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    c, s = math.cos(e.theta), math.sin(e.theta)
    x, y = e.a * np.cos(t), e.b * np.sin(t)
    return np.column_stack((e.cx + c * x - s * y, e.cy + s * x + c * y))


def sampler(ctx: SightContext, mat: SightMatrix, red: list[Model], blue: list[Model], n: int,
            pairs: list[tuple[int, int]]) -> tuple[np.ndarray, list[float]]:
    """Plain sampler: n rim points per base, every segment against every obstacle (pieces and
    joined seams, the engine's rule) that blocks for the pair."""
    rows = np.arange(len(ctx.obstacles))
    out = np.zeros(len(pairs), dtype=bool)
    times = []
    for idx, (i, j) in enumerate(pairs):
        t0 = time.perf_counter()
        if int(mat.code[i, j]) in (VISIBLE, BLOCKED):
            k = len(rows)
            blocks = ctx.obstacle_blocks(mat.A, mat.B, np.full(k, i), np.full(k, j), rows,
                                         np.full(k, bool(mat.cq[i, j])))
            polys = ctx.obstacles.tests[rows[blocks]]
            if len(polys):
                pa, pb = rim_points(red[i], n), rim_points(blue[j], n)
                a_i, b_i = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
                lines = shapely.linestrings(np.stack([pa[a_i.ravel()], pb[b_i.ravel()]], axis=1))
                hit = shapely.intersects(lines[:, None], polys[None, :])
                out[idx] = bool((~hit.any(axis=1)).any())
            else:
                out[idx] = True
        times.append(time.perf_counter() - t0)
    return out, times


def timed_matrix(bf: Battlefield, red: list[Model | Marker], blue: list[Model | Marker],
                 repeat: int) -> tuple[float, float, SightContext, SightMatrix]:
    """(table preparation, best matrix time, the context and matrix of the best run)."""
    t0 = time.perf_counter()
    SightContext(bf)
    prep = time.perf_counter() - t0
    best, keep = math.inf, None
    for _ in range(repeat):
        ctx = SightContext(bf)
        t0 = time.perf_counter()
        mat = sight_matrix(ctx, red, blue)
        t = time.perf_counter() - t0
        if t < best:
            best, keep = t, (ctx, mat)
    assert keep is not None
    return prep, best, keep[0], keep[1]


def per_pair_costs(ctx: SightContext, mat: SightMatrix, total: float, repeat: int
                   ) -> tuple[np.ndarray, int]:
    """Each pair's cost: its share of the shared work plus, for the pairs that needed candidate
    lines, its share of the search on those alone."""
    hard = np.argwhere(np.isin(mat.how, (FOUND, SEARCH_BLOCKED)))
    npairs = mat.code.size
    t_hard = 0.0
    if len(hard):
        ii, jj = hard[:, 0], hard[:, 1]
        p, rows = blocking_rows(ctx, mat.A, mat.B, ii, jj, mat.cq[ii, jj])
        ptr = np.searchsorted(p, np.arange(len(ii) + 1))
        t_hard = math.inf
        for _ in range(repeat):
            t0 = time.perf_counter()
            search_jobs(mat.A.frames.take(ii), mat.B.frames.take(jj), ctx.obstacles, ptr, rows,
                        quick=False)
            t_hard = min(t_hard, time.perf_counter() - t0)
        t_hard = min(t_hard, total)
    per = np.full(npairs, (total - t_hard) / npairs)
    if len(hard):
        per[hard[:, 0] * len(mat.b) + hard[:, 1]] += t_hard / len(hard)
    return per, len(hard)


def single_questions(bf: Battlefield, mat: SightMatrix, red: list[Model], blue: list[Model],
                     limit: int = 300) -> dict[str, tuple[float, float, int]]:
    """Median µs of ctx.line_of_sight for visible and blocked pairs, and with the reason read."""
    ctx = SightContext(bf)
    ctx.viewers(red + blue)
    out = {}
    for name, code in (("visible", VISIBLE), ("blocked", BLOCKED)):
        pairs = [tuple(p) for p in np.argwhere(mat.code == code)[:limit]]
        bare, full = [], []
        for i, j in pairs:
            t0 = time.perf_counter()
            v = pair_sight(ctx, red[i], blue[j])
            t1 = time.perf_counter()
            _ = v.reason
            t2 = time.perf_counter()
            assert v.ok == (code == VISIBLE)
            bare.append(t1 - t0)
            full.append(t2 - t0)
        out[name] = (1e6 * statistics.median(bare), 1e6 * statistics.median(full), len(pairs))
    return out


def fit(xs: list[float], ys: list[float]) -> float:
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def scaling(seed: int, repeat: int) -> None:
    print(f"\nscaling (per-pair cost; best of {repeat} runs each)")
    rng = np.random.default_rng(seed)
    pieces, name = terrain(rng)
    rows = []
    for n in (5, 10, 20, 40, 80, 160):  # 32 mm bases: 160 a side still fit the table
        red, blue = armies(np.random.default_rng(seed + n), pieces, n, mixed=False)
        bf = battlefield(pieces, red, blue)
        _, t, _, _ = timed_matrix(bf, red, blue, repeat)  # type: ignore[arg-type]
        rows.append((n, t / (n * n)))
    print(f"  models per side on {name}: " + ", ".join(f"{n}: {c * 1e6:.1f}µs" for n, c in rows)
          + f"; exponent {fit([r[0] for r in rows], [r[1] for r in rows]):+.2f}")

    for label, grow in (("far pieces (table grows with them, armies in a 54\"×36\" corner)",
                         True), ("pieces on the same 54\"×36\" table (smaller as they multiply)", False)):
        rows = []
        for k in (10, 30, 100, 300, 1000):
            r = np.random.default_rng(seed + k)
            if grow:  # constant density: 34 pieces per 54"×36"; the extra pieces are far away
                depth = max(36.0, 36.0 * k / 34)
                near = random_pieces(r, min(k, 34), 54, 36)
                far = [TerrainPiece(p.id, p.size, affinity.translate(p.footprint, 0, 36),
                                    kind=p.kind)
                       for p in random_pieces(r, k - len(near), 54, depth - 36, prefix="f")]
                ps, table = tuple(near + far), Table(54, depth)
            else:  # pieces shrink as they multiply: the table stays as covered
                scale = min(1.0, math.sqrt(34 / k))
                ps, table = tuple(random_pieces(r, k, 54, 36, scale)), Table(54, 36)
            red, blue = armies(np.random.default_rng(seed + 7 * k), ps, 40)
            bf = battlefield(ps, red, blue, table)
            # one run on the dense tables: their large sizes take seconds, and noise is small
            prep, t, _, _ = timed_matrix(bf, red, blue, repeat if grow else 1)  # type: ignore[arg-type]
            rows.append((k, t / 1600, prep))
        costs = ", ".join(f"{k}: {c * 1e6:.1f}µs (prep {p * 1e3:.0f} ms)" for k, c, p in rows)
        ratio = rows[-1][1] / rows[2][1]
        print(f"  {label}: {costs}; exponent {fit([r[0] for r in rows], [r[1] for r in rows]):+.2f}"
              f"; 1,000 vs 100 pieces: {ratio:.2f}×")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--pairs-64", type=int, default=300,
                    help="time the 64-point sampler on this many random pairs (0: all)")
    ap.add_argument("--repeat", type=int, default=5, help="exact runs (best time is reported)")
    ap.add_argument("--random-table", action="store_true",
                    help="34 random pieces (walls, boxes, triangles, Sizes 1-4) instead of standard-1")
    ap.add_argument("--no-scaling", action="store_true", help="skip the scaling table")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    pieces, name = terrain(rng, args.random_table)
    red, blue = armies(rng, pieces)
    bf = battlefield(pieces, red, blue)
    npairs = len(red) * len(blue)

    prep, best, ctx, mat = timed_matrix(bf, red, blue, args.repeat)  # type: ignore[arg-type]
    per_pair, n_hard = per_pair_costs(ctx, mat, best, args.repeat)
    how = {k: int((mat.how == v).sum()) for k, v in (("first", FIRST), ("sep", SEPARATED),
                                                       ("found", FOUND),
                                                       ("blocked", SEARCH_BLOCKED))}
    stopped = int((mat.how > 0).sum())
    print(f"table 54x36, terrain {name}: {len(pieces)} pieces; armies {len(red)} vs {len(blue)} "
          f"models; {npairs} pairs")
    print(f"exact: table preparation {prep * 1e3:.1f} ms (once); {int(mat.visible.sum())} "
          f"visible, {int((mat.code == BLOCKED).sum())} blocked by terrain, "
          f"{int((mat.code != VISIBLE).sum() - (mat.code == BLOCKED).sum())} by dead zone/HIDDEN; "
          f"{stopped} pairs have a blocking piece near the centre line: centre line clear "
          f"{how['first']}, separator proof {how['sep']}, candidate lines {n_hard} "
          f"({how['found']} visible, {how['blocked']} blocked)")
    rows = [("exact (batched)", best / npairs, float(np.median(per_pair)), 0, 0)]
    all_pairs = [(i, j) for i in range(len(red)) for j in range(len(blue))]
    exact_vis = mat.visible
    for n in (16, 32, 64):
        pairs = all_pairs
        if n == 64 and args.pairs_64:
            sel = np.random.default_rng(args.seed + 1).choice(npairs, min(npairs, args.pairs_64),
                                                              replace=False)
            pairs = [all_pairs[s] for s in sorted(sel)]
        vis, times = sampler(ctx, mat, red, blue, n, pairs)
        ex = np.array([exact_vis[i, j] for i, j in pairs])
        rows.append((f"sampler {n} pts/base" + ("" if len(pairs) == npairs else
                                                 f" ({len(pairs)} pairs)"),
                     float(np.mean(times)), float(statistics.median(times)),
                     int((ex & ~vis).sum()), int((~ex & vis).sum())))
    print(f"\n{'method':34s} {'mean/pair':>11s} {'median/pair':>12s} {'mean ratio':>11s} "
          f"{'blocked-but-visible':>20s} {'visible-but-blocked':>20s}")
    base_mean = rows[0][1]
    for label, mean, med, missed, wrong in rows:
        print(f"{label:34s} {mean * 1e6:9.1f}µs {med * 1e6:10.1f}µs {mean / base_mean:10.1f}x "
              f"{missed:20d} {wrong:20d}")
    print(f"{'before (' + BASELINE['source'] + ')':34s} {BASELINE['mean']:9.1f}µs "
          f"{BASELINE['median']:10.1f}µs {BASELINE['mean'] * 1e-6 / base_mean:10.1f}x  (quoted)")
    print("\n'blocked-but-visible': the method says blocked where the exact search has a "
          "witness (a missed line).\n'visible-but-blocked': the method says visible where the "
          "exact search proves every line blocked (must be 0).")

    single = single_questions(bf, mat, red, blue)
    print("\none question at a time (ctx.line_of_sight on the prepared table, median):")
    for k, (bare, full, n) in single.items():
        print(f"  {k:8s} {bare:7.1f}µs; with the reason read {full:7.1f}µs ({n} pairs)")
    if not args.no_scaling:
        scaling(args.seed, max(1, min(args.repeat, 3)))


if __name__ == "__main__":
    main()
