"""The real claude with the plugin: a review still running when claude exits is left at the provider, no process of
ours outlives the session, and the next session's start charges it exactly what was billed."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from autopilot.loop.state import Store
from autopilot.scripted.responses_server import ResponsesServer, delay, reply_json
from tests.support.loop import PLAN, done, state_of
from tests.support.messages_server import text, tool_use
from tests.support.plugin_harness import run_claude

pytestmark = pytest.mark.e2e

REQUEST_CHANGES = {
    "decision": "request_changes",
    "summary": "feature.py has no docstring",
    "issues": [{"severity": "minor", "file": "feature.py", "line": 1, "message": "add a docstring"}],
}
ONE_TASK = {**PLAN, "tasks": PLAN["tasks"][:1]}  # T1: feature.py exists
REVIEW_S = 8.0  # the review outlives claude's session by seconds


def codex(body: dict) -> dict:
    """The scripted Codex: the plan, a slow review, a quick `done` verdict."""
    name = body["text"]["format"]["name"]
    if name == "autopilot_plan":
        return reply_json(ONE_TASK)
    if name == "autopilot_review":
        return delay(reply_json(REQUEST_CHANGES), REVIEW_S)
    return reply_json(done("feature.py exists"))


def ours(home: Path) -> list[int]:
    """The processes running with this autopilot home (the review worker, a hook)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if f"AUTOPILOT_HOME={home}".encode() in fh.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            continue
    return found


def wait_until(check, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout}s"
        time.sleep(0.1)


def test_a_review_running_when_claude_exits_is_left_and_charged_by_the_next_session(
    claude, git_repo, tmp_path, bridge, monkeypatch
):
    home = Path(os.environ["AUTOPILOT_HOME"])
    with ResponsesServer(responder=codex) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        monkeypatch.setenv("AUTOPILOT_BACKEND", "openai")
        assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature with a test")[0] == 0
        left = Store(git_repo).dir / "review-left.json"

        def review_in_flight(n: int) -> None:  # Claude stops only once the provider has taken the review
            if n == 1:
                wait_until(left.exists, 60, "the review's id kept")

        steps = [tool_use("Write", {"file_path": str(git_repo / "feature.py"), "content": "x = 1\n"}), text("Done.")]
        prompt = "Work on the autopilot task."
        run = run_claude(claude, git_repo, prompt, steps, tmp_path / "h", before=review_in_flight)
        assert run.proc.returncode == 0, run.proc.stderr
        assert ours(home) == []  # claude has exited: nothing of ours is left, the review still running
        assert server.working() == 1 and left.exists()
        state = state_of(bridge, git_repo)
        assert state["status"] == "done" and state["token_usage"]["review"]["calls"] == 0

        wait_until(lambda: server.working() == 0, 30, "the provider's end of the review")  # billed now

        def charged(n: int) -> None:  # the person's next session lasts until the review is fetched
            if n == 0:
                wait_until(lambda: state_of(bridge, git_repo)["token_usage"]["review"]["calls"] == 1, 60, "the charge")

        again = run_claude(claude, git_repo, "Hello.", [text("Hi.")], tmp_path / "h2", before=charged)
        assert again.proc.returncode == 0, again.proc.stderr
        wait_until(lambda: ours(home) == [], 10, "the collecting worker's exit")
        state = state_of(bridge, git_repo)
        usage = state["token_usage"]
        billed = server.bills
        assert len(billed) == 3 and not left.exists()  # plan, review, verdict: each billed once, each charged once
        assert sum(usage[p]["input"] for p in usage) == sum(b["input_tokens"] for b in billed)
        assert sum(usage[p]["output"] for p in usage) == sum(b["output_tokens"] for b in billed)
        assert state["last_review"]["decision"] == "request_changes"  # recorded, about a run that is over
