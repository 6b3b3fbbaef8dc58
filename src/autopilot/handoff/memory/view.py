"""``handoff active``: one session's active state, its coverage, and what was injected into it.

Read-only (apart from moving a corrupt ``active.json`` aside): the state is reduced from the logs
on every call. Coverage is ``complete`` only when nothing says otherwise; each reason it is
``degraded`` is named (no hook ever ran, the hooks began mid-session, observations had to be
recovered from the transcript, a gap in that transcript, malformed log lines, a corrupt state
file, Codex runs judged without their exit code, a transcript that is gone). Every string is
redacted; transcript and tool text is evidence, and the checkpoint is the agent's claim.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from autopilot import clock
from autopilot.handoff.memory.reduce import AUTOMATIC, ELSEWHERE, attested, counts, reduce
from autopilot.handoff.memory.store import Log, SessionStore
from autopilot.handoff.transcripts.evidence import Evidence

if TYPE_CHECKING:
    from datetime import datetime
    from typing import Unpack

    from autopilot.handoff.memory.shapes import (
        Active,
        ActiveView,
        CompactionReport,
        Coverage,
        CoverageGap,
        FirstHook,
        GapFields,
        HeldBack,
        Injected,
    )

TRUST = (
    "evidence-only: observations are what hooks and transcripts showed; checkpoints are the agent's own "
    "claims, not proof; nothing here is an instruction"
)
RECENT_RUNS = 5
RECENT_EDITS = 10
HISTORY_SHOWN = 20


def gap(kind: str, detail: str, **fields: Unpack[GapFields]) -> CoverageGap:
    """One reason coverage is degraded."""
    return {"kind": kind, "detail": detail, **fields}


def age_seconds(at: Any, now: datetime | None = None) -> float | None:
    """Seconds since ISO time ``at`` (None when there is none)."""
    if not isinstance(at, str):
        return None
    try:
        then = clock.parse(at)
    except ValueError:
        return None
    return round(((now or clock.utc_now()) - then).total_seconds(), 1)


def transcript_of(observations: list[dict[str, Any]]) -> str | None:
    """The transcript the newest SessionStart (or recovery) named."""
    for o in reversed(observations):
        path = o.get("transcript")
        if isinstance(path, str) and path:
            return path
    return None


def _fresh_start(first: FirstHook | None) -> bool:
    """Whether the first hook saw the session begin (a startup, or a /clear that carried the old one over)."""
    return first is not None and first.get("event") == "SessionStart" and first.get("source") in ("startup", "clear")


def coverage(store: SessionStore, state: Active, logs: dict[str, Log], transcript: str | None) -> Coverage:
    """Complete, or degraded with every reason."""
    reasons: list[CoverageGap] = []
    counts = state["observations"]
    hooks = counts["byVia"].get("hook", 0)
    recovered = counts["byVia"].get("recover", 0)
    command = f"codex-bridge handoff recover --from {store.agent} --session {store.session}"
    if hooks == 0:
        reasons.append(
            gap(
                "hooks_missing",
                "no hook observation was recorded for this session (hooks not installed or not trusted, or the "
                "session ran before them)"
                + (f"; `{command}` rebuilds what the transcript shows" if not recovered else ""),
            )
        )
    elif (first := counts["firstHook"]) is not None and not _fresh_start(first):
        reasons.append(
            gap(
                "hooks_late",
                f"the hooks began mid-session (the first was {first['event']}"
                + (f" ({first['source']})" if first.get("source") else "")
                + f" at {first['at']}); what came before "
                "is known only from the transcript" + ("" if recovered else f": `{command}` rebuilds it"),
            )
        )
    for rec in state["recoveries"]:
        added = rec.get("added") or {}
        if sum(added.values()):
            reasons.append(
                gap(
                    "recovered",
                    f"{sum(added.values())} observation(s) the hooks missed were rebuilt from the transcript "
                    f"at {rec.get('at')}",
                    added=added,
                )
            )
        for g in rec.get("gaps") or []:
            if isinstance(g, dict):
                carried: Any = {**g, "from": "transcript"}  # the transcript's own gap, as recover noted it
                reasons.append(carried)
    malformed = {name: log.malformed for name, log in logs.items() if log.malformed}
    if malformed:
        reasons.append(gap("malformed_lines", "lines that are not records were skipped", counts=malformed))
    for note in store.notes:
        reasons.append(gap("state_file_corrupt", note))
    if store.agent == "codex":
        blind = [v["command"] for v in state["validation"] if v.get("exit") is None and v.get("via") == "hook"]
        if blind:
            reasons.append(
                gap(
                    "exit_codes_unknown",
                    f"Codex hooks report no exit code: {len(blind)} validation run(s) were judged by their output "
                    f"only; `{command}` reads the exit codes from the rollout",
                    commands=blind[:10],
                )
            )
    if transcript and not os.path.exists(transcript):
        reasons.append(
            gap("transcript_missing", f"{transcript} no longer exists: nothing the hooks missed can be recovered")
        )
    return {
        "status": "degraded" if reasons else "complete",
        "reasons": reasons,
        "hookObservations": hooks,
        "recoveredObservations": recovered,
    }


def _picked(record: dict[str, Any], keys: tuple[str, ...], only: Iterable[str] | None = None) -> Any:
    """The fields ``keys`` of a log record, as the record has them (``only``: just those it has)."""
    present = set(keys if only is None else only)
    return {k: record.get(k) for k in keys if k in present}


def view(store: SessionStore, *, now: datetime | None = None) -> ActiveView:
    """The whole active view of one session (redacted)."""
    logs = {"observations": store.observations(), "checkpoints": store.checkpoints(), "injections": store.injections()}
    store.load_active()  # a corrupt state file is moved aside here, and noted
    state = reduce(*store.history())  # from the session a /clear replaced too; the coverage counts its own
    transcript = transcript_of(logs["observations"].records)
    checkpoint = state["checkpoint"]
    if checkpoint:
        checkpoint = {**checkpoint, "ageSeconds": age_seconds(checkpoint.get("at"), now)}
    history: list[Injected] = [
        _picked(r, ("at", "session", "event", "reset", "fields", "items", "omitted", "bytes", "sourceHash"), r.keys())
        for r in logs["injections"].records
        if r.get("kind") == "injection"
    ]
    reports: list[CompactionReport] = [
        _picked(r, ("at", "compaction", "dropped", "restored", "bytes", "line"))
        for r in logs["injections"].records
        if r.get("kind") == "report"
    ]
    vouched = attested(logs["observations"].records)
    held_back: list[HeldBack] = [
        {
            "at": c.get("at"),
            "writer": c.get("by"),
            "origin": c.get("origin"),
            "sha256": c.get("sha256"),
            "why": "written from another agent session's shell"
            if c.get("by") == ELSEWHERE
            else "waiting for the session's own hook to see the command that wrote it",
        }
        for c in logs["checkpoints"].records
        if c.get("by") != AUTOMATIC and not counts(c, vouched)
    ]
    automatic = state["automaticCheckpoint"]
    if automatic:
        automatic = {**automatic, "ageSeconds": age_seconds(automatic.get("at"), now)}
    out: ActiveView = {
        "trust": TRUST,
        "agent": store.agent,
        "session": store.session,
        "worktree": store.worktree,
        "store": str(store.dir),
        "transcript": transcript,
        "objective": state["objective"],
        "constraints": state["constraints"],
        "currentWork": state["currentWork"],
        "nextAction": state["nextAction"],
        "nextSteps": state["nextSteps"],
        "unresolved": state["unresolved"],
        "completed": state["completed"],
        "recentEvidence": {
            "validation": list(reversed(state["validation"][-RECENT_RUNS:])),
            "edits": state["edits"]["recent"][:RECENT_EDITS],
            "editsTotal": state["edits"]["total"],
        },
        "checkpoint": checkpoint,
        "automaticCheckpoint": automatic,
        "notInjected": held_back[-HISTORY_SHOWN:],
        "compactions": state["compactions"],
        "compactionReports": reports[-HISTORY_SHOWN:],
        "model": state["model"],
        "modelChanges": state["modelChanges"],
        "turns": state["turns"],
        "requests": state["requests"],
        "lastObservedAt": state["lastAt"],
        "coverage": coverage(store, state, logs, transcript),
        "injections": {"total": len(history), "shown": history[-HISTORY_SHOWN:]},
    }
    ev = Evidence(None)
    redacted: ActiveView = ev.value(out)
    redacted["redactions"] = ev.summary()
    return redacted


def text(v: ActiveView) -> str:
    """The view for a person (``handoff active`` without ``--json``)."""
    lines = [f"Active memory of {v['agent']} session {v['session']} in {v['worktree']}"]
    lines.append(f"  ({v['trust']})")
    obj = v.get("objective")
    lines.append(f"Objective: {obj['text']}  [{obj['source']}]" if obj else "Objective: (none recorded)")
    for rule in v.get("constraints") or []:
        lines.append(f"  constraint: {rule['text']}  [{rule['source']}]")
    nxt = v.get("nextAction")
    lines.append(f"Next action: {nxt['text']}  [{nxt['source']}]" if nxt else "Next action: (none)")
    plan = v.get("nextSteps")
    for step in plan["steps"] if plan else []:
        lines.append(f"  stated next step: {step}  [the agent's claim at its last turn's end]")
    work = v["currentWork"]
    if request := work.get("request"):
        lines.append(f"Current request: {request['text'][:300]}")
    edited = work.get("editedSinceCheckpoint") or []
    if edited:
        lines.append("Edited since the last checkpoint: " + ", ".join(e["path"] for e in edited[:15]))
    for u in v.get("unresolved") or []:
        lines.append(f"Unresolved: {u['text']}  [{u['source']}]")
    for done in v.get("completed") or []:
        lines.append(f"Completed: {done['text']}")
    for run in v["recentEvidence"]["validation"]:
        lines.append(
            f"Validation: {run['command']} -> {run['outcome']}" + (f" ({run['summary']})" if run.get("summary") else "")
        )
    cp = v.get("checkpoint")
    lines.append(
        f"Checkpoint: {cp['count']} stored, newest {cp['at']} ({cp['ageSeconds']} s ago), the agent's claim"
        if cp
        else "Checkpoint: none"
    )
    for held in v.get("notInjected") or []:
        lines.append(
            f"Not injected: checkpoint of {held['at']} ({held['why']}; {held.get('origin') or held['writer']})"
        )
    auto = v.get("automaticCheckpoint")
    if auto:
        newest = f"newest {auto['at']} ({auto['source']})"
        lines.append(f"Automatic checkpoint: {auto['count']} taken, {newest}, not the agent's claim")
    lines.append(f"Compactions: {len(v['compactions'])}; model changes: {len(v['modelChanges'])}; turns: {v['turns']}")
    for report in v.get("compactionReports") or []:
        lines.append(f"  {report['at']}: {report['line']}")
    cov = v["coverage"]
    lines.append(f"Coverage: {cov['status']}")
    for reason in cov["reasons"]:
        lines.append(f"  - {reason['kind']}: {reason['detail']}")
    inj = v["injections"]
    lines.append(f"Injections: {inj['total']}")
    for r in inj["shown"][-5:]:
        lines.append(
            f"  {r['at']} {r['event']}{' (reset: ' + str(r['reset']) + ')' if r.get('reset') else ''}: "
            f"{', '.join(r.get('fields') or []) or 'nothing'} ({r.get('bytes', 0)} bytes)"
        )
    return "\n".join(lines) + "\n"
