"""Fuzzing in the suite: hypothesis drives the generators of tests/_fuzz.py (derandomised in CI:
profile `ci` in conftest.py). Every document through the loader, and every command on accepted
and rejected documents, must end accepted (exit 0, valid JSON), cleanly rejected (exit 2, one
short line) or stopped by its budget (exit 3, one line) — never a crash. benchmarks/fuzz.py runs
the same generators over 100,000 documents."""

from __future__ import annotations

import contextlib
import io
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from formats.atomic import write_bytes
from tests import _fuzz
from tmg.cli import build_parser
from tmg.commands import COMMANDS

BASES = _fuzz.example_documents()
RANDOMS = st.randoms(use_true_random=False)
HEALTH = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
          HealthCheck.data_too_large]


def _write(tmp: Path, suffix: str, data: bytes) -> str:
    p = tmp / f"doc{suffix}"
    write_bytes(p, data)
    return str(p)


def _assert_clean(out: _fuzz.Outcome, argv: list[str], data: bytes | None = None) -> None:
    assert out.verdict != "crash", (out.detail, argv, (data or b"")[:400])


@settings(max_examples=300, suppress_health_check=HEALTH)
@given(rng=RANDOMS)
def test_fuzzed_documents_never_crash_the_loader(tmp_path, rng: random.Random):
    suffix, data = _fuzz.documents(rng, BASES)
    argv = ["info", _write(tmp_path, suffix, data), "--json"]
    _assert_clean(_fuzz.check(argv), argv, data)


@settings(max_examples=120, suppress_health_check=HEALTH)
@given(rng=RANDOMS)
def test_fuzzed_command_lines_never_crash(tmp_path, rng: random.Random):
    """A random scene (mostly accepted, sometimes mutated) and a random command line on it."""
    doc = _fuzz.random_scene(rng)
    if rng.random() < 0.3:
        doc = _fuzz.mutate(rng, doc)
    suffix, data = _fuzz.serialise(rng, doc)
    file = _write(tmp_path, suffix, data)
    info = _fuzz.check(["info", file, "--json"])
    _assert_clean(info, ["info", file], data)
    parsed = json.loads(info.out) if info.verdict == "accepted" else None
    argv = _fuzz.commands_for(rng, file, parsed, tmp_path)
    if argv[0] != "view":
        argv += ["--timeout", "20"]
    _assert_clean(_fuzz.check(argv), argv, data)


def _parses(argv: list[str]) -> bool:
    """Would this command line get past the parser (and so run the command)?"""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            build_parser([argv[0]]).parse_args(argv)
        except SystemExit:
            return False
    return True


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_takes_nasty_arguments(tmp_path, command):
    """Every command, with every nasty argument in each of its positions, on a good file."""
    file = str(Path(__file__).resolve().parent.parent / "examples" / "ridge-dispute.toml")
    rng = random.Random(command)
    shapes = {"distance": ["A", "B"], "los": ["A", "B"], "engaged": ["A", "B"],
              "coherency": ["A"], "fight": ["A"], "disengage": ["A"], "move": ["A", "--to", "A"], "charge": ["A", "--targets", "A"],
              "template": ["--blast", "--attacker", "A", "--target", "A"], "units": ["A"],
              "markers": ["--previous", "A"], "render": ["-o", "A"]}
    shape = shapes.get(command, [])
    argvs = []
    tail = ["--json"] if command != "view" else []
    for bad in _fuzz.NASTY_ARGS + _fuzz.NASTY_NUMBERS:
        slots = [i for i, a in enumerate(shape) if a == "A"]
        if not slots:  # the nasty value as the FILE
            argvs.append([command, bad] + tail)
        for k in slots:
            args = [bad if i == k else ("marines/m1" if a == "A" else a)
                    for i, a in enumerate(shape)]
            head = [command] if command in ("units", "layouts") else [command, file]
            if command == "render":
                args = ["-o", str(tmp_path / "x.txt")] if bad else args
            argvs.append(head + args + tail)
    argvs.append([command, "\udcff"])
    argvs.append([command, str(tmp_path / "missing.toml"), "--json"])
    rng.shuffle(argvs)
    for argv in argvs:
        if command == "view" and len(argv) > 1 and argv[1] == file:
            continue  # a good file would open a window and wait for its user
        if command == "serve" and _parses(argv):
            continue  # a good command line starts a server that waits for its clients
        _assert_clean(_fuzz.check(argv), argv)
