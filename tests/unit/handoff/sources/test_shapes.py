"""handoff/sources/shapes.py: what both local sources really observe and list has the shapes' keys."""

from __future__ import annotations

import pytest

from autopilot.handoff.sources import Limits, claude, codex, shapes
from autopilot.handoff.sources.claude import ClaudeSource
from autopilot.handoff.sources.codex import CodexSource
from autopilot.handoff.sources.project import Project
from tests.support.handoff_env import claude_session, codex_lines, codex_rollout, thread_of
from tests.support.shapes import mismatches


def observed(agent: str, repo) -> shapes.Observed:
    """A real session of ``agent`` (the pinned clients' fixtures) observed within the default limits."""
    if agent == "claude":
        session = claude_session("compact", repo).stem
        return ClaudeSource().observe(Project(str(repo)), session, Limits())
    lines = codex_lines("exec_plain")
    codex_rollout(lines, repo)
    return CodexSource().observe(Project(str(repo)), thread_of(lines), Limits())


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_an_observed_session_and_its_parts_have_their_shapes(git_repo, agent):
    """The whole observation, its session, hash, graph and coverage, every event and pointer, every gap."""
    seen = observed(agent, git_repo)
    assert mismatches(seen, shapes.Observed) == []
    assert mismatches(seen["session"], shapes.Session) == []
    assert seen["hash"] is not None and mismatches(seen["hash"], shapes.TranscriptHash) == []
    assert mismatches(seen["graph"], shapes.EventGraph) == [] and mismatches(seen["coverage"], shapes.Coverage) == []
    assert seen["events"] and [e for e in seen["events"] if mismatches(e, shapes.Event)] == []
    assert [e for e in seen["events"] if "pointer" in e and mismatches(e["pointer"], shapes.Pointer)] == []
    assert [g for g in seen["coverage"].get("gaps", []) if mismatches(g, shapes.Gap)] == []


def test_a_compacted_sessions_checkpoints_and_edits_have_their_shapes(git_repo):
    """A Claude session compacted twice: its checkpoints are Checkpoints, its tools' calls Tools."""
    seen = observed("claude", git_repo)
    assert seen.get("checkpoints") and [c for c in seen["checkpoints"] if mismatches(c, shapes.Checkpoint)] == []
    tools = [e["tool"] for e in seen["events"] if "tool" in e]
    assert tools and [t for t in tools if mismatches(t, shapes.Tool)] == []
    assert [e for e in seen.get("edits", []) if mismatches(e, shapes.Edit)] == []


@pytest.mark.parametrize("module", [claude, codex], ids=["claude", "codex"])
def test_a_listing_row_is_a_session_row(git_repo, module):
    """Each session a source lists for the project is a SessionRow."""
    claude_session("tools", git_repo)
    codex_rollout(codex_lines("exec_plain"), git_repo)
    rows = module.sessions(Project(str(git_repo)), Limits())["sessions"]
    assert rows and [r for r in rows if mismatches(r, shapes.SessionRow)] == []
