"""``codex-bridge share pull``: what teammates pushed, each file verified, then into this machine's stores.

The remote's share ref is fetched into a ref of our own and checked before anything is written here: it must be a
commit; every file of its tree a plain file under a content address, within its size limit, whose bytes hash to its
name; every packet verified as ``handoff inspect`` verifies one, with its evidence index; every rule record
canonical and of this format (:mod:`.layout`). A file that fails is refused alone (a packet with its evidence
index), named with why in the answer and on stderr, and never used; what verifies keeps flowing. A tree past a share
ref's bounds refuses the whole pull, and nothing here changes (the fetched ref is dropped). Then, for what is new:
packets go into the packet store (the same bytes, the same id) and are recorded as pulled into this repository with
their origin (who the commit says shared them, from which machine, when: :mod:`autopilot.handoff.packets.shared`),
the evidence index learns them, and rule records go to the durable log (:mod:`.rules`: delivered only when signed by
a signer HEAD's allowed_signers lists). The local share ref follows the remote's when it has nothing of its own to
push. A remote ref that no longer holds the commit the last pull verified (a forced push) is refused: what it
dropped (a revocation, say) stays here, and the next ``share push`` sends it back.
"""

from __future__ import annotations

import json
import os
import sqlite3
from typing import TYPE_CHECKING

from autopilot import clock
from autopilot.errors import BridgeError
from autopilot.handoff.packets import shared, store
from autopilot.handoff.search import index
from autopilot.knowledge.share import gitops, layout, rules, trust
from autopilot.knowledge.share.ref import Share

if TYPE_CHECKING:
    from autopilot.handoff.packets.shapes import Origin
    from autopilot.knowledge.share.shapes import PacketPulled, Pulled, Record, RulesPulled, Said, Seal, Signers, State


def pull(cwd: str | None, remote: str | None) -> Pulled:
    """Fetch, verify and bring in what the team shared; what came and what it became here."""
    share = Share(cwd, remote)
    with share.locked():
        state = share.state()
        known = state.get("verified") or {}
        tip = gitops.fetch(share.repo, share.remote)
        answer: Pulled = {
            "remote": share.remote,
            "ref": gitops.REF,
            "commit": tip,
            "packets": [],
            "rules": _empty(),
            "notes": [],
            "refused": [],
        }
        if tip is None:
            answer["notes"].append(f"{share.remote} has no {gitops.REF} yet: nothing shared")
            return answer
        try:
            _not_rewound(share, tip)
            entries, contents, ignored, refused = share.verified(tip, known)
            packet_paths = {p: o for p, o in entries.items() if layout.PACKET.fullmatch(p) and known.get(p) != o}
            rule_paths = {p: o for p, o in entries.items() if layout.RULE.fullmatch(p)}
            brought = trust.brought_by(share.repo, tip, {**packet_paths, **rule_paths})
            firsts = {p: c[-1] for p, c in brought.items() if c}
            wanted = set(firsts.values()) | {c for p in rule_paths for c in brought.get(p, [])}
            said = trust.commits(share.repo, sorted(wanted))
            old = gitops.blobs(share.repo, sorted({o for p, o in rule_paths.items() if p not in contents}))
            records: dict[str, Record] = {
                p: json.loads(contents[p] if p in contents else old[o]) for p, o in rule_paths.items()
            }
            seen = _first_seen(state, [*wanted, *firsts.values()])
            with trust.signers(share.repo, seen) as allowed:
                seals = _seals(share, rule_paths, brought, said, allowed)
                signers = allowed
        except BridgeError:
            gitops.delete_ref(share.repo, gitops.FETCHED)
            raise
        answer["refused"] = list(refused.values())
        answer["notes"] += layout.told(refused, tip)
        if ignored:
            answer["notes"].append(f"{ignored} file(s) this version does not know were ignored (a newer codex-bridge?)")
        if signers["note"]:
            answer["notes"].append(signers["note"])
        answer["packets"] = _packets(share, packet_paths, contents, firsts, said, answer["notes"])
        answer["rules"] = rules.incoming(records, seals, share.identity(), share.remote, signers["blob"])
        answer["signers"] = signers["principals"]
        _follow(share, tip)
        state["verified"], state["tip"], state["pulledAt"] = entries, tip, clock.now()
        state["firstSeen"] = seen
        share.save(state)
        return answer


def _first_seen(state: State, commits: list[str]) -> dict[str, str]:
    """When this machine first saw each commit (now for the new ones): what a key's validity window is judged by,
    never the date a commit claims (its author sets it)."""
    found = state.get("firstSeen")
    seen: dict[str, str] = {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}
    now = clock.now()
    for commit in commits:
        seen.setdefault(commit, now)
    return seen


def _not_rewound(share: Share, tip: str) -> None:
    """Refuse a remote share ref that no longer holds the commit the last pull verified: a forced push dropped what
    the team shared (a revocation, say), and a machine that never saw it would take the older state for the truth."""
    before = gitops.resolve(share.repo, gitops.INCOMING)
    if before is None or before == tip or gitops.is_ancestor(share.repo, before, tip):
        return
    raise layout.Refused(
        f"{share.remote}'s {gitops.REF} was rewritten: it no longer holds commit {before[:12]}, which the last pull "
        "verified (a forced push dropped what was shared, a revocation perhaps): refused, nothing here changed",
        hint="`codex-bridge share push` sends back what was dropped; if the team re-created the remote on purpose, "
        f"forget the old one first: git update-ref -d {gitops.INCOMING}",
    )


def _empty() -> RulesPulled:
    return {"delivered": [], "candidates": [], "revoked": [], "waiting": []}


def _seals(
    share: Share,
    rule_paths: dict[str, str],
    brought: dict[str, list[str]],
    said: dict[str, Said],
    allowed: Signers,
) -> dict[str, Seal]:
    """For each rule record, the best signature among the commits that brought it (a good one, if any), judged by the
    signers the default branch's history trusts and their validity as of when this machine first saw each commit."""
    commits = sorted({c for p in rule_paths for c in brought.get(p, [])})
    checked = trust.judged(trust.signatures(share.repo, commits, allowed["file"]), allowed)
    rank = {"good": 0, "expired": 1, "unlisted": 1, "bad": 2, "unsigned": 3}
    out: dict[str, Seal] = {}
    for path in rule_paths:
        options = brought.get(path) or []
        best = min(options, key=lambda c: (rank[checked[c]["status"]] if c in checked else 4, c), default=None)
        sig = checked.get(best or "") or {"status": "unsigned", "signer": None, "key": None}
        info = said.get(best or "") or {"by": "", "at": "", "machine": ""}
        out[path] = {
            "status": sig["status"],
            "signer": sig["signer"],
            "key": sig["key"],
            "commit": best or "",
            "by": info["by"],
            "at": info["at"],
            "machine": info["machine"],
        }
    return out


def _packets(
    share: Share,
    paths: dict[str, str],
    contents: dict[str, bytes],
    firsts: dict[str, str],
    said: dict[str, Said],
    notes: list[str],
) -> list[PacketPulled]:
    """Store the new packets, record their origin, index them; one row each."""
    rows: list[PacketPulled] = []
    pulled: dict[str, Origin] = {}
    here = shared.origins(share.project.repo_id)
    now = clock.now()
    for path in sorted(paths):
        hexid = path.rsplit("/", 1)[1].removesuffix(".json")
        pid = f"sha256:{hexid}"
        if (store.packets_dir() / f"{hexid}.json").is_file():  # this machine has it: its own, or pulled already
            elsewhere = None if pid in here else shared.origin_of(pid)
            if elsewhere is not None:  # pulled into another clone of the project: this one has it too now
                pulled[pid] = elsewhere[1]
                rows.append({"packet": pid, "status": "new", "shared": elsewhere[1]})
            elif pid not in here:
                rows.append({"packet": pid, "status": "own"})
            continue
        packet = json.loads(contents[path])
        evidence = json.loads(contents[f"packets/{hexid}.evidence.json"])
        stored, _ = store.store(packet, evidence, durable=False)  # synced once below, before they are recorded
        if stored != pid:  # the bytes were verified as canonical: storing them again gives the same id
            raise BridgeError(f"packet {pid} stored as {stored}: not the bytes that were verified")
        info = said.get(firsts.get(path, "")) or {"by": "", "at": "", "machine": ""}
        origin: Origin = {
            "by": info["by"],
            "machine": info["machine"],
            "at": info["at"],
            "commit": firsts.get(path, ""),
            "remote": share.remote,
            "pulledAt": now,
            "note": shared.NOTE,
        }
        pulled[pid] = origin
        rows.append({"packet": pid, "status": "new", "shared": origin})
    if pulled:
        os.sync()  # every packet written above reaches the disk before the record and the state say it is here
        shared.record(share.project.repo_id, share.project.root, pulled)
        try:
            db = index.open_index(notes=notes)
            try:
                index.sync(db, notes=notes)
            finally:
                db.close()
        except (BridgeError, OSError, sqlite3.Error) as exc:
            notes.append(f"the packets are stored, but the evidence index was not updated ({exc}); search catches up")
    return rows


def _follow(share: Share, tip: str) -> None:
    """Keep the remote's tree as verified, and let the local ref follow it when it has nothing of its own."""
    gitops.update_ref(share.repo, gitops.INCOMING, tip, gitops.resolve(share.repo, gitops.INCOMING))
    gitops.delete_ref(share.repo, gitops.FETCHED)
    mine = gitops.resolve(share.repo, gitops.REF)
    if mine is None or (mine != tip and gitops.is_ancestor(share.repo, mine, tip)):
        gitops.update_ref(share.repo, gitops.REF, tip, mine)
