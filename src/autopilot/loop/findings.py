"""A run's open findings: which of the last review's findings still stand, and how they read in a message.

The Stop hook tells Claude about them, the PostToolUse hook shows a review's, and a Codex conversation
restarted to bound its cost is seeded with them, so a finding outlives the conversation that raised it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot.output import one_line, quoted
from autopilot.text import clip_counted

if TYPE_CHECKING:
    from autopilot.loop.shapes import Issue
    from autopilot.loop.state import State


def open_findings(state: State) -> list[Issue]:
    """The last review's findings when they concern the current task and asked for changes."""
    review, task = state.get("last_review"), state.get("current_task")
    if not review or not task or review.get("task_id") != task.get("id") or review.get("decision") != "request_changes":
        return []
    return [i for i in review.get("issues") or [] if isinstance(i, dict)]


def findings_text(issues: list[Issue], *, budget: int, where: str | None = None) -> str:
    """Review findings, one line each (severity, place, message), as many as fit ``budget`` characters.

    The most severe come first; what does not fit is counted, with the file (``where``) that holds them all.
    """
    rank = {"critical": 0, "major": 1, "minor": 2, "nit": 3}
    ordered = sorted(issues, key=lambda i: rank.get(str(i.get("severity")), 4))
    lines: list[str] = []
    used = 0
    for n, issue in enumerate(ordered):
        place = str(issue.get("file") or "")
        if place and issue.get("line"):
            place += f":{issue['line']}"
        # the reviewer's words on one line each: a line break in a message cannot make a line of its own
        text = f"- [{one_line(issue.get('severity', '?'))}] {one_line(place) + ': ' if place else ''}"
        text += quoted(str(issue.get("message", "")))
        line = clip_counted(text, 600)
        rest = len(ordered) - n
        if used + len(line) + 1 > budget - 200:
            lines.append(
                f"- … and {rest} more finding{'s' if rest != 1 else ''}" + (f" (all in {where})" if where else "")
            )
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)
