"""Codex's rollouts as a source: truncation, patches, subagents and forks, shared session ids, compressed rollouts."""

from __future__ import annotations

import json

import pytest

from autopilot.errors import BridgeError
from autopilot.handoff.sources import Limits
from autopilot.handoff.sources.codex import CodexSource
from autopilot.handoff.sources.project import Project
from tests.support.handoff_env import codex_lines, codex_rollout, thread_of


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
