"""`codex-bridge status`: the task, the iteration, the spend against the budget, the last error, an unpriced model."""

from __future__ import annotations

from pathlib import Path

from autopilot.scripted.responses_server import reply_json
from tests.support.loop import APPROVE, state_of


def test_status_summarises_task_iteration_spend_and_last_error(planned, openai_env, bridge):
    """status names the task, iteration, spend against budget, and the last error when there is one."""
    (Path(planned) / "feature.py").write_text("x = 1\n")
    openai_env.push(reply_json({"nope": 1}), reply_json({"still": "wrong"}))
    assert bridge("-C", str(planned), "review")[0] == 3
    code, out, _ = bridge("-C", str(planned), "status")
    assert "Task:       T1: Add feature  [1 of 2]" in out
    assert "Iteration:  0 of 20" in out and "of $5.00" in out
    assert "Last error: review schema" in out


def test_unknown_model_is_flagged_once_in_status(planned, openai_env, bridge, monkeypatch):
    """A model without a price is charged at the default and named once in status."""
    monkeypatch.setenv("AUTOPILOT_MODEL", "house-model-x")
    (Path(planned) / "feature.py").write_text("x = 1\n")
    for _ in range(2):
        openai_env.push(reply_json(APPROVE))
        assert bridge("-C", str(planned), "review")[0] == 0
    s = state_of(bridge, planned)
    assert s["unknown_models"] == ["house-model-x"]
    assert bridge("-C", str(planned), "status")[1].count("house-model-x") == 1
