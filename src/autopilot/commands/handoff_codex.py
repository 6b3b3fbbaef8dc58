"""codex-bridge handoff from-codex intake | copy: a Codex rollout as evidence, and the line that hands it to Claude."""

from __future__ import annotations

import os
from typing import Any

from autopilot.errors import BridgeError
from autopilot.hooks import slash
from autopilot.output import say
from autopilot.transcripts import paging
from autopilot.transcripts.paging import DEFAULT_LIMIT, DEFAULT_MAX_CHARS


def intake(
    rollout: str,
    *,
    before_line: int | None = None,
    limit: int = DEFAULT_LIMIT,
    max_chars: int = DEFAULT_MAX_CHARS,
    full: bool = False,
) -> int:
    """Print the intake of one rollout as JSON: summary, one page of entries and the next cursor."""
    from autopilot.output import emit
    from autopilot.transcripts import codex_intake

    path = _check_rollout(rollout)
    bound = None if full else max_chars
    paging.check(before_line=before_line, limit=limit, max_chars=bound)
    try:
        answer = codex_intake.intake(path, before_line=before_line, limit=limit, max_chars=bound)
    except OSError as exc:
        raise BridgeError(f"cannot read {rollout}: {exc.strerror}; check the path and its permissions") from None
    emit(answer)
    return 0


def _check_rollout(rollout: str) -> str:
    path = os.path.expanduser(rollout)
    if not os.path.exists(path):
        raise BridgeError(
            f"{rollout} does not exist; pass a rollout path from $CODEX_HOME/sessions "
            "(the handoff pointer's transcript_path)"
        )
    if os.path.isdir(path):
        raise BridgeError(f"{rollout} is a directory; pass one rollout-*.jsonl file inside it")
    if path.endswith(".zst"):  # Codex compresses rollouts older than about a week
        from autopilot.codex.sessions import readable

        return str(readable(path))
    return path


CLAUDE_COMMAND = slash.namespaced("from-codex")  # namespaced: it resolves even if another skill takes the bare name


def handoff_text(rollout: str) -> str:
    """The line to paste into Claude Code: the from-codex skill on ``rollout`` (quoted for its argument parser)."""
    import shlex

    return f"{CLAUDE_COMMAND} {shlex.quote(rollout)}"


def copy(*, cwd: str | None = None, as_json: bool = False) -> int:
    """Print the handoff line for the session ``$handoff`` saved (or the newest root one in ``cwd``) and copy it."""

    from autopilot import clipboard
    from autopilot.codex import sessions
    from autopilot.output import emit

    where = os.path.abspath(cwd or os.getcwd())  # read at run time: `-C DIR` has changed directory by now
    if not os.path.isdir(where):
        raise BridgeError(f"--cwd {where} is not a directory; pass the directory you work in with Codex")
    choice = sessions.latest(where)
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
        print(text, flush=True)
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
    i.add_argument(
        "--before",
        "--before-line",
        dest="before_line",
        type=int,
        metavar="N",
        help="only entries before raw line N (exclusive): the previous page's nextBeforeLine",
    )
    i.add_argument(
        "--limit", type=int, default=DEFAULT_LIMIT, metavar="N", help=f"entries per page (default {DEFAULT_LIMIT})"
    )
    i.add_argument(
        "--max-chars",
        type=int,
        default=DEFAULT_MAX_CHARS,
        metavar="N",
        help=f"characters kept per string, head and tail (default {DEFAULT_MAX_CHARS})",
    )
    i.add_argument("--full", action="store_true", help="do not cut strings (the page size still applies)")
    i.set_defaults(
        func=lambda a: intake(a.rollout, before_line=a.before_line, limit=a.limit, max_chars=a.max_chars, full=a.full)
    )
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
