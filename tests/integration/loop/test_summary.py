"""status --json: the run as the dashboard shows it (summary, findings, criteria, calls), through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

from autopilot.scripted.responses_server import reply_json
from tests.support.loop import continue_to, state_of

FINDINGS = {
    "decision": "request_changes",
    "summary": "feature.py is missing its docstring",
    "issues": [{"severity": "minor", "file": "feature.py", "line": 1, "message": "add a docstring"}],
}


def test_status_json_reports_task_findings_criteria_and_calls(planned, openai_env, bridge):
    """After a review and a verdict, status --json has the task's criteria, the findings, the verdict and each call."""
    (planned / "feature.py").write_text("x = 1\n")
    openai_env.push(reply_json(FINDINGS))
    assert bridge("-C", str(planned), "review")[0] == 0
    openai_env.push(reply_json(continue_to("T2")))
    assert bridge("-C", str(planned), "verdict", "--last-message", "feature added")[0] == 0
    code, out, err = bridge("-C", str(planned), "status", "--json")
    assert code == 0, err
    report = json.loads(out)
    s = report["summary"]
    assert (s["status"], s["task"]["id"], s["task"]["acceptance"], s["task"]["position"], s["task"]["of"]) == (
        "running",
        "T2",
        ["test passes"],
        2,
        2,
    )
    assert (s["iteration"], s["resumable"], s["stoppable"]) == (1, False, True)
    assert report["review"]["issues"] == FINDINGS["issues"]
    assert (report["verdict"]["decision"], report["verdict"]["next_task_id"]) == ("continue", "T2")
    assert [c["phase"] for c in report["calls"]["calls"]] == ["plan", "review", "verdict"]
    assert all(c["outcome"] == "ok" and c["tokens"]["input"] > 0 for c in report["calls"]["calls"])


def test_status_json_all_summarises_every_run(planned, openai_env, bridge, git_repo, tmp_path):
    """status --json --all lists each run on the machine with its goal and spend."""
    code, out, _ = bridge("status", "--json", "--all")
    runs = json.loads(out)["runs"]
    assert code == 0 and [r["goal"] for r in runs] == ["Add a feature with a test"]
    assert runs[0]["spend"]["budget_usd"] == 5.0 and runs[0]["run"] == Path(runs[0]["run_dir"]).name


def test_a_recorded_path_outside_the_run_is_not_read(planned, openai_env, bridge, tmp_path):
    """A review_path in state.json that points elsewhere is read only by its name inside the run directory."""
    (planned / "feature.py").write_text("x = 1\n")
    openai_env.push(reply_json(FINDINGS))
    bridge("-C", str(planned), "review")
    run_dir = Path(state_of(bridge, planned)["run_dir"])
    state = json.loads((run_dir / "state.json").read_text())
    elsewhere = tmp_path / "review-elsewhere.json"
    elsewhere.write_text(json.dumps({"issues": [{"message": "planted"}]}))
    state["last_review"]["review_path"] = str(elsewhere)
    (run_dir / "state.json").write_text(json.dumps(state))
    report = json.loads(bridge("-C", str(planned), "status", "--json")[1])
    assert report["review"] is None


def test_malformed_event_lines_are_counted(planned, bridge):
    """A broken line in events.jsonl is counted and the other calls still show."""
    run_dir = Path(state_of(bridge, planned)["run_dir"])
    with open(run_dir / "events.jsonl", "a") as fh:
        fh.write("{broken\n")
    calls = json.loads(bridge("-C", str(planned), "status", "--json")[1])["calls"]
    assert (calls["malformed"], [c["phase"] for c in calls["calls"]]) == (1, ["plan"])
