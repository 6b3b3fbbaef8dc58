"""The administrator's rules, with a real second user as the agent's: delivered as managed only while root alone can
change them.

Each test creates a user with ``useradd`` (removed afterwards), an administrator's directory under /tmp owned by
root, and a home and git repository the user owns; the hooks then run as that user (tests/support/second_user.py).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from autopilot.knowledge.durable import managed
from tests.support.bridge import run_bridge
from tests.support.durable import approved
from tests.support.hooks import context_of, payload
from tests.support.second_user import as_user, chown_tree, owned_dir, root_dir, second_user

RULE = "Never push to a release branch."
SESSION = "33333333-aaaa-4bbb-8ccc-000000000003"


class Machine:
    """The user the agent runs as, their home and repository, and the administrator's directory."""

    def __init__(self, user: Any, home: Path, admin: Path) -> None:
        self.user, self.home, self.admin = user, home, admin
        self.repo = home / "repo"
        self.env = {
            "HOME": str(home),
            "AUTOPILOT_HOME": str(home / "autopilot"),
            "CODEX_HOME": str(home / "codex"),
            "CLAUDE_CONFIG_DIR": str(home / "claude"),
            "AUTOPILOT_MANAGED_DIR": str(admin),
            "PATH": "/usr/local/bin:/usr/bin:/bin",
        }

    def write_rules(self, *texts: str) -> Path:
        """The administrator writes the rules file (root's, mode 0644)."""
        path = self.admin / managed.FILE
        path.write_text(json.dumps({"rules": [{"text": t} for t in texts]}))
        path.chmod(0o644)
        return path

    def hook(self, event: str, session: str = SESSION, **fields: Any) -> dict[str, Any]:
        """One Claude Code hook run as the user; its answer ({} when it printed nothing)."""
        stdin = json.dumps({**payload(event, self.repo, **fields), "session_id": session})

        def run() -> dict[str, Any]:
            code, out, err = run_bridge("hook", event, stdin=stdin)
            assert code == 0, err
            return json.loads(out) if out.strip() else {}

        return as_user(self.user, self.env, run)  # type: ignore[no-any-return]


@pytest.fixture
def machine(monkeypatch) -> Iterator[Machine]:
    with second_user() as user, owned_dir(user) as home, root_dir() as admin:
        m = Machine(user, home, admin)
        for name in ("autopilot", "codex", "claude"):
            (home / name).mkdir()
        subprocess.run(["git", "init", "-q", "-b", "main", str(m.repo)], check=True)
        chown_tree(home, user)
        yield m


def test_the_administrators_rule_is_delivered_as_managed(machine):
    """A root-owned rules file the agent's user cannot write reaches the session, labelled as the administrator's."""
    machine.write_rules(RULE)
    text = context_of(machine.hook("SessionStart", source="startup"))
    assert f"Managed by this machine's administrator ({machine.admin / managed.FILE})" in text
    assert f': "{RULE}"' in text


def test_managed_rules_come_above_the_persons_own(machine, monkeypatch):
    """With a rule the person approved in the same home, the managed block comes first."""
    machine.write_rules(RULE)
    monkeypatch.setenv("AUTOPILOT_HOME", machine.env["AUTOPILOT_HOME"])
    approved("Keep commits small.", None)
    chown_tree(machine.home, machine.user)
    text = context_of(machine.hook("SessionStart", source="startup"))
    assert text.index("Managed by this machine's administrator") < text.index(RULE) < text.index("Keep commits small.")
    assert text.index(RULE) < text.index("Approved by the person")


def test_a_rules_file_the_agents_user_owns_is_refused(machine):
    """Given to the agent's user, the file is not trusted: no managed rule, and the person is told why."""
    path = machine.write_rules(RULE)
    os.chown(path, machine.user.pw_uid, machine.user.pw_gid)
    answer = machine.hook("SessionStart", source="startup")
    assert RULE not in context_of(answer)
    assert (
        f"the administrator's rules were not used: {path} is owned by uid {machine.user.pw_uid}"
        in answer["systemMessage"]
    )


def test_a_rules_file_writable_by_others_is_refused(machine):
    """Root's file with a world-write bit is refused: the agent's user could rewrite it."""
    path = machine.write_rules(RULE)
    path.chmod(0o666)
    answer = machine.hook("SessionStart", source="startup")
    assert RULE not in context_of(answer) and "is writable by others than root" in answer["systemMessage"]


def test_a_directory_the_agents_user_can_write_is_refused(machine):
    """A root-owned file in a directory the user owns could be replaced: refused."""
    machine.write_rules(RULE)
    os.chown(machine.admin, machine.user.pw_uid, machine.user.pw_gid)
    answer = machine.hook("SessionStart", source="startup")
    assert RULE not in context_of(answer) and "not root: its owner could replace the rules" in answer["systemMessage"]


def test_a_link_to_a_root_file_is_refused(machine, tmp_path):
    """The rules file may not be a symbolic link (its target's directory was never checked)."""
    target = machine.admin / "elsewhere.json"
    target.write_text(json.dumps({"rules": [{"text": RULE}]}))
    target.chmod(0o644)
    (machine.admin / managed.FILE).symlink_to(target)
    answer = machine.hook("SessionStart", source="startup")
    assert RULE not in context_of(answer) and "is not a regular file" in answer["systemMessage"]


def test_a_managed_rule_made_writable_mid_session_is_withdrawn(machine):
    """Delivered at the start, the rule is withdrawn with the next prompt once the user could change it."""
    path = machine.write_rules(RULE)
    assert RULE in context_of(machine.hook("SessionStart", source="startup"))
    path.chmod(0o666)
    text = context_of(machine.hook("UserPromptSubmit", prompt="go on"))
    assert "- no longer applies: M-" in text and "the administrator's rules were refused" in text


def test_the_codex_side_gets_the_managed_rule_too(machine):
    """`handoff inject --agent codex` (what Codex's memory hook relays) carries the managed rule for the user."""
    machine.write_rules(RULE)
    thread = "019a0000-0000-7000-8000-00000000beef"
    event = {**payload("SessionStart", machine.repo, source="startup"), "session_id": thread}

    def run() -> dict[str, Any]:
        from autopilot.handoff.memory import observe

        observe.record("SessionStart", event, "codex")
        code, out, err = run_bridge("handoff", "inject", "--agent", "codex", stdin=json.dumps(event))
        assert code == 0, err
        return json.loads(out)

    assert RULE in context_of(as_user(machine.user, machine.env, run))


def test_as_root_managed_rules_are_refused(tmp_path, monkeypatch):
    """An agent running as root can write any file: the tier is refused, saying so."""
    assert os.geteuid() == 0
    folder = tmp_path / "admin"
    folder.mkdir()
    (folder / managed.FILE).write_text(json.dumps({"rules": [{"text": RULE}]}))
    monkeypatch.setenv("AUTOPILOT_MANAGED_DIR", str(folder))
    tier = managed.load()
    assert tier["rules"] == [] and "runs as root" in tier["refused"]


def test_memory_list_shows_the_managed_tier_and_why_it_is_refused(machine):
    """`durable list` (as the agent's user) names the administrator's file, its rules, or why they are not used."""
    machine.write_rules(RULE)

    def listing() -> dict[str, Any]:
        code, out, err = run_bridge("durable", "list")
        assert code == 0, err
        return json.loads(out)["managed"]

    tier = as_user(machine.user, machine.env, listing)
    assert ([r["text"] for r in tier["rules"]], tier["refused"]) == ([RULE], None)
    (machine.admin / managed.FILE).chmod(0o666)
    assert "writable by others than root" in as_user(machine.user, machine.env, listing)["refused"]
