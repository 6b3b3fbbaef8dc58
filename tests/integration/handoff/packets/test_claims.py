"""A packet's claims: each backed by evidence or labelled inference; test results historical; pending calls pending."""

from __future__ import annotations

import json

import pytest

from tests.integration.handoff.packets.test_store import export, stored
from tests.support.claude_rows import Transcript, text, tool_use
from tests.support.handoff_env import claude_session, run_json, work_session


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


# --- A packet's next action from the assistant's own words, in each phrasing people use (issue 37).
def preview(bridge, repo, t: Transcript) -> dict:
    """The packet a Claude session would export (preview: nothing written)."""
    claude_session(t, repo)
    code, out, err = bridge(
        "handoff", "export", "--from", "claude", "--session", t.session, "--to", "codex", "--preview", cwd=repo
    )
    assert code == 0, err
    return json.loads(out)["contents"]


@pytest.mark.parametrize(
    ("said", "step"),
    [
        ("I fixed the parser. Next, I will update the docs.", "Next, I will update the docs."),
        ("The build is green; the next step is to tag the release.", "tag the release."),
        ("Lexer done. My plan:\n1. update the docs\n2. tag the release", "update the docs"),
        ("Fixed.\n\nTODO: update the changelog", "update the changelog"),
    ],
)
def test_the_next_action_is_the_stated_step_in_any_phrasing(bridge, git_repo, said, step):
    """The assistant's stated next step is the packet's next action, citing its message, labelled the agent's."""
    t = Transcript()
    t.user("Make the parser accept empty input.")
    t.assistant(text(said))
    packet = preview(bridge, git_repo, t)
    nxt = packet["nextAction"]
    assert (nxt["text"], nxt["why"], nxt["agent"]) == (step, "the assistant's own stated next step", "claude")
    assert nxt["refs"]


def test_a_newer_message_replaces_an_older_statement(bridge, git_repo):
    """Two messages state next steps: the newer one is the next action."""
    t = Transcript()
    t.user("Make the parser accept empty input.")
    t.assistant(text("Parser fixed. Next: update the docs."))
    t.assistant(text("Docs updated; the next step is to tag the release."))
    assert preview(bridge, git_repo, t)["nextAction"]["text"] == "tag the release."


# --- Approaches given up (issue 37): a packet cites the assistant's words abandoning an attempt after a failed run,
# and search links them to that run.

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
