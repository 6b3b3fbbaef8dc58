"""codex-bridge handoff checkpoint | active | recover: a live session's active memory (docs/memory.md).

``checkpoint`` stores what the agent says about its work (validated; a claim, never proof);
``active`` shows the session's reduced state, its coverage and its injection history; ``recover``
rebuilds what the hooks missed from the session's transcript. All three act on one session of
this worktree, named explicitly; none calls a model.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from autopilot.errors import BridgeError
from autopilot.output import show

if TYPE_CHECKING:
    from autopilot.handoff.memory.shapes import CheckpointBody

AGENTS = ("claude", "codex")


def _store(agent: str, session: str, cwd: str | None) -> Any:
    from autopilot.handoff.memory.store import SessionStore
    from autopilot.handoff.sources import check_session_id

    check_session_id(session)
    return SessionStore.here(agent, session, cwd)


def _known(agent: str, session: str) -> bool:
    """Whether the agent has a transcript of ``session`` (found by name, nothing read)."""
    from autopilot.handoff.memory.recover import source_for

    try:
        source_for(agent).locate(session)
    except BridgeError:
        return False
    return True


def checkpoint(agent: str, session: str, file: str, *, cwd: str | None = None) -> int:
    """Validate a checkpoint and append it to the session's active memory; print the stored record."""
    from autopilot.handoff.memory import checkpoint as checkpoints
    from autopilot.output import emit, say

    store = _store(agent, session, cwd)
    if file == "-":
        data, source = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode(), "stdin"
    else:
        try:
            with open(file, "rb") as fh:
                data = fh.read(checkpoints.MAX_BYTES + 1)
        except OSError as exc:
            raise BridgeError(f"cannot read {file}: {exc.strerror}; nothing was stored") from None
        source = f"file {file}"
    parsed = checkpoints.parse(data, "stdin" if file == "-" else file)
    if not store.exists() and not _known(agent, session):
        raise BridgeError(
            f"no {agent} session {session} is known here: no hook recorded it in this worktree and no transcript "
            "of it was found; nothing was stored",
            hint=f"check the id with `codex-bridge handoff list --from {agent}`",
        )
    entry, answer = write(store, parsed, source)
    say(answer["said"])
    emit(
        {
            "stored": True,
            "agent": agent,
            "session": session,
            "worktree": store.worktree,
            "at": entry["at"],
            "sha256": entry["sha256"],
            "writer": entry["by"],
            "claim": entry["claim"],
            "origin": answer["origin"],
            "reachesSession": answer["reaches"],
            "checkpoint": parsed,
        }
    )
    return 0


def write(store: Any, parsed: CheckpointBody, source: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Store a checkpoint as whoever runs this command may write it; the record and what to say about it.

    The person (no agent session's shell anywhere above this process): stored, and the session gets it with
    its next prompt. The session's own shell: stored as pending, and it counts once the session's own hook has
    seen this command print its hash. Another agent session's shell: recorded as from elsewhere, never
    injected into the session.
    """
    from autopilot.handoff.memory import checkpoint as checkpoints
    from autopilot.handoff.memory.origin import caller
    from autopilot.handoff.memory.reduce import ELSEWHERE

    who = caller()
    relation = who.relation(store.agent, store.session)
    name = f"{store.agent} session {store.session}"
    if relation == "person":
        entry = checkpoints.record(store, parsed, source, by=checkpoints.PERSON)
        return entry, {
            "origin": who.describe(),
            "reaches": "with the session's next prompt",
            "said": f"checkpoint stored for {name}, as written outside any agent session's shell (never labelled "
            "as the person's: nothing here can tell them from a process running as them); it reaches the session "
            "with its next "
            "prompt",
        }
    if relation == "own":
        entry = checkpoints.record(store, parsed, source, pending=True, origin=who.describe())
        return entry, {
            "origin": who.describe(),
            "reaches": "once the session's own hook has seen this command (its next prompt)",
            "said": f"checkpoint stored for {name} (the agent's claim, not proof); it reaches the session once "
            "its own hook has seen this command",
        }
    entry = checkpoints.record(store, parsed, source, by=ELSEWHERE, origin=who.describe())
    return entry, {
        "origin": who.describe(),
        "reaches": False,
        "said": f"refused for {name}'s context: this command runs in {who.describe()}, not in {name}'s own; "
        "it was recorded as from elsewhere and is never injected into that session",
    }


def active(agent: str, session: str, *, as_json: bool = False, cwd: str | None = None) -> int:
    """Print the session's active state (text, or JSON with ``--json``)."""
    from autopilot.handoff.memory import view
    from autopilot.handoff.memory.store import elsewhere
    from autopilot.output import emit

    store = _store(agent, session, cwd)
    if not store.exists():
        other = elsewhere(agent, session)
        if other:
            raise BridgeError(
                f"{agent} session {session} has no active memory in {store.worktree}; it has one in "
                + ", ".join(other),
                hint="run the command there (codex-bridge -C <worktree> handoff active ...)",
            )
        hint = (
            f"`codex-bridge handoff recover --from {agent} --session {session}` rebuilds it from the transcript"
            if _known(agent, session)
            else f"check the id with `codex-bridge handoff list --from {agent}`"
        )
        raise BridgeError(f"no active memory for {agent} session {session} in {store.worktree}", hint=hint)
    answer = view.view(store)
    if as_json:
        emit(answer)
    else:
        show(view.text(answer))
    return 0


def recover(agent: str, session: str, *, cwd: str | None = None) -> int:
    """Rebuild what the hooks missed from the transcript; print what was added."""
    from autopilot.handoff.memory.recover import recover as rebuild
    from autopilot.handoff.sources import check_session_id
    from autopilot.output import emit, say

    check_session_id(session)
    summary = rebuild(agent, session, cwd)
    total = sum(summary["added"].values())
    say(
        f"recovered {total} observation(s) for {agent} session {session}"
        if total
        else f"nothing to recover for {agent} session {session}: the active memory holds what the transcript shows"
    )
    emit(summary)
    return 0


def inject(agent: str) -> int:
    """For a hook script: read the hook event on stdin, print the hook JSON with the approved rules and the changed
    facts (or nothing)."""
    import json

    from autopilot.hooks import TEXT_CAP
    from autopilot.knowledge.durable.deliver import hook_answer
    from autopilot.loop.state import Store

    try:
        data = json.loads(sys.stdin.read() or "{}")
    except ValueError:
        raise BridgeError("handoff inject reads a hook event (a JSON object) on stdin") from None
    if not isinstance(data, dict):
        raise BridgeError("handoff inject reads a hook event (a JSON object) on stdin")
    from autopilot.knowledge.share.vouch import vouch

    answer = hook_answer(
        agent, str(data.get("hook_event_name") or ""), data, room=TEXT_CAP, run_of=Store.peek_workspace, vouch=vouch
    )
    if answer:
        sys.stdout.write(json.dumps(answer) + "\n")
    return 0


def _session_options(p: Any, flag: str = "--agent", what: str = "whose session it is") -> None:
    """The agent and session options every action here takes."""
    p.add_argument(flag, dest="agent", choices=AGENTS, required=True, help=what)
    p.add_argument("--session", required=True, metavar="ID", help="the session (Claude) or thread (Codex) id")


def add_parser(handoff_subparsers: Any) -> None:
    """Register ``checkpoint``, ``active``, ``recover`` and ``inject`` under the ``handoff`` command's subparsers."""
    c = handoff_subparsers.add_parser(
        "checkpoint",
        help="store an agent's semantic checkpoint for its session (a claim, not proof)",
        description="Validate a checkpoint JSON ({objective, constraints[], next_action, unresolved[], "
        "completed[]}) against the schema shipped with codex-bridge and append it to the session's active "
        "memory in this worktree. A bad file is refused with one line and nothing is stored. An unresolved "
        "item stays open until a checkpoint lists it as completed.",
    )
    _session_options(c)
    c.add_argument("--file", required=True, metavar="F", help="the checkpoint JSON file, or - for stdin")
    c.set_defaults(func=lambda a: checkpoint(a.agent, a.session, a.file))

    s = handoff_subparsers.add_parser(
        "active",
        help="show a session's active memory: objective, next action, unresolved work, coverage, injections",
        description="Reduce the session's observations and checkpoints (in this worktree) into its active "
        "state: objective and where it came from, constraints, current work, next action, unresolved and "
        "completed items, recent evidence, checkpoint age, coverage (complete, or degraded with the reasons) "
        "and the injection history. Read-only; every string is redacted.",
    )
    _session_options(s)
    s.add_argument("--json", action="store_true", help="print JSON instead of text")
    s.set_defaults(func=lambda a: active(a.agent, a.session, as_json=a.json))

    r = handoff_subparsers.add_parser(
        "recover",
        help="rebuild a session's observations from its transcript when hooks missed them (no model call)",
        description="Read the session's Claude Code transcript or Codex rollout through the transcript "
        "readers and append the requests, edits, validation runs, compactions and model changes the hooks "
        "did not record. Checkpoints are never touched; running it twice adds nothing; no model is asked.",
    )
    _session_options(r, "--from", "whose transcript to read")
    r.set_defaults(func=lambda a: recover(a.agent, a.session))

    i = handoff_subparsers.add_parser(
        "inject",
        help="(for hook scripts) the changed facts to inject before the next turn, as hook JSON",
        description="Read a hook event (SessionStart or UserPromptSubmit JSON) on stdin and print the hook answer "
        "that injects the facts changed since the last injection into that session (nothing when none did). "
        "codex-autopilot's Codex hook runs this after recording the event.",
    )
    i.add_argument("--agent", choices=AGENTS, required=True, help="whose session the event belongs to")
    i.set_defaults(func=lambda a: inject(a.agent))
