"""A rule shared through the git remote reaches the real claude on the other machine, and its revocation too.

Ada approves a rule and pushes it in a commit signed with her SSH key (listed in the repository's
allowed_signers); Bob pulls; the first model request of Bob's next real claude session holds the rule,
labelled as the team's and signed. Ada revokes and pushes; Bob pulls; Bob's resumed session is told it no
longer applies.
"""

from __future__ import annotations

import json
import sys

import pytest

from tests.support.agents import agent_bin
from tests.support.claude_driver import ClaudeDriver
from tests.support.durable import approve, person, propose, revoke
from tests.support.messages_server import MessagesServer, text
from tests.support.plugin_harness import REPO
from tests.support.share import key, signer_line, team

pytestmark = pytest.mark.e2e
RULE = "SHARED-RULE-MARKER-4: run the zanzibar checks before every push."


def test_a_signed_shared_rule_reaches_claude_on_b_and_its_revocation_withdraws_it(tmp_path):
    """Bob's real claude is given Ada's signed rule, labelled shared and signed; after her revocation, withdrawn."""
    agent_bin("claude")
    ada = key(tmp_path / "keys", "ada")
    _, a, b = team(tmp_path / "team", signer_line("ada@example.com", ada))
    a.sign_with(ada)
    with a.on():
        person()
        rid = propose(RULE, a.repo)
        approve(rid, name="Ada")
    a.ok("share", "push", "--rules")
    b.ok("share", "pull")
    env = {"AUTOPILOT_PYTHON": sys.executable, "AUTOPILOT_HOME": str(b.homes["AUTOPILOT_HOME"])}
    with MessagesServer() as srv, b.on():
        claude = ClaudeDriver(tmp_path / "c", srv, work=b.repo, plugin_dir=REPO, env=env)
        srv.push(text("Noted."))
        claude.run("Hello")
        first = json.dumps(srv.main_requests()[0])
        assert RULE in first and 'signed by \\"ada@example.com\\" in commit' in first
        with a.on():
            revoke(rid, name="Ada", reason="CI runs them now")
        a.ok("share", "push", "--rules")
        b.ok("share", "pull")
        before = len(srv.main_requests())
        srv.push(text("Understood."))
        claude.run("Anything new?")
        resumed = json.dumps(srv.main_requests()[before])
    assert "no longer applies" in resumed and "a signed revocation shared in commit" in resumed
