"""Migration 4: an index of raw words becomes an index of terms, the documents it holds kept."""

from __future__ import annotations

import sqlite3
from contextlib import closing

from autopilot.handoff.search import index


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
