"""Benchmark: coherency (§4.4) — the batched far-edge measure against the rim search it
replaced, and whole-unit verdicts with and without a recorded leading model.

    .venv/bin/python benchmarks/bench_coherency.py [--repeat N]

Prints one table of times measured in one run; compare the ratios, not the absolute times
(the machine is shared). Exits 0.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from geom.bases import max_distance_to_ellipse
from geom.model import SQUADRON, Base, Battlefield, Model, Table, Unit
from geom.movement._coherency import coherency, far_distances


def unit(n: int, base: Base, step: float, leading: str | None, angle: float = 0.0) -> Unit:
    cols = max(1, int(math.sqrt(n)))
    ms = tuple(Model.make(str(i + 1), unit="u", owner="blue",
                          at=(10 + step * (i % cols), 10 + step * (i // cols)), base=base,
                          size=1, angle=angle + 7 * i) for i in range(n))
    return Unit("u", "blue", 1, ms, base, abilities=frozenset({SQUADRON}), leading=leading)


def timed(f, repeat: int) -> float:
    t = time.perf_counter()
    for _ in range(repeat):
        f()
    return (time.perf_counter() - t) / repeat


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    hydra = Base.from_mm((100, 40))
    h = unit(4, hydra, 2.2, None, angle=20)
    rows = []
    fast = timed(lambda: far_distances(h.models, h.models), args.repeat)
    slow = timed(lambda: [max_distance_to_ellipse(a.ellipse, b.ellipse)
                          for a in h.models for b in h.models], args.repeat)
    rows.append(("far edge, 4 hydralisk ovals, all 16 pairs", slow, fast))
    lings = unit(20, Base.from_mm(32), 1.4, None)
    bf = Battlefield(Table(54, 36), (), (lings,))
    rec = unit(20, Base.from_mm(32), 1.4, "1")
    bf_rec = Battlefield(Table(54, 36), (), (rec,))
    t_none = timed(lambda: coherency(bf, "u"), args.repeat)
    t_rec = timed(lambda: coherency(bf_rec, "u"), args.repeat)
    rows.append(("coherency, 20 zerglings: no leader (all tried) vs recorded", t_none, t_rec))
    hb = Battlefield(Table(54, 36), (), (h,))
    hr = Battlefield(Table(54, 36), (), (unit(4, hydra, 2.2, "1", angle=20),))
    rows.append(("coherency, 4 hydralisks: no leader vs recorded",
                 timed(lambda: coherency(hb, "u"), args.repeat),
                 timed(lambda: coherency(hr, "u"), args.repeat)))
    print(f"{'case':<62} {'A (s)':>9} {'B (s)':>9} {'A/B':>7}")
    for name, a, b in rows:
        print(f"{name:<62} {a:9.4f} {b:9.4f} {a / b:7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
