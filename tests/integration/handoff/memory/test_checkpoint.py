"""A checkpoint written from outside any agent's shell is never labelled as the person's: nothing tells the person
from a process running as them.

The issue's agent wrote a checkpoint for another session from a detached shell with its markers unset and a terminal
of its own; it was recorded as written "by the person" and injected under that label. Here the same write still
reaches the session (as a claim), but neither the stored record nor what the session is given says the person wrote
it. With the agents' sandboxes on, the write fails outright (tests/e2e/test_sandbox_e2e.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from autopilot.handoff.memory import observe
from tests.integration.handoff.memory.test_origin import PLANTED, next_prompt, started
from tests.support.hooks import SESSION
from tests.support.terminal import bridge_argv, clean_env, typed


def test_a_detached_marker_free_write_on_its_own_pty_is_not_the_persons(git_repo, bridge, tmp_path):
    """`handoff checkpoint` for the session from a new session on its own pty, markers unset: stored and injected as
    written outside any agent's shell, never as the person's."""
    started(bridge, git_repo)
    body = tmp_path / "checkpoint.json"
    body.write_text(json.dumps(PLANTED))
    argv = bridge_argv("-C", str(git_repo), "handoff", "checkpoint", "--agent", "claude", "--session", SESSION)
    code, shown = typed([*argv, "--file", str(body)], [], clean_env())
    assert code == 0, shown
    stored = (
        Path(observe.session_dir(os.path.realpath(git_repo), "claude", SESSION)) / observe.CHECKPOINTS
    ).read_text()
    assert "written by the person" not in stored and "anything running as them" in stored
    context = next_prompt(bridge, git_repo)
    assert "PLANTED-OBJECTIVE" in context and "the person wrote" not in context
    assert "not proof of who wrote it" in context
