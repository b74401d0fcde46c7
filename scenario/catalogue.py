"""The built-in unit catalogue (`scenario/data/units.json`): every unit card of the rulebook with
its stats and the source of each figure. Unknown figures are null, never invented; where sources
disagree the chosen figure and the disagreement are both recorded (docs/rules.md#unit-data).

>>> find("Marine")["base_mm"]
32
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any


@cache
def _doc() -> dict[str, Any]:
    # next to this module (not importlib.resources, whose zip readers cost every start-up)
    res = Path(__file__).resolve().parent / "data" / "units.json"
    if not res.is_file():
        return {"units": []}
    return json.loads(res.read_text(encoding="utf-8"))


def units() -> list[dict[str, Any]]:
    return list(_doc()["units"])


def _key(s: str) -> str:
    return s.strip().lower().replace("_", "-").replace(" ", "-")


def find(name: str) -> dict[str, Any] | None:
    """A catalogue entry by id, English name or Korean name (case and spacing ignored)."""
    k = _key(name)
    for u in _doc()["units"]:
        if k in (_key(u["id"]), _key(u.get("name", "")), _key(u.get("name_ko") or "")):
            return u
    return None


def search(text: str) -> list[dict[str, Any]]:
    """Entries whose id, English or Korean name contains `text` (case and spacing ignored),
    in catalogue order.

    >>> [u["id"] for u in search("siege")]
    ['siege-tank']
    """
    k = _key(text)
    if not k:
        return []
    return [u for u in _doc()["units"]
            if any(k in _key(s or "") for s in (u["id"], u.get("name"), u.get("name_ko")))]


def did_you_mean(text: str, most: int = 4) -> str:
    """' (did you mean A, B?)' for an unknown unit name: entries containing it, else the
    closest ids; '' when nothing is near."""
    import difflib

    ids = [u["id"] for u in search(text)] or difflib.get_close_matches(
        _key(text), [u["id"] for u in _doc()["units"]], n=most, cutoff=0.6)
    if not ids:
        return ""
    more = ", …" if len(ids) > most else ""
    return f" (did you mean {', '.join(ids[:most])}{more}?)"
