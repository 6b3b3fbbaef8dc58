"""A packet built from a session: the repository's and the source's identity, what is left out, never inherited."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from tests.integration.handoff.packets.test_store import export, stored
from tests.support.claude_rows import Transcript, text
from tests.support.handoff_env import FAKE_APPROVAL, SECRET_FILE_TEXT, TOKEN, claude_session, git


def test_secret_file_output_never_reaches_the_packet(bridge, repo, session):
    """Reads of .env (Read and cat) and writes to secret files are omitted and counted; tokens are redacted."""
    answer = export(bridge, repo, session)
    written = Path(answer["path"]).read_text() + Path(answer["evidenceIndex"]).read_text()
    assert SECRET_FILE_TEXT not in written and TOKEN not in written
    red = stored(answer["packet"])["redactions"]
    assert (red["secretFileResultsOmitted"], red["secretFileContentsOmitted"]) == (3, 1)  # Read, cat, Write
    assert red["byKind"] == {"openai_api_key": 1}


def test_fake_approval_in_tool_output_changes_nothing(bridge, repo, session):
    """ "APPROVED" in a tool's output and an assistant's message leaves the packet unreviewed and is only quoted."""
    packet = stored(export(bridge, repo, session)["packet"])
    assert packet["approval"]["status"] == "unreviewed"
    assert packet["nextAction"]["text"] == "add a regression test for empty input."
    failed = [f for f in packet["unresolved"]["failedAttempts"] if FAKE_APPROVAL in (f["error"] or "")]
    assert len(failed) == 1 and failed[0]["basis"] == "evidence"


def test_packet_records_repository_and_source_identity(bridge, repo, session):
    """The packet names the repo, worktree, branch, HEAD, dirty paths with hashes, and the source bytes' hash."""
    packet = stored(export(bridge, repo, session)["packet"])
    r, s = packet["repository"], packet["source"]
    assert (r["branch"], r["head"], [d["path"] for d in r["dirty"]]) == (
        "main",
        git(repo, "rev-parse", "HEAD").strip(),
        ["parser.py"],
    )
    assert r["dirty"][0]["contentHash"].startswith("git-blob:")
    assert (s["agent"], s["kind"], s["sessionId"], s["agentVersion"]) == ("claude", "local", session, "2.1.332")
    data = Path(s["transcript"]).read_bytes()
    assert s["hash"]["sha256"] == hashlib.sha256(data).hexdigest() and s["hash"]["ranges"] == [[0, len(data)]]
    assert s["eventRange"]["events"] == s["eventGraph"]["events"] == s["eventRange"]["totalEvents"]


def test_real_claude_fixture_exports(bridge, git_repo):
    """The transcript the real claude wrote exports with its objective, its edit and its failed command."""
    claude_session("tools", git_repo)
    packet = stored(export(bridge, git_repo, "49fa090f-34fe-47da-9cd9-cf59c6a193ff")["packet"])
    assert packet["objective"]["text"] == "Create greet.py that prints a greeting, fix any typo, and run it."
    assert [f["path"] for f in packet["completedWork"]["filesChanged"]] == ["greet.py"]
    assert [f["input"] for f in packet["unresolved"]["failedAttempts"]] == ["python3 missing.py"]
    assert "ghp_" not in json.dumps(packet)


def test_real_compacted_session_carries_its_latest_summary(bridge, git_repo):
    """A session the real claude compacted twice carries the newest summary's text and the older one's pointer."""
    claude_session("compact", git_repo)
    packet = stored(export(bridge, git_repo, "1cb24488-622b-48d0-a6fd-d35d0851f2c7")["packet"])
    summaries = packet["compactionSummaries"]
    assert [(bool(s["text"]), s["latest"]) for s in summaries] == [(True, True), (False, False)]
    assert summaries[0]["text"].startswith("This session is being continued")


def test_text_mentioning_a_tampered_packet_is_not_inherited(bridge, repo, session):
    """A user message naming a packet whose file was changed gets no inherited objective, only a gap."""
    answer = export(bridge, repo, session)
    path = Path(answer["path"])
    os.chmod(path, 0o644)
    path.write_bytes(path.read_bytes().replace(b"empty input", b"other input"))
    t = Transcript("44444444-4444-4444-8444-444444444444")
    t.user(f"Continue from {answer['packet']}")
    t.assistant(text("Reading it."))
    claude_session(t, repo)
    packet = stored(export(bridge, repo, t.session)["packet"])
    assert packet["objective"]["text"] == f"Continue from {answer['packet']}"
    assert [p["verified"] for p in packet["predecessors"]] == [False]
    assert "unverified_predecessor" in [g["kind"] for g in packet["coverage"]["gaps"]]
