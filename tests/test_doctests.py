"""The runnable examples in the engine's docstrings stay true."""

import doctest
import importlib
import pkgutil

import pytest

import formats
import geom
import maps
import scenario
import tmg

MODULES = sorted(
    f"{pkg.__name__}.{m.name}"
    for pkg in (geom, formats, maps, scenario, tmg)
    for m in pkgutil.iter_modules(pkg.__path__)
    if not m.ispkg and not m.name.startswith("_")
) + ["geom", "maps", "scenario"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_the_engine_has_examples():
    attempted = sum(doctest.testmod(importlib.import_module(n)).attempted for n in MODULES)
    assert attempted >= 20
