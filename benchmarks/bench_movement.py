"""Benchmark: shortest legal paths and move legality on an official-size table, and how the
graph build and the queries grow with the number of pieces.

Runs `geom.movement._moves` on the `standard-1` layout (or, without map data, a fixed-seed random
table of 32 pieces) with enemy units on it, and — in the same run, on the same inflated
obstacles — extremitypathfinder, if it is installed. Prints one table; exits 0 either way.

    .venv/bin/python benchmarks/bench_movement.py [--queries N] [--seed S] [--before REV]

With `--before REV` the same path and move queries also run on the engine as it was at git
commit REV (exported beside today's), and the table gives both and their ratio, from one run.

extremitypathfinder is only needed for the comparison. It pins numpy<2; install it without
letting pip downgrade numpy:  pip install --no-deps extremitypathfinder networkx

The growth table builds random tables of 10 to 300 pieces at the density of an official table
(about 30 pieces per 54"x36"), and reports the navigator's build time (the lazy graph: corner
circles and free arcs; tangents come later, where queries go), the eager graph's build time
(every tangent of every pair: the reference, up to --eager-max pieces), the median query, and the
exponents of power laws fitted to each (time ∝ pieces^k).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import shapely
from shapely import affinity
from shapely.geometry import box
from shapely.geometry.polygon import orient

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._before import old_module, old_package, to_before  # noqa: E402
from geom import movement as mv  # noqa: E402
from geom.model import Base, Battlefield, Model, Speed, Table, TerrainPiece, Unit
from geom.paths._navigator import Navigator  # noqa: E402


def table_terrain() -> tuple[str, Table, tuple[TerrainPiece, ...]]:
    layouts = Path(__file__).resolve().parent.parent / "maps" / "data" / "layouts"
    if layouts.is_dir():
        from maps import load_layout
        lay = load_layout("standard-1")
        return "standard-1", lay.table, lay.terrain
    rng = random.Random(4)
    pieces = []
    for i in range(32):
        w, d = rng.uniform(1, 7), rng.uniform(1, 2.5)
        cx, cy = rng.uniform(3, 51), rng.uniform(3, 33)
        poly = affinity.rotate(box(cx - w / 2, cy - d / 2, cx + w / 2, cy + d / 2),
                               rng.uniform(0, 180))
        pieces.append(TerrainPiece(f"r{i}", rng.choice([1, 2, 2, 3]), poly,
                                   kind="grass" if rng.random() < 0.15 else "solid"))
    return "random-32 (seed 4)", Table(54, 36), tuple(pieces)


def make_unit(uid: str, owner: str, pts: list[tuple[float, float]], size: int, mm: float) -> Unit:
    b = Base.from_mm(mm)
    ms = tuple(Model.make(str(i + 1), unit=uid, owner=owner, at=p, base=b, size=size)
               for i, p in enumerate(pts))
    return Unit(uid, owner, size, ms, b, speed=Speed(6))


def battlefield(table: Table, terrain: tuple[TerrainPiece, ...], size: int,
                rng: random.Random) -> tuple[Battlefield, Unit]:
    mover = make_unit("mover", "red", [(1.5, 1.5)], size, 32 if size <= 2 else 80)
    bf = Battlefield(table, terrain, (mover,))
    nav = Navigator(bf, mover)
    enemies: list[tuple[float, float]] = []
    while len(enemies) < 10:  # ten enemy bases where they fit
        p = (rng.uniform(2, table.width - 2), rng.uniform(2, table.depth - 2))
        if nav.fs.points_clear(np.array([p]))[0] and all(math.dist(p, q) > 2 for q in enemies):
            enemies.append(p)
    bf = Battlefield(table, terrain, (mover, make_unit("enemy", "blue", enemies, 2, 40)))
    return bf, mover


def free_pairs(nav: Navigator, rng: random.Random, n: int) -> list[tuple[tuple[float, float],
                                                                            tuple[float, float]]]:
    t = nav.bf.table
    pts: list[tuple[float, float]] = []
    while len(pts) < 2 * n:
        p = (rng.uniform(0, t.width), rng.uniform(0, t.depth))
        if nav.fs.points_clear(np.array([p]))[0]:
            pts.append(p)
    return [(pts[2 * i], pts[2 * i + 1]) for i in range(n)]


def epf_environment(nav: Navigator, quad_segs: int) -> tuple[object, shapely.Polygon, float]:
    """extremitypathfinder on the same clearance zones, grown to circumscribed polygons (so
    its paths are legal too)."""
    from extremitypathfinder import PolygonEnvironment

    k = 1 / math.cos(math.pi / (4 * quad_segs))
    zones = [o.core.buffer(o.rho * k, quad_segs=quad_segs) for o in nav.fs.obstacles]
    x0, y0, x1, y1 = nav.fs.rect
    free = box(x0, y0, x1, y1).difference(shapely.union_all(zones))
    if free.geom_type == "MultiPolygon":
        free = max(free.geoms, key=lambda g: g.area)
    free = orient(free.simplify(0), 1.0)
    t0 = time.perf_counter()
    env = PolygonEnvironment()
    env.store(list(free.exterior.coords)[:-1], [list(r.coords)[:-1] for r in free.interiors])
    if not getattr(env, "prepared", True):
        env.prepare()
    return env, free, time.perf_counter() - t0


def growth_table(n: int, seed: int) -> tuple[Table, tuple[TerrainPiece, ...]]:
    """n random pieces on a table scaled to keep an official table's density."""
    rng = random.Random(seed)
    k = math.sqrt(n / 30)
    w, d = 54 * k, 36 * k
    pieces = []
    for i in range(n):
        pw, pd = rng.uniform(1, 6), rng.uniform(1, 2.5)
        cx, cy = rng.uniform(2, w - 2), rng.uniform(2, d - 2)
        poly = affinity.rotate(box(cx - pw / 2, cy - pd / 2, cx + pw / 2, cy + pd / 2),
                               rng.uniform(0, 180))
        pieces.append(TerrainPiece(f"g{i}", rng.choice([1, 2, 2, 3]), poly))
    return Table(w, d), tuple(pieces)


def fit(xs: list[float], ys: list[float]) -> float:
    """Exponent k of the least-squares fit y = c·x^k (log-log)."""
    lx, ly = np.log(xs), np.log(ys)
    return float(np.polyfit(lx, ly, 1)[0])


def growth(queries: int, eager_max: int, seed: int) -> None:
    from geom.paths._navgraph import TangentGraph

    sizes = [10, 30, 100, 300]
    print(f"\ngrowth with the number of pieces (density of an official table; {queries} "
          "queries per size)")
    head = (f"{'pieces':>7}{'circles':>9}{'build ms':>10}{'eager build ms':>16}"
            f"{'query ms':>10}{'circles used':>17}")
    print(head)
    print("-" * len(head))
    rows = []
    for n in sizes:
        table, terrain = growth_table(n, seed)
        mover = make_unit("mover", "red", [(1.5, 1.5)], 2, 32)
        bf = Battlefield(table, terrain, (mover,))
        t0 = time.perf_counter()
        nav = Navigator(bf, mover)
        build = time.perf_counter() - t0
        eager = math.nan
        if n <= eager_max:
            t0 = time.perf_counter()
            TangentGraph.build(nav.fs)
            eager = time.perf_counter() - t0
        rng = random.Random(seed + n)
        pairs = free_pairs(nav, rng, queries)
        times, used = [], []
        for s, g in pairs:
            fresh = Navigator(bf, mover)  # no tangents kept from earlier queries
            t0 = time.perf_counter()
            fresh.shortest_path(s, g)
            times.append(time.perf_counter() - t0)
            used.append(fresh.graph.n_circles_built)
        q = float(np.median(times))
        reached = int(np.median(used))
        rows.append((n, build, eager, q))
        print(f"{n:>7}{len(nav.fs.circles):>9}{build * 1e3:>10.1f}{eager * 1e3:>16.1f}"
              f"{q * 1e3:>10.2f}{reached:>17}")
    ns = [r[0] for r in rows]
    ke = [r for r in rows if not math.isnan(r[2])]
    print(f"fitted exponents (time ∝ pieces^k): build k = {fit(ns, [r[1] for r in rows]):.2f}, "
          + (f"eager build k = {fit([r[0] for r in ke], [r[2] for r in ke]):.2f}, "
             if len(ke) >= 2 else "")
          + f"query k = {fit(ns, [r[3] for r in rows]):.2f}")
    print("(circles used: median number of corner circles whose tangents a query built; "
          "queries join random free points of the whole table, so their paths lengthen with "
          "the table; a navigator kept between queries also keeps the tangents it has built)")


def before_columns(old: object, bf: Battlefield, pairs: list, tq: float, tm: float) -> str:
    """The same path and move queries on the old engine: its ms per query and the ratios."""
    import importlib

    omv = old_module(old, "movement")
    om = importlib.import_module(f"{old.__name__}.model")
    obf = to_before(bf, om)
    mover = obf.unit("mover")
    onav = omv.Navigator(obf, mover)
    _, oq, omove = time_queries(omv, obf, mover, onav, pairs)
    return (f"   before: path {oq * 1e3:.2f} ms/q ({oq / tq:.2f}x now), "
            f"move {omove * 1e3:.2f} ms/q ({omove / tm:.2f}x now)")


def time_queries(movement: Any, bf: Any, mover: Any, nav: Any,
                 pairs: list[tuple[Any, Any]]) -> tuple[list[Any], float, float]:
    """The paths, and seconds per path query and per move check, of one engine's `movement`
    module (this one or an exported earlier commit's) on the same pairs."""
    t0 = time.perf_counter()
    paths = [nav.shortest_path(s, g) for s, g in pairs]
    tq = (time.perf_counter() - t0) / len(pairs)
    model = mover.models[0]
    t0 = time.perf_counter()
    for s, g in pairs:
        movement.check_move(bf, mover, model.moved_to(s), g, nav=nav)
    return paths, tq, (time.perf_counter() - t0) / len(pairs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quad-segs", type=int, default=8,
                    help="segments per quarter circle of the zones given to extremitypathfinder")
    ap.add_argument("--growth-queries", type=int, default=20)
    ap.add_argument("--eager-max", type=int, default=300,
                    help="largest table (pieces) on which the eager reference graph is built")
    ap.add_argument("--before", metavar="REV",
                    help="also time the same queries on geom at this git commit")
    args = ap.parse_args()
    old = old_package(args.before) if args.before else None
    name, table, terrain = table_terrain()
    try:
        import extremitypathfinder  # noqa: F401
        have_epf = True
    except ImportError:
        have_epf = False
    print(f"table {name}: {table.width:g}x{table.depth:g}, {len(terrain)} pieces "
          f"(+10 enemy bases); {args.queries} random queries per row")
    if not have_epf:
        print("extremitypathfinder is not installed: comparison skipped "
              "(pip install --no-deps extremitypathfinder networkx)")
    header = (f"{'mover':<14}{'build ms':>10}{'used':>8}{'path q/s':>10}{'ms/q':>8}"
              f"{'move q/s':>10}{'EPF build ms':>14}{'EPF ms/q':>10}{'speed-up':>10}"
              f"{'EPF-ours max':>14}")
    print(header)
    print("-" * len(header))
    for size in (2, 3):
        rng = random.Random(args.seed)
        bf, mover = battlefield(table, terrain, size, rng)
        t0 = time.perf_counter()
        nav = Navigator(bf, mover)
        build = time.perf_counter() - t0
        pairs = free_pairs(nav, rng, args.queries)
        ours, tq, tm = time_queries(mv, bf, mover, nav, pairs)
        row = (f"{'Size ' + str(size) + (' (c=0.5)' if size <= 2 else ' (c=1.5)'):<14}"
               f"{build * 1e3:>10.1f}{nav.graph.n_circles_built:>8}{1 / tq:>10.0f}"
               f"{tq * 1e3:>8.2f}"
               f"{1 / tm:>10.0f}")
        if old is not None:
            row += before_columns(old, bf, pairs, tq, tm)
        if have_epf:
            env, free, eb = epf_environment(nav, args.quad_segs)
            shapely.prepare(free)
            times, diffs, both = [], [], 0
            for (s, g), p in zip(pairs, ours, strict=True):
                if not (free.covers(shapely.Point(s)) and free.covers(shapely.Point(g))):
                    continue
                t0 = time.perf_counter()
                _, length = env.find_shortest_path(s, g)  # type: ignore[attr-defined]
                times.append(time.perf_counter() - t0)
                if length is not None and p is not None:
                    both += 1
                    diffs.append(float(length) - p.length)
            te = float(np.mean(times))
            row += (f"{eb * 1e3:>14.0f}{te * 1e3:>10.2f}{te / tq:>9.1f}x"
                    f"{max(diffs) if diffs else float('nan'):>14.4f}")
            if diffs and min(diffs) < -1e-6:
                row += f"  (EPF shorter by {-min(diffs):.2e} somewhere!)"
        print(row)
    growth(args.growth_queries, args.eager_max, args.seed)
    print("\nused: corner circles whose tangents the queries built (the lazy graph). ours: exact "
          "tangent graph (error bound 1e-6\" without oval bases); EPF-ours max: how "
          "much longer extremitypathfinder's\npath around circumscribed "
          f"{4 * args.quad_segs}-gon zones was than ours, at worst (its paths are legal, ours "
          "shorter or equal).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
