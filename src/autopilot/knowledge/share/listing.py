"""``codex-bridge share list``: who shared what, from which machine and when, without the network.

It reads what this clone has: the remote's share ref as the last pull verified it and this clone's own (which
may hold a push not sent yet). For each packet and rule record, the commit that brought it says who (its
author, as the commit says: only a signature proves anything), from which machine (its trailer) and when; a
rule record says whose SSH signature it carries and whether HEAD's allowed_signers lists the signer. Packets
say whether they are here (pulled, or this machine's own) and whether they are on the remote.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from autopilot.handoff.packets import shared, store
from autopilot.knowledge.share import gitops, layout, trust
from autopilot.knowledge.share.ref import Share
from autopilot.output import one_line

if TYPE_CHECKING:
    from autopilot.knowledge.share.shapes import Listed, Said, SharedPacket, SharedRule


def listing(cwd: str | None, remote: str | None) -> Listed:
    """Everything on the share ref as this clone knows it, newest first."""
    share = Share(cwd, remote)
    mine = gitops.resolve(share.repo, gitops.REF)
    theirs = gitops.resolve(share.repo, gitops.INCOMING)
    on_remote = share.entries(theirs)
    entries = {**on_remote, **share.entries(mine)}
    tips = [t for t in dict.fromkeys((mine, theirs)) if t]
    brought: dict[str, list[str]] = {}
    for tip in tips:
        for path, found in trust.brought_by(share.repo, tip, entries).items():
            brought.setdefault(path, [])
            brought[path] += [c for c in found if c not in brought[path]]
    firsts = {p: c[-1] for p, c in brought.items() if c}
    rule_paths = sorted(p for p in entries if layout.RULE.fullmatch(p))
    commits = sorted(set(firsts.values()) | {c for p in rule_paths for c in brought.get(p, [])})
    said = trust.commits(share.repo, commits)
    pulled = shared.origins(share.project.repo_id)
    nobody: Said = {"by": "", "at": "", "machine": ""}
    packets: list[SharedPacket] = []
    for path in sorted(p for p in entries if layout.PACKET.fullmatch(p)):
        pid = "sha256:" + path.rsplit("/", 1)[1].removesuffix(".json")
        info = said.get(firsts.get(path, "")) or nobody
        row: SharedPacket = {
            "packet": pid,
            "by": info["by"] or None,
            "machine": info["machine"] or None,
            "at": info["at"] or None,
            "commit": firsts.get(path),
            "onRemote": path in on_remote,
            "here": "pulled" if pid in pulled else "own" if _stored(pid) else "not pulled",
        }
        if row["here"] != "not pulled":
            _, listed = store.listed(store.resolve(pid))
            row["objective"] = one_line((listed or {}).get("objective") or "", 120)
        packets.append(row)
    data = gitops.blobs(share.repo, sorted({entries[p] for p in rule_paths}))
    seen = share.state().get("firstSeen")
    with trust.signers(share.repo, dict(seen) if isinstance(seen, dict) else {}) as allowed:
        checked = trust.judged(
            trust.signatures(share.repo, sorted({c for p in rule_paths for c in brought.get(p, [])}), allowed["file"]),
            allowed,
        )
        note = allowed["note"]
        new_signers = allowed["newSigners"]
    found_rules: list[SharedRule] = []
    for path in rule_paths:
        record = json.loads(data[entries[path]])
        bringers = brought.get(path, [])
        good = [c for c in bringers if c in checked and checked[c]["status"] == "good"]
        best: str | None = good[0] if good else bringers[-1] if bringers else None
        seal = checked.get(best or "") or {"status": "unsigned", "signer": None, "key": None}
        info = said.get(best or "") or nobody
        found_rules.append(
            {
                "share": layout.share_of_path(path),
                "type": record["type"],
                "kind": record.get("kind"),
                "text": one_line(record.get("text") or "", 200) if record["type"] == "rule" else None,
                "rule": record.get("rule"),
                "origin": record["origin"],
                "by": info["by"] or None,
                "machine": info["machine"] or None,
                "at": info["at"] or None,
                "commit": best,
                "signature": seal["status"],
                "signer": seal["signer"],
                "onRemote": path in on_remote,
            }
        )
    packets.sort(key=lambda r: str(r["at"] or ""), reverse=True)
    found_rules.sort(key=lambda r: str(r["at"] or ""), reverse=True)
    answer: Listed = {
        "remote": share.remote,
        "ref": gitops.REF,
        "local": mine,
        "remoteAsPulled": theirs,
        "unsent": bool(mine and mine != theirs and not (theirs and gitops.is_ancestor(share.repo, mine, theirs))),
        "packets": packets,
        "rules": found_rules,
        "notes": [note] if note else [],
        "newSigners": new_signers,
    }
    for signer in new_signers:
        answer["notes"].append(
            f"a new signer: {json.dumps(signer['principal'])} with key {signer['key']}, added in commit "
            f"{signer['commit'][:12]} by {signer['by']}, signed by {json.dumps(signer['signer'])}"
        )
    return answer


def _stored(pid: str) -> bool:
    return (store.packets_dir() / f"{pid.removeprefix('sha256:')}.json").is_file()
