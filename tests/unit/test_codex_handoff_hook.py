"""The Codex `$handoff` hook script: a root session's `$handoff` is recorded and blocked; nothing else is touched."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autopilot import paths
from autopilot.codex.install import ASSETS
from tests.support.codex_home import rollout, thread

SCRIPT = ASSETS / "handoff" / "scripts" / "handoff_hook.py"
POINTER = "codex-latest.json"


def event(prompt: str, **extra: object) -> dict:
    """A UserPromptSubmit hook input as codex 0.171 sends it."""
    return {
        "session_id": thread(1),
        "turn_id": thread(2),
        "transcript_path": str(rollout(thread(1), os.getcwd())),
        "cwd": os.getcwd(),
        "hook_event_name": "UserPromptSubmit",
        "model": "gpt-6.2-sol",
        "permission_mode": "default",
        "prompt": prompt,
        **extra,
    }


def run_hook(payload: object, command: list[str] | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the hook as Codex does: event JSON on stdin, answer in the exit code, stdout and stderr."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return subprocess.run(
        command or [sys.executable, "-I", str(SCRIPT)],
        input=data,
        capture_output=True,
        env=env or dict(os.environ),
        timeout=30,
    )


def pointer_path() -> Path:
    """Where the hook writes the pointer."""
    return paths.handoff_dir() / POINTER


def test_ordinary_prompt_passes_untouched():
    """Any other prompt: exit 0, no output at all, no pointer."""
    done = run_hook(event("please fix the failing test"))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert not pointer_path().exists()


def test_prompt_mentioning_handoff_passes_untouched():
    """A prompt that only mentions $handoff among other words is an ordinary prompt."""
    done = run_hook(event("explain what $handoff does"))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert not pointer_path().exists()


def test_handoff_is_recorded_and_blocked():
    """`$handoff` from a root session writes the pointer and exits 2 so Codex makes no model request."""
    payload = event("$handoff")
    done = run_hook(payload)
    pointer = json.loads(pointer_path().read_text())
    assert done.returncode == 2 and done.stdout == b""
    assert {k: pointer[k] for k in ("transcript_path", "cwd", "session_id")} == {
        "transcript_path": payload["transcript_path"],
        "cwd": payload["cwd"],
        "session_id": payload["session_id"],
    }
    assert sorted(pointer) == ["created_at", "cwd", "session_id", "transcript_path"]


def test_handoff_message_names_the_line_for_claude_code():
    """The reason Codex shows the user is the one line to type in Claude Code."""
    done = run_hook(event("$handoff"))
    assert b"type:  /codex-autopilot:from-codex" in done.stderr and b"handoff recorded" in done.stderr


def test_handoff_is_trimmed():
    """Surrounding whitespace and newlines around `$handoff` do not matter."""
    assert run_hook(event("  $handoff\n")).returncode == 2
    assert pointer_path().exists()


def test_handoff_replaces_the_previous_pointer():
    """A later `$handoff` overwrites the pointer with the newer session."""
    run_hook(event("$handoff"))
    newer = event("$handoff", session_id=thread(9), transcript_path=str(rollout(thread(9), os.getcwd())))
    run_hook(newer)
    assert json.loads(pointer_path().read_text())["session_id"] == thread(9)


def test_handoff_leaves_no_temp_files():
    """The atomic write leaves only the pointer in the handoff directory."""
    run_hook(event("$handoff"))
    assert sorted(p.name for p in paths.handoff_dir().iterdir()) == [POINTER]


def test_subagent_prompt_is_never_recorded():
    """A prompt carrying agent_id/agent_type (a subagent's) passes through, even if it is `$handoff`."""
    done = run_hook(event("$handoff", agent_id="agent-1", agent_type="worker"))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert not pointer_path().exists()


def test_subagent_rollout_is_never_recorded():
    """When the transcript's session_meta marks a child thread, `$handoff` passes through unrecorded."""
    child = rollout(thread(5), os.getcwd(), kind="child")
    done = run_hook(event("$handoff", session_id=thread(4), transcript_path=str(child)))
    assert done.returncode == 0 and not pointer_path().exists()


def test_fork_rollout_is_recorded():
    """A user fork (forked_from_id only) is a root session: its `$handoff` is recorded."""
    fork = rollout(thread(6), os.getcwd(), kind="fork")
    assert run_hook(event("$handoff", session_id=thread(6), transcript_path=str(fork))).returncode == 2
    assert json.loads(pointer_path().read_text())["transcript_path"] == str(fork)


def test_rollout_not_yet_written_is_still_recorded(tmp_path):
    """A transcript path Codex has not flushed yet does not stop the handoff (copy waits for it later)."""
    later = tmp_path / f"rollout-2026-11-30T11-00-00-{thread(7)}.jsonl"
    assert run_hook(event("$handoff", transcript_path=str(later))).returncode == 2


def test_session_without_rollout_is_blocked_with_a_reason():
    """An ephemeral session (transcript_path null) gets a clear refusal and no pointer."""
    done = run_hook(event("$handoff", transcript_path=None))
    assert done.returncode == 2 and b"keeps no rollout file" in done.stderr
    assert not pointer_path().exists()


def test_unwritable_home_is_blocked_with_a_reason(tmp_path):
    """When the pointer cannot be written, the prompt is still stopped and the user told why."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = run_hook(event("$handoff"), env={**os.environ, "AUTOPILOT_HOME": str(blocker)})
    assert done.returncode == 2 and b"NOT recorded" in done.stderr


def test_garbage_input_passes_untouched():
    """Input that is not JSON exits 0 silently, even when it contains `$handoff`."""
    done = run_hook(b"not json $handoff")
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_internal_error_is_logged_not_raised():
    """An unexpected error exits 0 with no output and leaves a line in the crash log."""
    done = run_hook(b'["$handoff"]' + b"\xff")
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert "codex $handoff hook" in (paths.autopilot_home() / "crash.log").read_text()


def test_non_utf8_locale_still_blocks(tmp_path):
    """The block message is written as UTF-8 bytes, so an ASCII-only locale cannot turn it into a crash."""
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": "ascii"}
    done = run_hook(event("$handoff", cwd=str(tmp_path / "projét")), env=env)
    assert done.returncode == 2 and "projét".encode() in done.stderr


def test_script_uses_only_the_standard_library():
    """The hook imports nothing from the bridge or third parties, so a broken install cannot break it."""
    tree = ast.parse(SCRIPT.read_text())
    imported = {
        alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    }
    imported |= {
        node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported <= set(sys.stdlib_module_names)


def test_ordinary_prompt_answers_fast():
    """An ordinary prompt is answered well within Codex's hook time limit (here: under a second)."""
    payload = event("x" * 200_000)
    start = time.monotonic()
    assert run_hook(payload).returncode == 0
    assert time.monotonic() - start < 1.0


# --- the installed launcher ---------------------------------------------------------------------------------


@pytest.fixture
def launcher(bridge):
    """The hook launcher `install codex` wrote."""
    code, _, err = bridge("install", "codex")
    assert code == 0, err
    return paths.codex_home() / "skills" / "handoff" / "scripts" / "handoff-hook"


def test_launcher_runs_the_hook(launcher):
    """The installed launcher, run through a login shell as Codex does, records `$handoff`."""
    done = run_hook(event("$handoff"), command=[os.environ.get("SHELL", "/bin/sh"), "-lc", str(launcher)])
    assert done.returncode == 2 and pointer_path().exists()


def test_launcher_falls_back_to_python3(launcher, tmp_path):
    """When the recorded interpreter is gone (a removed venv), the launcher uses python3 from PATH."""
    text = launcher.read_text().replace(f"py={sys.executable}", f"py={tmp_path / 'gone' / 'python'}")
    launcher.write_text(text)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    done = run_hook(event("$handoff"), command=[str(launcher)], env={**os.environ, "PATH": str(bin_dir)})
    assert done.returncode == 2 and pointer_path().exists()


def test_launcher_ignores_a_broken_bridge(launcher, tmp_path):
    """A PYTHONPATH with a broken `autopilot` package changes nothing: the hook runs isolated (-I)."""
    broken = tmp_path / "broken" / "autopilot"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise SystemExit(99)\n")
    env = {**os.environ, "PYTHONPATH": str(broken.parent)}
    assert run_hook(event("hello"), command=[str(launcher)], env=env).returncode == 0
    assert run_hook(event("$handoff"), command=[str(launcher)], env=env).returncode == 2
