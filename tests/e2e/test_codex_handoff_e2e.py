"""`codex-bridge install codex` with the real codex: `$handoff` is caught before any model request, nothing else is."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from autopilot import paths
from autopilot.scripted.responses_server import reply_json, reply_text, tool_call
from tests.support.agents import agent_bin, codex_exec, needs

pytestmark = pytest.mark.e2e

CLAUDE_TRANSCRIPT = (
    Path(__file__).resolve().parent.parent
    / "fixtures"
    / "claude"
    / "tools"
    / "49fa090f-34fe-47da-9cd9-cf59c6a193ff.jsonl"
)


def install(bridge, *flags: str) -> dict:
    """`codex-bridge install codex` in-process; its JSON summary."""
    code, out, err = bridge("install", "codex", *flags)
    assert code == 0, err
    return json.loads(out)


def thread_of(events: list[dict]) -> str:
    """The thread id codex reported."""
    return next(e["thread_id"] for e in events if e.get("type") == "thread.started")


def rollout_of(thread: str) -> Path:
    """The rollout file of ``thread`` in the test's CODEX_HOME."""
    return next((paths.codex_home() / "sessions").rglob(f"rollout-*{thread}.jsonl"))


def pointer() -> Path:
    """Where the hook records the handoff."""
    return paths.handoff_dir() / "codex-latest.json"


def test_install_trust_is_confirmed_by_codex(codex_server, bridge):
    """`install codex --trust` records a trust that codex app-server's hooks/list reports as trusted."""
    trust = install(bridge, "--trust")["trust"]
    assert (trust["status"], trust["checkedWith"], trust["recorded"]) == ("trusted", str(agent_bin("codex")), True)


@pytest.mark.smoke
def test_handoff_is_caught_with_recorded_trust(codex_server, bridge, git_repo):
    """With the trust --trust recorded, `$handoff` writes the pointer and no model request is made."""
    install(bridge, "--trust")
    events = codex_exec(git_repo, "--", "$handoff")
    thread = thread_of(events)
    recorded = json.loads(pointer().read_text())
    assert codex_server.requests == []
    assert (recorded["transcript_path"], recorded["cwd"], recorded["session_id"]) == (
        str(rollout_of(thread)),
        str(git_repo),
        thread,
    )


def test_ordinary_prompt_goes_through(codex_server, bridge, git_repo):
    """With the hook installed and trusted, an ordinary prompt reaches the model and its answer comes back."""
    install(bridge, "--trust")
    codex_server.push(reply_text("Hello from the scripted model."))
    events = codex_exec(git_repo, "--", "Say hello")
    answers = [
        e["item"]["text"]
        for e in events
        if e.get("type") == "item.completed" and e["item"].get("type") == "agent_message"
    ]
    assert answers == ["Hello from the scripted model."]
    assert "Say hello" in json.dumps(codex_server.requests[0]["input"]) and not pointer().exists()


@needs("codex", (0, 145, 0), "--dangerously-bypass-hook-trust, the flag this test uses, came after 0.129")
def test_bypass_flag_runs_the_untrusted_hook(codex_server, bridge, git_repo):
    """Without recorded trust, --dangerously-bypass-hook-trust runs the hook: `$handoff` is caught."""
    install(bridge)
    codex_exec(git_repo, "--dangerously-bypass-hook-trust", "--", "$handoff")
    assert codex_server.requests == [] and pointer().exists()


def test_untrusted_hook_is_skipped(codex_server, bridge, git_repo):
    """Installed but not trusted, the hook does not run: `$handoff` reaches the model with the handoff skill."""
    install(bridge)
    codex_exec(git_repo, "--", "$handoff")
    assert len(codex_server.requests) == 1 and not pointer().exists()
    assert "<name>handoff</name>" in json.dumps(
        codex_server.requests[0]["input"]
    )  # the skill says no handoff was recorded


def test_handoff_skill_is_not_offered_to_the_model(codex_server, bridge, git_repo):
    """Codex lists from-claude for implicit use but not handoff (allow_implicit_invocation: false)."""
    install(bridge, "--trust")
    codex_exec(git_repo, "--", "Say hello")
    listing = next(
        part["text"]
        for item in codex_server.requests[0]["input"]
        if item.get("role") == "developer"
        for part in item.get("content") or []
        if "<skills_instructions>" in part.get("text", "")
    )
    assert "- from-claude:" in listing and "- handoff:" not in listing


def test_copy_names_the_handed_over_rollout(codex_server, bridge, git_repo):
    """After a real `$handoff`, copy --latest prints the from-codex line for that session's rollout."""
    install(bridge, "--trust")
    thread = thread_of(codex_exec(git_repo, "--", "$handoff"))
    code, out, err = bridge("handoff", "from-codex", "copy", "--latest", "--cwd", str(git_repo), "--json")
    answer = json.loads(out)
    assert code == 0, err
    assert (answer["source"], answer["threadId"], answer["rollout"]) == ("pointer", thread, str(rollout_of(thread)))
    assert answer["text"] == f"/codex-autopilot:from-codex {shlex.quote(str(rollout_of(thread)))}"


def test_copy_never_hands_over_an_earlier_plans_reviewer_thread(codex_server, bridge, git_repo, monkeypatch):
    """After two plans on the codex-cli backend, copy picks the user's older session, not the first plan's thread."""
    from tests.support.loop import PLAN, state_of

    codex_server.push(reply_text("done"))
    user = thread_of(codex_exec(git_repo, "--", "look around"))
    os.utime(rollout_of(user), (1, 1))  # older than both plans' threads
    monkeypatch.setenv("AUTOPILOT_BACKEND", "codex-cli")
    plan_threads = []
    for goal in ("First goal", "Second goal"):
        codex_server.push(reply_json(PLAN))
        code, _, err = bridge("-C", str(git_repo), "plan", "--goal", goal)
        assert code == 0, err
        plan_threads.append(state_of(bridge, git_repo)["conversation_id"])
    assert len(set(plan_threads)) == 2 and user not in plan_threads
    code, out, err = bridge("handoff", "from-codex", "copy", "--cwd", str(git_repo), "--json")
    assert code == 0, err
    assert (json.loads(out)["source"], json.loads(out)["threadId"]) == ("scan", user)


def test_from_claude_skill_runs_the_intake_inside_codex(codex_server, bridge, git_repo):
    """Codex runs the from-claude skill's command as the SKILL.md gives it, and gets the transcript's intake."""
    install(bridge, "--trust")
    target = paths.handoff_dir() / "claude-latest.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        json.dumps(
            {
                "transcript_path": str(CLAUDE_TRANSCRIPT),
                "cwd": str(git_repo),
                "session_id": CLAUDE_TRANSCRIPT.stem,
                "created_at": "2026-11-30T11:47:18Z",
            }
        )
    )
    launcher = shlex.quote(str(paths.codex_home() / "skills" / "from-claude" / "scripts" / "from-claude"))
    codex_server.push(tool_call("exec_command", {"cmd": launcher}, call_id="call_intake"), reply_text("Picked it up."))
    codex_exec(git_repo, "--", "$from-claude")
    sent = json.dumps(codex_server.requests[0]["input"])
    output = next(
        item["output"]
        for item in codex_server.requests[1]["input"]
        if item.get("type") == "function_call_output" and item.get("call_id") == "call_intake"
    )
    assert "<name>from-claude</name>" in sent and launcher in sent  # the skill body reached the model
    assert '"format": "claude-code-transcript"' in output and CLAUDE_TRANSCRIPT.stem in output
