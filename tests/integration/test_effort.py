"""Reasoning effort and model per phase, through the CLI and the real openai SDK to the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

from autopilot.scripted.responses_server import reply_json
from tests.support.loop import APPROVE, PLAN, continue_to, state_of


def events(bridge, repo) -> list[dict]:
    """The run's events.jsonl, one dict a line."""
    run_dir = Path(state_of(bridge, repo)["run_dir"])
    return [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]


def write_config(isolated_homes, text: str) -> None:
    (isolated_homes / "autopilot" / "config.yaml").write_text(text)


def test_plan_effort_reaches_the_request_and_becomes_the_runs(openai_env, git_repo, bridge):
    """plan --effort high sends reasoning.effort high; the review after it asks with the run's effort too."""
    openai_env.push(reply_json(PLAN))
    code, out, err = bridge("-C", str(git_repo), "plan", "--goal", "Add a feature", "--effort", "high")
    assert code == 0, err
    assert json.loads(out)["effort"] == "high" and state_of(bridge, git_repo)["effort"] == "high"
    (git_repo / "feature.py").write_text("x = 1\n")
    openai_env.push(reply_json(APPROVE))
    assert bridge("-C", str(git_repo), "review")[0] == 0
    assert [r.get("reasoning") for r in openai_env.requests] == [{"effort": "high"}, {"effort": "high"}]


def test_no_effort_sends_no_reasoning_field(planned, openai_env):
    """With no effort set anywhere the request leaves reasoning to the model's default."""
    assert "reasoning" not in openai_env.requests[0]


def test_review_flag_overrides_the_runs_effort_for_that_call(openai_env, git_repo, bridge):
    """review --effort low asks that one call with low; the run keeps its own effort."""
    openai_env.push(reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature", "--effort", "xhigh")[0] == 0
    (git_repo / "feature.py").write_text("x = 1\n")
    openai_env.push(reply_json(APPROVE))
    assert bridge("-C", str(git_repo), "review", "--effort", "low")[0] == 0
    assert openai_env.requests[-1]["reasoning"] == {"effort": "low"}
    assert state_of(bridge, git_repo)["effort"] == "xhigh"


def test_phase_settings_in_the_config_pick_model_and_effort_per_call(
    openai_env, git_repo, bridge, isolated_homes, monkeypatch
):
    """The config's phases: plan asks a strong model with high effort, review a cheap one with low, verdict the rest."""
    monkeypatch.delenv("AUTOPILOT_MODEL")
    write_config(
        isolated_homes,
        "model: gpt-5.5\neffort: medium\nphases:\n  plan: {model: gpt-6.2-sol, effort: high}\n"
        "  review: {model: gpt-5.5-mini, effort: low}\n",
    )
    openai_env.push(reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature")[0] == 0
    (git_repo / "feature.py").write_text("x = 1\n")
    openai_env.push(reply_json(APPROVE), reply_json(continue_to("T2")))
    assert bridge("-C", str(git_repo), "review")[0] == 0
    assert bridge("-C", str(git_repo), "verdict")[0] == 0
    sent = [(r["model"], r["reasoning"]["effort"]) for r in openai_env.requests]
    assert sent == [("gpt-6.2-sol", "high"), ("gpt-5.5-mini", "low"), ("gpt-5.5", "medium")]


def test_every_call_is_logged_with_its_run_model_and_effort(openai_env, git_repo, bridge):
    """Each events.jsonl line of a call names the run it was charged to, the model and the effort asked for."""
    openai_env.push(reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature", "--effort", "medium")[0] == 0
    (git_repo / "feature.py").write_text("x = 1\n")
    openai_env.push(reply_json(APPROVE))
    assert bridge("-C", str(git_repo), "review", "--effort", "low")[0] == 0
    run_id = state_of(bridge, git_repo)["run_id"]
    logged = [(e["phase"], e["run_id"], e["model"], e["effort"]) for e in events(bridge, git_repo)]
    assert logged == [("plan", run_id, "gpt-6.2-sol", "medium"), ("review", run_id, "gpt-6.2-sol", "low")]


def test_a_bad_effort_in_the_environment_changes_nothing(planned, openai_env, bridge, monkeypatch):
    """AUTOPILOT_EFFORT=max is refused (exit 1) before any call: nothing is asked, nothing logged."""
    monkeypatch.setenv("AUTOPILOT_EFFORT", "max")
    (planned / "feature.py").write_text("x = 1\n")
    asked, logged = len(openai_env.requests), len(events(bridge, planned))
    code, _, err = bridge("-C", str(planned), "review")
    assert code == 1 and "AUTOPILOT_EFFORT must be one of low, medium, high, xhigh" in err
    assert (len(openai_env.requests), len(events(bridge, planned))) == (asked, logged)


def test_effort_flag_choices_are_checked_by_the_command_line(planned, bridge):
    """--effort takes low, medium, high or xhigh; anything else is a command-line error (exit 2)."""
    code, _, err = bridge("-C", str(planned), "review", "--effort", "ultra")
    assert code == 2 and "invalid choice: 'ultra'" in err
