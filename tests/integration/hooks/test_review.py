"""PostToolUse: which tool calls note work for Codex to review (the review itself: tests/integration/loop/
test_review_worker.py; what reaches Claude and the person: tests/integration/hooks/test_delivery.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import filelock

from autopilot.loop.review_worker import LOCK, running
from autopilot.loop.state import Store
from autopilot.scripted.responses_server import reply_json
from tests.support.hooks import OTHER_SESSION, run_hook
from tests.support.loop import PLAN

REQUEST_CHANGES = {
    "decision": "request_changes",
    "summary": "feature.py sets x but the task wants a function",
    "issues": [{"severity": "major", "file": "feature.py", "line": 1, "message": "define feature()"}],
}


def edit(bridge, repo, name="feature.py", content="x = 1\n", tool="Write"):
    (Path(repo) / name).write_text(content)
    return run_hook(
        bridge,
        "PostToolUse",
        repo,
        tool_name=tool,
        tool_input={"file_path": str(Path(repo) / name), "content": content},
        tool_response={"type": "create", "filePath": str(Path(repo) / name)},
        tool_use_id="toolu_1",
    )


def reviews(server) -> int:
    return sum(1 for r in server.requests if "issues" in json.dumps(r.get("text") or {}))


def test_no_change_since_base_is_not_reviewed(planned, openai_env, bridge):
    """A Bash call in a clean work tree asks Codex nothing."""
    assert run_hook(bridge, "PostToolUse", planned, tool_name="Bash", tool_input={"command": "ls"}) is None
    assert reviews(openai_env) == 0


def test_edits_made_before_the_plan_are_not_reviewed(git_repo, openai_env, bridge):
    """Uncommitted edits already there when Codex planned are not the task's work: a tool call reviews nothing."""
    (Path(git_repo) / "notes.txt").write_text("mine, from before the plan\n")
    openai_env.push(reply_json(copy.deepcopy(PLAN)))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature")[0] == 0
    assert run_hook(bridge, "PostToolUse", git_repo, tool_name="Bash", tool_input={"command": "ls"}) is None
    assert reviews(openai_env) == 0


def test_other_tools_are_ignored(planned, openai_env, bridge):
    """Read (or any tool outside the matcher) never triggers a review."""
    (Path(planned) / "feature.py").write_text("x = 1\n")
    assert run_hook(bridge, "PostToolUse", planned, tool_name="Read", tool_input={"file_path": "x"}) is None
    assert reviews(openai_env) == 0


def test_one_review_in_flight_per_run(planned, openai_env, bridge):
    """While a worker holds the review lock, an edit only notes the work for it: no second worker, no review."""
    store = Store(planned)
    with filelock.FileLock(str(store.dir / LOCK)):
        assert running(store)
        assert edit(bridge, planned) is None
    assert not running(store) and reviews(openai_env) == 0


def test_other_session_edits_are_not_reviewed(planned, openai_env, bridge):
    """Edits in a session that does not own the run ask Codex nothing."""
    run_hook(bridge, "SessionStart", planned, source="startup")
    (Path(planned) / "feature.py").write_text("x = 1\n")
    run_hook(bridge, "PostToolUse", planned, tool_name="Write", session_id=OTHER_SESSION)
    assert reviews(openai_env) == 0
