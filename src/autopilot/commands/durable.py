"""codex-bridge durable list | propose | approve | revoke | supersede | secret: durable knowledge, decided by a person.

The command is named after what it keeps (``knowledge/durable/``, ``$AUTOPILOT_HOME/durable``, the dashboard's Durable
memory); ``memory``, its name before, still runs it.

``list`` and ``propose`` work anywhere (an agent may propose a candidate; it approves nothing).
``approve``, ``revoke``, ``supersede`` and ``secret`` need the person at their controlling terminal
(``/dev/tty``, never stdin or an argument) outside an agent's shell; deciding shows the rule exactly as
stored (control characters and escapes made visible), says first what an approval supersedes, then
asks the person's name and their approval passphrase (``knowledge/durable/secret.py``: the boundary an agent's
shell cannot cross, however it gets a terminal).
"""

from __future__ import annotations

import argparse
from typing import Any

from autopilot.errors import BridgeError
from autopilot.output import emit, say

DECIDE_HELP = (
    "Shows the rule exactly as stored, then asks your name and your approval passphrase at the terminal "
    "(/dev/tty). Refused without a controlling terminal or inside an agent's shell; a wrong passphrase decides "
    "nothing and makes the next try wait."
)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "durable",
        aliases=["memory"],  # its earlier name: scripts may still call it so
        help="durable rules and decisions: list, propose; approve, revoke, supersede (you, with your passphrase)",
        description="Durable knowledge (the memory a person approves, beside active state and evidence search): "
        "candidate rules and decisions, approved or revoked by you in the dashboard or here at a terminal with "
        "your approval passphrase, and delivered to Claude Code and Codex once approved. Kept in "
        "$AUTOPILOT_HOME/durable as an append-only, hash-chained log.",
    )
    msub = p.add_subparsers(dest="durable_command", metavar="ACTION", required=True)
    m = msub.add_parser("list", help="every rule and decision, newest first, and the log's integrity")
    m.add_argument("--status", choices=("candidate", "approved", "revoked", "superseded"))
    m.set_defaults(func=run)
    m = msub.add_parser(
        "propose",
        help="add a candidate (approves nothing)",
        description="Add a candidate rule or decision by hand (--text) or from a packet's constraint "
        "(--from-packet ID --constraint N). Candidates wait for a person's approval and reach no agent.",
    )
    m.add_argument("--kind", choices=("rule", "decision"), default="rule")
    m.add_argument("--text", help="the rule or decision, in one or two sentences")
    m.add_argument("--why", help="why it should hold")
    m.add_argument("--supersedes", metavar="ID", help="the approved rule this one replaces once approved")
    m.add_argument("--from-packet", metavar="PACKET_ID", help="take the text from this packet's constraints")
    m.add_argument("--constraint", type=int, default=0, metavar="N", help="which constraint (default 0)")
    m.add_argument("--by", default=None, metavar="NAME", help="who proposes it (default: the channel)")
    _scope_option(m)
    m.set_defaults(func=run)
    for action, helptext in (
        ("approve", "approve a candidate (you, with your approval passphrase)"),
        ("revoke", "revoke a candidate or an approved rule (you, with your approval passphrase)"),
    ):
        m = msub.add_parser(action, help=helptext, description=f"{helptext[0].upper()}{helptext[1:]}. {DECIDE_HELP}")
        m.add_argument("rule_id", metavar="ID")
        if action == "revoke":
            m.add_argument("--reason", help="why it no longer holds")
        m.set_defaults(func=run)
    m = msub.add_parser(
        "supersede",
        help="replace an approved rule with a new text (you, with your approval passphrase)",
        description="Propose TEXT as the successor of the approved rule ID and approve it at once: the old rule "
        f"no longer applies. {DECIDE_HELP}",
    )
    m.add_argument("rule_id", metavar="ID")
    m.add_argument("--text", required=True, help="the rule that replaces it")
    m.add_argument("--why", help="why it changes")
    _scope_option(m)
    m.set_defaults(func=run)
    m = msub.add_parser(
        "secret",
        help="set (or change) your approval passphrase, typed twice at the terminal",
        description="Set the approval passphrase every approval, revocation and supersession asks for, read "
        "twice from the terminal (/dev/tty) and stored only as a slow salted hash (scrypt) in "
        "$AUTOPILOT_HOME/durable/passphrase.json. Changing it asks for the current one first. No agent is ever "
        "shown it: type it only here or in the dashboard, never in a chat.",
    )
    m.set_defaults(func=run)
    m = msub.add_parser(
        "confirm",
        help="confirm a passphrase set without the one before it, so decisions made with it are delivered",
        description="A passphrase set without the current one (it was removed or forgotten) is a reset: decisions "
        "signed with it are not delivered, and every session start says so, until you confirm it here with that "
        "passphrase, typed at the terminal (/dev/tty). Confirm only a passphrase you set yourself.",
    )
    m.set_defaults(func=run)


def _scope_option(m: argparse.ArgumentParser) -> None:
    m.add_argument(
        "--global",
        dest="everywhere",
        action="store_true",
        help="it holds in every project (default: only in the repository of the current directory, or -C DIR)",
    )


def run(args: argparse.Namespace) -> int:
    """Run one durable action and print its JSON."""
    from autopilot.knowledge.durable.store import Log, agent_marker

    log = Log()
    if args.durable_command == "list":
        listing = log.listing(args.status)
        if listing["integrity"].get("viewRebuilt"):
            say(f"warning: {listing['integrity']['viewRebuilt']}")
        emit(listing)
        return 0
    if args.durable_command == "propose":
        return _propose(args, log, at_terminal=agent_marker() is None and _has_tty())
    marker = agent_marker()
    if marker:
        raise BridgeError(
            f"`durable {args.durable_command}` needs you at your own terminal (this runs inside an agent's shell: "
            f"{marker} is set)",
            hint="run it yourself in your own terminal, or use the dashboard: codex-bridge dashboard",
        )
    if args.durable_command == "secret":
        return _secret()
    if args.durable_command == "confirm":
        return _confirm()
    return _decide(args, log)


def _has_tty() -> bool:
    import sys

    return sys.stdin.isatty()


def _propose(args: argparse.Namespace, log: Any, *, at_terminal: bool) -> int:
    from autopilot.knowledge.durable.store import project_scope

    by = args.by or ("terminal" if at_terminal else "cli")
    scope = None if args.everywhere else _scope(args.cwd, project_scope)
    if args.from_packet:
        emit(log.propose_from_packet(args.from_packet, args.constraint, by=by, project=scope))
        return 0
    if not args.text:
        raise BridgeError("propose needs --text, or --from-packet ID", hint="codex-bridge durable propose --help")
    channel = "terminal" if at_terminal else "cli"
    emit(
        log.propose(
            args.kind, args.text, by=by, channel=channel, why=args.why, supersedes=args.supersedes, project=scope
        )
    )
    return 0


def _decide(args: argparse.Namespace, log: Any) -> int:
    """Show the rule as stored (and what it supersedes), then ask the name and the passphrase at the terminal."""
    from autopilot.knowledge.durable.store import check_id, project_scope
    from autopilot.knowledge.durable.terminal import Terminal

    rule_id = check_id(args.rule_id)
    with Terminal() as tty:
        rules = log.view()["rules"]
        action = "approve" if args.durable_command in ("approve", "supersede") else "revoke"
        if args.durable_command == "supersede":
            old = rules.get(rule_id)
            if old is None or old["status"] != "approved":
                raise BridgeError(
                    f"{rule_id} is {old['status'] if old else 'unknown'}: only an approved rule can be superseded"
                )
            scope = None if args.everywhere else _scope(args.cwd, project_scope)
            rule = log.propose(
                str(old.get("kind") or "rule"), args.text, by="terminal", channel="terminal", why=args.why,
                supersedes=rule_id, project=scope,
            )  # fmt: skip
            rules = {**rules, rule["id"]: rule}
            rule_id = rule["id"]
        rule = rules.get(rule_id)
        if rule is None:
            raise BridgeError(f"no rule or decision {rule_id}", hint="codex-bridge durable list")
        for line in describe(action, rule, rules):
            tty.show(line)
        name = tty.ask("your name: ")
        passphrase = tty.ask(f"your approval passphrase to {action} {rule_id}: ", secret=True)
        decided = log.decide(
            action, rule_id, person=name, secret=passphrase, channel="terminal", reason=getattr(args, "reason", None)
        )
        waiting = [d for d in decided.get("pending") or [] if d.get("action") == action]
        if waiting:
            tty.show(
                f"{rule_id} stays {decided['status']}: your passphrase was set without the one before it, so this "
                "decision waits until you confirm it (codex-bridge durable confirm); it is not delivered before."
            )
        else:
            tty.show(f"{rule_id} is now {decided['status']}.")
    emit(decided)
    return 0


def describe(action: str, rule: dict[str, Any], rules: dict[str, Any]) -> list[str]:
    """What the person reads before deciding: the rule exactly as stored (made visible), where it holds, and,
    first of all, which approved rule an approval would supersede."""
    from autopilot.output import one_line

    out = []
    old = rules.get(rule.get("supersedes") or "")
    if action == "approve" and old is not None and old["status"] == "approved":
        decided = old.get("approved") or {}
        out += [
            f"This approval SUPERSEDES {old['id']} (approved by {one_line(str(decided.get('person')))} at "
            f"{decided.get('at')}): it will no longer apply. Its text:",
            f"    {one_line(str(old.get('text')))}",
        ]
    project = rule.get("project")
    where = f"in {one_line(str(project.get('root')))} (every worktree)" if isinstance(project, dict) else "everywhere"
    proposed = rule.get("proposed") or {}
    out += [
        f"{action} {rule['id']}: a {rule.get('kind')}, now {rule['status']}, holding {where}; proposed by "
        f"{one_line(str(proposed.get('by')))} through {proposed.get('channel')} at {proposed.get('at')}.",
        "Its text, exactly as stored (control characters shown as \\x.. codes):",
        f"    {one_line(str(rule.get('text')))}",
    ]
    if rule.get("why"):
        out.append(f"Why: {one_line(str(rule['why']))}")
    share = (rule.get("source") or {}).get("share")
    if isinstance(share, dict):  # a teammate's rule pulled through the git remote (codex-bridge share pull)
        out.append(
            f"Shared through {one_line(str(share.get('remote')))} in commit {one_line(str(share.get('commit')))[:12]} "
            f"by {one_line(str(share.get('by')))} from {one_line(str(share.get('machine')))}, approved there by "
            f"{one_line(str(share.get('approvedBy')))}; no signature listed in HEAD's allowed_signers vouches for it: "
            "approving makes it your own rule."
        )
    return out


def _secret() -> int:
    """Set or change the approval passphrase, read twice from the terminal."""
    from autopilot.knowledge.durable import secret
    from autopilot.knowledge.durable.terminal import Terminal

    with Terminal() as tty:
        current = None
        if secret.record() is not None:
            tty.show("An approval passphrase is set; changing it needs the current one.")
            current = tty.ask("current approval passphrase: ", secret=True)
        tty.show(
            f"Choose a passphrase of {secret.MIN_CHARS} or more characters (a sentence only you know). No agent may "
            "ever see it: type it only here or in the dashboard."
        )
        new = secret.check_new(tty.ask("new approval passphrase: ", secret=True))
        if tty.ask("the same again: ", secret=True) != new:
            raise BridgeError("the two passphrases differ; nothing was changed")
        rec = secret.set_passphrase(new, current)
        how = _anchored(str(rec.get("key")))
        tty.show(f"The approval passphrase is set ({HOW[how]}).")
    emit(
        {
            "passphrase": "set",
            "at": rec["set"],
            "path": str(secret.path()),
            "kdf": "scrypt",
            "n": rec["n"],
            "key": _fingerprint(str(rec.get("key"))),
            "anchor": how,
        }
    )
    return 0


HOW = {
    "first": "your first approval key",
    "rotated": "its key signed by the one before it",
    "reset": "set without the one before it: decisions made with it are not delivered until you confirm it with "
    "`codex-bridge durable confirm`, and every session start says so",
}


def _anchored(key: str) -> str:
    """How the key just set entered the anchors: first, rotated or reset."""
    from autopilot.knowledge.durable import anchor
    from autopilot.knowledge.durable.view import home

    return next((str(a.get("how")) for a in reversed(anchor.read(home())) if a.get("key") == key), "reset")


def _fingerprint(key: str) -> str:
    from autopilot.knowledge.durable.anchor import fingerprint

    return fingerprint(key)


def _confirm() -> int:
    """Confirm a reset passphrase, typed at the terminal."""
    from autopilot.knowledge.durable import secret
    from autopilot.knowledge.durable.terminal import Terminal

    with Terminal() as tty:
        tty.show(
            "Confirming makes decisions signed with this passphrase count. Confirm only a passphrase you set yourself: "
            "if a session start told you of a passphrase you did not set, run `codex-bridge durable secret` instead."
        )
        done = secret.confirm(tty.ask("the approval passphrase to confirm: ", secret=True))
        tty.show("Confirmed." if done["confirmed"] else f"Nothing to confirm: {done.get('why')}.")
    emit(done)
    return 0


def _scope(cwd: str | None, project_scope: Any) -> dict[str, str]:
    """The project a proposal made here holds in; outside a git repository, say how to choose."""
    try:
        return project_scope(cwd)  # type: ignore[no-any-return]
    except BridgeError:
        raise BridgeError(
            "a rule holds in the repository it is proposed in, and this is not in a git repository",
            hint="run it inside the project (or -C DIR), or give --global for a rule that holds in every project",
        ) from None
