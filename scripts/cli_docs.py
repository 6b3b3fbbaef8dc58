#!/usr/bin/env python3
"""The CLI reference in docs/, generated from codex-bridge's own parsers, so the two cannot drift.

Writes ``docs/cli.md`` (every command and action: usage, description, each option with its help,
choices and default) and refreshes each generated block in the other docs, written as::

    <!-- cli: handoff search -->
    ```
    usage: codex-bridge handoff search ...
    ```
    <!-- end cli -->

(the usage of ``codex-bridge handoff search``, as ``--help`` prints it). ``--check`` writes nothing
and exits 1 with a diff when a file differs from what the parsers say: a flag added to a parser
and not to the docs fails the test suite (tests/unit/test_cli_docs.py) until this is run.

    python3 scripts/cli_docs.py            # rewrite docs/cli.md and the blocks
    python3 scripts/cli_docs.py --check    # exit 1 if the docs are stale
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REFERENCE = REPO / "docs" / "cli.md"
WIDTH = 100  # usage lines wrap here, whatever the terminal that runs this
BLOCK = re.compile(r"(<!-- cli: ([a-z -]+?) -->\n)(.*?)(<!-- end cli -->)", re.S)

HEADER = """\
# Command-line reference

Generated from the parsers by `python3 scripts/cli_docs.py`; do not edit by hand (the test suite
fails when this file and `codex-bridge --help` differ). The other docs explain what the commands
are for; this page lists every command, action and option.
"""


def _root() -> argparse.ArgumentParser:
    sys.path.insert(0, str(REPO / "src"))  # this checkout's parsers, whichever Python runs the script
    from autopilot import cli  # noqa: PLC0415  (after the path is set)

    return cli._parser()


def _children(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line help, parser) of each sub-command, in the order --help lists them."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            seen: set[int] = set()
            for name, child in action.choices.items():
                if id(child) in seen:  # an alias names a parser already listed
                    continue
                seen.add(id(child))
                yield name, helps.get(name, ""), child


def walk(
    parser: argparse.ArgumentParser, words: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], str, argparse.ArgumentParser]]:
    """Every command and action below ``parser``: (its words after codex-bridge, its help, its parser)."""
    for name, help_, child in _children(parser):
        yield (*words, name), help_, child
        yield from walk(child, (*words, name))


def usage(parser: argparse.ArgumentParser) -> str:
    """The usage ``--help`` prints, wrapped at WIDTH columns."""
    formatter = argparse.HelpFormatter(parser.prog, width=WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def options(parser: argparse.ArgumentParser) -> list[str]:
    """A Markdown table of the parser's options and positionals (help hidden ones left out)."""
    rows = []
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.option_strings:
            name = ", ".join(action.option_strings)
            if action.nargs != 0:
                name += f" {action.metavar or action.dest.upper()}"
        else:
            name = str(action.metavar or action.dest)
        extra = []
        if action.choices is not None:
            extra.append("one of " + ", ".join(f"`{c}`" for c in action.choices))
        said = "default" in (action.help or "")
        if action.default not in (None, False, argparse.SUPPRESS) and action.nargs != 0 and not said:
            extra.append(f"default `{action.default}`")
        help_ = (action.help or "") % {"default": action.default, "prog": parser.prog} if action.help else ""
        rows.append(f"| `{_cell(name)}` | {_cell('; '.join([help_, *extra]) if extra else help_)} |")
    return ["| option | meaning |", "|---|---|", *rows] if rows else []


def reference() -> str:
    """docs/cli.md as the parsers say it is."""
    root = _root()
    out = [HEADER, "## codex-bridge", "", "```", usage(root), "```", "", root.description or "", ""]
    out += options(root) + [""]
    for words, help_, parser in walk(root):
        out += [f"{'#' * min(len(words) + 2, 4)} codex-bridge {' '.join(words)}", ""]
        if help_:
            out += [help_[0].upper() + help_[1:] + ("" if help_.endswith(".") else "."), ""]
        out += ["```", usage(parser), "```", ""]
        if parser.description and parser.description != help_:
            out += [" ".join(parser.description.split()), ""]
        table = options(parser)
        if table:
            out += [*table, ""]
    return "\n".join(out).rstrip() + "\n"


def blocks(text: str, usages: dict[str, str]) -> str:
    """``text`` with each generated usage block refreshed (an unknown command is an error)."""

    def fill(match: re.Match[str]) -> str:
        words = match.group(2).strip()
        if words not in usages:
            raise SystemExit(f"cli_docs: a block names `codex-bridge {words}`, which is no command")
        return f"{match.group(1)}```\n{usages[words]}\n```\n{match.group(4)}"

    return BLOCK.sub(fill, text)


def expected() -> dict[Path, str]:
    """Every generated file and what it should hold."""
    root = _root()
    usages = {" ".join(words): usage(parser) for words, _, parser in walk(root)}
    files = {REFERENCE: reference()}
    for path in sorted((REPO / "docs").glob("*.md")):
        if path != REFERENCE:
            text = path.read_text(encoding="utf-8")
            files[path] = blocks(text, usages)
    files[REPO / "README.md"] = blocks((REPO / "README.md").read_text(encoding="utf-8"), usages)
    return files


def stale() -> list[str]:
    """A unified diff for every generated file that differs from what the parsers say (empty: up to date)."""
    diffs = []
    for path, want in expected().items():
        have = path.read_text(encoding="utf-8") if path.exists() else ""
        if have != want:
            name = str(path.relative_to(REPO))
            diffs.append(
                "".join(difflib.unified_diff(have.splitlines(True), want.splitlines(True), name, f"{name} (parsers)"))
            )
    return diffs


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Generate the CLI reference in docs/ from codex-bridge's parsers.")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 with a diff if the docs are stale")
    args = parser.parse_args(argv)
    if args.check:
        diffs = stale()
        sys.stdout.write("".join(diffs))
        if diffs:
            print("cli_docs: the docs differ from the parsers: run python3 scripts/cli_docs.py", file=sys.stderr)
        return 1 if diffs else 0
    for path, want in expected().items():
        if not path.exists() or path.read_text(encoding="utf-8") != want:
            path.write_text(want, encoding="utf-8")
            print(f"cli_docs: wrote {path.relative_to(REPO)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
