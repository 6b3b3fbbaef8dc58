"""Session sources: discovery by recorded cwd, explicit selection, paging, replay, truncation and coverage limits."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from autopilot.errors import BridgeError
from autopilot.handoff.sources import Limits
from autopilot.handoff.sources.claude import ClaudeSource
from autopilot.handoff.sources.codex import CodexSource
from autopilot.handoff.sources.project import Project
from tests.support.claude_rows import FIXTURES, Transcript, text, tool_use
from tests.support.handoff_env import (
    claude_session,
    codex_lines,
    codex_rollout,
    git,
    run_json,
    sources_state,
    thread_of,
    worktree,
)

TOOLS = "49fa090f-34fe-47da-9cd9-cf59c6a193ff"


def turns(t: Transcript, n: int, start: int = 0) -> None:
    """``n`` prompt / tool / answer turns."""
    for k in range(start, start + n):
        t.user(f"prompt {k}")
        t.assistant(tool_use("Bash", {"command": f"echo {k}"}, f"toolu_{k}"))
        t.result(f"toolu_{k}", f"out {k}")
        t.assistant(text(f"answer {k}"))


def test_list_shows_this_worktrees_sessions_and_sibling_worktrees_apart(git_repo, tmp_path, bridge):
    """A session recorded in a sibling worktree is listed apart, never among this worktree's sessions."""
    other = worktree(git_repo, "feature")
    claude_session("tools", git_repo)
    t = Transcript("22222222-2222-4222-8222-222222222222")
    turns(t, 1)
    claude_session(t, other)
    code, answer, err = run_json(bridge, "handoff", "list", "--from", "claude", cwd=git_repo)
    assert code == 0, err
    assert [s["sessionId"] for s in answer["sessions"]] == [TOOLS]
    assert [(s["sessionId"], s["scope"]) for s in answer["otherWorktrees"]] == [
        ("22222222-2222-4222-8222-222222222222", "sibling-worktree")
    ]


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


def test_deleted_claude_worktree_is_not_this_worktree(git_repo):
    """A session from `.claude/worktrees/x` inside the checkout (since removed) is a sibling, not this one."""
    project = Project(str(git_repo))
    assert project.classify(str(git_repo / ".claude" / "worktrees" / "fix-1" / "src")) == "sibling-worktree"
    assert project.classify(str(git_repo / "src")) == "this-worktree"


def test_nested_repository_is_another_project(git_repo):
    """A repository nested inside the checkout is another project."""
    nested = git_repo / "vendor" / "lib"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    assert Project(str(git_repo)).classify(str(nested)) == "other-project"


def test_reading_a_sibling_worktree_session_is_refused(git_repo, bridge):
    """Naming a session of another worktree is refused with the directory to run from."""
    other = worktree(git_repo, "feature")
    claude_session("tools", other)
    code, _, err = run_json(bridge, "handoff", "read", "--from", "claude", "--session", TOOLS, cwd=git_repo)
    assert code == 1
    assert "another worktree of this repository" in err and f"--cwd {other}" in err


def test_export_from_another_project_is_refused(git_repo, tmp_path, bridge):
    """A session recorded in another project cannot be exported from here."""
    stranger = tmp_path / "elsewhere"
    stranger.mkdir()
    codex_rollout("exec_plain", stranger)
    tid = thread_of(codex_lines("exec_plain"))
    code, _, err = run_json(
        bridge, "handoff", "export", "--from", "codex", "--session", tid, "--to", "claude", cwd=git_repo
    )
    assert (code, "another project" in err) == (1, True)


def test_export_needs_an_explicit_session(git_repo, bridge):
    """There is no implicit "latest": export without --session is a usage error."""
    code, _, err = bridge("handoff", "export", "--from", "claude", "--to", "codex", cwd=git_repo)
    assert code == 2


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


def test_truncated_rollout_keeps_its_prefix_and_reports_the_gap(git_repo):
    """A rollout cut inside its last line reads up to it and names the line."""
    lines = codex_lines("exec_plain")
    path = codex_rollout(lines, git_repo)
    path.write_bytes(path.read_bytes()[:-40])
    observed = CodexSource().observe(Project(str(git_repo)), thread_of(lines), Limits())
    assert [g["kind"] for g in observed["coverage"]["gaps"]] == ["truncated"]
    assert [e["text"] for e in observed["events"] if e["kind"] == "user"] == ["Say hello", "Suggest a small project"]


def test_a_codex_patch_event_names_every_file_its_patch_adds_changes_deletes_or_moves_to(git_repo):
    """An apply_patch call's tool names the files of each ``*** Add/Update/Delete File:`` and ``*** Move to:`` line,
    in order, whether the patch is a custom tool's input or a function call's JSON argument."""
    lines = codex_lines("exec_tools")
    call = json.loads(lines[18])
    call["payload"]["input"] = (
        "*** Begin Patch\n*** Add File: docs/new.md\n+hello\n*** Update File: src/app.py\n"
        "*** Move to: src/main.py\n@@\n-a\n+b\n*** Delete File:  old.txt \n*** End Patch\n"
    )
    lines[18] = json.dumps(call)
    codex_rollout(lines, git_repo)
    events = CodexSource().observe(Project(str(git_repo)), thread_of(lines), Limits())["events"]
    patches = {e["tool"]["callId"]: e["tool"].get("paths") for e in events if e["kind"] == "tool"}
    assert patches["call_patch1"] == ["docs/new.md", "src/app.py", "src/main.py", "old.txt"]
    assert patches["call_patch_bad"] == ["greeting.txt"]
    assert patches["call_cmd1"] is None


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


def test_sources_are_never_modified(git_repo, bridge):
    """Listing, reading, exporting and importing leave every transcript's bytes and mtime as they were."""
    claude_session("tools", git_repo)
    codex_rollout("exec_tools", git_repo)
    tid = thread_of(codex_lines("exec_tools"))
    before = sources_state()
    for agent, session in (("claude", TOOLS), ("codex", tid)):
        assert bridge("handoff", "list", "--from", agent, cwd=git_repo)[0] == 0
        assert bridge("handoff", "read", "--from", agent, "--session", session, cwd=git_repo)[0] == 0
        code, out, err = bridge(
            "handoff", "export", "--from", agent, "--session", session, "--to", "codex", cwd=git_repo
        )
        assert code == 0, err
        pid = json.loads(out)["packet"]
        assert bridge("handoff", "import", pid, "--to", "codex", "--session", tid, cwd=git_repo)[0] == 0
    assert sources_state() == before


def test_codex_list_keeps_subagents_under_their_parent_and_forks_as_sessions(git_repo):
    """Spawned subagents are counted under the parent thread; a user's fork is a session with its origin."""
    from autopilot.handoff.sources import codex

    for name in ("subagent_parent", "subagent_child", "exec_fork_parent", "exec_fork"):
        codex_rollout(name, git_repo)
    listing = codex.sessions(Project(str(git_repo)), Limits())
    rows = {r["threadId"]: r for r in listing["sessions"]}
    parent = thread_of(codex_lines("subagent_parent"))
    fork = thread_of(codex_lines("exec_fork"))
    assert thread_of(codex_lines("subagent_child")) not in rows
    assert rows[parent]["subagents"] == 1
    assert rows[fork]["forkedFromId"] == thread_of(codex_lines("exec_fork_parent"))


def test_codex_thread_session_and_fork_ids_stay_distinct(git_repo):
    """A subagent keeps its own thread id, its root's session id and its spawning parent as ancestry."""
    for name in ("subagent_parent", "subagent_child"):
        codex_rollout(name, git_repo)
    child = thread_of(codex_lines("subagent_child"))
    session = CodexSource().read(Project(str(git_repo)), child, before=None, limit=5, limits=Limits())["session"]
    parent = thread_of(codex_lines("subagent_parent"))
    assert (session["threadId"], session["sessionId"]) == (child, parent)
    assert [(a["threadId"], a["relation"]) for a in session["ancestry"]] == [(parent, "spawned-by")]


def test_a_shared_session_id_is_not_taken_for_a_thread(git_repo):
    """Passing a session id that several threads share is refused with the thread ids to choose from."""
    lines = codex_lines("exec_plain")
    meta = json.loads(lines[0])
    meta["payload"]["session_id"] = "0000aaaa-0000-7000-8000-000000000000"
    lines[0] = json.dumps(meta)
    codex_rollout(lines, git_repo)
    with pytest.raises(BridgeError, match="session id shared by thread"):
        CodexSource().locate("0000aaaa-0000-7000-8000-000000000000")


def test_fork_ancestry_names_the_parent_rollout(git_repo):
    """A fork's ancestry gives the thread it came from and that thread's rollout file."""
    parent_path = codex_rollout("exec_fork_parent", git_repo)
    codex_rollout("exec_fork", git_repo)
    session = CodexSource().read(
        Project(str(git_repo)), thread_of(codex_lines("exec_fork")), before=None, limit=5, limits=Limits()
    )["session"]
    assert session["ancestry"] == [
        {
            "threadId": thread_of(codex_lines("exec_fork_parent")),
            "relation": "forked-from",
            "transcript": str(parent_path),
        }
    ]


def test_deleted_main_transcript_is_reported(git_repo):
    """A session folder with subagents but no main transcript is a gap in the listing."""
    from autopilot.handoff.sources import claude

    path = claude_session("tools", git_repo)
    (path.parent / "33333333-3333-4333-8333-333333333333" / "subagents").mkdir(parents=True)
    listing = claude.sessions(Project(str(git_repo)), Limits())
    assert [g["kind"] for g in listing["coverage"]["gaps"]] == ["deleted_transcripts"]


def test_compressed_rollouts_are_listed_and_read(git_repo):
    """A .jsonl.zst rollout (Codex compresses old ones) is listed like a plain one and located for reading."""
    from pathlib import Path

    import zstandard

    from autopilot.handoff.sources import codex

    path = codex_rollout("exec_plain", git_repo)
    packed = path.with_name(path.name + ".zst")
    packed.write_bytes(zstandard.ZstdCompressor().compress(path.read_bytes()))
    path.unlink()
    thread = thread_of(codex_lines("exec_plain"))
    listing = codex.sessions(Project(str(git_repo)), Limits())
    assert [s["threadId"] for s in listing["sessions"]] == [thread] and listing["coverage"]["gaps"] == []
    assert Path(CodexSource().locate(thread)).read_bytes() == zstandard.ZstdDecompressor().decompress(
        packed.read_bytes()
    )


def test_malformed_session_id_is_refused(git_repo, bridge):
    """A path or glob passed as --session is refused before any file is looked at."""
    code, _, err = bridge("handoff", "read", "--from", "codex", "--session", "../*", cwd=git_repo)
    assert (code, "is not a session id" in err) == (1, True)


def test_app_server_is_codex_only(git_repo, bridge):
    """--source app-server with --from claude is refused with what to do."""
    code, _, err = bridge("handoff", "list", "--from", "claude", "--source", "app-server", cwd=git_repo)
    assert (code, "Codex threads only" in err) == (1, True)


def test_renamed_session_is_listed_by_its_title(git_repo):
    """A /rename title recorded in the transcript is the session's title in the listing."""
    from autopilot.handoff.sources import claude

    t = Transcript()
    turns(t, 1)
    t.meta("custom-title", customTitle="parser rework")
    claude_session(t, git_repo)
    assert [s["title"] for s in claude.sessions(Project(str(git_repo)), Limits())["sessions"]] == ["parser rework"]


def test_latest_filters_the_listing_to_the_newest_session(git_repo, bridge):
    """--latest lists only the newest session; it is still just a listing."""
    older = Transcript("aaaaaaaa-0000-4000-8000-000000000001")
    newer = Transcript("aaaaaaaa-0000-4000-8000-000000000002")
    turns(older, 1)
    turns(newer, 1)
    for row in newer.rows:
        row["timestamp"] = row["timestamp"].replace("2026-07-19", "2026-07-20")
    claude_session(older, git_repo)
    claude_session(newer, git_repo)
    code, answer, _ = run_json(bridge, "handoff", "list", "--from", "claude", "--latest", cwd=git_repo)
    assert (code, [s["sessionId"] for s in answer["sessions"]]) == (0, [newer.session])


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


def test_an_app_server_that_drops_command_runs_says_so():
    """Codex before 0.171 returns an exec thread's messages without its command runs: a gap names it."""
    from types import SimpleNamespace

    from autopilot.handoff.sources import appserver

    older, pinned, unknown = (SimpleNamespace(version=v) for v in ((0, 145, 0), (0, 171, 0), None))
    (gap,) = appserver.history_gaps(older)  # type: ignore[arg-type]
    assert gap["kind"] == appserver.COMMANDS_MISSING
    assert "0.145.0" in gap["detail"] and "--source local" in gap["detail"]
    assert appserver.history_gaps(pinned) == appserver.history_gaps(unknown) == []  # type: ignore[arg-type]
