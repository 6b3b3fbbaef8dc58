"""Every way the real claude and codex compact a session: the intake's checkpoint is what the model was sent.

The fixtures (tests/fixtures/make_compact_fixtures.py) keep, beside each transcript, the first user
message of every request the real client sent; after a compaction that message carries the summary.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autopilot.handoff.transcripts.claude_fold import ClaudeFold
from autopilot.handoff.transcripts.claude_intake import intake as claude_intake
from autopilot.handoff.transcripts.codex_intake import intake as codex_intake
from autopilot.handoff.transcripts.evidence import strip_reminders
from autopilot.handoff.transcripts.jsonl import scan
from tests.support.repo import FIXTURES

MARK = "This session is being continued"
CLAUDE = {
    "compact_print": "manual",
    "compact_instructions": "manual",
    "compact_tui": "manual",
    "compact_auto_tui": "auto",
    "compact_auto_print": "auto",
}


def claude(name: str) -> Path:
    (path,) = (FIXTURES / "claude" / name).glob("*.jsonl")
    return path


def sent_summaries(name: str) -> list[str]:
    """The summaries the model received after each compaction, as the intake shows text (reminders stripped)."""
    requests = json.loads((FIXTURES / "claude" / name / "requests.json").read_text())
    out = []
    for r in requests:
        text = r["firstUserText"]
        if MARK in text:
            out.append(strip_reminders(text[text.index(MARK) :])[0].strip())
    return out


def user_prompts(answer: dict) -> list[tuple[str, str]]:
    return [
        (e["content"][0]["text"], e["branch"])
        for e in answer["entries"]
        if e["role"] == "user" and e.get("content") and not e["content"][0]["text"].startswith("<")
    ]


@pytest.mark.parametrize("name", sorted(CLAUDE))
def test_claude_checkpoint_is_the_summary_the_model_was_sent(name):
    """After each kind of compaction the checkpoint is, word for word, the summary the next request carried."""
    checkpoint = claude_intake(claude(name), max_chars=None)["checkpoint"]
    assert checkpoint["text"] == sent_summaries(name)[-1]
    assert checkpoint["trigger"] == CLAUDE[name]


@pytest.mark.parametrize("name", sorted(CLAUDE))
def test_claude_checkpoint_comes_with_the_newest_page_only(name):
    """Paging back through a compacted session shows the checkpoint once, on the newest page."""
    path = claude(name)
    first = claude_intake(path, limit=2)
    assert first["checkpoint"] is not None and first["nextBeforeLine"]
    older = claude_intake(path, limit=2, before_line=first["nextBeforeLine"])
    assert older["checkpoint"] is None


def test_print_mode_compact_then_resume_splits_the_session_at_the_boundary():
    """`-p /compact` then a resumed turn: the first turn is compacted, the resumed one is what the model sees."""
    answer = claude_intake(claude("compact_print"), limit=100)
    assert user_prompts(answer) == [("continue please", "active"), ("turn one: run echo", "compacted")]
    assert answer["branches"]["nonLineageEntries"] == 0


def test_compact_instructions_stay_visible_after_the_summary():
    """`/compact <instructions>` is recorded only as the command row after the summary: it is an active entry."""
    answer = claude_intake(claude("compact_instructions"), limit=100)
    commands = [e["content"][0]["text"] for e in answer["entries"] if e["role"] == "user" and e["branch"] == "active"]
    assert any("CUSTOM-INSTR-MARKER" in c for c in commands)
    assert "CUSTOM-INSTR-MARKER" not in answer["checkpoint"]["text"]


def test_tui_second_compaction_is_the_checkpoint_and_the_model_switch_is_seen():
    """In the TUI: two /compact runs (the second with instructions) and /model opus; the second summary counts."""
    path = claude("compact_tui")
    answer = claude_intake(path, limit=100, max_chars=None)
    assert len(sent_summaries("compact_tui")) == 3 and "SUMMARY-2" in answer["checkpoint"]["text"]
    assert user_prompts(answer) == [
        ("after model switch", "active"),
        ("after compact two", "active"),
        ("after compact one", "compacted"),
        ("turn two", "compacted"),
        ("turn one: run echo", "compacted"),
    ]
    changes = [model for _, model in scan(path, ClaudeFold()).state["modelChanges"]]
    assert changes == ["claude-scripted-main", "claude-scripted-opus"]


def test_automatic_compaction_keeps_the_running_prompt_active():
    """Compacting by itself in the TUI, Claude Code keeps the prompt that triggered it verbatim (preserved)."""
    answer = claude_intake(claude("compact_auto_tui"), limit=100)
    assert user_prompts(answer) == [("turn two", "active"), ("turn one: run echo", "compacted")]


CODEX = ["compact_tui", "compact_auto"]


def codex(name: str) -> Path:
    return FIXTURES / "codex" / f"{name}.jsonl"


@pytest.mark.parametrize("name", CODEX)
def test_codex_checkpoint_is_the_summary_the_model_was_sent(name):
    """After /compact in the TUI and an automatic compaction, the checkpoint is the summary the next request carried."""
    checkpoint = codex_intake(codex(name), max_chars=None)["checkpoint"]
    requests = json.loads((FIXTURES / "codex" / f"{name}.requests.json").read_text())
    carried = [t for r in requests for t in r["userTexts"] if checkpoint["text"] in t]
    assert checkpoint["text"].startswith("CODEX-SUMMARY-1") and carried


@pytest.mark.parametrize("name", CODEX)
def test_codex_compaction_marks_what_it_summarised(name):
    """Tool calls and replies before the compaction are compacted; the user message it kept is not."""
    answer = codex_intake(codex(name), limit=100)
    before = [e for e in answer["entries"] if e["line"] < answer["checkpoint"]["line"]]
    assert {e["kind"] for e in before if e.get("compacted")} >= {"tool_call"}
    assert [e.get("compacted") for e in before if e["kind"] == "user"] == [None]
    assert not any(e.get("compacted") for e in answer["entries"] if e["line"] > answer["checkpoint"]["line"])


@pytest.mark.parametrize("name", CODEX)
def test_codex_checkpoint_comes_with_the_newest_page_only(name):
    """The Codex checkpoint is not repeated on older pages."""
    first = codex_intake(codex(name), limit=1)
    assert (
        first["checkpoint"]
        and codex_intake(codex(name), limit=1, before_line=first["nextBeforeLine"])["checkpoint"] is None
    )
