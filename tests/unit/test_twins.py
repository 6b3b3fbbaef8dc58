"""The stand-alone scripts Codex runs (stdlib only) agree with the bridge functions they copy."""

from __future__ import annotations

import importlib.util
import json
import os
import re
from pathlib import Path

import pytest

from autopilot import paths
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
