"""What the review and verdict prompts show Codex: the task, and the work since the base as evidence.

Both phases build their prompt from these pieces (``reviewer.prompt`` fills the files in ``prompts/``),
so the review and the verdict judge the same task text and the same redacted, bounded diff.
"""

from __future__ import annotations

from autopilot import config, git
from autopilot.redact import Redactor
from autopilot.run import reviewer
from autopilot.run.workspace import Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autopilot.run.shapes import DiffFacts, Task


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
        shown.append(git.bound(redactor(one_line), 200)[0].replace("\n", " "))
    return shown


def diff_evidence(ws: Workspace, snap: git.Snapshot, redactor: Redactor) -> tuple[str, DiffFacts]:
    """The redacted, bounded diff as evidence, and facts about it (size, cut, files)."""
    limit = config.max_diff_chars(ws.config)
    patch = redactor(snap.patch)
    bounded, cut = git.bound(patch, limit)
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
    return reviewer.evidence("git diff since base", header + bounded), facts
