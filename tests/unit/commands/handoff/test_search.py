"""Bad search input gets a clear answer (an error with a hint, or results with a note), never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.handoff_env import run_json
from tests.support.repo import SRC
from tests.support.search_project import export, headers_repo


@pytest.fixture
def repo(bridge, git_repo):
    """The headers repo with Claude's fix session exported (so the index has evidence)."""
    repo = headers_repo(git_repo)
    export(bridge, "claude-fix", repo)
    return repo


def clean(err: str) -> bool:
    """Whether stderr is a one-line codex-bridge error, not a traceback or an SQL message."""
    return err.startswith("codex-bridge: error: ") and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("", "the search query is empty"),
        ("   \t ", "the search query is empty"),
        ('"', "it is only punctuation or search syntax"),
        ("*", "it is only punctuation or search syntax"),
        ('"*" -- ( ) :', "it is only punctuation or search syntax"),
        ("x" * 100_000, "its only words are longer than 64 characters"),
    ],
)
def test_query_without_words_is_refused_with_a_hint(bridge, repo, query, says):
    """Exit 1, one clear line with a hint, nothing on stdout."""
    code, out, err = bridge("handoff", "search", query, cwd=repo)
    assert (code, out) == (1, "")
    assert clean(err) and says in err and 'codex-bridge handoff search "parse_header"' in err


@pytest.mark.parametrize("query", ["NEAR(", "parse_header NEAR(", "AND OR NOT", 'parse_header" OR "*', "col:umn^2"])
def test_fts_syntax_is_only_text(bridge, repo, query):
    """FTS5 operators in a query are searched as plain words: an answer, never an SQL error."""
    code, answer, err = run_json(bridge, "handoff", "search", query, "--json", cwd=repo)
    assert code == 0, err
    assert answer["results"] or answer["notes"]


def test_near_alone_finds_nothing_and_says_so(bridge, repo):
    """`NEAR(` is the word "near", which no evidence holds: an empty result naming the word."""
    code, answer, _ = run_json(bridge, "handoff", "search", "NEAR(", "--json", cwd=repo)
    assert (code, answer["results"], answer["unmatched"], answer["notes"]) == (
        0,
        [],
        ["near"],
        ["no indexed document holds 'near'", "no document can hold half of the query: none holds any of its words"],
    )


def test_sql_in_a_query_is_text_and_harms_nothing(bridge, repo):
    """A query shaped like SQL is searched as words, and the index answers the same afterwards."""
    before = run_json(bridge, "handoff", "search", "parse_header", "--json", cwd=repo)[1]
    code, _, err = run_json(bridge, "handoff", "search", "'); DROP TABLE docs; --", "--json", cwd=repo)
    assert code == 0, err
    after = run_json(bridge, "handoff", "search", "parse_header", "--json", cwd=repo)[1]
    assert [r["pointer"] for r in after["results"]] == [r["pointer"] for r in before["results"]]


def test_a_pasted_100kb_log_is_searched_by_its_first_words(bridge, repo):
    """A 100 KB query (a pasted test log) is answered, searching its first 24 words, and says so."""
    log = "E   ValueError: not enough values to unpack (expected 2, got 1)\n" + "".join(
        f"line {n}: collected item test_case_{n} and more words\n" for n in range(2500)
    )
    assert len(log) > 100_000
    code, answer, err = run_json(bridge, "handoff", "search", log, "--json", cwd=repo)
    assert code == 0, err
    assert answer["notes"][0].startswith("the query has ") and "the first 24 are searched" in answer["notes"][0]
    assert len(answer["query"]) == 200 and len(answer["words"]) == 24


def run_bytes(repo: Path, query: bytes) -> subprocess.CompletedProcess[bytes]:
    """codex-bridge handoff search with a raw byte string as its argument, in a real process."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run(
        [sys.executable, "-m", "autopilot", "handoff", "search", query, "--json"],
        cwd=repo,
        env=env,
        capture_output=True,
    )


def test_non_utf8_bytes_are_left_out_with_a_note(repo):
    """Bytes that are not UTF-8 in the query are dropped; the rest is searched and the answer says so."""
    proc = run_bytes(repo, b"parse_header \xff\xfe")
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["notes"] == ["the query held 2 byte(s) that are not UTF-8; they were left out"]
    assert answer["words"] == ["parse_header"] and answer["results"]


def test_only_non_utf8_bytes_is_refused(repo):
    """A query of nothing but non-UTF-8 bytes gets exit 1 and a hint, not a traceback."""
    proc = run_bytes(repo, b"\xff\xfe\xfd")
    assert (proc.returncode, proc.stdout) == (1, b"")
    assert clean(proc.stderr.decode()) and "not UTF-8 text" in proc.stderr.decode()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--since", "yesterday"], "--since 'yesterday' is not a date"),
        (["--limit", "0"], "--limit 0 is out of range"),
        (["--limit", "100000"], "--limit 100000 is out of range"),
    ],
)
def test_bad_options_are_refused_with_a_hint(bridge, repo, args, says):
    """A --since that is not a date or a --limit out of range: exit 1, one line saying what to give."""
    code, out, err = bridge("handoff", "search", "parse_header", *args, cwd=repo)
    assert (code, out) == (1, "") and clean(err) and says in err


def test_search_outside_a_repository_is_refused(bridge, tmp_path):
    """Search belongs to a project: outside a git repository it says so."""
    code, _, err = bridge("handoff", "search", "parse_header", cwd=tmp_path)
    assert code == 1 and clean(err) and "is not inside a git repository" in err


# The command lines cli.py's fast path reads itself (argparse is ~12 ms of a search) and those it leaves to argparse.
QUICK = [
    ["parse_header"],
    ["parse_header", "--json"],
    ["--json", "parse_header"],
    ["parse_header", "--limit", "5"],
    ["--limit=5", "parse_header"],
    ["parse_header", "--limit", " 7 "],
    ["parse_header", "--worktree", "all", "--since", "2026-11-30", "--agent", "codex", "--cwd", "/tmp"],
    ["parse_header", "--worktree=this", "--since=", "--agent=claude"],
    ["parse_header", "--since=-1"],
    ["parse_header", "--json", "--json", "--limit", "1", "--limit", "2"],
    ["--", "-x"],
    ["--json", "--", "--json"],
    ["parse_header", "--"],
    ["parse_header", "--task", "T2"],
    ["parse_header", "--archived", "--json"],
    [""],
]
ARGPARSE = [
    [],
    ["--help"],
    ["-h"],
    ["parse_header", "--help"],
    ["parse_header", "--lim", "5"],
    ["parse_header", "--js"],
    ["parse_header", "--limit", "x"],
    ["parse_header", "--limit", "-5"],
    ["parse_header", "--limit"],
    ["parse_header", "--since", "--json"],
    ["parse_header", "--json=1"],
    ["parse_header", "--worktree", "other"],
    ["parse_header", "--agent", "gpt"],
    ["parse_header", "second"],
    ["-x"],
    ["-x y"],
    ["--", "a", "--"],
    ["parse_header", "-C", "/tmp"],
]


def argparse_reading(argv: list[str]) -> dict | None:
    """What argparse makes of ``handoff search ARGV`` (None: it refuses or prints help)."""
    import contextlib
    import io

    from autopilot import cli

    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            args = cli._parser("handoff").parse_args(["handoff", "search", *argv])
    except SystemExit:
        return None
    keys = ("query", "json", "limit", "worktree", "since", "agent", "task", "archived", "project_dir")
    return {k: getattr(args, k) for k in keys}


@pytest.mark.parametrize("argv", QUICK + ARGPARSE)
def test_the_fast_command_line_reads_as_argparse_does(argv):
    """`handoff search` without argparse reads the usual command lines exactly as argparse does and leaves the rest
    (help, abbreviations, bad values, a query starting with "-") to argparse."""
    from autopilot.commands.handoff.search import quick_args

    expected = argparse_reading(argv)
    assert quick_args(argv) == (expected if argv in QUICK else None)
    assert argv not in QUICK or expected is not None


def test_help_and_bad_choices_are_still_argparse_s(bridge, repo):
    """`handoff search --help` prints the usage, a bad --worktree is a usage error (exit 2), as before."""
    code, out, _ = bridge("handoff", "search", "--help", cwd=repo)
    assert code == 0 and out.startswith("usage: codex-bridge handoff search") and "--worktree {this,all}" in out
    code, out, err = bridge("handoff", "search", "parse_header", "--worktree", "other", cwd=repo)
    assert (code, out) == (2, "") and "argument --worktree: invalid choice: 'other'" in err


def plant(repo: Path, *texts: str) -> None:
    """Index observation documents of ``repo``'s project, one per text."""
    from autopilot.handoff.search import index
    from autopilot.handoff.sources.project import Project

    project = Project(str(repo))
    ids = {"repoId": project.repo_id, "worktreeId": project.worktree_id}
    index.add_documents(
        [{"kind": "observation", "origin": "planted", "ref": str(n), "text": t, **ids} for n, t in enumerate(texts)]
    )


# A session's ordinary talk: "like" and "nothing" are common words in it, as in anyone's.
CHATTER = [
    f"turn {n}: it looks like the {topic} is fine, nothing to change in {topic} for now"
    for n, topic in enumerate(["parser", "importer", "report", "README", "CI", "cache", "config", "docs"] * 4)
]


def test_a_query_of_unknown_words_finds_nothing_and_says_so(bridge, repo):
    """`zqxjv-nothing-like-this` finds nothing, though a document holds "nothing like this": zqxjv is named."""
    plant(repo, "compaction summary: nothing like this was tried before", *CHATTER)
    known = run_json(bridge, "handoff", "search", "nothing like this", "--json", cwd=repo)[1]
    assert known["results"][0]["excerpt"] == "compaction summary: nothing like this was tried before"
    code, answer, _ = run_json(bridge, "handoff", "search", "zqxjv-nothing-like-this", "--json", cwd=repo)
    assert (code, answer["results"], answer["unmatched"]) == (0, [], ["zqxjv"])
    assert "no indexed document holds 'zqxjv'" in answer["notes"]


def test_stopwords_alone_find_nothing(bridge, repo):
    """A query of only common words (the, of, what, is) finds nothing and says why, though documents hold them."""
    plant(repo, "what is the state of the art of this")
    code, answer, _ = run_json(bridge, "handoff", "search", "what is the of this", "--json", cwd=repo)
    assert (code, answer["results"], answer["searched"]) == (0, [], [])
    assert answer["notes"][0].startswith("the query has only common words (what, is, the, of, this)")


def test_stopwords_never_bring_in_a_result(bridge, repo):
    """With a word no document holds, the stopwords a document shares with the query do not bring it in."""
    plant(repo, "what is the state of the art of this")
    code, answer, _ = run_json(bridge, "handoff", "search", "what is the quokka of this", "--json", cwd=repo)
    assert (code, answer["results"], answer["unmatched"]) == (0, [], ["quokka"])


def test_stopwords_do_not_change_what_a_query_finds(bridge, repo):
    """`what is parse_header` ranks exactly what `parse_header` does."""
    plain = run_json(bridge, "handoff", "search", "parse_header", "--json", cwd=repo)[1]
    asked = run_json(bridge, "handoff", "search", "what is parse_header", "--json", cwd=repo)[1]
    assert plain["results"] and [r["pointer"] for r in asked["results"]] == [r["pointer"] for r in plain["results"]]


def test_quoted_values_a_line_relates_must_be_related_as_written(bridge, repo):
    """`assert 'EUR' == 'USD'` finds the failure comparing them, not one that holds EUR and USD otherwise."""
    plant(repo, "AssertionError: assert convert(amount, 'EUR', 'USD') == Decimal('108.42')", *CHATTER)
    query = "AssertionError: assert 'EUR' == 'USD'"
    code, answer, _ = run_json(bridge, "handoff", "search", query, "--json", cwd=repo)
    assert (code, answer["results"]) == (0, [])
    plant(repo, 'E       AssertionError: assert "EUR" == "USD"', *CHATTER)
    answer = run_json(bridge, "handoff", "search", query, "--json", cwd=repo)[1]
    assert [r["excerpt"] for r in answer["results"]] == ['E       AssertionError: assert "EUR" == "USD"']


def test_a_number_no_document_holds_weighs_more_than_a_word(bridge, repo):
    """`rate limit 429` finds nothing where `rate limit throttled` finds the rate limit: a number names one thing."""
    plant(repo, "the client retries when the server's rate limit is reached", *CHATTER)
    worded = run_json(bridge, "handoff", "search", "rate limit throttled", "--json", cwd=repo)[1]
    assert [r["excerpt"] for r in worded["results"]] == ["the client retries when the server's rate limit is reached"]
    code, answer, _ = run_json(bridge, "handoff", "search", "rate limit 429", "--json", cwd=repo)
    assert (code, answer["results"], answer["unmatched"]) == (0, [], ["429"])


def test_a_result_holding_the_pasted_line_ranks_first(bridge, repo):
    """`assert 1 == 2` ranks the failure that shows that line above results that hold its words apart."""
    apart = [f"assert total({n}) == 1 and count == 2; assert again: 1, 2, assert" for n in range(6)]
    plant(repo, "E       assert 1 == 2", *apart, *CHATTER)
    answer = run_json(bridge, "handoff", "search", "assert 1 == 2", "--json", cwd=repo)[1]
    assert answer["results"][0]["excerpt"] == "E       assert 1 == 2" and answer["results"][0]["score"]["verbatim"] > 0
