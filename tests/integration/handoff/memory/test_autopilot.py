"""The autopilot's task transitions in the owning session's active memory (handoff/memory/autopilot.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autopilot.scripted.responses_server import reply_json
from tests.support.hooks import OTHER_SESSION, SESSION, context_of, payload, run_hook
from tests.support.loop import continue_to, done


@pytest.fixture
def worked(planned, monkeypatch):
    """The planned repo with some work since the plan, and the hook runner (reviews off: the edits' hooks start no
    worker that would ask the scripted server for answers queued for the verdicts)."""
    monkeypatch.setenv("AUTOPILOT_REVIEW_MODE", "off")
    (Path(planned) / "feature.py").write_text("x = 1\n")
    return planned, run_hook


def active(bridge, repo: Path, session: str = SESSION) -> dict:
    code, out, err = bridge("-C", str(repo), "handoff", "active", "--agent", "claude", "--session", session, "--json")
    assert code == 0, err
    return json.loads(out)


def test_a_verdict_that_moves_to_the_next_task_names_it_as_the_next_action(worked, openai_env, bridge):
    """After the verdict moves the run to T2, the owning session's memory says: work on T2; T1 completed."""
    repo, hook = worked
    hook(bridge, "SessionStart", repo, source="startup")
    hook(bridge, "UserPromptSubmit", repo, prompt="Work on the autopilot task.", prompt_id="p1")
    openai_env.push(reply_json({**continue_to("T2"), "criteria": done("feature.py exists")["criteria"]}))
    assert hook(bridge, "Stop", repo, last_assistant_message="T1 is finished.")["decision"] == "block"
    view = active(bridge, repo)
    assert view["nextAction"]["text"].startswith("work on task T2: Test it (done when: test passes")
    assert view["nextAction"]["writer"] == "autopilot" and view["objective"]["text"] == "Add a feature with a test"
    assert [c["text"] for c in view["completed"]] == ["T1: Add feature"]
    assert [u["text"] for u in view["unresolved"]] == ["T2: Test it"]
    assert "T2" in context_of(hook(bridge, "UserPromptSubmit", repo, prompt="go on"))


def test_another_session_never_gets_the_runs_transitions(worked, openai_env, bridge):
    """Only the session that owns the run has the autopilot's checkpoints."""
    repo, hook = worked
    hook(bridge, "SessionStart", repo, source="startup")
    openai_env.push(reply_json(continue_to("T2")))
    hook(bridge, "Stop", repo, last_assistant_message="T1 is finished.")
    other = payload("UserPromptSubmit", repo, prompt="unrelated")
    other["session_id"] = OTHER_SESSION
    code, out, _ = bridge("hook", "UserPromptSubmit", stdin=json.dumps(other))
    assert code == 0 and "Test it" not in out
    view = active(bridge, repo, OTHER_SESSION)
    assert view["checkpoint"] is None


def test_search_narrows_to_an_autopilot_task_and_shows_it(worked, openai_env, bridge):
    """Evidence from while the session worked on T2 is found with --task T2, labelled with it; T1's is not."""
    import time

    repo, hook = worked
    hook(bridge, "SessionStart", repo, source="startup")
    hook(bridge, "UserPromptSubmit", repo, prompt="Work on the autopilot task.", prompt_id="p1")
    hook(
        bridge,
        "PostToolUse",
        repo,
        tool_name="Edit",
        tool_input={"file_path": f"{repo}/widget_one.py"},
        tool_response={},
    )
    time.sleep(0.01)
    openai_env.push(reply_json({**continue_to("T2"), "criteria": done("feature.py exists")["criteria"]}))
    hook(bridge, "Stop", repo, last_assistant_message="T1 is finished.")
    time.sleep(0.01)
    hook(
        bridge,
        "PostToolUse",
        repo,
        tool_name="Edit",
        tool_input={"file_path": f"{repo}/widget_two.py"},
        tool_response={},
    )
    found = {}
    for name in ("widget_one", "widget_two"):
        code, out, err = bridge("-C", str(repo), "handoff", "search", name, "--task", "T2", "--json")
        assert code == 0, err
        found[name] = json.loads(out)["results"]
    assert found["widget_two"] and all(r["task"] == {"id": "T2", "title": "Test it"} for r in found["widget_two"])
    assert found["widget_one"] == []  # edited while the session was on T1
    code, out, _ = bridge("-C", str(repo), "handoff", "search", "widget_two", "--task", "T2")
    assert "autopilot task T2: Test it" in out


# What carries a transition no hook saw into the owning session's memory: the next injection (a prompt after an
# edit), the checkpoint before a compaction, and the one $handoff takes. Each reads the run through the reader the
# hooks hand the memory (loop's Store): the handoff never reads the loop's files itself.
CARRIERS = {
    "a prompt after an edit": [
        ("PostToolUse", {"tool_name": "Edit", "tool_input": {"file_path": "feature.py"}, "tool_response": {}}),
        ("UserPromptSubmit", {"prompt": "go on", "prompt_id": "p2"}),
    ],
    "a compaction": [("PreCompact", {"trigger": "manual", "custom_instructions": None})],
    "$handoff": [("UserPromptSubmit", {"prompt": "$handoff"})],
}


@pytest.mark.parametrize("carrier", CARRIERS)
def test_a_transition_the_cli_made_reaches_the_owning_session(worked, openai_env, bridge, carrier):
    """After `codex-bridge verdict` (no hook) moves the run to T2, the session that owns it has T2 as its next
    action once its next injection, compaction or $handoff has run."""
    repo, hook = worked
    hook(bridge, "SessionStart", repo, source="startup")
    hook(bridge, "UserPromptSubmit", repo, prompt="Work on the autopilot task.", prompt_id="p1")  # claims the run
    openai_env.push(reply_json(continue_to("T2")))
    assert bridge("-C", str(repo), "verdict")[0] == 0
    assert active(bridge, repo)["nextAction"] is None  # the CLI wrote nothing into the memory
    for event, fields in CARRIERS[carrier]:
        hook(bridge, event, repo, **fields)
    next_action = active(bridge, repo)["nextAction"]
    assert next_action["writer"] == "autopilot" and next_action["text"].startswith("work on task T2: Test it")
