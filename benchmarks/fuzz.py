"""Fuzz the loader and every command: N generated documents (default 100,000) through
`tmg info --json`, and command lines on the accepted ones, each judged as in tests/_fuzz.py.

    .venv/bin/python benchmarks/fuzz.py                 # 100,000 documents, 2 workers
    .venv/bin/python benchmarks/fuzz.py -n 5000 --seed 7 --queries 0.3

Prints counts: accepted, clean rejections, budget stops (exit 3, `--timeout` ran out), crashes
(exit 1, a traceback, several lines, invalid JSON, unprintable output) and hangs (no answer
within the harness's deadline), and the wall time per command (p50, p99, max; the goal is no
query over 2 s). Each crash, budget stop, hang and query over `--slow` seconds is saved to
out/fuzz/ (the document and the command line) so it can be replayed: `tmg` + the saved command
line.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import random
import shlex
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from formats.atomic import write_bytes, write_text  # noqa: E402
from tests import _fuzz  # noqa: E402

_state: dict[str, Any] = {}


def _init(tmp: str, seed: int, query_rate: float, budget: float) -> None:
    _state.update(tmp=Path(tmp), seed=seed, query_rate=query_rate, budget=budget,
                  bases=_fuzz.example_documents())


def _run(argv: list[str]) -> tuple[_fuzz.Outcome, float]:
    t = time.perf_counter()
    if argv and argv[0] not in ("view",) and "--timeout" not in argv:
        argv = [*argv, "--timeout", f"{_state['budget']:g}"]
    out = _fuzz.check(argv)
    return out, time.perf_counter() - t


def one(i: int) -> list[tuple[str, str, str, list[str], bytes | None, float]]:
    """Document i (and maybe one command line on it): [(phase, verdict, detail, argv, doc, s)]."""
    rng = random.Random(f"{_state['seed']}:{i}")
    suffix, data = _fuzz.documents(rng, _state["bases"])
    tmp: Path = _state["tmp"]
    path = tmp / f"doc-{os.getpid()}{suffix}"
    write_bytes(path, data)
    records = []
    argv = ["info", str(path), "--json"]
    out, secs = _run(argv)
    records.append(("document", out.verdict, out.detail, argv, data, secs))
    accepted = out.verdict == "accepted"
    if rng.random() < (_state["query_rate"] if accepted else _state["query_rate"] / 10):
        info = json.loads(out.out) if accepted else None
        qargv = _fuzz.commands_for(rng, str(path), info, tmp)
        q, secs = _run(qargv)
        records.append(("query", q.verdict, q.detail, qargv, data, secs))
    return records


def _pct(xs: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of the walls."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, math.ceil(q / 100 * len(s)) - 1))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--documents", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--queries", type=float, default=0.1,
                    help="share of accepted documents that also get one command line (default 0.1)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--budget", type=float, default=10.0,
                    help="the commands' --timeout in seconds (default 10)")
    ap.add_argument("--hang", type=float, default=40.0,
                    help="seconds after which a document counts as a hang (default 40)")
    ap.add_argument("--out", default=str(ROOT / "out" / "fuzz"))
    ap.add_argument("--slow", type=float, default=2.0,
                    help="save queries slower than this many seconds (default 2)")
    ap.add_argument("--show", type=int, default=0, metavar="K",
                    help="also print K sample messages of each verdict")
    a = ap.parse_args()
    counts: dict[str, Counter[str]] = {"document": Counter(), "query": Counter()}
    commands: Counter[str] = Counter()
    slowest: list[tuple[float, str]] = []
    walls: dict[str, list[float]] = {}
    samples: Counter[str] = Counter()
    saved = 0
    out_dir = Path(a.out)

    def save(kind: str, argv: list[str], data: bytes | None, detail: str) -> None:
        nonlocal saved
        saved += 1
        if saved > 200:
            return
        out_dir.mkdir(parents=True, exist_ok=True)
        doc = out_dir / f"{kind}-{saved}{Path(argv[1]).suffix if len(argv) > 1 else ''}"
        if data is not None:
            write_bytes(doc, data)
        shown = [str(doc) if len(argv) > 1 and x == argv[1] else x for x in argv]
        write_text(out_dir / f"{kind}-{saved}.txt",
                   f"{detail}\ntmg {shlex.join(x.encode('utf-8', 'backslashreplace').decode() for x in shown)}\n")

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        start = 0
        while start < a.documents:
            pool = mp.get_context("fork").Pool(a.workers, _init,
                                               (tmp, a.seed, a.queries, a.budget))
            it = pool.imap(one, range(start, a.documents), chunksize=1)
            i = start
            try:
                for i in range(start, a.documents):
                    try:
                        records = it.next(timeout=a.hang)
                    except mp.TimeoutError:
                        counts["document"]["hang"] += 1
                        save("hang", ["info", f"document {i} (seed {a.seed})"], None,
                             f"no answer within {a.hang:g} s")
                        print(f"hang at document {i}", file=sys.stderr)
                        start = i + 1
                        break
                    for phase, verdict, detail, argv, data, secs in records:
                        counts[phase][verdict] += 1
                        walls.setdefault("info (document)" if phase == "document" else argv[0],
                                         []).append(secs)
                        if phase == "query":
                            commands[f"{argv[0]} {verdict}"] += 1
                        if secs > a.slow:
                            slowest.append((secs, " ".join(argv[:1] + argv[2:])[:120]))
                            save("slow", argv, data, f"document {i}: {secs:.1f} s, {verdict}")
                        if a.show and verdict != "crash" and samples[verdict] < a.show:
                            samples[verdict] += 1
                            print(f"{verdict} ({phase}): {detail[:150]}  "
                                  f"[{' '.join(argv)[:100]}]", file=sys.stderr)
                        if verdict in ("crash", "budget"):
                            save(verdict, argv, data, f"document {i}: {detail}")
                            if counts[phase][verdict] <= 20:
                                print(f"{verdict} ({phase} {i}): {detail}  "
                                      f"[{' '.join(argv)[:160]}]",
                                      file=sys.stderr)
                    if (i + 1) % 10_000 == 0:
                        print(f"  {i + 1:,} documents, {time.perf_counter() - t0:.0f} s",
                              file=sys.stderr)
                else:
                    start = a.documents
            finally:
                pool.terminate()
                pool.join()
    wall = time.perf_counter() - t0
    d, q = counts["document"], counts["query"]
    print(f"fuzz: {a.documents:,} documents (seed {a.seed}) in {wall:.0f} s with {a.workers} "
          f"workers; command budget --timeout {a.budget:g} s, hang deadline {a.hang:g} s")
    print(f"documents (tmg info --json): accepted {d['accepted']:,}, clean rejections "
          f"{d['rejected']:,}, budget stops {d['budget']:,}, crashes {d['crash']:,}, "
          f"hangs {d['hang']:,}")
    print(f"command lines: {sum(q.values()):,}: accepted {q['accepted']:,}, clean rejections "
          f"{q['rejected']:,}, budget stops {q['budget']:,}, crashes {q['crash']:,}, "
          f"hangs {q['hang']:,}")
    print("per command: " + ", ".join(f"{k} {v}" for k, v in sorted(commands.items())))
    print("wall per command (s): " + "; ".join(
        f"{k} n={len(v)} p50 {_pct(v, 50):.3f} p99 {_pct(v, 99):.3f} max {max(v):.3f}"
        for k, v in sorted(walls.items())))
    if slowest:
        slowest.sort(reverse=True)
        print(f"slowest (> {a.slow:g} s): " + "; ".join(f"{s:.1f} s {c}" for s, c in slowest[:5]))
    if saved:
        print(f"{saved} crash/budget/hang/slow cases saved in {out_dir}")
    return 1 if d["crash"] + d["hang"] + q["crash"] + q["hang"] else 0


if __name__ == "__main__":
    sys.exit(main())
