"""The evidence index: where it lives, its migrations, incremental updates, reindex, and corrupt files never trusted."""

from __future__ import annotations

import ast
import json
import os
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from autopilot.errors import BridgeError
from autopilot.handoff.packets import store
from autopilot.handoff.search import index
from autopilot.handoff.sources.project import Project
from tests.support.handoff_env import run_json
from tests.support.repo import PACKAGE
from tests.support.search_project import SESSIONS, export, headers_repo, install

HOOKS = PACKAGE / "hooks"
CHECKPOINT = {  # as the active-memory store would feed one (its project's ids are added by `checkpoint`)
    "kind": "checkpoint",
    "origin": "active:codex:thread-1:cp-1",
    "ref": "cp-1",
    "role": "checkpoint",
    "text": "Objective: make parse_header accept an empty line. Next: add a colon test.",
    "agent": "codex",
    "session": "thread-1",
    "time": "2026-11-30T10:00:00Z",
}


@pytest.fixture
def repo(bridge, git_repo):
    """The headers repo with Claude's fix session exported: (repo, packet id)."""
    repo = headers_repo(git_repo)
    return repo, export(bridge, "claude-fix", repo)


def checkpoint(repo: Path, **changes: str) -> dict:
    """CHECKPOINT recorded in ``repo``'s worktree (documents without a project are never found)."""
    project = Project(str(repo))
    return {**CHECKPOINT, "repoId": project.repo_id, "worktreeId": project.worktree_id, "branch": "main", **changes}


def search(bridge, repo, query="parse_header", *args):
    """The JSON answer of a search in ``repo``."""
    code, answer, err = run_json(bridge, "handoff", "search", query, "--json", *args, cwd=repo)
    assert code == 0, err
    return answer


def user_version(path: Path) -> int:
    """The schema version an index file records."""
    with closing(sqlite3.connect(path)) as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


def test_index_lives_under_autopilot_home_at_the_current_version(repo):
    """Export made $AUTOPILOT_HOME/handoff/index/evidence.sqlite3 at the latest schema version, outside the repo."""
    path = Path(os.environ["AUTOPILOT_HOME"]) / "handoff" / "index" / "evidence.sqlite3"
    assert index.index_path() == path and path.exists()
    assert user_version(path) == index.CURRENT_VERSION == len(index.MIGRATIONS)


def test_export_adds_its_packet_without_a_rebuild(bridge, repo):
    """A second export is added to the index in place: the generation stays, the packet count grows."""
    where, _ = repo
    before = index.generation()
    export(bridge, "claude-readme", where)
    answer = search(bridge, where, "README")
    assert index.generation() == before
    assert answer["index"]["packets"] == 2 and answer["results"]


def test_packet_stored_outside_export_is_caught_up(bridge, repo):
    """A packet written without export (copied in, or by an older version) is indexed before the next search."""
    where, pid = repo
    _, packet, evidence = store.load(pid)
    index.index_path().unlink()
    index.rebuild()
    with closing(sqlite3.connect(index.index_path())) as db, db:
        db.execute("DELETE FROM docs")
        db.execute("DELETE FROM origins")
        db.execute("UPDATE meta SET value = '0' WHERE key = 'packets_mtime'")
    assert search(bridge, where)["index"]["packets"] == 1


def test_reindex_rebuilds_from_packets_and_keeps_checkpoints(bridge, repo):
    """reindex builds a new file from the packets; checkpoint documents fed by their owner survive it."""
    where, _ = repo
    index.add_documents([checkpoint(where)])
    before = index.generation()
    code, built, err = run_json(bridge, "handoff", "reindex", "--json", cwd=where)
    assert code == 0, err
    assert (built["packets"], built["kept"], built["skipped"]) == (1, 1, 0)
    assert index.generation() != before
    kinds = {r["kind"] for r in search(bridge, where, "parse_header colon")["results"]}
    assert kinds == {"evidence", "checkpoint"}


def test_checkpoint_documents_are_searchable_with_their_kind(bridge, repo):
    """add_documents feeds a checkpoint; search shows it with kind checkpoint and its origin as the pointer."""
    where, _ = repo
    assert index.add_documents([checkpoint(where)]) == 1
    hits = [r for r in search(bridge, where, "colon test")["results"] if r["kind"] == "checkpoint"]
    assert [(h["pointer"]["origin"], h["pointer"]["packet"], h["agent"]) for h in hits] == [
        ("active:codex:thread-1:cp-1", None, "codex")
    ]


def test_documents_are_counted_by_their_own_kind(bridge, repo):
    """One session's origin holds observations and checkpoints: the answer counts each under its own kind."""
    where, _ = repo
    before = search(bridge, where)["index"]["documents"]
    observation = {**checkpoint(where), "kind": "observation", "role": "memory.request", "ref": "obs-1"}
    index.add_documents([observation, checkpoint(where), {**checkpoint(where), "ref": "cp-2"}])
    assert search(bridge, where)["index"]["documents"] == {**before, "observation": 1, "checkpoint": 2}


def test_adding_an_origin_again_replaces_its_documents(repo):
    """Documents are grouped by origin: feeding an origin again replaces what it had."""
    index.add_documents([CHECKPOINT, {**CHECKPOINT, "ref": "cp-2"}])
    index.add_documents([{**CHECKPOINT, "ref": "cp-3"}])
    with closing(sqlite3.connect(index.index_path())) as db:
        refs = [r[0] for r in db.execute("SELECT ref FROM docs WHERE origin = ?", (CHECKPOINT["origin"],))]
    assert refs == ["cp-3"]


def test_added_documents_are_redacted(bridge, repo):
    """A credential in a fed document never reaches the index."""
    token = "sk-proj-" + "Z9q" * 14
    index.add_documents([checkpoint(repo[0], text=f"parse_header uses key {token}")])
    assert token.encode() not in index.index_path().read_bytes()
    (hit,) = [r for r in search(bridge, repo[0])["results"] if r["kind"] == "checkpoint"]
    assert "[REDACTED:openai_api_key]" in hit["excerpt"]


@pytest.mark.parametrize(
    "doc",
    [
        {k: v for k, v in CHECKPOINT.items() if k != "origin"},
        {**CHECKPOINT, "text": ""},
        {**CHECKPOINT, "kind": "rumour"},
    ],
)
def test_add_documents_refuses_incomplete_documents(repo, doc):
    """A document without kind, origin, ref or text (or of an unknown kind) is refused, and nothing is added."""
    with pytest.raises(BridgeError, match="a search document needs kind"):
        index.add_documents([doc])


def test_remove_origin_drops_its_documents(repo):
    """remove_origin takes out every document of one origin."""
    index.add_documents([CHECKPOINT])
    assert index.remove_origin(CHECKPOINT["origin"]) == 1


def corrupt_and_search(bridge, where: Path, damage) -> tuple[dict, list[Path]]:
    """Damage the index file, search, and return the answer and the files moved aside."""
    path = index.index_path()
    damage(path)
    answer = search(bridge, where)
    return answer, sorted(path.parent.glob("evidence.sqlite3.corrupt-*"))


def test_garbage_index_is_moved_aside_and_rebuilt(bridge, repo):
    """An index that is not a database is kept aside as it was, rebuilt from the packets, and the answer says so."""
    where, _ = repo
    junk = b"this is not an SQLite database\n" * 100
    answer, aside = corrupt_and_search(bridge, where, lambda p: p.write_bytes(junk))
    assert [p.read_bytes() for p in aside] == [junk]
    assert answer["results"] and answer["index"]["packets"] == 1
    assert "the evidence index was corrupt" in answer["notes"][0] and aside[0].name in answer["notes"][0]


def test_truncated_index_is_never_trusted(bridge, repo):
    """An index cut short is moved aside and rebuilt; the answer is the one the whole index gave."""
    where, _ = repo
    full = search(bridge, where)

    def cut(path: Path) -> None:
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])

    answer, aside = corrupt_and_search(bridge, where, cut)
    assert len(aside) == 1 and "corrupt" in answer["notes"][0]
    assert [r["pointer"] for r in answer["results"]] == [r["pointer"] for r in full["results"]]


def test_index_from_a_newer_version_is_refused_untouched(bridge, repo):
    """An index whose schema is newer than this codex-bridge is refused with an upgrade hint and left as it is."""
    where, _ = repo
    path = index.index_path()
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA user_version = 99")
    data = path.read_bytes()
    code, out, err = bridge("handoff", "search", "parse_header", cwd=where)
    assert (code, out) == (1, "") and "written by a newer codex-autopilot (schema 99" in err and "upgrade" in err
    assert path.read_bytes() == data


def test_reindex_replaces_an_index_from_a_newer_version(bridge, repo):
    """The upgrade hint's other way out works: reindex builds this version's index."""
    where, _ = repo
    with closing(sqlite3.connect(index.index_path())) as db:
        db.execute("PRAGMA user_version = 99")
    assert bridge("handoff", "reindex", cwd=where)[0] == 0
    assert user_version(index.index_path()) == index.CURRENT_VERSION and search(bridge, where)["results"]


def test_index_at_version_1_is_migrated(bridge, repo, tmp_path):
    """An index made by the first migration only gains the source-check table on the next search."""
    where, _ = repo
    path = index.index_path()
    path.unlink()
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        index.m001_documents(db)
        db.execute("PRAGMA user_version = 1")
    assert search(bridge, where)["results"]
    with closing(sqlite3.connect(path)) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert user_version(path) == index.CURRENT_VERSION and "source_checks" in tables


def test_tampered_packet_is_not_indexed(bridge, repo):
    """A packet whose bytes no longer match its id is refused by reindex, named, and none of it is searchable."""
    where, pid = repo
    path = store.resolve(pid)
    os.chmod(path, 0o644)
    path.write_bytes(path.read_bytes().replace(b"parse_header", b"parse_HEADER"))
    code, built, err = run_json(bridge, "handoff", "reindex", "--json", cwd=where)
    assert (code, built["packets"], built["skipped"]) == (0, 0, 1)
    assert f"not indexed: packet {pid} is refused" in err
    assert search(bridge, where)["results"] == []


def test_export_still_succeeds_when_the_index_cannot_be_written(bridge, git_repo):
    """A broken index location never fails an export: the packet is stored, and the failure is said."""
    repo = headers_repo(git_repo)
    install("claude-fix", repo)
    blocker = index.index_dir()
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_text("a file where the index folder should be")
    code, out, err = bridge(
        "handoff", "export", "--from", "claude", "--session", SESSIONS["claude-fix"], "--to", "codex", cwd=repo,
    )  # fmt: skip
    assert code == 0 and store.resolve(json.loads(out)["packet"]).exists()
    assert "the evidence index was not updated" in err


def test_no_hook_imports_the_search_package():
    """Search is CLI-only: no hook module imports autopilot.handoff.search: no hook path loads sqlite3 or the index."""
    found = []
    for path in HOOKS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if any(n.startswith("autopilot.handoff.search") for n in names):
                found.append(path.name)
    assert found == []


def test_missing_index_is_built_from_the_packets_and_said(bridge, repo):
    """With no index file, the first search builds it from the packets and says so."""
    where, _ = repo
    index.index_path().unlink()
    answer = search(bridge, where)
    assert answer["notes"][0] == f"built the evidence index from 1 packet(s) ({index.index_path()})"
    assert answer["results"]


def test_an_index_written_before_redaction_of_symbols_is_redacted_on_upgrade(bridge, repo):
    """Migration 3 redacts what an older index holds: a token in a document's text, paths and symbols goes."""
    where, _ = repo
    token = "ghp_" + "Ab1Cd2Ef3Gh4" * 3
    with closing(sqlite3.connect(index.index_path(), isolation_level=None)) as db:
        db.execute(
            "INSERT INTO docs (kind, origin, ref, role, text, paths, symbols, data) VALUES "
            "('observation', 'o:1', 'r', 'tool', ?, ?, ?, '{}')",
            (f"ran with {token}", f"notes/{token}.txt", token),
        )
        db.execute("PRAGMA user_version = 2")
    search(bridge, where)
    assert token.encode() not in index.index_path().read_bytes()


def test_a_directory_where_the_index_should_be_exits_1_naming_it(bridge, repo):
    """A directory at the index's path is a clear error with the path (exit 1), not a crash (70); nothing in it goes."""
    where, _ = repo
    path = index.index_path()
    path.unlink()
    path.mkdir()
    (path / "keep.txt").write_text("mine")
    code, out, err = bridge("handoff", "search", "parser", "--json", cwd=where)
    assert (code, out) == (1, "") and str(path) in err and "is a directory" in err
    assert (path / "keep.txt").read_text() == "mine"


# --- Migration 4: an index of raw words becomes an index of terms, the documents it holds kept.
def test_an_index_of_words_is_upgraded_to_terms_and_found_by_a_paraphrase(tmp_path):
    """A schema-3 index's documents get their terms (stems, identifier words, error vocabulary) and stay findable."""
    path = tmp_path / "evidence.sqlite3"
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        for step in index.MIGRATIONS[:3]:
            step(db)
        db.execute("PRAGMA user_version = 3")
        db.execute(
            "INSERT INTO docs (kind, origin, ref, role, text, paths, symbols, data) VALUES "
            "('observation', 'o:1', 'r', 'memory.run', ?, 'src/tax_rules.py', 'average_amount', ?)",
            ("pytest -q\nE   ZeroDivisionError: division by zero", '{"worktree": "/w/ledger"}'),
        )
        assert index.migrate(db) is True
        (terms, pterms, sterms) = db.execute("SELECT terms, pterms, sterms FROM docs").fetchone()
        assert {"zerodivisionerror", "divid", "zero"} <= set(terms.split())
        assert pterms.split() == ["src", "tax_rules", "tax", "rule", "py"] and sterms.split()[0] == "average_amount"
        for match in ('"divid" AND "zero"', '"tax" AND "rule"', '"averag"'):
            assert db.execute("SELECT rowid FROM docs_fts WHERE docs_fts MATCH ?", (match,)).fetchall() == [(1,)]
        assert int(db.execute("PRAGMA user_version").fetchone()[0]) == index.CURRENT_VERSION


def test_the_worktrees_own_path_is_not_searched(tmp_path):
    """Every document names its worktree; the words of that path find none of them."""
    text, _, _ = index._terms("Edit /tmp/test_near_alone/repo/headers.py", "", "", "/tmp/test_near_alone/repo")
    assert "near" not in text.split() and "header" in text.split()


def test_the_active_memorys_edits_and_runs_are_linked_like_a_packets():
    """An attempt is tested-by the run after it; a failed run is fixed-by the edits after it, which say so."""
    docs = [
        {"ref": "e1", "role": "memory.edit"},
        {"ref": "r1", "role": "memory.run", "outcome": {"status": "failed"}},
        {"ref": "m1", "role": "memory.request"},
        {"ref": "e2", "role": "memory.edit"},
        {"ref": "r2", "role": "memory.run", "outcome": {"status": "passed"}},
    ]
    index.link_memory(docs)
    links = {d["ref"]: [(link["rel"], link["ref"]) for link in d["links"]] for d in docs}
    assert links == {
        "e1": [("tested-by", "r1")],
        "r1": [("tests", "e1"), ("fixed-by", "e2")],
        "m1": [],
        "e2": [("tested-by", "r2"), ("fixes", "r1")],
        "r2": [("tests", "e2")],
    }


def test_a_memory_runs_subject_is_its_command():
    """A recorded run's subject is its command, spaced as a packet's is, so a later run of it can overturn it."""
    docs = [{"ref": "r1", "role": "memory.run", "text": "pytest  -q tests\n1 failed", "outcome": {"status": "failed"}}]
    index.link_memory(docs)
    assert docs[0]["subject"] == ["command:pytest -q tests"]


# --- Migration 5: a session's documents are found by session and time, not by reading every document.
def test_an_index_at_version_4_gains_the_session_index_the_request_search_uses(tmp_path):
    """The migration adds the index, keeps the documents, and the query for a request's work reads through it."""
    path = tmp_path / "evidence.sqlite3"
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        for step in index.MIGRATIONS[:4]:
            step(db)
        db.execute("PRAGMA user_version = 4")
        db.execute(
            "INSERT INTO docs (kind, origin, ref, role, session, ts, text, paths, symbols, data) VALUES "
            "('observation', 'o:1', 'r', 'memory.edit', 's-1', 5.0, 'Edit a.py', '', '', '{}')"
        )
        assert index.migrate(db) is True
        plan = " ".join(
            str(row[-1])
            for row in db.execute(
                "EXPLAIN QUERY PLAN SELECT id FROM docs WHERE session = ? AND ts >= ? AND ts < ?", ("s-1", 0, 9)
            )
        )
        assert "docs_session" in plan and db.execute("SELECT count(*) FROM docs").fetchone() == (1,)
        turns = " ".join(
            str(row[-1])
            for row in db.execute(
                "EXPLAIN QUERY PLAN SELECT min(ts) FROM docs WHERE session = ? AND ts > ? AND role = ?",
                ("s-1", 0, index.REQUEST),
            )
        )
        assert "docs_requests" in turns  # a session's requests, without reading its other documents
        assert int(db.execute("PRAGMA user_version").fetchone()[0]) == index.CURRENT_VERSION


# --- Migration 6: a packet's turn and the index's counts are read through indexes, not by scanning.
def test_an_index_at_version_5_gains_the_lookups_a_search_reads_through(tmp_path):
    """The migration keeps the documents; a packet's documents in time order and the counts by kind are then read
    through an index (before: every row of the packet whole, and every origin row, on every search)."""
    path = tmp_path / "evidence.sqlite3"
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        for step in index.MIGRATIONS[:5]:
            step(db)
        db.execute("PRAGMA user_version = 5")
        db.execute(
            "INSERT INTO docs (kind, origin, ref, role, session, ts, text, paths, symbols, data) VALUES "
            "('evidence', 'sha256:p', 'E1', 'edit', 's-1', 5.0, 'Edit a.py', '', '', '{}')"
        )
        db.execute("INSERT INTO origins (origin, kind, docs) VALUES ('sha256:p', 'evidence', 1)")
        assert index.migrate(db) is True

        def plan(sql: str, *params: object) -> str:
            return " ".join(str(row[-1]) for row in db.execute(f"EXPLAIN QUERY PLAN {sql}", params))

        turn = plan(
            "SELECT id FROM docs d INDEXED BY docs_origin_ts WHERE d.origin = ? AND d.ts >= ? ORDER BY d.ts LIMIT 30",
            "sha256:p",
            0,
        )
        assert "docs_origin_ts" in turn and "TEMP B-TREE" not in turn  # in time order as stored: no sort
        assert "COVERING INDEX origins_kind" in plan("SELECT count(*), sum(docs) FROM origins WHERE kind = 'evidence'")
        stats = index.stats(db)
        assert (stats["documents"], stats["packets"], stats["schemaVersion"]) == ({"evidence": 1}, 1, 6)
        assert db.execute("SELECT count(*) FROM docs").fetchone() == (1,)
