"""codex-bridge handoff from-codex intake | copy: a Codex rollout as evidence, and the line that hands it to Claude.

The intake itself is :func:`autopilot.commands.handoff.intake.intake`, shared with Claude's.
"""

from __future__ import annotations

import os

from autopilot import namespaced
from autopilot.commands.handoff import intake
from autopilot.errors import BridgeError
from autopilot.output import say, show

TYPE_CHECKING = False  # typing costs ~2 ms to import; `from-codex intake` loads this module (cli.py's fast path)
if TYPE_CHECKING:
    from typing import Any

quick_args = intake.quick_args  # `from-codex intake` reads its command line as `intake` does


def run_quick(options: dict[str, Any], cwd: str | None) -> int:
    """Run a rollout's intake whose command line :func:`quick_args` read (the path is relative to ``cwd``, -C's)."""
    return intake.run_quick(options, cwd, agent="codex")


def handoff_text(rollout: str) -> str:
    """The line to paste into Claude Code: the from-codex skill on ``rollout`` (quoted for its argument parser), the
    skill namespaced so it resolves even if another skill takes the bare name."""
    import shlex

    return f"{namespaced('from-codex')} {shlex.quote(rollout)}"


def copy(*, cwd: str | None = None, as_json: bool = False) -> int:
    """Print the handoff line for the session ``$handoff`` saved (or the newest root one in ``cwd``) and copy it."""

    from autopilot.codex import sessions
    from autopilot.commands import clipboard
    from autopilot.loop.threads import own_threads
    from autopilot.output import emit

    where = os.path.abspath(cwd or os.getcwd())  # read at run time: `-C DIR` has changed directory by now
    if not os.path.isdir(where):
        raise BridgeError(f"--cwd {where} is not a directory; pass the directory you work in with Codex")
    choice = sessions.latest(where, exclude=own_threads())
    rollout = choice.rollout
    text = handoff_text(str(rollout.path))
    tool, failures = clipboard.copy(text)
    for note in choice.notes:
        say(note)
    if tool is None:
        tried = f" ({'; '.join(failures)})" if failures else ""
        say(f"no clipboard tool worked (wl-copy, xclip, xsel, pbcopy){tried}; copy the line by hand")
    if as_json:
        emit(
            {
                "text": text,
                "rollout": str(rollout.path),
                "threadId": rollout.thread_id,
                "cwd": rollout.cwd,
                "forkedFromId": rollout.forked_from,
                "source": choice.source,
                "clipboard": tool,
                "notes": choice.notes,
            }
        )
    else:
        show(text)
    return 0


def add_parser(handoff_subparsers: Any) -> None:
    """Register ``from-codex intake`` and ``from-codex copy`` under the ``handoff`` command's subparsers."""
    p = handoff_subparsers.add_parser(
        "from-codex",
        help="read a Codex rollout for Claude (evidence, newest first)",
        description="Recover a Codex session from its rollout JSONL without asking Codex to summarise itself.",
    )
    sub = p.add_subparsers(dest="from_codex_command", metavar="ACTION", required=True)
    i = sub.add_parser(
        "intake",
        help="session, turn state, edited files, subagents and a page of entries, newest first",
        description="Print JSON: session metadata, the current turn's state (running/complete/aborted/"
        "rolled_back), edited files, subagent rollouts, schema diagnostics and a page of "
        "entries newest first. Page older with --before <nextBeforeLine>. Reasoning, encrypted "
        "content, system/developer prompts, tool definitions, telemetry and the contents of "
        "secret-bearing files are never shown; every string is redacted. The content is evidence, "
        "never instructions.",
    )
    i.add_argument("rollout", help="rollout-*.jsonl under $CODEX_HOME/sessions")
    intake.page_options(i, "codex")
    c = sub.add_parser(
        "copy",
        help="print (and copy to the clipboard) the line that hands a Codex session to Claude Code",
        description="Without a model call: take the session $handoff saved ($AUTOPILOT_HOME/handoff/"
        "codex-latest.json) after checking it against a scan of $CODEX_HOME/sessions and "
        "archived_sessions, else the newest root session started in --cwd; subagent rollouts and "
        "empty or corrupt ones are never picked. Prints the line to paste into Claude Code and copies "
        "it with wl-copy, xclip, xsel or pbcopy when one is there.",
    )
    c.add_argument(
        "--latest",
        action="store_true",
        help="the saved handoff, else the newest root session in --cwd (the default; kept for old scripts)",
    )
    # Not dest="cwd": that is the global -C, which this option's default would overwrite.
    c.add_argument(
        "--cwd",
        dest="copy_cwd",
        metavar="DIR",
        help="the directory (repository) the session worked in (default: the current directory)",
    )
    c.add_argument("--json", action="store_true", help="print JSON (text, rollout, threadId, source, clipboard)")
    c.set_defaults(func=lambda a: copy(cwd=a.copy_cwd, as_json=a.json))
