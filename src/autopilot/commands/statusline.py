"""codex-bridge statusline: one short segment for Claude Code's status line, read from its JSON on stdin.

Claude Code runs the status-line command on every render (debounced), so this is a fast path like
the hooks': ``cli.main`` calls :func:`respond` without argparse, and it imports only ``os``, ``sys`` and
the hooks' no-run helpers until it knows a run is active. It prints nothing when no run is active
(idle, done, aborted, or no run in this repository), so it can sit in any status line. Each render also
keeps the plan windows it is shown (Claude's own, and Codex's at most once a minute) for the offer of a
handover before a limit (handoff/memory/limits.py).

    autopilot ▶ T2 3/20 · $0.42/$5.00 · codex reviewing
    autopilot ▶ T2 3/20 · $0.47/$5.00 · codex T2: 2 findings
    autopilot ⏸ paused: reviewer unavailable · /autopilot resume

``--with CMD`` composes it with another status-line command: CMD gets the same stdin, and its first
line comes first.
"""

from __future__ import annotations

import os
import sys

from autopilot import RESUME
from autopilot.loop import status
from autopilot.output import one_line

TYPE_CHECKING = False  # argparse and typing stay off this path (checked by tests/integration/test_hot_path.py)
if TYPE_CHECKING:
    import argparse
    from typing import Any

DESCRIPTION = """\
Print codex-autopilot's status-line segment for the Claude Code session whose status-line JSON is on
stdin: run state, task, iteration of max, spend of cap, and what Codex is doing. Prints nothing when
no run is active. --with CMD runs another status-line command on the same stdin and prints its first
line, then this segment (to add it to a status line you already have).
"""
HELP = "usage: codex-bridge statusline [--with CMD]\n\n" + DESCRIPTION  # what --help prints, without argparse
SEGMENT_CHARS = 120  # the segment's bound: the status line is one row of the user's terminal
NEAR_LIMIT = 20.0  # percent left in a Codex rate-limit window below which the status line shows it
PAUSED_WORDS = {
    status.PAUSED_REVIEWER_UNAVAILABLE: "paused: reviewer unavailable",
    status.PAUSED_BLOCK_CAP: "paused: block cap",
    status.PAUSED_RATE_LIMIT: "paused: Codex rate limit",
    status.STOPPED_BUDGET: "stopped: budget spent",
    status.STOPPED_ITERATION_LIMIT: "stopped: iteration limit",
}
SHOWN = (status.RUNNING, *PAUSED_WORDS)  # what counts as an active run here; the rest print nothing


def respond(argv: list[str]) -> int:
    """Print the segment (after ``--with CMD``'s line); always exit 0: a status line must never break."""
    if argv[:1] in (["-h"], ["--help"]):
        sys.stdout.write(HELP)
        return 0
    if argv and (argv[0] != "--with" or len(argv) != 2):
        sys.stderr.write("codex-bridge: statusline takes no arguments but --with CMD (see --help)\n")
        return 2
    try:
        raw = sys.stdin.read()
    except (OSError, ValueError):
        raw = ""
    parts = []
    if argv:
        parts.append(_other(argv[1], raw))
    try:
        parts.append(one_line(segment(raw), SEGMENT_CHARS))  # a task id is Codex's words: no escape reaches the bar
    except Exception:  # never a traceback in the user's status line
        parts.append("")
    line = " | ".join(p for p in parts if p)
    if line:
        sys.stdout.write(line + "\n")
    return 0


def segment(raw: str) -> str:
    """The segment for the status-line JSON ``raw`` ('' when no run is active there)."""
    from autopilot.fastjson import parse_json
    from autopilot.hooks import run_dir_of

    try:
        data = parse_json(raw) if raw.strip() else None
    except (ValueError, RecursionError):
        return ""
    if not isinstance(data, dict):
        return ""
    remember_limits(data)
    workspace = data.get("workspace")
    cwd = (workspace.get("current_dir") if isinstance(workspace, dict) else None) or data.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        return ""
    run = run_dir_of(cwd)
    if run is None:
        return ""
    from autopilot.loop.state import Store

    state = Store.peek(run)
    if state is None or state.get("status") not in SHOWN or not state.get("plan"):
        return ""
    return render(state, run)


def remember_limits(data: dict[str, Any]) -> None:
    """Keep the plan windows this render shows (Claude's) and Codex's, for the handover offer
    (handoff/memory/limits.py)."""
    from autopilot.handoff.memory import limits

    try:
        limits.record(data)
    except Exception:  # a full disk or an odd window never breaks the status line
        return


def render(state: dict[str, Any], run: str) -> str:
    """The segment for an active run ``state`` stored in ``run``."""
    now = state["status"]
    spend = f"${float(state.get('budget_used_usd') or 0):.2f}/${float(state.get('budget_usd') or 0):.2f}"
    if now != status.RUNNING:
        how = RESUME if now in status.PAUSED or now == status.STOPPED_ITERATION_LIMIT else ""
        return " · ".join(p for p in (f"autopilot ⏸ {PAUSED_WORDS.get(now, now)}", spend, how) if p)
    task = (state.get("current_task") or {}).get("id") or "?"
    where = f"{task} {state.get('iteration', 0)}/{state.get('max_iterations', '?')}"
    parts = ["autopilot ▶ " + where, spend, "codex " + reviewer_state(state, run)]
    if state.get("backend") == "codex-cli":
        parts += near_limit()
    return " · ".join(parts)


def near_limit() -> list[str]:
    """``5-hour 12% left`` when a Codex plan window is nearly used up (under NEAR_LIMIT percent left)."""
    from autopilot.codex import ratelimits

    try:
        short = ratelimits.short_window(ratelimits.latest(), NEAR_LIMIT)
    except Exception:  # unreadable rollouts must never break the status line
        return []
    return [f"{short[0]} {short[1]['left_percent']:g}% left"] if short else []


def reviewer_state(state: dict[str, Any], run: str) -> str:
    """deciding (a verdict or plan is in flight), reviewing (a review is), unavailable N/3 (recent failures), the last
    review's outcome (``T1 2 findings``, ``T1 approved``), or waiting (for Claude)."""
    from autopilot.fsutil import is_held
    from autopilot.loop.state import CALL_LANE, REVIEW_LANE

    if is_held(os.path.join(run, CALL_LANE)):
        return "deciding"
    if is_held(os.path.join(run, REVIEW_LANE)):
        return "reviewing"
    failures = max(int(state.get("consecutive_errors") or 0), int(state.get("verdict_errors") or 0))
    if failures:
        return f"unavailable {failures}/3"
    review = state.get("last_review")
    task = (state.get("current_task") or {}).get("id")
    if isinstance(review, dict) and review.get("task_id") == task:
        count = int(review.get("issues_count") or 0)
        if review.get("decision") == "request_changes":
            return f"{task}: {count} finding{'s' if count != 1 else ''}"
        return f"{task} approved"
    return "waiting"


def _other(command: str, raw: str) -> str:
    """The first line another status-line command prints for the same input ('' if it fails).

    Run as Claude Code runs a ``statusLine`` command: ``/bin/sh -c COMMAND`` whatever ``$SHELL`` is (seen with
    the real binary: tests/e2e/test_statusline_shell_e2e.py), so a kept line prints what it printed before setup.
    """
    import subprocess

    try:
        proc = subprocess.run(["/bin/sh", "-c", command], input=raw, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout.splitlines()[0].strip() if proc.stdout.strip() else ""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Listed in --help and docs/cli.md; the command itself never goes through argparse (cli.main's fast path)."""
    p = sub.add_parser(
        "statusline",
        help="one status-line segment for Claude Code (reads its JSON on stdin; --with CMD composes)",
        description=DESCRIPTION,
        add_help=False,
    )
    p.add_argument("--with", dest="with_", metavar="CMD", help="another status-line command to run first")


def run(args: argparse.Namespace) -> int:
    """Not reached: cli.main sends `statusline` to :func:`respond` before any parsing."""
    return respond([])
