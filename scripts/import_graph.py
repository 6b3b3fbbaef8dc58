#!/usr/bin/env python3
"""The package's import graph, drawn as floors: what shows the layout, and what its tests check.

A *room* is one unit of the layout: a top-level module of ``src/autopilot`` (``git``, ``clock``…), a ground
package (``redact``, ``scripted``, ``codex``), a wing (``loop``, ``handoff``, ``knowledge``) or an adapter
(``hooks``, ``dashboard``, ``commands``). An arrow A -> B says a module of A imports one of B (inside functions
too). A room's floor is 1 for a room that imports no other room, else one more than the highest floor it imports,
so every arrow runs down. An arrow that runs *up* (or level) exists only inside a circle of rooms: the script
lists them, and the architecture tests (``tests/unit/test_architecture.py``) fail on any.

    python3 scripts/import_graph.py           # the floors, top first, with each room's arrows
    python3 scripts/import_graph.py --json    # the same for jq: {"floors": [...], "arrows": {...}, "up": [...]}
    python3 scripts/import_graph.py --modules # one line per module instead of per room

The scripts Codex runs (``codex/assets/``) stand alone and are not part of the graph.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "autopilot"


@functools.cache
def modules() -> dict[str, Path]:
    """Every bridge module by dotted name (``autopilot.loop.state``), the stand-alone Codex scripts left out."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "assets" in path.relative_to(PACKAGE).parts:
            continue
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        found[".".join(p for p in rel.parts if p != "__init__")] = path
    return found


@functools.cache
def parsed(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once per process."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of a module's syntax tree, walked once per process."""
    return tuple(ast.walk(parsed(path)))


@functools.cache
def imports(path: Path, *, top_level_only: bool = False) -> frozenset[str]:
    """The bridge modules a file imports (inside functions too, unless ``top_level_only``)."""
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


def room(module: str) -> str:
    """The room a module stands in: its top-level module or package under ``autopilot`` ("autopilot" itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "autopilot"


def module_graph(*, top_level_only: bool = False) -> dict[str, set[str]]:
    """Each module -> the other modules it imports (a package's own submodules left out of its face's arrows)."""
    graph = {m: set(imports(p, top_level_only=top_level_only)) - {m} for m, p in modules().items()}
    return {m: {t for t in ts if not t.startswith(m + ".")} for m, ts in graph.items()}


def room_graph(graph: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    """Each room -> the other rooms its modules import."""
    rooms: dict[str, set[str]] = {}
    for module, targets in (module_graph() if graph is None else graph).items():
        rooms.setdefault(room(module), set()).update(room(t) for t in targets if room(t) != room(module))
    return rooms


def floors(graph: dict[str, set[str]]) -> dict[str, int]:
    """Each node's floor: 1 with no arrow out, else one above the highest it imports (a circle counts once)."""
    floor: dict[str, int] = {}
    visiting: set[str] = set()

    def visit(node: str) -> int:
        if node in floor:
            return floor[node]
        if node in visiting:  # a circle: cut it here; up_arrows() reports it
            return 0
        visiting.add(node)
        below = [visit(t) for t in graph.get(node, ()) if t in graph]
        visiting.discard(node)
        floor[node] = 1 + max(below, default=0)
        return floor[node]

    for node in sorted(graph):
        visit(node)
    return floor


def up_arrows(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """The arrows that do not run down (only a circle makes one)."""
    floor = floors(graph)
    return sorted((a, b) for a, ts in graph.items() for b in ts if b in floor and floor[b] >= floor[a])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--json", action="store_true", help="print JSON (floors top first, arrows, up-running arrows)")
    parser.add_argument("--modules", action="store_true", help="one node per module instead of per room")
    args = parser.parse_args(argv)
    graph = module_graph() if args.modules else room_graph()
    floor = floors(graph)
    top = max(floor.values(), default=0)
    by_floor = [sorted(n for n, f in floor.items() if f == k) for k in range(top, 0, -1)]
    up = up_arrows(graph)
    if args.json:
        arrows = {n: sorted(ts) for n, ts in sorted(graph.items())}
        print(json.dumps({"floors": by_floor, "arrows": arrows, "up": [list(a) for a in up]}, indent=2))
        return 0
    for k, names in zip(range(top, 0, -1), by_floor, strict=True):
        print(f"floor {k:2}")
        for name in names:
            below = ", ".join(sorted(graph[name])) or "-"
            print(f"  {name:<{36 if args.modules else 12}} -> {below}")
    print(f"{top} floors, {sum(len(ts) for ts in graph.values())} arrows, {len(up)} running up", file=sys.stderr)
    for a, b in up:
        print(f"  up: {a} -> {b}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
