"""One structured exchange with Codex: schema-checked, corrected once, logged and priced."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autopilot.errors import BridgeError, BudgetExhausted, InfraError, Unwritable
from autopilot.loop.backends import Usage
from autopilot.loop.budget import add_usd, charge_budget, price_table
from autopilot.loop.state import Store
from autopilot.output import say

if TYPE_CHECKING:
    from autopilot.loop.backends import Backend

    Check = Callable[[Any], "str | None"]  # a phase's own check of a valid answer (its Plan, Review or Verdict)

SCHEMA_DIR = Path(__file__).with_name("schemas")
PROMPT_DIR = Path(__file__).with_name("prompts")


class Answer:
    """A valid answer and everything it cost."""

    def __init__(
        self,
        data: Any,
        usage: Usage,
        usd: float,
        calls: int,
        model: str | None,
        conversation_id: str | None,
        unknown_model: str | None,
        backend: str,
        context_tokens: int | None = None,
        exchanged_tokens: int = 0,
        fresh: bool = False,
        restarted: bool = False,
    ) -> None:
        self.data = data  # the phase's JSON, valid against its schema: a Plan, Review or Verdict (loop/shapes.py)
        self.usage, self.usd, self.calls = usage, usd, calls
        self.model, self.conversation_id, self.unknown_model = model, conversation_id, unknown_model
        self.backend = backend  # the backend that answered
        # The conversation after the exchange: its size as the provider counted it (None: not reported), and the
        # tokens of what the exchange itself sent and got back (~4 characters a token), for
        # transitions.track_conversation.
        self.context_tokens, self.exchanged_tokens = context_tokens, exchanged_tokens
        self.fresh = fresh  # the exchange started a new conversation (Workspace.consult says)
        self.restarted = restarted  # ... because the run's conversation had reached its bound
        self.continued: str | None = None  # the run's conversation the exchange went on with (Workspace.consult)

    def __repr__(self) -> str:
        return f"Answer(backend={self.backend!r}, model={self.model!r}, usd={self.usd!r}, calls={self.calls!r})"


CHARS_PER_TOKEN = 4  # about what a provider's tokenizer makes of English and code


def tokens(text: str) -> int:
    """About how many tokens a provider counts in ``text`` (characters over four, rounded up)."""
    return -(-len(text) // CHARS_PER_TOKEN)


def schema(phase: str) -> tuple[dict[str, Any], str]:
    """The strict output schema of a phase and its file path."""
    path = SCHEMA_DIR / f"{phase}.json"
    return json.loads(path.read_text(encoding="utf-8")), str(path)


def prompt(phase: str, **fields: str) -> str:
    """The phase's prompt file with ``{{field}}`` placeholders filled in, in one pass.

    One pass: a value that itself contains ``{{another_field}}`` (a goal, a diff) stays as written,
    never filled in with another field's text.
    """
    text = (PROMPT_DIR / f"{phase}.md").read_text(encoding="utf-8")
    return re.sub(r"\{\{(\w+)\}\}", lambda m: fields.get(m.group(1), m.group(0)), text)


_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*)\n\s*```\s*$", re.DOTALL)


def parse_answer(text: str, schema_path: str, check: Check | None) -> tuple[dict[str, Any] | None, str | None]:
    from autopilot.loop import schema_subset

    fenced = _FENCE.match(text)
    try:
        data = json.loads(fenced.group(1) if fenced else text)
    except ValueError as exc:
        return None, f"the answer is not JSON ({exc})"
    error = schema_subset.load(schema_path).first_error(data)  # jsonschema only for an invalid answer
    if error:
        return None, error
    problem = check(data) if check else None
    return (None, problem) if problem else (data, None)


def ask(
    store: Store,
    phase: str,
    text: str,
    *,
    backend: Backend,
    model: str | None,
    conversation_id: str | None,
    cwd: str,
    deadline: float,
    remaining_usd: float,
    check: Check | None = None,
    effort: str | None = None,
    run_id: str | None = None,
) -> Answer:
    """Ask Codex for the phase's JSON; one corrective retry, then an InfraError of kind ``schema``.

    ``deadline`` (a ``time.monotonic()`` value) bounds the whole exchange, the corrective retry and
    every backend retry included: past it the exchange fails as a ``timeout``. Every call is one line
    of events.jsonl carrying ``run_id`` (the run it is charged to), the model and the effort asked for.
    """
    output_schema, schema_path = schema(phase)
    call = {"phase": phase, "backend": backend.name, "effort": effort, "run_id": run_id}
    table = price_table()
    total, usd, calls, unknown = Usage(), 0.0, 0, None
    exchanged = 0
    for attempt in (1, 2):
        started = time.monotonic()
        try:
            if deadline - started <= 0:
                raise InfraError(
                    f"no time was left for Codex's {phase} answer",
                    kind="timeout",
                    hint="raise AUTOPILOT_TIMEOUT (seconds for one whole exchange)",
                )
            reply = backend.send(
                text,
                output_schema,
                schema_name=f"autopilot_{phase}",
                schema_path=schema_path,
                conversation_id=conversation_id,
                model=model,
                cwd=cwd,
                timeout=deadline - started,
                effort=effort,
            )
        except InfraError as exc:
            used = exc.usage if isinstance(exc.usage, Usage) else Usage()
            cost, known = charge_budget(model, used, table)
            unknown = unknown or (None if known else (model or "(codex default)"))
            log_call(store, call, model, started, used, cost, f"error:{exc.kind}", conversation_id, attempt)
            exc.usage, exc.usd, exc.calls = total + used, add_usd(usd, cost), calls + 1
            raise
        calls += 1
        exchanged += tokens(text) + tokens(reply.text)
        cost, known = charge_budget(reply.model or model, reply.usage, table)
        if not known:
            unknown = reply.model or model or "(codex default)"
        total, usd = total + reply.usage, add_usd(usd, cost)
        conversation_id = reply.conversation_id or conversation_id
        data, problem = parse_answer(reply.text, schema_path, check)
        log_call(
            store,
            call,
            reply.model or model,
            started,
            reply.usage,
            cost,
            "ok" if problem is None else "invalid_output",
            conversation_id,
            attempt,
        )
        if problem is None and data is not None:
            return Answer(
                data,
                total,
                usd,
                calls,
                reply.model or model,
                conversation_id,
                unknown,
                backend.name,
                context_tokens=reply.context_tokens,
                exchanged_tokens=exchanged,
            )
        failure: BridgeError
        if attempt == 2:
            failure = InfraError(
                f"Codex's {phase} answer was invalid twice: {problem}",
                kind="schema",
                hint="the reviewer is counted as unavailable for this call",
            )
        elif usd >= remaining_usd:
            failure = BudgetExhausted("the budget ran out before Codex's answer could be corrected")
        else:
            text = (
                f"Your previous answer could not be used: {problem}\n"
                "Reply again with only the JSON object, matching the schema exactly."
            )
            continue
        failure.usage, failure.usd, failure.calls = total, usd, calls
        raise failure
    raise AssertionError("unreachable")


def log_call(
    store: Store,
    call: dict[str, str | None],
    model: str | None,
    started: float,
    used: Usage,
    usd: float,
    outcome: str,
    conversation_id: str | None,
    attempt: int,
) -> None:
    """Log one call in events.jsonl; a log that cannot be written does not lose the answer (state.json records
    its cost if it can still be written): it is said instead."""
    event = {
        **call,
        "model": model,
        "attempt": attempt,
        "latency_ms": int((time.monotonic() - started) * 1000),
        "tokens": used.as_dict(),
        "usd": usd,
        "outcome": outcome,
        "conversation_id": conversation_id,
    }
    try:
        store.append_event(event)
    except Unwritable as exc:
        say(f"{exc}: this Codex call is not in events.jsonl; state.json records it if it can still be written")
