"""Fuzzing the loader and every command as an attacker would (shared by tests/test_fuzz.py, which
draws its randomness from hypothesis, and benchmarks/fuzz.py, which runs 100,000 documents).

Documents are valid scenarios (the examples, random scenes) mutated: values replaced by huge
integers, non-finite or tiny floats, empty, long or unprintable strings (unpaired surrogates),
deep nesting, absurd lists; fields dropped, added, duplicated by the thousand; numbers nudged;
then written as TOML or JSON and sometimes damaged byte by byte. Command lines take the
documents' own references and options, or nasty ones.

Every run of `tmg.cli.main` is judged (`judge`):
- accepted: exit 0, and with `--json` valid RFC 8259 JSON (no NaN/Infinity);
- rejected: exit 2, one line on stderr of at most `MAX_LINE` characters, nothing on stdout;
- budget: exit 3, one line (the `--timeout` ran out: a clean stop, counted apart);
- crash: anything else (exit 1 "internal error", an exception, several lines, invalid JSON,
  output that cannot be printed as UTF-8);
- hang: the harness's own deadline passed (benchmarks/fuzz.py).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MAX_LINE = 500
UNIT_TYPES = ("marine", "marauder", "zergling", "hydralisk", "roach", "siege-tank", "zealot",
              "stalker", "queen", "raptor-zergling", "sentry", "medic")
KINDS = ("solid", "grass", "ramp", "token", "force-field")


def example_documents() -> list[dict[str, Any]]:
    return [tomllib.loads(p.read_text(encoding="utf-8"))
            for p in sorted((ROOT / "examples").glob("*.toml"))]


# --------------------------------------------------------------------------- random scenes

def random_scene(rng: random.Random) -> dict[str, Any]:
    """A scenario that mostly loads: a few pieces and units placed apart (odd but legal)."""
    w, d = rng.choice([(54, 36), (36, 36), (72, 36), (20, 12)])
    doc: dict[str, Any] = {"format": "tmg-scenario/1", "table": {"width": w, "depth": d}}
    if rng.random() < 0.15 and (w, d) == (54, 36):
        doc["table"] = {"layout": rng.choice(["standard-1", "standard-3", "standard-5"])}
    if rng.random() < 0.2 and (w, d) == (54, 36):
        doc["table"]["deployment"] = rng.choice(["gauntlet", "typhoon", "breach"])
    terrain, taken = [], []
    for i in range(rng.randint(0, 6)):
        cx, cy = rng.uniform(2, w - 2), rng.uniform(2, d - 2)
        e: dict[str, Any] = {"id": f"p{i}", "size": rng.choice([0, 1, 2, 2, 3, 4]),
                             "kind": rng.choice(KINDS[:3] * 3 + KINDS[3:])}
        if rng.random() < 0.5:
            e["rect"] = {"center": [cx, cy], "width": rng.uniform(0.5, 8),
                         "depth": rng.uniform(0.5, 4), "angle": rng.uniform(0, 180)}
        elif rng.random() < 0.5:
            e["circle"] = {"center": [cx, cy], "radius": rng.uniform(0.3, 3)}
        else:
            r = rng.uniform(0.5, 3)
            e["polygon"] = [[cx - r, cy - r], [cx + r, cy - r], [cx, cy + r]]
        if rng.random() < 0.3:
            e["standable"] = True
        if terrain and rng.random() < 0.1:
            e["on"] = rng.choice(terrain)["id"]
        terrain.append(e)
        taken.append((cx, cy, 4.0))
    units = []
    for ui in range(rng.randint(1, 5)):
        t = rng.choice(UNIT_TYPES)
        u: dict[str, Any] = {"id": f"{t}-{ui}", "type": t, "owner": rng.choice(["red", "blue"])}
        models = []
        for mi in range(rng.randint(1, 6)):
            for _ in range(20):
                x, y = rng.uniform(1.5, w - 1.5), rng.uniform(1.5, d - 1.5)
                if all((x - a) ** 2 + (y - b) ** 2 > (r + 2.5) ** 2 for a, b, r in taken):
                    models.append({"id": f"m{mi}", "at": [x, y]})
                    taken.append((x, y, 0.0))
                    break
        if not models:
            continue
        u["models"] = models
        if rng.random() < 0.2:
            u["statuses"] = [rng.choice(["burrowed", "hidden"])]
        if rng.random() < 0.15:  # §4.4: the recorded coherency of its last moving action
            u["coherent"] = rng.random() < 0.7
        if rng.random() < 0.05:  # in reserve: models by id alone
            u["reserve"], u["models"] = True, [m["id"] for m in models]
        units.append(u)
    doc["terrain"], doc["unit"] = terrain, units
    if rng.random() < 0.3:
        doc["marker"] = [{"id": k, "at": [rng.uniform(1, w - 1), rng.uniform(1, d - 1)]}
                         for k in range(1, rng.randint(2, 5))]
    return doc


# --------------------------------------------------------------------------- nasty values

@dataclass(frozen=True)
class Deep:
    """A list nested `depth` levels deep, written out only when serialised (no Python structure
    of that depth is ever built, so the harness itself never recurses that far)."""

    depth: int


def _nested(depth: int) -> Any:
    return Deep(depth)


NASTY: list[Callable[[random.Random], Any]] = [
    lambda r: r.choice([1, -1]) * 10 ** r.randint(16, 600),           # too large for a float
    lambda r: r.choice([1e308, -1e308, 5e-324, float("nan"), float("inf"), -float("inf"), -0.0]),
    lambda r: r.choice(["", " ", "\t", "/", ",", "a/b", "marker", "terrain/x", "1,2"]),
    lambda r: "x" * r.choice([201, 5000, 200_000]),                    # long strings
    lambda r: r.choice(["\ud800", "a\udcffb", "\udfff\ud800"]),         # unpaired surrogates
    lambda r: r.choice(["ü", "滨", "🙂", "\x00", "\u202e", "e\u0301"]),
    lambda r: _nested(r.choice([33, 300, 5000, 50_000])),              # deep nesting
    lambda r: r.choice([[], {}, [[]], {"": None}, [None]]),
    lambda r: [0] * r.choice([3, 1001, 30_000]),
    lambda r: [[r.uniform(-1e5, 1e5), r.uniform(-1e5, 1e5)] for _ in range(r.choice([2, 3, 40]))],
    lambda r: r.choice([True, False, None]),
    lambda r: r.randint(-3, 80),
    lambda r: r.uniform(-100, 100),
    lambda r: r.choice([1e-9, 1e-300, 99999.9, 100001, 2 ** 53 + 1]),
    lambda r: {"center": [r.uniform(-5, 60), r.uniform(-5, 40)], "radius": r.choice([1e-9, 50])},
    lambda r: {"center": [1, 1], "width": r.choice([0, 1e-12, 1e5]), "depth": 1,
               "angle": r.choice([1e300, 45])},
]


def nasty(rng: random.Random) -> Any:
    return rng.choice(NASTY)(rng)


# --------------------------------------------------------------------------- mutations

def _containers(doc: Any) -> list[Any]:
    """Every dict and list in the document (iteratively: documents may already be deep)."""
    out, stack = [], [doc]
    while stack and len(out) < 5000:
        v = stack.pop()
        if isinstance(v, dict):
            out.append(v)
            stack.extend(x for x in v.values() if isinstance(x, dict | list))
        elif isinstance(v, list):
            out.append(v)
            stack.extend(x for x in v if isinstance(x, dict | list))
    return out


def _nudge(rng: random.Random, v: Any) -> Any:
    if isinstance(v, bool) or not isinstance(v, int | float) or abs(v) > 1e300:
        return nasty(rng)
    return rng.choice([v + rng.uniform(-3, 3), v * rng.choice([-1, 0, 0.5, 2, 1000]),
                       v + rng.choice([1e-6, -1e-6, 1e-3, -1e-3]), rng.uniform(-10, 80)])


def mutate(rng: random.Random, doc: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        nodes = _containers(doc)
        node = rng.choice(nodes)
        op = rng.random()
        if isinstance(node, dict):
            keys = list(node)
            if not keys or op < 0.1:
                node[rng.choice(["bogus", "id", "size", "at", "models", "kind", "on"])] = nasty(rng)
            elif op < 0.25:
                del node[rng.choice(keys)]
            elif op < 0.6:
                k = rng.choice(keys)
                node[k] = _nudge(rng, node[k])
            else:
                node[rng.choice(keys)] = nasty(rng)
        else:
            if not node or op < 0.15:
                node.append(nasty(rng))
            elif op < 0.3:  # absurd sizes: an entry repeated by the hundred or thousand
                item = rng.choice(node)
                small = len(node) < 100 and len(_emit(item, False)) < 2000
                node.extend(copy.deepcopy(item) for _ in range(rng.choice([5, 600, 3000])
                                                               if small else 5))
            elif op < 0.45:
                del node[rng.randrange(len(node))]
            elif op < 0.75:
                i = rng.randrange(len(node))
                node[i] = _nudge(rng, node[i])
            else:
                node[rng.randrange(len(node))] = nasty(rng)
    return doc


# --------------------------------------------------------------------------- serialising

def _emit(v: Any, toml: bool) -> str:
    if isinstance(v, Deep):
        return "[" * v.depth + "1" + "]" * v.depth
    if isinstance(v, bool):
        return ("true" if v else "false")
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        names = {"nan": "nan", "inf": "inf", "-inf": "-inf"} if toml else \
            {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}
        return names.get(repr(v), repr(v))
    if isinstance(v, str):
        return json.dumps(v)  # \uXXXX escapes; TOML refuses surrogates, which the loader reports
    if v is None:
        return '""' if toml else "null"
    if isinstance(v, dict):
        if toml:
            return "{" + ", ".join(f"{_toml_key(k)} = {_emit(x, toml)}" for k, x in v.items()
                                   if x is not None) + "}"
        return "{" + ", ".join(f"{json.dumps(k)}: {_emit(x, toml)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_emit(x, toml) for x in v if not (toml and x is None)) + "]"
    return '""'


def _toml_key(k: str) -> str:
    return k if k and all(c.isalnum() or c in "-_" for c in k) and k.isascii() else json.dumps(k)


def serialise(rng: random.Random, doc: dict[str, Any]) -> tuple[str, bytes]:
    toml = rng.random() < 0.5
    if toml:
        text = "\n".join(f"{_toml_key(k)} = {_emit(v, True)}" for k, v in doc.items()
                         if v is not None)
    else:
        text = _emit(doc, False)
    data = text.encode("utf-8", "surrogatepass")
    if len(data) > 9 << 20:  # over the loader's limit anyway: keep the harness quick
        data = data[: 9 << 20]
    r = rng.random()
    if r < 0.04:
        data = data[: rng.randrange(len(data) + 1)]                          # truncated
    elif r < 0.08:
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            if b:
                b[rng.randrange(len(b))] = rng.randrange(256)                # flipped bytes
        data = bytes(b)
    elif r < 0.10:
        data = b"\xef\xbb\xbf" + data                                        # byte-order mark
    elif r < 0.12:
        data = text.encode("utf-16", "surrogatepass")                        # not UTF-8
    elif r < 0.13:
        data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))  # noise
    return (".toml" if toml else ".json"), data


def documents(rng: random.Random, bases: list[dict[str, Any]]) -> tuple[str, bytes]:
    """One fuzzed document: (suffix, bytes)."""
    base = random_scene(rng) if rng.random() < 0.4 else rng.choice(bases)
    doc = base if rng.random() < 0.15 else mutate(rng, base)
    return serialise(rng, doc)


# --------------------------------------------------------------------------- command lines

NASTY_ARGS = ["", "/", "a/b/c", "x" * 5000, "\udcff", "nan,nan", "1e400,1", "-1e308,0",
              "marker/99999999999999999999999", "marker/-1", "terrain/", "zone/red",
              "zone/blue", "0,0", "1e-320,5", "--json", "-", "marker/1"]
NASTY_NUMBERS = ["nan", "inf", "-inf", "-1", "0", "1e308", "1e-320", "", "1_000", "0x10",
                 "12", "3.5", "9" * 400]


def commands_for(rng: random.Random, file: str, info: dict[str, Any] | None,
                 out_dir: Path) -> list[str]:
    """A command line for `file`, using the references `tmg info --json` gave (or none)."""
    units = (info or {}).get("units") or []
    models = [f"{u['id']}/{m['id']}" for u in units for m in u["models"]]
    unit_ids = [u["id"] for u in units]
    pieces = [f"terrain/{p['id']}" for p in (info or {}).get("terrain") or []]
    markers = [f"marker/{m['id']}" for m in (info or {}).get("markers") or []]

    def ref(kind: str = "any") -> str:
        pools = {"model": models, "unit": unit_ids,
                 "any": models + unit_ids + markers + pieces}[kind]
        if not pools or rng.random() < 0.12:
            return rng.choice(NASTY_ARGS)
        return rng.choice(pools)

    def num() -> str:
        return rng.choice(NASTY_NUMBERS) if rng.random() < 0.15 else f"{rng.uniform(0, 30):.3f}"

    def xy() -> str:
        if rng.random() < 0.15:
            return rng.choice(NASTY_ARGS)
        return f"{rng.uniform(-2, 60):.3f},{rng.uniform(-2, 40):.3f}"

    c = rng.choice(["distance", "los", "engaged", "coherency", "move", "move", "charge", "charge",
                    "template", "markers", "report", "check-layout", "info", "units", "layouts",
                    "render", "view", "fight", "disengage"])
    if c == "distance":
        argv = [c, file, ref(), ref()] + (["--within", num()] if rng.random() < 0.5 else [])
    elif c == "los":
        argv = [c, file, ref(), ref()] + (["--range", num()] if rng.random() < 0.3 else [])
    elif c == "engaged":
        argv = [c, file, ref(), ref()]
    elif c in ("coherency", "fight", "disengage"):
        argv = [c, file, ref("unit")]
        if rng.random() < 0.2:
            argv += ["--leading", rng.choice(["m0", "1", "", "\udcff"])]
    elif c == "move":
        argv = [c, file, ref("model"), "--to", xy()]
        extra = rng.random()
        if extra < 0.15:
            argv = [c, file, ref("model"), rng.choice(["--towards", "--away"]), ref("unit")]
        elif extra < 0.25:
            argv += ["--place", num()]
        elif extra < 0.32:
            argv += ["--deploy"]
        elif extra < 0.4:
            argv += ["--reach"]
        if rng.random() < 0.5:
            argv += ["--allowance", num()]
    elif c == "charge":
        argv = [c, file, ref("unit"), "--targets", ",".join(ref("unit") for _ in
                                                            range(rng.randint(1, 2)))]
        if rng.random() < 0.3:
            argv += ["--modifier", rng.choice(["-2", "2", "-100", "nan", "1e308"])]
    elif c == "template":
        argv = [c, file, rng.choice(["--blast", "--flamer"]), "--attacker", ref("model")]
        argv += ["--target", ref("model")] if rng.random() < 0.7 else ["--at", xy()]
        if rng.random() < 0.3:
            argv += [rng.choice(["--diameter", "--length", "--narrow", "--wide"]), num()]
    elif c == "markers":
        argv = [c, file] + (["--fix-terrain"] if rng.random() < 0.3 else [])
        if rng.random() < 0.2:
            argv += ["--previous", rng.choice(["1=red", "5=blue,1=red", "x", "1=red,1=blue"])]
    elif c == "units":
        argv = [c] + ([rng.choice(list(UNIT_TYPES) + NASTY_ARGS)] if rng.random() < 0.7 else [])
    elif c == "layouts":
        argv = [c]
    elif c == "render":
        argv = [c, file, "-o", str(out_dir / rng.choice(["a.png", "a.txt", "no/such/a.png"])),
                "--width", rng.choice(["200", "0", "-5", "99999", "x"])]
        if rng.random() < 0.3:
            argv += ["--los", ref("model"), ref("model")]
    elif c == "view":  # never a good file: a window would wait for its user
        argv = [c, rng.choice(["", "standard-9", str(out_dir / "missing.toml")])]
    else:
        argv = [c, file]
    if rng.random() < 0.04:  # a stray or misused option
        argv.insert(rng.randrange(1, len(argv) + 1), rng.choice(["--nope", "-x", "--json=1",
                                                                 "--timeout", "--timeout=-1"]))
    if c != "view" and rng.random() < 0.85:
        argv.append("--json")
    return argv


# --------------------------------------------------------------------------- running, judging

@dataclass
class Outcome:
    verdict: str          # accepted | rejected | budget | crash
    rc: int | None
    detail: str = ""
    out: str = ""


def run_cli(argv: list[str]) -> tuple[int | None, str, str, str | None]:
    """`tmg.cli.main(argv)` in this process: (exit status, stdout, stderr, escaped exception)."""
    from tmg.cli import main

    out, err = io.StringIO(), io.StringIO()
    rc: int | None = None
    escaped = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else None
        except Exception as exc:  # noqa: BLE001 - a crash is what we are counting
            escaped = f"{type(exc).__name__}: {exc}"[:300]
    return rc, out.getvalue(), err.getvalue(), escaped


def _strict_json(text: str) -> Any:
    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=no_constant)


def judge(argv: list[str], rc: int | None, out: str, err: str, escaped: str | None) -> Outcome:
    for stream in (out, err):
        try:
            stream.encode("utf-8")
        except UnicodeEncodeError:
            return Outcome("crash", rc, "output that cannot be printed as UTF-8")
    if escaped is not None:
        return Outcome("crash", rc, f"exception escaped main: {escaped}")
    if "Traceback" in err:
        return Outcome("crash", rc, "a traceback")
    lines = err.splitlines()
    if rc == 0:
        if "--json" in argv and argv[0] not in ("view",) and "-h" not in argv \
                and "--help" not in argv:
            try:
                _strict_json(out)
            except ValueError as exc:
                return Outcome("crash", rc, f"invalid JSON: {str(exc)[:120]}")
        return Outcome("accepted", rc, out=out)
    if rc in (2, 3):
        if len(lines) != 1 or len(lines[0]) > MAX_LINE or out.strip():
            return Outcome("crash", rc, f"not one short line: {len(lines)} lines, "
                           f"{max((len(x) for x in lines), default=0)} chars")
        return Outcome("rejected" if rc == 2 else "budget", rc, lines[0][:200])
    return Outcome("crash", rc, (lines[0] if lines else "")[:300])


def check(argv: list[str]) -> Outcome:
    return judge(argv, *run_cli(argv))
