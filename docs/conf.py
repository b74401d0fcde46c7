"""Sphinx configuration: the project's Markdown pages (MyST) and the engine's API reference
(autodoc, NumPy-style sections through napoleon).

Build: ``python -m sphinx -W --keep-going -b html docs OUT`` (what tests/test_docs_build.py
runs: every warning is an error).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from docutils import nodes
from sphinx import addnodes

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # autodoc imports the packages from this checkout

project = "tmg-geometry"
author = "tmg-geometry"
copyright = "tmg-geometry"

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "myst_parser"]

source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# Markdown pages: links between pages (`rules.md#tolerance`) and to headings (`#the-service`)
# resolve; headings get GitHub-style anchors down to ####, as the pages are read on GitHub too.
myst_heading_anchors = 4
# A Markdown link (`[tolerance](#tolerance)`) names a page or an anchor, never a Python object:
# without this, `#tolerance` would also match the module `geom.tolerance` and be ambiguous.
myst_ref_domains = ["std"]

# Docstrings: NumPy-style sections; `name` renders as code (and links when it names a
# documented object); the wing faces' modules are documented through their faces.
napoleon_google_docstring = False
napoleon_numpy_docstring = True
default_role = "py:obj"
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "signature"
add_module_names = False

html_theme = "alabaster"
html_title = "tmg-geometry"
html_static_path: list[str] = []

ANCHOR = re.compile(r'<a id="([A-Za-z0-9_-]+)">')


def _html_anchors(app, doctree) -> None:
    """The pages mark decisions with raw HTML anchors (`<a id="tolerance"></a>` in rules.md,
    the form GitHub renders and tests/test_interface_doc.py reads): register each as a target
    of its page, so `rules.md#tolerance` resolves as a link to it instead of a warning."""
    std = app.env.get_domain("std")
    for raw in doctree.findall(nodes.raw):
        if "html" not in raw.get("format", "").split():
            continue
        for name in ANCHOR.findall(raw.astext()):
            std.anonlabels[name] = (app.env.docname, name)


# Repository files outside docs/ that are pages of the site too (each through an {include}).
INCLUDED = {ROOT / "benchmarks/HISTORY.md": "history"}


def _repository_files(app, doctree) -> None:
    """A page may link to a file of the repository outside docs/ (`../benchmarks/HISTORY.md`, a
    link that works on GitHub). MyST takes a Markdown file for a page of the site and warns that
    no such page exists. Link the page that includes the file, or else make the link a download
    of the file (Sphinx copies it into the site), as MyST already does for files of other kinds.
    Links to missing files still warn."""
    env = app.env
    here = Path(env.doc2path(env.docname)).parent
    for ref in list(doctree.findall(addnodes.pending_xref)):
        if ref.get("refdomain") != "doc" or ref.get("reftype") != "myst":
            continue
        target = ref["reftarget"]
        if target in env.found_docs:
            continue
        files = [Path(target + suffix) for suffix in app.config.source_suffix]
        found = next((f.resolve() for f in files if f.is_absolute() and f.is_file()), None)
        if found is None or Path(app.srcdir).resolve() in found.parents:
            continue
        if found in INCLUDED:
            ref["reftarget"] = INCLUDED[found]
            continue
        link = addnodes.download_reference(
            "", "", *ref.children, refdomain=None, reftype="myst", refexplicit=True,
            refdoc=env.docname, reftarget=os.path.relpath(found, here))
        ref.replace_self(link)


def setup(app):
    app.connect("doctree-read", _html_anchors)
    # before the collector that registers downloads (priority 500)
    app.connect("doctree-read", _repository_files, priority=100)
    return {"parallel_read_safe": True}
