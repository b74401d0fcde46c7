"""The documentation site builds without a single warning: the Markdown pages of docs/ (MyST)
and the API reference (autodoc over the public API, the root modules, each wing's face and the
survey). A broken link between pages, a missing anchor, a docstring that is not valid
reStructuredText or an object documented twice fails here, with Sphinx's own messages."""

import importlib
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def test_docs_build_without_warnings(tmp_path):
    # -W: every warning is an error; --keep-going: report all of them, not just the first.
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"sphinx failed:\n{run.stderr}{run.stdout}"
    html = tmp_path / "html"
    # the pages are there, and the API pages hold the entries autodoc found
    assert (html / "index.html").is_file() and (html / "rules.html").is_file()
    lines = (html / "api" / "lines.html").read_text(encoding="utf-8")
    assert 'id="geom.lines.find_clear_segment"' in lines


def documented_modules() -> set[str]:
    found: set[str] = set()
    for page in (DOCS / "api").glob("*.md"):
        found |= set(re.findall(r"^\.\. automodule:: (\S+)", page.read_text(encoding="utf-8"),
                                re.M))
    return found


def test_every_engine_module_and_wing_has_an_api_page():
    """A root module or a wing added to the engine is added to the API reference too."""
    expected = {"geom", "survey"}
    expected |= {f"geom.{p.stem}" for p in (ROOT / "geom").glob("*.py")
                 if not p.stem.startswith("_")}
    expected |= {f"geom.{p.parent.name}" for p in (ROOT / "geom").glob("*/__init__.py")}
    missing = expected - documented_modules()
    assert not missing, f"no page of docs/api/ documents {sorted(missing)}"


FILE_SUFFIXES = {"json", "md", "toml", "png", "svg", "csv", "txt"}


def resolves(name: str) -> bool:
    """`geom.lines.find_clear_segment`: the longest importable prefix, then attributes."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


def test_code_the_docs_name_exists():
    """The pages name code in backticks (`geom/combat/_charge.py`, `geom.lines.find_clear_segment`):
    each file exists and each dotted name imports, so a module moved or renamed is followed on
    the pages. (benchmarks/HISTORY.md keeps the names of its time.)"""
    missing = []
    for page in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for path in re.findall(r"`((?:geom|survey)/[\w/]*\.(?:py|json))`", text):
            if not (ROOT / path).is_file():
                missing.append(f"{page.name}: {path}")
        for name in re.findall(r"`((?:geom|survey)(?:\.\w+)+)`", text):
            if name.rsplit(".", 1)[1] in FILE_SUFFIXES:  # `survey.json`: a file's name
                continue
            if not resolves(name):
                missing.append(f"{page.name}: {name}")
    assert not missing, missing
