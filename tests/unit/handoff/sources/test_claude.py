"""Claude Code's sessions as a source: discovery by recorded cwd, paging, replay, rewinds, truncation, bounds."""

from __future__ import annotations

import json
import os
import shutil

from autopilot.handoff.sources import Limits
from autopilot.handoff.sources.claude import ClaudeSource
from autopilot.handoff.sources.project import Project
from tests.support.claude_rows import FIXTURES, Transcript, text, turns
from tests.support.handoff_env import claude_session


def test_list_skips_other_projects_without_reading_them(git_repo, tmp_path, monkeypatch):
    """A project directory whose name cannot belong to this repository is not opened."""
    from autopilot.handoff.sources import claude

    stranger = tmp_path / "elsewhere"
    stranger.mkdir()
    claude_session("tools", stranger)
    opened = []
    real_probe = ClaudeSource.probe
    monkeypatch.setattr(ClaudeSource, "probe", lambda self, path: opened.append(path) or real_probe(self, path))
    listing = claude.sessions(Project(str(git_repo)), Limits())
    assert (listing["sessions"], listing["coverage"]["skippedProjectDirs"], opened) == ([], 1, [])


def test_read_pages_cover_every_event_once_newest_first(git_repo):
    """Following nextBeforeLine visits every event exactly once, newest first, each with an exact pointer."""
    t = Transcript()
    turns(t, 6)
    path = claude_session(t, git_repo)
    project, source = Project(str(git_repo)), ClaudeSource()
    seen, before = [], None
    while True:
        page = source.read(project, t.session, before=before, limit=5, limits=Limits())
        seen += page["events"]
        before = page["nextBeforeLine"]
        if before is None:
            break
    lines = path.read_bytes().split(b"\n")
    assert [e["pointer"]["line"] for e in seen] == sorted((e["pointer"]["line"] for e in seen), reverse=True)
    assert len({e["id"] for e in seen}) == len(seen) == 18
    first = seen[-1]
    raw = path.read_bytes()[first["pointer"]["offset"] : first["pointer"]["offset"] + first["pointer"]["bytes"]]
    assert raw == lines[first["pointer"]["line"] - 1] and b"prompt 0" in raw


def test_replay_yields_the_same_event_graph(git_repo):
    """Observing a session with a fresh index, the cached one, and again, gives one event graph."""
    claude_session("compact", git_repo)
    project, source = Project(str(git_repo)), ClaudeSource()
    session = "1cb24488-622b-48d0-a6fd-d35d0851f2c7"
    first = source.observe(project, session, Limits())
    again = source.observe(project, session, Limits())
    shutil.rmtree(os.path.join(os.environ["AUTOPILOT_HOME"], "cache"))
    fresh = source.observe(project, session, Limits())
    assert first["graph"] == again["graph"] == fresh["graph"]
    assert first["events"] == fresh["events"]


def test_rewind_branch_hangs_off_the_row_it_rewound_to(git_repo):
    """After a rewind the new prompt's parent is the row it branched from, not the row before it in the file."""
    t = Transcript()
    t.user("first question")
    fork = t.assistant(text("first answer"))
    t.user("abandoned question")
    t.assistant(text("abandoned answer"))
    t.user("rewound question", parent=fork)
    t.assistant(text("final answer"))
    claude_session(t, git_repo)
    events = ClaudeSource().observe(Project(str(git_repo)), t.session, Limits())["events"]
    by_text = {e["text"]: e for e in events}
    assert by_text["rewound question"]["parent"] == by_text["first answer"]["id"]
    assert by_text["abandoned answer"]["branch"] == "non-lineage"
    assert by_text["final answer"]["branch"] == "active"


def test_truncated_transcript_keeps_its_prefix_and_reports_the_gap(git_repo):
    """Half a row at the end: every earlier event is read, and the cut line is an explicit gap."""
    t = Transcript()
    turns(t, 2)
    t.assistant(text("the last answer, cut off mid-write"))
    path = claude_session(t, git_repo)
    data = path.read_bytes()
    path.write_bytes(data[:-30])
    observed = ClaudeSource().observe(Project(str(git_repo)), t.session, Limits())
    assert [e["text"] for e in observed["events"] if e["kind"] == "assistant"] == ["answer 0", "answer 1"]
    assert [(g["kind"], g["line"]) for g in observed["coverage"]["gaps"]] == [("truncated", len(t.rows))]


def test_event_window_keeps_the_first_objective(git_repo):
    """With more events than the window, the newest are kept and the first prompt is still the objective."""
    t = Transcript()
    turns(t, 10)
    claude_session(t, git_repo)
    observed = ClaudeSource().observe(Project(str(git_repo)), t.session, Limits(window_events=6))
    assert len(observed["events"]) == 6
    assert observed["firstObjective"]["text"] == "prompt 0"
    window = next(g for g in observed["coverage"]["gaps"] if g["kind"] == "event_window")
    assert window["omittedEvents"] == 24


def test_read_cap_reads_head_and_tail_with_exact_pointers(git_repo):
    """Over the byte cap, the middle is skipped as a gap while line numbers and offsets stay the file's own."""
    t = Transcript()
    turns(t, 40)
    path = claude_session(t, git_repo)
    cap = path.stat().st_size // 3
    observed = ClaudeSource().observe(Project(str(git_repo)), t.session, Limits(max_read_bytes=cap))
    gap = next(g for g in observed["coverage"]["gaps"] if g["kind"] == "read_cap")
    assert observed["firstObjective"]["text"] == "prompt 0"
    last = observed["events"][-1]
    raw = path.read_bytes()[last["pointer"]["offset"] : last["pointer"]["offset"] + last["pointer"]["bytes"]]
    assert raw == path.read_bytes().split(b"\n")[last["pointer"]["line"] - 1]
    assert json.loads(raw)["message"]["content"][0]["text"] == "answer 39"
    assert gap["fromLine"] < gap["toLine"] < observed["events"][0]["pointer"]["line"]
    assert not [p for p in os.listdir(os.path.join(os.environ["AUTOPILOT_HOME"], "cache")) if p.startswith("window-")]


def test_deleted_main_transcript_is_reported(git_repo):
    """A session folder with subagents but no main transcript is a gap in the listing."""
    from autopilot.handoff.sources import claude

    path = claude_session("tools", git_repo)
    (path.parent / "33333333-3333-4333-8333-333333333333" / "subagents").mkdir(parents=True)
    listing = claude.sessions(Project(str(git_repo)), Limits())
    assert [g["kind"] for g in listing["coverage"]["gaps"]] == ["deleted_transcripts"]


def test_renamed_session_is_listed_by_its_title(git_repo):
    """A /rename title recorded in the transcript is the session's title in the listing."""
    from autopilot.handoff.sources import claude

    t = Transcript()
    turns(t, 1)
    t.meta("custom-title", customTitle="parser rework")
    claude_session(t, git_repo)
    assert [s["title"] for s in claude.sessions(Project(str(git_repo)), Limits())["sessions"]] == ["parser rework"]


def test_subagent_transcripts_are_pointed_to_as_a_gap(git_repo):
    """A session with a subagent points at the subagent's transcript and says it was not read in."""
    path = claude_session("subagent", git_repo)
    sub = path.parent / path.stem / "subagents"
    sub.mkdir(parents=True)
    for f in (FIXTURES / "subagent" / path.stem / "subagents").iterdir():
        (sub / f.name).write_bytes(f.read_bytes())
    observed = ClaudeSource().observe(Project(str(git_repo)), path.stem, Limits())
    gap = next(g for g in observed["coverage"]["gaps"] if g["kind"] == "subagents")
    assert gap["paths"] == [str(sub / "agent-a2c664ce26ff442dc.jsonl")]
    assert [s["agentId"] for s in observed["subagents"]] == ["a2c664ce26ff442dc"]
