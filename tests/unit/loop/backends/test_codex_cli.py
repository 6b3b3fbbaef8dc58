"""How the codex-cli backend names a failure from what codex printed."""

from __future__ import annotations

import pytest

from autopilot.loop.backends.codex_cli import _classify, _stderr_reason


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("unexpected status 401 Unauthorized: bad key", "auth"),
        ("exceeded retry limit, last status: 429 Too Many Requests", "rate_limit"),
        ("We're currently experiencing high demand, which may cause temporary errors.", "server"),
        ("unexpected status 503 Service Unavailable", "server"),
        ("thread/resume failed: no rollout found for thread id 01a2", "thread_missing"),
        # codex 0.145 when the thread is still in its state database but its rollout file was pruned
        (
            "thread/resume failed: failed to resolve rollout path `/h/sessions/2026/12/01/rollout-x.jsonl`: "
            "file does not exist (code -32600)",
            "thread_missing",
        ),
        ("stream disconnected: request timed out", "timeout"),
        ("the model edited 50 files and gave up", "exit_status"),
        ("", "exit_status"),
    ],
)
def test_failures_are_classified_by_their_words(text, kind):
    """Status codes count only as whole numbers: "50 files" is not a server error."""
    assert _classify(text) == kind


def test_the_error_line_is_found_above_a_backtrace():
    """codex prints a stack backtrace after the error; the reason is the Error line, not the last line."""
    stderr = "Error: thread/resume failed: no rollout found\n\nStack backtrace:\n   0: <unknown>\n   9: <unknown>\n"
    assert _stderr_reason(stderr) == "Error: thread/resume failed: no rollout found"
