"""A packet's claims: the one list of claim groups, a walk over every claim in them, and the extractors of each group.

A claim is a dict with ``refs`` (evidence references) or ``"basis": "inference"``. Some
groups hold one claim (the objective, the next action), the others a list; a claim in a
list is named by its group and index, as ``staleClaims`` and ``unavailableClaims`` name them.
Each group's extractor reads one observed session (its events oldest first, edits,
checkpoints, turn state) and says no more than that evidence does; :mod:`.build` assembles
their claims into a packet.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

from autopilot.digest import canonical
from autopilot.handoff.memory.observe import stated_next
from autopilot.handoff.transcripts.evidence import constraints_in, sentences
from autopilot.handoff.transcripts.validation import basis, classify, kind_of
from autopilot.text import clip_middle

if TYPE_CHECKING:
    from autopilot.handoff.packets.refs import Budget, Refs
    from autopilot.handoff.packets.shapes import Claim, CompletedWork, Link, Packet, Unresolved
    from autopilot.handoff.sources.project import Project
    from autopilot.handoff.sources.shapes import DirtyPath, Edit, Event, Observed

# (group, where it sits in the packet, whether it holds a list of claims)
GROUPS: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    ("objective", ("objective",), False),
    ("constraints", ("constraints",), True),
    ("nextAction", ("nextAction",), False),
    ("filesChanged", ("completedWork", "filesChanged"), True),
    ("validations", ("completedWork", "validations"), True),
    ("pendingCommands", ("unresolved", "pendingCommands"), True),
    ("failedAttempts", ("unresolved", "failedAttempts"), True),
    ("abandonedApproaches", ("unresolved", "abandonedApproaches"), True),
    ("blockers", ("unresolved", "blockers"), True),
    ("hypotheses", ("unresolved", "hypotheses"), True),
    ("latestMessages", ("latestMessages",), True),
    ("compactionSummaries", ("compactionSummaries",), True),
)

HYPOTHESIS = re.compile(
    r"\b(?:I think|probably|likely|might be|may be|suspect|hypothes[ie]s|seems|appears|"
    r"could be|my guess)\b",
    re.I,
)
# An assistant message right after a failed run that gives the approach up (what it tried, and why it stops).
GAVE_UP = re.compile(
    r"\b(?:dead end|revert(?:ing|ed)?|roll(?:ing)? (?:it )?back|back(?:ing)? (?:it |that )?out|give (?:it )?up|"
    r"giving up|gave up|abandon(?:ing|ed)?|scrap(?:ping)?|(?:won't|doesn't|does not|will not|didn't|did not) work|"
    r"not (?:going to|an option|allowed)|instead)\b",
    re.I,
)
ABANDONED = 10
LATEST_MESSAGES = 8
HANDOFF_HEADER = "# Handoff packet sha256:"  # the first line of the context import prints


def walk(packet: Packet) -> Iterator[tuple[str, int | None, Claim]]:
    """Every claim of a packet as (group, index in its list or None, claim), in the order of GROUPS."""
    for group, path, many in GROUPS:
        value: Any = packet
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        items = (value or []) if many else [value]
        for i, claim in enumerate(items):
            if isinstance(claim, dict):  # a JSON object where a claim belongs: one of the packet's claims
                yield group, (i if many else None), cast("Claim", claim)


def _typed(event: Event) -> bool:
    """Whether a user event is words the user typed (not harness text, not a pasted handoff context)."""
    return (
        event["kind"] == "user"
        and bool(event.get("text"))
        and not event.get("origin")
        and HANDOFF_HEADER not in event["text"]
    )


def origin(observed: Observed) -> tuple[str, str | None]:
    """The agent and the session (thread) id of an observed session: every claim made from it is labelled with them."""
    session = observed["session"]
    return observed["agent"], session.get("threadId") or session.get("sessionId")


def inherit(claim: Claim, link: Link, why: str | None = None) -> Claim:
    """A claim of the packet a session started from, as this packet holds it: its references (and those of the
    claims it holds, such as its ``originalRequest``) point into that packet (``P1.E3``), and it keeps the agent and
    session it came from, so a reference never lands on an event of this session."""
    source = link["packet"].get("source") or {}
    out: Claim = {
        **claim,
        "refs": [f"P1.{r}" for r in claim.get("refs") or []],
        "inheritedFrom": link["packetId"],
        "agent": claim.get("agent") or str(source.get("agent") or ""),
        "session": claim.get("session") or source.get("threadId") or source.get("sessionId"),
    }
    if why is not None:
        out["provenance"] = why
    if isinstance(original := claim.get("originalRequest"), dict):
        out["originalRequest"] = inherit(original, link)
    if isinstance(mine := claim.get("sessionObjective"), dict):
        out["sessionObjective"] = inherit(mine, link)
    return out


def objective(observed: Observed, refs: Refs, budget: Budget, inherited: list[Link]) -> Claim | None:
    """The objective: a predecessor packet's, else the thread's goal or first typed message, else the last prompt."""
    first = observed.get("firstObjective")
    if first is not None and not _typed(first):
        first = next((e for e in observed["events"] if _typed(e)), None)
    if first is not None:
        refs.by_id.setdefault(first["id"], first)
    agent, session = origin(observed)
    own: Claim | None = None
    if goal := observed.get("goal"):
        own = {
            "text": budget.take("objective", goal["text"], 2000),
            "refs": refs.cite(goal["id"]),
            "basis": "evidence",
            "provenance": f"the {agent} thread's goal",
        }
    elif first is not None:
        own = {
            "text": budget.take("objective", first["text"], 2000),
            "refs": refs.cite(first),
            "basis": "evidence",
            "provenance": f"the first message the user typed in this {agent} session",
        }
    if own is not None:
        own["agent"], own["session"] = agent, session
    if inherited:
        prior = inherited[0]["packet"].get("objective")
        if prior:
            return {
                **inherit(prior, inherited[0], f"inherited from packet {inherited[0]['packetId']}, the newest this "
                          "session started from or imported"),
                "sessionObjective": own,
            }  # fmt: skip
    if own is None and (last_prompt := observed.get("lastPrompt")):
        return {
            "text": budget.take("objective", last_prompt["text"], 2000),
            "refs": [],
            "basis": "inference",
            "provenance": "the last prompt (no earlier user message was found)",
            "agent": agent,
            "session": session,
        }
    return own


def constraints(
    observed: Observed, events: list[Event], refs: Refs, budget: Budget, inherited: list[Link]
) -> list[Claim]:
    """The constraints: an inherited packet's, then the sentences of typed user messages that read like rules."""
    users = [e for e in events if _typed(e)]
    first = observed.get("firstObjective")
    if first is not None and _typed(first) and all(e["id"] != first["id"] for e in users):
        users.insert(0, first)
    found: list[Claim] = []
    for c in (inherited[0]["packet"].get("constraints") or []) if inherited else []:
        found.append(inherit(c, inherited[0]))
    seen: set[str | None] = {c["text"] for c in found}
    agent, session = origin(observed)
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
                        "agent": agent,
                        "session": session,
                    }
                )
    return found


def completed_work(
    observed: Observed,
    events: list[Event],
    refs: Refs,
    budget: Budget,
    project: Project,
    dirty: dict[str, DirtyPath],
) -> CompletedWork:
    """The files the session changed (and where git has them now) and its validation runs, each judged by its output."""
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


def unresolved(observed: Observed, events: list[Event], refs: Refs, budget: Budget) -> Unresolved:
    """What is left open: calls without a result, failed attempts, blockers and the assistant's hypotheses."""
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
        "abandonedApproaches": abandoned(events, refs, budget),
        "blockers": blockers_out,
        "pendingCommands": pending[-20:],
    }


def abandoned(events: list[Event], refs: Refs, budget: Budget) -> list[Claim]:
    """Approaches given up: each assistant message that, right after a failed run and before the next tool call,
    says it is abandoning the attempt ("a dead end", "reverting", "instead"), citing the message and the run."""
    found: list[Claim] = []
    failed: Event | None = None
    for event in events:
        tool = event.get("tool") or {}
        if event["kind"] == "tool":
            command = tool.get("command")
            judged = None
            if isinstance(command, str) and kind_of(command) and tool.get("status") in ("completed", "failed"):
                result = tool.get("result") or {}
                code = result.get("exitCode")
                code = code if isinstance(code, int) else (1 if tool["status"] == "failed" else 0)
                judged = classify(command, code, result.get("text"))["outcome"]
            failed = event if tool.get("status") == "failed" or judged == "fail" else None
            continue
        if event["kind"] == "assistant" and failed is not None and GAVE_UP.search(event.get("text") or ""):
            text = budget.take("abandonedApproaches", event.get("text"), 600)
            if text:
                found.append(
                    {
                        "text": text,
                        "refs": refs.cite(event),
                        "after": refs.cite(failed),
                        "basis": "evidence",
                        "note": "the assistant gave an approach up after this run failed: its words, quoted",
                    }
                )
            failed = None
    return found[-ABANDONED:]


def next_action(
    observed: Observed,
    events: list[Event],
    refs: Refs,
    budget: Budget,
    unresolved: Unresolved,
    inherited: list[Link],
) -> Claim | None:
    """What to do next, always labelled an inference: pending calls, an interrupted turn, a stated next step."""

    agent, session = origin(observed)

    def action(text: str, cited: list[str], why: str) -> Claim:
        taken = budget.take("nextAction", text, 600)
        return {"text": taken, "refs": cited, "basis": "inference", "why": why, "agent": agent, "session": session}

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
        stated = stated_next(event["text"])  # the active memory reads a turn's last message the same way
        if stated:
            return action(stated.splitlines()[0], refs.cite(event), "the assistant's own stated next step")
    if inherited and (prior := inherited[0]["packet"].get("nextAction")):
        return {
            **inherit(prior, inherited[0]),
            "why": f"carried over from packet {inherited[0]['packetId']}: this session stated no newer step",
        }
    if last_user:
        return action(
            f"Check with the user whether this is finished: {last_user['text']}",
            refs.cite(last_user),
            "the latest request appears answered and no next step was stated",
        )
    return None


def latest_messages(events: list[Event], refs: Refs, budget: Budget) -> list[Claim]:
    """The newest user and assistant messages (LATEST_MESSAGES at most), newest first, each citing its event."""
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
    return latest


def compaction_summaries(observed: Observed, refs: Refs, budget: Budget) -> list[Claim]:
    """The session's compaction summaries, newest first, each citing its line; only the newest is quoted."""
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
    return summaries
