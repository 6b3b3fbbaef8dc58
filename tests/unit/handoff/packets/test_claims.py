"""Evidence quality: a run's outcome is what the command reported, and a "Next:" mid-line is found."""

from __future__ import annotations

import re

import pytest

from tests.support.search_project import export, headers_repo, packet

MASKED = "python3 -m pytest -q -p no:cacheprovider tests/test_missing.py || true"
PYTEST = "python3 -m pytest -q -p no:cacheprovider"


@pytest.fixture
def claude_fix(bridge, git_repo):
    """The real Claude session that fixed parse_header, exported from the headers project."""
    return packet(export(bridge, "claude-fix", headers_repo(git_repo)))


def test_masked_pytest_that_ran_no_test_is_not_passed(claude_fix):
    """The real `pytest … || true` on a missing file exited 0 but ran nothing: no-tests, from its summary."""
    runs = {v["command"]: v for v in claude_fix["completedWork"]["validations"]}
    assert runs[MASKED]["outcome"] == "no-tests"
    assert re.fullmatch(r"the summary line 'no tests ran in [\d.]+s'", runs[MASKED]["outcomeBasis"])


def test_real_passing_run_is_read_from_its_summary(claude_fix):
    """The real second pytest run passed, and the packet says it read that from '2 passed'."""
    runs = {v["command"]: v for v in claude_fix["completedWork"]["validations"]}
    assert (runs[PYTEST]["outcome"], runs[PYTEST]["earlierRuns"]) == ("passed", 1)
    assert re.fullmatch(r"the summary line '2 passed in [\d.]+s'", runs[PYTEST]["outcomeBasis"])


def test_real_codex_failing_run_is_failed(bridge, git_repo):
    """Codex's real pytest run (exit 1, '1 failed, 1 passed') is recorded as failed from its summary."""
    pid = export(bridge, "codex-regress", headers_repo(git_repo))
    (run,) = packet(pid)["completedWork"]["validations"]
    assert (run["outcome"], run["exitCode"]) == ("failed", 1)
    assert re.fullmatch(r"the summary line '1 failed, 1 passed in [\d.]+s'", run["outcomeBasis"])


def test_next_step_in_the_middle_of_a_line_is_found(claude_fix):
    """'… both tests pass. Next: add a test …' on one line gives the stated next action."""
    assert (claude_fix["nextAction"]["text"], claude_fix["nextAction"]["why"]) == (
        "add a test for a header line without a colon.",
        "the assistant's own stated next step",
    )
