"""The CLI reference in docs/ is generated from the parsers (scripts/cli_docs.py): the docs cannot drift from them."""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from pathlib import Path

import pytest

from tests.support.repo import REPO

_spec = importlib.util.spec_from_file_location("cli_docs", REPO / "scripts" / "cli_docs.py")
assert _spec and _spec.loader
cli_docs = importlib.util.module_from_spec(_spec)
sys.modules["cli_docs"] = cli_docs
_spec.loader.exec_module(cli_docs)

# `codex-bridge WORDS … --flag` in a doc: the words name a command, the flags must be that command's.
INVOCATION = re.compile(r"codex-bridge((?: [a-z][a-z-]*)+)([^`#\n]*)")
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")


def user_docs() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def test_docs_match_the_parsers():
    """docs/cli.md and every generated usage block are what the parsers say (run scripts/cli_docs.py if not)."""
    assert cli_docs.stale() == []


def test_an_undocumented_flag_fails_the_check(monkeypatch):
    """A flag added to a parser and not to the docs makes the check fail, naming the flag."""
    from autopilot.commands.handoff import search as handoff_search

    real = handoff_search.add_parser

    def with_a_new_flag(handoff_subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
        real(handoff_subparsers)
        handoff_subparsers.choices["search"].add_argument(
            "--brand-new-flag", action="store_true", help="nobody documented this"
        )

    monkeypatch.setattr(handoff_search, "add_parser", with_a_new_flag)
    diffs = "".join(cli_docs.stale())
    assert "+| `--brand-new-flag` | nobody documented this |" in diffs  # the reference
    assert "docs/search.md" in diffs and "[--brand-new-flag]" in diffs  # and the usage block in search.md


def test_a_block_naming_no_command_is_an_error():
    """A generated block for a command that does not exist stops the generator instead of writing a guess."""
    with pytest.raises(SystemExit, match="codex-bridge handoff serch"):
        cli_docs.blocks("<!-- cli: handoff serch -->\n<!-- end cli -->", {"handoff search": "usage: …"})


def test_every_command_and_option_is_in_the_reference():
    """The reference names every command and every option of every parser (hidden ones aside)."""
    text = (REPO / "docs" / "cli.md").read_text()
    for words, _, parser in cli_docs.walk(cli_docs._root()):
        assert f" codex-bridge {' '.join(words)}\n" in text
        for action in parser._actions:
            if action.help != argparse.SUPPRESS and not isinstance(action, argparse._HelpAction):
                for option in action.option_strings:
                    assert f"`{option}" in text or f", {option}" in text, (words, option)


def parsers() -> dict[str, argparse.ArgumentParser]:
    root = cli_docs._root()
    return {" ".join(words): parser for words, _, parser in cli_docs.walk(root)}


@pytest.mark.parametrize("doc", user_docs(), ids=lambda p: p.name)
def test_flags_in_the_docs_exist(doc):
    """Every `codex-bridge COMMAND … --flag` a doc shows names a flag that command accepts."""
    known = parsers()
    wrong = []
    for match in INVOCATION.finditer(doc.read_text()):
        words = match.group(1).split()
        while words and " ".join(words) not in known:
            words.pop()
        if not words:
            continue
        accepted = {o for a in known[" ".join(words)]._actions for o in a.option_strings} | {"--help", "--version"}
        rest = match.group(1).split()[len(words) :]
        wrong += [f"codex-bridge {' '.join(words)} {flag}" for flag in FLAG.findall(" ".join(rest) + match.group(2))]
        wrong = [w for w in wrong if w.rsplit(" ", 1)[1] not in accepted]
    assert wrong == []


def test_hook_help_is_help(bridge):
    """`codex-bridge hook --help` prints the hook command's help and the events, not a hook's JSON error."""
    code, out, err = bridge("hook", "--help")
    assert code == 0 and out.startswith("usage: codex-bridge hook") and "PreCompact" in out and err == ""
