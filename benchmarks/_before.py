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


# where a name lives in an engine laid out in wings (issue #22): the faces and root modules,
# searched in this order when the old flat module of that name is not there
WINGS = ("model", "errors", "verdict", "bases", "distance", "elevation", "engagement", "lines",
         "sight", "templates", "paths", "movement", "combat", "markers", "judge")


class OldModule:
    """An old engine's module by its flat name (`charge`, `movement`, `coherency`…), in either
    layout: the flat module itself in an engine from before the wings, else a name looked up in
    the wing of that name and then in every face and root module of the package."""

    def __init__(self, pkg: Any, name: str) -> None:
        self._pkg, self._name = pkg.__name__, name
        try:
            self._flat: Any = importlib.import_module(f"{self._pkg}.{name}")
        except ImportError:
            self._flat = None

    def __getattr__(self, attr: str) -> Any:
        if self._flat is not None and not hasattr(self._flat, "__path__"):
            return getattr(self._flat, attr)
        for wing in (self._name, *WINGS):
            try:
                mod = importlib.import_module(f"{self._pkg}.{wing}")
            except ImportError:
                continue
            if hasattr(mod, attr):
                return getattr(mod, attr)
        raise AttributeError(f"{self._pkg} has no {attr} (looked for {self._name}.{attr})")


def old_module(pkg: Any, name: str) -> Any:
    """`OldModule(pkg, name)`: what benchmarks call on the old engine, in either layout."""
    return OldModule(pkg, name)


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
