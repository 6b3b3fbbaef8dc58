"""Review: Codex reviews the work since the run's base commit against the current task.

Shared by ``codex-bridge review`` and the PostToolUse hook. A review never changes the task,
the base, the status or the iteration; it records ``last_review`` and a review artifact.

A review the worker asks may be left running at the provider (``backends.DETACH``: the worker had to go, at the
session's end or as the run ended). Its id and everything recording it needs are kept in ``review-left.json`` from
the moment the provider took it, so a worker killed outright leaves them too; :func:`collect`, in the run's next
worker, fetches the answer by id, charges it once (what the provider billed) and records it as if it had been waited
for. A review that came back normally removes the file; one whose answer is already in events.jsonl is never charged
twice.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from typing import TYPE_CHECKING

from autopilot import clock
from autopilot.errors import InfraError, RunChanged
from autopilot.fsutil import atomic_write
from autopilot.loop import control, reviewer, transitions
from autopilot.loop.backends import DETACH, Detach, Detached, Usage
from autopilot.loop.backends.responses import DEFAULT_MODEL, ResponsesBackend
from autopilot.loop.budget import charge_budget, price_table
from autopilot.loop.prompts import diff_evidence, task_text
from autopilot.loop.reviewer import Answer
from autopilot.loop.workspace import Workspace
from autopilot.output import say
from autopilot.redact import Redactor

if TYPE_CHECKING:
    from autopilot.loop.shapes import LeftReview, Review, ReviewAbout, ReviewRecord, ReviewResult, ReviewSkipped
    from autopilot.loop.state import State, Store

LEFT = "review-left.json"  # a review left running at the provider: its id and what recording it needs


def review(
    *,
    backend: str | None = None,
    model: str | None = None,
    effort: str | None = None,
    cwd: str | None = None,
    deadline: float | None = None,
) -> ReviewResult | ReviewRecord | ReviewSkipped:
    """Review the current diff and record it; returns the review (``skipped`` when nothing changed).

    ``deadline`` (``time.monotonic()``) bounds the Codex exchange; default: now + AUTOPILOT_TIMEOUT.
    """
    ws = Workspace(cwd)
    state = ws.store.load()
    _plan, task = control.require_run(ws.store, state)
    ws.config  # noqa: B018 - a broken config file fails here, before any work
    snap = ws.snapshot_while_loading(state.get("base_sha"))
    if snap.empty:
        say("nothing changed since the base commit; no review was requested")
        return {
            "skipped": True,
            "reason": "no changes since base",
            "task_id": task["id"],
            "base_sha": state.get("base_sha"),
            "fingerprint": snap.tree,
        }
    if transitions.over_budget(state):  # spent already: refused before any evidence is built (consult checks again)
        control.guard_budget(ws.store, "review", state)
    redactor = Redactor()
    evidence, facts = diff_evidence(ws.config, snap, redactor)
    text = reviewer.prompt("review", task_id=task["id"], task=redactor(task_text(task)), evidence=evidence)

    about: ReviewAbout = {
        "run_id": state.get("run_id"),
        "task_id": task["id"],
        "base_sha": snap.base,
        "head_sha": snap.head,
        "fingerprint": snap.tree,
        "diff": facts,
        "redactions": redactor.summary(),
        "prompt_tokens": reviewer.tokens(text),  # what it costs at least, should the provider forget it
    }
    detach = DETACH.get()
    token, left = None, False
    if detach is not None:  # the worker's review: its id is kept as soon as the provider has it
        outer = detach

        kept: list[str] = []

        def started(response_id: str) -> None:
            if not kept and left_running(ws.store):  # one an earlier worker left and nobody could fetch since
                aside = set_aside(ws.store, "unfetched")
                say(f"an earlier review left running was never fetched; its note is kept as {aside}")
            _keep_left(ws.store, {**about, "response_id": response_id, "started": clock.unix()})
            kept.append(response_id)  # (a corrective retry asks again under this review's note)
            outer.started(response_id)

        token = DETACH.set(Detach(started, outer.leave))
    try:
        return ws.consult(
            "review",
            text,
            state,
            backend=backend,
            model=model,
            effort=effort,
            deadline=deadline,
            what=f"to review {facts['files']} changed file{'s' if facts['files'] != 1 else ''} against {task['id']}",
            record=lambda answer: _record(ws, state, about, answer),
        )
    except Detached:
        left = True  # left running: review-left.json stays for collect()
        raise
    finally:
        if token is not None:
            DETACH.reset(token)
            if not left:
                _drop_left(ws.store)


def _record(ws: Workspace, state: State, about: ReviewAbout, answer: Answer) -> ReviewResult | ReviewRecord:
    """Charge and record a review's answer in the run ``state`` it was asked about (``about``: the tree it saw)."""
    found: Review = answer.data
    result: ReviewRecord = {
        "task_id": about["task_id"],
        "base_sha": about["base_sha"],
        "head_sha": about["head_sha"],
        "fingerprint": about["fingerprint"],
        **found,
        "diff": about["diff"],
        "redactions": about["redactions"],
        "usd": answer.usd,
    }
    try:
        with ws.store.transaction(expect=state) as s:
            transitions.settle(s, "review", answer)
            path = ws.store.artifact_in_call("review", result)
            transitions.apply_review(
                s,
                found,
                task_id=about["task_id"],
                base_sha=about["base_sha"],
                head_sha=about["head_sha"],
                fingerprint=about["fingerprint"],
                review_path=str(path) if path else None,
            )
    except RunChanged:  # a replaced run's calls stay in events.jsonl only
        say("the run was re-planned while Codex reviewed; this review is in events.jsonl, not in the new run")
        return result
    return {**result, "review_path": str(path) if path else None}


def _keep_left(store: Store, note: LeftReview) -> None:
    atomic_write(store.dir / LEFT, json.dumps(note), durable=False)


def _drop_left(store: Store) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(store.dir / LEFT)


def set_aside(store: Store, why: str) -> str:
    """Move the note of a review left running aside (``review-left.json.<why>-<stamp>``), kept for a person to read;
    its new path ('' when there was none)."""
    aside = store.dir / f"{LEFT}.{why}-{clock.stamp()}"
    try:
        os.replace(store.dir / LEFT, aside)
    except FileNotFoundError:
        return ""
    return str(aside)


def left_running(store: Store) -> bool:
    """Whether a review of this run was left running at the provider and not collected yet."""
    return os.path.exists(store.dir / LEFT)


def collect(cwd: str | None = None, *, timeout: float) -> str:
    """Fetch the review a worker left running (:data:`LEFT`), charge it and record it; what became of it:

    ``none`` (nothing left), ``pending`` (the provider is still at it, or cannot be reached: asked again later),
    ``recorded`` (charged and recorded in the run; in events.jsonl only when the run was replaced), ``failed`` (it
    failed at the provider, or its answer was invalid: charged what it billed, the failure recorded; expired, past
    the provider's ~10 minutes: charged as estimated from its prompt and the run's average review) or
    ``dropped`` (its note was unreadable and moved aside, or its answer was recorded already).
    """
    ws = Workspace(cwd)
    path = ws.store.dir / LEFT
    try:
        note = json.loads(path.read_text(encoding="utf-8"))
        rid = str(note["response_id"])
        about: ReviewAbout = {
            "run_id": note["run_id"],
            "task_id": str(note["task_id"]),
            "base_sha": note["base_sha"],
            "head_sha": note["head_sha"],
            "fingerprint": str(note["fingerprint"]),
            "diff": note["diff"],
            "redactions": note.get("redactions", {}),
            "prompt_tokens": int(note.get("prompt_tokens") or 0),
        }
        started = float(note.get("started") or clock.unix())
    except FileNotFoundError:
        _drop_taken(ws.store)  # one a crash left mid-record: charged or not, it is never charged again
        return "none"
    except (OSError, ValueError, KeyError, TypeError) as exc:
        aside = set_aside(ws.store, "corrupt")
        say(f"a review left running could not be read ({exc}); its note was moved aside to {aside}")
        return "dropped"
    if _already_recorded(ws.store, rid):
        _drop_left(ws.store)
        return "dropped"
    failure: InfraError | None = None
    try:
        reply = ResponsesBackend().retrieve(rid, timeout)
    except InfraError as exc:
        if exc.kind in ("network", "timeout", "auth", "rate_limit", "quota") or exc.kind.startswith("http_5"):
            say(f"the review left running as {rid} could not be fetched yet: {exc}")
            return "pending"
        reply, failure = None, exc
    if reply is None and failure is None:
        return "pending"
    os.replace(path, path.with_name(LEFT + ".taken"))  # from here it is charged at most once, even if this dies
    state = ws.store.load()
    call = {"phase": "review", "backend": "openai", "effort": None, "run_id": about["run_id"]}
    since = time.monotonic() - max(0.0, clock.unix() - started)  # the call's latency, from when it was asked
    if reply is None:
        assert failure is not None
        used = failure.usage if isinstance(failure.usage, Usage) else Usage()
        if failure.kind == "http_404":  # the provider keeps a background response ~10 minutes: it was billed anyway
            used = _estimate(state, about["prompt_tokens"])
            failure = InfraError(
                f"the review left running as {rid} was fetched too late (the provider keeps it about 10 minutes); "
                f"its findings are lost, and its cost is charged as estimated ({used.input} tokens in, "
                f"{used.output} out)",
                kind="expired",
            )
        failure.usage, failure.calls = used, 1
        failure.usd = charge_budget(state.get("model") or DEFAULT_MODEL, used, price_table())[0]
        reviewer.log_call(ws.store, call, None, since, used, failure.usd, f"error:{failure.kind}", rid, 1)
        say(f"the review left running as {rid} failed at the provider: {failure}")
        if state.get("run_id") == about["run_id"]:
            ws.record_failure("review", failure, state)
        _drop_taken(ws.store)
        return "failed"
    cost, known = charge_budget(reply.model, reply.usage, price_table())
    data, problem = reviewer.parse_answer(reply.text, reviewer.schema("review")[1], None)
    outcome = "ok" if problem is None else "invalid_output"
    reviewer.log_call(ws.store, call, reply.model, since, reply.usage, cost, outcome, rid, 1)
    answer = Answer(data, reply.usage, cost, 1, reply.model, None, None if known else reply.model, "openai")
    if problem is not None or data is None:
        failure = InfraError(f"Codex's review answer, fetched later, was invalid: {problem}", kind="schema")
        failure.usage, failure.usd, failure.calls = reply.usage, cost, 1
        if state.get("run_id") == about["run_id"]:
            ws.record_failure("review", failure, state)
        _drop_taken(ws.store)
        return "failed"
    if state.get("run_id") != about["run_id"]:
        say(f"the review left running as {rid} was about a run since replaced; it is in events.jsonl only")
    else:
        _record(ws, state, about, answer)
        say(f"the review left running as {rid} was fetched and recorded: {data.get('decision')}")
    _drop_taken(ws.store)
    return "recorded"


def _estimate(state: State, prompt_tokens: int) -> Usage:
    """What a review whose answer is gone most likely cost: its prompt, and the run's average review answer."""
    bucket = state["token_usage"]["review"]
    calls = int(bucket["calls"])
    return Usage(input=prompt_tokens, output=int(bucket["output"]) // calls if calls else ESTIMATED_OUTPUT)


ESTIMATED_OUTPUT = 800  # tokens of a review's answer, before the run has any of its own to go by


def _drop_taken(store: Store) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(store.dir / (LEFT + ".taken"))


def _already_recorded(store: Store, response_id: str) -> bool:
    """Whether events.jsonl's last lines already log the call ``response_id`` (a worker recorded its answer and was
    killed before it could remove the note): it is never charged twice."""
    try:
        with open(store.dir / "events.jsonl", "rb") as fh:
            fh.seek(max(0, fh.seek(0, os.SEEK_END) - 65536))
            tail = fh.read()
    except OSError:
        return False
    return f'"conversation_id": "{response_id}"'.encode() in tail
