"""A 100-turn session of each real client with compactions, resumes and model changes, recorded by the hooks.

tests/fixtures/make_long_session.py ran the plan (tests/fixtures/long/plan.json) with the real claude
(this plugin loaded) and the real codex (its hooks installed), and kept the session's active memory
and what every model request carried. These tests hold the memory to the plan, written by hand,
not to what the reducer computes.
"""

from __future__ import annotations

import json
import re

import pytest

from autopilot.handoff.memory.recover import from_index
from autopilot.handoff.memory.reduce import reduce
from autopilot.handoff.transcripts.claude_intake import intake as claude_intake
from autopilot.handoff.transcripts.codex_intake import intake as codex_intake
from tests.support.repo import FIXTURES

LONG = FIXTURES / "long"
PLAN = json.loads((LONG / "plan.json").read_text())
AGENTS = ["claude", "codex"]
OBSERVED_NEXT = "make `./tests/run` pass"


def logs(agent: str) -> dict[str, list[dict]]:
    folder = LONG / agent / "memory"
    return {
        name: [json.loads(line) for line in (folder / f"{name}.jsonl").read_text().splitlines()]
        for name in ("observations", "checkpoints", "injections")
    }


def requests(agent: str) -> tuple[list[dict], dict[str, str]]:
    data = json.loads((LONG / agent / "requests.json").read_text())
    return data["requests"], data["excerpts"]


def fields(excerpt: str) -> dict[str, list[str]]:
    """An injected excerpt as {field label: [items]} (items are JSON-quoted strings plus a label)."""
    out: dict[str, list[str]] = {}
    label = None
    for line in excerpt.splitlines()[1:]:
        if line.endswith(":") and not line.startswith("- "):
            label = line[:-1]
            out[label] = []
        elif line.startswith("- ") and label:
            out[label].append(line[2:])
    return out


def quoted(item: str) -> str:
    """The quoted value at the start of an item."""
    return json.loads(re.match(r'^("(?:[^"\\]|\\.)*")', item).group(1))


def last_checkpoint(before: int) -> int:
    return max(int(t) for t in PLAN["checkpoints"] if int(t) <= before)


def compaction_turns(agent: str) -> list[int]:
    """The turn whose requests come first after each compaction (Claude: the next run; Codex: mid-turn)."""
    return [int(t) + 1 for t in PLAN["compactAfter"]]


def after_compaction(agent: str, turn: int) -> list[str]:
    """The excerpts the first request after the compaction before ``turn`` carried, oldest first.

    Claude compacts in its own run: the next run's first request is the first after it. Codex compacts
    inside the turn (before its first request, or after its first tool call): its last request is.
    """
    reqs, texts = requests(agent)
    mine = [r for r in reqs if r["run"] == f"turn {turn}"]
    return [texts[e] for e in (mine[0] if agent == "claude" else mine[-1])["excerpts"]]


def told(excerpts: list[str]) -> tuple[set[str], str | None]:
    """What the excerpts, read in order, tell the model is open, and the newest next action they name."""
    open_items: set[str] = set()
    latest = None
    for text in excerpts:
        parsed = fields(text)
        open_items |= {quoted(i) for i in parsed.get("Unresolved", [])}
        open_items -= {quoted(i) for i in parsed.get("Completed (claimed)", [])}
        for item in parsed.get("Next action", []):
            latest = quoted(item)
    return open_items, latest


def expected_next(agent: str, turn: int) -> str:
    """What the next action must be right after the compaction before ``turn``: the plan's, or the failing test."""
    last = last_checkpoint(turn - 1)
    runs = [
        a[2]
        for t in PLAN["turns"]
        if last < t["turn"] <= (turn if agent == "codex" else turn - 1)
        for a in t["actions"]
        if a[0] == "test"
    ]
    if runs and runs[-1] == "fail":
        return OBSERVED_NEXT
    return PLAN["checkpoints"][str(last)]["body"]["next_action"]


@pytest.mark.parametrize("agent", AGENTS)
def test_the_session_is_long_compacted_and_resumed(agent):
    """100 typed requests, 90+ resumes and five or more compactions, all seen by the hooks."""
    obs = logs(agent)["observations"]
    state = reduce(obs, logs(agent)["checkpoints"])
    resumes = sum(1 for o in obs if o["kind"] == "session" and o.get("source") == "resume")
    assert state["requests"] == 100 and resumes >= 90 and state["turns"] >= 100
    assert len(state["compactions"]) >= 5
    assert state["observations"]["byVia"] == {"hook": len(obs)}


def test_codex_model_switches_are_seen_by_the_hooks():
    """Codex names the model on every event: the two switches there and back are four changes."""
    state = reduce(logs("codex")["observations"], [])
    assert [c["to"] for c in state["modelChanges"]] == ["gpt-scripted-alt", "gpt-6.2-sol"] * 2


def test_claude_model_switches_come_from_the_transcript():
    """`claude -p --resume --model` fires no hook: the switches are missing until recovery reads them."""
    obs = logs("claude")["observations"]
    assert reduce(obs, [])["modelChanges"] == []
    recovered = from_index("claude", str(LONG / "claude" / "transcript.jsonl"))
    changes = reduce(obs + recovered, [])["modelChanges"]
    assert [c["to"] for c in changes] == ["claude-scripted-alt", "claude-scripted-main"] * 2


@pytest.mark.parametrize("agent", AGENTS)
def test_no_unresolved_task_is_lost_across_compactions(agent):
    """After every compaction the model is told every item still open at that point, carried ones included."""
    for turn in compaction_turns(agent):
        open_items, _ = told(after_compaction(agent, turn))
        expected = PLAN["checkpoints"][str(last_checkpoint(turn - 1))]["open"]
        assert open_items == {PLAN["items"][k] for k in expected}, turn


@pytest.mark.parametrize("agent", AGENTS)
def test_next_action_after_each_compaction_is_the_checkpoints_or_the_newer_observed_one(agent):
    """The next action the model is told after a compaction is the last checkpoint's, or a test that failed since."""
    cases = set()
    for turn in compaction_turns(agent):
        _, latest = told(after_compaction(agent, turn))
        want = expected_next(agent, turn)
        assert latest is not None and latest.startswith(want), (turn, latest)
        cases.add(want == OBSERVED_NEXT)
    assert cases == {True, False}  # both happened


@pytest.mark.parametrize("agent", AGENTS)
def test_no_completed_task_is_duplicated(agent):
    """The session's completed work is each plan item once, in the order it was done; no excerpt repeats one."""
    state = reduce(logs(agent)["observations"], logs(agent)["checkpoints"])
    done = [c["text"] for c in state["completed"]]
    assert done == [PLAN["items"][k] for k in PLAN["checkpoints"]["100"]["done"]]
    _, texts = requests(agent)
    for text in texts.values():
        items = fields(text).get("Completed (claimed)", [])
        assert len(items) == len(set(items))


@pytest.mark.parametrize("agent", AGENTS)
def test_nothing_is_injected_twice_without_a_change(agent):
    """No request shows the model an item twice unless the fact changed between; every injection follows a change."""
    reqs, texts = requests(agent)
    for r in reqs:
        seen = [fields(texts[e]) for e in r["excerpts"]]
        for i, first in enumerate(seen):
            for j in range(i + 1, len(seen)):
                for label, items in first.items():
                    for item in set(items) & set(seen[j].get(label, [])):
                        between = seen[i + 1 : j]
                        # the same fact again is news only if it went away meanwhile: another value of the
                        # field, or a checkpoint (which starts "edited since the last checkpoint" afresh)
                        changed = any(set(p.get(label, [])) - {item} for p in between) or any(
                            "Next action" in p for p in between
                        )
                        assert changed, (r["run"], label, item)
    memory = logs(agent)
    changes = sorted(
        [o["at"] for o in memory["observations"] if o["kind"] in ("edit", "run", "compact", "model")]
        + [c["at"] for c in memory["checkpoints"]]
    )
    previous = ""
    for record in memory["injections"]:
        assert record.get("reset") or any(previous < at <= record["at"] for at in changes), record
        previous = record["at"]


@pytest.mark.parametrize("agent", AGENTS)
def test_every_request_carries_each_injection_once(agent):
    """No request holds the same injected excerpt twice."""
    reqs, _ = requests(agent)
    assert all(len(r["excerpts"]) == len(set(r["excerpts"])) for r in reqs)


@pytest.mark.parametrize("agent", AGENTS)
def test_the_final_state_is_the_plans(agent):
    """Replayed, the logs give the plan's last checkpoint: its objective, next action and open work."""
    state = reduce(logs(agent)["observations"], logs(agent)["checkpoints"])
    body = PLAN["checkpoints"]["100"]["body"]
    assert (state["objective"]["text"], state["nextAction"]["text"]) == (body["objective"], body["next_action"])
    assert [u["text"] for u in state["unresolved"]] == [PLAN["items"][k] for k in PLAN["checkpoints"]["100"]["open"]]


def test_claude_transcript_checkpoint_is_the_last_summary():
    """The 100-turn Claude transcript's checkpoint is the fifth compaction's summary, on its newest page only."""
    answer = claude_intake(LONG / "claude" / "transcript.jsonl", limit=3)
    assert "LONG-SUMMARY-5" in answer["checkpoint"]["text"]
    assert (
        claude_intake(LONG / "claude" / "transcript.jsonl", limit=3, before_line=answer["nextBeforeLine"])["checkpoint"]
        is None
    )


def test_codex_rollout_checkpoint_is_the_last_summary():
    """The 100-turn Codex rollout's checkpoint is its newest compaction summary."""
    answer = codex_intake(LONG / "codex" / "rollout.jsonl", limit=3)
    assert answer["checkpoint"]["text"].startswith("LONG-CODEX-SUMMARY-") and answer["counts"]["compactions"] >= 5
