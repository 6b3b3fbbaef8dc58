"""Retrieval quality: the labelled benchmark (tests/fixtures/retrieval/) with its thresholds, against grep and bm25.

One run per module (tests.support.retrieval_bench: 56 sessions installed, recovered and exported, 209
queries answered by the engine, plain FTS5 bm25 over the same documents, and ``grep -r -i -F`` over the
raw transcripts). The figures are printed (``-s``) and are in docs/BENCHMARKS.md; each test asserts
one threshold, so a change that lowers a figure fails. Every goal the issue set is met and asserted
(exact error, path and symbol recall@5 at least 0.95, no-answer precision at least 0.95, overall
recall@5 at least 20 points above grep's).
"""

from __future__ import annotations

import json
import shutil
from collections import Counter

import pytest

from tests.fixtures import make_retrieval_corpus as corpus
from tests.support import retrieval_bench as bench
from tests.support.bridge import run_bridge

pytestmark = pytest.mark.slow  # one benchmark run of ~2 minutes feeds every test here


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """The benchmark run once in homes of its own: (installed, scored answers, figures per method and kind)."""
    root = tmp_path_factory.mktemp("retrieval")
    with pytest.MonkeyPatch.context() as mp:
        for var, sub in (("AUTOPILOT_HOME", "autopilot"), ("CODEX_HOME", "codex"), ("CLAUDE_CONFIG_DIR", "claude")):
            (root / sub).mkdir()
            mp.setenv(var, str(root / sub))
        (root / "home").mkdir()
        mp.setenv("HOME", str(root / "home"))
        work = bench.work_root()
        try:
            installed, scored = bench.run(work, run_bridge)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    figures = bench.summary(scored)
    print("\n" + bench.table(figures))
    return installed, scored, figures


def engine(figures, kind):
    """The engine's figures for one kind of query."""
    return figures["engine"][kind]


def test_corpus_is_56_sessions_of_both_agents_in_two_worktrees(measured):
    """At least 50 sessions, at least 20 of each agent, in both worktrees, all installed and exported."""
    installed, _, _ = measured
    sessions = installed.manifest["sessions"]
    agents = Counter(s["agent"] for s in sessions)
    assert len(sessions) >= 50 and agents["claude"] >= 20 and agents["codex"] >= 20
    assert {s["worktree"] for s in sessions} == {"main", "fx"}
    assert installed.exported == installed.recovered == len(sessions)


def test_queries_cover_every_kind_with_200_in_all():
    """At least 200 queries, every kind at least 12 of them, every label one the stories have."""
    queries = bench.load_queries()["queries"]
    kinds = Counter(q["kind"] for q in queries)
    assert len(queries) >= 200 and set(kinds) == set(bench.KINDS) and min(kinds.values()) >= 12
    assert len({q["query"] for q in queries}) == len(queries)


def test_corpus_is_generated_byte_for_byte_the_same(tmp_path):
    """Two generations give the same files, and the digest the queries were labelled against."""
    first, second = corpus.build(tmp_path / "a"), corpus.build(tmp_path / "b")
    assert first["corpusSha256"] == second["corpusSha256"] == bench.load_queries()["corpusSha256"]


def test_generated_rows_have_the_shapes_the_real_clients_write(tmp_path):
    """Every row's keys are those of a row of the same type the pinned claude and codex wrote."""
    manifest = corpus.build(tmp_path)
    for agent in ("claude", "codex"):
        real = {_shape(json.loads(line)) for line in corpus.TEMPLATES[agent].read_text().splitlines()}
        for session in (s for s in manifest["sessions"] if s["agent"] == agent):
            rows = (tmp_path / session["file"]).read_text().splitlines()
            assert {_shape(json.loads(r)) for r in rows} <= real, session["file"]


def _shape(row):
    """A row's type and its keys (and its payload's, for Codex)."""
    payload = row.get("payload") if isinstance(row.get("payload"), dict) else {}
    return (row.get("type"), payload.get("type"), tuple(sorted(row)), tuple(sorted(payload)))


def test_rule_labels_follow_from_the_stories():
    """The exact-error, path and symbol labels are exactly what their stated rule finds in the stories."""
    for q in bench.load_queries()["queries"]:
        if q["kind"] in ("exact-error", "path", "symbol"):
            assert q["relevant"] == bench.derived(q["kind"], q["query"]), q["id"]


def test_exact_error_text_is_found(measured):
    """Recall@5 on pasted error text stays 1.00 (issue 37: the kinds at 1.00 stay there)."""
    assert engine(measured[2], "exact-error")["recall@5"] == 1.0


def test_a_path_finds_the_edits_of_that_file(measured):
    """Recall@5 on path queries is at least 0.95 (goal 0.95)."""
    assert engine(measured[2], "path")["recall@5"] >= 0.95


def test_a_symbol_finds_its_changes_and_failures(measured):
    """Recall@5 on symbol queries is at least 0.98 (goal 0.95)."""
    assert engine(measured[2], "symbol")["recall@5"] >= 0.98


def test_what_fixed_finds_the_fixing_edit(measured):
    """Recall@5 on "what fixed X" queries is at least 0.92 (issue 37's goal 0.90; bm25: 0.21)."""
    assert engine(measured[2], "what-fixed")["recall@5"] >= 0.92


def test_a_paraphrase_of_an_error_finds_its_failing_run(measured):
    """Recall@5 on error paraphrases is at least 0.93 (issue 37's goal 0.80; 0.17 before stems and the vocabulary)."""
    assert engine(measured[2], "error-paraphrase")["recall@5"] >= 0.93


def test_the_users_own_words_find_the_failure_and_its_fix(measured):
    """Recall@5 on the code named in plain words ("rate badge") is at least 0.90, issue 37's goal (0.74 before a
    request brought in the work done in answer to it, 0.81 before that work ranked above what was said about it)."""
    assert engine(measured[2], "user-words")["recall@5"] >= 0.90


def test_a_failure_recalled_in_a_persons_words_finds_the_failing_run(measured):
    """Recall@5 on failures recalled without the error's class name is at least 0.90 (issue 37's goal 0.80)."""
    assert engine(measured[2], "failure-paraphrase")["recall@5"] >= 0.90


def test_a_conflicting_outcome_shows_both_runs(measured):
    """Recall@5 on "is X passing" queries, whose answer is the pass and the later failure, is at least 0.95 (issue
    37's goal 0.90; 0.83 before "does the fix hold" asked for the outcome and a turn's work outranked its words)."""
    assert engine(measured[2], "conflict")["recall@5"] >= 0.95


def test_which_approach_failed_finds_the_attempt_its_failure_and_the_giving_up(measured):
    """Recall@5 on "which approach failed" is at least 0.83 (issue 37's goal 0.80; 0.44 while the packets' and the
    active memory's records of one session were not bridged)."""
    assert engine(measured[2], "approach-failed")["recall@5"] >= 0.83


def test_overall_recall_beats_grep_by_35_points(measured):
    """Over every query with an answer, recall@5 is at least grep's + 0.35 (goal + 0.20) and above bm25's."""
    figures = measured[2]
    assert figures["engine"]["all"]["recall@5"] >= figures["grep"]["all"]["recall@5"] + 0.35
    assert figures["engine"]["all"]["recall@5"] > figures["bm25"]["all"]["recall@5"]


def test_no_answer_is_mostly_nothing(measured):
    """At least 0.95 of the queries nothing answers get no result at all (goal 0.95)."""
    assert engine(measured[2], "no-answer")["precision"] >= 0.95


def test_answers_name_the_words_no_document_holds(measured):
    """Every engine answer lists its unmatched words, and a query with an unknown word names it."""
    _, scored, _ = measured
    mine = [s for s in scored if s.method == "engine"]
    assert all(isinstance(s.extra["unmatched"], list) for s in mine)
    (zqxjv,) = [s for s in mine if s.query["query"] == "zqxjv-nothing-like-this"]
    assert zqxjv.empty and "zqxjv" in zqxjv.extra["unmatched"]


def test_figures_are_the_same_on_a_second_run(measured, tmp_path):
    """The whole benchmark is deterministic: a second install answers every query the same."""
    _, scored, _ = measured
    with pytest.MonkeyPatch.context() as mp:
        for var in ("AUTOPILOT_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "HOME"):
            (tmp_path / var).mkdir()
            mp.setenv(var, str(tmp_path / var))
        work = bench.work_root()
        try:
            _, again = bench.run(work, run_bridge)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    assert [(s.method, s.query["id"], s.found) for s in again] == [(s.method, s.query["id"], s.found) for s in scored]
