"""`tmg serve [--host 127.0.0.1] [--port 8765] [--workers N] [--cache N] [--token T]
[--cors ORIGIN] [--public-url URL] [--max-body BYTES]`: the engine as an HTTP service
(docs/service.md; the app is `service.app.create_app`). Loopback by default; it runs until
stopped (Ctrl-C), so it has no time budget of its own — each request has its command's.
"""

from __future__ import annotations

import argparse
from typing import Any

from geom.errors import TmgError
from service.app import Settings, create_app

from . import about


def _count(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return v


def register(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("serve", help=about("serve"))
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=_count, default=8765, help="port (default 8765; 0: any free)")
    p.add_argument("--workers", type=_count, default=1,
                   help="compute processes, each with its own warm tables (default 1)")
    p.add_argument("--cache", type=_count, default=64,
                   help="warm tables kept per worker (default 64)")
    p.add_argument("--token", help="require 'Authorization: Bearer TOKEN' on every request "
                   "that asks a question (POST)")
    p.add_argument("--cors", metavar="ORIGIN",
                   help="let pages from ORIGIN call the API from a browser (off by default)")
    p.add_argument("--public-url", metavar="URL",
                   help="the address clients reach this server at (the web view's share links)")
    p.add_argument("--max-body", type=_count, default=1_000_000, metavar="BYTES",
                   help="largest request body accepted (default 1000000)")
    p.set_defaults(run=run, text=text)
    return p


def run(args: argparse.Namespace) -> dict[str, Any]:
    try:
        import uvicorn
    except ImportError:
        raise TmgError("tmg serve needs FastAPI and uvicorn: pip install 'tmg-geometry[serve]'"
                       ) from None
    if not 1 <= args.workers <= 64:
        raise TmgError(f"--workers must be 1 to 64, got {args.workers}")
    if args.port > 65535:
        raise TmgError(f"--port must be at most 65535, got {args.port}")
    settings = Settings(workers=args.workers, cache=args.cache, token=args.token,
                        cors=args.cors, public_url=args.public_url, max_body=args.max_body)
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="warning",
                access_log=False)
    return {"stopped": True, "host": args.host, "port": args.port}


def text(r: dict[str, Any]) -> str:
    return f"stopped serving on {r['host']}:{r['port']}"
