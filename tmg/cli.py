"""`tmg`: the one command-line entry point (INTERFACE.md "Commands").

Each subcommand lives in its own module under `tmg.commands` and exposes `register(sub)`,
which adds its parser and sets `run` (args -> JSON-able dict) and `text` (dict -> str).
Exit status is 0 whatever the verdict, 2 for bad input (one message on stderr, also for a
misused option), never a traceback for anything a user can cause. A fault of the engine itself
ends with one line and exit status 1 (`TMG_DEBUG=1` shows the traceback).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import pkgutil
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

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


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error reported on one line (exit status 2, as bad input)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} -h)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="tmg", description="Geometry and line of sight for StarCraft: TMG tables.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
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
        print(f"tmg {args.command}: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug in the engine, not the user's doing: one line, no traceback
        if os.environ.get("TMG_DEBUG"):
            raise
        print(f"tmg {args.command}: internal error ({type(exc).__name__}: "
              f"{one_line(str(exc))}); please report it with the command and the file "
              "(TMG_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 1
    text = json.dumps(out, ensure_ascii=False, indent=2) if args.json else out
    if text:
        try:
            print(text)
            sys.stdout.flush()
        except BrokenPipeError:  # `tmg … | head`: the reader left; that is not an error
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
    return 0


def one_line(message: str) -> str:
    """Messages go to stderr as one line (a file name or a parser's text may hold newlines)."""
    return " ".join(message.split("\n"))


if __name__ == "__main__":
    sys.exit(main())
