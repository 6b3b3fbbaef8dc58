"""`handoff list | read | export` through the CLI: this worktree's sessions, the ones refused, sources never changed."""

from __future__ import annotations

import json

from tests.support.claude_rows import Transcript, turns
from tests.support.handoff_env import (
    claude_session,
    codex_lines,
    codex_rollout,
    run_json,
    sources_state,
    thread_of,
    worktree,
)

TOOLS = "49fa090f-34fe-47da-9cd9-cf59c6a193ff"


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


def test_malformed_session_id_is_refused(git_repo, bridge):
    """A path or glob passed as --session is refused before any file is looked at."""
    code, _, err = bridge("handoff", "read", "--from", "codex", "--session", "../*", cwd=git_repo)
    assert (code, "is not a session id" in err) == (1, True)


def test_app_server_is_codex_only(git_repo, bridge):
    """--source app-server with --from claude is refused with what to do."""
    code, _, err = bridge("handoff", "list", "--from", "claude", "--source", "app-server", cwd=git_repo)
    assert (code, "Codex threads only" in err) == (1, True)


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
