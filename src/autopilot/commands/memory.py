"""codex-bridge memory list | propose | approve | revoke: durable knowledge, decided only by a person.

``list`` and ``propose`` work anywhere (an agent may propose a candidate; it approves
nothing). ``approve`` and ``revoke`` need a person at a terminal: stdin must be a TTY, the
process must not run inside an agent's shell, and the person types their name twice.
"""

from __future__ import annotations

import argparse
import sys

from autopilot.errors import BridgeError
from autopilot.output import emit, say


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "memory",
        help="durable rules and decisions: list, propose; approve and revoke (a person at a terminal)",
        description="Durable knowledge (the memory a person approves, beside active state and evidence search): "
        "candidate rules and decisions, approved or revoked by a named person in the dashboard or here at a "
        "terminal. Kept in $AUTOPILOT_HOME/durable as an append-only, hash-chained log.",
    )
    msub = p.add_subparsers(dest="memory_command", metavar="ACTION", required=True)
    m = msub.add_parser("list", help="every rule and decision, newest first, and the log's integrity")
    m.add_argument("--status", choices=("candidate", "approved", "revoked", "superseded"))
    m.set_defaults(func=run)
    m = msub.add_parser(
        "propose",
        help="add a candidate (approves nothing)",
        description="Add a candidate rule or decision by hand (--text) or from a packet's constraint "
        "(--from-packet ID --constraint N). Candidates wait for a person's approval.",
    )
    m.add_argument("--kind", choices=("rule", "decision"), default="rule")
    m.add_argument("--text", help="the rule or decision, in one or two sentences")
    m.add_argument("--why", help="why it should hold")
    m.add_argument("--supersedes", metavar="ID", help="the approved rule this one replaces once approved")
    m.add_argument("--from-packet", metavar="PACKET_ID", help="take the text from this packet's constraints")
    m.add_argument("--constraint", type=int, default=0, metavar="N", help="which constraint (default 0)")
    m.add_argument("--by", default=None, metavar="NAME", help="who proposes it (default: the channel)")
    m.set_defaults(func=run)
    for action, helptext in (
        ("approve", "approve a candidate: a person at a terminal types their name twice"),
        ("revoke", "revoke a candidate or an approved rule: a person at a terminal types their name twice"),
    ):
        m = msub.add_parser(action, help=helptext, description=helptext + ". Refused without a TTY or in an agent.")
        m.add_argument("rule_id", metavar="ID")
        if action == "revoke":
            m.add_argument("--reason", help="why it no longer holds")
        m.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run one memory action and print its JSON."""
    from autopilot.durable.store import Log, agent_marker, check_id

    log = Log()
    if args.memory_command == "list":
        emit(log.listing(args.status))
        return 0
    if args.memory_command == "propose":
        at_terminal = sys.stdin.isatty() and agent_marker() is None
        by = args.by or ("terminal" if at_terminal else "cli")
        if args.from_packet:
            emit(log.propose_from_packet(args.from_packet, args.constraint, by=by))
            return 0
        if not args.text:
            raise BridgeError("propose needs --text, or --from-packet ID", hint="codex-bridge memory propose --help")
        channel = "terminal" if at_terminal else "cli"
        emit(log.propose(args.kind, args.text, by=by, channel=channel, why=args.why, supersedes=args.supersedes))
        return 0
    rule_id = check_id(args.rule_id)
    marker = agent_marker()
    if marker or not sys.stdin.isatty():
        raise BridgeError(
            f"`memory {args.memory_command}` needs a person at a terminal"
            + (f" (this runs inside an agent's shell: {marker} is set)" if marker else " (stdin is not a TTY)"),
            hint="run it yourself in your own terminal, or use the dashboard: codex-bridge dashboard",
        )
    rule = log.view()["rules"].get(rule_id)
    if rule is None:
        raise BridgeError(f"no rule or decision {rule_id}", hint="codex-bridge memory list")
    say(f"{args.memory_command} {rule_id} ({rule['kind']}, {rule['status']}): {rule['text']}")
    name = _ask("your name: ")
    confirm = _ask(f"type your name again to {args.memory_command} {rule_id}: ")
    emit(
        log.decide(
            args.memory_command,
            rule_id,
            person=name,
            confirm=confirm,
            channel="terminal",
            reason=getattr(args, "reason", None),
        )
    )
    return 0


def _ask(prompt: str) -> str:
    sys.stderr.write(prompt)
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        raise BridgeError("no answer (end of input); nothing was decided")
    return line.strip()
