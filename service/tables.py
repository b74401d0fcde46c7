"""Warm tables: the battlefields a worker has built, kept by key (docs/service.md, "Keys").

A table's key is the SHA-256 of its canonical document: the loaded scenario written back by
`scenario.save.document` (every piece written out, no layout shorthand), as JSON with sorted
keys, with the scenario's `description` and `[templates]`. The same table sent as a layout name,
as a document naming the layout, or as the whole document has the same key. A worker keeps at
most `size` tables (least recently used out first); a request's raw scenario (its JSON with
sorted keys, and the deployment card) is mapped to its key so a warm request never reloads.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from geom.model import Battlefield
from scenario.save import document


@dataclass(frozen=True)
class Table:
    key: str
    name: str  # the FILE the command sees: an official name or "request body, scenario"
    document: Any  # the request's document (None for an official name)
    deployment: str | None
    battlefield: Battlefield


def digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def raw_hash(scenario: Any, deployment: Any) -> str:
    """The hash of a request's scenario as sent (not canonical: only to find its key fast)."""
    return digest(["raw", scenario, deployment])


def canonical_key(bf: Battlefield, extra: dict[str, Any]) -> str:
    return digest(document(bf, extra=extra))


class Tables:
    """A bounded LRU of tables by key, and of raw hashes to keys."""

    def __init__(self, size: int) -> None:
        self.size = max(0, size)
        self.by_key: OrderedDict[str, Table] = OrderedDict()
        self.by_raw: OrderedDict[str, str] = OrderedDict()

    def get(self, key: str) -> Table | None:
        t = self.by_key.get(key)
        if t is not None:
            self.by_key.move_to_end(key)
        return t

    def get_raw(self, raw: str) -> Table | None:
        key = self.by_raw.get(raw)
        if key is None:
            return None
        self.by_raw.move_to_end(raw)
        return self.get(key)

    def put(self, raw: str, table: Table) -> list[str]:
        """Keep `table`; the keys (and raw hashes) that fell out."""
        if self.size == 0:
            return []
        self.by_key[table.key] = table
        self.by_key.move_to_end(table.key)
        self.by_raw[raw] = table.key
        self.by_raw.move_to_end(raw)
        gone = []
        while len(self.by_key) > self.size:
            gone.append(self.by_key.popitem(last=False)[0])
        while len(self.by_raw) > 4 * self.size:
            gone.append(self.by_raw.popitem(last=False)[0])
        return gone
