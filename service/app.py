"""The HTTP app of `tmg serve` (docs/service.md; docs/interface.md, "The service").

API facts (for clients and for the web view, web/):
- `POST /COMMAND` for every command but `survey`, `view` and `serve`, a JSON object body:
  `scenario` — a scenario document (the same as a scenario file, as JSON) or an official layout
  or deployment card name; or `key` — the `X-Table-Key` of an earlier answer, for a table the
  server holds warm (404 if it does not: send the document again). `/check` takes `before` and
  `after` instead. The positional arguments by their lower-case names in `tmg COMMAND --help`
  (`a`, `b`, `unit`, `model`), options by their long names with `_` for `-` (`range`,
  `targets`, `allowance`, `to`), flags as true/false, repeated options (render's `los`) as a
  list of lists; `timeout` (seconds, 0: none) for the command's `--timeout`; `save: true`
  for the table the action leaves (`saved_document`, nothing written).
- 200: exactly the JSON of `tmg COMMAND --json`, plus `text` (the sentence without `--json`);
  header `X-Table-Key`. `/render`: the picture's bytes (`format`: "svg" default, or "png"),
  headers `X-Picture-Width`/`-Height`.
- Errors: `{"error": {"object", "field", "message"}}` — 400 malformed JSON, 401 no/wrong bearer
  token (`--token`), 404 unknown endpoint or key, 413 body over the limit (1 MB default),
  422 bad input (the object and field named), 503 past the time budget, 500 a fault of the
  engine.
- `GET /meta`: engine version, scenario format, `public_url`, whether a token is needed, the
  endpoints. `GET /openapi.json`: OpenAPI 3.1, the scenario format as JSON Schema
  (`components.schemas.Scenario`). GET requests are open (the page must load); every POST
  needs the token when one is set. `app.state.settings` holds the `Settings`.
"""

from __future__ import annotations

import hmac
import json
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

import web
from scenario.load import FORMAT
from tmg.cli import version

from .openapi import add_command_routes, install_openapi
from .pool import Pool
from .tables import raw_hash
from .worker import Reply, served_commands

MAX_BODY = 1_000_000  # bytes


@dataclass(frozen=True)
class Settings:
    workers: int = 1
    cache: int = 64
    token: str | None = None
    cors: str | None = None
    public_url: str | None = None
    max_body: int = MAX_BODY


def error_response(status: int, message: str, obj: str | None = "request body",
                   field: str | None = None, headers: dict[str, str] | None = None
                   ) -> JSONResponse:
    return JSONResponse({"error": {"object": obj, "field": field, "message": message}},
                        status_code=status, headers=headers)


def to_response(reply: Reply) -> Response:
    if isinstance(reply.body, bytes):
        return Response(reply.body, status_code=reply.status, media_type=reply.media,
                        headers=reply.headers)
    return JSONResponse(reply.body, status_code=reply.status, headers=reply.headers)


async def read_json(request: Request, limit: int) -> dict[str, Any] | JSONResponse:
    """The request's JSON object, or the error answer (413, 400, 422)."""
    size = request.headers.get("content-length")
    if size is not None and size.isdigit() and int(size) > limit:
        return error_response(413, f"the body is {int(size):,} bytes, more than the "
                              f"{limit:,} accepted")
    chunks: list[bytes] = []
    n = 0
    async for chunk in request.stream():
        n += len(chunk)
        if n > limit:
            return error_response(413, f"the body is more than the {limit:,} bytes accepted")
        chunks.append(chunk)
    try:
        body = json.loads(b"".join(chunks).decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        return error_response(400, f"not valid JSON: not UTF-8 text (byte {exc.start + 1})")
    except RecursionError:
        return error_response(400, "not valid JSON: nested too deep")
    except ValueError as exc:
        return error_response(400, f"not valid JSON: {exc}")
    if not isinstance(body, dict):
        return error_response(422, f"expected a JSON object, got {type(body).__name__}")
    return body


class BearerToken:
    """Every request but GET/HEAD/OPTIONS needs `Authorization: Bearer TOKEN` (401 JSON
    without it). A plain ASGI middleware: no per-request cost beyond the header's compare."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.want = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] not in ("GET", "HEAD", "OPTIONS"):
            given = dict(scope["headers"]).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.want):
                r = error_response(401, "this server wants a bearer token (header "
                                   "'Authorization: Bearer TOKEN')", obj=None,
                                   headers={"WWW-Authenticate": "Bearer"})
                await r(scope, receive, send)
                return
        await self.app(scope, receive, send)


def routing_hint(body: dict[str, Any]) -> str | None:
    if isinstance(body.get("key"), str) and "scenario" not in body:
        return "key:" + body["key"]
    if "scenario" in body:
        try:
            return "raw:" + raw_hash(body["scenario"], body.get("deployment"))
        except (TypeError, ValueError):
            return None
    return None


def create_app(settings: Settings | None = None, pool: Pool | None = None) -> FastAPI:
    """The app: `settings` as `tmg serve` parsed them; `pool` the compute workers (started with
    the app, ended with it)."""
    settings = settings or Settings()
    pool = pool or Pool(settings.workers, settings.cache)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        pool.start()
        try:
            yield
        finally:
            pool.close()


    app = FastAPI(title="tmg-geometry", version=version(), lifespan=lifespan,
                  description="Geometry and line of sight for StarCraft: TMG tables: every "
                  "`tmg` command as an endpoint (docs/service.md).")
    app.state.settings = settings
    app.state.pool = pool

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        what = "no such endpoint" if exc.status_code in (404, 405) else str(exc.detail)
        return error_response(exc.status_code, f"{what}: {request.method} {request.url.path}",
                              obj=None, headers=getattr(exc, "headers", None))

    if settings.token:
        app.add_middleware(BearerToken, token=settings.token)  # type: ignore[arg-type]

    if settings.cors:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=[settings.cors],
                           allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "Content-Type"],
                           expose_headers=["X-Table-Key", "X-Picture-Width",
                                           "X-Picture-Height"])

    @app.get("/meta")
    async def meta() -> dict[str, Any]:
        return {"engine": "tmg-geometry", "version": version(), "scenario_format": FORMAT,
                "public_url": settings.public_url, "token": bool(settings.token),
                "endpoints": [f"/{c}" for c in served_commands()],
                "max_body": settings.max_body, "workers": settings.workers,
                "cache": settings.cache}


    async def answer(command: str, request: Request) -> Response:
        body = await read_json(request, settings.max_body)
        if isinstance(body, Response):
            return body
        return to_response(await pool.ask(command, body, routing_hint(body)))

    add_command_routes(app, answer)
    install_openapi(app)
    app.include_router(web.router)
    return app
