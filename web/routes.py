"""The judge's web view's routes, included in the `tmg serve` app (service/): the page at
`/`, its own script and styles, and the few things the page needs beyond the commands'
endpoints — a scenario file (TOML or JSON) turned into the canonical document, a link's QR code
as SVG, and tables shared by key (web.share).

Every answer the page shows comes from the service's command endpoints (`/los`, `/move`, …);
nothing here answers a rules question. No file-system path is ever taken from a request: the
static files are a fixed list shipped in the package.
"""

from __future__ import annotations

import json
import tomllib
from functools import cache
from importlib import resources
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

import scenario
from geom.errors import TmgError
from maps import layout_ids
from scenario.save import document

from .share import QR_MAX_VERSION, ShareStore, decode_fragment

router = APIRouter(tags=["web"])
STATIC = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"}
MAX_TEXT = 1_000_000
_store = ShareStore()


@cache
def engine_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tmg-geometry")
    except PackageNotFoundError:
        return "unknown"


@cache
def _static(name: str) -> bytes:
    return resources.files("web").joinpath("static", name).read_bytes()


def _settings(request: Request) -> tuple[str, bool]:
    """The server's public address (`--public-url`) and whether it wants a bearer token."""
    s = getattr(request.app.state, "settings", None)
    public = getattr(s, "public_url", None) or str(request.base_url)
    return public.rstrip("/") + "/", bool(getattr(s, "token", None))


class _NotJSON(TmgError):
    """A body that is not a JSON object: 400, as the service answers it (docs/service.md)."""


def _error(exc: TmgError) -> JSONResponse:
    """The service's error answer: 400 for a body that is not JSON, 422 for bad input."""
    return JSONResponse({"error": {"object": exc.obj or exc.file, "field": exc.field,
                                   "message": str(exc)}},
                        status_code=400 if isinstance(exc, _NotJSON) else 422)


async def _body(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body())
    except (ValueError, UnicodeDecodeError):
        raise _NotJSON("the request body is not JSON", obj="request") from None
    if not isinstance(body, dict):
        raise TmgError("the request body must be a JSON object", obj="request")
    return body


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def page(request: Request) -> HTMLResponse:
    public, token = _settings(request)
    config = {"version": engine_version(), "format": scenario.FORMAT, "public_url": public,
              "token_required": token, "qr_max_version": QR_MAX_VERSION}
    html = _static("index.html").decode().replace(
        "{{CONFIG}}", json.dumps(config).replace("</", "<\\/"))
    return HTMLResponse(html, headers={"Cache-Control": "no-cache"})


@router.get("/web/static/{name}", include_in_schema=False)
def static(name: str) -> Response:
    if name not in STATIC:
        return JSONResponse({"error": {"object": "web/static", "field": None,
                                       "message": f"no static file {name!r}"}}, 404)
    return Response(_static(name), media_type=STATIC[name],
                    headers={"Cache-Control": "no-cache"})


def parse_text(text: str, filename: str) -> Any:
    """A scenario file's text (as the page read it) as a document, by its extension."""
    kind = filename.lower().rsplit(".", 1)[-1] if "." in filename else ""
    if kind not in ("toml", "json"):
        raise TmgError("unknown file type (use .toml or .json)", file=filename)
    if len(text) > MAX_TEXT:
        raise TmgError(f"the file is more than the {MAX_TEXT:,} characters accepted",
                       file=filename)
    try:
        return json.loads(text) if kind == "json" else tomllib.loads(text.lstrip("\ufeff"))
    except RecursionError:
        raise TmgError(f"not valid {kind.upper()}: nested too deep", file=filename) from None
    except ValueError as exc:
        raise TmgError(f"not valid {kind.upper()}: {exc}", file=filename) from None


def canonical(body: dict[str, Any]) -> dict[str, Any]:
    """The canonical document of `scenario` (a document or an official name, with
    `deployment`), of `file` ({name, text}) or of `t` (a link's fragment): loaded and checked
    like any scenario, then written back (scenario.save.document) with the layout by name."""
    shared: dict[str, Any] = {}
    name = "scenario"
    if "file" in body:
        f = body["file"]
        if not (isinstance(f, dict) and isinstance(f.get("name"), str)
                and isinstance(f.get("text"), str)):
            raise TmgError("expected {name, text}", obj="request", field="file")
        name = f["name"].rsplit("/", 1)[-1] or "scenario"
        doc = parse_text(f["text"], name)
    elif "t" in body:
        shared = decode_fragment(str(body["t"]))
        doc, name = shared["doc"], "shared link"
    elif "k" in body:
        try:
            doc, name = _store.get(str(body["k"])), "shared link"
        except KeyError:
            return {"missing": True}
    elif isinstance(body.get("scenario"), str):
        deployment = body.get("deployment") or None
        if not scenario.is_official_name(body["scenario"]) or (
                deployment is not None and not scenario.is_official_name(str(deployment))):
            raise TmgError("not an official layout or card name", obj="request",
                           field="scenario")
        try:
            doc = scenario.document(body["scenario"], deployment)
        except TmgError as exc:  # name the request's field, as the command endpoints do
            raise TmgError(exc.detail, obj="request", field="scenario") from None
        name = body["scenario"]
    elif isinstance(body.get("scenario"), dict):
        doc = body["scenario"]
    else:
        raise TmgError("give scenario, file, t or k", obj="request")
    bf = scenario.parse_document(doc, name)
    table = doc.get("table") if isinstance(doc, dict) else None
    layout = table.get("layout") if isinstance(table, dict) else None
    extra = {k: doc[k] for k in ("description", "templates") if k in doc}
    out = document(bf, layout=layout if layout in layout_ids() else None, extra=extra)
    answer: dict[str, Any] = {"document": out, "version": engine_version()}
    if shared:
        answer["link_version"] = shared.get("v")
    return answer


@router.post("/web/document")
async def web_document(request: Request) -> Response:
    """The canonical scenario document the page keeps as its table (see `canonical`)."""
    try:
        out = canonical(await _body(request))
    except TmgError as exc:
        return _error(exc)
    if out.get("missing"):
        return JSONResponse({"error": {"object": "k", "field": None, "message":
                                       "this shared table is no longer on the server: ask "
                                       "for the file or a #t= link"}}, 404)
    return JSONResponse(out)


@router.post("/web/share")
async def web_share(request: Request) -> Response:
    """Keep a table on the server and answer its key (for a link too long for a QR code)."""
    try:
        body = await _body(request)
        out = canonical({"scenario": body.get("document")})
    except TmgError as exc:
        return _error(exc)
    return JSONResponse({"key": _store.put(out["document"])})


@router.post("/web/qr")
async def web_qr(request: Request) -> Response:
    """The QR code of a link, as SVG (segno); 413 when it needs more than QR_MAX_VERSION."""
    import segno

    try:
        body = await _body(request)
        url = body.get("url")
        if not isinstance(url, str) or not url:
            raise TmgError("expected the link as a string", obj="request", field="url")
    except TmgError as exc:
        return _error(exc)
    try:
        qr = segno.make(url, error="l", micro=False)
    except segno.DataOverflowError:
        qr = None
    # micro=False: the version is an int (micro codes have "M1"…)
    if qr is None or not isinstance(qr.version, int) or qr.version > QR_MAX_VERSION:
        return JSONResponse({"error": {"object": "request", "field": "url", "message":
                                       f"the link is too long for a QR code of version "
                                       f"{QR_MAX_VERSION} or less: share it by key"}}, 413)
    import io

    buf = io.BytesIO()
    qr.save(buf, kind="svg", scale=4, border=4, xmldecl=False, svgns=True)
    return Response(buf.getvalue(), media_type="image/svg+xml",
                    headers={"X-QR-Version": str(qr.version)})
