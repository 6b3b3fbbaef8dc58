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
import os
import re
from typing import Any

from autopilot import clock
from autopilot.digest import canonical
from autopilot.errors import BridgeError
from autopilot.handoff.packets import memory as packet_memory
from autopilot.handoff.packets import store
from autopilot.handoff.packets.refs import CHARS_PER_TOKEN, Budget, Refs
from autopilot.handoff.sources import gap
from autopilot.handoff.sources.project import Project, git_state
from autopilot.handoff.transcripts.evidence import (
    OMITTED_SECRET,
    OMITTED_SECRET_OUTPUT,
    TRUST,
    constraints_in,
    sentences,
)
from autopilot.handoff.transcripts.validation import basis, classify, kind_of
from autopilot.redact import Redactor
from autopilot.text import clip_middle

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autopilot.handoff.packets.shapes import (
        Claim,
        CompletedWork,
        EvidenceIndex,
        EvidenceItem,
        Link,
        Packet,
        PacketRedactions,
        Repository,
        Unresolved,
    )
    from autopilot.handoff.sources.shapes import DirtyPath, Edit, Event, Gap, Observed

DEFAULT_BUDGET_TOKENS = 12_000
LATEST_MESSAGES = 8
HYPOTHESIS = re.compile(
    r"\b(?:I think|probably|likely|might be|may be|suspect|hypothes[ie]s|seems|appears|"
    r"could be|my guess)\b",
    re.I,
)
NEXT_LINE = re.compile(
    r"^\s*(?:[-*]\s*)?(?:\*\*)?(?:next(?: step)?s?|todo|remaining|still to do|then)(?:\*\*)?"
    r"\s*[:\-–]\s*(.+)$",
    re.I | re.M,
)
# The same statement in the middle of a line, after a sentence ends: "Tests pass. Next: add one more."
NEXT_INLINE = re.compile(r"(?:[.!?;)]|\s[-\u2013\u2014])\s+(?:\*\*)?next(?: steps?)?(?:\*\*)?\s*:\s*(.+)$", re.I | re.M)
HANDOFF_HEADER = "# Handoff packet sha256:"  # the first line of the context import prints


def _typed(event: Event) -> bool:
    """Whether a user event is words the user typed (not harness text, not a pasted handoff context)."""
    return (
        event["kind"] == "user"
        and bool(event.get("text"))
        and not event.get("origin")
        and HANDOFF_HEADER not in event["text"]
    )


def predecessors(observed: Observed) -> list[Link]:
    """Packets this session started from: import receipts, and packet ids its user messages mention (verified)."""
    session = observed["session"]
    sid = session.get("threadId") or session.get("sessionId")
    ids = store.imported_into(observed["agent"], sid) if sid else []
    linked = {pid: "import-receipt" for pid in ids}
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

    objective = _objective(observed, refs, budget, inherited)
    work = _completed(observed, events, refs, budget, project, dirty)
    unresolved = _unresolved(observed, events, refs, budget)
    nxt = _next_action(observed, events, refs, budget, unresolved, inherited)
    latest: list[Claim] = []
    for event in reversed([e for e in events if e["kind"] in ("user", "assistant") and e.get("text")]):
        if len(latest) >= LATEST_MESSAGES:
            break
        text = budget.take("latestMessages", event["text"], 1200)
        latest.append(
            {
                "role": event["kind"],
                "text": text,
                "refs": refs.cite(event),
                "timestamp": event.get("timestamp"),
                **({"omitted": "budget"} if text is None else {}),
            }
        )
    summaries: list[Claim] = []
    for k, cp in enumerate(reversed(observed.get("checkpoints") or [])):
        refs.by_id.setdefault(
            cp["id"], {"id": cp["id"], "kind": "compaction", "pointer": cp["pointer"], "text": cp.get("text") or ""}
        )
        text = budget.take("compactionSummaries", cp.get("text"), 4000) if k == 0 else None
        summaries.append(
            {
                "refs": refs.cite(cp["id"]),
                "text": text,
                "trigger": cp.get("trigger"),
                "timestamp": cp.get("timestamp"),
                "latest": k == 0,
            }
        )

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
        "constraints": _constraints(observed, events, refs, budget, inherited),
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


def _objective(observed: Observed, refs: Refs, budget: Budget, inherited: list[Link]) -> Claim | None:
    first = observed.get("firstObjective")
    if first is not None and not _typed(first):
        first = next((e for e in observed["events"] if _typed(e)), None)
    if first is not None:
        refs.by_id.setdefault(first["id"], first)
    own: Claim | None = None
    if goal := observed.get("goal"):
        own = {
            "text": budget.take("objective", goal["text"], 2000),
            "refs": refs.cite(goal["id"]),
            "basis": "evidence",
            "provenance": "the thread's goal",
        }
    elif first is not None:
        own = {
            "text": budget.take("objective", first["text"], 2000),
            "refs": refs.cite(first),
            "basis": "evidence",
            "provenance": "the first message the user typed in this session",
        }
    if inherited:
        prior = inherited[0]["packet"].get("objective")
        if prior:
            return {
                **prior,
                "refs": [f"P1.{r}" for r in prior.get("refs") or []],
                "provenance": f"inherited from packet {inherited[0]['packetId']} this session started from",
                "inheritedFrom": inherited[0]["packetId"],
                "sessionObjective": own,
            }
    if own is None and (last_prompt := observed.get("lastPrompt")):
        return {
            "text": budget.take("objective", last_prompt["text"], 2000),
            "refs": [],
            "basis": "inference",
            "provenance": "the last prompt (no earlier user message was found)",
        }
    return own


def _constraints(
    observed: Observed, events: list[Event], refs: Refs, budget: Budget, inherited: list[Link]
) -> list[Claim]:
    users = [e for e in events if _typed(e)]
    first = observed.get("firstObjective")
    if first is not None and _typed(first) and all(e["id"] != first["id"] for e in users):
        users.insert(0, first)
    found: list[Claim] = []
    for c in (inherited[0]["packet"].get("constraints") or []) if inherited else []:
        found.append({**c, "refs": [f"P1.{r}" for r in c.get("refs") or []], "inheritedFrom": inherited[0]["packetId"]})
    seen: set[str | None] = {c["text"] for c in found}
    for event in users:
        for sentence in constraints_in(event["text"]):
            if sentence in seen or len(found) >= 12:
                continue
            seen.add(sentence)
            text = budget.take("constraints", sentence, 400)
            if text:
                found.append(
                    {
                        "text": text,
                        "refs": refs.cite(event),
                        "basis": "evidence",
                        "selection": "a user sentence with a constraint word (must, never, only, …)",
                    }
                )
    return found


def _completed(
    observed: Observed,
    events: list[Event],
    refs: Refs,
    budget: Budget,
    project: Project,
    dirty: dict[str, DirtyPath],
) -> CompletedWork:
    files: list[Claim] = []
    for edit in observed.get("edits") or []:
        call = None if edit["id"] in refs.by_id else _edit_call(events, edit, project)
        if call is not None:  # cite the call with its patch (its symbols, its time), not the bare record
            edit = {**edit, "id": call["id"]}
        elif edit.get("pointer"):  # the line that recorded the change, when it is not an event itself
            refs.by_id.setdefault(
                edit["id"],
                {
                    "id": edit["id"],
                    "kind": "edit",
                    "pointer": edit["pointer"],
                    "text": f"{edit.get('tool')} {edit['path']}",
                },
            )
        rel = project.relative(edit["path"])
        where = (
            "dirty"
            if rel in dirty
            else ("missing" if not os.path.exists(os.path.join(project.worktree, rel)) else "unchanged-or-committed")
        )
        files.append(
            {
                "path": rel,
                "tool": edit.get("tool"),
                "status": edit.get("status"),
                "refs": refs.cite(edit["id"]),
                "basis": "evidence",
                "gitNow": where,
                "outsideRepo": os.path.isabs(rel),
            }
        )
    edit_positions = [
        i
        for i, e in enumerate(events)
        if e["kind"] == "tool" and e["tool"].get("paths") and e["tool"].get("status") == "completed"
    ]
    runs: dict[str, Claim] = {}
    for i, event in enumerate(events):
        tool = event.get("tool") or {}
        command = tool.get("command")
        if event["kind"] != "tool" or not isinstance(command, str) or kind_of(command) is None:
            continue
        if tool.get("status") not in ("completed", "failed"):
            continue
        later_edits = [events[j]["id"] for j in edit_positions if j > i]
        result = tool.get("result") or {}
        earlier = runs.pop(command, None)
        # What the run showed, not only how it exited: `pytest || true` that ran nothing is no pass.
        code = result.get("exitCode")
        if not isinstance(code, int):
            code = 1 if tool["status"] == "failed" else 0  # the sources mark a non-zero exit as failed
        judged = classify(command, code, result.get("text"))
        runs[command] = {
            "command": clip_middle(command, 300),
            "outcome": {"pass": "passed", "fail": "failed"}.get(judged["outcome"], judged["outcome"]),
            "outcomeBasis": basis(judged, code),
            "exitCode": result.get("exitCode"),
            "refs": refs.cite(event) + refs.cite(event, "result"),
            "basis": "evidence",
            "observedAt": event.get("timestamp"),
            "output": budget.take("validationOutput", result.get("text"), 600),
            "freshness": "superseded-by-later-edits" if later_edits else "latest-in-transcript",
            "laterEdits": [refs.cite(x)[0] for x in later_edits[:5] if refs.cite(x)],
            "earlierRuns": (earlier.get("earlierRuns", 0) + 1) if earlier else 0,
            "note": "historical: recorded in the transcript before this export; rerun it against the current files",
        }
    return {"filesChanged": files, "validations": list(runs.values())}


def _turn_state(observed: Observed) -> Any:
    """The state of the session's last turn, as its reader saw it (None when it says nothing)."""
    turn = observed.get("turn")
    return turn.get("state") if turn else None


def _edit_call(events: list[Event], edit: Edit, project: Project) -> Event | None:
    """The tool call that made an edit recorded on a line of its own (Codex's patch), found by path and order."""
    line = _line_number(edit["id"])
    target = project.relative(edit["path"])
    found = None
    for event in events:
        tool = event.get("tool") or {}
        if event["kind"] != "tool" or not tool.get("paths") or _line_number(event["id"]) > line:
            continue
        if any(project.relative(p) == target or target.endswith("/" + p) for p in tool["paths"]):
            found = event
    return found


def _line_number(event_id: str) -> int:
    found = re.match(r"L(\d+)", event_id or "")
    return int(found.group(1)) if found else 0


def _unresolved(observed: Observed, events: list[Event], refs: Refs, budget: Budget) -> Unresolved:
    pending: list[Claim] = []
    failed: list[Event] = []
    blockers: list[Event] = []
    hypotheses: list[Claim] = []
    for event in events:
        tool = event.get("tool") or {}
        if event["kind"] == "tool" and tool.get("status") == "unfinished":
            raw = tool.get("command") or tool.get("input")
            pending.append(
                {
                    "tool": tool.get("name"),
                    "input": clip_middle(raw if isinstance(raw, str) else canonical(raw).decode(), 300),
                    "refs": refs.cite(event),
                    "basis": "evidence",
                    "note": "no result was recorded: not known to have run; never replayed or approved "
                    "by a handoff — decide afresh whether it is still needed",
                }
            )
        elif event["kind"] == "tool" and tool.get("status") == "failed":
            failed.append(event)
        elif event["kind"] in ("error", "turn_aborted", "rolled_back"):
            blockers.append(event)
    failed_out: list[Claim] = []
    for event in failed[-10:]:
        tool = event["tool"]
        raw = tool.get("command") or tool.get("input")
        failed_out.append(
            {
                "tool": tool.get("name"),
                "input": clip_middle(raw if isinstance(raw, str) else canonical(raw).decode(), 300),
                "error": budget.take("failedAttempts", (tool.get("result") or {}).get("text"), 400),
                "exitCode": (tool.get("result") or {}).get("exitCode"),
                "refs": refs.cite(event) + refs.cite(event, "result"),
                "basis": "evidence",
            }
        )
    blockers_out: list[Claim] = [
        {
            "kind": e["kind"],
            "text": clip_middle(str(e.get("text") or ""), 300),
            "refs": refs.cite(e),
            "basis": "evidence",
        }
        for e in blockers[-5:]
    ]
    turn_state = _turn_state(observed)
    if turn_state in ("running", "aborted", "interrupted", "inProgress", "failed"):
        blockers_out.append(
            {
                "kind": "turn",
                "text": f"the last turn is {turn_state}",
                "refs": [],
                "basis": "evidence",
                "source": "the reader's turn state",
            }
        )
    assistants = [e for e in events if e["kind"] == "assistant" and e.get("text")][-6:]
    for event in assistants:
        for sentence in sentences(event["text"], HYPOTHESIS)[:2]:
            text = budget.take("hypotheses", sentence, 300)
            if text:
                hypotheses.append(
                    {
                        "text": text,
                        "refs": refs.cite(event),
                        "basis": "inference",
                        "note": "an assistant's tentative statement, not a verified fact",
                    }
                )
    return {
        "hypotheses": hypotheses[-8:],
        "failedAttempts": failed_out,
        "blockers": blockers_out,
        "pendingCommands": pending[-20:],
    }


def _next_action(
    observed: Observed,
    events: list[Event],
    refs: Refs,
    budget: Budget,
    unresolved: Unresolved,
    inherited: list[Link],
) -> Claim | None:
    """What to do next, always labelled an inference: pending calls, an interrupted turn, a stated next step."""

    def action(text: str, cited: list[str], why: str) -> Claim:
        return {"text": budget.take("nextAction", text, 600), "refs": cited, "basis": "inference", "why": why}

    if unresolved["pendingCommands"]:
        p = unresolved["pendingCommands"][-1]
        return action(
            f"Decide whether the pending {p['tool']} call is still needed: it has no recorded result "
            f"({p['input'][:120]})",
            p["refs"],
            "a tool call without a result",
        )
    users = [e for e in events if _typed(e)]
    last_user = users[-1] if users else None
    if _turn_state(observed) in ("aborted", "interrupted") and last_user:
        return action(
            f"Resume the interrupted request: {last_user['text']}",
            refs.cite(last_user),
            "the last turn was interrupted",
        )
    messages = [e for e in events if e["kind"] in ("user", "assistant") and e.get("text")]
    if messages and _typed(messages[-1]):
        return action(
            f"Answer the latest request: {messages[-1]['text']}",
            refs.cite(messages[-1]),
            "the newest message is the user's, with no answer after it",
        )
    for event in reversed([e for e in events if e["kind"] == "assistant" and e.get("text")][-3:]):
        stated = NEXT_LINE.findall(event["text"]) or NEXT_INLINE.findall(event["text"])
        if stated:
            return action(stated[-1].strip(), refs.cite(event), "the assistant's own stated next step")
    if inherited and (prior := inherited[0]["packet"].get("nextAction")):
        return {
            **prior,
            "refs": [f"P1.{r}" for r in prior.get("refs") or []],
            "why": f"carried over from packet {inherited[0]['packetId']}: this session stated no newer step",
        }
    if last_user:
        return action(
            f"Check with the user whether this is finished: {last_user['text']}",
            refs.cite(last_user),
            "the latest request appears answered and no next step was stated",
        )
    return None


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
