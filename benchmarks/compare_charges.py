"""Charge verdicts of two checkouts, side by side: every unit into every enemy unit of a table,
modifiers -2, 0 and +1 (examples/battle-standard-1.toml: 216 charges), each answer's JSON
written out, then compared field by field. For a change that must leave verdicts as they were
(issue 26: the stepped-end and escape bounds):

    .venv/bin/python benchmarks/compare_charges.py --root /work/main -o /tmp/before.json
    .venv/bin/python benchmarks/compare_charges.py -o /tmp/after.json --against /tmp/before.json

`--root` runs the engine of another checkout (read only: it is put first on sys.path).
Extra `--file F:UNIT:TARGETS:MODIFIER` charges (the slow ones of bench_tails) are added.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "examples" / "battle-standard-1.toml"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=str(ROOT), help="the checkout whose engine answers")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--against", help="a previous output to compare with")
    ap.add_argument("--file", action="append", default=[], metavar="F:UNIT:TARGETS:MODIFIER")
    a = ap.parse_args()
    sys.path.insert(0, a.root)
    import scenario
    from formats import atomic
    from geom.combat._charge import charge
    from geom.errors import TmgError

    jobs: list[tuple[str, str, list[str], float]] = []
    bf = scenario.load(TABLE)
    for u in bf.units:
        for t in bf.units:
            if t.owner != u.owner:
                jobs += [(str(TABLE), u.id, [t.id], m) for m in (-2.0, 0.0, 1.0)]
    for spec in a.file:
        f, unit, targets, mod = spec.rsplit(":", 3)
        jobs.append((f, unit, targets.split(","), float(mod)))
    out: dict[str, Any] = {}
    tables: dict[str, Any] = {}
    t0 = time.perf_counter()
    for f, unit, targets, mod in jobs:
        key = f"{Path(f).name} {unit} -> {','.join(targets)} {mod:+g}"
        bf = tables.setdefault(f, scenario.load(f))
        try:
            out[key] = charge(bf, unit, targets, mod).as_dict()
        except TmgError as exc:
            out[key] = {"error": str(exc)}
    print(f"{len(out)} charges in {time.perf_counter() - t0:.1f} s ({a.root})")
    atomic.write_text(a.output, json.dumps(out, sort_keys=True, indent=1))
    if a.against:
        before = json.loads(Path(a.against).read_text(encoding="utf-8"))
        now = json.loads(json.dumps(out))
        differ = [k for k in sorted(set(before) | set(now)) if before.get(k) != now.get(k)]
        print(f"against {a.against}: {len(before)} and {len(now)} charges, "
              f"{len(differ)} answers differ")
        for k in differ[:20]:
            b, n = before.get(k) or {}, now.get(k) or {}
            print(f"  {k}: " + ", ".join(f"{f}: {b.get(f)!r} -> {n.get(f)!r}"
                                         for f in sorted(set(b) | set(n))
                                         if b.get(f) != n.get(f))[:300])
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
