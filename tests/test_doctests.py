"""The runnable examples in the docstrings stay true, and every public entry of the engine
(`geom.__all__`) documents its parameters and result and shows a runnable example."""

import ast
import doctest
import importlib
import pkgutil
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import formats
import geom
import maps
import scenario
import survey
import tmg

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
PACKAGES = (geom, survey, formats, maps, scenario, tmg)


def _modules() -> list[str]:
    """Every module of the packages, private ones (`geom.sight._pair`) and wings' faces
    included: a wing's docstrings live in its private modules. `__main__` runs the CLI."""
    out = []
    for pkg in PACKAGES:
        out.append(pkg.__name__)
        out += [m.name for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")
                if not m.name.endswith(".__main__")]
    return sorted(out)


MODULES = _modules()


def _run(tests: list[doctest.DocTest]) -> doctest.TestResults:
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for t in tests:
        runner.run(t, out=lambda _: None)
    return runner.summarize(verbose=False)


def test_every_module_is_collected():
    for name in ("geom.sight._pair", "geom.movement._moves", "geom.combat", "geom.model",
                 "survey", "formats", "tmg.commands.distance"):
        assert name in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=FLAGS)
    assert result.failed == 0


def test_the_engine_has_examples():
    engine = [n for n in MODULES if n == "geom" or n.startswith("geom.")]
    attempted = sum(_run(doctest.DocTestFinder().find(importlib.import_module(n))).attempted
                    for n in engine)
    assert attempted >= 200


def _section(doc: str, title: str) -> str:
    """The body of a NumPy-style section (`Title` over a line of dashes), '' when absent."""
    m = re.search(rf"^[ \t]*{title}\n[ \t]*-{{{len(title)}}}\n(.*?)(?=\n[ \t]*\w[\w ]*\n[ \t]*-{{3,}}\n|\Z)",
                  doc, re.M | re.S)
    return m.group(1).strip() if m else ""


@pytest.mark.parametrize("name", geom.__all__)
def test_public_entry_is_documented(name):
    """Each entry resolves from `geom` (loading its wing), and its own docstring — where it is
    defined — has Parameters, Returns and Examples sections; its examples run and pass.
    (A class documents what constructing it takes and gives.)"""
    obj = getattr(geom, name)
    assert callable(obj)
    doc = obj.__doc__ or ""
    for title in ("Parameters", "Returns", "Examples"):
        assert _section(doc, title), f"{name}: no {title} section"
    assert ">>> " in _section(doc, "Examples"), f"{name}: the Examples section has no example"
    home = sys.modules[obj.__module__]
    tests = doctest.DocTestFinder(recurse=False).find(obj, name, module=home,
                                                      globs=vars(home).copy())
    result = _run(tests)
    assert result.attempted > 0 and result.failed == 0, (name, result)


def test_the_api_is_lazy_and_listed():
    """`import geom` loads no wing (checked in a fresh interpreter), `dir(geom)` lists the
    public names, and a name outside the API is an AttributeError."""
    code = ("import sys, geom; print(sorted(m for m in sys.modules "
            "if m.startswith(('geom.', 'shapely', 'numpy'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert set(geom.__all__) <= set(dir(geom))
    assert "importlib" not in dir(geom)
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = geom.nothing_here


def test_the_three_lists_of_the_api_agree():
    """`__all__`, the wing of each name (`_WING`, what `__getattr__` loads) and the names the
    `TYPE_CHECKING` block imports for type checkers name the same entries from the same wings."""
    tree = ast.parse(Path(geom.__file__).read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, ast.If)
                 and isinstance(n.test, ast.Name) and n.test.id == "TYPE_CHECKING")
    typed = {a.name: imp.module for imp in block.body if isinstance(imp, ast.ImportFrom)
             for a in imp.names}
    assert typed == geom._WING
    assert sorted(geom._WING) == sorted(geom.__all__)
    assert len(set(geom.__all__)) == len(geom.__all__)


def test_a_submodule_never_hides_a_public_name():
    """`geom.distance` is the function even after the module `geom.distance` is loaded (the
    module stays importable by its full name)."""
    import geom.distance  # noqa: F401  (loads the module; the package attribute stays the function)

    assert isinstance(geom.distance, types.FunctionType)
    assert geom.distance is sys.modules["geom.distance"].distance
    from geom import distance

    assert distance is geom.distance
