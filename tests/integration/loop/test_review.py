"""`codex-bridge review` through the real openai SDK: every kind of change since the base, redacted; none, no call."""

from __future__ import annotations

import gc
import json
import warnings
from pathlib import Path

from autopilot.scripted.responses_server import reply_json
from tests.support.loop import APPROVE, commit_all, state_of


def test_review_covers_committed_staged_unstaged_and_untracked(planned, openai_env, bridge):
    """The review prompt carries every kind of change since base_sha, and nothing else moves."""
    repo = Path(planned)
    (repo / "committed.py").write_text("COMMITTED = 1\n")
    commit_all(repo)
    (repo / "staged.py").write_text("STAGED = 1\n")
    import subprocess

    subprocess.run(["git", "-C", str(repo), "add", "staged.py"], check=True)
    (repo / "README.md").write_text("# demo\nUNSTAGED edit\n")
    (repo / "untracked.py").write_text("UNTRACKED = 1\n")
    before = state_of(bridge, repo)
    openai_env.push(reply_json(APPROVE))
    code, out, err = bridge("-C", str(repo), "review")
    assert code == 0, err
    sent = openai_env.requests[-1]["input"]
    for marker in ("COMMITTED = 1", "STAGED = 1", "UNSTAGED edit", "UNTRACKED = 1"):
        assert marker in sent
    assert "docs/autopilot/plans" not in sent.split("<untrusted-evidence")[1]
    after = state_of(bridge, repo)
    for key in ("current_task", "base_sha", "status", "iteration"):
        assert after[key] == before[key]
    assert after["last_review"]["decision"] == "approve" and after["token_usage"]["review"]["calls"] == 1
    assert Path(after["last_review"]["review_path"]).name.startswith("review-")
    assert openai_env.requests[-1]["previous_response_id"] == "resp_1"
    # the user's index was not touched by the review
    staged = subprocess.run(
        ["git", "-C", str(repo), "diff", "--cached", "--name-only"], capture_output=True, text=True
    ).stdout.split()
    assert staged == ["staged.py"]


def test_review_with_no_changes_makes_no_call(planned, openai_env, bridge):
    """Nothing changed since base: the review is skipped and Codex is not asked (nothing spent)."""
    calls = len(openai_env.requests)
    code, out, _ = bridge("-C", str(planned), "review")
    assert code == 0 and json.loads(out)["skipped"] is True
    assert len(openai_env.requests) == calls


def test_a_call_leaves_no_connection_open(planned, openai_env, bridge):
    """A review closes its OpenAI client: no connection of the call is left for the garbage collector to find (the
    in-process bridge of a long test run, or any process that asks again, would pile them up)."""
    (Path(planned) / "feature.py").write_text("x = 1\n")
    openai_env.push(reply_json(APPROVE))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        code, _, err = bridge("-C", str(planned), "review")
        gc.collect()
    assert code == 0, err
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_secrets_in_the_diff_never_reach_codex(planned, openai_env, bridge):
    """A credential in the diff is redacted before the prompt is sent, and the review counts it."""
    key = "AKIA" + "IOSFODNN7EXAMPLE"
    (Path(planned) / "settings.py").write_text(f"AWS_KEY = '{key}'\n")
    openai_env.push(reply_json(APPROVE))
    code, out, _ = bridge("-C", str(planned), "review")
    assert code == 0
    assert key not in json.dumps(openai_env.requests)
    assert json.loads(out)["redactions"]["by_kind"] == {"aws_access_key_id": 1}


def test_files_with_non_ascii_names_are_reviewed(planned, openai_env, bridge):
    """A change to a file git quotes (café.py) is seen: the review is not skipped as 'nothing changed'."""
    (Path(planned) / "café.py").write_text("CAFE = 1\n")
    openai_env.push(reply_json(APPROVE))
    code, out, _ = bridge("-C", str(planned), "review")
    result = json.loads(out)
    assert code == 0 and "skipped" not in result and result["diff"]["files"] == 1
    assert "CAFE = 1" in openai_env.requests[-1]["input"]


def test_secret_lines_in_a_diff_are_redacted(planned, openai_env, bridge):
    """`+KEY=value` lines of a diff (how .env-style files reach Codex) are redacted."""
    (Path(planned) / "settings.ini").write_text("DATABASE_PASSWORD=correct-horse-battery\ndb_token: s3cr3t-value\n")
    openai_env.push(reply_json(APPROVE))
    bridge("-C", str(planned), "review")
    sent = openai_env.requests[-1]["input"]
    assert "correct-horse" not in sent and "s3cr3t-value" not in sent


def test_a_replaced_run_is_not_charged_for_the_old_runs_call(planned, openai_env, bridge, monkeypatch):
    """A review still in flight when the run is re-planned is logged, not charged to the new run."""
    from autopilot.loop import reviewer
    from autopilot.loop.state import Store

    (Path(planned) / "feature.py").write_text("x = 1\n")
    real_ask = reviewer.ask

    def ask_then_replan(*args, **kwargs):
        answer = real_ask(*args, **kwargs)
        with Store(planned).transaction() as s:  # another terminal re-plans meanwhile
            s["run_id"] = "a-new-run"
        return answer

    monkeypatch.setattr(reviewer, "ask", ask_then_replan)
    openai_env.push(reply_json(APPROVE))
    assert bridge("-C", str(planned), "review")[0] == 0
    s = state_of(bridge, planned)
    assert (s["token_usage"]["review"]["calls"], s["budget_used_usd"], s["last_review"]) == (0, 0.0, None)
    events = (Path(s["run_dir"]) / "events.jsonl").read_text().splitlines()
    assert json.loads(events[-1])["phase"] == "review"


def leave_at_once(repo):
    """review() as the worker asks it, left running the moment the provider took it: the Detached it raised."""
    import pytest

    from autopilot.loop.backends import DETACH, Detach, Detached
    from autopilot.loop.review import review

    token = DETACH.set(Detach(lambda _rid: None, lambda: True))
    try:
        with pytest.raises(Detached) as caught:
            review(cwd=str(repo))
    finally:
        DETACH.reset(token)
    return caught.value


def test_a_review_left_running_is_collected_once_charged_as_billed(planned, openai_env, bridge):
    """Left at the provider: nothing charged, its note kept; collect() says pending while it runs, then records its
    finding and charges what was billed, once; asked again, there is nothing left."""
    import time

    from autopilot.loop.review import collect
    from autopilot.loop.state import Store
    from autopilot.scripted.responses_server import delay

    finding = {"severity": "major", "file": "a.py", "line": 1, "message": "a is unused"}
    openai_env.push(delay(reply_json({"decision": "request_changes", "summary": "s", "issues": [finding]}), 1.0))
    (Path(planned) / "a.py").write_text("a = 1\n")
    left = leave_at_once(planned)
    note = Store(planned).dir / "review-left.json"
    assert json.loads(note.read_text())["response_id"] == left.response_id
    assert state_of(bridge, planned)["token_usage"]["review"]["calls"] == 0
    assert collect(str(planned), timeout=5) == "pending" and note.exists()
    time.sleep(1.2)
    assert collect(str(planned), timeout=5) == "recorded" and not note.exists()
    state = state_of(bridge, planned)
    assert state["reviews_pending"][-1]["issues"] == [finding]
    bill = openai_env.bills[-1]
    assert state["token_usage"]["review"]["calls"] == 1
    assert state["token_usage"]["review"]["input"] == bill["input_tokens"]
    assert collect(str(planned), timeout=5) == "none"


def test_a_left_review_already_in_events_is_never_charged_twice(planned, openai_env, bridge):
    """A worker recorded the answer and was killed before removing the note: the next collect drops it."""
    from autopilot.loop.review import collect
    from autopilot.loop.state import Store

    openai_env.push(reply_json(APPROVE))
    (Path(planned) / "a.py").write_text("a = 1\n")
    assert bridge("-C", str(planned), "review")[0] == 0
    rid = json.loads((Store(planned).dir / "events.jsonl").read_text().splitlines()[-1])["conversation_id"]
    before = state_of(bridge, planned)["budget_used_usd"]
    (Store(planned).dir / "review-left.json").write_text(
        json.dumps(
            {
                "response_id": rid,
                "run_id": "r",
                "task_id": "T1",
                "base_sha": None,
                "head_sha": None,
                "fingerprint": "f",
                "diff": {},
            }
        )
    )
    assert collect(str(planned), timeout=5) == "dropped"
    assert state_of(bridge, planned)["budget_used_usd"] == before and len(openai_env.requests) == 2
    assert state_of(bridge, planned)["token_usage"]["review"]["calls"] == 1


def test_an_unreadable_note_is_moved_aside(planned, openai_env, bridge):
    """A torn or planted note is bad input: moved aside with a clear line, nothing fetched, the run unchanged."""
    from autopilot.loop.review import collect
    from autopilot.loop.state import Store

    run = Store(planned).dir
    (run / "review-left.json").write_text('{"response_id": ')
    assert collect(str(planned), timeout=5) == "dropped"
    assert not (run / "review-left.json").exists()
    assert [p.name for p in run.glob("review-left.json.corrupt-*")]


def test_a_left_review_that_failed_at_the_provider_is_recorded_as_a_failed_review(planned, openai_env, bridge):
    """The provider ended it ``failed``: the run records a failed review (the person is told), and the note goes."""
    import time

    from autopilot.loop.review import collect
    from autopilot.scripted.responses_server import delay

    openai_env.push(delay({"failed": {"code": "server_error", "message": "the model crashed"}}, 1.0))
    (Path(planned) / "a.py").write_text("a = 1\n")
    leave_at_once(planned)
    time.sleep(1.3)
    assert collect(str(planned), timeout=5) == "failed"
    error = state_of(bridge, planned)["last_error"]
    assert error["phase"] == "review" and "the model crashed" in error["message"]


def test_a_left_review_the_provider_no_longer_has_is_charged_as_estimated(planned, openai_env, bridge):
    """Fetched past the provider's ~10 minutes (404): the findings are lost, said so, and the call, billed anyway, is
    charged as estimated from its prompt (never 0)."""
    from autopilot.loop.review import collect
    from autopilot.loop.state import Store

    note = {"response_id": "resp_gone", "run_id": state_of(bridge, planned)["run_id"], "task_id": "T1"}
    note.update(base_sha=None, head_sha=None, fingerprint="f", diff={}, prompt_tokens=4000)
    (Store(planned).dir / "review-left.json").write_text(json.dumps(note))
    assert collect(str(planned), timeout=5) == "failed"
    state = state_of(bridge, planned)
    assert state["last_error"]["kind"] == "expired" and "fetched too late" in state["last_error"]["message"]
    assert state["token_usage"]["review"] == {**state["token_usage"]["review"], "calls": 1, "input": 4000}
    assert state["budget_used_usd"] > 0
