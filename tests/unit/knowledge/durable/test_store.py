"""Durable knowledge: candidates, decisions by a person with their passphrase, supersession, a tamper-evident log."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from autopilot.errors import BridgeError
from autopilot.knowledge.durable import secret
from autopilot.knowledge.durable.store import Log, agent_marker
from tests.support.durable import PASSPHRASE, person
from tests.support.repo import REPO


@pytest.fixture
def log():
    person()
    return Log()


def approve(log, rid, name="Ada Lovelace", channel="dashboard", passphrase=PASSPHRASE):
    return log.decide("approve", rid, person=name, secret=passphrase, channel=channel)


def test_a_proposal_is_only_a_candidate(log):
    """Proposing a rule records a candidate with its proposer; nothing is approved."""
    rule = log.propose("rule", "Never change the public API of parse().", by="claude", channel="cli")
    assert (rule["status"], rule["approved"], rule["proposed"]["by"], rule["proposed"]["channel"]) == (
        "candidate",
        None,
        "claude",
        "cli",
    )
    assert rule["id"].startswith("R-") and log.listing()["counts"]["approved"] == 0


def test_a_person_at_the_dashboard_approves(log):
    """An approval names the person and the channel it was taken at."""
    rid = log.propose("decision", "Use SQLite FTS5 for the evidence index.", by="ada", channel="dashboard")["id"]
    rule = approve(log, rid)
    assert rule["status"] == "approved" and rid.startswith("D-")
    assert (rule["approved"]["person"], rule["approved"]["channel"]) == ("Ada Lovelace", "dashboard")


@pytest.mark.parametrize("channel", ["cli", "hook", "packet", "skill"])
def test_no_other_channel_can_approve(log, channel):
    """Only the dashboard and a terminal decide: any other channel is refused and the log is unchanged."""
    rid = log.propose("rule", "Keep commits small.", by="codex", channel="cli")["id"]
    before = log.path.read_bytes()
    with pytest.raises(BridgeError, match="only be made by a person"):
        approve(log, rid, channel=channel)
    assert log.path.read_bytes() == before


def test_a_wrong_passphrase_decides_nothing(log):
    """A decision with another passphrase than the person's is refused and the log is unchanged."""
    rid = log.propose("rule", "Keep commits small.", by="x", channel="cli")["id"]
    before = log.path.read_bytes()
    with pytest.raises(secret.WrongSecret, match="not the approval passphrase"):
        approve(log, rid, passphrase="correct horse battery stapler")
    assert log.path.read_bytes() == before


def test_without_a_passphrase_nothing_can_be_decided(log):
    """Before the person sets a passphrase, no decision is taken whatever is given."""
    secret.path().unlink()
    rid = log.propose("rule", "Keep commits small.", by="x", channel="cli")["id"]
    with pytest.raises(secret.NoSecret, match="no approval passphrase is set"):
        approve(log, rid)
    assert log.view()["rules"][rid]["status"] == "candidate"


def test_revoking_an_approved_rule_keeps_who_and_why(log):
    """Revoking records the person, the channel and the reason; the approval stays in the record."""
    rid = log.propose("rule", "Run ruff before committing.", by="x", channel="cli")["id"]
    approve(log, rid)
    rule = log.decide("revoke", rid, person="Grace", secret=PASSPHRASE, channel="terminal", reason="CI does it now")
    assert rule["status"] == "revoked" and rule["approved"]["person"] == "Ada Lovelace"
    assert (rule["revoked"]["person"], rule["revoked"]["channel"], rule["revoked"]["reason"]) == (
        "Grace",
        "terminal",
        "CI does it now",
    )


def test_an_approved_successor_supersedes_its_predecessor(log):
    """Once a rule that names another in supersedes is approved, the old one is superseded and links to it."""
    old = log.propose("rule", "Use black for formatting.", by="x", channel="cli")["id"]
    approve(log, old)
    new = log.propose("rule", "Use ruff format for formatting.", by="x", channel="cli", supersedes=old)["id"]
    assert log.view()["rules"][old]["status"] == "approved"  # proposing replaces nothing
    approve(log, new)
    rules = log.view()["rules"]
    assert (rules[old]["status"], rules[old]["supersededBy"], rules[new]["supersedes"]) == ("superseded", new, old)


def test_only_an_approved_rule_can_be_superseded(log):
    """A candidate cannot be superseded: the proposal is refused."""
    cand = log.propose("rule", "Prefer tabs.", by="x", channel="cli")["id"]
    with pytest.raises(BridgeError, match="only an approved one"):
        log.propose("rule", "Prefer spaces.", by="x", channel="cli", supersedes=cand)


def test_a_decided_rule_cannot_be_approved_again(log):
    """Approving twice is refused before the passphrase is checked (no try is spent) and nothing is appended."""
    rid = log.propose("rule", "Keep commits small.", by="x", channel="cli")["id"]
    approve(log, rid)
    lines = log.path.read_bytes().count(b"\n")
    with pytest.raises(BridgeError, match="not a candidate"):
        approve(log, rid, passphrase="not even checked")
    assert log.path.read_bytes().count(b"\n") == lines and not (secret.home() / secret.ATTEMPTS).exists()


def test_an_edited_log_line_breaks_the_chain_and_is_reported(log):
    """Changing a past line (say, the approver's name) is seen: the next line no longer follows it."""
    rid = log.propose("rule", "Keep commits small.", by="x", channel="cli")["id"]
    approve(log, rid)
    log.propose("rule", "Another rule.", by="x", channel="cli")
    lines = log.path.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b"Ada Lovelace", b"Mallory")
    log.path.write_bytes(b"\n".join(lines))
    integrity = log.listing()["integrity"]
    assert integrity["ok"] is False and integrity["chainBreaks"] == [3]


def test_a_hand_written_approval_without_a_person_is_ignored(log):
    """A line appended by hand that approves without a person at a deciding channel changes no status."""
    rid = log.propose("rule", "Keep commits small.", by="x", channel="cli")["id"]
    with open(log.path, "ab") as fh:
        fh.write(json.dumps({"action": "approve", "id": rid, "channel": "hook", "person": "agent"}).encode() + b"\n")
    listing = log.listing()
    assert listing["rules"][0]["status"] == "candidate"
    assert listing["integrity"]["refusedLines"][0]["line"] == 2 and listing["integrity"]["chainBreaks"] == [2]


def test_malformed_lines_are_counted_not_fatal(log):
    """A line that is not JSON is counted; the rules around it still load."""
    log.propose("rule", "First rule.", by="x", channel="cli")
    with open(log.path, "ab") as fh:
        fh.write(b"{not json\n")
    log.propose("rule", "Second rule.", by="x", channel="cli")
    listing = log.listing()
    assert len(listing["rules"]) == 2 and listing["integrity"]["malformedLines"] == 1


def test_the_view_is_rebuilt_from_the_log(log):
    """A missing or stale rules.json is rebuilt from the log, which is the truth."""
    rid = log.propose("rule", "Keep commits small.", by="x", channel="cli")["id"]
    approve(log, rid)
    log.view_path.write_text(json.dumps({"lastHash": "stale", "rules": {}}))
    assert log.view()["rules"][rid]["status"] == "approved"
    log.view_path.unlink()
    assert log.view()["rules"][rid]["status"] == "approved"


def test_proposed_text_is_redacted(log):
    """A credential in a proposed rule is replaced before it is written."""
    token = "ghp_" + "Zx9" * 12
    log.propose("rule", f"Deploy with {token} only.", by="x", channel="cli")
    assert token not in log.path.read_text() and "[REDACTED:" in log.path.read_text()


def test_agent_shells_are_recognised():
    """Claude Code's and Codex's tool shells are named by the variable that shows them."""
    assert agent_marker({"CLAUDECODE": "1"}) == "CLAUDECODE"
    assert agent_marker({"CODEX_SANDBOX": "seccomp"}) == "CODEX_SANDBOX"
    assert agent_marker({"HOME": "/h"}) is None


def test_no_agent_tool_reaches_a_decision():
    """Hooks, skills, the plugin's scripts and the scripts Codex runs never name the deciding side of durable memory."""
    roots = [REPO / "src/autopilot/hooks", REPO / "src/autopilot/codex", REPO / "skills", REPO / "scripts"]
    words = (
        "durable.store",
        "durable import store",
        "durable.secret",
        "durable approve",
        "durable revoke",
        "durable secret",
        "memory approve",  # the command's earlier name, which still runs it
        "memory revoke",
        "memory secret",
    )
    offenders = [
        str(p.relative_to(REPO))
        for root in roots
        for p in root.rglob("*")
        if p.is_file() and p.suffix in (".py", ".md", ".sh", "") and p.stat().st_size < 1_000_000
        for text in [p.read_text(errors="replace")]
        if any(w in text for w in words)
    ]
    assert offenders == []


def test_the_delivering_side_never_loads_the_deciding_side():
    """What the hooks load to deliver rules (durable.deliver and everything it imports) leaves store and secret out."""
    code = (
        "import sys, autopilot.knowledge.durable.deliver, autopilot.hooks.memory; "
        "print(sorted(m for m in sys.modules if m.startswith('autopilot.knowledge.durable')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert eval(out) == [
        "autopilot.knowledge.durable",
        "autopilot.knowledge.durable.deliver",
        "autopilot.knowledge.durable.managed",
        "autopilot.knowledge.durable.view",
    ]
