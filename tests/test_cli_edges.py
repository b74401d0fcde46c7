"""Command lines at the file system's and the numbers' edges (issue 26 item 4): an output file
name too long for the file system is exit 2 naming the file, never an internal error; a
template size past the documented limit (docs/interface.md, "Limits") is exit 2 naming the
option, with no warning from the geometry library on stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tmg import cli

ROOT = Path(__file__).resolve().parent.parent
RIDGE = str(ROOT / "examples" / "ridge-dispute.toml")
LONG = "a" * 300  # one path component past the 255 bytes of common file systems


@pytest.mark.parametrize("output", [f"{LONG}.png", f"{LONG}.svg", f"{LONG}/x.png"])
def test_render_to_a_name_too_long_is_exit_2_naming_the_file(tmp_path, capsys, output):
    out = tmp_path / output
    assert cli.main(["render", RIDGE, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error" not in err, err
    assert err.startswith("tmg render: cannot write ") and "File name too long" in err, err
    assert str(tmp_path) in err and LONG[:40] in err
    assert list(tmp_path.iterdir()) == []  # nothing half-written left behind


def test_save_to_a_name_too_long_in_a_folder_too_long_is_exit_2(tmp_path, capsys):
    out = tmp_path / LONG / "after.toml"
    assert cli.main(["move", RIDGE, "zerglings/1", "--to", "28,8", "--save", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error" not in err and "too long" in err, err


def _template(*size: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tmg", "template", RIDGE, "--flamer", "--attacker", "marines/m1",
         "--at", "30,20", *size, "--json"], capture_output=True, text=True, cwd=ROOT,
        timeout=120)


@pytest.mark.parametrize("size", [["--length", "1e308"], ["--wide", "1e308"],
                                  ["--length", "100000.001"], ["--narrow=-1e308"]])
def test_a_template_size_past_the_limit_is_exit_2_and_no_warning(size):
    p = _template(*size)
    assert p.returncode == 2 and p.stdout == "", p.stderr
    assert p.stderr.count("\n") == 1 and "Warning" not in p.stderr, p.stderr
    assert p.stderr.startswith(f"tmg template: {size[0].split('=')[0]}: "), p.stderr


def test_a_template_at_the_limit_answers_with_no_warning():
    p = _template("--length", "100000", "--wide", "100000")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    r = json.loads(p.stdout)
    assert r["shape"]["length"] == 100000 and r["shape"]["wide"] == 100000
