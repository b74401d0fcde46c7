"""`tmg serve` under load and in turn (issue 27), on 127.0.0.1 only, bounded in time.

    .venv/bin/python benchmarks/bench_service.py                # 60 s load, 32 clients
    .venv/bin/python benchmarks/bench_service.py --seconds 10   # a shorter run

One server (`tmg serve --workers 2`) on a free loopback port:
1. in turn (one client, keep-alive): warm `los` and warm `charge` round trips by table key and
   with the whole document, p50/p99/max; a new table's first charge (a document never sent,
   so its table is built) against the CLI's compute alone (the same charge through
   `tmg.cli.main` in this process: load + answer, no start-up);
2. load: 32 concurrent clients for `--seconds`, mixing sight, moves and charges on scenarios
   over official layouts (2/3 by key, 1/3 with the document; half of them questions never
   asked, which the engine computes, half asked before): errors, throughput and p50/p99
   per endpoint; resident memory of the server and its workers over the run, after a warm-up
   of the same mix (`--warm-up`, other questions), so that "steady" can be read off it.
Goals: warm los p50 <= 2 ms; warm charge p50 <= 15 ms, p99 <= 100 ms; first charge no slower
than the CLI's compute; 0 errors.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import random
import socket
import statistics
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import httpx
import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from formats.atomic import write_text  # noqa: E402
from tests._service import server_process  # noqa: E402


def doc(name: str) -> dict[str, Any]:
    return tomllib.loads((ROOT / "examples" / name).read_text(encoding="utf-8"))


BATTLE = doc("battle-standard-1.toml")  # standard-1 with the Gauntlet card, a full table
SIGHT = doc("sight-dispute.toml")
QUESTIONS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("los", SIGHT, {"a": "marines/m1", "b": "zerglings/1"}),
    ("los", BATTLE, {"a": "marines-a", "b": "roaches"}),
    ("los", BATTLE, {"a": "goliath/1", "b": "hydralisks/1"}),
    ("move", BATTLE, {"model": "marines-a/1", "to": "20,20", "allowance": 6}),
    ("move", SIGHT, {"model": "marines/m1", "to": "24,16", "allowance": 6}),
    ("charge", BATTLE, {"unit": "roaches", "targets": "marines-b"}),
    ("charge", BATTLE, {"unit": "zerglings-a", "targets": "marines-a"}),
]


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def summary(ms: list[float]) -> str:
    return (f"n={len(ms):5d}  p50 {statistics.median(ms):7.2f} ms  p99 {pct(ms, 99):7.2f} ms  "
            f"max {max(ms):7.2f} ms")


def rss_mb(proc: psutil.Process) -> float:
    total = proc.memory_info().rss
    for c in proc.children(recursive=True):
        with contextlib.suppress(psutil.Error):
            total += c.memory_info().rss
    return total / 2**20


class RawClient:
    """A minimal keep-alive HTTP/1.1 client on one socket: the round trip as the server gives
    it (httpx itself costs about 1 ms a request here, more than the server's share)."""

    def __init__(self, url: str) -> None:
        host, port = url.removeprefix("http://").split(":")
        self.sock = socket.create_connection((host, int(port)))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        data = json.dumps(body).encode()
        self.sock.sendall(b"POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                          b"application/json\r\nContent-Length: %d\r\n\r\n%s"
                          % (path.encode(), len(data), data))
        buf = b""
        while b"\r\n\r\n" not in buf:
            buf += self.sock.recv(65536)
        head, rest = buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        headers = {k.lower(): v.strip() for k, v in (x.split(":", 1) for x in lines[1:])}
        n = int(headers["content-length"])
        while len(rest) < n:
            rest += self.sock.recv(65536)
        return int(lines[0].split()[1]), headers, rest


def keys_of(client: httpx.Client, url: str) -> list[str]:
    keys = []
    for cmd, d, q in QUESTIONS:
        r = client.post(f"{url}/{cmd}", json={"scenario": d, **q}, timeout=120)
        if r.status_code != 200:
            raise SystemExit(f"{cmd} {q}: {r.status_code} {r.text[:300]}")
        keys.append(r.headers["x-table-key"])
    return keys


def in_turn(url: str, n: int) -> None:
    raw = RawClient(url)
    with httpx.Client() as c:
        keys = keys_of(c, url)
        for label, idx in (("los (sight-dispute)", 0), ("los (full table, units)", 1),
                           ("charge (full table)", 5)):
            cmd, d, q = QUESTIONS[idx]
            for how, body in (("by key", {"key": keys[idx], **q}),
                              ("document", {"scenario": d, **q})):  # a kept answer
                for _ in range(3):  # every worker warm
                    c.post(f"{url}/{cmd}", json=body, timeout=60)
                for who in ("raw", "httpx"):
                    ms = []
                    for _ in range(n):
                        t = time.perf_counter()
                        if who == "raw":
                            status = raw.post(f"/{cmd}", body)[0]
                        else:
                            status = c.post(f"{url}/{cmd}", json=body, timeout=60).status_code
                        ms.append((time.perf_counter() - t) * 1e3)
                        assert status == 200
                    print(f"  again: {label:24s} {how:8s} {who:5s} {summary(ms)}")
        # fresh questions on a warm table (no kept answer): every red/blue model pair's sight,
        # and charges with a modifier never asked before
        models = {o: [f"{u['id']}/{i + 1}" for u in BATTLE["unit"] if u["owner"] == o
                      for i in range(len(u["models"]))] for o in ("red", "blue")}
        pairs = [(a, b) for a in models["red"] for b in models["blue"]]
        key = keys[1]
        for label, cmd, bodies in (
                ("los, a new pair each time", "los",
                 [{"key": key, "a": a, "b": b} for a, b in pairs[:n]]),
                ("charge, a new modifier", "charge",
                 [{"key": key, "unit": "roaches", "targets": "marines-b",
                   "modifier": round(-1 + i / (4 * n), 6)} for i in range(min(n, 60))])):
            ms, compute = [], []
            for body in bodies:
                t = time.perf_counter()
                status, headers, text = raw.post(f"/{cmd}", body)
                ms.append((time.perf_counter() - t) * 1e3)
                assert status == 200 and "x-answer" not in headers, text
                compute.append(float(headers["server-timing"].split("dur=")[1]))
            print(f"  warm table, {label:26s} {summary(ms)}")
            print(f"    of which the engine's compute   {summary(compute)}")
        # a new table's first charge, against the CLI's compute alone
        from tmg.cli import main

        cmd, d, q = QUESTIONS[5]
        tmp = ROOT / "benchmarks" / ".bench_service_battle.json"
        write_text(tmp, json.dumps(d))
        try:
            cli_ms = []
            for _ in range(5):
                t = time.perf_counter()
                with contextlib.redirect_stdout(io.StringIO()):
                    rc = main(["charge", str(tmp), q["unit"], "--targets", q["targets"],
                               "--json"])
                cli_ms.append((time.perf_counter() - t) * 1e3)
                assert rc == 0
        finally:
            tmp.unlink()
        first = []
        for i in range(5):
            fresh = {**d, "name": f"a new table {i} {random.random()}"}
            t = time.perf_counter()
            r = c.post(f"{url}/{cmd}", json={"scenario": fresh, **q}, timeout=120)
            first.append((time.perf_counter() - t) * 1e3)
            assert r.status_code == 200, r.text
        a, b = statistics.median(first), statistics.median(cli_ms)
        print(f"  new table, first charge (service)    p50 {a:7.1f} ms  max {max(first):7.1f}")
        print(f"  the CLI's compute alone (in process) p50 {b:7.1f} ms  max {max(cli_ms):7.1f}"
              f"   ratio service/CLI {a / b:.2f}")


def fresh(rng: random.Random, cmd: str, q: dict[str, Any]) -> dict[str, Any]:
    """`q` changed so that its answer is not one the server keeps: another point to move to,
    another charge modifier, the sight of a unit against a marker or another model."""
    if cmd == "move":
        return {**q, "to": f"{rng.uniform(2, 30):.3f},{rng.uniform(2, 30):.3f}"}
    if cmd == "charge":
        return {**q, "modifier": round(rng.uniform(-2, 2), 3)}
    return {**q, "range": round(rng.uniform(6, 30), 3)}


async def load(url: str, clients: int, seconds: float, keys: list[str],
               proc: psutil.Process, seed: int = 0) -> None:
    lat: dict[str, list[float]] = {}
    errors: list[str] = []
    stop = time.monotonic() + seconds

    async def client(i: int) -> None:
        rng = random.Random(seed * 10_000 + i)  # another seed: other fresh questions
        async with httpx.AsyncClient(timeout=120) as c:
            while time.monotonic() < stop:
                j = rng.randrange(len(QUESTIONS))
                cmd, d, q = QUESTIONS[j]
                if rng.random() < 0.5:  # a question never asked: the engine computes it
                    q = fresh(rng, cmd, q)
                body = {"key": keys[j], **q} if rng.random() < 2 / 3 else {"scenario": d, **q}
                t = time.perf_counter()
                try:
                    r = await c.post(f"{url}/{cmd}", json=body)
                    if r.status_code != 200:
                        errors.append(f"{cmd}: {r.status_code} {r.text[:200]}")
                except httpx.HTTPError as exc:
                    errors.append(f"{cmd}: {type(exc).__name__}")
                lat.setdefault(cmd, []).append((time.perf_counter() - t) * 1e3)

    samples: list[tuple[float, float]] = []

    async def sampler() -> None:
        # resident memory every `every` seconds: steady means the series levels off once the
        # bounded caches (tables, answers, each table's prepared state) have filled
        while time.monotonic() < stop:
            samples.append((time.monotonic() - t0, rss_mb(proc)))
            await asyncio.sleep(every)

    every = max(seconds / 12, 1.0)
    start_mb = rss_mb(proc)
    t0 = time.monotonic()
    await asyncio.gather(sampler(), *(client(i) for i in range(clients)))
    wall = time.monotonic() - t0
    end_mb = rss_mb(proc)
    total = sum(len(v) for v in lat.values())
    print(f"  {clients} clients, {wall:.1f} s: {total} requests, {total / wall:.1f}/s, "
          f"{len(errors)} errors")
    for cmd, ms in sorted(lat.items()):
        print(f"  {cmd:7s} {len(ms) / wall:7.1f}/s  {summary(ms)}")
    print(f"  resident memory (server + workers): at the start {start_mb:.0f} MB, "
          f"at the end {end_mb:.0f} MB")
    print("  resident memory over the run (s: MB): "
          + ", ".join(f"{t:.0f}: {mb:.0f}" for t, mb in samples))
    for e in errors[:5]:
        print("  error:", e)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("-n", type=int, default=200, help="requests per in-turn measure")
    ap.add_argument("--warm-up", type=float, default=30.0,
                    help="seconds of the same load, not measured, before the measured run: "
                         "its memory figures start from warm workers")
    ns = ap.parse_args()
    with server_process("--workers", "2", "--cache", "64") as (url, popen):
        proc = psutil.Process(popen.pid)
        print(f"tmg serve --workers 2 on {url}")
        print("in turn (one client):")
        in_turn(url, ns.n)
        with httpx.Client() as c:
            keys = keys_of(c, url)
        if ns.warm_up > 0:
            print(f"warm-up ({ns.clients} clients, {ns.warm_up:g} s, the same mix):")
            asyncio.run(load(url, ns.clients, ns.warm_up, keys, proc, seed=1))
        print(f"load ({ns.clients} clients, {ns.seconds:g} s, los/move/charge):")
        asyncio.run(load(url, ns.clients, ns.seconds, keys, proc))


if __name__ == "__main__":
    main()
