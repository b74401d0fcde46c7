"""Verdict objects: every answer the engine gives carries `rule`, `reason` and a witness."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Verdict:
    """A yes/no answer to a rules question.

    `rule` names the section (e.g. "7.1.1 direct cover"), `reason` is a sentence a judge can read
    out, `witness` is the geometric evidence (a segment, a path, a position) or None, and
    `details` carries anything else worth reporting (blocking piece ids, distances, ...).

    Parameters
    ----------
    ok : bool
        The answer.
    rule : str
        The rulebook section that decides it.
    reason : str
        Why, in a sentence.
    witness : object, optional
        The geometric evidence.
    details : dict, optional
        Anything else worth reporting.

    Returns
    -------
    Verdict
        The verdict; it is true exactly when `ok` is.

    Examples
    --------
    >>> from geom import Verdict
    >>> v = Verdict(False, "7.2 engagement range", 'a/1 and b/1 are 2.740" apart, more than 1"')
    >>> bool(v), v.rule
    (False, '7.2 engagement range')
    """

    ok: bool
    rule: str
    reason: str
    witness: Any = None
    details: dict[str, Any] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.ok
