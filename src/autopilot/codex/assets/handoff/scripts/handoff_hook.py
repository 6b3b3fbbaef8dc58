"""codex-autopilot's Codex UserPromptSubmit hook: the prompt `$handoff` records this session for Claude Code.

Installed by `codex-bridge install codex` and run by Codex before every prompt, so it is standard
library only and fails open: any other prompt, a subagent's prompt, or any internal error exits 0
with no output, and Codex carries on as if the hook were not there. For a root session's `$handoff`
it atomically writes $AUTOPILOT_HOME/handoff/codex-latest.json and exits 2, which makes Codex stop
the prompt before any model request and show the user what stderr says.

Stand-alone twins (this file cannot import the bridge; tests/unit/test_twins.py runs both sides on
the same inputs): ``home`` is ``autopilot.paths.autopilot_home``, ``now_iso`` is
``autopilot.clock.now_us``, ``is_subagent_rollout`` is ``autopilot.codex.sessions.child_marker``
on line 1, ``write_pointer`` is ``autopilot.fsutil.atomic_write``.
"""

import contextlib
import json
import os
import sys

TRIGGER = "$handoff"
CLAUDE_LINE = "/codex-autopilot:from-codex"
POINTER = "codex-latest.json"
META_LIMIT = 8 << 20  # session_meta carries the base instructions: tens of kB, never this much
BLOCK = 2  # Codex: exit 2 with a reason on stderr blocks the prompt (stdout may carry login-shell noise)


def home() -> str:
    """$AUTOPILOT_HOME, default ~/.codex-autopilot."""
    return os.environ.get("AUTOPILOT_HOME") or os.path.join(os.path.expanduser("~"), ".codex-autopilot")


def say(message: str) -> None:
    """Write one line on stderr as UTF-8, whatever the locale (an encoding error must not unblock)."""
    sys.stderr.buffer.write((message + "\n").encode("utf-8", "replace"))
    sys.stderr.flush()


def now_iso() -> str:
    """The current UTC time in the bridge's format (ISO 8601, microseconds, Z)."""
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def is_subagent_rollout(path: str) -> bool:
    """Whether the rollout's first line (if Codex has written it yet) describes a child thread."""
    try:
        with open(path, "rb") as fh:
            first = fh.readline(META_LIMIT)
        meta = json.loads(first)
    except (OSError, ValueError):
        return False  # not flushed yet, or unreadable: the hook input already said it is no subagent's
    payload = meta.get("payload") if isinstance(meta, dict) else None
    if not isinstance(payload, dict) or meta.get("type") != "session_meta":
        return False
    source = payload.get("source")
    return bool(
        payload.get("agent_path")
        or payload.get("thread_source") == "subagent"
        or (isinstance(source, dict) and "subagent" in source)
    )


def write_pointer(pointer: dict) -> str:  # type: ignore[type-arg]  # stdlib-only script: no typing import
    """Write the pointer next to its final name, sync it and rename it into place; return its path."""
    import tempfile

    folder = os.path.join(home(), "handoff")
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, POINTER)
    fd, tmp = tempfile.mkstemp(prefix=f".{POINTER}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(pointer, indent=2, sort_keys=True) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return target


def handle(raw: bytes) -> int:
    """The hook's answer to one event: 0 (let the prompt through) or 2 (blocked, reason on stderr)."""
    if TRIGGER.encode() not in raw:  # the fast path: every ordinary prompt ends here, unparsed
        return 0
    data = json.loads(raw)
    if not isinstance(data, dict) or str(data.get("prompt") or "").strip() != TRIGGER:
        return 0
    if data.get("agent_id") or data.get("agent_type"):  # Codex sets these only for a subagent's prompt
        return 0
    transcript = data.get("transcript_path")
    cwd = str(data.get("cwd") or os.getcwd())
    if not isinstance(transcript, str) or not transcript:
        say(
            "codex-autopilot: this Codex session keeps no rollout file (an ephemeral session?), so no handoff "
            "was recorded. Start a normal session and type $handoff there."
        )
        return BLOCK
    if is_subagent_rollout(transcript):
        return 0
    pointer = {"transcript_path": transcript, "cwd": cwd, "session_id": data.get("session_id"), "created_at": now_iso()}
    try:
        target = write_pointer(pointer)
    except OSError as exc:
        say(
            f"codex-autopilot: the handoff was NOT recorded: cannot write {home()}/handoff/{POINTER} "
            f"({exc.strerror or exc}). Nothing was sent to the model; fix that and type $handoff again."
        )
        return BLOCK
    session = str(data.get("session_id") or "?")[:8]
    say(
        f"codex-autopilot: handoff recorded for Codex session {session}... (pointer: {target}). "
        f"Now, in Claude Code in {cwd}, type:  {CLAUDE_LINE}"
    )
    return BLOCK


def crash_log(exc: BaseException) -> None:
    """Append the traceback to $AUTOPILOT_HOME/crash.log, if that can be done at all."""
    try:
        import traceback

        os.makedirs(home(), exist_ok=True)
        with open(os.path.join(home(), "crash.log"), "a", encoding="utf-8") as fh:
            fh.write(f"--- {now_iso()} codex $handoff hook\n")
            fh.write("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    except Exception:
        pass


def main() -> int:
    """Read the event from stdin and answer; never let an error reach Codex as a failure."""
    os.umask(os.umask(0o077) | 0o077)  # what it writes under $AUTOPILOT_HOME is its user's alone, as the bridge's
    try:
        return handle(sys.stdin.buffer.read())
    except Exception as exc:  # fail open: a broken hook must not break the user's prompt
        crash_log(exc)
        return 0


if __name__ == "__main__":
    sys.exit(main())
