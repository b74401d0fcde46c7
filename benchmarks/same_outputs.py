"""Every README command and every example's `--json` output, byte for byte, today and at REV.

A change that is meant to be structure only (issue #22: the engine's house) must leave what the
user sees unchanged. This script runs the same commands against today's tree and against the tree
at REV (extracted with `git archive`, imported first on `PYTHONPATH`, so no second install), each
in a scratch directory holding today's `examples/`, and compares stdout, stderr, the exit status
and every file a command writes.

    python benchmarks/same_outputs.py --before main      # exit 0 when all are identical

Commands: the `tmg …` lines of the README's shell blocks (`tmg view` and `tmg serve` aside: a
window and a server print nothing to compare), each also with `--json` where the command has it,
then `tmg info`, `tmg report` and `tmg markers` with `--json` on every example. `--skip-survey`
leaves out the survey (the slowest by far).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("geom", "survey", "formats", "maps", "scenario", "viewer", "tmg", "service", "web")
NO_JSON = {"survey", "render", "layouts", "units", "check-layout"}  # no --json or files only


def readme_commands(skip_survey: bool) -> list[list[str]]:
    text = (ROOT / "README.md").read_text()
    out: list[list[str]] = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if not line.startswith("tmg "):
                continue
            argv = shlex.split(line)[1:]
            if argv[0] in ("view", "serve") or (skip_survey and argv[0] == "survey"):
                continue
            out.append(argv)
            if argv[0] not in NO_JSON and "--json" not in argv:
                out.append([*argv, "--json"])
    return out


def example_commands() -> list[list[str]]:
    out = []
    for ex in sorted((ROOT / "examples").glob("*.toml")):
        rel = f"examples/{ex.name}"
        out += [["info", rel, "--json"], ["report", rel, "--json"], ["markers", rel, "--json"]]
    return out


def tree_at(rev: str) -> Path:
    tmp = Path(tempfile.mkdtemp(prefix="tmg_before_"))
    present = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "--name-only", rev],
                             capture_output=True, text=True, check=True).stdout.split()
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", rev,
                          *[p for p in PACKAGES if p in present]],
                         capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=tar, check=True)
    return tmp


def run_all(code: Path, commands: list[list[str]]) -> list[tuple[str, bytes]]:
    """(command, digest of everything it showed and wrote) for each command, run on `code` one
    after another in one scratch directory (so `tmg check` finds the table `--save` wrote)."""
    results = []
    work = Path(tempfile.mkdtemp(prefix="tmg_run_"))
    shutil.copytree(ROOT / "examples", work / "examples")
    env = {**os.environ, "PYTHONPATH": str(code), "PYTHONHASHSEED": "0"}
    seen: dict[Path, bytes] = {}
    try:
        for argv in commands:
            p = subprocess.run([sys.executable, "-m", "tmg", *argv], cwd=work, env=env,
                               capture_output=True, timeout=1800)
            h = hashlib.sha256()
            h.update(b"rc %d\n" % p.returncode)
            h.update(p.stdout)
            h.update(b"\0stderr\0")
            h.update(p.stderr)
            for f in sorted(work.rglob("*")):
                if f.is_file() and "examples" not in f.relative_to(work).parts[:1]:
                    data = f.read_bytes()
                    if seen.get(f) != data:  # written (or rewritten) by this command
                        seen[f] = data
                        h.update(f"\0file {f.relative_to(work)}\0".encode())
                        h.update(data)
            results.append((shlex.join(["tmg", *argv]), h.digest()))
    finally:
        shutil.rmtree(work)
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", default="main", help="the git revision to compare with")
    ap.add_argument("--skip-survey", action="store_true")
    ap.add_argument("--only", metavar="TEXT", help="only the commands whose line contains TEXT")
    args = ap.parse_args()
    commands = readme_commands(args.skip_survey) + example_commands()
    if args.only:
        commands = [c for c in commands if args.only in shlex.join(c)]
    old = tree_at(args.before)
    try:
        now = run_all(ROOT, commands)
        then = run_all(old, commands)
    finally:
        shutil.rmtree(old)
    differ = [c for (c, a), (_, b) in zip(now, then, strict=True) if a != b]
    for c in differ:
        print(f"DIFFERS: {c}")
    print(f"{len(commands) - len(differ)} of {len(commands)} commands byte-identical "
          f"(today vs {args.before})")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
