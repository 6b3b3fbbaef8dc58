"""The Codex intake on rollouts the real codex binary writes while the test runs."""

from __future__ import annotations

import json
import signal

import pytest

from autopilot.handoff.transcripts.codex_intake import intake
from autopilot.scripted.responses_server import reply_text, tool_call
from tests.fixtures.make_codex_fixtures import PATCH_ADD, custom_tool_call, interrupt_turn, namespaced_call, rig
from tests.support.agents import agent_bin, needs

pytestmark = pytest.mark.e2e


@pytest.fixture(autouse=True)
def _codex_present():
    """Skip (or fail under AUTOPILOT_REQUIRE_E2E) when the pinned codex is not installed."""
    agent_bin("codex")


@pytest.mark.smoke
def test_exec_and_resume_rollout_reads_back_as_paired_evidence(tmp_path):
    """A real exec turn with a command and a patch, then exec resume, reads back paired and complete."""
    with rig(under=tmp_path) as r:
        r.srv.push(
            tool_call("exec_command", {"cmd": "echo e2e-marker"}, call_id="call_e2e"),
            custom_tool_call("apply_patch", PATCH_ADD, call_id="call_e2e_patch"),
            reply_text("Done."),
        )
        tid = r.thread_id(r.exec("--json", "--skip-git-repo-check", "-s", "workspace-write", "Run and patch"))
        r.srv.push(reply_text("Resumed fine."))
        r.exec("resume", tid, "--json", "--skip-git-repo-check", "Anything else?")
        answer = intake(r.rollout(tid))
    kinds = [(e["kind"], e.get("text") or e.get("name")) for e in answer["entries"]]
    assert kinds == [
        ("assistant", "Resumed fine."),
        ("user", "Anything else?"),
        ("assistant", "Done."),
        ("tool_call", "apply_patch"),
        ("tool_call", "exec_command"),
        ("user", "Run and patch"),
    ]
    call = next(e for e in answer["entries"] if e.get("callId") == "call_e2e")
    assert (call["status"], call["result"]["exitCode"]) == ("completed", 0)
    assert "e2e-marker" in call["result"]["text"]
    assert [f["path"].rsplit("/", 1)[-1] for f in answer["editedFiles"]] == ["greeting.txt"]
    assert (answer["turn"]["state"], answer["session"]["id"], answer["diagnostics"]["malformedLines"]) == (
        "complete",
        tid,
        {},
    )


def test_interrupted_exec_reads_back_as_aborted(tmp_path):
    """SIGINT while the model is answering leaves a rollout the intake reports as aborted."""
    with rig(under=tmp_path) as r:
        r.srv.push(reply_text("First answer."))
        tid = r.thread_id(r.exec("--json", "--skip-git-repo-check", "First"))
        interrupt_turn(r, tid, signal.SIGINT)
        answer = intake(r.rollout(tid))
    assert (answer["turn"]["state"], answer["entries"][0]["kind"]) == ("aborted", "turn_aborted")


@needs("codex", (0, 171, 0), "the fixture rig forks with `codex exec fork`, which 0.145 lacks")
def test_exec_fork_points_at_the_parent_rollout(tmp_path):
    """`codex exec fork` makes a rollout whose intake names the parent thread and its file."""
    with rig(under=tmp_path) as r:
        r.srv.push(reply_text("Parent answer."))
        parent = r.thread_id(r.exec("--json", "--skip-git-repo-check", "Parent prompt"))
        r.srv.push(reply_text("Fork answer."))
        child = r.thread_id(r.exec("fork", parent, "--json", "--skip-git-repo-check", "Fork prompt"))
        answer = intake(r.rollout(child))
        parent_file = str(r.rollout(parent))
    assert (answer["fork"]["forkedFromId"], answer["fork"]["parentRollout"]) == (parent, parent_file)
    assert [e.get("text") for e in answer["entries"]] == ["Fork answer.", "Fork prompt"]


@needs("codex", (0, 171, 0), "the fixture rig spawns a subagent the way 0.171 does")
def test_spawned_subagent_is_listed_with_its_rollout(tmp_path):
    """A real spawn_agent call leaves a subagent pointer that resolves to the child's rollout."""
    state = {"spawned": False}

    def responder(body):
        items = body.get("input") or []
        if any(i.get("type") == "agent_message" and i.get("recipient") == "/root/helper" for i in items):
            return reply_text("Child done.")
        outputs = {i.get("call_id") for i in items if i.get("type") == "function_call_output"}
        if not state["spawned"]:
            state["spawned"] = True
            return namespaced_call(
                "collaboration",
                "spawn_agent",
                {"task_name": "helper", "message": "Say done", "fork_turns": "none"},
                "c_spawn",
            )
        if "c_wait" not in outputs:
            return namespaced_call("collaboration", "wait_agent", {"timeout_ms": 10000}, "c_wait")
        return reply_text("Parent done.")

    with rig(responder, under=tmp_path) as r:
        tid = r.thread_id(r.exec("--json", "--skip-git-repo-check", "Delegate"))
        answer = intake(r.rollout(tid))
        child = answer["subagents"][0]
        child_answer = intake(child["path"])
    assert (len(answer["subagents"]), child["agentPath"]) == (1, "/root/helper")
    assert child_answer["session"]["id"] == child["threadId"]
    assert (child_answer["session"]["isSubagent"], child_answer["session"]["parentThreadId"]) == (True, tid)
    assert "Say done" not in json.dumps(child_answer)  # the task text travels as encrypted content


@needs("codex", (0, 171, 0), "the app server's rollout/compress, which makes the fixture, came in 0.171")
def test_a_rollout_codex_compressed_is_read_like_the_plain_one(tmp_path):
    """The real codex compresses a cold rollout (app-server rollout/compress) into .jsonl.zst; the intake reads it."""
    import os
    import time

    from autopilot.codex import sessions

    with rig(under=tmp_path) as r:
        r.srv.push(reply_text("An answer to keep."))
        tid = r.thread_id(r.exec("--json", "--skip-git-repo-check", "Remember this"))
        plain = r.rollout(tid)
        before = intake(str(plain))
        week_ago = time.time() - 8 * 86400  # Codex compresses rollouts older than about seven days
        os.utime(plain, (week_ago, week_ago))
        app = r.app()
        try:
            app.call("rollout/compress", None)
            deadline = time.monotonic() + 60
            while plain.exists() and time.monotonic() < deadline:
                time.sleep(0.2)
        finally:
            app.close()
        packed = plain.with_name(plain.name + ".zst")
        assert packed.exists() and not plain.exists(), "codex did not compress the rollout"
        after = intake(str(sessions.readable(packed)))
    assert [e.get("text") for e in after["entries"]] == [e.get("text") for e in before["entries"]]
    assert after["session"]["id"] == tid
