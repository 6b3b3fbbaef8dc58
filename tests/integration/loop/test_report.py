"""codex-bridge report: spend and tokens from every run's events.jsonl, equal to the runs' own totals."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import pytest

from autopilot.loop.budget import add_usd
from autopilot.scripted.responses_server import http_error, reply_json
from tests.support.bridge import run_bridge
from tests.support.durable import approved
from tests.support.hooks import SESSION, context_of, run_hook
from tests.support.loop import APPROVE, PLAN, continue_to, state_of
from tests.support.world import scripted_world

TOKEN_KEYS = ("input", "cached", "output", "calls")


def usage(inp: int, cached: int, out: int) -> dict:
    return {"input_tokens": inp, "cached_tokens": cached, "output_tokens": out}


def new_repo(tmp_path: Path, name: str) -> Path:
    repo = tmp_path / name
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / "README.md").write_text(f"# {name}\n")
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"], check=True
    )
    return repo


def report(bridge, *args: str) -> dict:
    code, out, err = bridge("report", "--json", *args)
    assert code == 0, err
    return json.loads(out)


def state_totals(state: dict) -> tuple[dict, float]:
    """A run's tokens over its three phases and everything it spent (plan included)."""
    tokens = {k: sum(state["token_usage"][p][k] for p in ("plan", "review", "verdict")) for k in TOKEN_KEYS}
    return tokens, add_usd(state["budget_used_usd"], state["plan_usd"])


@pytest.fixture(scope="module")
def history_world(tmp_path_factory):
    """Runs in three repositories: re-plans, a failed plan, failed calls, a corrected plan, an invalid-twice verdict
    (built once for the module: twelve calls through the SDK; each test gets the world as built)."""
    with (
        scripted_world(tmp_path_factory, "history", AUTOPILOT_RETRY_ATTEMPTS="1") as (world, openai_env),
        world.building(),
    ):
        world.built = _history(openai_env, world.work, run_bridge)
    return world


@pytest.fixture
def history(history_world, openai_env, monkeypatch):
    """The three repositories' runs, as built: each run's state."""
    monkeypatch.setenv("AUTOPILOT_RETRY_ATTEMPTS", "1")
    return copy.deepcopy(history_world.restore(monkeypatch).built)


def _history(openai_env, tmp_path, bridge) -> list[dict]:
    a, b, c = new_repo(tmp_path, "alpha"), new_repo(tmp_path, "beta"), new_repo(tmp_path, "gamma")
    bad = {"decision": "maybe"}
    # alpha: a plan corrected once; a review; a failed review (500); a verdict; then a re-plan and one more review.
    openai_env.push(reply_json({"summary": "no tasks", "tasks": []}, usage(900, 100, 50)), reply_json(PLAN))
    assert bridge("-C", str(a), "plan", "--goal", "first goal")[0] == 0
    (a / "f.py").write_text("x = 1\n")
    openai_env.push(reply_json(APPROVE, usage(3000, 1200, 80)), http_error(500))
    assert bridge("-C", str(a), "review")[0] == 0
    assert bridge("-C", str(a), "review")[0] == 3
    openai_env.push(reply_json(continue_to("T2"), usage(2500, 2000, 120)))
    assert bridge("-C", str(a), "verdict")[0] == 0
    openai_env.push(reply_json(PLAN, usage(1500, 0, 300)), reply_json(APPROVE, usage(1234, 567, 89)))
    assert bridge("-C", str(a), "plan", "--goal", "second goal")[0] == 0
    (a / "g.py").write_text("y = 2\n")
    assert bridge("-C", str(a), "review")[0] == 0
    # beta: a plan that fails, then one that works; a verdict invalid twice (both calls charged).
    openai_env.push(http_error(500), reply_json(PLAN, usage(700, 0, 70)))
    assert bridge("-C", str(b), "plan", "--goal", "beta goal")[0] == 3
    assert bridge("-C", str(b), "plan", "--goal", "beta goal")[0] == 0
    (b / "h.py").write_text("z = 3\n")
    openai_env.push(reply_json(bad, usage(4000, 100, 10)), reply_json(bad, usage(4100, 3000, 11)))
    assert bridge("-C", str(b), "verdict")[0] == 3
    # gamma: a plan only.
    openai_env.push(reply_json(PLAN, usage(333, 33, 3)))
    assert bridge("-C", str(c), "plan", "--goal", "gamma goal")[0] == 0
    return [state_of(bridge, repo) for repo in (a, b, c)]


def test_per_run_rows_equal_each_runs_state_to_the_token_and_the_cent(history, bridge):
    """Grouped by run, each current run's row holds exactly its state.json's tokens and spend (plan included)."""
    rows = {row["key"]: row for row in report(bridge, "--by", "run")["rows"]}
    for state in history:
        tokens, usd = state_totals(state)
        row = rows[state["run_id"]]
        assert {k: row[k] for k in TOKEN_KEYS} == tokens and row["run"] == "current"
        assert row["usd"] == usd  # exactly: both are the same 10-decimal amounts added up


def test_total_is_the_runs_totals_plus_the_earlier_runs(history, bridge):
    """The grand total is the sum of every current run's state.json and the rows of replaced runs and failed plans."""
    result = report(bridge, "--by", "run")
    earlier = [row for row in result["rows"] if row["run"] == "earlier"]
    assert len(earlier) == 2  # alpha's first run, beta's failed plan
    expected = {k: sum(state_totals(s)[0][k] for s in history) + sum(r[k] for r in earlier) for k in TOKEN_KEYS}
    assert {k: result["total"][k] for k in TOKEN_KEYS} == expected
    usd = 0.0
    for amount in [state_totals(s)[1] for s in history] + [r["usd"] for r in earlier]:
        usd = add_usd(usd, amount)
    assert result["total"]["usd"] == usd


def test_every_current_run_is_checked_and_matches(history, bridge):
    """The check against state.json covers all three runs and finds no difference."""
    assert report(bridge)["runs"] == {"checked": 3, "matching": 3, "unverified": 0, "mismatches": []}


@pytest.mark.parametrize("by", ["day", "model", "phase", "run"])
def test_every_grouping_adds_up_to_the_same_total(history, bridge, by):
    """Whatever the grouping, the rows add up to the same total of calls, tokens and USD."""
    result = report(bridge, "--by", by)
    for key in ("calls", "failed", "input", "cached", "output"):
        assert sum(row[key] for row in result["rows"]) == result["total"][key]
    assert result["total"]["calls"] == 12 and result["total"]["failed"] == 5


def test_by_phase_counts_failed_calls_and_retries_apart(history, bridge):
    """Grouped by phase: plan calls include the failed plan and the corrected answer; failed calls are counted."""
    rows = {row["key"]: (row["calls"], row["failed"]) for row in report(bridge, "--by", "phase")["rows"]}
    assert rows == {"plan": (6, 2), "review": (3, 1), "verdict": (3, 2)}


def test_a_tampered_state_is_reported_as_a_mismatch(history, bridge):
    """A state.json whose totals no longer equal its calls is named with the field that differs."""
    from autopilot.loop.state import Store

    with Store(history[2]["workspace"]).transaction() as s:
        s["token_usage"]["plan"]["input"] += 1
    mismatches = report(bridge)["runs"]["mismatches"]
    assert [(m["run_id"], m["differences"]) for m in mismatches] == [
        (history[2]["run_id"], [{"field": "token_usage.plan.input", "events": 333, "state": 334}])
    ]


def test_malformed_lines_are_counted_not_fatal(history, bridge):
    """Garbage, a truncated line and a call with a bad type are counted; the rest still adds up."""
    events = Path(history[0]["run_dir"]) / "events.jsonl"
    with events.open("a") as fh:
        fh.write('not json\n{"ts": "2026-01-01T00:00:00Z", "phase": "review", "tokens": {"input": "9"}, "usd": 1}\n')
        fh.write('[1, 2]\n{"ts": "2026-01-01T00:00:00Z", "phase": "rev')
    result = report(bridge)
    assert result["lines"]["malformed"] == 4 and result["runs"]["matching"] == 3


def test_since_keeps_only_later_calls(history, bridge):
    """--since after every call leaves no rows and a zero total; the check still covers the runs."""
    result = report(bridge, "--since", "2999-01-01")
    assert (result["rows"], result["total"]["calls"], result["runs"]["matching"]) == ([], 0, 3)
    assert result["since"] == "2999-01-01T00:00:00.000000Z"


def test_events_without_run_ids_are_reported_as_such(openai_env, git_repo, bridge):
    """Calls logged before events carried run ids form their own row, and their run is not checked."""
    openai_env.push(reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "old run")[0] == 0
    events = Path(state_of(bridge, git_repo)["run_dir"]) / "events.jsonl"
    old = [{k: v for k, v in json.loads(line).items() if k != "run_id"} for line in events.read_text().splitlines()]
    events.write_text("".join(json.dumps(e) + "\n" for e in old))
    result = report(bridge, "--by", "run")
    assert [row["run"] for row in result["rows"]] == ["no run id"] and result["lines"]["without_run_id"] == 1
    assert (result["runs"]["unverified"], result["runs"]["checked"]) == (1, 0)


def test_the_table_shows_rows_a_total_and_the_check(history, bridge):
    """Without --json the report is a table with a total line and says the runs match their state.json."""
    code, out, _ = bridge("report", "--by", "phase")
    lines = out.splitlines()
    assert code == 0 and lines[1].split() == ["phase", "calls", "failed", "input", "cached", "output", "USD"]
    assert [line.split()[0] for line in lines[2:5]] == ["plan", "review", "verdict"]
    assert lines[6].split()[:3] == ["total", "12", "5"]
    assert "3 of 3 runs match their state.json to the token and the cent" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--since", "yesterday"], "--since must be a date"), (["--by", "week"], "invalid choice: 'week'")],
)
def test_bad_arguments_are_refused(bridge, args, message):
    """A --since that is not a date, or an unknown grouping, is refused with what is expected."""
    code, _, err = bridge("report", *args)
    assert code in (1, 2) and message in err


def test_no_runs_at_all_is_an_empty_report(bridge):
    """With no runs the report is empty, not an error."""
    result = report(bridge)
    assert (result["rows"], result["total"]["calls"], result["lines"]["files"]) == ([], 0, 0)


# ---- the memory's side of the meter ----------------------------------------------------------------


def injected_bytes(text: str) -> int:
    """The bytes of what the memory wrote into a context (the blank line joining rules and facts is the hook's)."""
    return len(text.encode()) - 2 * text.count("\n\ncodex-autopilot active memory")


def injected_session(bridge, repo: Path, session: str = SESSION) -> str:
    """A Claude session given an approved rule at its start and its facts again after a compaction; the text
    its context received from the hooks."""
    first = run_hook(bridge, "SessionStart", repo, source="startup", session_id=session)
    run_hook(
        bridge,
        "UserPromptSubmit",
        repo,
        prompt="Add a --json flag to export. Never change the CSV.",
        session_id=session,
    )
    run_hook(bridge, "Stop", repo, stop_hook_active=False, session_id=session)
    after = run_hook(bridge, "SessionStart", repo, source="compact", session_id=session)
    return context_of(first) + context_of(after)


def test_report_table_shows_memory_beside_the_codex_spend(history, git_repo, bridge):
    """Without --json, the memory table follows the spend table and compares its tokens with Codex's input."""
    approved("Keep the CSV output byte for byte.", git_repo)
    injected_session(bridge, git_repo)
    code, out, _ = bridge("report")
    assert code == 0 and out.index("Codex spend by day") < out.index("Memory injected by session")
    assert f"claude {SESSION[:8]} {git_repo.name}" in out
    assert "input tokens (" in out.splitlines()[-1] and out.splitlines()[-1].startswith("memory injected ~")
