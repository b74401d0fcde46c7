"""A request body as the command line it stands for (docs/service.md, "Requests").

One code path for the CLI and the service: the body's fields become the argument list of `tmg
COMMAND`, parsed by the command's own parser (`tmg.cli.build_parser`), so every option keeps its
type, its range and its message. Names: a positional argument by its name in `tmg COMMAND
--help`, lower case (`a`, `b`, `unit`, `model`), the scenario FILE as `scenario`; an option by
its long name with `_` for `-` (`range`, `targets`, `leading`); a flag as `true`/`false`; an
option taking several values as a list. `save: true` and `format` (render) are the service's
own. A scenario is a document (a JSON object, the same as a scenario file) or an official layout
or card name — never a path: no file is ever read for a request.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
from dataclasses import dataclass
from typing import Any

from geom.errors import TmgError
from tmg.cli import Parser

BODY = "request body"
# the fields the service itself reads, besides the command's own
SERVICE_FIELDS = {"key", "save", "format", "timeout"}
SCENARIO_SLOTS = {"file": "scenario", "before": "before", "after": "after"}
HIDDEN = {"help", "json", "output", "save", "command", "timeout"}


class RequestError(TmgError):
    """Bad input of a request (a 4xx); `status` 422 unless said otherwise."""

    def __init__(self, message: str, *, obj: str | None = BODY, field: str | None = None,
                 status: int = 422) -> None:
        super().__init__(message, obj=obj, field=field)
        self.status = status


@dataclass(frozen=True)
class Slot:
    """A body field and the argparse action it fills (`append`: added with action="append",
    a repeatable option)."""
    field: str
    action: argparse.Action
    append: bool = False

    @property
    def positional(self) -> bool:
        return not self.action.option_strings

    @property
    def flag(self) -> bool:
        return self.action.nargs == 0

    @property
    def scenario(self) -> bool:
        return self.positional and self.action.dest in SCENARIO_SLOTS


def field_name(action: argparse.Action) -> str:
    if not action.option_strings:
        return SCENARIO_SLOTS.get(action.dest, action.dest.lower())
    longest = max(action.option_strings, key=len)
    return longest.lstrip("-").replace("-", "_")


def slots(sub: Parser) -> list[Slot]:
    """The body fields of a command, in the parser's order."""
    return [Slot(field_name(a.action), a.action, a.kind == "append") for a in sub.arguments
            if a.action.dest not in HIDDEN and a.action.dest != argparse.SUPPRESS]


def takes_option(sub: Parser, option: str) -> bool:
    """Has the command's parser the option `option` (e.g. "--timeout")?"""
    return any(option in a.action.option_strings for a in sub.arguments)


def _word(field: str, v: Any) -> str:
    if isinstance(v, bool) or v is None or isinstance(v, dict | list):
        raise RequestError(f"expected a string or a number, got {type(v).__name__}",
                           field=field)
    if isinstance(v, float):
        return repr(v)
    return str(v)


def argv_for(command: str, sub: Parser, body: dict[str, Any],
             scenario_names: dict[str, str], fixed: tuple[str, ...] = ()) -> list[str]:
    """The command line of `body`: `scenario_names[field]` stands for each scenario field;
    `fixed`: options the service sets itself."""
    known = slots(sub)
    names = {s.field for s in known} | SERVICE_FIELDS
    for k in body:
        if k not in names:
            raise RequestError(f"unknown field for /{command} (fields: "
                               f"{', '.join(sorted(names))})", field=k)
    positional: list[str] = []
    options: list[str] = []
    for s in known:
        if s.scenario:
            if s.field not in scenario_names:
                raise RequestError("missing (a scenario document or an official layout or card "
                                   "name)", field=s.field)
            positional.append(scenario_names[s.field])
            continue
        if s.field not in body or body[s.field] is None:
            if s.positional and s.action.nargs not in ("?", "*"):
                raise RequestError("missing", field=s.field)
            continue
        v = body[s.field]
        opt = max(s.action.option_strings, key=len) if s.action.option_strings else ""
        if s.flag:
            if not isinstance(v, bool):
                raise RequestError(f"expected true or false, got {type(v).__name__}",
                                   field=s.field)
            if v:
                options.append(opt)
            continue
        append = s.append
        many = append or s.action.nargs in ("+", "*") or isinstance(s.action.nargs, int)
        if isinstance(v, list) and not many and "," in str(s.action.metavar or ""):
            v = ",".join(_word(s.field, x) for x in v)  # T1[,T2...] as a list
        if append and s.action.nargs not in (None, "?"):  # --los A B, repeated: [[A, B], …]
            groups = v if isinstance(v, list) and all(isinstance(g, list) for g in v) else [v]
            for g in groups:
                options += [opt, *(_word(s.field, x) for x in (g if isinstance(g, list)
                                                               else [g]))]
            continue
        if many:
            values = v if isinstance(v, list) else [v]
            words = [_word(s.field, x) for x in values]
            if s.positional:
                positional += words
            elif append:
                options += [f"{opt}={w}" for w in words]
            else:
                options += [opt, *words]
        elif s.positional:
            positional.append(_word(s.field, v))
        else:
            options.append(f"{opt}={_word(s.field, v)}")
    if body.get("timeout") is not None:
        if not takes_option(sub, "--timeout"):
            raise RequestError(f"/{command} takes no time budget", field="timeout")
        options.append(f"--timeout={_word('timeout', body['timeout'])}")
    options += ["--json", *fixed]
    return [command, *options, "--", *positional] if positional else [command, *options]


_ARGUMENT = re.compile(r"argument (--?[\w-]+|[A-Z/_]+)")


def parse(parser: argparse.ArgumentParser, sub: Parser,
          argv: list[str]) -> argparse.Namespace:
    """`argv` parsed by the command's parser; a usage error is a RequestError naming the field."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            return parser.parse_args(argv)
    except SystemExit:
        message = err.getvalue().strip()
        message = re.sub(r"^tmg [\w-]+: error: ", "", message)
        message = re.sub(r" \(see 'tmg [\w-]+ -h'\)$", "", message)
        field = None
        m = _ARGUMENT.search(message)
        if m:
            word = m.group(1)
            for s in slots(sub):
                if word in s.action.option_strings or word == s.action.metavar \
                        or word == s.action.dest:
                    field = s.field
        raise RequestError(message or "bad arguments", field=field) from None
