"""The administrator's tier cannot be moved by the agent's user, and its absence is said at every session start.

With a real second user (``useradd``) as the agent's user and a root-owned administrator's folder, as
``tests/integration/test_managed_rules.py`` sets them up: the folder is the package's constant (tests point it
elsewhere in-process, as a build would), so a variable in the agent's environment changes nothing.
"""

from __future__ import annotations

from tests.integration.test_managed_rules import RULE, machine  # noqa: F401 (the fixture)
from tests.support.hooks import context_of

STARTS = [f"4444444{n}-aaaa-4bbb-8ccc-00000000000{n}" for n in range(5)]


def test_a_variable_pointing_elsewhere_does_not_drop_the_administrators_rules(machine, tmp_path):  # noqa: F811
    """AUTOPILOT_MANAGED_DIR (the variable that used to move the tier) set to an empty folder: the rule arrives."""
    machine.write_rules(RULE)
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    machine.env["AUTOPILOT_MANAGED_DIR"] = str(empty)
    answer = machine.hook("SessionStart", source="startup")
    assert RULE in context_of(answer) and "Managed by this machine's administrator" in context_of(answer)


def test_missing_managed_rules_are_said_at_every_session_start_until_back(machine):  # noqa: F811
    """The tier was in force; its file removed: every session start names the missing rules; once back, no more."""
    path = machine.write_rules(RULE)
    assert RULE in context_of(machine.hook("SessionStart", session=STARTS[0], source="startup"))
    path.unlink()
    for session in STARTS[1:3]:
        said = machine.hook("SessionStart", session=session, source="startup").get("systemMessage", "")
        assert "the administrator's 1 rule(s) that were in force are missing" in said, said
    machine.write_rules(RULE)
    said = machine.hook("SessionStart", session=STARTS[3], source="startup").get("systemMessage", "")
    assert "missing" not in said
