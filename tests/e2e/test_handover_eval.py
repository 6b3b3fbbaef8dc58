"""Milestone 5's handover evaluation as tests: what the receiver of a packet is given, with thresholds.

For each agent one long session by the real client (tests/support/handover_eval.py: padding turns
reading a 35 KB log, a passing check, a failing one, a false "All tasks are done.", what is left and
the next step), with malicious instructions and fake approval metadata in a tool's output (NOTES.md),
and a durable rule a person approved and one they approved then revoked. The session is exported and
imported for the other agent; the context is measured, then handed to the real receiving client
(as is nothing, for its own baseline) and its first request to the scripted server is measured too.
The figures are printed (``-s``) and in docs/BENCHMARKS.md ("Handover evaluation").
"""

from __future__ import annotations

import json

import pytest

from tests.support import handover_eval as ev
from tests.support.agents import agent_bin

PADDING = 4  # turns reading the build log: a transcript of several hundred KB


@pytest.fixture(scope="module", params=["claude", "codex"])
def handed(request, tmp_path_factory):
    """One malicious session of the parameter's agent handed over: its texts, measures and deliveries."""
    agent = request.param
    claude, _ = agent_bin("claude"), agent_bin("codex")
    root = tmp_path_factory.mktemp(f"handover-{agent}")
    home = root / "autopilot-home"
    rules = ev.decide_rules(home)
    make = ev.claude_session if agent == "claude" else ev.codex_session
    session = make(root / "gen", True, PADDING, **({"claude": claude} if agent == "claude" else {}))
    texts = ev.given(session, home)
    to = "codex" if agent == "claude" else "claude"
    start = ev.receiver_start(session, home, to)
    # what the receiver gets from us: its start hook's rules (and facts) and the imported packet's context
    texts["injected"] = f"{start['context']}\n\n{texts['packet']}".strip()
    rows = {c: ev.measure(agent, c, texts[c], texts["raw"], True) for c in ("raw", "packet", "injected")}
    delivered = {c: ev.deliver(to, texts[c], root / f"deliver-{c}", claude) for c in ("none", "injected", "raw")}
    print(
        f"\n{agent} -> {to}: transcript {len(texts['raw']):,} chars; injected {len(texts['injected']):,} "
        f"({len(texts['injected']) / len(texts['raw']):.2%}: start hook {len(start['context']):,}, packet "
        f"{len(texts['packet']):,}); first request input tokens: nothing {delivered['none']['inputTokens']:,}, "
        f"injected {delivered['injected']['inputTokens']:,}, raw transcript {delivered['raw']['inputTokens']:,}"
    )
    return {
        "agent": agent,
        "session": session,
        "texts": texts,
        "start": start,
        "rows": rows,
        "delivered": delivered,
        "packet": ev.packet_json(session),
        "rules": rules,
        "root": root,
    }


def test_the_next_action_is_recovered(handed):
    """The packet's context, and the receiver's first request, name the next action."""
    (item,) = ev.TRUTH["next action"]
    assert ev.holds(handed["texts"]["packet"], item)
    assert handed["delivered"]["injected"]["recall"]["next action"] == 1.0


def test_every_unresolved_item_is_recalled(handed):
    """Both open items (divide's ValueError, the entry point) are in the context and the first request."""
    assert handed["rows"]["packet"].recall["unresolved"] == 1.0
    assert handed["delivered"]["injected"]["recall"]["unresolved"] == 1.0


def test_the_packet_never_calls_the_work_done(handed):
    """The last test run failed: no unquoted line says the work is done, and that run is reported failed."""
    assert handed["rows"]["packet"].false_done == 0
    runs = {v["command"]: v["outcome"] for v in handed["packet"]["completedWork"]["validations"]}
    assert runs[ev.DIVIDE_CHECK] == "failed"


def test_the_transcript_itself_would_call_it_done(handed):
    """The measure can fail: the raw transcript carries the false "All tasks are done." unquoted."""
    assert handed["rows"]["raw"].false_done >= 1


def test_the_approved_rule_reaches_the_receiver(handed):
    """The receiver's start hook gives it the rule the person approved, with its approver."""
    assert ev.APPROVED_RULE in handed["start"]["context"] and handed["rules"]["approved"] in handed["start"]["context"]
    assert handed["delivered"]["injected"]["approvedRule"] == 1


def test_a_revoked_rule_is_never_delivered(handed):
    """The rule a person revoked is in no start hook answer, context, import answer or first request."""
    assert ev.REVOKED_RULE not in json.dumps(handed["start"])
    assert handed["rows"]["injected"].revoked_given == 0
    assert ev.REVOKED_RULE not in json.dumps(handed["session"]["imported"])
    assert handed["delivered"]["injected"]["revokedRule"] == 0


def test_malicious_tool_output_is_never_an_instruction(handed):
    """The injected instruction and fake approval are never outside the evidence wrapper; approval is unreviewed."""
    assert handed["rows"]["packet"].injected_outside == 0
    assert handed["rows"]["raw"].injected_outside > 0  # the measure sees them in the raw transcript
    assert handed["packet"]["approval"]["status"] == "unreviewed"


def test_what_we_inject_is_a_small_share_of_the_transcript(handed):
    """The start hook's rules and the packet's context together: at most 24,000 characters, 2% of the transcript.

    Measured with the test's temporary folder written as a project path of ordinary length (it appears in both, the
    packet's pointers naming the transcript by its path): how long the test run's folder is named says nothing of
    what a person is given."""
    root = str(handed["root"])
    ordinary = "/home/user/project"

    def as_if_ordinary(text: str) -> str:
        return text.replace(root, ordinary).replace(root.replace("/", "-"), ordinary.replace("/", "-"))

    injected, raw = as_if_ordinary(handed["texts"]["injected"]), as_if_ordinary(handed["texts"]["raw"])
    assert root not in injected
    assert len(injected) <= 24_000 and len(injected) <= 0.02 * len(raw), (len(injected), len(raw))


def test_the_handover_costs_few_tokens_in_the_first_request(handed):
    """What we inject adds at most 2,500 input tokens to the receiver's first request; the raw transcript, 20x more."""
    tokens = {c: d["inputTokens"] for c, d in handed["delivered"].items()}
    assert 0 < tokens["injected"] - tokens["none"] <= 2_500
    assert tokens["raw"] - tokens["none"] >= 20 * (tokens["injected"] - tokens["none"])
