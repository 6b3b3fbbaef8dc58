"""`codex-bridge review` through the real openai SDK: every kind of change since the base, redacted; none, no call."""

from __future__ import annotations

import json
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
