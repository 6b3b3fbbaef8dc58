"""The stand-alone scripts Codex runs (stdlib only) agree with the bridge functions they copy."""

from __future__ import annotations

import importlib.util
import json
import os
import re
from pathlib import Path

import pytest

from autopilot import fastjson, paths
from autopilot.clock import now_us
from autopilot.codex import sessions
from autopilot.codex.install import ASSETS
from autopilot.fsutil import atomic_write

HOOK = ASSETS / "handoff" / "scripts" / "handoff_hook.py"
FROM_CLAUDE = ASSETS / "from-claude" / "scripts" / "from_claude.py"


def load(path: Path):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


META_CASES = {
    "root": {"id": "t", "cwd": "/w"},
    "fork": {"id": "t", "cwd": "/w", "forked_from_id": "p"},
    "agent_path": {"id": "t", "cwd": "/w", "agent_path": "/root/worker"},
    "thread_source": {"id": "t", "cwd": "/w", "thread_source": "subagent"},
    "source object": {"id": "t", "cwd": "/w", "source": {"subagent": {"thread_spawn": {"depth": 1}}}},
    "source string": {"id": "t", "cwd": "/w", "source": "exec"},
    "review source": {"id": "t", "cwd": "/w", "source": {"subagent": "review"}},
}


@pytest.mark.parametrize("case", sorted(META_CASES))
def test_subagent_test_agrees_with_the_bridge(tmp_path, case):
    """The hook's is_subagent_rollout and sessions.child_marker judge every session_meta alike."""
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text(json.dumps({"type": "session_meta", "payload": META_CASES[case]}) + "\n")
    assert load(HOOK).is_subagent_rollout(str(rollout)) == bool(sessions.child_marker(META_CASES[case]))
    assert (sessions.read(rollout).kind == "child") == bool(sessions.child_marker(META_CASES[case]))


def test_home_agrees_with_the_bridge(monkeypatch, tmp_path):
    """Both read $AUTOPILOT_HOME, and both default to ~/.codex-autopilot."""
    hook = load(HOOK)
    monkeypatch.setenv("AUTOPILOT_HOME", str(tmp_path / "h"))
    assert hook.home() == str(paths.autopilot_home())
    monkeypatch.delenv("AUTOPILOT_HOME")
    assert hook.home() == str(paths.autopilot_home())


def test_timestamps_have_the_bridges_format():
    """The hook's now_iso has the same shape as the bridge's (microseconds, Z)."""
    shape = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
    assert shape.match(load(HOOK).now_iso()) and shape.match(now_us())


def test_pointer_write_matches_the_atomic_writer(monkeypatch, tmp_path):
    """The hook's pointer file is byte for byte what fsutil.atomic_write would write, and leaves no temp file."""
    monkeypatch.setenv("AUTOPILOT_HOME", str(tmp_path / "h"))
    pointer = {"transcript_path": "/x/rollout.jsonl", "cwd": "/w", "é": "ü"}
    written = Path(load(HOOK).write_pointer(pointer))
    expected = tmp_path / "expected.json"
    atomic_write(expected, json.dumps(pointer, indent=2, sort_keys=True) + "\n")
    assert written.read_bytes() == expected.read_bytes()
    assert os.listdir(written.parent) == [written.name]


@pytest.mark.parametrize("where", ["repo root", "nested folder", "outside git"])
def test_place_agrees_with_the_bridge(tmp_path, where):
    """from_claude.place and sessions.place give the same working place for a path."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "a" / "b").mkdir(parents=True)
    (tmp_path / "plain").mkdir()
    path = {"repo root": repo, "nested folder": repo / "a" / "b", "outside git": tmp_path / "plain"}[where]
    assert load(FROM_CLAUDE).place(str(path)) == sessions.place(str(path))


MEMORY_HOOK = ASSETS / "handoff" / "scripts" / "memory_hook.py"
SOURCE = "class RateCache:\n    def get(self, day):\n        with open(self.path) as fh:\n        return load(fh)\n"
NEW = '        return load_rates(fh, parse_float=Decimal)  # "ghp_not_a_name"\n'
CODE = (
    'export function latestDay(rates) {\n  const API_TOKEN = "sk_live_a1B2c3D4"; // rotateToken()\n'
    "  return pickDay(rates);\n}\n"
)
NAMED_PATCH = (
    "*** Begin Patch\n*** Update File: src/fx.py\n@@ def load_rates\n     with open(path) as fh:\n"
    "-        return json.load(fh)\n+        return json.load(fh, parse_float=Decimal)  # note_this()\n"
    "*** Add File: docs/a.md\n+use parse_header()\n*** End Patch\n"
)
PATCH = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Move to: b.txt\n*** End Patch\n"
MEMORY_EVENTS = {
    "session start": ("SessionStart", {"source": "compact", "model": "m", "transcript_path": "/t.jsonl"}),
    "session end": ("SessionEnd", {"reason": "clear"}),
    "prompt": ("UserPromptSubmit", {"prompt": "p" * 5000, "turn_id": "t1"}),
    "subagent prompt": ("UserPromptSubmit", {"prompt": "x", "agent_id": "a"}),
    "stop": ("Stop", {"model": "gpt"}),
    "pre compact": ("PreCompact", {"trigger": "manual", "custom_instructions": "keep it"}),
    "post compact": ("PostCompact", {"trigger": "auto", "compact_summary": "s"}),
    "model switch": ("PostModelSwitch", {"from_model": "a", "to_model": "b"}),
    "edit": ("PostToolUse", {"tool_name": "Edit", "tool_input": {"file_path": "/w/é.py"}, "tool_use_id": "u"}),
    "patch": (
        "PostToolUse",
        {"tool_name": "apply_patch", "tool_input": {"command": PATCH}, "tool_response": "Exit code: 1"},
    ),
    "claude run": (
        "PostToolUse",
        {"tool_name": "Bash", "tool_input": {"command": "pytest"}, "tool_response": {"stdout": "1 passed"}},
    ),
    "claude failure": (
        "PostToolUseFailure",
        {"tool_name": "Bash", "tool_input": {"command": "make test"}, "error": "Exit code 2\nx"},
    ),
    "codex run": (
        "PostToolUse",
        {"tool_name": "Bash", "tool_input": {"command": "npm test"}, "tool_response": "ok " * 900},
    ),
    "other command": ("PostToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": "x"}),
    "edit naming what it changed": (
        "PostToolUse",
        {
            "tool_name": "Edit",
            "tool_input": {"file_path": "/w/fx.py", "old_string": "        return load(fh)\n", "new_string": NEW},
            "tool_response": {"originalFile": SOURCE},
            "tool_use_id": "u2",
        },
    ),
    "multiedit": (
        "PostToolUse",
        {
            "tool_name": "MultiEdit",
            "tool_input": {"file_path": "/w/fx.py", "edits": [{"old_string": "a", "new_string": NEW}]},
        },
    ),
    "write of code": ("PostToolUse", {"tool_name": "Write", "tool_input": {"file_path": "/w/n.ts", "content": CODE}}),
    "write of an env file": (
        "PostToolUse",
        {"tool_name": "Write", "tool_input": {"file_path": "/w/.env", "content": CODE}},
    ),
    "patch naming what it changed": ("PostToolUse", {"tool_name": "apply_patch", "tool_input": {"input": NAMED_PATCH}}),
    "turn end with next steps": (
        "Stop",
        {"last_assistant_message": "Fixed the parser.\n\n**Next steps:**\n1. make `pytest -k io` pass\n2. docs"},
    ),
    "turn end with a closing plan": ("Stop", {"last_assistant_message": "Done.\n\nNext, I'll wire the cache."}),
    "turn end without a plan": ("Stop", {"last_assistant_message": "All tests pass now."}),
}


@pytest.mark.parametrize("case", sorted(MEMORY_EVENTS))
def test_memory_hook_records_what_the_bridge_records(case):
    """The Codex memory hook's observations are, line for line, the bridge recorder's (time aside)."""
    from autopilot.handoff.memory import observe

    event, fields = MEMORY_EVENTS[case]
    data = {"session_id": "s-0001", "cwd": "/w", **fields}
    theirs = load(MEMORY_HOOK).observations(event, data, "codex")
    ours = observe.observations(event, data, "codex")
    strip = [{k: v for k, v in o.items() if k != "at"} for o in ours]
    assert [{k: v for k, v in o.items() if k != "at"} for o in theirs] == strip
    assert [load(MEMORY_HOOK).dumps(o) for o in ours] == [fastjson.dumps(o) for o in ours]


@pytest.mark.parametrize("where", ["repo root", "nested folder", "outside git"])
def test_memory_hook_finds_the_worktree_and_store_the_bridge_finds(tmp_path, where):
    """toplevel and session_dir agree with git.toplevel and observe.session_dir."""
    from autopilot.errors import BridgeError
    from autopilot.git import toplevel
    from autopilot.handoff.memory import observe

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "a" / "b").mkdir(parents=True)
    (tmp_path / "plain").mkdir()
    path = {"repo root": repo, "nested folder": repo / "a" / "b", "outside git": tmp_path / "plain"}[where]
    hook = load(MEMORY_HOOK)
    try:
        ours = toplevel(str(path))
    except BridgeError:
        ours = None
    assert hook.toplevel(str(path)) == ours
    if ours:
        assert hook.session_dir(ours, "codex", "s-0001") == observe.session_dir(ours, "codex", "s-0001")


def test_memory_hook_decides_due_as_the_bridge_does(git_repo):
    """Recorded by one and checked by the other, an injection is due at the same moments."""
    from autopilot.handoff.memory import observe

    hook = load(MEMORY_HOOK)
    data = {"session_id": "s-0001", "cwd": str(git_repo)}
    folder, _ = hook.record("UserPromptSubmit", {**data, "prompt": "hi"}, "codex")
    assert hook.due("UserPromptSubmit", {}, folder) is observe.due("UserPromptSubmit", {}, folder) is False
    observe.record("PostToolUse", {**data, "tool_name": "Edit", "tool_input": {"file_path": "/a"}}, "codex")
    assert hook.due("UserPromptSubmit", {}, folder) is observe.due("UserPromptSubmit", {}, folder) is True


@pytest.mark.parametrize("text", ['{"a": [1, 2.5, "x\\u00e9", null, true], "b": {}}', ' \n{"cwd": "/x"}\n', "[1]"])
def test_memory_hook_parses_what_the_bridge_parses(text):
    """The memory hook's loads reads stdin as the bridge's hook entry point does."""
    from autopilot.fastjson import parse_json

    assert load(MEMORY_HOOK).loads(text) == parse_json(text) == json.loads(text)
