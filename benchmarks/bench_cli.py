"""Command-line start-up: wall time of whole `tmg` processes, median of N runs, in one run.

    .venv/bin/python benchmarks/bench_cli.py          # N = 15
    .venv/bin/python benchmarks/bench_cli.py -n 31

For each command line three variants run interleaved (so machine noise hits them alike):
- `tmg …`: the command as users run it (only the chosen command's modules are imported);
- `eager`: the same after importing every command module first, as the CLI did before the
  registry (the "before" figure);
- the floor: `python -c "import shapely, numpy"` and `python -c pass`.
Goals: `tmg los FILE A B` ≤ 0.25 s, `tmg --help` ≤ 0.2 s; and as ratios of medians taken in
the same run (issue 26: import only what a command needs): `tmg charge` ≤ 1.3× `tmg info` on the
same one-wall table, `tmg los` ≤ 1.6× `python -c "import shapely"`. Byte-code caching is on (as
for an installed package), whatever PYTHONDONTWRITEBYTECODE says.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIGHT = str(ROOT / "examples" / "sight-dispute.toml")
ONE_WALL = str(ROOT / "benchmarks" / "data" / "one-wall.toml")
LINES = {
    "tmg --help": ["--help"],
    "tmg los FILE A B": ["los", SIGHT, "marines/m1", "zerglings/1"],
    "tmg distance FILE A B": ["distance", SIGHT, "marines/m1", "zerglings/1"],
    "tmg info standard-1": ["info", "standard-1"],
    "tmg info ONE-WALL": ["info", ONE_WALL],
    "tmg charge ONE-WALL": ["charge", ONE_WALL, "marines", "--targets", "zerglings"],
}
GOALS = {"tmg --help": 0.2, "tmg los FILE A B": 0.25}
SHAPELY = "python -c 'import shapely'"
RATIOS = [("tmg charge ONE-WALL", "tmg info ONE-WALL", 1.3),  # (command, against, goal)
          ("tmg los FILE A B", SHAPELY, 1.6)]
EAGER = ("import sys; from tmg.cli import build_parser, main; build_parser(); "
         "sys.exit(main(sys.argv[1:]))")


def wall(cmd: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    return dt


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=15, help="runs per variant (median reported)")
    a = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    py = sys.executable
    variants: dict[str, list[str]] = {"python -c pass": [py, "-c", "pass"],
                                      SHAPELY: [py, "-c", "import shapely"],
                                      "python -c 'import shapely, numpy'":
                                          [py, "-c", "import shapely, numpy"]}
    for name, argv in LINES.items():
        variants[name] = [py, "-m", "tmg", *argv]
        variants[f"{name}  [eager]"] = [py, "-c", EAGER, *argv]
    for cmd in variants.values():  # warm-up: byte code written, files in the page cache
        wall(cmd, env)
    times: dict[str, list[float]] = {k: [] for k in variants}
    for _ in range(a.n):
        for name, cmd in variants.items():
            times[name].append(wall(cmd, env))
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"tmg start-up, wall time per process, median of {a.n} runs (one run, interleaved)")
    print(f"{'command line':<42} {'median':>8} {'min':>8}  eager/now  goal")
    for name in variants:
        if name.endswith("[eager]"):
            continue
        line = f"{name:<42} {med[name]:8.3f} {min(times[name]):8.3f}"
        eager = med.get(f"{name}  [eager]")
        if eager is not None:
            line += f"  {eager / med[name]:8.2f}x"
            goal = GOALS.get(name)
            if goal:
                line += f"  ≤{goal:g} s: {'met' if med[name] <= goal else 'NOT met'}"
            line += f"\n{'  before (every command imported, eager)':<42} {eager:8.3f} " \
                    f"{min(times[name + '  [eager]']):8.3f}"
        print(line)
    print("ratios of medians (one run)")
    for name, base, goal in RATIOS:
        r = med[name] / med[base]
        print(f"  {name} / {base}: {r:.2f}x  goal ≤{goal:g}x: {'met' if r <= goal else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
