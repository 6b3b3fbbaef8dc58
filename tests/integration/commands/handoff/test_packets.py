"""`handoff list | export` on sessions written elsewhere: every id the listing prints is accepted, and only those."""

from __future__ import annotations

import json

import pytest

from tests.support.claude_rows import Transcript
from tests.support.handoff_env import claude_session, edited_parser_repo, work_session


def test_a_short_session_id_the_listing_prints_exports(bridge, git_repo):
    """Another project's fixtures name their sessions `s1`: `handoff list` prints it and `export --session s1`
    takes it."""
    repo = edited_parser_repo(git_repo)
    claude_session(work_session(Transcript("s1")), repo)
    code, out, err = bridge("handoff", "list", "--from", "claude", cwd=repo)
    assert code == 0 and [row["sessionId"] for row in json.loads(out)["sessions"]] == ["s1"], err
    code, _, err = bridge("handoff", "export", "--from", "claude", "--session", "s1", "--to", "codex", cwd=repo)
    assert code == 0 and "wrote sha256:" in err


def test_a_transcript_no_id_could_name_is_not_listed_but_said(bridge, git_repo):
    """A transcript named `notes v2.jsonl` is no session id: not listed (export could not name it), and the
    listing's coverage says which file it left out."""
    repo = edited_parser_repo(git_repo)
    path = claude_session(work_session(Transcript("notes v2")), repo)
    code, out, _ = bridge("handoff", "list", "--from", "claude", cwd=repo)
    listing = json.loads(out)
    assert code == 0 and listing["sessions"] == []
    gap = next(g for g in listing["coverage"]["gaps"] if g["kind"] == "unnamed")
    assert gap["paths"] == [str(path)]


@pytest.mark.parametrize("bad", ["s*", "../s1", "-s1", "s1/x", ""])
def test_what_the_listing_never_prints_is_refused(bridge, git_repo, bad):
    """A pattern, a path, an option-looking or an empty id is refused before anything is read."""
    claude_session(work_session(Transcript("s1")), git_repo)
    code, out, err = bridge(
        "handoff", "export", "--from", "claude", "--session", bad, "--to", "codex", cwd=git_repo
    )  # fmt: skip
    assert code in (1, 2) and out == "" and ("is not a session id" in err or "expected one argument" in err)
