"""One compute process of the service: it answers requests one at a time, in its main thread.

Why processes: the engine's prepared state (a battlefield's sight context, navigators, end sets,
filled lazily in plain dicts and shapely prepared geometries) is not written to be shared by
threads, and the time budget (`tmg.budget`, a real-time alarm) works only in a main thread. A
worker runs one request at a time, so a table is never used by two requests at once, and the
command runs exactly as under `tmg` (same parser, same `run`, same `text`, same budget). A
request still running a second after its budget (a long C call the alarm cannot break) is ended
by the front process, which starts a new worker (`service.pool`).

Statuses: 200 an answer; 404 an unknown command or key; 422 bad input (TmgError); 503 over the
time budget; 500 a fault of the engine (the CLI's exit 1).
"""

from __future__ import annotations

import argparse
import json
import signal
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any

import scenario
from geom.errors import TmgError
from maps import deployment_ids, layout_ids
from scenario import memory
from scenario.save import source_settings
from tmg.budget import BudgetExceeded, time_budget
from tmg.cli import Parser, build_parser
from tmg.commands import COMMANDS
from tmg.output import one_line, printable, to_json

from . import request as rq
from .tables import Table, Tables, canonical_key, raw_hash

# commands that are no endpoint: a batch job, a window, the server itself
NOT_SERVED = frozenset({"survey", "view", "serve"})
PICTURE_TYPES = {"svg": "image/svg+xml", "png": "image/png"}


@dataclass
class Reply:
    status: int
    body: Any  # a JSON value, or bytes (a picture)
    media: str = "application/json"
    key: str | None = None
    raw: str | None = None
    evicted: list[str] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)


def error(status: int, message: str, obj: str | None = None, fld: str | None = None) -> Reply:
    return Reply(status, {"error": {"object": obj, "field": fld, "message": message}})


def served_commands() -> list[str]:
    return [c for c in COMMANDS if c not in NOT_SERVED]


class Worker:
    """The parsers (built once per command) and the warm tables of one process."""

    def __init__(self, cache: int) -> None:
        self.tables = Tables(cache)
        # answers by (table key, command line): an answer depends on nothing else (the engine
        # keeps no state), so the same question on the same table is answered again as it was
        self.answers: OrderedDict[tuple[str, tuple[str, ...]], Reply] = OrderedDict()
        self.max_answers = 16 * cache
        self.parsers: dict[str, tuple[Parser, Parser]] = {}

    def parser(self, command: str) -> tuple[Parser, Parser]:
        if command not in self.parsers:
            p = build_parser([command])
            self.parsers[command] = (p, p.commands[command])
        return self.parsers[command]

    def answer(self, command: str, body: dict[str, Any]) -> Reply:
        """The reply to POST /command with `body`; never raises."""
        try:
            return self._answer(command, body)
        except rq.RequestError as exc:
            return error(exc.status, one_line(str(exc)), exc.obj, exc.field)
        except TmgError as exc:
            return error(422, one_line(str(exc)), exc.obj, exc.field)
        except BudgetExceeded as exc:
            return error(503, f"no answer within the time budget of {exc.seconds:g} s (the "
                         "question is too large for it; give more with \"timeout\", 0 for no "
                         "limit)", rq.BODY, "timeout")
        except RecursionError:
            return error(500, "internal error (RecursionError: the input nests too deep for "
                         "the engine); please report it with the request")
        except Exception as exc:  # a fault of the engine: JSON, never a traceback
            return error(500, f"internal error ({type(exc).__name__}: "
                         f"{one_line(str(exc), 200)}); please report it with the request")

    def _answer(self, command: str, body: dict[str, Any]) -> Reply:
        if command not in served_commands():
            raise rq.RequestError(f"no such endpoint /{command}", obj=None, status=404)
        parser, sub = self.parser(command)
        slots = {s.field for s in rq.slots(sub) if s.scenario}
        names: dict[str, str] = {}
        docs: dict[str, Any] = {}
        for f in slots:
            if f == "scenario" and body.get("key") is not None and f not in body:
                continue
            v = body.get(f)
            names[f], docs[f] = scenario_source(f, v)
        if "key" in body and "scenario" not in slots:
            raise rq.RequestError(f"/{command} takes no table key", field="key")
        key_table: Table | None = None
        if "scenario" in slots and "scenario" not in names and body.get("key") is not None:
            if not isinstance(body["key"], str):
                raise rq.RequestError("expected the key string of an answer", field="key")
            key_table = self.tables.get(body["key"])
            if key_table is None:
                raise rq.RequestError("unknown key: this table is not (or no longer) warm "
                                      "here; send the document as \"scenario\"", field="key",
                                      status=404)
            names["scenario"] = key_table.name
        dep = body.get("deployment")
        if isinstance(dep, str):
            official_names_only(rq.BODY, {"deployment": dep})
        fixed: tuple[str, ...] = ()
        if command == "render":
            fmt = body.get("format", "svg")
            if fmt not in PICTURE_TYPES:
                raise rq.RequestError(f"expected one of {', '.join(PICTURE_TYPES)}, got "
                                      f"{fmt!r}", field="format")
            fixed = (f"--output=picture.{fmt}",)
        argv = rq.argv_for(command, sub, body, names, fixed)
        args = rq.parse(parser, sub, argv)
        picture: dict[str, bytes] | None = None
        if command == "render":
            picture = args.picture = {}
        elif "format" in body:
            raise rq.RequestError(f"/{command} takes no format (only /render)", field="format")
        if body.get("save") is not None:
            if not isinstance(body["save"], bool):
                raise rq.RequestError("expected true or false", field="save")
            if not hasattr(args, "save"):
                raise rq.RequestError(f"/{command} saves no table", field="save")
            if body["save"]:
                args.save = "saved_document"
                args.saved_documents = {}
        held = {names[f]: memory.Held(docs.get(f)) for f in names if docs.get(f) is not None}
        reply_key = reply_raw = None
        evicted: list[str] = []
        if "scenario" in slots:
            deployment = getattr(args, "deployment", None)
            if key_table is not None:
                table = key_table
                reply_raw = None
            else:
                reply_raw = raw_hash(body["scenario"], deployment)
                table = self.tables.get_raw(reply_raw)  # type: ignore[assignment]
                if table is None:
                    table, evicted = self._build(names["scenario"], docs.get("scenario"),
                                                 deployment, reply_raw)
            held[table.name] = memory.Held(table.document, table.deployment, table.battlefield)
            reply_key = table.key
        # the question is the command line plus what the service sets itself (save)
        question = (*argv, f"save={bool(getattr(args, 'saved_documents', None) is not None)}")
        memo = (reply_key, question) if reply_key and command != "render" else None
        if memo is not None and memo in self.answers:
            self.answers.move_to_end(memo)
            known = self.answers[memo]
            return replace(known, raw=reply_raw, evicted=evicted,
                           headers={**known.headers, "X-Answer": "kept"})
        reply = self._run(args, command, held, reply_key, reply_raw, evicted, picture)
        if memo is not None and reply.status == 200 and self.max_answers:
            self.answers[memo] = reply
            while len(self.answers) > self.max_answers:
                self.answers.popitem(last=False)
        return reply

    def _run(self, args: argparse.Namespace, command: str, held: dict[str, memory.Held],
             reply_key: str | None, reply_raw: str | None, evicted: list[str],
             picture: dict[str, bytes] | None) -> Reply:
        """Run the command as `tmg` does: its `run` and `text` under its time budget."""
        t0 = time.perf_counter()
        with memory.held(held), time_budget(getattr(args, "timeout", None)):
            result = args.run(args)
            text = args.text(result)
        out = json.loads(to_json(result, indent=None))
        headers = {"X-Table-Key": reply_key} if reply_key else {}
        headers["Server-Timing"] = f"compute;dur={(time.perf_counter() - t0) * 1e3:.2f}"
        if picture is not None:
            fmt = args.output.rsplit(".", 1)[1]
            headers |= {"X-Picture-Width": str(out["width"]),
                        "X-Picture-Height": str(out["height"])}
            return Reply(200, picture["." + fmt], PICTURE_TYPES[fmt], reply_key, reply_raw,
                         evicted, headers)
        if isinstance(out, dict):
            out["text"] = printable(text)
            kept = getattr(args, "saved_documents", None)
            if kept is not None:
                # the document as --save writes it: full precision (no rounding of answers)
                out["saved_document"] = kept.get("saved_document")
        return Reply(200, out, key=reply_key, raw=reply_raw, evicted=evicted, headers=headers)

    def _build(self, name: str, doc: Any, deployment: str | None,
               raw: str) -> tuple[Table, list[str]]:
        """Load the table as the CLI does (same loader, same messages) and keep it warm."""
        held = {name: memory.Held(doc)} if doc is not None else {}
        with memory.held(held):
            bf = scenario.load(name, deployment)
            _, extra = source_settings(name)
        table = Table(canonical_key(bf, extra), name, doc, deployment, bf)
        return table, self.tables.put(raw, table)


def scenario_source(f: str, v: Any) -> tuple[str, Any]:
    """The FILE name a command sees for scenario field `f`, and the document held under it
    (None for an official name, which the loader knows)."""
    if isinstance(v, dict):
        official_names_only(f"{rq.BODY}, {f}", v.get("table"))
        return f"{rq.BODY}, {f}", v
    if isinstance(v, str):
        if v in layout_ids() or v in deployment_ids():
            return v, None
        raise rq.RequestError(f"{v!r} is not an official layout or deployment card name (a "
                              "scenario is sent as a JSON document; no file is read)", field=f)
    if v is None:
        raise rq.RequestError("missing (a scenario document or an official layout or card "
                              "name)", field=f)
    raise rq.RequestError(f"expected a scenario document (an object) or an official name, got "
                          f"{type(v).__name__}", field=f)


def official_names_only(where: str, table: Any) -> None:
    """A document's `layout` and `deployment` must be official names: the request layer says so
    itself, so that no name is ever looked up as a path (`layout = "../../x"`)."""
    if not isinstance(table, dict):
        return
    for fld, known in (("layout", layout_ids), ("deployment", deployment_ids)):
        v = table.get(fld)
        if isinstance(v, str) and v not in known():
            raise rq.RequestError(f"{where}: {v!r} is not an official {fld} name (known: "
                                  f"{', '.join(known())})", obj="table", field=fld)


def main(conn: Any, cache: int) -> None:
    """The worker's loop: (command, body) in, a Reply out, until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the front process decides when to stop
    worker = Worker(cache)
    while True:
        try:
            command, body = conn.recv()
        except (EOFError, OSError):
            return
        conn.send(worker.answer(command, body))
