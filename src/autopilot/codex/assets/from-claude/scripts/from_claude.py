"""Run `codex-bridge handoff intake` on the Claude Code session handed over with $handoff.

Installed by `codex-bridge install codex` into Codex's from-claude skill. Standard library only.
No shell is involved: the bridge runs with an argument list. Without a transcript argument, the
pointer $AUTOPILOT_HOME/handoff/claude-latest.json names the transcript, and its cwd must be this
repository (or this directory, outside git). codex-bridge is looked up on PATH first, then in the
installation that ran the installer (recorded next to this script in installed.json).

Stand-alone twin (tests/unit/test_twins.py runs both on the same inputs): ``place`` is
``autopilot.codex.sessions.place``.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
INSTALLED = os.path.join(HERE, "installed.json")
POINTER = "claude-latest.json"


def fail(message: str) -> int:
    """Say what went wrong and what to do, on stderr; the exit code for it."""
    print(f"from-claude: {message}", file=sys.stderr)
    return 1


def place(path: str) -> str:
    """The git top level holding ``path``, else the path itself (both resolved)."""
    path = os.path.realpath(path)
    probe = path
    while True:
        if os.path.exists(os.path.join(probe, ".git")):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            return path
        probe = parent


def bridge_command() -> "list[str] | None":
    """How to run codex-bridge: PATH first, then the installation recorded at install time."""
    found = shutil.which("codex-bridge")
    if found:
        return [found]
    try:
        with open(INSTALLED, encoding="utf-8") as fh:
            recorded = json.load(fh)
    except (OSError, ValueError):
        recorded = {}
    if not isinstance(recorded, dict):
        recorded = {}
    bridge, python = recorded.get("bridge"), recorded.get("python")
    if isinstance(bridge, str) and os.access(bridge, os.X_OK):
        return [bridge]
    if isinstance(python, str) and os.access(python, os.X_OK):
        return [python, "-I", "-m", "autopilot"]
    return None


def pointed_transcript() -> "tuple[str | None, str | None]":
    """The transcript the $handoff pointer names, or (None, why not)."""
    home = os.environ.get("AUTOPILOT_HOME") or os.path.join(os.path.expanduser("~"), ".codex-autopilot")
    pointer_path = os.path.join(home, "handoff", POINTER)
    try:
        with open(pointer_path, encoding="utf-8") as fh:
            pointer = json.load(fh)
    except FileNotFoundError:
        return None, (
            f"no Claude Code handoff yet ({pointer_path} does not exist): type $handoff in Claude Code "
            "first, or pass a transcript path"
        )
    except (OSError, ValueError) as exc:
        return None, f"cannot read {pointer_path} ({exc}): type $handoff in Claude Code again"
    transcript = pointer.get("transcript_path") if isinstance(pointer, dict) else None
    if not isinstance(transcript, str) or not transcript:
        return None, f"{pointer_path} names no transcript_path: type $handoff in Claude Code again"
    where = pointer.get("cwd")
    if not isinstance(where, str) or not where or place(where) != place(os.getcwd()):
        return None, (
            f"the Claude Code handoff is for {where or 'an unknown directory'}, not {os.getcwd()}: "
            "start Codex there, or pass the transcript path explicitly to continue here anyway"
        )
    print(
        f"from-claude: Claude Code session {str(pointer.get('session_id') or '?')[:8]}... handed over at "
        f"{pointer.get('created_at') or '?'}: {transcript}",
        file=sys.stderr,
    )
    return transcript, None


def pointed_packet() -> "str | None":
    """The packet the $handoff pointer names (Claude Code exported one with the session), or None."""
    home = os.environ.get("AUTOPILOT_HOME") or os.path.join(os.path.expanduser("~"), ".codex-autopilot")
    try:
        with open(os.path.join(home, "handoff", POINTER), encoding="utf-8") as fh:
            pointer = json.load(fh)
    except (OSError, ValueError):
        return None
    packet = pointer.get("packet") if isinstance(pointer, dict) else None
    return packet if isinstance(packet, str) and packet.startswith("sha256:") else None


def main(argv: "list[str]") -> int:
    """Parse the arguments, find the transcript and the bridge, and run the intake; its exit code."""
    parser = argparse.ArgumentParser(prog="from-claude", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("transcript", nargs="?", help="a Claude Code <session>.jsonl (default: the $handoff pointer's)")
    parser.add_argument("--before-line", type=int, metavar="N", help="the nextBeforeLine of the previous page")
    parser.add_argument("--limit", type=int, metavar="N", help="meaningful entries per page (default 12)")
    parser.add_argument("--max-chars", type=int, metavar="N", help="characters kept per string (default 2000)")
    parser.add_argument("--full", action="store_true", help="do not cut strings")
    parser.add_argument(
        "--import",
        dest="packet",
        nargs="?",
        const="",
        metavar="PACKET",
        help="(the handoff-import skill) no PACKET: list this project's handover packets; a PACKET id: import "
        "it into this Codex thread ($CODEX_THREAD_ID, which Codex sets for the commands it runs)",
    )
    args = parser.parse_args(argv)
    if args.packet is not None:
        return import_packet(args.packet)
    transcript = args.transcript
    if transcript is None:
        transcript, why = pointed_transcript()
        if transcript is None:
            return fail(str(why))
        packet = pointed_packet()
        if packet and os.environ.get("CODEX_THREAD_ID") and args.before_line is None:
            # $handoff exported the session as a packet: its import (verified here, with the sending session's
            # active memory) comes first, then the transcript's newest page.
            code = import_packet(packet)
            if code != 0:
                print("from-claude: the packet could not be imported; reading the transcript only", file=sys.stderr)
            sys.stdout.flush()
    if not os.path.isfile(transcript):
        return fail(
            f"{transcript} does not exist (any more): type $handoff in Claude Code again, or pass another transcript"
        )
    bridge = bridge_command()
    if bridge is None:
        return fail(
            "cannot find codex-bridge: it is not on PATH and the installation that ran "
            "`codex-bridge install codex` is gone; install codex-autopilot again and rerun that command"
        )
    command = [*bridge, "handoff", "intake", transcript]
    for flag, value in (("--before-line", args.before_line), ("--limit", args.limit), ("--max-chars", args.max_chars)):
        if value is not None:
            command += [flag, str(value)]
    if args.full:
        command.append("--full")
    try:
        return subprocess.run(command, stdin=subprocess.DEVNULL).returncode
    except OSError as exc:
        return fail(f"cannot run {command[0]}: {exc}")


def import_packet(packet: str) -> int:
    """List this project's packets, or import one into the Codex thread this command runs in."""
    bridge = bridge_command()
    if bridge is None:
        return fail(
            "cannot find codex-bridge: it is not on PATH and the installation that ran "
            "`codex-bridge install codex` is gone; install codex-autopilot again and rerun that command"
        )
    if not packet:
        command = [*bridge, "handoff", "packets"]
    else:
        thread = os.environ.get("CODEX_THREAD_ID", "")
        if not thread:
            return fail("CODEX_THREAD_ID is not set, so the receiving Codex thread is unknown: run this inside Codex")
        if not all(ch.isalnum() or ch == ":" for ch in packet):
            return fail(f"{packet!r} is not a packet id (letters, digits and ':'); list them with --import")
        # The id is Codex's own ($CODEX_THREAD_ID), not typed: a thread may not have saved its rollout yet.
        command = [*bridge, "handoff", "import", packet, "--to", "codex", "--session", thread, "--new-session"]
    try:
        return subprocess.run(command, stdin=subprocess.DEVNULL).returncode
    except OSError as exc:
        return fail(f"cannot run {command[0]}: {exc}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
