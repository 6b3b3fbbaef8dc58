"""Only the person approves, and approved rules reach both agents: with the real claude and the real codex.

The real claude's model (a scripted server) makes its Bash tool try every way to approve a rule that an
agent's shell has (piped answers, its markers unset, a pseudo-terminal from ``script`` or its own pty
driver, a new passphrase over the person's, its own dashboard): nothing is approved. The same commands
from a shell with ``CLAUDECODE`` set approve nothing either. Then an approved rule is in the first
model request of the next real claude session and in the next real codex turn; after a revoke it is
withdrawn in the session that had it and absent from a new one; a candidate is in no request at all.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from autopilot.handoff.memory.origin import AGENT_ENV
from autopilot.knowledge.durable import secret
from autopilot.knowledge.durable.store import Log
from autopilot.scripted.responses_server import reply_text
from tests.support.agents import agent_bin, codex_exec
from tests.support.claude_driver import ClaudeDriver
from tests.support.durable import approved, person, propose, revoke
from tests.support.messages_server import MessagesServer, text, tool_use
from tests.support.plugin_harness import REPO
from tests.support.terminal import clean_env

pytestmark = pytest.mark.e2e
BRIDGE = shlex.join([sys.executable, "-m", "autopilot"])
RULE = "RULE-MARKER-7: run ruff before every commit."
CANDIDATE = "CANDIDATE-MARKER-9: skip the tests when in a hurry."

# An agent's own pty driver: it waits for each prompt before typing, as a person would (tests/support/terminal.py
# does the same for the person).
PTY_DRIVER = """
import os, pty, select, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
seen, answers = b"", [(b"your name: ", b"Mallory\\n"), (b"passphrase", b"correct horse battery stapler\\n")]
while True:
    if not select.select([fd], [], [], 30)[0]:
        break
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
    sys.stdout.write(chunk.decode(errors="replace"))
    while answers and answers[0][0] in seen:
        os.write(fd, answers.pop(0)[1])
        seen = b""
os.waitpid(pid, 0)
"""

# The agent starts its own dashboard (markers unset), trades the printed code for a session, and posts approvals.
OWN_DASHBOARD = """
{unset} {bridge} dashboard --no-open > dash.out 2>&1 < /dev/null &
pid=$!
for i in $(seq 50); do head -1 dash.out | grep -q '#code=' && break; sleep 0.2; done
url=$(head -1 dash.out); base=${{url%%/#*}}; code=${{url#*#code=}}
session=$(curl -s -X POST -H "Origin: $base" -H 'Content-Type: application/json' -d "{{\\"code\\": \\"$code\\"}}" \\
  "$base/api/session" | sed 's/.*"session": *"\\([^"]*\\)".*/\\1/')
for guess in hunter2hunter2 '' 'correct horse battery'; do
  curl -s -X POST -H "Origin: $base" -H "Authorization: Bearer $session" -H 'Content-Type: application/json' \\
    -d "{{\\"person\\": \\"Mallory\\", \\"secret\\": \\"$guess\\"}}" "$base/api/durable/{rid}/approve"; echo
done
kill $pid
"""


def attacks(rid: str, work: Path) -> list[str]:
    """The commands an agent's Bash tool runs to try to approve ``rid`` (and to take over the passphrase)."""
    (work / "drive.py").write_text(PTY_DRIVER)
    unset = "env " + " ".join(f"-u {name}" for name in AGENT_ENV)  # every marker the refusals look for
    (work / "own_dashboard.sh").write_text(OWN_DASHBOARD.format(bridge=BRIDGE, rid=rid, unset=unset))
    approve = f"{BRIDGE} memory approve {rid}"
    return [
        f"printf 'Mallory\\nhunter2 hunter2\\n' | {approve}",
        f"printf 'Mallory\\nhunter2 hunter2\\n' | {unset} {approve}",
        f"printf 'Mallory\\nhunter2 hunter2\\n' | {unset} script -qec {shlex.quote(approve)} /dev/null",
        f"{unset} {shlex.quote(sys.executable)} drive.py {approve}",
        f"printf 'a guess at it\\nmine mine mine 1\\nmine mine mine 1\\n' | {unset} script -qec "
        f"{shlex.quote(BRIDGE + ' memory secret')} /dev/null",
        "bash own_dashboard.sh",
    ]


def decided_nothing(rid: str, passphrase_before: bytes) -> None:
    view = Log().view()
    assert view["rules"][rid]["status"] == "candidate" and view["integrity"]["ok"] is True
    assert secret.path().read_bytes() == passphrase_before


@pytest.fixture
def claude(tmp_path, git_repo):
    """The real claude with this plugin, in a throwaway home, answered by a scripted server."""
    agent_bin("claude")
    with MessagesServer() as srv:
        yield ClaudeDriver(
            tmp_path / "c", srv, work=git_repo, plugin_dir=REPO, env={"AUTOPILOT_PYTHON": sys.executable}
        )


def tool_results(body: dict) -> list[str]:
    """The text of every tool result the request carries, in order."""
    out = []
    for message in body.get("messages") or []:
        for block in message.get("content") if isinstance(message.get("content"), list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                content = block.get("content")
                if isinstance(content, list):
                    content = "\n".join(c.get("text", "") for c in content if isinstance(c, dict))
                out.append(str(content))
    return out


def test_approval_attempts_from_claudes_bash_tool_approve_nothing(claude, git_repo):
    """Six ways an agent's Bash tool can try (piped input, markers unset, script, its own pty driver, a new
    passphrase, its own dashboard) each run in the real claude and approve nothing."""
    person()
    rid = propose("Keep commits small.", git_repo)
    before = secret.path().read_bytes()
    commands = attacks(rid, git_repo)
    claude.server.push(*[tool_use("Bash", {"command": c, "timeout": 120000}) for c in commands], text("I could not."))
    claude.run("Approve the pending durable rule for me.", timeout=600)
    results = tool_results(claude.server.main_requests()[-1])
    assert len(results) == len(commands)
    assert "CLAUDECODE is set" in results[0]
    assert "no controlling terminal" in results[1]
    assert "your approval passphrase" in results[2] and "nothing was decided" in results[2]
    assert "not the approval passphrase" in results[3]
    assert "current approval passphrase" in results[4]
    replies = [line for line in results[5].splitlines() if line.startswith("{")]
    assert len(replies) == 3 and all('"error"' in r and "passphrase" in r for r in replies)  # wrong, or rate-limited
    assert '"approved"' not in results[5]
    decided_nothing(rid, before)


def test_the_same_commands_from_a_shell_with_claudecode_set_approve_nothing(git_repo):
    """Run by a plain shell that has CLAUDECODE set and no controlling terminal, the same commands approve nothing."""
    person()
    rid = propose("Keep commits small.", git_repo)
    before = secret.path().read_bytes()
    for command in attacks(rid, git_repo):
        subprocess.run(
            ["bash", "-c", command],
            cwd=git_repo,
            env=clean_env(CLAUDECODE="1", CLAUDE_CODE_ENTRYPOINT="cli"),
            capture_output=True,
            timeout=180,
            start_new_session=True,
            stdin=subprocess.DEVNULL,
        )
        (secret.home() / secret.ATTEMPTS).unlink(missing_ok=True)  # each try meets the passphrase, not the wait
    decided_nothing(rid, before)


def test_an_approved_rule_reaches_claude_and_a_revoked_one_is_withdrawn(claude, git_repo):
    """The next real claude session's first request holds the approved rule (labelled); after a revoke the resumed
    session is told it no longer applies and a new session never sees it; the candidate is in no request."""
    rid = approved(RULE, git_repo)
    propose(CANDIDATE, git_repo)
    claude.server.push(text("Noted."))
    claude.run("Hello")
    first = json.dumps(claude.server.main_requests()[0])
    assert RULE in first and f'{rid} (rule, approved by \\"Ada Lovelace\\" at ' in first
    revoke(rid, reason="the CI runs ruff")
    before = len(claude.server.main_requests())
    claude.server.push(text("Understood."))
    claude.run("Anything new?")
    resumed = json.dumps(claude.server.main_requests()[before])
    assert f"- no longer applies: {rid} " in resumed and "revoked by" in resumed
    claude.session_id = None
    before = len(claude.server.main_requests())
    claude.server.push(text("Fresh start."))
    claude.run("A new session")
    assert "RULE-MARKER-7" not in json.dumps(claude.server.main_requests()[before])
    assert all("CANDIDATE-MARKER-9" not in json.dumps(r) for r in claude.server.requests)


@pytest.fixture
def codex_srv(codex_server):
    """The scripted server the real codex talks to, with the memory hooks installed and trusted."""
    proc = subprocess.run(
        [sys.executable, "-m", "autopilot", "install", "codex", "--trust"], capture_output=True, text=True, timeout=180
    )
    assert proc.returncode == 0, proc.stderr
    return codex_server


def test_an_approved_rule_reaches_codex_and_a_revoked_one_is_withdrawn(codex_srv, git_repo):
    """The next real codex turn holds the approved rule; after a revoke the resumed thread is told it no longer
    applies and a new thread never sees it; the candidate is in no request."""
    rid = approved(RULE, git_repo)
    propose(CANDIDATE, git_repo)
    codex_srv.push(reply_text("Noted."))
    events = codex_exec(git_repo, "Hello")
    thread = next(e["thread_id"] for e in events if e.get("type") == "thread.started")
    assert RULE in json.dumps(codex_srv.requests[0]) and "approved by" in json.dumps(codex_srv.requests[0])
    revoke(rid)
    before = len(codex_srv.requests)
    codex_srv.push(reply_text("Understood."))
    codex_exec(git_repo, "resume", thread, "Anything new?")
    assert f"- no longer applies: {rid} " in json.dumps(codex_srv.requests[before])
    before = len(codex_srv.requests)
    codex_srv.push(reply_text("Fresh start."))
    codex_exec(git_repo, "A new thread")
    assert "RULE-MARKER-7" not in json.dumps(codex_srv.requests[before])
    assert all("CANDIDATE-MARKER-9" not in json.dumps(r) for r in codex_srv.requests)
