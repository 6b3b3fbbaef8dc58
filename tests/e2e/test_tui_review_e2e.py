"""The background review as a person sees it in Claude Code's TUI: the plan after /autopilot, one line per review,
the finding in Claude's next request, and /codex-status answered with no model turn.

The real claude runs in tmux (tests/support/tui.py) with this plugin; the real codex reviews (the codex-cli backend),
both against scripted servers.
"""

from __future__ import annotations

import json

import pytest

from autopilot.scripted.responses_server import delay, reply_json
from tests.support import tui
from tests.support.loop import PLAN, done, state_of
from tests.support.messages_server import text, tool_use

pytestmark = pytest.mark.e2e

FINDING = "FINDING-TUI: feature.py sets x; define feature() instead"
REQUEST_CHANGES = {
    "decision": "request_changes",
    "summary": "feature.py sets x but the task wants a function",
    "issues": [{"severity": "major", "file": "feature.py", "line": 1, "message": FINDING}],
}


def test_the_person_sees_the_plan_and_each_review_and_the_finding_reaches_claude(codex, git_repo, tmp_path, bridge):
    """/autopilot typed: the first tool's hook shows the plan (tasks, criteria); the edit's review runs while Claude
    works and its line shows at the next tool; the finding is in Claude's next request; /codex-status shows the run
    without asking the model."""
    codex.push("plan", reply_json(PLAN))
    codex.push("review", delay(reply_json(REQUEST_CHANGES), 1.0))
    codex.push("verdict", reply_json(done("feature.py exists")))
    steps = [
        tool_use("Write", {"file_path": str(git_repo / "feature.py"), "content": "x = 1\n"}),
        # Claude thinks for a while: the review lands meanwhile, and the next tool's hook hands it over
        {**tool_use("Read", {"file_path": str(git_repo / "feature.py")}), "delay": 20},
        text("T1 is done: feature.py exists."),
    ]
    with tui.claude_with_plugin(steps, git_repo, tmp_path) as (screen, server):
        screen.send("/autopilot Add a feature with a test")
        shown = screen.wait_for(lambda s: "Codex planned 2 tasks" in s, 180, "the plan")
        assert "T1 Add feature: feature.py exists" in shown and "T2 Test it: test passes" in shown
        shown = screen.wait_for(lambda s: "Codex asks for changes on T1" in s, 120, "the review's line")
        shown = screen.wait_for(lambda s: "done: Codex judged the goal met" in s, 180, "the done message")
        asked = len(server.main_requests())
        screen.send("/codex-status")
        status = screen.wait_for(lambda s: "Status:     done" in s, 60, "the status")
        assert len(server.main_requests()) == asked  # no model turn for it
    after_review = [json.dumps(body["messages"]) for body in server.main_requests()]
    assert any(FINDING in request for request in after_review[2:])  # Claude's next request carried it
    assert not any(FINDING in request for request in after_review[:2])
    assert "Goal:       Add a feature with a test" in status
    assert state_of(bridge, git_repo)["status"] == "done"
    assert codex.asked == ["plan", "review", "verdict"]
