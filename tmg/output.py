"""What the `tmg` command prints: JSON that is always valid (RFC 8259) and text that always
prints, whatever the scenario held.

One place enforces it: `to_json` turns every answer into plain JSON values first (numbers finite
or null, strings printable, numpy scalars and arrays as numbers and lists, sets as sorted lists)
and then serialises with `allow_nan=False`, so a NaN can never reach the output.

>>> to_json({"d": float("nan"), "w": [1.23456789, float("inf")], "id": "a\\ud800b"}, indent=None)
'{"d": null, "w": [1.234568, null], "id": "a\\\\\\\\ud800b"}'
>>> printable("zergling")
'zergling'
"""

from __future__ import annotations

import json
import math
from typing import Any

MAX_MESSAGE = 400  # characters in one error line; longer ones are cut in the middle


def printable(s: str) -> str:
    """`s` with unpaired surrogates (a JSON file's "\\ud800", bytes a shell could not decode)
    written out as `\\udXXX`, so it can be encoded as UTF-8 and printed."""
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-8", "backslashreplace").decode("utf-8")


def jsonable(x: Any) -> Any:
    """Plain JSON values: dict/list/str/int/finite float/bool/None (non-finite floats → null)."""
    if x is None or isinstance(x, bool):
        return x
    if isinstance(x, str):
        return printable(x)
    if isinstance(x, int):
        return x
    if isinstance(x, float):
        return round(x, 6) if math.isfinite(x) else None
    if isinstance(x, dict):
        return {printable(str(k)): jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [jsonable(v) for v in x]
    if isinstance(x, set | frozenset):
        return [jsonable(v) for v in sorted(x, key=str)]
    if hasattr(x, "dtype") and hasattr(x, "tolist"):  # numpy scalars and arrays
        return jsonable(x.tolist())
    return printable(str(x))  # a path, an enum …: its text, never a failed dump


def to_json(x: Any, indent: int | None = 2) -> str:
    return json.dumps(jsonable(x), ensure_ascii=False, indent=indent, allow_nan=False)


def one_line(message: str, limit: int = MAX_MESSAGE) -> str:
    """An error message as one printable line of at most `limit` characters.

    >>> one_line("a\\nb")
    'a b'
    >>> len(one_line("x" * 10000))
    400
    """
    text = " ".join(printable(message).split("\n"))
    if len(text) > limit:
        head = text[: limit * 2 // 3]
        text = head + " … " + text[len(text) - (limit - len(head) - 3):]
    return text
