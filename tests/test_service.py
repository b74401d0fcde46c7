"""`tmg serve` (docs/service.md), tested on the real server: a `tmg serve` subprocess on a free
loopback port, asked over HTTP (httpx). Every answer must equal what `tmg COMMAND --json`
prints for the same question (one code path), plus the command's text."""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import httpx
import pytest

import scenario
from geom.errors import TmgError
from service import request as rq
from tests import _fuzz
from tests._service import running_server
from tmg.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))
NOT_ASKED = {"survey", "view", "serve", "render"}  # render: compared as pictures below


@pytest.fixture(scope="module")
def server() -> Any:
    with running_server("--workers", "2", "--cache", "8") as url:
        yield url


@pytest.fixture(scope="module")
def guarded() -> Any:
    with running_server("--workers", "1", "--token", "s3cret", "--cors",
                        "https://app.example", "--max-body", "5000") as url:
        yield url


def readme_commands() -> list[list[str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    out = []
    for line in text.splitlines():
        if not line.startswith("tmg "):
            continue
        argv = shlex.split(line.split("#")[0])[1:]
        if argv and argv[0] not in NOT_ASKED:
            out.append(argv)
    return out


def questions() -> list[list[str]]:
    qs = readme_commands()
    for p in EXAMPLES:
        rel = str(p.relative_to(ROOT))
        qs += [["info", rel], ["report", rel]]
    qs += [["info", "standard-1", "--deployment", "gauntlet"], ["check-layout", "standard-3"],
           ["units"], ["move", "examples/gap-run.toml", "marines/1", "--to", "24,18",
                       "--allowance", "16", "--save", "after.toml"]]
    return qs


def body_of(argv: list[str], cwd: Path = ROOT) -> dict[str, Any]:
    """The request body that stands for a command line (the names of docs/service.md); an
    `after.toml` the question reads is the one an earlier command saved into `cwd`."""
    parser = build_parser([argv[0]])
    ns = parser.parse_args(argv)
    sub = parser.commands[argv[0]]
    body: dict[str, Any] = {}
    for s in rq.slots(sub):
        v = getattr(ns, s.action.dest)
        if s.flag:
            if v == s.action.const and v != s.action.default:
                body[s.field] = True
        elif s.scenario:
            at = cwd / v if v == "after.toml" else ROOT / v
            body[s.field] = (tomllib.loads(at.read_text(encoding="utf-8"))
                             if v.endswith(".toml") else v)
        elif v != s.action.default:
            body[s.field] = [list(g) for g in v] if isinstance(v, list) and v and \
                isinstance(v[0], list | tuple) else v
    if getattr(ns, "save", None):
        body["save"] = True
    return body


def cli(argv: list[str], cwd: Path) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(io.StringIO()):
        argv = [a if a != "after.toml" else str(cwd / "after.toml") for a in argv]
        rc = main(argv)
    return rc, out.getvalue()


@pytest.mark.parametrize("argv", questions(), ids=lambda a: " ".join(a)[:60])
def test_every_endpoint_answers_as_the_cli(server: str, argv: list[str], tmp_path: Path) -> None:
    if "after.toml" in argv and argv[argv.index("after.toml") - 1] != "--save":
        # the README's `tmg check … after.toml` reads the table its charge --save left
        made = next(q for q in readme_commands() if q[-2:] == ["--save", "after.toml"]
                    and q[0] == "charge")
        assert cli(made, tmp_path)[0] == 0
    rc, printed = cli([*argv, "--json"], tmp_path)
    assert rc == 0
    want = json.loads(printed)
    r = httpx.post(f"{server}/{argv[0]}", json=body_of(argv, tmp_path), timeout=120)
    assert r.status_code == 200, r.text
    got = r.json()
    rc, text = cli(argv, tmp_path)
    assert got.pop("text") == text.rstrip("\n").replace(str(tmp_path / "after.toml"),
                                                         "saved_document")
    if "saved" in want:
        saved = tomllib.loads((tmp_path / "after.toml").read_text(encoding="utf-8"))
        assert got.pop("saved_document") == saved
        assert got.pop("saved") == "saved_document"
        want.pop("saved")
    assert got == want
    if r.headers.get("x-table-key"):  # the same question by key: the same answer, warm
        body = {k: v for k, v in body_of(argv, tmp_path).items() if k != "scenario"}
        again = httpx.post(f"{server}/{argv[0]}", json={**body, "key": r.headers["x-table-key"]},
                           timeout=120)
        assert again.status_code == 200, again.text
        assert {k: v for k, v in again.json().items() if k != "saved_document"} == \
            {k: v for k, v in r.json().items() if k != "saved_document"}


def test_the_key_is_the_canonical_table(server: str) -> None:
    doc = tomllib.loads((ROOT / "examples/sight-dispute.toml").read_text(encoding="utf-8"))
    keys = {httpx.post(f"{server}/info", json={"scenario": d}, timeout=60).headers["x-table-key"]
            for d in (doc, json.loads(json.dumps(doc, sort_keys=True)))}
    assert len(keys) == 1
    a = httpx.post(f"{server}/info", json={"scenario": "standard-1"}, timeout=60)
    b = httpx.post(f"{server}/info", json={"scenario": {"table": {"layout": "standard-1"},
                                                        "name": "Standard map 1"}}, timeout=60)
    assert a.headers["x-table-key"] == b.headers["x-table-key"]
    assert a.headers["x-table-key"] not in keys


def test_render_answers_the_picture_the_cli_draws(server: str, tmp_path: Path) -> None:
    argv = ["render", "examples/sight-dispute.toml", "-o", str(tmp_path / "x.svg"), "--los",
            "marines/m1", "zerglings/1", "--width", "900"]
    assert cli(argv, tmp_path)[0] == 0
    body = body_of(argv)
    body.pop("output", None)
    r = httpx.post(f"{server}/render", json=body, timeout=120)
    assert r.status_code == 200 and r.headers["content-type"] == "image/svg+xml"
    assert r.content == (tmp_path / "x.svg").read_bytes()
    assert r.headers["x-picture-width"] == "900"
    png = httpx.post(f"{server}/render", json={"scenario": "standard-1", "format": "png",
                                               "width": 400}, timeout=120)
    if png.status_code == 200:  # OpenGL here (a display or headless EGL)
        assert png.content.startswith(b"\x89PNG\r\n\x1a\n") and png.headers[
            "content-type"] == "image/png"
    else:  # no OpenGL: a clear error, never a 500
        assert png.status_code == 422, png.text


def error_of(r: httpx.Response, status: int) -> dict[str, Any]:
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert set(err) == {"object", "field", "message"} and err["message"]
    return err


def test_bad_requests_are_4xx_with_the_field_named(server: str) -> None:
    post = lambda path, **kw: httpx.post(server + path, timeout=60, **kw)  # noqa: E731
    assert error_of(post("/los", content=b"{bad"), 400)["object"] == "request body"
    assert error_of(post("/los", content=b"[1, 2]"), 422)
    assert error_of(post("/los", content=b"\xff\xfe"), 400)
    assert error_of(post("/nope", json={}), 404)
    assert error_of(post("/survey", json={}), 404)
    err = error_of(post("/los", json={"scenario": "standard-1", "a": "x", "b": "y",
                                      "range": "far"}), 422)
    assert err["field"] == "range"
    assert error_of(post("/los", json={"scenario": "standard-1", "a": "x", "b": "y",
                                       "colour": 1}), 422)["field"] == "colour"
    assert error_of(post("/los", json={"scenario": "standard-1", "b": "y"}), 422)["field"] == "a"
    assert error_of(post("/los", json={"scenario": 5, "a": "x", "b": "y"}), 422)["field"] == \
        "scenario"
    assert error_of(post("/los", json={"scenario": "standard-1", "a": ["x"], "b": "y"}),
                    422)["field"] == "a"
    assert error_of(post("/coherency", json={"scenario": "standard-1", "unit": "u",
                                             "save": "yes"}), 422)["field"] == "save"
    # names only, never a path: a scenario name and the document's layout and deployment
    for bad in ("../../etc/passwd", "examples/ridge-dispute.toml", "/etc/hosts"):
        assert error_of(post("/info", json={"scenario": bad}), 422)["field"] == "scenario"
    err = error_of(post("/info", json={"scenario": {"table": {"layout": "../../x"}}}), 422)
    assert (err["object"], err["field"]) == ("table", "layout")
    err = error_of(post("/info", json={"scenario": {"table": {"width": 54, "depth": 36,
                                                              "deployment": "../x"}}}), 422)
    assert (err["object"], err["field"]) == ("table", "deployment")
    assert error_of(post("/info", json={"scenario": "standard-1", "deployment": "../x"}),
                    422)["field"] == "deployment"
    err = error_of(post("/los", json={"key": "0" * 64, "a": "x", "b": "y"}), 404)
    assert err["field"] == "key" and "send the document" in err["message"]


def test_fuzz_corpus_is_refused_as_the_loader_refuses_it(server: str) -> None:
    rng = random.Random(27)
    bases = _fuzz.example_documents()
    refused = accepted = 0
    for _ in range(80):
        doc = _fuzz.mutate(rng, rng.choice(bases) if rng.random() < 0.7
                           else _fuzz.random_scene(rng))
        try:
            text = json.dumps({"scenario": doc}, allow_nan=False)
        except (ValueError, TypeError, RecursionError):
            continue  # not JSON (NaN, a date …): no client can send it
        if len(text) > 900_000:
            continue
        r = httpx.post(f"{server}/info", content=text.encode("utf-8", "surrogatepass"),
                       headers={"content-type": "application/json"}, timeout=120)
        assert r.status_code < 500, r.text
        try:
            scenario.parse_document(json.loads(text)["scenario"], "request body, scenario")
        except TmgError as exc:
            if r.status_code == 400:  # text JSON cannot carry (an unpaired surrogate)
                continue
            err = error_of(r, 422)
            assert err["field"] == exc.field, (err, str(exc))
            refused += 1
        else:
            assert r.status_code == 200, r.text
            accepted += 1
    assert refused >= 10 and accepted >= 3, (refused, accepted)


def test_a_request_past_its_budget_is_503(server: str) -> None:
    doc = tomllib.loads((ROOT / "examples/battle-standard-1.toml").read_text(encoding="utf-8"))
    r = httpx.post(f"{server}/report", json={"scenario": doc, "timeout": 0.001}, timeout=60)
    err = error_of(r, 503)
    assert err["field"] == "timeout" and "time budget" in err["message"]
    ok = httpx.post(f"{server}/info", json={"scenario": doc}, timeout=60)  # the worker lives on
    assert ok.status_code == 200


def test_openapi_is_31_and_its_schemas_are_json_schema(server: str) -> None:
    import jsonschema

    doc = httpx.get(f"{server}/openapi.json", timeout=30).json()
    assert doc["openapi"].startswith("3.1")
    try:
        from openapi_spec_validator import validate
    except ImportError:
        validate = None
    if validate is not None:
        validate(doc)
    scen = doc["components"]["schemas"]["Scenario"]
    jsonschema.Draft202012Validator.check_schema(scen)
    assert scen.get("properties") and scen.get("required")  # not "any object"
    for name in ("los", "move", "charge", "render", "info", "layouts"):
        op = doc["paths"][f"/{name}"]["post"]
        body = op["requestBody"]["content"]["application/json"]["schema"]
        jsonschema.Draft202012Validator.check_schema(body)
        assert {"200", "422", "503"} <= set(op["responses"])
    los = doc["paths"]["/los"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert {"scenario", "key", "a", "b", "range", "timeout"} <= set(los["properties"])


def test_token_cors_and_body_limit(guarded: str) -> None:
    q = {"scenario": "standard-1"}
    assert error_of(httpx.post(f"{guarded}/info", json=q, timeout=60), 401)
    assert error_of(httpx.post(f"{guarded}/info", json=q, timeout=60,
                               headers={"Authorization": "Bearer wrong"}), 401)
    ok = httpx.post(f"{guarded}/info", json=q, headers={"Authorization": "Bearer s3cret",
                                                         "Origin": "https://app.example"},
                    timeout=60)
    assert ok.status_code == 200
    assert ok.headers["access-control-allow-origin"] == "https://app.example"
    meta = httpx.get(f"{guarded}/meta", timeout=30)
    assert meta.status_code == 200 and meta.json()["token"] is True
    pre = httpx.options(f"{guarded}/los", headers={"Origin": "https://app.example",
                                                   "Access-Control-Request-Method": "POST"})
    assert pre.headers.get("access-control-allow-origin") == "https://app.example"
    other = httpx.options(f"{guarded}/los", headers={"Origin": "https://evil.example",
                                                     "Access-Control-Request-Method": "POST"})
    assert "access-control-allow-origin" not in other.headers
    big = {"scenario": "standard-1", "pad": "x" * 6000}
    assert error_of(httpx.post(f"{guarded}/info", json=big, timeout=60,
                               headers={"Authorization": "Bearer s3cret"}), 413)


def test_cors_is_off_by_default(server: str) -> None:
    r = httpx.post(f"{server}/layouts", json={}, headers={"Origin": "https://app.example"},
                   timeout=60)
    assert r.status_code == 200 and "access-control-allow-origin" not in r.headers


def test_serve_is_listed_and_loopback_by_default() -> None:
    ns = build_parser(["serve"]).parse_args(["serve"])
    assert (ns.host, ns.port, ns.workers) == ("127.0.0.1", 8765, 1)
    assert not hasattr(ns, "timeout")
    assert re.search(r"\bserve\b", build_parser([]).format_help())


def test_a_kept_answer_is_the_computed_one_and_save_is_part_of_the_question(server: str) -> None:
    doc = tomllib.loads((ROOT / "examples/gap-run.toml").read_text(encoding="utf-8"))
    q = {"scenario": doc, "model": "marines/1", "to": "24,18", "allowance": 16}
    first = httpx.post(f"{server}/move", json=q, timeout=120)
    again = httpx.post(f"{server}/move", json=q, timeout=120)
    saved = httpx.post(f"{server}/move", json={**q, "save": True}, timeout=120)
    assert first.status_code == again.status_code == saved.status_code == 200
    assert again.json() == first.json()
    assert "saved_document" in saved.json() and "saved_document" not in again.json()


def test_a_worker_past_its_budget_and_deaf_to_its_alarm_is_ended() -> None:
    import asyncio

    from service.pool import Pool
    from tests._service import stubborn_worker

    async def go() -> tuple[Any, int, int, bool]:
        pool = Pool(1, 4, target=stubborn_worker)
        pool.start()
        try:
            old = pool.slots[0].process
            reply = await pool.ask("info", {"scenario": "standard-1", "timeout": 0.2}, None)
            old.join(5)
            return reply, old.pid, pool.slots[0].process.pid, old.is_alive()
        finally:
            pool.close()

    reply, old_pid, new_pid, alive = asyncio.run(go())
    assert reply.status == 503 and reply.body["error"]["field"] == "timeout"
    assert not alive and new_pid != old_pid  # ended, and a fresh worker in its place
