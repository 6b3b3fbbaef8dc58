"""codex-bridge share push | pull | repair | list: packets and approved rules, shared through the project's remote.

``push`` shows what will leave the machine (``--dry-run``: only that) and sends packets, or with ``--rules`` the
approved rules and decisions of this project and their revocations, in ``refs/codex-autopilot/share`` (never a
branch); ``pull`` fetches what teammates pushed and verifies all of it before anything is kept; ``list`` shows
who shared what, from which machine and when, from what this clone already has; ``repair`` mends the files of the
shared ref that pulls refuse. See docs/share.md.
"""

from __future__ import annotations

import argparse

from autopilot.errors import BridgeError
from autopilot.output import emit, say


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "share",
        help="share packets and approved rules with your team through the project's git remote",
        description="Share handover packets and approved rules with your team through the project's own git "
        "remote, in the ref refs/codex-autopilot/share (never a branch, never your work tree). Packets are "
        "re-checked by the redactor before they leave; transcripts never leave. A shared rule is delivered on a "
        "teammate's machine only when its commit is SSH-signed by a signer listed in the repository's committed "
        ".codex-autopilot/allowed_signers; otherwise it waits there as a candidate. See docs/share.md.",
    )
    ssub = p.add_subparsers(dest="share_command", metavar="ACTION", required=True)

    def remote_option(s: argparse.ArgumentParser) -> None:
        s.add_argument(
            "--remote",
            metavar="NAME",
            help="the git remote (default: the current branch's upstream remote, else origin, else the only one)",
        )
        s.add_argument(
            "--cwd", dest="project_dir", metavar="DIR", help="the project directory (default: -C or the current one)"
        )

    s = ssub.add_parser(
        "push",
        help="send packets (or --rules) to the remote",
        description="Send the named packets, or with --rules this project's approved rules and decisions and "
        "their revocations, to the remote's refs/codex-autopilot/share. Prints what will leave first; --dry-run "
        "prints it and sends nothing. Refuses a packet or rule the redactor would still change. With no "
        "argument, sends what an earlier push could not (offline). Signs the commit when your git config signs "
        "with SSH (gpg.format ssh, user.signingkey).",
    )
    s.add_argument("packet_ids", nargs="*", metavar="PACKET_ID", help="sha256:<hex>, or 12+ leading hex digits")
    s.add_argument("--rules", action="store_true", help="also the approved rules and decisions, and revocations")
    s.add_argument("--dry-run", action="store_true", help="print what would be pushed; send nothing")
    remote_option(s)
    s.set_defaults(func=run)
    s = ssub.add_parser(
        "pull",
        help="fetch and verify what teammates shared",
        description="Fetch the remote's refs/codex-autopilot/share, verify every file (names, sizes, hashes, "
        "packets, rule records): a file that fails is refused and named with why, and everything else is used. "
        "Then add the new packets (labelled with their origin in handoff packets, search and the dashboard) and "
        "the shared rules: delivered when signed by a signer in HEAD's .codex-autopilot/allowed_signers, "
        "candidates otherwise. A refused file is mended by its author pushing it again, or by share repair.",
    )
    remote_option(s)
    s.set_defaults(func=run)
    s = ssub.add_parser(
        "repair",
        help="mend the files of the shared ref that pulls refuse (changed on the remote, or malformed)",
        description="Fetch the remote's refs/codex-autopilot/share and check it as a pull does. Each refused "
        "packet this machine holds a good copy of is replaced by it; every other refused file is left out (a rule "
        "record of a later format version is kept), in one commit pushed as share push pushes. Whoever shared a "
        "file that was left out can push it again. Nothing else changes.",
    )
    remote_option(s)
    s.set_defaults(func=run)
    s = ssub.add_parser(
        "list",
        help="who shared what, from which machine and when (no network)",
        description="List the packets and rule records on the share ref as this clone knows it (the last pull, "
        "and your own pushes): who the commit says shared each, from which machine, when, whether a rule's "
        "commit is signed by a listed signer, and whether a packet is here.",
    )
    remote_option(s)
    s.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run one share action and print its JSON."""
    cwd = args.project_dir or args.cwd
    from autopilot.knowledge.share import layout

    if args.share_command == "push":
        from autopilot.knowledge.durable.store import agent_marker
        from autopilot.knowledge.share.push import push

        marker = agent_marker()
        if args.rules and marker:
            raise BridgeError(
                f"`share push --rules` sends rules your team's machines will follow: run it yourself, not from an "
                f"agent's shell ({marker} is set)",
                hint="run it in your own terminal",
            )
        answer = push(cwd, args.remote, args.packet_ids, with_rules=args.rules, dry_run=args.dry_run)
        if answer["dryRun"]:
            say(f"dry run: {answer['newFiles']} new file(s) would go to {answer['remote']}; nothing was sent")
        else:
            tries = f"{answer['attempts']} attempt(s), {answer['merges']} merge(s)"
            say(f"sent to {answer['remote']} {answer['ref']} ({tries})")
            for path in answer.get("replaced") or []:
                say(f"replaced {path} on the remote with the good copy from here (it had been changed there)")
            for line in layout.told({r["path"]: r for r in answer.get("refused") or []}, answer["commit"]):
                say(f"note: {line}")
        emit(answer)
        return 0
    if args.share_command == "repair":
        from autopilot.knowledge.share.repair import repair

        mended = repair(cwd, args.remote)
        if not mended["refused"]:
            say(f"nothing to repair: every file of {mended['remote']} {mended['ref']} verifies")
        for r in mended["refused"]:
            done = (
                "replaced by the good copy here"
                if r["path"] in mended["replaced"]
                else "good again, with its other half"
                if r["path"] not in mended["removed"] and r["path"] not in mended["kept"]
                else "kept (a later version's)"
                if r["path"] in mended["kept"]
                else "left out"
            )
            say(f"{r['path']}: {r['why']}: {done}")
        emit(mended)
        return 0
    if args.share_command == "pull":
        from autopilot.knowledge.share.pull import pull

        pulled = pull(cwd, args.remote)
        got = pulled["rules"]
        say(
            f"pulled from {pulled['remote']}: {sum(p['status'] == 'new' for p in pulled['packets'])} new packet(s); "
            f"rules: {len(got['delivered'])} delivered (signed), {len(got['candidates'])} candidate(s), "
            f"{len(got['revoked'])} withdrawn, {len(got['waiting'])} waiting for you"
        )
        for note in pulled["notes"]:
            say(f"note: {note}")
        emit(pulled)
        return 0
    from autopilot.knowledge.share.listing import listing

    emit(listing(cwd, args.remote))
    return 0
