"""Benchmark: whole-unit placement (GEOMETRY-RULES §6) and the judge's check (§14).

    .venv/bin/python benchmarks/bench_check.py [--repeat N]

On standard-1 (examples/battle-standard-1.toml), the 10 zerglings of `zerglings-a`:
- placing the other 9 models after the leader's move (`geom.movement._unit_move.place_unit`), warm;
- the wall of `tmg move … --save AFTER` against `tmg check BEFORE AFTER` for that move, each a
  fresh process (goal: check ≤ 1.5× move).
- close ranks (examples/fight-close-ranks.toml, 5 marines on a queen): the whole-unit
  re-placement (`geom.combat._close_ranks.place_close_ranks`) and `geom.judge._check.check` of it, warm.
Prints median, p99 and max of one run; compare ratios, not absolute times (shared machine).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import scenario  # noqa: E402
from geom.movement._unit_move import place_unit  # noqa: E402

SCENE = str(ROOT / "examples" / "battle-standard-1.toml")
UNIT, LEAD, TO = "zerglings-a", "1", (12.5, 16.0)


def stats(xs: list[float]) -> str:
    xs = sorted(xs)
    p99 = xs[min(len(xs) - 1, int(0.99 * len(xs)))]
    return (f"median {statistics.median(xs) * 1e3:8.1f} ms  p99 {p99 * 1e3:8.1f} ms  "
            f"max {xs[-1] * 1e3:8.1f} ms  (n={len(xs)})")


def wall(argv: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=20)
    n = ap.parse_args().repeat
    bf = scenario.load(SCENE)
    u = bf.unit(UNIT)
    place_unit(bf, u, LEAD, TO)  # warm
    times = []
    for _ in range(n):
        t = time.perf_counter()
        p = place_unit(bf, u, LEAD, TO)
        times.append(time.perf_counter() - t)
    assert p.in_coherency and not p.casualties
    print(f"place 10 models (warm)      {stats(times)}")
    close_ranks(n)
    tmg = str(ROOT / ".venv" / "bin" / "tmg")
    with tempfile.TemporaryDirectory() as d:
        after = str(Path(d) / "after.toml")
        move = [tmg, "move", SCENE, f"{UNIT}/{LEAD}", "--to", f"{TO[0]},{TO[1]}", "--save", after]
        check = [tmg, "check", SCENE, after, "--action", "move"]
        mt, ct = [], []
        for _ in range(max(3, n // 4)):
            mt.append(wall(move))
            ct.append(wall(check))
        print(f"tmg move (10 models, wall)  {stats(mt)}")
        print(f"tmg check (same move, wall) {stats(ct)}")
        print(f"ratio check/move (medians)  {statistics.median(ct) / statistics.median(mt):.2f}")
    return 0


def close_ranks(n: int) -> None:
    from dataclasses import replace

    from geom.combat._close_ranks import place_close_ranks
    from geom.judge import _check as judge

    bf = scenario.load(str(ROOT / "examples" / "fight-close-ranks.toml"))
    u = bf.unit("marines")
    end = (28.441024, 19.558976)  # marine 2 into base contact (tmg fight's best end)
    pt, ct = [], []
    for i in range(n + 1):
        t = time.perf_counter()
        p = place_close_ranks(bf, u, "2", end)
        t1 = time.perf_counter()
        after = bf.replace_unit(replace(u, models=tuple(m.moved_to(p.positions[m.id])
                                                        for m in u.models)))
        t2 = time.perf_counter()
        v = judge.check(bf, after, action="close-ranks")
        t3 = time.perf_counter()
        assert v["legal"] and not p.casualties
        if i:  # the first is the warm-up
            pt.append(t1 - t)
            ct.append(t3 - t2)
    print(f"close ranks placement (5)   {stats(pt)}")
    print(f"check close-ranks (5)       {stats(ct)}")


if __name__ == "__main__":
    sys.exit(main())
