"""``codex-bridge share push``: packets, or the approved rules, onto the share ref and to the remote.

Before anything is written, every packet is verified (its hash, its evidence index) and every text in it, and in
every rule record, is run through the redactor again: one that still holds something the redactor would remove
(a credential planted after export, or one a newer redactor knows) refuses the whole push, naming the packet and
the kinds found. Transcripts are never read: a packet carries only its redacted excerpts and pointers. The
additions become one commit on ``refs/codex-autopilot/share`` (SSH-signed when this clone's git config signs
with SSH), then the ref is pushed, never forced. When the remote moved (a teammate pushed first) its tree is
fetched and checked as a pull checks it, the two trees are united in a merge commit that adds nothing of its own,
and the push is tried again: at most :data:`ATTEMPTS` times, waiting a little longer (and a random part) each
time. When the remote cannot be reached the commit stays on the local ref and the next ``share push`` sends it:
nothing is lost offline.
"""

from __future__ import annotations

import random
import socket
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from autopilot.errors import BridgeError
from autopilot.handoff.packets import shared, store
from autopilot.knowledge.durable.view import Reader
from autopilot.knowledge.share import gitops, layout, rules, trust
from autopilot.knowledge.share.ref import Share
from autopilot.output import one_line, say
from autopilot.redact import Redactor, redact

if TYPE_CHECKING:
    from autopilot.knowledge.share.shapes import PlannedPacket, PlannedRule, Pushed, Refusal, Sent

ATTEMPTS = 12
BACKOFF_S = 0.05  # the first wait after a rejected push; doubled each time, up to MAX_BACKOFF_S, plus jitter
MAX_BACKOFF_S = 2.0
ANNOUNCED = 20  # packets named on stderr before a push (the answer lists every one)


class Credential(BridgeError):
    """A packet or a rule that still holds what the redactor would remove: nothing was pushed."""


def _strings(value: Any) -> Iterator[str]:
    """Every string in a JSON-like value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _clean(what: str, value: Any) -> None:
    """Refuse ``value`` when the redactor would change any string in it.

    The strings are first redacted as one text (a blank line between two): one call instead of one per string,
    ~30 times faster on a packet. Only when that text changes is each string redacted alone, and only a string
    that changes alone refuses (two strings side by side can look like a name and its value).
    """
    texts = list(_strings(value))
    joined = "\n\n".join(texts)
    if redact(joined)[0] == joined:
        return
    redactor = Redactor()
    if any(redactor(text) != text for text in texts):
        kinds = ", ".join(f"{k} x{n}" for k, n in sorted(redactor.counts.items()))
        raise Credential(
            f"{what} still holds what looks like a credential ({kinds}): nothing was pushed",
            hint="leave it out, or export the session again (export redacts); check where the text came from",
        )


def _packet(ref: str, share: Share) -> tuple[dict[str, tuple[bytes, str | None]], PlannedPacket]:
    """A verified, redaction-clean packet of this project: its two files for the tree, and what the plan shows."""
    pid, packet, evidence = store.load(ref)
    repo = packet["repository"]
    if repo.get("repoId") != share.project.repo_id and pid not in shared.origins(share.project.repo_id):
        raise BridgeError(
            f"packet {pid} was made in the repository at {one_line(str(repo.get('root')), 200)}, not in "
            f"{share.project.root}: it is not this project's to share, and nothing was pushed",
            hint="share it from its own project (codex-bridge -C THAT_DIR share push ID)",
        )
    _clean(f"packet {pid}", packet)
    _clean(f"the evidence index of packet {pid}", evidence)
    hexid = pid.removeprefix("sha256:")
    path = store.resolve(pid)
    evidence_path = path.with_name(f"{hexid}.evidence.json")
    files: dict[str, tuple[bytes, str | None]] = {
        f"packets/{hexid}.json": (path.read_bytes(), str(path)),
        f"packets/{hexid}.evidence.json": (evidence_path.read_bytes(), str(evidence_path)),
    }
    objective = packet.get("objective")
    text = objective.get("text") if isinstance(objective, dict) else objective
    shown: PlannedPacket = {
        "packet": pid,
        "from": packet["source"].get("agent"),
        "to": packet["destination"]["agent"],
        "createdAt": packet.get("createdAt"),
        "objective": one_line(text or "", 120),
        "bytes": sum(len(b) for b, _ in files.values()),
    }
    return files, shown


def push(cwd: str | None, remote: str | None, packet_ids: list[str], *, with_rules: bool, dry_run: bool) -> Pushed:
    """Share ``packet_ids`` (and with ``with_rules`` this project's approved rules and their revocations)."""
    share = Share(cwd, remote)
    with share.locked():
        base = gitops.resolve(share.repo, gitops.REF)
        have = share.files(base)
        kind = gitops.object_format(share.repo)
        files: dict[str, tuple[bytes, str | None]] = {}  # tree path -> bytes, and the file that holds them
        packets: list[PlannedPacket] = []
        for ref in dict.fromkeys(packet_ids):
            found, shown = _packet(ref, share)
            # new, or our good copy of a file the tree holds with other bytes (changed on the remote): it replaces it
            shown["new"] = any(have.get(p) != gitops.blob_id(d, kind) for p, (d, _) in found.items())
            files.update(found)
            packets.append(shown)
        records: list[PlannedRule] = []
        if with_rules:
            known = set(have) | set(share.entries(gitops.resolve(share.repo, gitops.INCOMING)))
            for rec in rules.outgoing(Reader().view(), share.project.repo_id, known):
                _clean(f"rule {rec['rule']}", rec["text"])
                files[rec["path"]] = (rec["data"], None)
                records.append(
                    {
                        "rule": rec["rule"],
                        "action": rec["action"],
                        "share": layout.share_id(rec["data"]),
                        "text": one_line(rec["text"], 200),
                        "new": rec["path"] not in have,
                    }
                )
        new = {p: d for p, d in files.items() if have.get(p) != gitops.blob_id(d[0], kind)}
        key = gitops.signing(share.repo)
        plan: Pushed = {
            "remote": share.remote,
            "ref": gitops.REF,
            "packets": packets,
            "rules": records,
            "newFiles": len(new),
            "signedWith": key,
            "leaves": "the packets' canonical JSON and evidence indexes (redacted excerpts and pointers) and the rule "
            "records listed; never a transcript",
            "dryRun": dry_run,
            "sent": False,
        }
        if dry_run:
            return plan
        _announce(plan, new)
        head = base
        if new:
            head = _commit(share, base, have, new, len(packets), len(records), key)
        sent = send(share, head)
        plan["sent"], plan["commit"], plan["attempts"], plan["merges"] = (
            True,
            sent["commit"],
            sent["attempts"],
            sent["merges"],
        )
        plan["refused"], plan["replaced"] = sent["refused"], sent["replaced"]
        return plan


def _announce(plan: Pushed, new: dict[str, tuple[bytes, str | None]]) -> None:
    """Say on stderr what is about to leave the machine, before it does."""
    say(f"sharing through {plan['remote']} ({plan['ref']}), {len(new)} new file(s):")
    for p in plan["packets"][:ANNOUNCED]:
        say(f"  packet {p['packet'][:19]}… {p['from']} -> {p['to']}: {p['objective'] or '(no objective)'}")
    if len(plan["packets"]) > ANNOUNCED:
        say(f"  … and {len(plan['packets']) - ANNOUNCED} more packet(s) (the JSON answer lists them all)")
    for r in plan["rules"]:
        say(f"  {r['action']} {r['rule']}: {r['text']}")
    say(f"  commit {'signed with ' + one_line(plan['signedWith'], 80) if plan['signedWith'] else 'unsigned'}")


def _message(packets: int, records: int) -> str:
    host = one_line(socket.gethostname() or "unknown", 80)
    return f"codex-autopilot share: {packets} packet(s), {records} rule record(s)\n\n{trust.MACHINE}: {host}\n"


def _commit(
    share: Share,
    base: str | None,
    have: dict[str, str],
    new: dict[str, tuple[bytes, str | None]],
    packets: int,
    records: int,
    key: str | None,
) -> str:
    """One commit adding ``new`` to the share ref (compare-and-swap on the ref)."""
    paths = sorted(new)
    oids = gitops.write_blobs(share.repo, [new[p] for p in paths])
    tree = gitops.write_tree(share.repo, {**have, **dict(zip(paths, oids, strict=True))})
    commit = gitops.commit(share.repo, tree, [base] if base else [], _message(packets, records), sign=key is not None)
    if not gitops.update_ref(share.repo, gitops.REF, commit, base):
        raise BridgeError(f"{gitops.REF} moved while this push was made", hint="run share push again")
    return commit


def send(share: Share, head: str | None) -> Sent:
    """Push the ref, merging what the remote gained meanwhile, within :data:`ATTEMPTS`; what happened."""
    if head is None:
        raise BridgeError("nothing to share yet", hint="name packets (share push PACKET_ID...) or pass --rules")
    merges = 0
    wait = BACKOFF_S
    refused: list[Refusal] = []
    replaced: list[str] = []
    for attempt in range(1, ATTEMPTS + 1):
        try:
            if gitops.push(share.repo, share.remote):
                return {
                    "sent": True,
                    "commit": head,
                    "attempts": attempt,
                    "merges": merges,
                    "refused": refused,
                    "replaced": replaced,
                }
            theirs = gitops.fetch(share.repo, share.remote)
        except gitops.Unreachable as exc:
            raise gitops.Unreachable(
                f"{exc}; what you shared is kept as commit {head[:12]} on {gitops.REF} here, and the next "
                "`codex-bridge share push` sends it",
                hint="check the remote and the network, then run share push again",
            ) from None
        if theirs is not None and not gitops.is_ancestor(share.repo, theirs, head):
            merged, refused, mended = _merge(share, head, theirs)
            replaced = sorted({*replaced, *mended})
            merges += merged != theirs
            head = merged
        time.sleep(wait + random.uniform(0, wait))
        wait = min(wait * 2, MAX_BACKOFF_S)
    raise gitops.Unreachable(
        f"the remote's {gitops.REF} kept moving: {ATTEMPTS} pushes were rejected; what you shared is kept as commit "
        f"{head[:12]} here",
        hint="run share push again in a moment",
    )


def _merge(share: Share, ours: str, theirs: str) -> tuple[str, list[Refusal], list[str]]:
    """Our ref joined with the remote's, checked first as a pull checks it: (the commit the ref is now at, what the
    remote's tree held that was refused, the refused files our good copies replaced).

    The union of the two trees, adding nothing of its own; where the remote holds a file with other bytes than ours
    (it cannot be both: names are content addresses), the copy that verifies wins, so an author's push mends a file
    changed on the remote. When the remote holds all of ours and nothing is mended, the ref just follows it."""
    mine = share.files(ours)
    known = share.state().get("verified") or {}  # what a pull verified; our own files are checked like theirs
    their, _, _, bad = share.verified(theirs, known)
    merged = {**{p: str(r["oid"]) for p, r in bad.items() if r["oid"]}, **their}
    clash = sorted(p for p, o in mine.items() if merged.get(p, o) != o)
    good = _verifying(share, clash, mine)
    mended = []
    for path in clash:  # otherwise the remote's stands: it verifies, or neither copy does
        if path in good and path in bad:
            merged[path] = mine[path]  # our good copy replaces the one changed on the remote
            mended.append(path)
    for path, oid in mine.items():
        merged.setdefault(path, oid)
    if not mended and gitops.is_ancestor(share.repo, ours, theirs):
        gitops.update_ref(share.repo, gitops.REF, theirs, ours)  # they have it all already
        return theirs, list(bad.values()), []
    tree = gitops.write_tree(share.repo, merged)
    message = f"codex-autopilot share: merge\n\n{trust.MACHINE}: {one_line(socket.gethostname() or 'unknown', 80)}\n"
    commit = gitops.commit(share.repo, tree, [ours, theirs], message, sign=gitops.signing(share.repo) is not None)
    if not gitops.update_ref(share.repo, gitops.REF, commit, ours):
        raise BridgeError(f"{gitops.REF} moved while this push merged", hint="run share push again")
    return commit, [r for p, r in bad.items() if p not in mended], mended


def _verifying(share: Share, paths: list[str], tree: dict[str, str]) -> set[str]:
    """Which of ``paths`` in ``tree`` (path -> blob) are what their names say (a packet with its evidence index)."""
    if not paths:
        return set()
    halves = set(paths)
    for path in paths:
        if path.startswith("packets/"):
            hexid = path.rsplit("/", 1)[1].split(".", 1)[0]
            halves |= {h for h in (f"packets/{hexid}.json", f"packets/{hexid}.evidence.json") if h in tree}
    data = gitops.blobs(share.repo, sorted({tree[p] for p in halves}))
    contents = {p: data[tree[p]] for p in halves}
    good = set()
    for path in sorted(paths, key=lambda p: (not layout.PACKET.fullmatch(p), p)):
        try:
            layout.check(path, contents[path], contents)
        except (layout.FileRefused, KeyError, ValueError):
            continue
        good.add(path)
    return good
