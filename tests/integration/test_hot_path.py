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
from tests.support.repo import FIXTURES

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
    "re",  # with enum and functools ~5 ms: the readers' patterns are built by _sre (autopilot.patterns)
    "enum",
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
    code = (  # the kept patterns in this test's own file (test_cli.py does the same), written even without bytecode
        "import sys, io, contextlib; from autopilot import cli; from autopilot.cli import main\n"
        "kept = sys.argv.pop(1); cli.kept_patterns_path = lambda: kept; sys.dont_write_bytecode = False\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    rc = main(sys.argv[1:])\n"
        f"print(rc, [m for m in {NOT_FOR_INTAKE!r} if m in sys.modules], out.getvalue().startswith('{{'))"
    )
    argv = [sys.executable, "-c", code, str(tmp_path / "regex.marshal"), *action, str(path)]
    env = unmeasured()
    # The same pages once first, of a copy: what a page compiles of the readers' and the redactor's patterns is kept
    # (autopilot.patterns), and a page whose patterns are kept loads no re, as on any machine the bridge has run on
    # before; the first page anywhere compiles them, with re, once.
    warm = tmp_path / "warm" / fixture.name
    warm.parent.mkdir()
    for rows_shown in (rows[: len(rows) // 2], rows):
        warm.write_bytes(b"".join(rows_shown))
        subprocess.run([*argv[:-1], str(warm)], capture_output=True, text=True, check=True, env=env)
    runs = [subprocess.run(argv, capture_output=True, text=True, check=True, env=env).stdout]  # builds the index
    runs.append(subprocess.run(argv, capture_output=True, text=True, check=True, env=env).stdout)  # reuses it
    with open(path, "ab") as fh:
        fh.write(b"".join(rows[len(rows) // 2 :]))
    runs.append(subprocess.run(argv, capture_output=True, text=True, check=True, env=env).stdout)  # extends it
    assert runs == ["0 [] True\n"] * 3


# --- The hot paths, as the processes on them load the package -------------------------------------------------------
# Each scenario is a whole process on a path that runs on every agent event or every poll: Claude Code's hooks with no
# run and with one (the events that do not ask Codex), the status line, `state`, the handoff actions agents run often,
# and Codex's memory hook. Those that never load `typing` are where the `TYPE_CHECKING = False` idiom pays (~3 ms a
# process); the modules they load are the pinned list `HOT_PATH` in tests/unit/test_architecture.py, and no other
# module keeps the idiom.
PROBE = (
    "import json, sys, io, contextlib\n"
    "from autopilot.cli import main\n"
    "out = io.StringIO()\n"
    "with contextlib.redirect_stdout(out):\n"
    "    rc = main(sys.argv[1:])\n"
    "print(json.dumps([rc, 'typing' in sys.modules, sorted(m for m in sys.modules if m.split('.')[0] == 'autopilot')]))"
)
CODEX_PROBE = (
    "import sys\n"
    "from autopilot.handoff.memory import codex_hook\n"
    "rc = codex_hook.main(sys.argv[1])\n"
    "print(rc, 'typing' in sys.modules, ' '.join(sorted(m for m in sys.modules if m.split('.')[0] == 'autopilot')),"
    " file=sys.stderr)"
)
# The scenarios that must stay free of typing (the idiom's whole point); the others load it with what they need.
TYPING_FREE = {
    "no run: SessionStart",
    "no run: UserPromptSubmit",
    "no run: PostToolUse",
    "no run: PostToolUseFailure",
    "no run: Stop",
    "no run: StopFailure",
    "no run: SessionEnd",
    "run: PostToolUseFailure",
    "run: SessionEnd",
    "state",
    "statusline",
    "handoff search",
    "handoff intake: first read",
    "handoff intake",
    "handoff from-codex intake: first read",
    "handoff from-codex intake",
    "handoff from-codex intake: a fork",
    "codex memory hook: prompt",
    "codex memory hook: edit",
}


def _loaded(argv: list[str], stdin: str = "") -> tuple[bool, list[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], input=stdin, capture_output=True, text=True, check=True, env=unmeasured()
    )
    rc, typing_loaded, found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert rc == 0, (argv, proc.stderr)
    return typing_loaded, found


def _codex_loaded(folder: Path, event: dict) -> tuple[bool, list[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", CODEX_PROBE, str(folder)],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env=unmeasured(),
    )
    rc, typing_loaded, found = proc.stderr.strip().splitlines()[-1].split(" ", 2)
    assert rc == "0", proc.stderr
    return typing_loaded == "True", found.split()


@pytest.mark.slow
def test_the_hot_path_list_is_what_the_hot_paths_load(planned, tmp_path):
    """Every scenario in TYPING_FREE loads no typing, and the modules they load together are exactly HOT_PATH."""
    from tests.support.hooks import payload
    from tests.unit.test_architecture import HOT_PATH

    norun = tmp_path / "norun"
    subprocess.run(["git", "init", "-q", str(norun)], check=True)
    (planned / "a.py").write_text("x = 1\n")
    edit = {
        "tool_name": "Edit",
        "tool_input": {"file_path": str(planned / "a.py"), "old_string": "x = 1", "new_string": "x = 2"},
        "tool_response": {"success": True},
    }
    events = {
        "SessionStart": {"source": "startup"},
        "UserPromptSubmit": {"prompt": "rename the helper"},
        "PostToolUse": edit,
        "PostToolUseFailure": {"tool_name": "Bash", "tool_input": {"command": "pytest"}, "error": "exit 1"},
        "Stop": {"stop_hook_active": False},
        "StopFailure": {"error": "rate_limit"},
        "SessionEnd": {"reason": "other"},
    }
    seen: dict[str, tuple[bool, list[str]]] = {}
    for label, repo in (("no run", norun), ("run", planned)):
        for event, fields in events.items():
            if label == "run" and event in ("Stop", "PostToolUse", "UserPromptSubmit", "SessionStart"):
                continue  # they ask Codex or read the run: typing comes with what they need
            seen[f"{label}: {event}"] = _loaded(["hook", event], json.dumps(payload(event, repo, **fields)))
    seen["state"] = _loaded(["-C", str(planned), "state"])
    status = {"cwd": str(planned), "workspace": {"current_dir": str(planned)}, "session_id": "s"}
    seen["statusline"] = _loaded(["statusline"], json.dumps(status))
    searched = tmp_path / "searched"  # a search that has only to read the index (one that must first index new
    subprocess.run(["git", "init", "-q", str(searched)], check=True)  # memory loads its writers)
    _loaded(["-C", str(searched), "handoff", "search", "parse_header"])  # builds the index
    seen["handoff search"] = _loaded(["-C", str(searched), "handoff", "search", "parse_header"])
    claude = next((FIXTURES / "claude" / "compact").glob("*.jsonl"))
    rollout = FIXTURES / "codex" / "exec_tools.jsonl"
    for name, argv in (("handoff intake", [str(claude)]), ("handoff from-codex intake", ["--", str(rollout)])):
        words = ["handoff", *name.split()[1:], *argv]
        seen[f"{name}: first read"] = _loaded(words)  # builds the transcript's index
        seen[name] = _loaded(words)
    forked = tmp_path / "forked"  # a fork's page meets its parent thread and looks for its rollout (codex.sessions)
    forked.mkdir()
    for name in ("exec_fork.jsonl", "exec_fork_parent.jsonl"):
        (forked / name).write_bytes((FIXTURES / "codex" / name).read_bytes())
    seen["handoff from-codex intake: a fork"] = _loaded(
        ["handoff", "from-codex", "intake", "--", str(forked / "exec_fork.jsonl")]
    )
    folder = tmp_path / "skill"
    folder.mkdir()
    base = {"session_id": "019a0000-0000-7000-8000-000000000001", "cwd": str(planned), "transcript_path": None}
    seen["codex memory hook: prompt"] = _codex_loaded(
        folder, {**base, "hook_event_name": "UserPromptSubmit", "prompt": "continue", "turn_id": "t1"}
    )
    seen["codex memory hook: edit"] = _codex_loaded(
        folder,
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "apply_patch",
            "tool_input": {"command": "*** Begin Patch\n*** End Patch\n"},
        },
    )
    assert {name for name, (typing_loaded, _) in seen.items() if not typing_loaded} == TYPING_FREE
    loaded = set().union(*(set(found) for name, (_, found) in seen.items() if name in TYPING_FREE))
    assert sorted(loaded - HOT_PATH) == [] and sorted(HOT_PATH - loaded) == []
