"""The engine (`geom`) as it was at an earlier git commit, importable beside today's, and the
same battlefield built from its classes — so that a benchmark measures both in one run."""

from __future__ import annotations

import dataclasses
import importlib
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def old_package(rev: str, name: str = "geom_before") -> Any:
    """`geom` at commit `rev`, importable as `name`."""
    tmp = Path(tempfile.mkdtemp(prefix=f"{name}_"))
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "geom"],
                         capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=tar, check=True)
    (tmp / "geom").rename(tmp / name)
    sys.path.insert(0, str(tmp))
    return importlib.import_module(name)


def to_before(obj: Any, om: Any) -> Any:
    """The same object built from the old package's model classes (its code tests isinstance
    against them); `om` is the old `model` module."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        cls = getattr(om, type(obj).__name__, None)
        if cls is not None:
            # a field the old class lacks (added since) is left out: the old engine never
            # read it (a field at a non-default value would make the comparison unfair)
            old = {f.name for f in dataclasses.fields(cls) if f.init}
            kw = {f.name: to_before(getattr(obj, f.name), om) for f in dataclasses.fields(obj)
                  if f.init and f.name in old}
            return cls(**kw)
    if isinstance(obj, tuple):
        return tuple(to_before(x, om) for x in obj)
    if isinstance(obj, list):
        return [to_before(x, om) for x in obj]
    if isinstance(obj, dict):
        return {k: to_before(v, om) for k, v in obj.items()}
    if isinstance(obj, frozenset):
        return frozenset(to_before(x, om) for x in obj)
    return obj
