"""The command line's own conventions: the registry, start-up imports, --version, python -m tmg,
usage errors naming the subcommand, `tmg` alone, the time budget (exit 3), JSON that is always
valid, unprintable text, and every file the project writes written atomically."""

from __future__ import annotations

import ast
import json
import math
import pkgutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import tmg.commands
from tmg import cli
from tmg.commands import COMMANDS
from tmg.output import one_line, to_json

ROOT = Path(__file__).resolve().parent.parent
RIDGE = str(ROOT / "examples" / "ridge-dispute.toml")


def py(*code_or_args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *code_or_args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, **kw)  # type: ignore[call-overload]


# --------------------------------------------------------------------------- the registry

def test_every_command_module_is_in_the_registry():
    modules = {m.name for m in pkgutil.iter_modules(tmg.commands.__path__)
               if not m.name.startswith("_")}
    registered = {mod for mod, _ in COMMANDS.values()}
    assert modules - registered == set(), "add these modules to tmg/commands/__init__.py"
    assert registered - modules == set(), "the registry names modules that do not exist"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_module_registers_its_name_and_help(name):
    """A module's parser carries the registry's name; its help, when it gives one, is the
    registry's (one text, shown by `tmg --help`)."""
    parser = cli.build_parser([name])
    p = parser.commands[name]
    assert p.prog == f"tmg {name}"
    assert any(a.action.dest == "json" for a in p.arguments)
    listed = " ".join(parser.format_help().split())
    assert f" {name} {COMMANDS[name][1]}" in listed


STARTUP = """
import sys
from tmg.cli import main
rc = main({argv!r})
print("\\nMODULES: " + " ".join(sorted(m for m in sys.modules if m.startswith(("tmg.commands.", "scipy",
      "viewer", "pyglet", "maps", "geom.")))), file=sys.stderr)
sys.exit(rc)
"""


def _imported(argv: list[str]) -> set[str]:
    p = py("-c", STARTUP.format(argv=argv))
    assert p.returncode == 0, p.stderr
    return set(p.stderr.strip().splitlines()[-1].split()[1:])


def test_help_imports_no_command():
    assert {m for m in _imported(["--help"]) if not m.startswith("geom.")} == set()


def test_los_imports_only_its_command_and_no_scipy_or_viewer():
    mods = _imported(["los", RIDGE, "marines/m1", "zerglings/1"])
    assert {m for m in mods if m.startswith("tmg.commands.")} <= {"tmg.commands.los",
                                                                  "tmg.commands._common"}
    assert not {m for m in mods if m.startswith(("scipy", "viewer", "pyglet"))}, mods
    # sight needs neither the movement wings nor the saving of a moved table (issue 26: the
    # loader once pulled the whole movement wing in for one overlap test)
    assert not {m for m in mods if m.startswith(("geom.paths", "geom.movement", "geom.combat",
                                                 "tmg.commands._save"))}, mods


def test_charge_and_move_import_no_scipy():
    """scipy.sparse serves only the tangent graph's test reference (issue 26: it cost every
    charge ~0.15 s of start-up)."""
    charge = ROOT / "examples" / "charge-around-wall.toml"
    for argv in (["charge", str(charge), "zerglings", "--targets", "marine"],
                 ["move", RIDGE, "zerglings/1", "--to", "28,8"]):
        mods = _imported(argv)
        assert not {m for m in mods if m.startswith(("scipy", "viewer", "pyglet"))}, mods


# --------------------------------------------------------------------------- conventions

def test_version_and_python_m_tmg():
    p = py("-m", "tmg", "--version")
    assert p.returncode == 0 and p.stdout.startswith("tmg ") and p.stdout.split()[1][0].isdigit()
    p = py("-m", "tmg", "distance", RIDGE, "marines/m1", "zerglings/1", "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["distance"] > 0


def test_tmg_alone_prints_the_help_and_exits_0(capsys):
    assert cli.main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: tmg") and all(name in out for name in COMMANDS)


@pytest.mark.parametrize("argv,prefix", [
    (["los", RIDGE], "tmg los: error: the following arguments are required: A, B"),
    (["distance", RIDGE, "a", "b", "--within", "x"], "tmg distance: error: argument --within"),
    (["move", RIDGE, "marines/m1", "--bogus"], "tmg move: error: unrecognized arguments"),
    (["charge", RIDGE, "zerglings", "--targets", "m", "--timeout", "-1"],
     "tmg charge: error: argument --timeout"),
    (["nosuch"], "tmg: error: argument COMMAND: invalid choice: 'nosuch'"),
])
def test_usage_errors_name_the_subcommand(capsys, argv, prefix):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(prefix) and err.count("\n") == 1, err


def test_help_of_one_command(capsys):
    assert cli.main(["los", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: tmg los") and "--timeout" in out and "--json" in out


# --------------------------------------------------------------------------- the budget

def test_time_budget_ends_with_exit_3(capsys, monkeypatch):
    import tmg.commands.layouts as layouts

    def slow(args):
        time.sleep(3)
        return {}

    monkeypatch.setattr(layouts, "run", slow)
    t = time.perf_counter()
    assert cli.main(["layouts", "--timeout", "0.2"]) == 3
    assert time.perf_counter() - t < 2
    err = capsys.readouterr().err
    assert err.startswith("tmg layouts: no answer within the time budget of 0.2 s")
    assert err.count("\n") == 1


def test_a_survey_is_a_batch_job_with_an_hour_s_budget():
    # `tmg survey --all` at a 2" step takes minutes: the question default (60 s) would end
    # it; a survey's default is an hour, other commands keep a minute
    from tmg.budget import BATCH_TIMEOUT, DEFAULT_TIMEOUT
    for name, budget in (("survey", BATCH_TIMEOUT), ("charge", DEFAULT_TIMEOUT)):
        p = cli.build_parser([name]).commands[name]
        assert p.get_default("timeout") == budget
        assert f"(default {budget:g}; 0: no limit)" in " ".join(p.format_help().split())
    assert BATCH_TIMEOUT == 3600 and DEFAULT_TIMEOUT == 60


def test_the_budget_is_not_swallowed_by_the_engine(capsys, monkeypatch):
    """`except Exception` in engine code cannot swallow the budget (a BaseException)."""
    import tmg.commands.layouts as layouts

    def stubborn(args):
        for _ in range(100):
            try:
                time.sleep(0.05)
            except Exception:  # noqa: BLE001 - exactly what the budget must get through
                pass
        return {}

    monkeypatch.setattr(layouts, "run", stubborn)
    assert cli.main(["layouts", "--timeout", "0.1"]) == 3


# --------------------------------------------------------------------------- output

def test_json_is_always_valid(capsys, monkeypatch):
    import tmg.commands.layouts as layouts

    odd = {"nan": math.nan, "inf": [math.inf, -math.inf], "np": np.float64(1.25),
           "npi": np.int64(3), "arr": np.array([1.0, np.nan]), "set": {"b", "a"},
           "path": Path("x/y"), 7: "int key", "s": "a\ud800b", "t": (1, 2)}
    monkeypatch.setattr(layouts, "run", lambda args: odd)
    assert cli.main(["layouts", "--json"]) == 0
    out = capsys.readouterr().out

    def refuse(name):
        raise ValueError(name)

    r = json.loads(out, parse_constant=refuse)
    assert r["nan"] is None and r["inf"] == [None, None] and r["np"] == 1.25 and r["npi"] == 3
    assert r["arr"] == [1.0, None] and r["set"] == ["a", "b"] and r["path"] == "x/y"
    assert r["7"] == "int key" and r["s"] == "a\\ud800b" and r["t"] == [1, 2]
    out.encode("utf-8")  # printable


def test_to_json_refuses_nan_itself():
    assert to_json({"a": float("nan")}) == '{\n  "a": null\n}'
    with pytest.raises(ValueError):
        json.dumps(float("nan"), allow_nan=False)


def test_error_lines_are_short():
    assert len(one_line("x" * 200_000)) == 400
    assert one_line("a\nb\nc") == "a b c"


def test_unprintable_arguments_and_ids(tmp_path):
    """Bytes a shell cannot decode, and a JSON id holding an unpaired surrogate: one line."""
    p = subprocess.run([sys.executable, "-m", "tmg", "distance", RIDGE.encode(), b"marines/\xff",
                        b"zerglings"], capture_output=True, cwd=ROOT, timeout=120)
    assert p.returncode == 2 and p.stderr.count(b"\n") == 1 and b"Traceback" not in p.stderr
    assert b"no model" in p.stderr
    f = tmp_path / "s.json"
    f.write_text('{"table": {"width": 10, "depth": 10}, "unit": [{"id": "a\\ud800", '
                 '"owner": "red", "size": 1, "base_mm": 25, "models": [[5, 5]]}]}')
    q = py("-m", "tmg", "info", str(f), "--json")
    assert q.returncode == 2 and q.stderr.count("\n") == 1
    assert "unit[0]" in q.stderr and "'id'" in q.stderr and "surrogate" in q.stderr


# --------------------------------------------------------------------------- atomic writes

WRITERS = ("write_text", "write_bytes", "savefig", "tofile", "dump")
PACKAGES = ("geom", "formats", "maps", "scenario", "tmg", "viewer", "benchmarks",
            "service")


def _direct_writes(path: Path) -> list[str]:
    """Calls that write a file without formats.atomic: open(..., 'w'/'a'/'x'/'+'),
    Path.write_text/write_bytes, numpy/matplotlib savers, json/pickle dump to a file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if name == "open" or (isinstance(f, ast.Attribute) and f.attr == "fdopen"):
            modes = [a for a in node.args[1:2]] + [k.value for k in node.keywords
                                                   if k.arg == "mode"]
            for m in modes:
                if isinstance(m, ast.Constant) and isinstance(m.value, str) \
                        and set(m.value) & set("wax+"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} open(..., "
                                 f"{m.value!r})")
        elif isinstance(f, ast.Attribute) and (name in WRITERS or name == "save"):
            owner = f.value.id if isinstance(f.value, ast.Name) else ""
            if owner == "atomic" or (name in ("dump", "save") and owner not in (
                    "json", "pickle", "tomli_w", "np", "numpy")):
                continue
            found.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}(...)")
    return found


def test_every_file_the_project_writes_is_written_atomically():
    files = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    assert len(files) > 50
    atomic = ROOT / "formats" / "atomic.py"
    found = [w for p in files if p != atomic for w in _direct_writes(p)]
    assert not found, "write through formats.atomic instead:\n" + "\n".join(found)


def test_the_scan_sees_direct_writes(tmp_path):
    p = ROOT / "formats" / "_scan_probe.py"
    try:
        p.write_text("open('x', 'w').write('a')\nimport pathlib\npathlib.Path('y')"
                     ".write_text('b')\nimport json\njson.dump({}, f)\n")
        assert len(_direct_writes(p)) == 3
    finally:
        p.unlink()
