"""Tails of charges and moves (issue 26): random legal placements of catalogue units (1-10
models) on every official layout; per command p50, p99 and max, cold and warm, in one run.

    .venv/bin/python benchmarks/bench_tails.py               # 1,000 charges, 1,000 moves
    .venv/bin/python benchmarks/bench_tails.py --count 100   # a quick run

Each table is one official layout with two units of catalogue types (1-10 models each,
placed at random until the scenario loader accepts them: on the table, off impassable terrain,
no overlaps), the target 3-14" from the charger. Per table:
- charge, cold: `geom.combat._charge.charge` on a freshly loaded battlefield (its navigators and end
  sets built for the question, as one `tmg charge` process does); warm: a second charge with
  another modifier on the same battlefield (what a session or a service asks next);
- move, cold: `geom.movement._moves.check_move` of one model of the charger to a random point within
  its Speed + 2", fresh battlefield and navigator; warm: another model to another point with
  the same navigator.
Goals: max <= 1 s cold, p99 <= 100 ms warm. Every query slower than `--slow` seconds (default
1) is saved as a scenario file plus its command line in `--out` (default out/tails/) so it can
be replayed with `tmg`.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import random
import shlex
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from formats.atomic import write_text  # noqa: E402
from geom.combat._charge import charge  # noqa: E402
from geom.errors import TmgError  # noqa: E402
from geom.movement import _moves as mv  # noqa: E402
from maps import layout_ids, load_layout  # noqa: E402
from scenario import catalogue, parse_document  # noqa: E402

MODIFIERS = (-2.0, 0.0, 2.0)


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, math.ceil(q / 100 * len(s)) - 1))]


def _unit(rng: random.Random, uid: str, owner: str, types: list[dict[str, Any]],
          centre: tuple[float, float], w: float, d: float) -> dict[str, Any]:
    t = rng.choice(types)
    n = rng.randint(1, 10)
    mm = t["base_mm"]
    r = (max(mm) if isinstance(mm, list) else mm) / 25.4 / 2
    step = 2 * r + rng.uniform(0.05, 0.6)
    cols = rng.randint(1, min(n, 5))
    ang = rng.uniform(0, math.pi)
    c, s = math.cos(ang), math.sin(ang)
    models = []
    for k in range(n):
        gx, gy = (k % cols) * step, (k // cols) * step
        x = centre[0] + c * gx - s * gy + rng.uniform(-0.05, 0.05)
        y = centre[1] + s * gx + c * gy + rng.uniform(-0.05, 0.05)
        models.append({"id": f"m{k + 1}", "at": [round(min(max(x, r + 0.01), w - r - 0.01), 3),
                                                  round(min(max(y, r + 0.01), d - r - 0.01), 3)]})
    return {"id": uid, "type": t["id"], "owner": owner, "models": models}


def random_table(rng: random.Random, layout: str, types: list[dict[str, Any]]
                 ) -> dict[str, Any]:
    """A scenario on `layout` with a charger (red) and a target (blue) the loader accepts."""
    tab = load_layout(layout).table
    w, d = tab.width, tab.depth
    for _ in range(500):
        a = (rng.uniform(2, w - 2), rng.uniform(2, d - 2))
        dist, ang = rng.uniform(3, 14), rng.uniform(0, 2 * math.pi)
        b = (a[0] + dist * math.cos(ang), a[1] + dist * math.sin(ang))
        if not (1 < b[0] < w - 1 and 1 < b[1] < d - 1):
            continue
        doc = {"format": "tmg-scenario/1", "table": {"layout": layout},
               "unit": [_unit(rng, "chargers", "red", types, a, w, d),
                        _unit(rng, "targets", "blue", types, b, w, d)]}
        try:
            parse_document(doc, layout)
        except TmgError:
            continue
        return doc
    raise SystemExit(f"no legal placement found on {layout}")


def timed(f: Any, *args: Any, **kw: Any) -> tuple[float, Any]:
    t = time.perf_counter()
    try:
        got = f(*args, **kw)
    except TmgError as exc:  # a clean rejection is an answer too
        got = exc
    return time.perf_counter() - t, got


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=1000,
                    help="charges and moves each (default 1000), spread over the layouts")
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--slow", type=float, default=1.0,
                    help="save queries slower than this many seconds (default 1)")
    ap.add_argument("--out", default=str(ROOT / "out" / "tails"))
    a = ap.parse_args()
    rng = random.Random(a.seed)
    types = [t for t in catalogue.units() if t.get("speed") and not t.get("structure")
             and t.get("base_mm")]
    layouts = layout_ids()
    walls: dict[str, list[float]] = {k: [] for k in ("charge cold", "charge warm", "move cold",
                                                     "move warm")}
    slow: list[tuple[float, str, str]] = []
    out = Path(a.out)

    def note(kind: str, secs: float, doc: dict[str, Any], argv: list[str]) -> None:
        walls[kind].append(secs)
        if secs > a.slow:
            out.mkdir(parents=True, exist_ok=True)
            f = out / f"slow-{len(slow) + 1}.json"
            write_text(f, json.dumps(doc))
            line = f"tmg {shlex.join([argv[0], str(f), *argv[1:]])}"
            write_text(out / f"slow-{len(slow) + 1}.txt", f"{kind}: {secs:.2f} s\n{line}\n")
            slow.append((secs, kind, line))

    t0 = time.perf_counter()
    for i in range(a.count):
        layout = layouts[i % len(layouts)]
        doc = random_table(rng, layout, types)
        m1, m2 = rng.sample(MODIFIERS, 2)
        bf = parse_document(copy.deepcopy(doc), layout)
        secs, _ = timed(charge, bf, "chargers", ["targets"], m1)
        note("charge cold", secs, doc, ["charge", "chargers", "--targets", "targets",
                                        "--modifier", f"{m1:g}"])
        secs, _ = timed(charge, bf, "chargers", ["targets"], m2)
        note("charge warm", secs, doc, ["charge", "chargers", "--targets", "targets",
                                        "--modifier", f"{m2:g}"])
        bf = parse_document(copy.deepcopy(doc), layout)
        unit = bf.unit("chargers")
        reach = mv.allowance_of(unit) + 2
        nav = None
        for kind in ("move cold", "move warm"):
            model = rng.choice(unit.models)
            ang, r = rng.uniform(0, 2 * math.pi), rng.uniform(0, reach)
            tab = bf.table
            to = (min(max(model.at[0] + r * math.cos(ang), 0.0), tab.width),
                  min(max(model.at[1] + r * math.sin(ang), 0.0), tab.depth))
            if nav is None:
                t = time.perf_counter()
                nav = mv.Navigator(bf, unit, ())
                build = time.perf_counter() - t
            else:
                build = 0.0
            secs, _ = timed(mv.check_move, bf, unit, model, to, nav=nav)
            note(kind, secs + build, doc, ["move", f"chargers/{model.id}", "--to",
                                           f"{to[0]:.3f},{to[1]:.3f}"])
        if (i + 1) % 100 == 0:
            print(f"  {i + 1} tables, {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    print(f"bench_tails: {a.count} tables (seed {a.seed}) over {len(layouts)} official layouts, "
          f"{time.perf_counter() - t0:.0f} s; units of 1-10 models of "
          f"{len(types)} catalogue types")
    print(f"{'query':<14} {'n':>5} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>9}  goal")
    for kind, xs in walls.items():
        goal = ("max ≤ 1000 ms: " + ("met" if max(xs) <= 1.0 else "NOT met")) \
            if kind.endswith("cold") else \
            ("p99 ≤ 100 ms: " + ("met" if _pct(xs, 99) <= 0.1 else "NOT met"))
        print(f"{kind:<14} {len(xs):5d} {1000 * _pct(xs, 50):8.1f} {1000 * _pct(xs, 99):8.1f} "
              f"{1000 * max(xs):9.1f}  {goal}")
    if slow:
        slow.sort(reverse=True)
        print(f"{len(slow)} queries over {a.slow:g} s, saved in {out}:")
        for secs, kind, line in slow[:10]:
            print(f"  {secs:6.2f} s {kind}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
