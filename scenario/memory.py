"""Scenario documents held in memory under a name, for a front end that gets its scenario in a
request rather than from a file (the service, `tmg serve`: docs/service.md).

`held({name: Held(doc, deployment, battlefield)})` makes every reader of the scenario loader see
`name` as that document, for the calls made inside the block (a context variable: nothing
global, nothing written to disk): `read_document(name)` answers the document, `load(name,
deployment)` the battlefield already built from it (its prepared state warm) when the
deployment card is the same. Outside such a block nothing changes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from geom.model import Battlefield


@dataclass(frozen=True)
class Held:
    document: Any
    deployment: str | None = None
    battlefield: Battlefield | None = None


_HELD: ContextVar[Mapping[str, Held] | None] = ContextVar("tmg_held_documents", default=None)


@contextmanager
def held(docs: Mapping[str, Held]) -> Iterator[None]:
    token = _HELD.set(docs)
    try:
        yield
    finally:
        _HELD.reset(token)


def lookup(name: object) -> Held | None:
    """The document held under `name`, if any."""
    docs = _HELD.get()
    return docs.get(name) if docs and isinstance(name, str) else None
