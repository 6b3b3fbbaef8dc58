"""A run's Codex conversation stays bounded: past max_history_tokens the next call starts afresh from the run's state.

The scripted Responses server bills as a provider does (scripted/billing.py), so ``server.bills`` says what each
call carried: ``history_tokens`` is its input beyond its own prompt.
"""

from __future__ import annotations

import copy
import json
import subprocess

import pytest

from autopilot.scripted.responses_server import reply_json
from tests.support.loop import APPROVE, PLAN, commit_all, continue_to, state_of

FINDING = {"severity": "major", "file": "feature.py", "line": 2, "message": "no test covers divide(x, 0)"}


def plan(bridge, repo, server, *flags: str) -> None:
    server.push(reply_json(copy.deepcopy(PLAN)))
    code, _, err = bridge("-C", str(repo), "plan", "--goal", "Add a divide feature with a test", *flags)
    assert code == 0, err


def review(bridge, repo, server, answer: dict) -> None:
    server.push(reply_json(answer))
    code, _, err = bridge("-C", str(repo), "review")
    assert code == 0, err


def verdict(bridge, repo, server, answer: dict) -> None:
    server.push(reply_json(answer))
    code, _, err = bridge("-C", str(repo), "verdict")
    assert code == 0, err


def test_past_the_bound_the_next_call_starts_afresh_seeded_from_the_run(openai_env, git_repo, bridge, monkeypatch):
    """Once the history reaches the bound, the next call names no previous response and opens with the run's
    goal, its tasks and their status, the current task's criteria and the last verdict; the count says so."""
    monkeypatch.setenv("AUTOPILOT_MAX_HISTORY_TOKENS", "200")
    plan(bridge, git_repo, openai_env)
    (git_repo / "feature.py").write_text("def divide(a, b):\n    return a / b\n")
    review(bridge, git_repo, openai_env, APPROVE)
    first = openai_env.requests[-1]
    met = {**continue_to("T2"), "criteria": [{"criterion": "feature.py exists", "met": True, "evidence": "added"}]}
    verdict(bridge, git_repo, openai_env, met)
    review(bridge, git_repo, openai_env, APPROVE)
    last = openai_env.requests[-1]
    s = state_of(bridge, git_repo)
    assert "previous_response_id" not in first and first["input"].startswith("<run-state")
    assert "previous_response_id" not in last and last["input"].startswith("<run-state")
    seed = last["input"].split("</run-state>")[0]
    assert "Goal: Add a divide feature with a test" in seed
    assert "- T1 [done] Add feature" in seed and "- T2 [current] Test it" in seed
    assert "Current task T2:" in seed and "1. test passes" in seed
    assert "Last verdict: continue: now do T2" in last["input"]
    assert (s["tasks_done"], s["conversation_restarts"]) == (["T1"], 3)  # the review, the verdict, the review
    assert openai_env.bills[-1]["history_tokens"] == 0


def test_under_the_bound_the_conversation_continues(openai_env, git_repo, bridge):
    """With the default bound a short run keeps one conversation: each call names the previous response."""
    plan(bridge, git_repo, openai_env)
    (git_repo / "feature.py").write_text("x = 1\n")
    review(bridge, git_repo, openai_env, APPROVE)
    verdict(bridge, git_repo, openai_env, continue_to("T1"))
    ids = [r.get("previous_response_id") for r in openai_env.requests]
    s = state_of(bridge, git_repo)
    assert ids == [None, "resp_1", "resp_2"] and s["conversation_restarts"] == 0
    assert 0 < s["conversation_tokens"] < 10_000 and s["conversation_id"] == "resp_3"


def test_the_history_counted_is_what_the_next_call_carries(openai_env, git_repo, bridge):
    """The run's count of its history after a call is what the provider bills the next call for beyond its prompt."""
    plan(bridge, git_repo, openai_env)
    (git_repo / "feature.py").write_text("x = 1\n")
    counted = state_of(bridge, git_repo)["conversation_tokens"]
    review(bridge, git_repo, openai_env, APPROVE)
    carried = openai_env.bills[-1]["history_tokens"]
    assert counted > 0 and abs(counted - carried) <= 0.05 * carried + 10, (counted, carried)


def memoryless_reviewer(server):
    """A scripted reviewer that knows only its conversation: it raises the findings it can read there (as open) again
    while the work still lacks a test, and raises FINDING itself on the first review."""

    reviews = []

    def answer(body: dict) -> dict:
        name = ((body.get("text") or {}).get("format") or {}).get("name", "")
        seen = server.ledger.conversation(body)
        if name.endswith("verdict"):
            return reply_json(continue_to("T1"))
        reviews.append(body)
        untested = "+def test_" not in seen.rsplit("<task id=", 1)[-1]  # the diff of this call
        raised = untested and (len(reviews) == 1 or FINDING["message"] in seen)
        issues = [FINDING] if raised else []
        return reply_json(
            {"decision": "request_changes" if issues else "approve", "summary": "reviewed", "issues": issues}
        )

    return answer


def test_an_open_finding_outlives_a_fresh_start_while_it_still_applies(openai_env, git_repo, bridge, monkeypatch):
    """A finding raised before the conversation restarted, and not fixed, is raised again by a reviewer that only
    knows its new conversation; once fixed it is not."""
    monkeypatch.setenv("AUTOPILOT_MAX_HISTORY_TOKENS", "1")  # every call after the plan starts afresh
    plan(bridge, git_repo, openai_env)
    openai_env.responder = memoryless_reviewer(openai_env)
    (git_repo / "feature.py").write_text("def divide(a, b):\n    return a / b\n")
    assert bridge("-C", str(git_repo), "review")[0] == 0
    raised = state_of(bridge, git_repo)["last_review"]["issues"]
    (git_repo / "feature.py").write_text("def divide(a, b):\n    return a / b if b else 0\n")
    assert bridge("-C", str(git_repo), "review")[0] == 0
    again = state_of(bridge, git_repo)
    (git_repo / "test_feature.py").write_text("def test_zero():\n    assert divide(1, 0) == 0\n")
    assert bridge("-C", str(git_repo), "review")[0] == 0
    fixed = state_of(bridge, git_repo)
    fresh = [r for r in openai_env.requests[1:]]
    assert all("previous_response_id" not in r and r["input"].startswith("<run-state") for r in fresh)
    assert raised == [FINDING] and again["last_review"]["issues"] == [FINDING]
    assert FINDING["message"] in fresh[1]["input"].split("</untrusted-evidence>")[0]  # the seed carried it
    assert (fixed["last_review"]["decision"], fixed["last_review"]["issues"]) == ("approve", [])


@pytest.mark.slow
def test_a_100_call_run_carries_bounded_history_and_its_input_grows_linearly(openai_env, git_repo, bridge):
    """50 reviews and 50 verdicts of a growing file: no call carries 10,000 tokens of history (the default bound),
    and the last 50 calls cost no more input than 1.3 times the first 50 (unbounded, they cost ~3 times)."""
    plan(bridge, git_repo, openai_env, "--max-iterations", "100", "--budget", "100")
    openai_env.responder = lambda body: reply_json(
        continue_to("T1") if body["text"]["format"]["name"].endswith("verdict") else APPROVE
    )
    for n in range(50):
        with open(git_repo / "feature.py", "a") as fh:
            fh.writelines(f"def step_{n}_{i}(x):\n    return x * {i} + {n}  # step {n}\n" for i in range(12))
        assert bridge("-C", str(git_repo), "review")[0] == 0
        assert bridge("-C", str(git_repo), "verdict")[0] == 0
        commit_all(git_repo, f"step {n}")
    bills = openai_env.bills[1:]  # the plan's call aside
    s = state_of(bridge, git_repo)
    assert len(bills) == 100 and s["iteration"] == 50 and s["conversation_restarts"] >= 3
    assert max(b["history_tokens"] for b in bills) < 10_000, json.dumps([b["history_tokens"] for b in bills])
    first, second = sum(b["input_tokens"] for b in bills[:50]), sum(b["input_tokens"] for b in bills[50:])
    assert second <= 1.3 * first, (first, second)
    log = subprocess.run(["git", "-C", str(git_repo), "log", "--oneline"], capture_output=True, text=True).stdout
    assert log.count("step ") == 50
