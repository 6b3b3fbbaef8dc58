"""The no-run path stays light: nothing heavy is imported when there is nothing to do."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.measured import unmeasured

HEAVY = ("openai", "jsonschema", "yaml", "filelock", "tenacity")


def test_state_without_a_run_imports_nothing_heavy(git_repo):
    """`codex-bridge state` with no run never imports openai, jsonschema, yaml, filelock or tenacity."""
    code = (
        "import sys, io, contextlib; from autopilot.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()): rc = main(['-C', sys.argv[1], 'state'])\n"
        f"print(rc, [m for m in {HEAVY!r} if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(git_repo)], capture_output=True, text=True, check=True, env=unmeasured()
    )
    assert out.stdout.split(" ", 1) == ["0", "[]\n"]


def test_state_fast_path_matches_the_full_parser(git_repo, bridge):
    """The argparse-free `state` path prints exactly what the parsed `state` command prints."""
    import argparse

    from autopilot.commands import state as state_command

    code, fast, _ = bridge("-C", str(git_repo), "state")
    assert code == 0 and json.loads(fast)["status"] == "idle"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert state_command.run(argparse.Namespace(all=False, cwd=str(git_repo))) == 0
    assert out.getvalue() == fast
    code, full, _ = bridge("-C", str(git_repo), "state", "--all")
    assert code == 0 and json.loads(full) == []


# What `handoff search` must not load: argparse and its formatter (~8 ms) and the other handoff actions' parsers
# (~4 ms), typing (~2 ms), subprocess with threading (~3 ms: git is not forked for the branch or the project's
# identity, only for a result's freshness), the redactor and evidence patterns (~2 ms), what only writers need.
NOT_FOR_SEARCH = (
    "argparse",
    "typing",
    "subprocess",
    "threading",
    "autopilot.commands.handoff.codex",
    "autopilot.commands.handoff.intake",
    "autopilot.commands.handoff.memory",
    "autopilot.commands.handoff.packets",
    "autopilot.redact",
    "autopilot.handoff.transcripts.evidence",
    "orjson",
    "filelock",
)


@pytest.mark.parametrize("output", [["--json"], []])
def test_search_loads_only_what_it_needs(git_repo, output):
    """`codex-bridge -C DIR handoff search Q` (an index in place) answers without argparse, typing, a git process,
    the other handoff actions, the redactor or the index's writers."""
    code = (
        "import sys, io, contextlib; from autopilot.cli import main\n"
        "out, err = io.StringIO(), io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):\n"
        "    rc = main(['-C', sys.argv[1], 'handoff', 'search', *sys.argv[2:], 'parse_header'])\n"
        f"print(rc, [m for m in {NOT_FOR_SEARCH!r} if m in sys.modules], out.getvalue().startswith(('{{', '0 result')))"
    )
    argv = [sys.executable, "-c", code, str(git_repo), *output]
    subprocess.run(argv, capture_output=True, text=True, check=True, env=unmeasured())  # builds the index
    out = subprocess.run(argv, capture_output=True, text=True, check=True, env=unmeasured())
    assert out.stdout == "0 [] True\n", out.stderr


# What a page of `handoff intake` / `handoff from-codex intake` must not load, cached or after an append of a few MB:
# argparse (~8 ms), typing (~3 ms), the json package (~2 ms: fastjson prints and parses), orjson (~15 ms with
# dataclasses and inspect: only a scan of more than a few MB uses it), tempfile (~5 ms), a subprocess, pathlib
# (~3 ms with urllib.parse and ipaddress: only a subagent's transcript needs it), the hooks package.
NOT_FOR_INTAKE = (
    "pathlib",
    "urllib.parse",
    "ipaddress",
    "autopilot.hooks",
    "argparse",
    "typing",
    "json",
    "orjson",
    "dataclasses",
    "inspect",
    "tempfile",
    "subprocess",
    "threading",
    "autopilot.codex.sessions",
)
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.mark.parametrize(
    "action, fixture",
    [
        (["handoff", "intake"], FIXTURES / "claude" / "compact" / "1cb24488-622b-48d0-a6fd-d35d0851f2c7.jsonl"),
        (["handoff", "from-codex", "intake"], FIXTURES / "codex" / "exec_tools.jsonl"),
    ],
)
def test_an_intake_page_loads_only_what_it_needs(tmp_path, action, fixture):
    """A first, a cached and an appended-to intake page answer without argparse, typing, json, orjson, pathlib."""
    rows = fixture.read_bytes().splitlines(keepends=True)
    path = tmp_path / fixture.name
    path.write_bytes(b"".join(rows[: len(rows) // 2]))
    code = (
        "import sys, io, contextlib; from autopilot.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    rc = main(sys.argv[1:])\n"
        f"print(rc, [m for m in {NOT_FOR_INTAKE!r} if m in sys.modules], out.getvalue().startswith('{{'))"
    )
    argv = [sys.executable, "-c", code, *action, str(path)]
    env = unmeasured()
    runs = [subprocess.run(argv, capture_output=True, text=True, check=True, env=env).stdout]  # builds the index
    runs.append(subprocess.run(argv, capture_output=True, text=True, check=True, env=env).stdout)  # reuses it
    with open(path, "ab") as fh:
        fh.write(b"".join(rows[len(rows) // 2 :]))
    runs.append(subprocess.run(argv, capture_output=True, text=True, check=True, env=env).stdout)  # extends it
    assert runs == ["0 [] True\n"] * 3
