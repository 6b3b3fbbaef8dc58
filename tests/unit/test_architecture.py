"""The package's layout holds: three wings over one ground, imports only downwards, no circle, a small top level.

docs/architecture.md explains the layout; ``python3 scripts/import_graph.py`` draws it (the graph these tests read);
this test is what keeps it true. Each rule has a check that a planted counter-example fails.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil
import sys
from pathlib import Path

import pytest

from autopilot import cli, commands
from tests.support.repo import REPO

_spec = importlib.util.spec_from_file_location("import_graph", REPO / "scripts" / "import_graph.py")
assert _spec and _spec.loader
import_graph = importlib.util.module_from_spec(_spec)
sys.modules["import_graph"] = import_graph
_spec.loader.exec_module(import_graph)

PACKAGE = import_graph.PACKAGE
modules, parsed, nodes, imports, room = (
    import_graph.modules,
    import_graph.parsed,
    import_graph.nodes,
    import_graph.imports,
    import_graph.room,
)

# The ground: what every wing shares. Its rooms may import each other only downwards (GROUND_ORDER), never a wing.
GROUND_ORDER = [
    {"text", "clock", "fastjson", "digest", "patterns"},  # no bridge imports: text, time, JSON, hashes, regexes
    {"redact", "output", "scripted"},  # credentials; text for a person or an agent; the offline model server
    {"errors", "untrusted"},  # exit codes and hints; evidence a model cannot take for instructions
    {"config"},  # settings: every environment variable is read here (the homes too)
    {"paths", "fsutil"},  # the homes as paths; atomic writes and the one lock helper
    {"git"},  # a repository's locators and the one git runner
    {"codex"},  # Codex's own formats and files, and the Codex side's install
    {"plugin"},  # what the plugin adds on this machine (status line, launcher), and doctor's checks of both clients
]
GROUND = set().union(*GROUND_ORDER)
# Lowest first: a room imports its own modules and rooms of lower layers, never a higher one nor a sibling.
LAYERS = [
    GROUND | {"autopilot"},  # "autopilot" is the package's face (its version)
    {"loop", "handoff"},  # the two products: the autopilot loop; the handoff and its memory
    {"knowledge"},  # what a person vouched for: approved durable rules, and sharing with a team
    {"hooks", "dashboard"},  # Claude Code's adapters (event -> operation -> hook JSON); the local web app
    {"commands"},  # the CLI's adapters: arguments -> operation -> JSON (`hook EVENT` runs a hook)
    {"cli"},
    {"__main__"},
]
RANK = {unit: n for n, layer in enumerate(LAYERS) for unit in layer}
# The modules the hot paths load (Claude Code's hooks that do not ask Codex, the status line, `state`, the handoff
# actions agents run often, Codex's memory hook), where no other module has loaded `typing` yet: only these keep the
# `TYPE_CHECKING = False` idiom (typing costs ~3 ms a process). tests/integration/test_hot_path.py runs each path and
# checks that this list is exactly what they load.
HOT_PATH = frozenset(
    {
        "autopilot",
        "autopilot.cli",
        "autopilot.clock",
        "autopilot.codex",
        "autopilot.codex.ratelimits",
        "autopilot.codex.rollout",
        "autopilot.codex.sessions",
        "autopilot.codex.subagent",
        "autopilot.commands",
        "autopilot.commands.handoff",
        "autopilot.commands.handoff.codex",
        "autopilot.commands.handoff.intake",
        "autopilot.commands.handoff.search",
        "autopilot.commands.quick",
        "autopilot.commands.state",
        "autopilot.commands.statusline",
        "autopilot.config",
        "autopilot.digest",
        "autopilot.errors",
        "autopilot.fastjson",
        "autopilot.fsutil",
        "autopilot.git",
        "autopilot.handoff",
        "autopilot.handoff.memory",
        "autopilot.handoff.memory.codex_hook",
        "autopilot.handoff.memory.limits",
        "autopilot.handoff.memory.names",
        "autopilot.handoff.memory.observe",
        "autopilot.handoff.packets",
        "autopilot.handoff.packets.shared",
        "autopilot.handoff.packets.store",
        "autopilot.handoff.search",
        "autopilot.handoff.search.freshness",
        "autopilot.handoff.search.index",
        "autopilot.handoff.search.query",
        "autopilot.handoff.search.remembered",
        "autopilot.handoff.search.render",
        "autopilot.handoff.search.retrieval",
        "autopilot.handoff.search.terms",
        "autopilot.handoff.sources",
        "autopilot.handoff.sources.project",
        "autopilot.handoff.transcripts",
        "autopilot.handoff.transcripts.claude_fold",
        "autopilot.handoff.transcripts.claude_intake",
        "autopilot.handoff.transcripts.codex_fold",
        "autopilot.handoff.transcripts.codex_intake",
        "autopilot.handoff.transcripts.evidence",
        "autopilot.handoff.transcripts.jsonl",
        "autopilot.handoff.transcripts.jsonl_index",
        "autopilot.handoff.transcripts.paging",
        "autopilot.hooks",
        "autopilot.knowledge",
        "autopilot.knowledge.durable",
        "autopilot.knowledge.durable.feed",
        "autopilot.loop",
        "autopilot.loop.migrations",
        "autopilot.loop.state",
        "autopilot.loop.status",
        "autopilot.loop.transitions",
        "autopilot.loop.workspace",
        "autopilot.output",
        "autopilot.paths",
        "autopilot.patterns",
        "autopilot.redact",
        "autopilot.redact.bare",
        "autopilot.redact.decode",
        "autopilot.redact.files",
        "autopilot.redact.generic",
        "autopilot.redact.keys",
        "autopilot.redact.material",
        "autopilot.redact.named",
        "autopilot.redact.prose",
        "autopilot.redact.rules",
        "autopilot.redact.shell",
        "autopilot.redact.tokens",
        "autopilot.text",
    }
)
# Inside a wing, its parts in the same way (a part imports its own modules and the parts before it).
PARTS = {
    "loop": [{"backends"}, {"loop"}],  # how Codex is asked; the run itself (the wing's own modules)
    "handoff": [{"transcripts"}, {"sources"}, {"memory"}, {"packets"}, {"search"}],
    "knowledge": [{"durable"}, {"share"}],
}
# Rooms a layer's order would allow to meet but that never may (either direction is listed).
APART = {("loop", "handoff"), ("handoff", "loop"), ("knowledge", "loop")}


def part(module: str) -> str | None:
    """The part of its wing a module belongs to (``memory`` for autopilot.handoff.memory.store), None for a face."""
    parts = module.split(".")
    if len(parts) < 3 or parts[1] not in PARTS:
        return None
    if parts[1] == "loop":
        return "backends" if parts[2] == "backends" else "loop"
    return parts[2]


def layer_violations(graph: dict[str, set[str]], rank: dict[str, int], key) -> list[str]:
    """The arrows of ``graph`` (module -> modules) whose target's ``key`` ranks at or above the source's (same key
    is fine): an import upwards or between siblings."""
    wrong = []
    for module, targets in sorted(graph.items()):
        src = key(module)
        for target in sorted(targets):
            dst = key(target)
            if src in rank and dst in rank and src != dst and rank[dst] >= rank[src]:
                wrong.append(f"{module} -> {target}")
    return wrong


def ranks(layers: list[set[str]]) -> dict[str, int]:
    return {unit: n for n, layer in enumerate(layers) for unit in layer}


def test_every_room_has_a_layer():
    """A new package or top-level module must be placed in LAYERS (and in docs/architecture.md)."""
    assert {room(m) for m in modules()} - set(RANK) == set()


def test_every_wing_module_has_a_part():
    """A new sub-package of a wing must be placed in PARTS."""
    found = {part(m) for m in modules()} - {None}
    assert found - {p for layers in PARTS.values() for layer in layers for p in layer} == set()


def test_imports_only_go_down():
    """No module imports from a higher layer or from a sibling room of its own layer (the ground aside)."""
    graph = import_graph.module_graph()
    rank = {r: n for r, n in RANK.items() if r not in GROUND}
    rank["ground"] = 0
    assert layer_violations(graph, rank, lambda m: "ground" if room(m) in GROUND else room(m)) == []


def test_the_ground_imports_only_down_and_never_a_wing():
    """A ground module imports only lower ground rooms: never a wing, an adapter, or a sibling of its own rank."""
    graph = {m: ts for m, ts in import_graph.module_graph().items() if room(m) in GROUND}
    assert [f"{m} -> {t}" for m, ts in sorted(graph.items()) for t in sorted(ts) if room(t) not in GROUND] == []
    assert layer_violations(graph, ranks(GROUND_ORDER), room) == []


def test_a_wing_s_parts_import_only_down():
    """Inside a wing, a part imports only the parts below it (the handoff's search never feeds its transcripts)."""
    graph = import_graph.module_graph()
    for wing, layers in PARTS.items():
        inside = {m: {t for t in ts if room(t) == wing} for m, ts in graph.items() if room(m) == wing}
        assert layer_violations(inside, ranks(layers), lambda m: part(m) or "") == [], wing


@pytest.mark.parametrize("src, dst", sorted(APART))
def test_rooms_kept_apart_never_import_each_other(src, dst):
    """The loop and the handoff never import each other, and knowledge never imports the loop."""
    graph = import_graph.module_graph()
    assert [f"{m} -> {t}" for m, ts in sorted(graph.items()) if room(m) == src for t in ts if room(t) == dst] == []


def test_the_layer_checks_find_planted_violations():
    """The checks above can fail: an upward import, a sibling import and a part importing a later part are found."""
    planted = {
        "autopilot.git": {"autopilot.loop.state"},  # the ground imports a wing
        "autopilot.loop.state": {"autopilot.handoff.memory.store", "autopilot.git"},  # siblings; downwards is fine
        "autopilot.handoff.transcripts.raw": {"autopilot.handoff.search.index"},  # a part imports a later part
    }
    rank = {r: n for r, n in RANK.items() if r not in GROUND} | {"ground": 0}
    assert layer_violations(planted, rank, lambda m: "ground" if room(m) in GROUND else room(m)) == [
        "autopilot.git -> autopilot.loop.state",
        "autopilot.loop.state -> autopilot.handoff.memory.store",
    ]
    assert layer_violations(planted, ranks(PARTS["handoff"]), lambda m: part(m) or "") == [
        "autopilot.handoff.transcripts.raw -> autopilot.handoff.search.index"
    ]


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
        assert part(entry) == "memory" and entry in modules() and callable(importlib.import_module(entry).main)


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
    """Hooks call the operations directly; the CLI's adapters are not a library."""
    hooks = [(m, p) for m, p in modules().items() if room(m) == "hooks"]
    assert [m for m, p in hooks if any(room(t) == "commands" for t in imports(p))] == []


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
    assert find_cycle(import_graph.module_graph(top_level_only=not lazy)) == []


def test_cycle_finder_finds_one():
    """The check above can fail: a planted circle is found."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]


def test_the_graph_has_at_most_twelve_floors_and_no_arrow_up():
    """`scripts/import_graph.py` draws at most 12 floors of rooms, every arrow running down."""
    graph = import_graph.room_graph()
    assert max(import_graph.floors(graph).values()) <= 12
    assert import_graph.up_arrows(graph) == []


def test_the_floor_finder_finds_an_arrow_up():
    """The check above can fail: in a planted circle one arrow runs up; a chain has one floor per room."""
    assert import_graph.up_arrows({"a": {"b"}, "b": {"a"}, "c": set()}) != []
    assert import_graph.floors({"a": {"b"}, "b": {"c"}, "c": set()}) == {"a": 3, "b": 2, "c": 1}


def test_top_level_stays_small():
    """At most 9 packages and 16 modules sit directly in src/autopilot; the rest live in the wings and packages."""
    packages = [p for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()]
    assert len(packages) <= 9 and len(list(PACKAGE.glob("*.py"))) <= 16


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
RUN_STATE_UNITS = {"loop", "hooks", "dashboard"}  # rooms
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
        if room(module) in RUN_STATE_UNITS and module != STATUS_HOME
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
    """Hook handler modules share only hooks/__init__ and hooks/context: none imports another
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
    assert [m for m in imports(modules()["autopilot.loop.review_worker"]) if room(m) == "hooks"] == []


# Where the environment is read other than for a setting: building a child's environment, git's own
# variables, PATH, and the demo setting (and restoring) its throwaway home.
ENV_READERS_ALLOWED = {
    "autopilot.config": "the one reader of settings",
    "autopilot.loop.backends.codex_cli": "copies the names the reviewer may see into codex's environment",
    "autopilot.git": "asks whether git's own GIT_DIR / GIT_WORK_TREE are set",
    "autopilot.plugin": "reads PATH to find where a launcher is reachable",
    "autopilot.loop.demo": "sets, then restores, the variables of its throwaway run",
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


IDIOM = "TYPE_CHECKING = False"


def idiom_lines(source: str) -> list[int]:
    """The lines of ``source`` that define ``TYPE_CHECKING`` themselves (instead of importing typing's)."""
    return [
        n.lineno
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "TYPE_CHECKING" for t in n.targets)
    ]


def test_the_hot_path_idiom_stays_on_the_hot_paths():
    """Only a module on a hot path (HOT_PATH) keeps `TYPE_CHECKING = False`; the others import typing as usual."""
    found = {m for m, p in modules().items() if idiom_lines(p.read_text(encoding="utf-8"))}
    assert sorted(found - HOT_PATH) == []


def test_the_idiom_finder_finds_it():
    """The check above can fail: the idiom is found, typing's own TYPE_CHECKING is not."""
    planted = "TYPE_CHECKING = False  # ~2 ms\nif TYPE_CHECKING:\n    from typing import Any\n"
    assert idiom_lines(planted) == [1]
    assert idiom_lines("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import argparse\n") == []
