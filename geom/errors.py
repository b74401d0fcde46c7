"""The project's one error type for bad input and impossible questions.

Every error a user can cause ends as a TmgError (or a subclass) whose message names the file,
the object and the field when they are known; the CLI turns it into exit status 2.
"""

from __future__ import annotations


class TmgError(Exception):
    """A question or input the engine cannot answer, with a message fit for a user.

    Parameters
    ----------
    message : str
        What is wrong, as a sentence for the user.
    file : str, optional
        The file (or request) the input came from; the message starts with it.
    obj : str, optional
        The object in it (``units.marines``).
    field : str, optional
        The object's field.

    Returns
    -------
    TmgError
        The error; `detail` is the bare message, `file`, `obj` and `field` say where.

    Examples
    --------
    >>> from geom import TmgError
    >>> e = TmgError("expected an integer or 'a/b'", file="game.toml", obj="units.a",
    ...              field="speed")
    >>> print(e)
    game.toml: units.a: field 'speed': expected an integer or 'a/b'
    >>> e.field, e.detail
    ('speed', "expected an integer or 'a/b'")
    """

    def __init__(self, message: str, *, file: str | None = None, obj: str | None = None,
                 field: str | None = None) -> None:
        self.file = file
        self.obj = obj
        self.field = field
        self.detail = message
        super().__init__(self._format())

    def _format(self) -> str:
        where = []
        if self.file:
            where.append(self.file)
        if self.obj:
            where.append(self.obj)
        if self.field:
            where.append(f"field {self.field!r}")
        return (": ".join(where) + ": " + self.detail) if where else self.detail
