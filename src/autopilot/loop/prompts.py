"""What the review and verdict prompts show Codex: the task, and the work since the base as evidence.

Both phases build their prompt from these pieces (``reviewer.prompt`` fills the files in ``prompts/``),
so the review and the verdict judge the same task text and the same redacted, bounded diff; a call that
restarts the run's conversation is prefixed with the run's state (:func:`restart_seed`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot import config, untrusted
from autopilot.loop.findings import findings_text, open_findings
from autopilot.redact import Redactor
from autopilot.text import clip_counted, clip_middle

if TYPE_CHECKING:
    from autopilot.config import Config
    from autopilot.loop.shapes import DiffFacts, Task
    from autopilot.loop.snapshot import Snapshot
    from autopilot.loop.state import State


# How a prompt marks the middle it cut: the wording Codex has been shown since the first release, kept byte for byte
# (prompts sent before and after this home moved read the same).
CUT_MARK = "\n[... {omitted} characters omitted from the middle; the full text has {total} ...]\n"


def middle_cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters in its middle as the loop's prompts cut it (:func:`text.clip_middle`)."""
    return clip_middle(text, limit, CUT_MARK, end_rounds_up=True)


def task_text(task: Task) -> str:
    """The task as the prompts show it: title, description and numbered acceptance criteria."""
    criteria = "\n".join(f"{n}. {c}" for n, c in enumerate(task.get("acceptance") or [], start=1))
    return f"{task.get('title', '')}\n{task.get('description', '')}\nAcceptance criteria:\n{criteria}"


MAX_WITHHELD_NAMES = 20


def withheld_names(names: list[str], redactor: Redactor) -> list[str]:
    """The names of withheld secret files as they may be shown: redacted, on one line, at most 200 characters.

    A file's name can itself hold a credential (``.env.ghp_…``) or a line break; only its contents
    are withheld, so its name passes the redactor like everything else that leaves.
    """
    shown = []
    for name in names:
        one_line = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in name)
        shown.append(middle_cut(redactor(one_line), 200).replace("\n", " "))
    return shown


def diff_evidence(settings: Config, snap: Snapshot, redactor: Redactor) -> tuple[str, DiffFacts]:
    """The redacted, bounded diff as evidence, and facts about it (size, cut, files); ``settings``: the config
    file's (its ``max_diff_chars``)."""
    limit = config.max_diff_chars(settings)
    patch = redactor(snap.patch)
    bounded, cut = middle_cut(patch, limit), len(patch) > limit
    secret_names = withheld_names(snap.secret_files, redactor)
    facts: DiffFacts = {
        "files": len(snap.files),
        "diff_chars": len(patch),
        "cut": cut,
        "limit": limit,
        "secret_files": secret_names,
        "skipped": [{"path": path, "why": why} for path, why in snap.skipped],
    }
    left_out = (
        f"{len(snap.skipped)} changed files were left out of this diff (too large or binary): "
        + ", ".join(f"{path} ({why})" for path, why in snap.skipped[:20])
        + (f" and {len(snap.skipped) - 20} more" if len(snap.skipped) > 20 else "")
        + "\n"
        if snap.skipped
        else ""
    )
    more = len(secret_names) - MAX_WITHHELD_NAMES
    withheld = (
        f"{len(secret_names)} secret-bearing files changed (by name, by content or copied from one); "
        f"their contents are withheld: {', '.join(secret_names[:MAX_WITHHELD_NAMES])}"
        f"{f' and {more} more' if more > 0 else ''}\n"
        if secret_names
        else ""
    )
    header = (
        f"base {snap.base or '(empty tree)'} -> work tree {snap.tree} (HEAD {snap.head})\n"
        f"{len(snap.files)} files changed; diff is {len(patch)} characters"
        f"{f', middle cut to {limit}' if cut else ''}\n{withheld}{redactor(left_out)}{redactor(snap.stat)}\n"
    )
    return untrusted.evidence("git diff since base", header + bounded), facts


SEED_GOAL_CHARS = 2_000
SEED_FINDINGS_CHARS = 4_000


def restart_seed(state: State, redactor: Redactor) -> str:
    """What a fresh Codex conversation is told of the run it joins, from the run's own state (no model call).

    The run's conversation restarts when its history reaches ``max_history_tokens`` (``Workspace.consult``):
    the new one gets the goal, the plan's tasks with their status, the current task with its acceptance
    criteria, the last review's findings still open and the last verdict, and nothing of the earlier turns.
    The findings and the verdict are Codex's own words about evidence: they are quoted as evidence too.
    """
    current = state.get("current_task")
    current_id = current.get("id") if current else None
    done = set(state.get("tasks_done") or [])
    plan = state.get("plan")
    listed = [
        f"- {t['id']} [{'current' if t['id'] == current_id else 'done' if t['id'] in done else 'open'}] {t['title']}"
        for t in (plan.get("tasks") or [] if plan else [])
    ]
    goal = clip_counted(state.get("goal") or "", SEED_GOAL_CHARS)
    parts = [
        '<run-state note="This conversation was started afresh to keep its cost bounded; earlier turns are not '
        'shown. This is the autopilot run as the bridge recorded it.">',
        f"Goal: {redactor(goal)}",
        "Tasks:",
        redactor("\n".join(listed)),
        f"Current task {current_id}:\n{redactor(task_text(current))}" if current else "Current task: none",
    ]
    findings = open_findings(state)
    if findings:
        parts.append(
            "The findings quoted below were raised by your earlier reviews of this task and are not yet fixed: "
            "check each against the work you are shown and raise it again if it still applies."
        )
    parts.append("</run-state>")
    history = []
    if findings:
        review = state.get("last_review")
        where = review.get("review_path") if review else None
        text = findings_text(findings, budget=SEED_FINDINGS_CHARS, where=where)
        history.append(f"Findings still open:\n{text}")
    verdict = state.get("last_verdict")
    if verdict:
        history.append(f"Last verdict: {verdict.get('decision')}: {verdict.get('reason')}")
    if history:
        parts.append(untrusted.evidence("the run's earlier reviews and verdict", redactor("\n".join(history))))
    return "\n".join(parts) + "\n\n"
