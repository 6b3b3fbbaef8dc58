"""The package's layout holds: layers import only downwards, no import circle, a small top level.

docs/architecture.md explains the layers; this test is what keeps them true.
"""

from __future__ import annotations

import ast
import functools
import importlib
import pkgutil
from pathlib import Path

import pytest

from autopilot import cli, commands

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "autopilot"
# Lowest first. A unit may import its own modules and any unit of a lower layer, never a higher one.
LAYERS = [
    {"handoff", "knowledge"},  # the wings' faces: they import nothing
    {"text", "clock", "fastjson"},  # clipping, timestamps, JSON without the json package: no bridge imports
    {"redact", "digest", "clipboard", "output", "scripted"},  # leaves: nothing above the line above
    {"errors"},
    {"config"},  # settings: every environment variable is read here (the homes too)
    {"paths", "fsutil"},
    {"git"},
    {"codex"},  # Codex's own formats and files
    {"backends", "transcripts"},  # Codex transports; transcript readers
    {"loop", "sources"},  # the autopilot loop; read-only session sources
    {"memory"},  # the active memory of live sessions
    {"packets"},  # handover packets (they carry the sending session's active memory and seed the receiver's)
    {"search"},  # the evidence index and its search (CLI-only)
    {"durable"},  # approved durable knowledge: candidates, decisions by a person, supersession
    {"share"},  # packets and approved rules shared through the project's git remote
    {"hooks"},  # Claude Code's adapters: event -> operation -> hook JSON
    {"dashboard"},  # the local web app: one API over the operations below, served on 127.0.0.1
    {"commands"},  # the CLI's adapters: arguments -> operation -> JSON (`hook EVENT` runs a hook)
    {"cli"},
    {"__main__"},
]
RANK = {unit: n for n, layer in enumerate(LAYERS) for unit in layer}


@functools.cache
def modules() -> dict[str, Path]:
    """Every bridge module (the stand-alone scripts Codex runs are not part of the package's graph)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        if "assets" in path.relative_to(PACKAGE).parts:
            continue
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        found[".".join(p for p in rel.parts if p != "__init__")] = path
    return found


@functools.cache
def parsed(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once per run (every check here walks the same files)."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of a module's syntax tree, walked once per run."""
    return tuple(ast.walk(parsed(path)))


def unit(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 2 and (parts[1] in ("handoff", "knowledge") or parts[1:3] == ["loop", "backends"]):
        return parts[2]
    return parts[1] if len(parts) > 1 else "autopilot"


@functools.cache
def imports(path: Path, *, top_level_only: bool = False) -> frozenset[str]:
    """The autopilot modules a file imports (inside functions too, unless ``top_level_only``)."""
    found: set[str] = set()
    for node in parsed(path).body if top_level_only else nodes(path):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "autopilot":
            if node.module == "autopilot":
                found.update(f"autopilot.{a.name}" for a in node.names if a.name != "__version__")
            else:
                found.add(node.module)
                found.update(f"{node.module}.{a.name}" for a in node.names)  # `from pkg import module`
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "autopilot")
    known = modules()
    return frozenset(m for m in found if m in known)


def test_every_unit_has_a_layer():
    """A new package or top-level module must be placed in LAYERS (and in docs/architecture.md)."""
    assert {unit(m) for m in modules() if m != "autopilot"} <= set(RANK)


def test_imports_only_go_down():
    """No module imports from a higher layer or from a sibling unit of its own layer."""
    wrong = []
    for module, path in modules().items():
        if module == "autopilot":
            continue
        for target in imports(path):
            src, dst = unit(module), unit(target)
            if src != dst and RANK[dst] >= RANK[src]:
                wrong.append(f"{module} -> {target}")
    assert wrong == []


# The scripts Codex runs (codex/assets/) are data to the package's graph, run by Codex with their own Python. Only
# one may import the package, and only through one entry point: the memory hook's launcher runs the recorder there
# (an arrow from Codex's home up to the handoff's memory, kept to that one name). The others are stand-alone.
ASSETS = PACKAGE / "codex" / "assets"
ASSET_ENTRIES = {"handoff/scripts/memory_hook.py": {"autopilot.handoff.memory.codex_hook"}}


def package_imports(source: str) -> set[str]:
    """The autopilot modules a source names in an import (inside functions too), ``importlib.import_module`` or
    ``__import__``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "autopilot":
            found.update({f"autopilot.{a.name}" for a in node.names} if node.module == "autopilot" else {node.module})
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "autopilot")
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            named = node.args[0].value
            if name in ("import_module", "__import__") and isinstance(named, str) and named.startswith("autopilot"):
                found.add(named)
    return found


def test_codex_scripts_import_the_package_only_through_one_entry():
    """Of the scripts Codex runs, only the memory hook's launcher imports the package, and only its entry point (a
    module of the handoff's memory with a main()): no other arrow runs from codex/ back up."""
    found = {str(p.relative_to(ASSETS)): package_imports(p.read_text(encoding="utf-8")) for p in ASSETS.rglob("*.py")}
    assert {script: names for script, names in found.items() if names} == ASSET_ENTRIES
    for entry in set().union(*ASSET_ENTRIES.values()):
        assert unit(entry) == "memory" and entry in modules() and callable(importlib.import_module(entry).main)


def test_the_script_import_finder_finds_each_form():
    """The check above can fail: each way of naming a package module is found, a standard library import is not."""
    planted = (
        "import os, autopilot.redact\n"
        "from autopilot import git\n"
        "def f():\n"
        "    from autopilot.handoff.memory import names\n"
        "    importlib.import_module('autopilot.cli')\n"
        "    __import__('autopilot.hooks')\n"
        "    from json import loads\n"
    )
    assert package_imports(planted) == {
        "autopilot.redact",
        "autopilot.git",
        "autopilot.handoff.memory",
        "autopilot.cli",
        "autopilot.hooks",
    }


def test_hooks_never_import_commands():
    """Hooks call the operations in run/ directly; the CLI's adapters are not a library."""
    hooks = [(m, p) for m, p in modules().items() if unit(m) == "hooks"]
    assert [m for m, p in hooks if any(unit(t) == "commands" for t in imports(p))] == []


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as a path that ends where it starts, or [] when there is none."""
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> list[str]:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if state.get(nxt) is None and (found := visit(nxt, [*stack, nxt])):
                return found
        state[node] = 2
        return []

    for start in sorted(graph):
        if state.get(start) is None and (found := visit(start, [start])):
            return found
    return []


@pytest.mark.parametrize("lazy", [False, True], ids=["top-level imports", "lazy imports too"])
def test_no_import_circle(lazy):
    """The module graph has no cycle, with or without the imports made inside functions."""
    graph = {m: imports(p, top_level_only=not lazy) - {m} for m, p in modules().items()}
    # a package's __init__ importing its own submodules is not a circle
    graph = {m: {t for t in ts if not t.startswith(m + ".")} for m, ts in graph.items()}
    assert find_cycle(graph) == []


def test_cycle_finder_finds_one():
    """The check above can fail: a planted circle is found."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]


def test_top_level_stays_small():
    """At most 14 modules sit directly in src/autopilot; the rest live in packages that say what they are."""
    assert len(list(PACKAGE.glob("*.py"))) <= 14


@pytest.mark.parametrize("name", cli.COMMANDS)
def test_every_command_module_is_an_adapter(name):
    """Each command listed in cli.COMMANDS is a module with add_parser(sub) and run(args)."""
    module = importlib.import_module(f"autopilot.commands.{name}")
    assert callable(module.add_parser) and callable(module.run)


def test_command_modules_have_no_entry_point_of_their_own():
    """cli.py is the only entry point: no command module keeps a main() of its own."""
    names = [m.name for m in pkgutil.iter_modules(commands.__path__)]
    assert [n for n in names if hasattr(importlib.import_module(f"autopilot.commands.{n}"), "main")] == []


# A run's status is assigned by loop's pure transitions alone (docs/architecture.md, "one home per concept");
# these units hold or touch a run's state.json, so a status written anywhere else in them is a second home.
# (commands/ only calls the operations; its `status` keys are other things', such as Codex's hook trust.)
RUN_STATE_UNITS = {"loop", "hooks", "dashboard"}
STATUS_HOME = "autopilot.loop.transitions"
# Reading an old file leniently is not a transition: a status this bridge does not know reads as idle.
STATUS_REPAIRS = {"autopilot.loop.migrations": 1}


def status_writes(source: str) -> list[int]:
    """The lines of ``source`` that assign a ``status`` key: ``x["status"] = …``, ``x.update(status=…)``,
    ``x.update({"status": …})`` or ``x.setdefault("status", …)``."""

    def is_status(node: ast.AST | None) -> bool:
        return isinstance(node, ast.Constant) and node.value == "status"

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Subscript) and is_status(t.slice) for t in targets):
                found.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method, args = node.func.attr, node.args
            update = method == "update" and (
                any(k.arg == "status" for k in node.keywords)
                or any(isinstance(a, ast.Dict) and any(is_status(k) for k in a.keys) for a in args)
            )
            if update or (method == "setdefault" and args and is_status(args[0])):
                found.append(node.lineno)
    return found


def test_run_status_is_assigned_only_in_loop():
    """No module under run/, hooks/ or dashboard/ but loop/transitions.py assigns a status (hooks none at all; the
    migration's one repair of an unknown status is the only other write)."""
    writes = {
        module: status_writes(path.read_text(encoding="utf-8"))
        for module, path in modules().items()
        if unit(module) in RUN_STATE_UNITS and module != STATUS_HOME
    }
    assert {module: len(lines) for module, lines in writes.items() if lines} == STATUS_REPAIRS


def test_status_write_finder_finds_each_form():
    """The check above can fail: each way of writing a status is found, reading one is not."""
    planted = (
        's["status"] = "paused"\n'
        's.update(status="idle", stop_reason=None)\n'
        's.update({"status": "done"})\n'
        's.setdefault("status", "idle")\n'
        'x = s["status"] == "running"\n'
        'out = {"status": s["status"]}\n'
    )
    assert status_writes(planted) == [1, 2, 3, 4]


def test_loop_writes_every_status_it_owns():
    """loop/transitions.py really is the home: it assigns statuses (so the check above is not vacuous)."""
    assert len(status_writes(modules()[STATUS_HOME].read_text(encoding="utf-8"))) >= 5


def test_hook_handlers_do_not_import_each_other():
    """Hook handler modules share only hooks/__init__, hooks/context and hooks/slash: none imports another
    (hooks/review.py, the PostToolUse hook, never loads the Stop hook)."""
    from autopilot.hooks import HANDLERS

    handlers = {f"autopilot.hooks.{name}" for name, _ in HANDLERS.values()} | {
        "autopilot.hooks.handoff",
        "autopilot.hooks.memory",
    }
    found = modules()
    assert handlers <= set(found)
    wrong = [f"{m} -> {t}" for m in sorted(handlers) for t in sorted(imports(found[m])) if t in handlers - {m}]
    assert wrong == []


def test_verdict_does_not_import_the_review_operation():
    """loop/verdict.py takes its prompt pieces from loop/prompts.py, not from the review operation."""
    assert "autopilot.loop.review" not in imports(modules()["autopilot.loop.verdict"])


def test_the_review_worker_imports_no_hook_module():
    """The detached review worker (loop/review_worker.py) loads no module under hooks/, lazily or not."""
    assert [m for m in imports(modules()["autopilot.loop.review_worker"]) if unit(m) == "hooks"] == []


# Where the environment is read other than for a setting: building a child's environment, git's own
# variables, PATH, and the demo setting (and restoring) its throwaway home.
ENV_READERS_ALLOWED = {
    "autopilot.config": "the one reader of settings",
    "autopilot.loop.backends.codex_cli": "copies the names the reviewer may see into codex's environment",
    "autopilot.git": "asks whether git's own GIT_DIR / GIT_WORK_TREE are set",
    "autopilot.commands.setup": "reads PATH to find where a launcher is reachable",
    "autopilot.commands.demo": "sets, then restores, the variables of its throwaway run",
    "autopilot.knowledge.durable.store": "looks for an agent's shell markers (CLAUDECODE, CODEX_SANDBOX...)",
    "autopilot.handoff.memory.origin": "looks for an agent's markers in this process's and its ancestors' environments",
}


def environment_reads(path: Path) -> list[int]:
    """Line numbers where a module reads ``os.environ`` or ``os.getenv`` (not where it passes the whole of it)."""
    found = []
    for node in nodes(path):
        is_environ = isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv")
        if is_environ and isinstance(node.value, ast.Name) and node.value.id == "os":
            found.append(node.lineno)
    spread = {  # `{**os.environ, ...}` hands a child the whole environment: no setting is read
        v.lineno
        for d in nodes(path)
        if isinstance(d, ast.Dict)
        for k, v in zip(d.keys, d.values, strict=True)
        if k is None
    }
    return sorted(set(found) - spread)


def test_settings_are_read_from_the_environment_only_in_config():
    """No module but config.py (and the few ENV_READERS_ALLOWED, for reasons named there) reads os.environ."""
    readers = {m: environment_reads(p) for m, p in modules().items()}
    assert {m: lines for m, lines in readers.items() if lines and m not in ENV_READERS_ALLOWED} == {}


def test_the_environment_check_finds_a_reader(tmp_path):
    """The check above can fail: a planted os.environ.get is found, a spread environment is not."""
    planted = tmp_path / "m.py"
    planted.write_text('import os\nx = os.environ.get("X")\nenv = {**os.environ, "A": "1"}\n')
    assert environment_reads(planted) == [2]
