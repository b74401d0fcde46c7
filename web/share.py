"""Sharing a table: the link's fragment and the server's store of shared tables.

A link carries the whole table in its fragment (`#t=…`, never sent to a server): the JSON
`{"f": FRAGMENT_FORMAT, "v": engine version, "doc": scenario document}` compressed with raw
DEFLATE (RFC 1951, the browser's `CompressionStream("deflate-raw")`) and written in base64url
without padding (RFC 4648 §5). The page that opens it sends the document to the server, which
checks it again like any scenario (a link is user input), and says so when the link was made
by another engine version.

A table whose link would not fit a QR code a phone can read off another phone's screen
(`QR_MAX_VERSION`) is shared by its key instead (`#k=KEY`): the server keeps the document in a
bounded store (`ShareStore`, least recently used out first) under the hash of its canonical
JSON. The store lives in the process: several instances behind a load balancer need sticky
sessions for `#k=` links (the `#t=` links need nothing).

>>> doc = {"format": "tmg-scenario/1", "table": {"layout": "standard-1"}}
>>> decode_fragment(encode_fragment(doc, "0.1.0")) == {"f": FRAGMENT_FORMAT, "v": "0.1.0", "doc": doc}
True
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import zlib
from collections import OrderedDict
from typing import Any

from geom.errors import TmgError

FRAGMENT_FORMAT = "tmg-web/1"
#: a QR code of at most this version (97×97 modules) is still read by a phone's camera off a
#: phone's screen; a longer link goes by key
QR_MAX_VERSION = 20
MAX_FRAGMENT_CHARS = 1_500_000  # base64 of the 1 MB body limit, with room to spare
SHARE_STORE_SIZE = 2000


def canonical_json(doc: Any) -> str:
    """The document as JSON with sorted keys and no spaces: the text that is hashed."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def share_key(doc: Any) -> str:
    """The key of a shared document: 16 bytes of the SHA-256 of its canonical JSON, base64url."""
    digest = hashlib.sha256(canonical_json(doc).encode()).digest()[:16]
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def encode_fragment(doc: Any, version: str) -> str:
    """What follows `#t=` in a link (the page's own encoder writes the same thing)."""
    raw = json.dumps({"f": FRAGMENT_FORMAT, "v": version, "doc": doc},
                     separators=(",", ":"), ensure_ascii=False).encode()
    c = zlib.compressobj(9, zlib.DEFLATED, -15)  # wbits -15: raw DEFLATE, no zlib header
    packed = c.compress(raw) + c.flush()
    return base64.urlsafe_b64encode(packed).rstrip(b"=").decode()


def decode_fragment(text: str) -> dict[str, Any]:
    """The `{"f", "v", "doc"}` object of a `#t=` fragment; a clear error for a damaged link."""
    if len(text) > MAX_FRAGMENT_CHARS:
        raise TmgError("the shared link is too long", obj="link", field="t")
    try:
        packed = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        d = zlib.decompressobj(-15)
        raw = d.decompress(packed, 8 * MAX_FRAGMENT_CHARS)
        if d.unconsumed_tail:
            raise ValueError("too large")
        out = json.loads(raw.decode())
    except (ValueError, zlib.error, UnicodeDecodeError):
        raise TmgError("the shared link is damaged (not a table this page wrote)",
                       obj="link", field="t") from None
    if not isinstance(out, dict) or out.get("f") != FRAGMENT_FORMAT or "doc" not in out:
        raise TmgError(f"the shared link is not in the {FRAGMENT_FORMAT} format", obj="link",
                       field="f")
    return out


class ShareStore:
    """Shared documents by key, at most `size` of them (the least recently used goes first).
    Thread-safe: the service may answer requests on several threads."""

    def __init__(self, size: int = SHARE_STORE_SIZE) -> None:
        self.size = size
        self._docs: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, doc: Any) -> str:
        key = share_key(doc)
        with self._lock:
            self._docs[key] = doc
            self._docs.move_to_end(key)
            while len(self._docs) > self.size:
                self._docs.popitem(last=False)
        return key

    def get(self, key: str) -> Any:
        with self._lock:
            if key not in self._docs:
                raise KeyError(key)
            self._docs.move_to_end(key)
            return self._docs[key]
