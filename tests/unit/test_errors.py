"""errors.py: the one error type users see, its hint, its exit code, and the writes that fail for want of room."""

from __future__ import annotations

import errno

import pytest

from autopilot.errors import (
    EXIT_BUDGET,
    EXIT_ERROR,
    EXIT_INFRA,
    EXIT_STATE,
    BridgeError,
    BudgetExhausted,
    CallBusy,
    InfraError,
    RateLimitLow,
    RunChanged,
    RunTaken,
    StateError,
    Unwritable,
    unwritable,
)


def test_a_hint_follows_the_message_in_parentheses():
    """What to do next is part of the text a user reads; without one the message stands alone."""
    assert str(BridgeError("no run here", hint="run `codex-bridge plan` first")) == (
        "no run here (run `codex-bridge plan` first)"
    )
    assert str(BridgeError("no run here")) == "no run here"


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (BridgeError("x"), EXIT_ERROR),
        (InfraError("x", kind="timeout"), EXIT_INFRA),
        (CallBusy("x"), EXIT_INFRA),
        (RateLimitLow("x"), EXIT_INFRA),
        (BudgetExhausted("x"), EXIT_BUDGET),
        (StateError("x"), EXIT_STATE),
        (RunChanged("x", now={}, replaced=True), EXIT_ERROR),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, Exception) else str(v),
)
def test_each_failure_class_maps_to_its_exit_code(error, code):
    """Hooks and scripts branch on the exit code: each class keeps the one the contract gives it."""
    assert error.exit_code == code


def test_a_busy_call_is_an_infra_error_of_its_own_kind():
    """Lock contention is told apart from the reviewer failing by its kind."""
    busy = CallBusy("another call held Codex")
    assert isinstance(busy, InfraError) and busy.kind == CallBusy.KIND == "busy"


def test_an_infra_error_carries_the_usage_it_is_charged_with():
    """``with_usage`` attaches what the failed call consumed and returns the same error to raise."""
    error = InfraError("schema", kind="schema")
    assert error.with_usage({"input": 10}) is error and error.usage == {"input": 10}


def test_a_run_taken_by_another_session_is_a_change_that_replaced_nothing():
    """RunTaken is a RunChanged whose run was not re-planned; it carries the run as it is now."""
    now = {"owner_session_id": "other"}
    taken = RunTaken("claimed meanwhile", now=now)
    assert isinstance(taken, RunChanged) and (taken.replaced, taken.now) == (False, now)


@pytest.mark.parametrize("number", [errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES, errno.EPERM])
def test_a_full_disk_a_size_limit_or_a_refusal_is_unwritable(number):
    """These write failures are the user's to fix (exit 1, no crash log), named with the file."""
    found = unwritable(OSError(number, "nope", "/w/state.json"))
    assert isinstance(found, Unwritable) and found.exit_code == EXIT_ERROR and found.errno == number
    assert "/w/state.json" in str(found)


def test_other_errors_are_not_unwritable():
    """A missing file, another OSError or any other exception is left for the caller (a bug stays a bug)."""
    assert unwritable(OSError(errno.ENOENT, "missing", "/w/x")) is None
    assert unwritable(ValueError("no")) is None


def test_a_refused_access_says_access_and_a_full_disk_says_write():
    """EACCES reads as access (a read may be refused too) with a permissions hint; ENOSPC as write, free space."""
    denied = Unwritable("state.json", OSError(errno.EACCES, "Permission denied"))
    full = Unwritable("state.json", OSError(errno.ENOSPC, "No space left on device"), kept="the old file is kept")
    assert str(denied).startswith("cannot access state.json (Permission denied)") and "who may read" in str(denied)
    assert str(full).startswith("cannot write state.json (No space left on device); the old file is kept")
    assert "free some disk space" in str(full)
