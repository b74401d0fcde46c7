"""`tmg`: the one command-line entry point (INTERFACE.md "Commands").

Each subcommand lives in its own module under `tmg.commands` and exposes `register(sub)`,
which adds its parser and sets `run` (args -> JSON-able dict) and `text` (dict -> str).
Exit status is 0 whatever the verdict, 2 for bad input (one message on stderr), never a
traceback for anything a user can cause.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import pkgutil
import sys
from collections.abc import Sequence
from typing import Any

from geom.errors import TmgError

from . import commands


def jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [jsonable(v) for v in x]
    if isinstance(x, float):
        if math.isinf(x) or math.isnan(x):
            return None
        return round(x, 6)
    return x


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tmg", description="Geometry and line of sight for StarCraft: TMG tables.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{commands.__name__}.{info.name}")
        p = mod.register(sub)
        p.add_argument("--json", action="store_true", help="print the answer as JSON")
    return parser




def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        result = args.run(args)
        out = jsonable(result) if args.json else args.text(result)
    except TmgError as exc:
        print(f"tmg {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=2))
    elif out:
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
