"""docs/interface.md stands alone: every scenario example it shows (its TOML blocks) loads, and
its tables name every command of the registry and every kind, status and ability the loader
accepts."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import scenario
from geom.model import ABILITIES, TERRAIN_KINDS
from scenario.units import STATUSES
from tmg.commands import COMMANDS

DOC = Path(__file__).resolve().parent.parent / "docs" / "interface.md"
TEXT = DOC.read_text(encoding="utf-8")
BLOCKS = re.findall(r"```toml\n(.*?)```", TEXT, flags=re.S)


def test_the_page_has_examples():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_every_toml_example_loads(i):
    doc = tomllib.loads(BLOCKS[i])
    bf = scenario.parse_document(doc, f"docs/interface.md example {i + 1}")
    assert bf.table.width > 0
    if "unit" in doc:
        assert [u.id for u in bf.units] == [u["id"] for u in doc["unit"]]


def test_every_command_kind_status_and_ability_is_documented():
    for name in COMMANDS:
        assert f"`tmg {name}" in TEXT, name
    for word in (*TERRAIN_KINDS, *STATUSES, *ABILITIES):
        assert f"`{word}`" in TEXT, word


ROOT = DOC.parent.parent
OUTSIDE = re.compile(r"GEOMETRY-RULES|INTERFACE\.md|DESIGN-NOTES|\.\./shared|/work/shared")


@pytest.mark.parametrize("name", ["README.md", "docs/interface.md", "docs/rules.md",
                                  "docs/foundation.md", "docs/maps.md"])
def test_docs_cite_nothing_outside_the_repository(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    assert not OUTSIDE.findall(text), name


def test_every_rules_anchor_cited_exists():
    """Code and docs link decisions as `rules.md#NAME`: each such anchor is on the page."""
    anchors = set(re.findall(r'<a id="([a-z0-9-]+)"></a>', (ROOT / "docs" / "rules.md")
                             .read_text(encoding="utf-8")))
    assert len(anchors) >= 25
    cited = set()
    for p in [*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md"), *ROOT.glob("*/**/*.py")]:
        if ".venv" in p.parts:
            continue
        cited |= set(re.findall(r"rules\.md#([a-z0-9-]+)", p.read_text(encoding="utf-8")))
    assert cited and cited <= anchors, cited - anchors


def test_every_rules_decision_is_cited_by_the_code_that_takes_it():
    """Each decision on docs/rules.md is linked, by its anchor, from the code that takes it and
    from the user docs that describe it: a reader of either finds the decision, and a decision
    nothing cites is a stale page."""
    anchors = set(re.findall(r'<a id="([a-z0-9-]+)"></a>', (ROOT / "docs" / "rules.md")
                             .read_text(encoding="utf-8")))
    def cited_in(paths):
        out = set()
        for p in paths:
            out |= set(re.findall(r"rules\.md#([a-z0-9-]+)", p.read_text(encoding="utf-8")))
        return out

    code = cited_in(p for pkg in ("geom", "maps", "scenario", "formats", "tmg", "viewer")
                    for p in (ROOT / pkg).glob("**/*.py"))
    docs = cited_in(p for p in (ROOT / "docs").glob("*.md") if p.name != "rules.md")
    assert anchors - code == set(), "decisions no code cites"
    assert anchors - docs == set(), "decisions no user doc links"
