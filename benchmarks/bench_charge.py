"""Benchmark: charge verdicts and `tmg report` on an official layout, against the previous
implementation in the same run (issue: charges exact and fast).

The table is examples/battle-standard-1.toml (standard map 1 with the Gauntlet card, 12 units,
47 models, 5 markers). Charges by units of 1, 5 and 10 models round the layout's terrain:

- "new, cold": a fresh battlefield for every verdict (the navigator is built each time, as one
  `tmg charge` command does);
- "new, warm": one battlefield for all (the navigator of each unit kept, as in one session or
  a command asking several questions);
- "verdict": warm, without placing the other models — the charge asked again, so its end sets
  and prepared questions (with their terminals) are kept too; "first ask": the same verdict
  with those dropped (navigator and searches kept), what a new question of a session costs;
- "before": the engine as it was at an earlier commit (`--before REV`, default BEFORE: the last
  commit before the split and the rework; `geom` exported to a temporary package), same
  charges, same battlefield objects.

Then `tmg report`'s work on the same table, split into its parts, new and before.
Prints one table; exits 0.

    .venv/bin/python benchmarks/bench_charge.py [--repeat N] [--before REV]
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import scenario  # noqa: E402
from benchmarks._before import old_module, old_package, to_before  # noqa: E402
from geom.combat._charge import charge  # noqa: E402

BEFORE = "cd6fdc8"  # the last commit before the split and the rework
TABLE = ROOT / "examples" / "battle-standard-1.toml"
CHARGES = [  # (unit, models, target)
    ("queen", 1, "marauders"),
    ("ravager", 1, "medics"),
    ("marines-a", 5, "zerglings-a"),
    ("marines-b", 5, "roaches"),
    ("zerglings-a", 10, "marines-a"),
    ("zerglings-b", 10, "marines-b"),
]


def load_before(om: Any) -> Any:
    return to_before(scenario.load(TABLE), om)


def timed(f: Any, *args: Any, **kw: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = f(*args, **kw)
    return time.perf_counter() - t0, out


def median_ms(xs: list[float]) -> float:
    return statistics.median(xs) * 1e3


KEPT = ("charge ends", "charge question", "charge question, outer")  # per-charge preparations


def drop_kept(bf: Any) -> None:
    """Forget the charges' end sets and prepared questions (navigators and searches stay):
    today's engine keeps them in `bf.prepared`, an older one under these keys in `bf.scratch`,
    and one from before the battlefield kept anything has nothing to forget."""
    if hasattr(type(bf), "prepared"):
        bf.prepared.charge_ends.clear()
        bf.prepared.charge_questions.clear()
        return
    kept = getattr(bf, "scratch", {})
    for k in [k for k in kept if isinstance(k, tuple) and k and k[0] in KEPT]:
        del kept[k]


def bench_charges(repeat: int, old: Any) -> None:
    old_charge = old_module(importlib.import_module("geom_before"), "charge").charge
    om = importlib.import_module("geom_before.model")
    warm_bf = scenario.load(TABLE)
    print(f"charges on {TABLE.name} (place=True: verdict, end, path and placement)")
    head = (f"{'unit':<13}{'models':>7}{'target':>13}{'min d':>9}{'roll':>5}"
            f"{'new cold ms':>12}{'new warm ms':>12}{'verdict ms':>11}{'first ask':>10}"
            f"{'before ms':>11}"
            f"{'before/cold':>12}{'before/warm':>12}{'Δd before':>11}{'before verdict':>15}"
            f"{'ratio':>9}{'before first':>13}{'ratio':>9}")
    print(head)
    print("-" * len(head))
    all_cold, all_warm, all_old, all_verdict, all_old_verdict = [], [], [], [], []
    all_first: list[float] = []
    all_old_first: list[float] = []
    warm_obf = load_before(om)
    for uid, n, tid in CHARGES:
        cold, warm, before, verdict, old_verdict = [], [], [], [], []
        first: list[float] = []
        old_first: list[float] = []
        a = b = None
        for _ in range(repeat):
            bf = scenario.load(TABLE)
            t, a = timed(charge, bf, uid, [tid])
            cold.append(t)
            t, _ = timed(charge, warm_bf, uid, [tid])
            warm.append(t)
            t, _ = timed(charge, warm_bf, uid, [tid], place=False)
            verdict.append(t)
            drop_kept(warm_bf)
            t, _ = timed(charge, warm_bf, uid, [tid], place=False)
            first.append(t)
            obf = load_before(om)
            t, b = timed(old_charge, obf, uid, [tid])
            before.append(t)
            try:  # the same warm verdict on the old engine, where it takes `place`
                t, _ = timed(old_charge, warm_obf, uid, [tid], place=False)
                old_verdict.append(t)
                drop_kept(warm_obf)
                t, _ = timed(old_charge, warm_obf, uid, [tid], place=False)
                old_first.append(t)
            except TypeError:
                pass
        c, w, o = median_ms(cold), median_ms(warm[1:] or warm), median_ms(before)
        v, fa = median_ms(verdict), median_ms(first)
        all_first += first
        all_old_first += old_first
        all_cold += cold
        all_warm += warm[1:] or warm
        all_old += before
        all_verdict += verdict
        all_old_verdict += old_verdict[1:] or old_verdict
        dd = (b.min_distance - a.min_distance) if (a.min_distance is not None
                                                   and b.min_distance is not None) else 0.0
        ov = median_ms(old_verdict[1:] or old_verdict) if old_verdict else float("nan")
        of = median_ms(old_first) if old_first else float("nan")
        print(f"{uid:<13}{n:>7}{tid:>13}{a.min_distance or float('nan'):>9.4f}"
              f"{str(a.min_roll):>5}{c:>12.1f}{w:>12.1f}{v:>11.1f}{fa:>10.1f}{o:>11.1f}"
              f"{o / c:>11.1f}x"
              f"{o / w:>11.1f}x{dd:>11.5f}{ov:>15.1f}{ov / v:>8.1f}x"
              f"{of:>13.1f}{of / fa:>8.1f}x")
    c, w, o = median_ms(all_cold), median_ms(all_warm), median_ms(all_old)
    v, fa = median_ms(all_verdict), median_ms(all_first)
    ov = median_ms(all_old_verdict) if all_old_verdict else float("nan")
    of = median_ms(all_old_first) if all_old_first else float("nan")
    print(f"{'median per charge':<33}{'':>9}{'':>5}{c:>12.1f}{w:>12.1f}{v:>11.1f}{fa:>10.1f}"
          f"{o:>11.1f}"
          f"{o / c:>11.1f}x{o / w:>11.1f}x{'':>11}{ov:>15.1f}{ov / v:>8.1f}x"
          f"{of:>13.1f}{of / fa:>8.1f}x")
    print("cold: fresh battlefield (navigator built); warm: navigator kept; verdict: warm, "
          "without placing the other models (possible, min_distance, min_roll, end, path); "
          "first ask: that verdict with the charge's end sets and prepared questions dropped; "
          "before verdict: the same on the old engine (where it can skip the placement), "
          "ratio = before verdict / verdict; before first: the first ask on the old engine, "
          "ratio = before first / first ask.")
    print("Δd before: how much longer the previous implementation's charge distance was "
          "(its end region was an inscribed polygon shrunk by a margin).")


def bench_report(repeat: int) -> None:
    from geom.distance import unit_distance_matrix
    from geom.markers._control import all_markers
    from geom.movement._coherency import coherency
    from tmg.commands import report

    ob = importlib.import_module("geom_before")
    odist = old_module(ob, "distance")
    ocoh = old_module(ob, "coherency")
    omark = old_module(ob, "markers")
    oeng = old_module(ob, "engagement")
    assert ob is not None
    bf = scenario.load(TABLE)
    units = list(bf.units)

    def new_parts() -> dict[str, float]:
        b = scenario.load(TABLE)
        out: dict[str, float] = {}
        out["distances"], m = timed(lambda: unit_distance_matrix(units,
                                                                      [*units, *b.markers]))
        t, _ = timed(lambda: report.unit_distances(b, m))
        out["distances"] += t
        out["engagement"], _ = timed(lambda: report.engagements(b, m[:, :len(units)]))
        out["coherency"], v = timed(lambda: {u.id: coherency(b, u) for u in b.units})
        out["markers"], _ = timed(lambda: all_markers(
            b, coherency={k: x for k, x in v.items() if not b.unit(k).flying}))
        out["sight"], _ = timed(lambda: report.sight_between_enemies(b))
        return out

    om = importlib.import_module("geom_before.model")

    def old_parts() -> dict[str, float]:
        b = load_before(om)
        out: dict[str, float] = {}

        def distances() -> None:
            for i, a in enumerate(b.units):
                for c in b.units[i + 1:]:
                    odist.distance(a, c)
            for mk in b.markers:
                for u in b.units:
                    odist.distance(u, mk)

        def engagement() -> None:
            for i, a in enumerate(b.units):
                for c in b.units[i + 1:]:
                    if a.owner != c.owner and odist.within(a, c, 1.0):
                        oeng.units_engaged(b, a, c)

        out["distances"], _ = timed(distances)
        out["engagement"], _ = timed(engagement)
        out["coherency"], _ = timed(lambda: [ocoh.coherency(b, u) for u in b.units])
        out["markers"], _ = timed(lambda: omark.all_markers(b))
        nb = scenario.load(TABLE)  # sight is not this change's: today's code on both sides
        out["sight"], _ = timed(lambda: report.sight_between_enemies(nb))
        return out

    news = [new_parts() for _ in range(repeat)]
    olds = [old_parts() for _ in range(repeat)]
    print(f"\ntmg report's work on {TABLE.name} ({len(units)} units, "
          f"{sum(len(u.models) for u in units)} models, {len(bf.markers)} markers), median ms")
    head = f"{'part':<14}{'new':>9}{'before':>9}{'ratio':>8}   owner"
    print(head)
    print("-" * len(head))
    owners = {"distances": "h2 (this change)", "engagement": "h2 pre-filter, h1 verdicts",
              "coherency": "h3 (called once per unit now)",
              "markers": "h3 (shares the coherency now)", "sight": "h1 (same code both sides)"}
    tn = to = 0.0
    for part in ("distances", "engagement", "coherency", "markers", "sight"):
        n = statistics.median(x[part] for x in news) * 1e3
        o = statistics.median(x[part] for x in olds) * 1e3
        tn += n
        to += o
        ratio = f"{o / n:>7.1f}x" if n >= 0.05 else "      –"
        print(f"{part:<14}{n:>9.1f}{o:>9.1f}{ratio}   {owners[part]}")
    print(f"{'total':<14}{tn:>9.1f}{to:>9.1f}{to / tn:>7.1f}x")
    cmd = [sys.executable, "-c", "import sys; from tmg.cli import main; sys.exit(main())",
           "report", str(TABLE)]
    # byte-code caching on, as for an installed package, whatever PYTHONDONTWRITEBYTECODE says
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(cmd, capture_output=True, check=True, cwd=ROOT, env=env)  # writes the cache
    walls = [timed(lambda: subprocess.run(cmd, capture_output=True, check=True, cwd=ROOT,
                                          env=env))[0] for _ in range(7)]
    print(f"`tmg report` wall clock (start-up, imports, loading included), median of 7: "
          f"{statistics.median(walls):.2f} s (min {min(walls):.2f} s; goal ≤ 0.5 s)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", default=BEFORE, metavar="REV",
                    help=f"the git commit to compare with (default {BEFORE})")
    args = ap.parse_args()
    print(f"before = geom at {args.before}")
    old = old_package(args.before)
    bench_charges(args.repeat, old)
    bench_report(args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
