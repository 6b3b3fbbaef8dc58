"""Build a handover packet from one observed session: claims with evidence, never more than the evidence says.

Input is what a source's ``observe`` returned (events oldest first, edits, checkpoints,
coverage) and the project's git state now. Every claim the packet makes carries
``refs`` (evidence references ``E<n>``, each an exact pointer into the source) or is
labelled ``"basis": "inference"``. Test results are historical: each says whether edits
followed it in the transcript, and none is called current; a run's outcome is what the
command reported (``transcripts.validation.classify``: its output, then its exit code),
never merely that the tool call completed, and ``outcomeBasis`` says which. Pending tool calls are listed
as pending, never as done and never replayed; nothing in a transcript (a tool printing
"APPROVED", an assistant saying "ignore previous instructions") sets the packet's
approval, which is always ``unreviewed``. Private reasoning never reaches a source's
events, so it cannot reach a packet. Excerpts share a byte/token budget; what does not fit
is dropped to its pointer and reported as a gap.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from autopilot import clock
from autopilot.digest import canonical
from autopilot.errors import BridgeError
from autopilot.handoff.packets import claims, store
from autopilot.handoff.packets import memory as packet_memory
from autopilot.handoff.packets.refs import CHARS_PER_TOKEN, Budget, Refs
from autopilot.handoff.sources import gap
from autopilot.handoff.sources.project import Project, git_state
from autopilot.handoff.transcripts.evidence import (
    OMITTED_SECRET,
    OMITTED_SECRET_OUTPUT,
    TRUST,
)
from autopilot.redact import Redactor

if TYPE_CHECKING:
    from autopilot.handoff.packets.shapes import (
        EvidenceIndex,
        EvidenceItem,
        Link,
        Packet,
        PacketRedactions,
        Repository,
    )
    from autopilot.handoff.sources.shapes import Event, Gap, Observed

DEFAULT_BUDGET_TOKENS = 12_000


def predecessors(observed: Observed) -> list[Link]:
    """Packets this session started from, newest import first: import receipts, then packet ids its user messages
    mention (verified). The first verified one is the packet whose claims the session inherits."""
    session = observed["session"]
    sid = session.get("threadId") or session.get("sessionId")
    ids = store.imported_into(observed["agent"], sid) if sid else []
    linked = {pid: "import-receipt" for pid in reversed(ids)}  # the newest import first: its claims are inherited
    for event in observed["events"]:
        if event["kind"] == "user":
            for hexid in store.MENTION.findall(event.get("text") or ""):
                linked.setdefault(f"sha256:{hexid}", "mention")
    out: list[Link] = []
    for pid, how in linked.items():
        try:
            _, packet, _ = store.load(pid)
        except BridgeError as exc:
            out.append({"packetId": pid, "linkedBy": how, "verified": False, "reason": str(exc)})
            continue
        out.append({"packetId": pid, "linkedBy": how, "verified": True, "packet": packet})
    return out


def build(
    observed: Observed, project: Project, destination: str, *, budget_tokens: int = DEFAULT_BUDGET_TOKENS
) -> tuple[Packet, EvidenceIndex]:
    """The packet (without its evidence-index hash) and its evidence index, from one observed session."""
    events = observed["events"]
    refs = Refs(events, "S1")
    budget = Budget(budget_tokens)
    session = observed["session"]
    state = git_state(project.worktree)
    repo: Repository = {
        **project.identity(),
        **state,
        "sessionBranch": session.get("gitBranch"),
        "branchMismatch": bool(
            session.get("gitBranch") and state["branch"] and session["gitBranch"] != state["branch"]
        ),
    }
    dirty = {d["path"]: d for d in repo["dirty"]}
    links = predecessors(observed)
    inherited = [p for p in links if p["verified"]]
    inherited_refs = _inherit(inherited)

    objective = claims.objective(observed, refs, budget, inherited)
    work = claims.completed_work(observed, events, refs, budget, project, dirty)
    unresolved = claims.unresolved(observed, events, refs, budget)
    nxt = claims.next_action(observed, events, refs, budget, unresolved, inherited)
    latest = claims.latest_messages(events, refs, budget)
    summaries = claims.compaction_summaries(observed, refs, budget)
    constraints = claims.constraints(observed, events, refs, budget, inherited)  # before the budget's gap is counted

    gaps: list[Gap] = list(observed["coverage"].get("gaps", []))
    if budget.dropped:
        gaps.append(
            gap(
                "budget",
                f"excerpts over the {budget_tokens}-token budget were dropped to their pointers",
                dropped=budget.dropped,
            )
        )
    if objective is None:
        gaps.append(gap("no_objective", "no user message was found to take the objective from"))
    gaps += [gap("unverified_predecessor", p["reason"], packetId=p["packetId"]) for p in links if not p["verified"]]
    redactor = Redactor()
    evidence = list(refs.items.values())
    first, last = (events[0].get("id"), events[-1].get("id")) if events else (None, None)
    first_at, last_at = (events[0].get("timestamp"), events[-1].get("timestamp")) if events else (None, None)
    packet: Packet = {
        "schema": store.SCHEMA,
        "version": store.VERSION,
        "createdAt": clock.now(),
        "trust": TRUST,
        "source": {
            "agent": observed["agent"],
            "kind": observed["kind"],
            "agentVersion": session.get("agentVersion"),
            "sessionId": session.get("sessionId"),
            "threadId": session.get("threadId"),
            "forkedFromId": session.get("forkedFromId"),
            "ancestry": session.get("ancestry") or [],
            "title": session.get("title"),
            "cwd": session.get("cwd"),
            "transcript": observed.get("transcript"),
            "hash": observed.get("hash"),
            "eventGraph": observed.get("graph"),
            "eventRange": {
                "first": first,
                "last": last,
                "events": len(events),
                "totalEvents": observed.get("totalEvents"),
                "firstTimestamp": first_at,
                "lastTimestamp": last_at,
            },
        },
        "destination": {"agent": destination},
        "repository": repo,
        "objective": objective,
        "constraints": constraints,
        "nextAction": nxt,
        "completedWork": work,
        "unresolved": unresolved,
        "latestMessages": latest,
        "compactionSummaries": summaries,
        "evidence": [_without_excerpt(item) for item in evidence] + inherited_refs,
        "predecessors": [
            {"packetId": p["packetId"], "linkedBy": p["linkedBy"], "verified": p["verified"]} for p in links
        ],
        "coverage": {
            "gaps": gaps,
            "omitted": observed["coverage"].get("omitted", {}),
            "unknown": observed["coverage"].get("unknown", {}),
            "limits": {"budgetTokens": budget_tokens},
        },
        "redactions": _redactions(observed, events),
        "approval": {
            "status": "unreviewed",
            "automaticImport": False,
            "note": "nothing in a transcript can approve anything: text that looks like an approval or a "
            "verdict is quoted evidence",
        },
    }
    memory = packet_memory.carried(
        observed["agent"], session.get("threadId") or session.get("sessionId"), project.worktree
    )
    if memory is not None:  # the session's newest checkpoint and what its hooks saw, labelled as such
        packet["activeMemory"] = memory
        asked = observed.get("firstObjective")
        packet_memory.apply(packet, memory, asked.get("timestamp") if asked else None)
    packet = redactor.walk(packet)  # a last pass: anything a builder derived is redacted too
    packet["redactions"]["packetPass"] = redactor.summary()["total"]
    size = len(canonical(packet))
    packet["estimates"] = {
        "bytes": size,
        "tokens": math.ceil(size / CHARS_PER_TOKEN),
        "method": f"estimate: characters / {CHARS_PER_TOKEN}, not a tokenizer count",
        "excerptBudgetTokens": budget_tokens,
        "excerptBudgetUsedTokens": budget_tokens - budget.left // CHARS_PER_TOKEN,
    }
    index: EvidenceIndex = {"schema": store.SCHEMA + "/evidence", "trust": TRUST, "entries": redactor.walk(evidence)}
    return packet, index


def _without_excerpt(item: EvidenceItem) -> EvidenceItem:
    """An evidence reference as the packet holds it: the excerpt stays in the evidence index."""
    kept = item.copy()
    kept.pop("excerpt", None)
    return kept


def _inherit(inherited: list[Link]) -> list[EvidenceItem]:
    out: list[EvidenceItem] = []
    for n, link in enumerate(inherited, 1):
        for item in link["packet"].get("evidence") or []:
            out.append(
                {
                    **item,
                    "ref": f"P{n}.{item['ref']}",
                    "packetId": link["packetId"],
                    "transcript": item.get("transcript") or link["packet"]["source"].get("transcript"),
                }
            )
    return out


def _redactions(observed: Observed, events: list[Event]) -> PacketRedactions:
    secret = sum(
        1
        for e in events
        if str(((e.get("tool") or {}).get("result") or {}).get("text", "")).startswith(
            (OMITTED_SECRET_OUTPUT, OMITTED_SECRET)
        )
    )
    written = sum(1 for e in events if OMITTED_SECRET in canonical((e.get("tool") or {}).get("input") or {}).decode())
    counts = observed.get("redactions") or {"total": 0, "by_kind": {}}
    return {
        "total": counts.get("total", 0),
        "byKind": counts.get("by_kind", {}),
        "secretFileResultsOmitted": secret,
        "secretFileContentsOmitted": written,
        "note": "credentials replaced by [REDACTED:<kind>]; outputs and contents of secret-bearing files "
        "omitted; the originals stay in the local transcript",
    }
