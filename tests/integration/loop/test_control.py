"""The budget warning: told once per run when the spend reaches the warn level; the forecast in status."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from autopilot.loop.state import Store
from autopilot.scripted.responses_server import reply_json
from tests.support.hooks import context_of, run_hook
from tests.support.loop import PLAN, continue_to, state_of


def spend(repo, used: float, **more) -> None:
    with Store(repo).transaction() as s:
        s.update(budget_used_usd=used, **more)


def prompt(bridge, repo):
    return run_hook(bridge, "UserPromptSubmit", repo, prompt="carry on")


def test_the_prompt_after_crossing_the_warn_level_warns_once(planned, bridge):
    """At 84% of the budget the next prompt tells the user (with the task line still given); the one after does not."""
    spend(planned, 4.2, iteration=3)
    first, second = prompt(bridge, planned), prompt(bridge, planned)
    assert first["systemMessage"] == (
        "codex-autopilot: the autopilot run has spent $4.20 of its $5.00 budget (84%); at $1.40 an iteration, "
        "the $0.80 left may not pay for another. `codex-bridge budget set USD` raises the cap (said once per run)."
    )
    assert "current task T1" in context_of(first) and "systemMessage" not in second


def test_below_the_warn_level_nothing_is_said(planned, bridge):
    """At 79% of the budget there is no warning."""
    spend(planned, 3.95)
    assert "systemMessage" not in prompt(bridge, planned)


def test_the_warn_level_comes_from_the_config(planned, bridge, isolated_homes):
    """budget_warn_at: 50 warns at half the budget; budget_warn_at: 0 never warns."""
    config = isolated_homes / "autopilot" / "config.yaml"
    config.write_text("budget_warn_at: 50\n")
    spend(planned, 2.6)
    assert "(52%)" in prompt(bridge, planned)["systemMessage"]
    spend(planned, 4.9, notices=[])
    config.write_text("budget_warn_at: 0\n")
    assert "systemMessage" not in prompt(bridge, planned)


def test_the_stop_hook_warns_when_a_verdict_crosses_the_level(planned, openai_env, bridge):
    """A verdict that keeps Claude working past the warn level carries the warning for the user, once."""
    (Path(planned) / "feature.py").write_text("x = 1\n")
    spend(planned, 4.5)
    openai_env.push(reply_json(continue_to("T2")))
    answer = run_hook(bridge, "Stop", planned, last_assistant_message="T1 done")
    assert "now do T2" in answer["reason"] and "has spent $4.5" in answer["systemMessage"]
    assert "budget-warning" in state_of(bridge, planned)["notices"]
    assert "systemMessage" not in prompt(bridge, planned)


def test_a_new_plan_warns_again(planned, openai_env, bridge):
    """The warning is once per run: a new plan's run is warned anew."""
    spend(planned, 4.5)
    assert "systemMessage" in prompt(bridge, planned)
    openai_env.push(reply_json(copy.deepcopy(PLAN)))
    assert bridge("-C", str(planned), "plan", "--goal", "again")[0] == 0
    spend(planned, 4.5)
    assert "has spent $4.50" in prompt(bridge, planned)["systemMessage"]


def test_status_forecasts_the_spend_at_the_iteration_limit(planned, bridge):
    """Spend per iteration so far times the iterations left, against the cap, in status and status --json."""
    spend(planned, 1.0, iteration=4, max_iterations=24)
    code, out, _ = bridge("-C", str(planned), "status")
    assert code == 0 and "Forecast:   $0.2500 an iteration so far; $6.0000 by iteration 24" in out
    assert "(over the cap: the budget pays for 16 more)" in out and "20% used" in out
    _, out, _ = bridge("-C", str(planned), "status", "--json")
    assert json.loads(out)["summary"]["forecast"] == {
        "usd_per_iteration": 0.25,
        "iterations_left": 20,
        "usd_at_limit": 6.0,
        "over_budget": True,
        "iterations_affordable": 16,
    }
