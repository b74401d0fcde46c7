"""The service's OpenAPI 3.1 description: one POST route per command, its body's fields read
from the command's own parser (`service.request.slots`), and the scenario format as JSON Schema
(`service/scenario.schema.json`, `components.schemas.Scenario`; tests/test_service_schema.py
checks it accepts what the loader accepts on every example and on the fuzz corpus)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from functools import cache
from importlib import resources
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import Response

from tmg.cli import Parser, build_parser
from tmg.commands import about

from . import request as rq
from .worker import PICTURE_TYPES, served_commands

ERROR = {"type": "object", "required": ["error"], "properties": {"error": {
    "type": "object", "required": ["object", "field", "message"],
    "properties": {"object": {"type": ["string", "null"]}, "field": {"type": ["string", "null"]},
                   "message": {"type": "string"}}}}}
STATUSES = {"400": "malformed JSON", "401": "no or a wrong bearer token", "404":
            "no such endpoint, or an unknown table key (send the document)", "413":
            "the body is over the size limit", "422": "bad input: the object and field named",
            "503": "no answer within the time budget", "500": "a fault of the engine"}


@cache
def scenario_schema() -> dict[str, Any]:
    text = resources.files("service").joinpath("scenario.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _value_schema(s: rq.Slot) -> dict[str, Any]:
    a = s.action
    help_ = (a.help or "").replace("%%", "%")
    if s.scenario:
        return {"description": "a scenario document, or an official layout or deployment card "
                "name (`tmg layouts`)", "oneOf": [{"type": "string"},
                                                  {"$ref": "#/components/schemas/Scenario"}]}
    if s.flag:
        return {"type": "boolean", "description": help_}
    word = {"type": ["string", "number"]}
    if a.choices:
        word = {"enum": list(a.choices)}
    append = s.append
    if append and a.nargs not in (None, "?"):
        return {"type": "array", "items": {"type": "array", "items": word}, "description": help_}
    if append or a.nargs in ("+", "*") or isinstance(a.nargs, int):
        return {"type": "array", "items": word, "description": help_}
    if "," in str(a.metavar or ""):
        return {"oneOf": [word, {"type": "array", "items": word}], "description": help_}
    return {**word, "description": help_}


def body_schema(command: str, sub: Parser) -> dict[str, Any]:
    props: dict[str, Any] = {}
    required: list[str] = []
    for s in rq.slots(sub):
        props[s.field] = _value_schema(s)
        if s.positional and not s.scenario and s.action.nargs not in ("?", "*"):
            required.append(s.field)
    scen = [s.field for s in rq.slots(sub) if s.scenario]
    if "scenario" in scen:
        props["key"] = {"type": "string", "description": "the X-Table-Key of an earlier answer, "
                        "instead of `scenario`"}
    if rq.takes_option(sub, "--timeout"):
        props["timeout"] = {"type": "number", "minimum": 0, "maximum": 86400,
                            "description": "the time budget in seconds (0: none)"}
    if any(a.action.dest == "save" for a in sub.arguments):
        props["save"] = {"type": "boolean", "description": "answer the table the action leaves "
                         "as `saved_document` (nothing is written)"}
    if command == "render":
        props["format"] = {"enum": list(PICTURE_TYPES), "default": "svg"}
    out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    need = [s for s in scen if s != "scenario"]
    if "scenario" in scen:
        out["anyOf"] = [{"required": ["scenario"]}, {"required": ["key"]}]
    if required or need:
        out["required"] = required + need
    return out


def add_command_routes(app: FastAPI,
                       answer: Callable[[str, Request], Awaitable[Response]]) -> None:
    commands = served_commands()
    parsers = build_parser(commands).commands
    for c in commands:
        ok: dict[str, Any] = {"description": "the JSON of `tmg " + c + " --json`, plus `text`",
                              "content": {"application/json": {"schema": {"type": "object"}}}}
        if c == "render":
            ok = {"description": "the picture", "content": {
                t: {"schema": {"type": "string", "format": "binary"}}
                for t in PICTURE_TYPES.values()}}
        responses: dict[str, Any] = {"200": ok} | {
            k: {"description": v, "content": {"application/json": {"schema": ERROR}}}
            for k, v in STATUSES.items()}

        async def handler(request: Request, _c: str = c) -> Response:
            return await answer(_c, request)

        app.add_api_route(f"/{c}", handler, methods=["POST"], summary=about(c),
                          operation_id=c.replace("-", "_"), include_in_schema=True,
                          openapi_extra={"requestBody": {"required": True, "content": {
                              "application/json": {"schema": body_schema(c, parsers[c])}}},
                              "responses": responses})


def install_openapi(app: FastAPI) -> None:
    plain = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            doc = plain()
            schema = dict(scenario_schema())
            schema.pop("$schema", None)
            schema.pop("$id", None)
            doc.setdefault("components", {}).setdefault("schemas", {})["Scenario"] = schema
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
