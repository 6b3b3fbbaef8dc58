"""The handoff actions agents run often read their usual command lines without argparse, exactly as argparse does.

(`handoff search`'s own cases are in tests/unit/commands/handoff/test_search.py.)
"""

from __future__ import annotations

import contextlib
import io

import pytest

from autopilot import cli

INTAKE = "handoff.intake", ["intake"], ("transcript", "before_line", "limit", "max_chars", "full")
CODEX = "handoff.codex", ["from-codex", "intake"], ("rollout", "before_line", "limit", "max_chars", "full")
POSITIONAL = {"transcript": "path", "rollout": "path"}  # argparse's name for the file, and the quick reader's
READ = "handoff.packets", ["read"], ("agent", "session", "limit", "before", "cursor", "source", "project_dir")

# (command, argv, read without argparse?)
CASES = [
    (INTAKE, ["t.jsonl"], True),
    (INTAKE, ["t.jsonl", "--before-line", "40", "--limit", "5", "--max-chars=90", "--full"], True),
    (INTAKE, ["--limit", " 7 ", "t.jsonl"], True),
    (INTAKE, ["--before-line=-3", "t.jsonl"], True),
    (INTAKE, ["--", "-odd name.jsonl"], True),
    (INTAKE, ["t.jsonl", "--limit", "1", "--limit", "2", "--full", "--full"], True),
    (INTAKE, [], False),
    (INTAKE, ["--help"], False),
    (INTAKE, ["t.jsonl", "-h"], False),
    (INTAKE, ["t.jsonl", "--lim", "5"], False),
    (INTAKE, ["t.jsonl", "--limit", "x"], False),
    (INTAKE, ["t.jsonl", "--limit", "-5"], False),
    (INTAKE, ["t.jsonl", "--limit"], False),
    (INTAKE, ["t.jsonl", "--full=1"], False),
    (INTAKE, ["t.jsonl", "second.jsonl"], False),
    (INTAKE, ["t.jsonl", "--before", "4"], True),
    (INTAKE, ["-x"], False),
    (CODEX, ["r.jsonl"], True),
    (CODEX, ["r.jsonl", "--before", "12", "--limit=3"], True),
    (CODEX, ["r.jsonl", "--before-line", "12", "--max-chars", "50", "--full"], True),
    (CODEX, ["r.jsonl", "--before", "1", "--before-line", "2"], True),
    (CODEX, ["--help"], False),
    (CODEX, ["r.jsonl", "--bef", "3"], False),
    (CODEX, ["r.jsonl", "--max-chars", "many"], False),
    (CODEX, [], False),
    (READ, ["--from", "claude", "--session", "abc"], True),
    (READ, ["--session=abc", "--from=codex", "--limit", "5", "--before", "30", "--source", "local"], True),
    (READ, ["--from", "codex", "--session", "t", "--cursor", "c1", "--source=app-server", "--cwd", "/tmp"], True),
    (READ, ["--from", "claude"], False),
    (READ, ["--session", "abc"], False),
    (READ, ["--from", "gpt", "--session", "abc"], False),
    (READ, ["--from", "claude", "--session", "abc", "--source", "remote"], False),
    (READ, ["--from", "claude", "--session", "abc", "extra"], False),
    (READ, ["--from", "claude", "--session", "-abc"], False),
    (READ, ["--from", "claude", "--session", "abc", "--help"], False),
    (READ, ["--fr", "claude", "--session", "abc"], False),
]


def argparse_reading(words: list[str], argv: list[str], keys: tuple[str, ...]) -> dict | None:
    """What argparse makes of ``handoff WORDS ARGV`` (None: it refuses or prints help)."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            args = cli._parser("handoff").parse_args(["handoff", *words, *argv])
    except SystemExit:
        return None
    return {POSITIONAL.get(k, k): getattr(args, k) for k in keys}


@pytest.mark.parametrize(("command", "argv", "quick"), CASES)
def test_the_fast_command_line_reads_as_argparse_does(command, argv, quick):
    """A usual command line reads exactly as argparse reads it; help, abbreviations and bad values go to argparse."""
    import importlib

    module, words, keys = command
    expected = argparse_reading(words, argv, keys)
    got = importlib.import_module(f"autopilot.commands.{module}").quick_args(argv)
    assert got == (expected if quick else None)
    assert not quick or expected is not None


@pytest.mark.parametrize("words", list(cli.QUICK))
def test_every_quick_command_is_a_real_handoff_action(words):
    """Each command line cli.py reads itself names an action argparse knows, with its own reader and runner."""
    import importlib

    command = importlib.import_module(f"autopilot.commands.{cli.QUICK[words]}")
    assert callable(command.quick_args) and callable(command.run_quick)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
        cli._parser("handoff").parse_args(["handoff", *words, "--help"])
    assert done.value.code == 0 and out.getvalue().startswith(f"usage: codex-bridge handoff {' '.join(words)} ")


REVIEW_CASES = [
    ([], True),
    (["--backend", "openai"], True),
    (["--backend=codex-cli", "--model", "gpt-6.2-sol", "--effort", "high"], True),
    (["--model=m", "--model", "n"], True),
    (["--backend", "gpt"], False),
    (["--effort", "max"], False),
    (["--model"], False),
    (["--model", "-m"], False),
    (["--back", "openai"], False),
    (["--help"], False),
    (["-h"], False),
    (["extra"], False),
    (["--", "x"], False),
]


@pytest.mark.parametrize(("argv", "quick"), REVIEW_CASES)
def test_the_review_command_line_reads_as_argparse_does(argv, quick):
    """`codex-bridge review`'s usual command lines read as argparse reads them; anything else goes to argparse."""
    from autopilot.commands import review

    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            args = cli._parser("review").parse_args(["review", *argv])
        expected = {k: getattr(args, k) for k in ("backend", "model", "effort")}
    except SystemExit:
        expected = None
    assert review.quick_args(argv) == (expected if quick else None)
    assert not quick or expected is not None


@pytest.mark.parametrize("name", list(cli.QUICK_COMMANDS))
def test_every_quick_top_level_command_is_a_real_command(name):
    """Each top-level command cli.py reads itself is a command argparse knows, with its own reader and runner."""
    import importlib

    command = importlib.import_module(f"autopilot.commands.{cli.QUICK_COMMANDS[name]}")
    assert callable(command.quick_args) and callable(command.run_quick) and name in cli.COMMANDS
