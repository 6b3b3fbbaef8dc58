"""Approaches given up (issue 37): a packet cites the assistant's words abandoning an attempt after a failed run,
and search links them to that run, so "which approach failed" finds the words and the run together."""

from __future__ import annotations

import json

from tests.support.claude_rows import Transcript, text, tool_use
from tests.support.handoff_env import claude_session, run_json

GIVE_UP = "lru_cache is a dead end here: entries is a list. Reverting that and computing the totals once instead."


def session(repo) -> Transcript:
    """A Claude session that tries a cache, sees the tests fail, gives it up and fixes it another way."""
    t = Transcript()
    t.user("The yearly report is slow. Speed up render_report.")
    t.assistant(tool_use("Edit", {"file_path": f"{repo}/monthly.py", "old_string": "a", "new_string": "b"}, "t_e1"))
    t.result("t_e1", "The file has been updated successfully.")
    t.assistant(tool_use("Bash", {"command": "pytest -q tests/test_monthly.py"}, "t_r1"))
    t.result("t_r1", "Exit code 1\nE   TypeError: unhashable type: 'list'\n1 failed in 0.30s", is_error=True)
    t.assistant(text(GIVE_UP))
    t.assistant(tool_use("Edit", {"file_path": f"{repo}/monthly.py", "old_string": "b", "new_string": "c"}, "t_e2"))
    t.result("t_e2", "The file has been updated successfully.")
    t.assistant(tool_use("Bash", {"command": "pytest -q tests/test_monthly.py"}, "t_r2"))
    t.result("t_r2", "3 passed in 0.28s")
    t.assistant(text("The report computes the totals once now."))
    return t


def test_the_words_giving_an_approach_up_are_cited_with_the_run_they_followed(bridge, git_repo):
    """The packet's abandoned approaches quote the message and cite the failed run before it."""
    t = session(git_repo)
    claude_session(t, git_repo)
    code, out, err = bridge(
        "handoff", "export", "--from", "claude", "--session", t.session, "--to", "codex", "--preview", cwd=git_repo
    )
    assert code == 0, err
    packet = json.loads(out)["contents"]
    (gave_up,) = packet["unresolved"]["abandonedApproaches"]
    assert gave_up["text"] == GIVE_UP and gave_up["refs"] and gave_up["after"]
    failed = next(e for e in packet["evidence"] if e["ref"] == gave_up["after"][0])
    assert failed["kind"] == "tool"


def test_which_approach_failed_finds_the_words_and_the_failed_run(bridge, git_repo):
    """ "why did we drop lru_cache" finds the message giving it up and, through its link, the failed run it followed:
    the first two results."""
    t = session(git_repo)
    claude_session(t, git_repo)
    args = ("--from", "claude", "--session", t.session, "--to", "codex")
    code, _, err = bridge("handoff", "export", *args, cwd=git_repo)
    assert code == 0, err
    code, answer, err = run_json(bridge, "handoff", "search", "why did we drop lru_cache", "--json", cwd=git_repo)
    assert code == 0, err
    words, run = sorted(answer["results"][:2], key=lambda r: r["role"] != "approach")
    assert (words["role"], words["excerpt"], words["links"][0]["rel"]) == ("approach", GIVE_UP, "gave-up-after")
    assert run["role"] == "test" and run["outcome"]["status"] == "failed" and "unhashable" in run["excerpt"]
    assert run["via"]["rel"] == "gave-up-after" and "approach" in answer["intent"]
