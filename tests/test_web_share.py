"""web.share: a table's link fragment (raw DEFLATE + base64url) and the store of tables shared
by key — round trips, damaged links named as such, and the store's bound."""

from __future__ import annotations

import base64
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geom.errors import TmgError
from web.share import FRAGMENT_FORMAT, ShareStore, decode_fragment, encode_fragment, share_key

DOC = {"format": "tmg-scenario/1", "table": {"layout": "standard-1"},
       "units": [{"name": "marine", "models": [{"id": "m1", "at": [10.5, 3.25]}]}]}


def test_fragment_round_trip_carries_format_and_version() -> None:
    text = encode_fragment(DOC, "0.1.0")
    assert set(text) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert decode_fragment(text) == {"f": FRAGMENT_FORMAT, "v": "0.1.0", "doc": DOC}


@settings(max_examples=30, deadline=None)
@given(st.dictionaries(st.text(max_size=8), st.one_of(st.integers(), st.floats(
    allow_nan=False), st.text(max_size=20)), max_size=6))
def test_fragment_round_trip_any_json(doc: dict) -> None:
    assert decode_fragment(encode_fragment(doc, "9.9"))["doc"] == doc


@pytest.mark.parametrize("text", ["", "!!!", "abc", base64.urlsafe_b64encode(b"xyz").decode()])
def test_damaged_link_is_a_clear_error(text: str) -> None:
    with pytest.raises(TmgError) as exc:
        decode_fragment(text)
    assert exc.value.obj == "link" and exc.value.field == "t"


def test_other_format_is_refused_by_field() -> None:
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = c.compress(b'{"f":"other/1","doc":{}}') + c.flush()
    with pytest.raises(TmgError) as exc:
        decode_fragment(base64.urlsafe_b64encode(packed).decode().rstrip("="))
    assert exc.value.field == "f"


def test_store_keys_by_canonical_json_and_drops_least_recent() -> None:
    store = ShareStore(size=2)
    a, b, c = ({"n": i} for i in range(3))
    ka = store.put(a)
    assert ka == share_key({"n": 0}) and len(ka) == 22
    kb = store.put(b)
    assert store.get(ka) == a          # a is now the most recent
    store.put(c)                       # so b goes
    with pytest.raises(KeyError):
        store.get(kb)
    assert store.get(ka) == a
    assert share_key({"x": 1, "y": 2}) == share_key({"y": 2, "x": 1})
