"""A real `tmg serve` on a free loopback port, for the service's tests and its benchmark."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running_server(*options: str, start_timeout: float = 90.0) -> Iterator[str]:
    """`tmg serve --host 127.0.0.1 --port P OPTIONS…` as a subprocess; yields its base URL."""
    with server_process(*options, start_timeout=start_timeout) as (url, _):
        yield url


@contextmanager
def server_process(*options: str, start_timeout: float = 90.0
                   ) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """As `running_server`, yielding the base URL and the process."""
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "tmg", "serve", "--host", "127.0.0.1",
                             "--port", str(port), *options],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"tmg serve ended: {proc.stdout.read().decode()}"
                                   if proc.stdout else "tmg serve ended")
            try:
                if httpx.get(url + "/meta", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("tmg serve did not start")
            time.sleep(0.2)
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def stubborn_worker(conn: object, cache: int) -> None:
    """A worker whose answer never comes and whose alarm never rings (a long C call, as far
    as the front process can tell): only ending the process stops it."""
    import signal

    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM, signal.SIGINT})
    conn.recv()  # type: ignore[attr-defined]
    time.sleep(600)
