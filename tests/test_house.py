"""The engine's house stays in order (issue #22): the wings' order, no import circle, no private
name used across modules, no function-local import of a project module.

The rules, read from the source (an AST walk; nothing is imported):

- `geom` is a ground floor of root modules and a row of wings (subpackages). `ORDER` lists them
  from the bottom up; a module may import from its own wing, or from an entry below its own —
  a wing only through its face (`geom.paths`, never `geom.paths._navigator`).
- Outside `geom`, code uses the engine through `geom`, a root module or a wing's face.
  `survey` (an application of the engine) imports nothing of the project but `geom`.
- No import circle among the project's modules (imports under `if TYPE_CHECKING:` are
  annotations, never run, and are left out).
- No import inside a function of a project module, except the two lazy places: the command
  registry (`tmg.cli` loads a command's module by name) and `geom/__init__.py`'s `__getattr__`.
- No `from M import _name` across modules, and no `obj._name` read on anything but `self`/`cls`
  (a private module of one's own package, `from . import _cover as cover`, is fine).

The tests (not run here) may reach into the wings' private modules: they test them.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("geom", "survey", "formats", "maps", "scenario", "viewer", "tmg", "service", "web")
# the engine, bottom up: root modules and wings (subpackages)
ORDER = ("tolerance", "errors", "prepared", "model", "verdict", "bases", "distance", "elevation", "lines",
         "engagement", "sight", "templates", "paths", "movement", "combat", "markers", "judge")
# the outer packages, bottom up (service and tmg are one front: `tmg serve` starts the service,
# which answers with the commands' own code path)
OUTER = {"geom": 0, "survey": 1, "formats": 1, "maps": 2, "scenario": 3, "web": 4, "viewer": 4,
         "tmg": 5, "service": 5}
# private attributes of third-party objects that are their public names
FOREIGN_NAMES = {"_0", "_1", "_2", "_3", "_4", "_5", "_6", "_7", "_8", "_9",  # pyglet keys
                 "_replace", "_asdict", "_fields", "_make"}  # namedtuple's public API


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources() -> dict[str, tuple[Path, ast.Module]]:
    out = {}
    for pkg in PACKAGES:
        for p in sorted((ROOT / pkg).rglob("*.py")):
            if "data" in p.relative_to(ROOT).parts:
                continue
            out[module_name(p)] = (p, ast.parse(p.read_text(encoding="utf-8")))
    return out


SOURCES = sources()


def shown(path: Path) -> Path:
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def is_package(mod: str) -> bool:
    return SOURCES[mod][0].name == "__init__.py"


def absolute(mod: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = mod.split(".") if is_package(mod) else mod.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def type_checking_nodes(tree: ast.Module) -> set[int]:
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test):
            out |= {id(x) for x in ast.walk(n)}
    return out


def function_nodes(tree: ast.Module) -> set[int]:
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            out |= {id(x) for x in ast.walk(n) if x is not n}
    return out


class Import:
    def __init__(self, mod: str, target: str, names: list[str], line: int, local: bool,
                 typing_only: bool) -> None:
        self.mod, self.target, self.names, self.line = mod, target, names, line
        self.local, self.typing_only = local, typing_only

    def __repr__(self) -> str:
        return f"{shown(SOURCES[self.mod][0])}:{self.line} imports {self.target}"

    def targets(self) -> list[str]:
        """The project modules this import loads: the submodules it names, else the module."""
        subs = [f"{self.target}.{n}" for n in self.names if f"{self.target}.{n}" in SOURCES]
        return subs if subs and len(subs) == len(self.names) else [self.target, *subs]


def imports() -> list[Import]:
    out = []
    for mod, (_, tree) in SOURCES.items():
        tc, fn = type_checking_nodes(tree), function_nodes(tree)
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom):
                target, names = absolute(mod, n), [a.name for a in n.names]
            elif isinstance(n, ast.Import):
                target, names = n.names[0].name, []
                if len(n.names) > 1:
                    raise AssertionError(f"{mod}:{n.lineno}: one import per line")
            else:
                continue
            if target.split(".")[0] in PACKAGES:
                out.append(Import(mod, target, names, n.lineno, id(n) in fn, id(n) in tc))
    return out


IMPORTS = imports()


def entry(mod: str) -> str:
    """The ORDER entry of an engine module: its wing, or the root module itself."""
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_rules_see_the_whole_engine() -> None:
    engine = {entry(m) for m in SOURCES if m.startswith("geom.")}
    assert engine == set(ORDER), engine ^ set(ORDER)
    assert len([i for i in IMPORTS if i.mod.startswith("geom.")]) > 200


def test_the_engine_imports_down_the_wings_and_through_their_faces() -> None:
    bad = []
    for i in IMPORTS:
        if not i.mod.startswith("geom.") or i.typing_only:
            continue
        if not i.target.startswith("geom"):
            bad.append(f"{i}: the engine imports no front end")
            continue
        for t in i.targets():
            if t == "geom":
                bad.append(f"{i}: the engine's modules never import the public API")
                continue
            own, their = entry(i.mod), entry(t)
            if own == their:
                continue
            if ORDER.index(their) > ORDER.index(own):
                bad.append(f"{i}: {their} is above {own} in the wings' order")
            if len(t.split(".")) > 2:
                bad.append(f"{i}: another wing's internals (use the face geom.{their})")
    assert not bad, "\n".join(bad)


def test_front_ends_use_the_public_names_and_point_down() -> None:
    bad = []
    for i in IMPORTS:
        pkg = i.mod.split(".")[0]
        if pkg == "geom" or i.typing_only:
            continue
        for t in i.targets():
            tp = t.split(".")[0]
            if tp == "geom" and len(t.split(".")) > 2:
                bad.append(f"{i}: the engine's internals (use geom.{t.split('.')[1]})")
            if pkg == "survey" and tp not in ("geom", "survey"):
                bad.append(f"{i}: the survey imports only the engine")
            if tp != pkg and OUTER[tp] > OUTER[pkg]:
                bad.append(f"{i}: {tp} is above {pkg}")
    assert not bad, "\n".join(bad)


def test_no_import_circle() -> None:
    graph: dict[str, set[str]] = defaultdict(set)
    for i in IMPORTS:
        if i.typing_only or i.local:
            continue
        for t in i.targets():
            if t in SOURCES and t != i.mod:
                graph[i.mod].add(t)
        # importing a.b.c runs a/__init__ and a/b/__init__ first
        parts = i.target.split(".")
        for k in range(1, len(parts)):
            pkg = ".".join(parts[:k])
            if pkg in SOURCES and pkg != i.mod and not i.mod.startswith(pkg + "."):
                graph[i.mod].add(pkg)
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                cycles.append(" -> ".join(stack[stack.index(t):] + [t]))
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(SOURCES):
        if m not in state:
            visit(m)
    assert not cycles, "\n".join(cycles)


def test_no_function_local_import_of_a_project_module() -> None:
    allowed = {"geom"}  # geom/__init__.py: PEP 562 __getattr__ loads a wing on first use
    bad = [str(i) for i in IMPORTS if i.local and i.mod not in allowed]
    assert not bad, "\n".join(bad)


def private_attributes(tree: ast.Module) -> set[str]:
    """The private attributes a module's own classes define (`self._x = …`, a field `_x: T`,
    a method `_x`): the module may read them on any object of those classes."""
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self" \
                and isinstance(n.ctx, ast.Store):
            out.add(n.attr)
        if isinstance(n, ast.ClassDef):
            for b in n.body:
                if isinstance(b, ast.AnnAssign) and isinstance(b.target, ast.Name):
                    out.add(b.target.id)
                elif isinstance(b, ast.FunctionDef | ast.AsyncFunctionDef):
                    out.add(b.name)
    return {x for x in out if x.startswith("_")}


def test_no_private_name_across_modules() -> None:
    bad = []
    for i in IMPORTS:
        for n in i.names:
            if not n.startswith("_") or n.startswith("__"):
                continue
            sub = f"{i.target}.{n}"
            own_package = i.mod.rsplit(".", 1)[0] if not is_package(i.mod) else i.mod
            if sub in SOURCES and (i.target == own_package or i.mod.split(".")[0] == "tests"):
                continue  # a private module of one's own package
            bad.append(f"{i}: private name {n}")
    for path, tree in SOURCES.values():
        owned = private_attributes(tree)
        for n in ast.walk(tree):
            if (isinstance(n, ast.Attribute) and n.attr.startswith("_")
                    and not n.attr.startswith("__") and n.attr not in FOREIGN_NAMES | owned
                    and not (isinstance(n.value, ast.Name) and n.value.id in ("self", "cls"))):
                bad.append(f"{shown(path)}:{n.lineno}: reads {ast.unparse(n)}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("face", [m for m in SOURCES if m.startswith("geom.")
                                  and is_package(m)] + ["survey"])
def test_each_wing_has_a_face_with_a_docstring_naming_its_rules(face: str) -> None:
    tree = SOURCES[face][1]
    doc = ast.get_docstring(tree) or ""
    assert "§" in doc and "TODO" not in doc, f"{face}: the face's docstring names its rules"
    names = next((n for n in tree.body if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets)),
                 None)
    assert names is not None, f"{face} lists its public names in __all__"


def test_the_checker_catches_what_it_forbids(tmp_path: Path) -> None:
    """The rules above fail on a module that breaks them (so a green run means something)."""
    src = ("from __future__ import annotations\n"
           "from ..paths._navigator import Navigator\n"
           "from ..judge import check\n"
           "def f(x):\n    from ..sight import line_of_sight\n    return x._slots\n")
    tree = ast.parse(src)
    SOURCES["geom.lines._probe"] = (tmp_path / "_probe.py", tree)
    (tmp_path / "_probe.py").write_text(src)
    try:
        extra = [i for i in imports() if i.mod == "geom.lines._probe"]
        IMPORTS.extend(extra)
        with pytest.raises(AssertionError, match="internals"):
            test_the_engine_imports_down_the_wings_and_through_their_faces()
        with pytest.raises(AssertionError, match="above lines"):
            test_the_engine_imports_down_the_wings_and_through_their_faces()
        with pytest.raises(AssertionError, match="_probe.py:5 imports geom.sight"):
            test_no_function_local_import_of_a_project_module()
    finally:
        del SOURCES["geom.lines._probe"]
        for i in extra:
            IMPORTS.remove(i)
