"""The web view's own routes (web/routes.py) over HTTP on the real `tmg serve`: the page and its
config, the static files from a fixed list, the canonical document, the share store, the QR
code — and their errors, answered as the service answers them (400 not JSON, 422 bad input with
the object and field, 404, 413), never a 5xx."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest

from tests._service import running_server
from web.share import encode_fragment

PUBLIC = "http://192.168.7.7:8765"


@pytest.fixture(scope="module")
def server() -> Any:
    with running_server("--public-url", PUBLIC) as url:
        yield url


def test_page_config_and_static_files(server: str) -> None:
    page = httpx.get(server + "/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    config = json.loads(re.search(r'<script id="config" type="application/json">(.*?)</script>',
                                  page.text).group(1))
    assert config["public_url"] == PUBLIC + "/" and config["format"] == "tmg-scenario/1"
    assert config["token_required"] is False
    # nothing loaded from elsewhere: every src/href is the server's own path
    rest = re.sub(r'<script id="config".*?</script>', "", page.text, flags=re.S)
    assert re.findall(r'(?:src|href)="([^"]*)"', rest) == ["/web/static/app.css",
                                                           "/web/static/app.js"]
    for name, kind in (("app.js", "javascript"), ("app.css", "css")):
        r = httpx.get(server + "/web/static/" + name)
        assert r.status_code == 200 and kind in r.headers["content-type"]
    for bad in ("index.html", "nope.js"):
        r = httpx.get(server + "/web/static/" + bad)
        assert r.status_code == 404 and r.json()["error"]["object"] == "web/static"
    r = httpx.get(server + "/web/static/..%2Fweb%2Froutes.py")  # no route: never a file
    assert r.status_code == 404 and "error" in r.json()


def test_document_from_official_name_file_and_link(server: str) -> None:
    r = httpx.post(server + "/web/document", json={"scenario": "standard-1",
                                                   "deployment": "gauntlet"})
    doc = r.json()["document"]
    assert doc["table"]["layout"] == "standard-1" and len(doc["marker"]) == 5
    text = 'format = "tmg-scenario/1"\n[table]\nlayout = "standard-1"\n'
    r = httpx.post(server + "/web/document", json={"file": {"name": "t.toml", "text": text}})
    assert r.status_code == 200 and r.json()["document"]["table"]["layout"] == "standard-1"
    r = httpx.post(server + "/web/document", json={"t": encode_fragment(doc, "9.9")})
    assert r.json()["document"] == doc and r.json()["link_version"] == "9.9"
    key = httpx.post(server + "/web/share", json={"document": doc}).json()["key"]
    assert httpx.post(server + "/web/document", json={"k": key}).json()["document"] == doc


@pytest.mark.parametrize("body, status, obj, field", [
    (b"{not json", 400, "request", None),
    (b"[1]", 422, "request", None),
    (b'{"file": {"name": "x.toml", "text": "= broken"}}', 422, "x.toml", None),
    (b'{"file": {"name": "x.txt", "text": ""}}', 422, "x.txt", None),
    (b'{"scenario": "standard-99"}', 422, "request", "scenario"),
    (b'{"t": "AAAA"}', 422, "link", "t"),
    (b'{"k": "no-such-key"}', 404, "k", None),
])
def test_document_errors(server: str, body: bytes, status: int, obj: str,
                         field: str | None) -> None:
    r = httpx.post(server + "/web/document", content=body)
    assert r.status_code == status
    assert r.json()["error"]["object"] == obj and r.json()["error"]["field"] == field


def test_bad_scenario_names_its_object_and_field(server: str) -> None:
    doc = {"format": "tmg-scenario/1", "table": {"layout": "standard-1"},
           "unit": [{"id": "u", "type": "marine", "owner": "red", "models": [["a", 1]]}]}
    r = httpx.post(server + "/web/document", json={"scenario": doc})
    assert r.status_code == 422 and "u" in r.json()["error"]["message"]


def test_qr_code_and_its_limit(server: str) -> None:
    r = httpx.post(server + "/web/qr", json={"url": PUBLIC + "/#t=abc"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.text.lstrip().startswith("<svg") and int(r.headers["x-qr-version"]) <= 3
    r = httpx.post(server + "/web/qr", json={"url": PUBLIC + "/#t=" + "x" * 3000})
    assert r.status_code == 413 and "by key" in r.json()["error"]["message"]
    r = httpx.post(server + "/web/qr", json={"url": 5})
    assert r.status_code == 422 and r.json()["error"]["field"] == "url"
