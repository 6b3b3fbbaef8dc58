"""Packets: content addressing, verification, evidence-backed claims, redaction and the never-approve rules."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

import pytest
from freezegun import freeze_time

from autopilot.digest import canonical
from autopilot.handoff.packets import store
from tests.support.claude_rows import Transcript, text, tool_use
from tests.support.handoff_env import (
    FAKE_APPROVAL,
    SECRET_FILE_TEXT,
    TOKEN,
    claude_session,
    edited_parser_repo,
    git,
    run_json,
    work_session,
)


@pytest.fixture
def repo(git_repo):
    """A repo with parser.py committed and then edited, as the work session left it."""
    return edited_parser_repo(git_repo)


@pytest.fixture
def session(repo):
    """The work session installed as recorded in the repo; its id."""
    t = work_session(Transcript())
    claude_session(t, repo)
    return t.session


def export(bridge, repo, session, *extra):
    """Run export and return its parsed answer."""
    code, answer, err = run_json(
        bridge, "handoff", "export", "--from", "claude", "--session", session, "--to", "codex", *extra, cwd=repo
    )
    assert code == 0, err
    return answer


def stored(pid: str) -> dict:
    """The stored packet's JSON."""
    return json.loads(store.resolve(pid).read_bytes())


def test_packet_is_canonical_json_named_by_its_sha256(bridge, repo, session):
    """The file holds canonical bytes whose sha256 is its name and id, outside the repo, read-only."""
    answer = export(bridge, repo, session)
    path = Path(answer["path"])
    data = path.read_bytes()
    assert answer["packet"] == "sha256:" + hashlib.sha256(data).hexdigest() == "sha256:" + path.stem
    assert data == canonical(json.loads(data))
    assert path.parent == Path(os.environ["AUTOPILOT_HOME"]) / "handoff" / "packets"
    assert not stat.S_IMODE(path.stat().st_mode) & 0o222
    assert Path(answer["evidenceIndex"]).exists()
    assert git(repo, "status", "--porcelain") == " M parser.py\n"


def test_preview_writes_nothing(bridge, repo, session):
    """--preview prints the packet and its would-be id but creates no file at all."""
    before = sorted(str(p) for p in Path(os.environ["AUTOPILOT_HOME"]).rglob("*") if "cache" not in p.parts)
    answer = export(bridge, repo, session, "--preview")
    after = sorted(str(p) for p in Path(os.environ["AUTOPILOT_HOME"]).rglob("*") if "cache" not in p.parts)
    assert (answer["written"], answer["packet"].startswith("sha256:"), after) == (False, True, before)


def test_same_session_at_the_same_time_gives_the_same_id(bridge, repo, session):
    """Building twice from unchanged sources at a frozen time yields one id: the content is the address."""
    with freeze_time("2026-12-01 09:00:00"):
        first = export(bridge, repo, session, "--preview")
        second = export(bridge, repo, session)
    assert first["packet"] == second["packet"]
    assert stored(second["packet"])["createdAt"] == "2026-12-01T09:00:00Z"


def test_inspect_reverifies_the_hash(bridge, repo, session):
    """inspect shows a packet only after re-deriving its hash and its evidence index's."""
    pid = export(bridge, repo, session)["packet"]
    code, answer, err = run_json(bridge, "handoff", "inspect", pid[:19], cwd=repo)
    assert (code, answer["packet"], answer["verified"], answer["importable"]) == (
        0,
        pid,
        {"packetHash": True, "evidenceIndex": True},
        True,
    )


def test_tampered_packet_is_refused(bridge, repo, session):
    """One changed byte makes inspect refuse the packet and say it was changed after export."""
    answer = export(bridge, repo, session)
    path = Path(answer["path"])
    os.chmod(path, 0o644)
    path.write_bytes(path.read_bytes().replace(b'"unreviewed"', b'"approved!!"'))
    code, _, err = run_json(bridge, "handoff", "inspect", answer["packet"], cwd=repo)
    assert code == 1 and "changed after export" in err


def test_rewritten_packet_under_its_new_hash_is_refused(bridge, repo, session):
    """A packet re-serialised and renamed to its new hash is refused as not canonical."""
    answer = export(bridge, repo, session)
    pretty = json.dumps(json.loads(Path(answer["path"]).read_bytes()), indent=1).encode()
    hexid = hashlib.sha256(pretty).hexdigest()
    folder = Path(answer["path"]).parent
    (folder / f"{hexid}.json").write_bytes(pretty)
    (folder / f"{hexid}.evidence.json").write_bytes(Path(answer["evidenceIndex"]).read_bytes())
    code, _, err = run_json(bridge, "handoff", "inspect", hexid, cwd=repo)
    assert code == 1 and "canonical form" in err


def test_swapped_evidence_index_is_refused(bridge, repo, session):
    """An evidence index that is not the one the packet names is refused."""
    answer = export(bridge, repo, session)
    ev = Path(answer["evidenceIndex"])
    os.chmod(ev, 0o644)
    ev.write_bytes(canonical({"entries": []}))
    code, _, err = run_json(bridge, "handoff", "inspect", answer["packet"], cwd=repo)
    assert code == 1 and "evidence index does not match" in err


def test_malformed_packet_ids_are_refused(bridge, repo):
    """An id that is not hex, or matches no packet, is refused before any file is opened."""
    assert "is not a packet id" in bridge("handoff", "inspect", "../../etc/passwd", cwd=repo)[2]
    assert "no packet" in bridge("handoff", "inspect", "sha256:" + "0" * 64, cwd=repo)[2]


def claims(packet: dict) -> list[dict]:
    """Every claim object in a packet."""
    work, un = packet["completedWork"], packet["unresolved"]
    found = [
        packet["objective"],
        packet["nextAction"],
        *packet["constraints"],
        *work["filesChanged"],
        *work["validations"],
        *un["hypotheses"],
        *un["failedAttempts"],
        *un["blockers"],
        *un["pendingCommands"],
        *packet["latestMessages"],
        *packet["compactionSummaries"],
    ]
    return [c for c in found if c]


def test_every_claim_is_referenced_or_labelled_inference(bridge, repo, session):
    """Each claim has evidence references that resolve to exact pointers, or says it is an inference."""
    packet = stored(export(bridge, repo, session)["packet"])
    refs = {e["ref"]: e for e in packet["evidence"]}
    for claim in claims(packet):
        assert claim.get("refs") or claim.get("basis") == "inference", claim
        for ref in claim.get("refs") or []:
            assert {"line", "offset", "bytes"} <= set(refs[ref]["pointer"])
    assert packet["nextAction"]["basis"] == "inference"
    assert packet["unresolved"]["hypotheses"][0]["basis"] == "inference"


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


def test_test_results_are_historical_and_say_if_edits_followed(bridge, repo, session):
    """A test run followed by edits is superseded; none is ever presented as current."""
    work = stored(export(bridge, repo, session)["packet"])["completedWork"]
    runs = {v["command"]: (v["outcome"], v["freshness"]) for v in work["validations"]}
    assert runs == {
        "pytest -q tests/test_parser.py": ("failed", "superseded-by-later-edits"),
        "pytest -q": ("passed", "latest-in-transcript"),
    }
    assert all(v["note"].startswith("historical") for v in work["validations"])
    assert [(f["path"], f["gitNow"]) for f in work["filesChanged"]] == [
        (".env.local", "missing"),
        ("parser.py", "dirty"),
    ]


def test_pending_call_is_listed_and_never_taken_as_run(bridge, repo):
    """A tool call without a result is pending, and the next action is to decide about it, not to run it."""
    t = work_session(Transcript(), finish=False)
    t.assistant(tool_use("Bash", {"command": "git push --force"}, "toolu_push"))
    claude_session(t, repo)
    packet = stored(export(bridge, repo, t.session)["packet"])
    pending = packet["unresolved"]["pendingCommands"]
    assert [(p["tool"], p["input"]) for p in pending] == [("Bash", "git push --force")]
    assert packet["nextAction"]["text"].startswith("Decide whether the pending Bash call is still needed")


def test_budget_that_bites_is_a_gap(bridge, repo, session):
    """A tiny excerpt budget drops excerpts to their pointers and reports what it dropped."""
    packet = stored(export(bridge, repo, session, "--budget-tokens", "100")["packet"])
    budget = next(g for g in packet["coverage"]["gaps"] if g["kind"] == "budget")
    assert budget["dropped"]
    assert any(m.get("omitted") == "budget" for m in packet["latestMessages"])


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


def test_a_symlinked_packet_store_keeps_its_targets_permissions(bridge, repo, session, tmp_path):
    """Exporting into a packet store that is a symlink never changes the permissions of what it points to."""
    from autopilot import paths

    shared = tmp_path / "shared-store"
    shared.mkdir(mode=0o755)
    os.chmod(shared, 0o755)
    store_dir = paths.handoff_dir() / "packets"
    store_dir.parent.mkdir(parents=True, exist_ok=True)
    store_dir.symlink_to(shared)
    export(bridge, repo, session)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755
    assert len(list(shared.glob("*.json"))) == 2


def test_a_masked_test_run_that_ran_nothing_is_no_pass(bridge, repo):
    """`pytest … || true` that exited 0 but collected nothing is `no-tests` in the packet, never `passed`."""
    t = Transcript()
    t.user("Make the tests pass.")
    t.assistant(tool_use("Bash", {"command": "pytest -q tests/nothing || true"}, "toolu_masked"))
    t.result("toolu_masked", "no tests ran in 0.01s")
    session = claude_session(t, repo).stem
    work = stored(export(bridge, repo, session)["packet"])["completedWork"]
    assert [(v["command"], v["outcome"]) for v in work["validations"]] == [
        ("pytest -q tests/nothing || true", "no-tests")
    ]
