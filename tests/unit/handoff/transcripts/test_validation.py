"""Which commands validate, and what a run really showed (a masked or empty test run is no pass)."""

from __future__ import annotations

import pytest

from autopilot.handoff.transcripts.validation import classify, key_of, kind_of


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("pytest -q tests/unit", "test"),
        ("python -m pytest -x", "test"),
        ("uv run pytest", "test"),
        ("cd src && PYTHONPATH=. timeout 60 pytest -q", "test"),
        ("npm test", "test"),
        ("npm run lint", "lint"),
        ("go test ./...", "test"),
        ("cargo clippy", "lint"),
        ("mypy src", "typecheck"),
        ("ruff check src", "lint"),
        ("make test", "test"),
        ("tests/run", "test"),
        ("./run_tests.sh", "test"),
    ],
)
def test_validating_commands_are_recognised(command, kind):
    """Test runners, linters, type checkers and builds are validation, behind wrappers and env assignments."""
    assert kind_of(command) == kind


@pytest.mark.parametrize("command", ["git commit -m 'add test'", "echo testing", "cat tests/test_a.py", "ls"])
def test_other_commands_are_not_validation(command):
    """A command that only mentions a test is not one."""
    assert kind_of(command) is None


def test_masked_pytest_that_ran_nothing_is_not_a_pass():
    """`pytest … || true` that collected nothing exits 0 but is no-tests, never a pass."""
    out = classify("pytest -q nothing_here || true", 0, "no tests ran in 1.40s\nERROR: file or directory not found")
    assert out == {"outcome": "no-tests", "summary": "no tests ran in 1.40s", "masked": True}


def test_masked_failures_are_a_fail():
    """Failures printed by a run whose exit code `|| true` hid are a fail."""
    assert classify("pytest || true", 0, "==== 2 failed, 5 passed in 0.3s ====")["outcome"] == "fail"


def test_masked_run_with_nothing_conclusive_is_unknown():
    """With the exit code hidden and no summary printed, the outcome is unknown, not a pass."""
    assert classify("make test || true", 0, "building...")["outcome"] == "unknown"


def test_nonzero_exit_is_a_fail():
    """An honest non-zero exit code is a fail even without a summary line."""
    assert classify("ruff check src", 1, "src/a.py:1:1: F401 unused import")["outcome"] == "fail"


def test_exit_zero_is_a_pass():
    """An honest exit 0 is a pass, with the summary line kept."""
    assert classify("pytest -q", 0, "....\n4 passed in 0.01s") == {
        "outcome": "pass",
        "summary": "4 passed in 0.01s",
        "masked": False,
    }


def test_without_exit_code_the_output_decides():
    """Codex's hooks hand no exit code: the printed summary decides, and silence is unknown."""
    assert classify("pytest", None, "3 passed in 0.1s")["outcome"] == "pass"
    assert classify("pytest", None, "1 failed, 2 passed")["outcome"] == "fail"
    assert classify("pytest", None, "")["outcome"] == "unknown"


def test_masking_does_not_make_another_command():
    """`cmd || true` and `cmd` are one validation, so a later real run supersedes the masked one."""
    assert key_of("pytest  -q || true") == key_of("pytest -q") == "pytest -q"


def test_a_package_managers_options_before_its_script_are_skipped():
    """`npm --prefix web test` runs the tests (its options and their values are not the script); an install is not a
    validation however it is prefixed (issue 37: a JavaScript project's runs had no outcome)."""
    from autopilot.handoff.transcripts.validation import kind_of

    assert kind_of("npm --prefix web test") == "test"
    assert kind_of("npm --prefix=web run build") == "build"
    assert kind_of("pnpm -C web run lint") == "lint"
    assert kind_of("yarn --cwd web test") == "test"
    assert kind_of("npm -w app --silent test") == "test"
    assert kind_of("npm --prefix web install") is None and kind_of("npm --prefix test install") is None
