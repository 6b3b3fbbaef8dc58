"""The hook entry point: the no-run fast path, failing open, and the dispatch table."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from autopilot import fastjson, hooks
from autopilot.paths import run_dir
from tests.support.hooks import payload, run_hook

EVENTS = ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "StopFailure", "SessionEnd"]


@pytest.mark.parametrize("event", EVENTS)
def test_no_run_means_no_output(event, git_repo, bridge):
    """In a repository without a run every hook exits 0 and prints nothing."""
    assert run_hook(bridge, event, git_repo, tool_name="Write", prompt="hello") is None


def test_no_run_outside_git(tmp_path, bridge):
    """A session outside any git repository gets no output either."""
    assert run_hook(bridge, "Stop", tmp_path) is None


def test_fast_path_finds_the_run_directory(planned):
    """The os-only run lookup agrees with paths.run_dir, from the top level and from a subdirectory."""
    (planned / "sub" / "dir").mkdir(parents=True)
    assert (run_dir(str(planned)) / "state.json").is_file()
    assert hooks.has_run(str(planned)) and hooks.has_run(str(planned / "sub" / "dir"))


def test_fast_path_ignores_other_runs(planned, tmp_path):
    """A run in one repository does not make another repository look active."""
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    assert not hooks.has_run(str(other))


def test_fast_path_asks_git_where_the_commands_do(planned, tmp_path, monkeypatch):
    """Under GIT_DIR/GIT_WORK_TREE the run lookup finds the repository every codex-bridge command acts on."""
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.setenv("GIT_DIR", str(planned / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(planned))
    assert hooks.has_run(str(outside))


def test_unknown_event_is_ignored(planned, bridge):
    """An event the plugin has no handler for answers nothing."""
    assert run_hook(bridge, "PreCompact", planned) is None


def test_input_that_is_not_an_object_is_reported(bridge):
    """Malformed stdin becomes a visible systemMessage, never a block or a crash."""
    code, out, _ = bridge("hook", "Stop", stdin="[1, 2]")
    answer = json.loads(out)
    assert code == 0 and "not a JSON object" in answer["systemMessage"] and "decision" not in answer


def hostile_inputs(cwd: str) -> dict[str, str]:
    """Stop hook stdin Claude Code would never send, each with a run present in ``cwd``."""
    good = payload("Stop", cwd, stop_hook_active=False, last_assistant_message="done")
    return {
        "empty": "",
        "blank": "  \n",
        "not JSON": "{session_id:",
        "a list": "[1, 2, 3]",
        "a string": '"Stop"',
        "list session_id": json.dumps({**good, "session_id": ["a"]}),
        "numeric cwd": json.dumps({**good, "cwd": 12345}),
        "no cwd": json.dumps({k: v for k, v in good.items() if k != "cwd"}),
        "empty session_id": json.dumps({**good, "session_id": ""}),
        "wrong event": json.dumps({**good, "hook_event_name": "PostToolUse"}),
        "stop_hook_active as text": json.dumps({**good, "stop_hook_active": "yes"}),
        "100,000 levels deep": "[" * 100_000 + "]" * 100_000,
        "deep object": '{"a":' * 100_000 + "1" + "}" * 100_000,
    }


@pytest.mark.parametrize("case", sorted(hostile_inputs("/x")))
def test_hostile_input_does_nothing_and_says_so(planned, openai_env, bridge, case):
    """Input a hook cannot trust: exit 0, one message, no verdict paid for, no block, the run untouched."""
    before = (run_dir(str(planned)) / "state.json").read_text()
    calls = len(openai_env.requests)
    code, out, err = bridge("hook", "Stop", stdin=hostile_inputs(str(planned))[case], cwd=planned)
    answer = json.loads(out)
    assert code == 0 and "cannot trust" in answer["systemMessage"] and "decision" not in answer, err
    assert len(openai_env.requests) == calls and (run_dir(str(planned)) / "state.json").read_text() == before


@pytest.mark.parametrize("text", ['{"a": [1, 2.5, "x\\u00e9", null, true], "b": {}}', ' \n{"cwd": "/x"}\n', "[1]"])
def test_input_parser_matches_json(text):
    """The hot path's parser reads what json.loads reads."""
    assert fastjson.parse_json(text) == json.loads(text)


@pytest.mark.parametrize("text", ['{"a": 1} x', '{"a":', "nope", "{}{}"])
def test_input_parser_rejects_what_json_rejects(text):
    """Truncated input, trailing data or no JSON at all is a ValueError, as with json.loads."""
    with pytest.raises(ValueError):
        fastjson.parse_json(text)


def test_internal_error_fails_open_with_a_crash_log(planned, bridge, monkeypatch, isolated_homes):
    """A bug in a handler gives exit 0, a systemMessage naming the crash log, and a traceback in it."""
    from autopilot.hooks import stop

    def boom(hook):
        raise ZeroDivisionError("bug")

    monkeypatch.setattr(stop, "stop", boom)
    answer = run_hook(bridge, "Stop", planned)
    log = isolated_homes / "autopilot" / "crash.log"
    assert "ZeroDivisionError" in answer["systemMessage"] and str(log) in answer["systemMessage"]
    assert "decision" not in answer and "ZeroDivisionError: bug" in log.read_text()


def test_bridge_error_fails_open_without_a_crash_log(planned, bridge, isolated_homes):
    """A state.json from a newer version is reported as a systemMessage; Claude is not blocked."""
    path = run_dir(str(planned)) / "state.json"
    state = json.loads(path.read_text())
    path.write_text(json.dumps({**state, "schema_version": 99}))
    answer = run_hook(bridge, "Stop", planned)
    assert "newer codex-autopilot" in answer["systemMessage"] and "decision" not in answer
    assert not (isolated_homes / "autopilot" / "crash.log").exists()


# What the no-run hook path loads of the package: the entry point, the hooks' table and the memory's recorder.
NO_RUN_MODULES = [
    "autopilot",
    "autopilot.cli",
    "autopilot.clock",
    "autopilot.config",
    "autopilot.digest",
    "autopilot.errors",
    "autopilot.fastjson",
    "autopilot.git",
    "autopilot.handoff",
    "autopilot.handoff.memory",
    "autopilot.handoff.memory.observe",
    "autopilot.hooks",
    "autopilot.text",
]


def test_no_run_path_imports_nothing_heavy(git_repo, tmp_path):
    """With no run, a hook imports no openai, jsonschema, yaml or workspace machinery: only the memory's recorder."""
    home = tmp_path / "home-with-other-run"
    (home / "runs" / "elsewhere-0123456789ab").mkdir(parents=True)
    probe = (
        "import sys; from autopilot.cli import main; main(['hook', 'Stop']); "
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('openai', 'jsonschema', 'yaml', 'autopilot'))), file=sys.stderr)"
    )
    proc = subprocess.run(
        [sys.executable, "-I", "-c", probe],
        input=json.dumps(payload("Stop", git_repo)),
        capture_output=True,
        text=True,
        env={**os.environ, "AUTOPILOT_HOME": str(home)},
    )
    assert proc.returncode == 0 and proc.stdout == ""
    assert proc.stderr.split() == NO_RUN_MODULES


def test_no_run_path_imports_neither_json_nor_typing(git_repo, tmp_path):
    """The no-run answer parses its input without the json package (its decoder imports re) or typing."""
    probe = (
        "import sys; from autopilot.cli import main; main(['hook', 'Stop']); "
        "print(' '.join(sorted(m for m in ('json', 're', 'typing', 'pathlib') if m in sys.modules)), "
        "file=sys.stderr)"
    )
    proc = subprocess.run(
        [sys.executable, "-I", "-c", probe],
        input=json.dumps(payload("Stop", git_repo)),
        capture_output=True,
        text=True,
        env={**os.environ, "AUTOPILOT_HOME": str(tmp_path)},
    )
    assert proc.returncode == 0 and proc.stderr.split() == []
