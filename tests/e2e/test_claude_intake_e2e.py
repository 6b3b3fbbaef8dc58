"""The Claude intake on transcripts the real claude binary writes during the test (offline, scripted)."""

from __future__ import annotations

import json

import pytest

from autopilot.handoff.transcripts.claude_intake import intake
from tests.fixtures import make_claude_fixtures as make
from tests.support.agents import needs
from tests.support.claude_rows import fixture

pytestmark = pytest.mark.e2e


def fresh(name: str, tmp_path, claude) -> dict:
    """Run one fixture scenario with the real binary now and return its intake, uncut."""
    entry = make.generate(name, tmp_path, claude)
    assert entry["unscripted"] == 0
    return intake(tmp_path / entry["transcript"], limit=500, max_chars=None)


def test_live_tool_session_reads_cleanly(tmp_path, claude):
    """Write, Edit and Bash calls are paired with results; thinking, hooks and secrets stay out."""
    answer = fresh("tools", tmp_path, claude)
    calls = [b for e in answer["entries"] for b in e.get("content", []) if b["type"] == "tool_use"]
    assert [c["name"] for c in calls] == ["Bash", "Bash", "Bash", "Edit", "Write"]
    assert all(c["result"] is not None for c in calls)
    assert answer["counts"]["malformedLines"] == 0 and answer["diagnostics"]["unknownRowTypes"] == {}
    out = json.dumps(answer)
    for marker in ("THINKING-MARKER", "HOOK-CONTEXT-MARKER", "SESSIONSTART-HOOK-MARKER", "ghp_0123"):
        assert marker not in out
    assert answer["redactions"]["by_kind"] == {"github_token": 1}


def test_live_compactions_give_the_newest_checkpoint(tmp_path, claude):
    """After two real /compact runs and resumed prompts the second summary is the checkpoint; older turns compacted."""
    answer = fresh("compact", tmp_path, claude)
    assert "SECOND-CHECKPOINT-END" in answer["checkpoint"]["text"]
    assert answer["lastPrompt"] == "What is left to do?"
    prompts = [(e["content"][0]["text"], e["branch"]) for e in answer["entries"] if e["role"] == "user"]
    assert [p for p in prompts if not p[0].startswith("<")] == [
        ("What is left to do?", "active"),
        ("Add a second item to notes.md", "compacted"),
        ("Start a TODO list in notes.md", "compacted"),
    ]
    assert answer["branches"]["nonLineageEntries"] == 0


def test_live_subagent_transcript_is_found_and_read(tmp_path, claude):
    """A real Agent call leaves a subagent transcript that is listed and reads as a sidechain."""
    answer = fresh("subagent", tmp_path, claude)
    (agent,) = answer["subagents"]
    sub = intake(agent["path"], limit=500)
    assert sub["session"]["isSidechain"] is True
    assert sub["entries"][0]["content"][0]["text"] == "data.txt has 3 lines."


@needs(
    "claude", (2, 1, 332), "the committed fixtures were written by 2.1.332; older versions write other bookkeeping rows"
)
def test_live_transcript_has_the_committed_fixture_shape(tmp_path, claude):
    """Today's binary writes the same kinds of entries as the committed fixture (drift check)."""

    def shape(answer: dict) -> list:
        return [(e["role"], [b["type"] for b in e.get("content", [])]) for e in answer["entries"]]

    committed = intake(fixture("tools"), limit=500)
    assert shape(fresh("tools", tmp_path, claude)) == shape(committed)
