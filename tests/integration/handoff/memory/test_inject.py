"""After `/clear` each session keeps its own memory: the new one's state goes on from the cleared one's, without a
copy of its observations, so search finds every edit once and the new session's coverage starts at its own start."""

from __future__ import annotations

import json
import os
from pathlib import Path

from autopilot.handoff.memory import observe
from tests.support.handoff_env import run_json
from tests.support.hooks import OTHER_SESSION, SESSION, context_of, payload, run_hook

REQUEST = "Add a --json flag to export. Never change the CSV output."


def log(repo: Path, session: str) -> list[dict]:
    """A session's observation log in ``repo``."""
    path = Path(observe.session_dir(os.path.realpath(repo), "claude", session)) / observe.LOG
    return [json.loads(line) for line in path.read_text().splitlines()]


def cleared(bridge, repo: Path) -> str:
    """A session that asked, edited and ran a failing test, then /clear: the new session's first injection."""
    run_hook(bridge, "SessionStart", repo, source="startup")
    run_hook(bridge, "UserPromptSubmit", repo, prompt=REQUEST, prompt_id="p1")
    edit = {"file_path": f"{repo}/export_json.py", "content": "def export_json(rows):\n    return rows\n"}
    run_hook(bridge, "PostToolUse", repo, tool_name="Write", tool_input=edit, tool_response={})
    run = {"command": "pytest -q tests/test_export.py"}
    run_hook(bridge, "PostToolUseFailure", repo, tool_name="Bash", tool_input=run, error="Exit code 1\n1 failed")
    run_hook(bridge, "SessionEnd", repo, reason="clear")
    event = {**payload("SessionStart", repo, source="clear"), "session_id": OTHER_SESSION}
    code, out, err = bridge("hook", "SessionStart", stdin=json.dumps(event))
    assert code == 0, err
    return context_of(json.loads(out))


def test_the_new_session_starts_from_the_cleared_ones_state_labelled_as_its(git_repo, bridge):
    """The injection after /clear carries the objective (labelled as the cleared session's request), the edited file
    and the failing run."""
    text = cleared(bridge, git_repo)
    assert REQUEST in text and f"the first request of session {SESSION}, which /clear replaced" in text
    assert "export_json.py" in text and "pytest -q tests/test_export.py" in text


def test_the_new_session_keeps_only_its_own_observations(git_repo, bridge):
    """The new log holds its start and a link to the cleared session, never a copy of that session's events."""
    cleared(bridge, git_repo)
    mine = log(git_repo, OTHER_SESSION)
    assert [o["kind"] for o in mine] == ["session", "cleared"]
    assert mine[1]["from"] == SESSION and not any(o.get("carriedFrom") for o in mine)
    assert [o["kind"] for o in log(git_repo, SESSION)] == ["session", "request", "edit", "run", "end"]


def test_search_finds_an_edit_once_after_a_clear(git_repo, bridge):
    """The edit before /clear is one result, in the session that made it, not one per session."""
    cleared(bridge, git_repo)
    run_hook(bridge, "UserPromptSubmit", git_repo, prompt="carry on")  # the new session goes on
    code, answer, err = run_json(bridge, "handoff", "search", "export_json.py", "--json", cwd=git_repo)
    assert code == 0, err
    edits = [r for r in answer["results"] if r["role"] == "memory.edit"]
    assert [r["session"] for r in edits] == [SESSION]


def test_the_new_sessions_coverage_begins_at_its_own_start(git_repo, bridge):
    """`handoff active` of the new session reports no late hooks: its first hook is its own SessionStart(clear)."""
    cleared(bridge, git_repo)
    code, view, err = run_json(
        bridge, "handoff", "active", "--agent", "claude", "--session", OTHER_SESSION, "--json", cwd=git_repo
    )
    assert code == 0, err
    assert "hooks_late" not in [g["kind"] for g in view["coverage"]["reasons"]]
    assert view["objective"]["text"] == REQUEST and view["objective"]["carriedFrom"] == SESSION
