"""A packet's claims: each backed by evidence or labelled inference; test results historical; pending calls pending."""

from __future__ import annotations

from tests.integration.handoff.packets.test_store import export, stored
from tests.support.claude_rows import Transcript, tool_use
from tests.support.handoff_env import claude_session, work_session


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
