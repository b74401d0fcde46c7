"""`tmg`: the one command-line entry point (docs/interface.md, "Commands").

`tmg.commands.COMMANDS` lists every subcommand with its module and one-line help; only the
chosen command's module is imported (`tmg --help` imports none), so the answer starts quickly.

Exit status (docs/interface.md, "Exit status"):
- 0: an answer, whatever the verdict (also `tmg` alone, which prints the help);
- 2: bad input — a file, an option or a reference — one line on stderr naming the file, the
  object and the field, also for a misused option (`tmg los: error: …`);
- 3: no answer within the time budget (`--timeout SECONDS`, default 60, 3600 for `tmg survey`;
  0 for none);
- 1: a fault of the engine itself, one line (`TMG_DEBUG=1` shows the traceback).
Never a traceback for anything a user can cause; `--json` output is always valid JSON.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from geom.errors import TmgError

from .budget import BATCH_TIMEOUT, DEFAULT_TIMEOUT, BudgetExceeded, time_budget
from .commands import BATCH, COMMANDS, INTERACTIVE
from .output import jsonable, one_line, printable, to_json

__all__ = ["Argument", "Parser", "build_parser", "jsonable", "main", "one_line"]


@dataclass(frozen=True)
class Argument:
    """One argument of a parser as it was added: its argparse `Action` and the `action=`
    keyword it was added with ("store" when none was given; a class for a custom action)."""

    action: argparse.Action
    kind: Any = "store"


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error reported on one line naming the (sub)command, exit 2, and
    a record of what it was built with, which the service reads (argparse keeps no public one):
    `arguments`, every argument in the order added (its groups' included), and `commands`,
    the full parsers of the subcommands built (`build_parser`), by name."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        self.arguments: list[Argument] = []  # before argparse's own -h is added
        self.commands: dict[str, Parser] = {}
        self.built = False
        super().__init__(*args, **kw)
        self.built = True  # the groups argparse makes for itself are not wrapped

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {one_line(message)} (see '{self.prog} -h')\n")

    def add_argument(self, *args: Any, **kw: Any) -> argparse.Action:
        action = super().add_argument(*args, **kw)
        self.arguments.append(Argument(action, kw.get("action", "store")))
        return action

    def add_argument_group(self, *args: Any, **kw: Any) -> Any:
        group = super().add_argument_group(*args, **kw)
        return Group(group, self.arguments) if self.built else group

    def add_mutually_exclusive_group(self, **kw: Any) -> Any:
        return Group(super().add_mutually_exclusive_group(**kw), self.arguments)


class Group:
    """An argument group (or a mutually exclusive one) of a `Parser`: its arguments are
    recorded in the parser's `arguments` too."""

    def __init__(self, group: Any, record: list[Argument]) -> None:
        self.group = group
        self.record = record

    def add_argument(self, *args: Any, **kw: Any) -> argparse.Action:
        action: argparse.Action = self.group.add_argument(*args, **kw)
        self.record.append(Argument(action, kw.get("action", "store")))
        return action

    def add_mutually_exclusive_group(self, **kw: Any) -> Group:
        return Group(self.group.add_mutually_exclusive_group(**kw), self.record)


class _Version(argparse.Action):
    """`--version`, looked up only when asked for (package metadata is slow to import)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 **kw: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit", **kw)

    def __call__(self, parser: argparse.ArgumentParser, *a: Any, **k: Any) -> None:
        print(f"tmg {version()}")
        parser.exit(0)


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version
    try:
        return dist_version("tmg-geometry")
    except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
        return "unknown (not installed)"


def timeout_arg(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not 0 <= v <= 86400:
        raise argparse.ArgumentTypeError(f"expected 0 to 86400 seconds, got {text!r}")
    return v


def build_parser(commands: Sequence[str] | None = None) -> Parser:
    """The parser, with full parsers for `commands` (all when None; in its `commands`) and
    one-line entries for the rest (enough for `tmg --help` and for naming an unknown
    command)."""
    parser = Parser(prog="tmg", description="Geometry and line of sight for StarCraft: TMG "
                    "tables. Exit status: 0 an answer, 2 bad input, 3 over the time budget, "
                    "1 a fault of the engine.")
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, (module, help_) in COMMANDS.items():
        if commands is not None and name not in commands:
            sub.add_parser(name, help=help_, add_help=False)
            continue
        mod = importlib.import_module(f"{__package__}.commands.{module}")
        p = parser.commands[name] = mod.register(sub)
        p.add_argument("--json", action="store_true", help="print the answer as JSON")
        if name not in INTERACTIVE:
            budget = BATCH_TIMEOUT if name in BATCH else DEFAULT_TIMEOUT
            p.add_argument("--timeout", type=timeout_arg, default=budget,
                           metavar="SECONDS", help="stop with exit status 3 when no answer "
                           f"comes within this time (default {budget:g}; 0: no limit)")
    return parser


def _chosen(argv: Sequence[str]) -> str | None:
    """The subcommand named on the command line (top-level options take no values)."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = _chosen(argv)
    parser = build_parser([chosen] if chosen in COMMANDS else [])
    if not argv:
        parser.print_help()
        return 0
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # reported by the subcommand's parser, so the message names it
            sub = parser.commands.get(str(getattr(args, "command", "")), parser)
            sub.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # usage error (2), --help or --version (0)
        return exc.code if isinstance(exc.code, int) else 2
    if not getattr(args, "command", None):
        parser.print_help()
        return 0
    where = f"tmg {args.command}"
    budget = getattr(args, "timeout", None)
    try:
        with time_budget(budget):
            result = args.run(args)
            text = to_json(result) if args.json else printable(args.text(result))
    except TmgError as exc:
        print(f"{where}: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except BudgetExceeded:
        print(f"{where}: no answer within the time budget of {budget:g} s (the question is "
              "too large for it; give more with --timeout SECONDS, 0 for no limit)",
              file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 130
    except RecursionError:
        print(f"{where}: internal error (RecursionError: the input nests too deep for the "
              "engine); please report it with the command and the file", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug in the engine, not the user's doing: one line, no traceback
        if os.environ.get("TMG_DEBUG"):
            raise
        print(f"{where}: internal error ({type(exc).__name__}: {one_line(str(exc), 200)}); "
              "please report it with the command and the file (TMG_DEBUG=1 shows the "
              "traceback)", file=sys.stderr)
        return 1
    if text:
        try:
            print(text)
            sys.stdout.flush()
        except BrokenPipeError:  # `tmg … | head`: the reader left; that is not an error
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
