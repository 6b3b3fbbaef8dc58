"""Inspect and import handover packets: verify everything, compare git now with then, hand over bounded context.

``inspect`` re-verifies a packet's hash and its evidence index and shows it. ``importable``
says whether it may be imported here, and ``import_packet`` refuses, with the reason, a
packet that was tampered with, was made in another project or worktree, was made through
the app server (no local source bytes to check), or whose source transcript no longer
holds the bytes it was built from. A packet outlives its source: when the transcript was
deleted (both clients clean up old sessions), it is imported with every claim that cites
the transcript marked ``unavailable`` (its excerpt is the packet's copy), and the context
says so first. Then it compares the git state now with the packet's
(branch, HEAD, dirty paths and their content hashes) and marks every claim that the
change touches as stale, before printing the context for the receiving agent: quoted
evidence with pointers, never instructions.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from autopilot import clock
from autopilot.errors import BridgeError
from autopilot.handoff.memory.origin import caller
from autopilot.handoff.memory.store import SessionStore
from autopilot.handoff.packets import claims, shared, store
from autopilot.handoff.packets.context import render
from autopilot.handoff.packets.memory import seed
from autopilot.handoff.sources import check_session_id, verify_hash
from autopilot.handoff.sources.claude import ClaudeSource
from autopilot.handoff.sources.codex import CodexSource
from autopilot.handoff.sources.project import Project, changed_between, git_state
from autopilot.redact import Redactor

if TYPE_CHECKING:
    from autopilot.handoff.packets.shapes import (
        Checks,
        Drift,
        Imported,
        Inspected,
        Mark,
        Origin,
        Packet,
        Receipt,
        Receiving,
        Repository,
    )
    from autopilot.handoff.sources.shapes import GitState

CONTEXT_CHARS = 24_000  # the receiving agent's context, bounded (about 6,000 tokens)


def inspect(ref: str) -> Inspected:
    """A verified packet with its evidence index (raises PacketError for a tampered one)."""
    pid, packet, evidence = store.load(ref)
    source = packet["source"]
    pulled = shared.origin_of(pid)
    importable = pulled is not None or (source.get("kind") == "local" and bool(source.get("hash")))
    note = (
        f"{shared.label(pulled[1])}; {shared.NOTE}"
        if pulled
        else None
        if importable
        else "made through the app server: it can be inspected but not imported (no local source bytes to verify); "
        "re-export with --source local"
    )
    answer: Inspected = {
        "packet": pid,
        "path": str(store.resolve(pid)),
        "verified": {"packetHash": True, "evidenceIndex": True},
        "importable": importable,
        "importNote": note,
        "contents": packet,
        "evidenceIndex": evidence,
    }
    if pulled:
        answer["shared"] = pulled[1]
    return answer


def _refuse(pid: str, reason: str, hint: str) -> BridgeError:
    return store.PacketError(f"import of {pid} refused: {reason}", hint=hint)


def _receiving(agent: str, session: str, project: Project, *, new_session: bool) -> Receiving:
    """Where the receiving session is; one the agent does not know (a typo) or in another worktree is refused.

    A session that does not exist yet is accepted only when the person says so (``new_session``):
    the context then waits for a session that id will name.
    """
    source: ClaudeSource | CodexSource = ClaudeSource() if agent == "claude" else CodexSource()
    try:
        path = source.locate(session)
    except BridgeError:
        if not new_session:
            raise BridgeError(
                f"receiving session {session} is not one of {agent}'s saved sessions",
                hint=f"check the id with `codex-bridge handoff list --from {agent}`; for a session that does not "
                "exist yet, pass --new-session",
            ) from None
        return {
            "agent": agent,
            "sessionId": session,
            "found": False,
            "note": f"a new session: {agent} has no session {session} yet; the context is recorded for that id",
        }
    cwd = source.probe(path).get("cwd")
    if cwd and project.classify(cwd) != "this-worktree":
        raise BridgeError(
            f"receiving session {session} was recorded in {cwd}, not in {project.worktree}",
            hint="import from the receiving session's own worktree",
        )
    return {"agent": agent, "sessionId": session, "found": True, "transcript": path}


def drift(then: Repository | GitState, now: GitState, repo: str) -> Drift:
    """What changed in git between the packet and now: branch, HEAD, and which paths."""
    committed = changed_between(repo, then.get("head"), now.get("head"))
    if committed:  # names a view shows: a file named with a credential shows it withheld, as the dirty paths do
        shown = Redactor()
        committed = {shown(path) for path in committed}
    old = {d["path"]: d for d in then.get("dirty") or []}
    new = {d["path"]: d for d in now.get("dirty") or []}
    added = sorted(set(new) - set(old))
    removed = sorted(set(old) - set(new))
    changed = sorted(
        p
        for p in set(old) & set(new)
        if (old[p].get("contentHash"), old[p].get("status")) != (new[p].get("contentHash"), new[p].get("status"))
        or old[p].get("secretFile")
    )
    paths = set(added) | set(removed) | set(changed) | (committed or set())
    return {
        "branch": {
            "then": then.get("branch"),
            "now": now.get("branch"),
            "changed": then.get("branch") != now.get("branch"),
        },
        "head": {"then": then.get("head"), "now": now.get("head"), "changed": then.get("head") != now.get("head")},
        "committedPaths": sorted(committed) if committed is not None else None,
        "dirtyPaths": {"added": added, "removed": removed, "changed": changed},
        "diffHash": {
            "then": then.get("diffHash"),
            "now": now.get("diffHash"),
            "changed": then.get("diffHash") != now.get("diffHash"),
        },
        "changedPaths": sorted(paths),
        "any": then.get("diffHash") != now.get("diffHash") or then.get("branch") != now.get("branch"),
        "unknownHistory": committed is None and then.get("head") != now.get("head"),
    }


def stale_claims(packet: Packet, d: Drift) -> dict[str, list[Mark]]:
    """Every claim the git change touches, with why; objective and constraints are never git-stale."""
    out: dict[str, list[Mark]] = {
        "filesChanged": [],
        "validations": [],
        "pendingCommands": [],
        "nextAction": [],
    }
    branch = (
        f"the branch is now {d['branch']['now']}, the packet was made on {d['branch']['then']}"
        if d["branch"]["changed"]
        else None
    )
    changed = set(d["changedPaths"])
    work = packet["completedWork"]
    for i, f in enumerate(work.get("filesChanged") or []):
        reasons = [r for r in (branch,) if r]
        if f["path"] in changed:
            reasons.append(f"{f['path']} changed since the packet was made")
        elif d["unknownHistory"]:
            reasons.append("HEAD moved to a commit not related to the packet's: the file may have changed")
        if reasons:
            out["filesChanged"].append({"index": i, "path": f["path"], "reasons": reasons})
    for i, v in enumerate(work.get("validations") or []):
        if d["any"] or d["head"]["changed"]:
            out["validations"].append(
                {
                    "index": i,
                    "command": v["command"],
                    "reasons": [
                        "the work tree differs from the packet's: this result does not describe the current files"
                    ],
                }
            )
    if d["branch"]["changed"] or d["head"]["changed"]:
        why = branch or "HEAD moved since the packet was made"
        out["pendingCommands"] = [
            {"index": i, "reasons": [why]} for i, _ in enumerate(packet["unresolved"].get("pendingCommands") or [])
        ]
        if packet.get("nextAction"):
            out["nextAction"].append({"reasons": [why]})
    return out


def missing_sources(packet: Packet) -> set[str]:
    """The transcripts the packet's evidence points into that no longer exist on this machine."""
    own = packet["source"].get("transcript")
    paths = {own} | {e.get("transcript") for e in packet.get("evidence") or [] if e.get("transcript")}
    return {p for p in paths if isinstance(p, str) and p and not os.path.isfile(p)}


def unavailable_claims(packet: Packet, gone: set[str]) -> dict[str, list[Mark]]:
    """Every claim whose evidence lives in a transcript that is gone: its excerpt is now only the packet's copy."""
    out: dict[str, list[Mark]] = {group: [] for group, _, _ in claims.GROUPS}
    if not gone:
        return out
    own = packet["source"].get("transcript")
    where = {e["ref"]: e.get("transcript") or own for e in packet.get("evidence") or [] if e.get("ref")}
    for group, index, claim in claims.walk(packet):
        lost = [r for r in claim.get("refs") or [] if where.get(r) in gone]
        if lost:
            item: Mark = {"refs": lost, "sources": sorted({where[r] for r in lost})}
            if index is not None:
                item["index"] = index
            item["reasons"] = ["source transcript deleted; the packet's copy"]
            out[group].append(item)
    return out


def _source_note(
    transcript: str, deleted: bool, grown: int, gone: set[str], unavailable: dict[str, list[Mark]]
) -> str | None:
    n = sum(len(v) for v in unavailable.values())
    if deleted:
        return (
            f"the source transcript {transcript} no longer exists (Claude Code and Codex delete old sessions): "
            f"its bytes could not be checked, and the {n} claim(s) that cite it are marked UNAVAILABLE; "
            "their excerpts are the packet's copies"
        )
    notes = []
    if grown > 0:
        notes.append(
            f"the source session went on after export ({grown} more bytes): newer events are not in this packet"
        )
    if gone:
        notes.append(
            f"{len(gone)} earlier transcript(s) this packet inherits evidence from no longer exist: "
            f"{n} claim(s) are marked UNAVAILABLE"
        )
    return "; ".join(notes) or None


def import_packet(
    ref: str,
    *,
    to: str,
    session: str,
    cwd: str | None = None,
    max_chars: int = CONTEXT_CHARS,
    new_session: bool = False,
) -> Imported:
    """Verify a packet for this worktree and return the drift, the stale claims and the bounded context.

    The receiving session must be one the receiving agent has saved, unless ``new_session`` says it
    will be new.
    """
    check_session_id(session)
    pid, packet, _ = store.load(ref)
    project = Project(cwd)
    pulled = shared.origins(project.repo_id).get(pid)
    if pulled is not None:  # a teammate's packet this repository pulled: made elsewhere, its source is not here
        return _import_shared(pid, packet, pulled, project, to, session, max_chars, new_session)
    source = packet["source"]
    recorded = source.get("hash")
    if source.get("kind") != "local" or not recorded:
        raise _refuse(
            pid,
            "it was made through the app server, so no local source bytes can be verified",
            "inspect it with `codex-bridge handoff inspect`, or re-export with --source local",
        )
    if packet["destination"]["agent"] != to:
        raise _refuse(
            pid, f"it was exported for {packet['destination']['agent']}, not {to}", f"re-export it with --to {to}"
        )
    repo = packet["repository"]
    if repo.get("repoId") != project.repo_id:
        raise _refuse(
            pid,
            f"it belongs to the repository at {repo.get('root')}, not to {project.root}",
            "import it inside the project it was exported from",
        )
    if repo.get("worktreeId") != project.worktree_id:
        raise _refuse(
            pid,
            f"it was made in the worktree {repo.get('worktree')}, not {project.worktree}",
            "import it from that worktree (or export again from a session of this one)",
        )
    transcript = source.get("transcript") or ""
    deleted = not os.path.isfile(transcript)
    problem = None if deleted else verify_hash(recorded, transcript)
    if problem:  # changed or cut short: the packet's copies no longer match their source
        raise _refuse(pid, problem, "export a fresh packet from the session as it is now")
    receiving = _receiving(to, session, project, new_session=new_session)
    now = git_state(project.worktree)
    d = drift(repo, now, project.worktree)
    stale = stale_claims(packet, d)
    gone = missing_sources(packet)
    unavailable = unavailable_claims(packet, gone)
    grown = 0 if deleted else os.path.getsize(transcript) - max(e for _, e in recorded["ranges"])
    checks: Checks = {
        "packetHash": True,
        "evidenceIndex": True,
        "project": True,
        "worktree": True,
        "sourceHash": None if deleted else True,
        "sourceAvailable": not deleted,
        "sourceGrewBytes": grown,
        "sourceNote": _source_note(transcript, deleted, grown, gone, unavailable),
    }
    return _answer(pid, packet, to, session, project, receiving, checks, d, stale, unavailable, gone, max_chars)


def _import_shared(
    pid: str,
    packet: Packet,
    origin: Origin,
    project: Project,
    to: str,
    session: str,
    max_chars: int,
    new_session: bool,
) -> Imported:
    """Import a packet a teammate shared: made on another machine, so no source byte is checked and every claim
    that cites its transcripts is the packet's copy; git is compared with this worktree as for any packet."""
    if packet["destination"]["agent"] != to:
        raise _refuse(
            pid,
            f"it was exported for {packet['destination']['agent']}, not {to}",
            "ask whoever shared it to export it for that agent",
        )
    receiving = _receiving(to, session, project, new_session=new_session)
    d = drift(packet["repository"], git_state(project.worktree), project.worktree)
    stale = stale_claims(packet, d)
    own = packet["source"].get("transcript")
    gone = {p for p in [own, *(e.get("transcript") for e in packet.get("evidence") or [])] if isinstance(p, str) and p}
    unavailable = unavailable_claims(packet, gone)
    n = sum(len(v) for v in unavailable.values())
    checks: Checks = {
        "packetHash": True,
        "evidenceIndex": True,
        "project": True,  # pulled into this repository
        "worktree": False,  # made in a worktree of another machine
        "sourceHash": None,
        "sourceAvailable": False,
        "sourceGrewBytes": 0,
        "sourceNote": f"{shared.label(origin)}; {shared.NOTE} ({n} claim(s) are marked UNAVAILABLE)",
        "shared": origin,
    }
    return _answer(pid, packet, to, session, project, receiving, checks, d, stale, unavailable, gone, max_chars)


def _answer(
    pid: str,
    packet: Packet,
    to: str,
    session: str,
    project: Project,
    receiving: Receiving,
    checks: Checks,
    d: Drift,
    stale: dict[str, list[Mark]],
    unavailable: dict[str, list[Mark]],
    gone: set[str],
    max_chars: int,
) -> Imported:
    """The import's context, its receipt recorded, and the answer."""
    context = render(pid, packet, checks, d, stale, max_chars, unavailable=unavailable)
    receipt: Receipt = {
        "packet": pid,
        "to": to,
        "session": session,
        "importedAt": clock.now(),
        "worktree": project.worktree,
        "stale": sum(len(v) for v in stale.values()),
        "unavailable": sum(len(v) for v in unavailable.values()),
    }
    try:
        path: str | None = str(store.record_import(to, session, receipt))
        note = None
    except OSError as exc:  # a sandboxed agent (Codex's) may not write outside its workspace: the import stands
        path, note = None, f"the import receipt was not recorded ({exc.strerror or exc}); later packets of this "
        note += "session will not name this one as their predecessor"
    answer: Imported = {
        "packet": pid,
        "to": to,
        "receivingSession": receiving,
        "verified": checks,
        "gitDrift": d,
        "staleClaims": stale,
        "unavailableClaims": unavailable,
        "missingSources": sorted(gone),
        "receipt": path,
        "context": context,
        "contextChars": len(context),
        "contextTokensEstimate": -(-len(context) // 4),
    }
    if note:
        answer["receiptNote"] = note
    answer["memory"] = seed_memory(to, session, project, pid, packet)
    return answer


def seed_memory(agent: str, session: str, project: Project, pid: str, packet: Packet) -> dict[str, Any]:
    """Seed the receiving session's active memory from the packet, when whoever imports may write it.

    The person (no agent session's shell above this command): seeded now. The session's own shell: its own
    hook seeds it when it sees this import's answer (a sandboxed agent could not write here anyway). Another
    session's shell: that session's memory is not changed.
    """
    who = caller()
    relation = who.relation(agent, session)
    if relation == "person":
        entry = seed(SessionStore(agent, session, project.worktree), pid, packet)
        return {"seeded": entry is not None, "by": who.describe(), "label": f"from packet {pid}"}
    if relation == "own":
        return {"seeded": False, "by": who.describe(), "how": "the session's own hook seeds it from this answer"}
    return {
        "seeded": False,
        "by": who.describe(),
        "why": f"this runs in {who.describe()}, not in {agent} session {session}'s own: its memory is not changed",
    }
