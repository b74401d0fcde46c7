"""The front process's workers: `--workers N` compute processes (`service.worker`), each with its
own warm tables, one request at a time each.

A request goes to a free worker that has its table warm, else to any free worker (which builds
the table: a table may be warm in several workers), else waits for the warm (or least busy) one.
The front process mirrors which keys each worker holds from the replies. A request still running
`GRACE` seconds past its time budget is ended with its worker (a 503), and a new worker started:
the budget holds even in a C call that the worker's own alarm cannot break.
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
from dataclasses import dataclass, field
from typing import Any

from tmg.budget import DEFAULT_TIMEOUT

from .worker import Reply, error, main

GRACE = 1.0  # seconds past the budget before the worker is ended
PRELOAD = ["service.worker", "tmg.cli", "scenario", "maps", "geom.combat", "geom.sight",
           "viewer.scene", "viewer.svg"]


@dataclass(eq=False)
class Slot:
    index: int
    process: Any = None
    conn: Any = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    waiting: int = 0
    keys: set[str] = field(default_factory=set)


class Pool:
    def __init__(self, workers: int = 1, cache: int = 64, target: Any = None) -> None:
        """`target`: the worker's loop (`service.worker.main`; a test gives another)."""
        self.target = target
        self.size = max(1, workers)
        self.cache = cache
        self.ctx = mp.get_context("forkserver")
        self.ctx.set_forkserver_preload(PRELOAD)
        self.slots = [Slot(i) for i in range(self.size)]

    def start(self) -> None:
        for s in self.slots:
            self._spawn(s)

    def _spawn(self, s: Slot) -> None:
        parent, child = self.ctx.Pipe()
        s.process = self.ctx.Process(target=self.target or main, args=(child, self.cache), daemon=True,
                                     name=f"tmg-serve-worker-{s.index}")
        s.process.start()
        child.close()
        s.conn = parent
        s.keys = set()

    def close(self) -> None:
        for s in self.slots:
            if s.conn is not None:
                s.conn.close()
            if s.process is not None:
                s.process.join(2)
                if s.process.is_alive():
                    s.process.kill()
                    s.process.join(2)

    def _choose(self, hint: str | None) -> Slot:
        warm = [s for s in self.slots if hint is not None and hint in s.keys]
        for s in warm:
            if not s.lock.locked():
                return s
        free = [s for s in self.slots if not s.lock.locked()]
        if free and not (warm and hint is not None and hint.startswith("key:")):
            return min(free, key=lambda s: len(s.keys))
        return min(warm or self.slots, key=lambda s: s.waiting)

    async def ask(self, command: str, body: dict[str, Any], hint: str | None) -> Reply:
        s = self._choose(hint)
        s.waiting += 1
        async with s.lock:
            s.waiting -= 1
            return await self._ask(s, command, body)

    async def _ask(self, s: Slot, command: str, body: dict[str, Any]) -> Reply:
        budget = body.get("timeout", DEFAULT_TIMEOUT)
        limit = float(budget) + GRACE if isinstance(budget, int | float) and budget > 0 \
            and not isinstance(budget, bool) else None
        loop = asyncio.get_running_loop()
        ok, reply = await loop.run_in_executor(None, _round_trip, s.conn, command, body, limit)
        if not ok:  # past the budget (or the worker died): end it, start another
            s.process.kill()
            s.process.join(5)
            s.conn.close()
            self._spawn(s)
            if reply == "dead":
                return error(500, "internal error (the worker process ended); please report "
                             "it with the request")
            return error(503, f"no answer within the time budget of {budget:g} s (the "
                         "question is too large for it; give more with \"timeout\", 0 for no "
                         "limit)", "request body", "timeout")
        for k in reply.evicted:
            s.keys.discard("key:" + k)
            s.keys.discard("raw:" + k)
        if reply.key:
            s.keys.add("key:" + reply.key)
        if reply.raw:
            s.keys.add("raw:" + reply.raw)
        return reply


def _round_trip(conn: Any, command: str, body: dict[str, Any],
                limit: float | None) -> tuple[bool, Any]:
    try:
        conn.send((command, body))
        if not conn.poll(limit):
            return False, "late"
        return True, conn.recv()
    except (EOFError, OSError, BrokenPipeError):
        return False, "dead"
