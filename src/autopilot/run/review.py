"""Review: Codex reviews the work since the run's base commit against the current task.

Shared by ``codex-bridge review`` and the PostToolUse hook. A review never changes the task,
the base, the status or the iteration; it records ``last_review`` and a review artifact.
"""

from __future__ import annotations

from typing import Any

from autopilot import config, git
from autopilot.output import say
from autopilot.redact import Redactor
from autopilot.run import loop, reviewer
from autopilot.run.reviewer import Answer
from autopilot.run.workspace import Workspace


def task_text(task: dict[str, Any]) -> str:
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
        shown.append(git.bound(redactor(one_line), 200)[0].replace("\n", " "))
    return shown


def diff_evidence(ws: Workspace, snap: git.Snapshot, redactor: Redactor) -> tuple[str, dict[str, Any]]:
    """The redacted, bounded diff as evidence, and facts about it (size, cut, files)."""
    limit = config.max_diff_chars(ws.config)
    patch = redactor(snap.patch)
    bounded, cut = git.bound(patch, limit)
    secret_names = withheld_names(snap.secret_files, redactor)
    facts = {
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
    return reviewer.evidence("git diff since base", header + bounded), facts


def review(
    *,
    backend: str | None = None,
    model: str | None = None,
    effort: str | None = None,
    cwd: str | None = None,
    deadline: float | None = None,
) -> dict[str, Any]:
    """Review the current diff and record it; returns the review (``skipped`` when nothing changed).

    ``deadline`` (``time.monotonic()``) bounds the Codex exchange; default: now + AUTOPILOT_TIMEOUT.
    """
    ws = Workspace(cwd)
    state = ws.store.load()
    ws.require_run(state)
    ws.config  # noqa: B018 - a broken config file fails here, before any work
    task = state["current_task"]
    snap = ws.snapshot_while_loading(state.get("base_sha"))
    if snap.empty:
        say("nothing changed since the base commit; no review was requested")
        return {
            "skipped": True,
            "reason": "no changes since base",
            "task_id": task["id"],
            "base_sha": state.get("base_sha"),
            "fingerprint": snap.tree,
        }
    ws.guard_budget("review")
    redactor = Redactor()
    evidence, facts = diff_evidence(ws, snap, redactor)
    text = reviewer.prompt("review", task_id=task["id"], task=redactor(task_text(task)), evidence=evidence)

    def record(answer: Answer) -> dict[str, Any]:
        found = answer.data
        result = {
            "task_id": task["id"],
            "base_sha": snap.base,
            "head_sha": snap.head,
            "fingerprint": snap.tree,
            **found,
            "diff": facts,
            "redactions": redactor.summary(),
            "usd": answer.usd,
        }
        with ws.store.transaction() as s:
            if s.get("run_id") != state.get("run_id"):  # a replaced run's calls stay in events.jsonl only
                say("the run was re-planned while Codex reviewed; this review is in events.jsonl, not in the new run")
                return result
            loop.settle(s, "review", answer)
            path = ws.store.artifact_in_call("review", result)
            loop.apply_review(
                s,
                found,
                task_id=task["id"],
                base_sha=snap.base,
                head_sha=snap.head,
                fingerprint=snap.tree,
                review_path=str(path) if path else None,
            )
            result["review_path"] = str(path) if path else None
        return result

    return ws.consult(
        "review",
        text,
        state,
        backend=backend,
        model=model,
        effort=effort,
        deadline=deadline,
        what=f"to review {facts['files']} changed files against {task['id']}",
        record=record,
    )
