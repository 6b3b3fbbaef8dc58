"""A compaction and the task's facts: the checkpoint taken before it, and what its summary kept and dropped.

No model is called. Both clients fire ``PreCompact`` before compacting and ``PostCompact`` after (seen with
claude 2.1.332 and codex 0.171; docs/memory.md, "What the clients deliver"):

- **before** (:func:`checkpoint_before`): an automatic checkpoint, a snapshot of the reduced state (objective,
  constraints, next action, unresolved and completed items, plus the files edited since the last checkpoint
  and the newest outcome of each validation command), labelled ``automatic``. It is a record of what the
  session stood at, for packets, search and ``handoff active``; the reducer never takes it as the agent's
  claim (it is derived from the same logs, and would otherwise freeze an observed failure as a claimed one).
- **after** (:func:`after`): the summary the model now starts from (Claude Code hands it over as
  ``compact_summary``; Codex hands nothing, and its rollout already holds it as the newest ``compacted``
  line) is compared with the facts the task needs (:func:`holds`): what the summary still says is known, the
  rest is *dropped* and is injected again before the next turn. A ``compaction`` record in
  ``injections.jsonl`` keeps the counts and the hashes, and :func:`report` says it to the person in one line.

What "the summary says a fact" means is deliberately literal: a file is held when its path (or its name) is
in the summary; a validation when its command is and an outcome word of the same kind stands near it; a
sentence (objective, next action, an unresolved item) when most of its distinctive words are there and every
path or identifier in it is.

What the session still knows after a compaction (:func:`kept_through`) is the hook context the client
carries across it, plus what the summary holds.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

import orjson

from autopilot.clock import now_ms
from autopilot.digest import sha256_hex
from autopilot.handoff.memory import autopilot, observe
from autopilot.handoff.memory import checkpoint as checkpoints
from autopilot.handoff.memory.facts import current_facts, entries, item_hash
from autopilot.handoff.memory.reduce import AUTOMATIC, reduce
from autopilot.handoff.memory.store import SessionStore
from autopilot.handoff.transcripts import validation
from autopilot.redact import Redactor

if TYPE_CHECKING:
    from autopilot.handoff.memory.autopilot import RunOf
    from autopilot.handoff.memory.shapes import Active, CheckpointBody

WORDS_HELD = 0.75  # the share of a sentence's distinctive words the summary must hold
NEAR = 300  # characters around a command in which an outcome word counts as its outcome
TAIL_BYTES = 8 * 1024 * 1024  # how far from its end a rollout is searched for the newest compaction
_WORD = re.compile(r"[a-z0-9][a-z0-9_\-]*[a-z0-9]|[a-z0-9]")
_TOKEN = re.compile(r"[\w./\-]+")
_STOP = frozenset({
    "that", "this", "from", "into", "then", "than", "when", "what", "which", "while", "have", "been", "were",
    "will", "would", "should", "could", "must", "make", "makes", "made", "does", "done", "doing", "them",
    "they", "their", "there", "here", "your", "also", "only", "each", "every", "some", "more", "most",
    "other", "such", "after", "before", "about", "over", "under", "again", "still", "just", "like",
})  # fmt: skip
OUTCOME_WORDS = {
    "pass": ("pass", "passed", "passes", "passing", "green", "succeeded", "success", "succeeds", "ok"),
    "fail": ("fail", "fails", "failed", "failing", "failure", "failures", "error", "errors", "broken", "red"),
    "no-tests": ("no tests", "no test", "0 tests", "collected 0", "ran nothing", "nothing ran"),
    "interrupted": ("interrupted", "killed", "timed out", "cancelled"),
    "unknown": ("unknown", "unclear", "inconclusive"),
}


# -- what the summary says --------------------------------------------------------------------------------


def _flat(text: str) -> str:
    return " ".join(text.casefold().split())


def words(text: str) -> set[str]:
    """The distinctive words of a text (case folded; short and common words left out)."""
    return {w for w in _WORD.findall(text.casefold()) if len(w) >= 4 and w not in _STOP}


def _identifiers(text: str) -> list[str]:
    """The paths and dotted or underscored names in a text (what must appear verbatim)."""
    out = []
    for token in _TOKEN.findall(text):
        token = token.strip(".,:;-")
        if len(token) >= 4 and ("/" in token or "_" in token or re.search(r"\w\.\w", token)):
            out.append(token.casefold())
    return out


def says_sentence(summary: str, text: str, vocabulary: set[str]) -> bool:
    """Whether the summary holds a sentence: most of its distinctive words, and every path or identifier."""
    flat = _flat(summary)
    if any(ident not in flat for ident in _identifiers(text)):
        return False
    wanted = words(text)
    if not wanted:
        return _flat(text) in flat
    return len(wanted & vocabulary) >= WORDS_HELD * len(wanted)


def says_path(summary: str, path: str, worktree: str) -> bool:
    """Whether the summary names a file: its path, its path in the worktree, or its file name."""
    flat = summary.casefold()
    rel = os.path.relpath(path, worktree) if os.path.isabs(path) else path
    name = os.path.basename(path)
    if path.casefold() in flat or (not rel.startswith("..") and rel.casefold() in flat):
        return True
    return len(name) >= 4 and re.search(rf"(?<![\w./-]){re.escape(name.casefold())}(?![\w-])", flat) is not None


def says_run(summary: str, command: str, outcome: str) -> bool:
    """Whether the summary names a validation command with an outcome of the kind it last had."""
    flat = _flat(summary)
    needle = _flat(validation.key_of(command))
    if not needle:
        return False
    wanted = OUTCOME_WORDS.get(outcome, ())
    start = flat.find(needle)
    while start >= 0:
        near = flat[max(0, start - NEAR) : start + len(needle) + NEAR]
        if any(re.search(rf"\b{re.escape(w)}\b", near) for w in wanted):
            return True
        start = flat.find(needle, start + 1)
    return False


def holds(summary: str, state: Active, worktree: str) -> dict[str, set[str]]:
    """The hashes (``inject.item_hash``) of the facts of ``state`` that ``summary`` still says, by field."""
    vocabulary = words(summary)
    out: dict[str, set[str]] = {}
    for field, text, probe in entries(state, worktree):
        kind = probe["kind"]
        if kind == "path":
            held = says_path(summary, probe["path"], worktree)
        elif kind == "run":
            held = says_run(summary, probe["command"], probe["outcome"])
        else:
            held = says_sentence(summary, probe["text"], vocabulary)
        if held:
            out.setdefault(field, set()).add(item_hash(field, text))
    return out


def summary_of(agent: str, data: dict[str, Any]) -> str | None:
    """The summary a compaction left: Claude Code's ``compact_summary``, or the newest one in Codex's rollout."""
    given = data.get("compact_summary")
    if isinstance(given, str) and given.strip():
        return given
    path = data.get("transcript_path")
    if agent == "codex" and isinstance(path, str) and path:
        return newest_codex_summary(path)
    return None


def newest_codex_summary(path: str) -> str | None:
    """The message of the newest ``compacted`` line in a Codex rollout (read from its end), or None."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - TAIL_BYTES))
            tail = fh.read()
    except OSError:
        return None
    for raw in reversed(tail.split(b"\n")):
        if b'"compacted"' not in raw[:200]:
            continue
        try:
            row = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        payload = row.get("payload") if isinstance(row, dict) else None
        if row.get("type") == "compacted" and isinstance(payload, dict) and isinstance(payload.get("message"), str):
            return str(payload["message"])
    return None


# -- before: the automatic checkpoint ---------------------------------------------------------------------


def snapshot(state: Active) -> tuple[CheckpointBody, dict[str, object]] | None:
    """A checkpoint body and the observed extras (edits, validations) from a state; None without an objective."""
    obj = state.get("objective")
    if not obj:
        return None
    nxt = state.get("nextAction")
    request = state["currentWork"]["request"]
    if nxt:
        next_action = nxt["text"]
    elif request:
        next_action = f"continue the newest request: {request['text']}"
    else:
        next_action = f"continue towards the objective: {obj['text']}"
    body: CheckpointBody = {
        "objective": _cut(obj["text"], 2000),
        "constraints": [_cut(c["text"], 500) for c in state.get("constraints") or []][:30],
        "next_action": _cut(next_action, 1000),
        "unresolved": [_cut(u["text"], 500) for u in state.get("unresolved") or []][:50],
        "completed": [_cut(c["text"], 500) for c in state.get("completed") or []][:100],
    }
    extras: dict[str, object] = {
        "editedSinceCheckpoint": [e["path"] for e in state["currentWork"]["editedSinceCheckpoint"]],
        "validation": [
            {"command": v["command"], "outcome": v["outcome"], "at": v.get("at")} for v in state["validation"]
        ],
        "objectiveSource": obj.get("source"),
        "nextActionSource": nxt.get("source") if nxt else "inferred",
        "statedNextSteps": list(plan["steps"]) if (plan := state.get("nextSteps")) else [],
    }
    return body, extras


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def checkpoint_before(store: SessionStore, reason: str, run_of: RunOf | None = None) -> dict[str, Any] | None:
    """Append an automatic checkpoint of the session as the hooks observed it (None when nothing is known yet);
    ``run_of`` reads the worktree's autopilot run, whose newest task transition is written first."""
    autopilot.sync_from(store, run_of)
    state = reduce(*store.history())
    taken = snapshot(state)
    if taken is None:
        return None
    body, extras = taken
    newest = next((c for c in reversed(store.checkpoints().records) if c.get("by") == AUTOMATIC), None)
    if newest is not None and newest.get("checkpoint") == Redactor().walk(body):
        return dict(newest)  # Claude Code fires PreCompact again when it then decides not to compact
    return checkpoints.record(store, body, reason, by=AUTOMATIC, observed=extras)


# -- after: what the summary dropped ----------------------------------------------------------------------


def after(store: SessionStore, data: dict[str, Any]) -> dict[str, Any] | None:
    """Compare the compaction's summary with the facts the task needs; record and return the comparison.

    None when there is no summary to compare (the restoring falls back to injecting every fact again).
    """
    summary = summary_of(store.agent, data)
    if summary is None:
        return None
    observations = store.observations().records
    state = reduce(*store.history())
    current = current_facts(state, store.worktree)
    held = holds(summary, state, store.worktree)
    # Kept is what the context carried across; what was injected after the compaction began restores, it is
    # not kept (an automatic compaction's SessionStart comes before this).
    pre = _last(observations, lambda o: o.get("kind") == "compact" and o.get("phase") == "pre")
    injections = store.injections().records
    before = [r for r in injections if pre is None or not _after(r, pre, observations)]
    kept = kept_through(store, before)
    dropped = {
        f: sorted(h for h in items if h not in held.get(f, set()) and h not in set(kept.get(f, [])))
        for f, items in current.items()
    }
    record = {
        "v": observe.VERSION,
        "kind": "compaction",
        "at": now_ms(),
        "agent": store.agent,
        "session": store.session,
        "trigger": str(data.get("trigger") or "unknown"),
        "summaryChars": len(summary),
        "summarySha256": "sha256:" + sha256_hex(summary.encode("utf-8")),
        "facts": sum(len(v) for v in current.values()),
        "held": {f: sorted(h) for f, h in held.items() if h},
        "dropped": {f: h for f, h in dropped.items() if h},
        "observed": len(observations),
    }
    store.append(observe.INJECTIONS, [record])
    return record


def dropped_count(record: dict[str, Any]) -> int:
    """How many facts a compaction record says the summary dropped."""
    return sum(len(v) for v in (record.get("dropped") or {}).values())


def summary_follows(agent: str, observations: list[dict[str, Any]]) -> bool:
    """Whether the compaction now starting the context will hand its summary over after this point.

    Claude Code fires ``SessionStart(compact)`` before ``PostCompact``; after a ``/compact`` the person types
    next, so what the summary dropped can wait for it. After an automatic compaction the turn goes on at once:
    everything the session lost is injected at ``SessionStart`` instead. Codex fires ``PostCompact`` first.
    """
    if agent != "claude":
        return False
    pre = _last(observations, lambda o: o.get("kind") == "compact" and o.get("phase") == "pre")
    if pre is None or observations[pre].get("trigger") != "manual":
        return False
    return not any(o.get("kind") == "compact" and o.get("phase") == "post" for o in observations[pre:])


def held_since(observations: list[dict[str, Any]], injections: list[dict[str, Any]]) -> dict[str, set[str]]:
    """What the summary of the compaction in progress holds (empty when its comparison is not made yet)."""
    pre = _last(observations, lambda o: o.get("kind") == "compact" and o.get("phase") == "pre")
    record = next((r for r in reversed(injections) if r.get("kind") == "compaction"), None)
    if record is None or (pre is not None and not _after(record, pre, observations)):
        return {}
    return {f: set(h) for f, h in (record.get("held") or {}).items()}


def report(record: dict[str, Any], known: dict[str, set[str]], size: int) -> tuple[str, int]:
    """The one line for the person (what the compaction dropped and how much of it is back), and the restored count."""
    dropped = dropped_count(record)
    if not dropped:
        return f"codex-autopilot: compaction kept all {record.get('facts', 0)} facts the task needs", 0
    restored = sum(1 for f, hashes in record["dropped"].items() for h in hashes if h in known.get(f, set()))
    line = (
        f"codex-autopilot: compaction dropped {dropped} fact{'s' if dropped != 1 else ''} the task needs; "
        f"{restored} restored ({_size(size)})"
    )
    return line, restored


def pending_report(record: dict[str, Any]) -> str:
    """The line said right after the compaction, before the next turn restores what it dropped."""
    dropped = dropped_count(record)
    if not dropped:
        return f"codex-autopilot: compaction kept all {record.get('facts', 0)} facts the task needs"
    return (
        f"codex-autopilot: compaction dropped {dropped} fact{'s' if dropped != 1 else ''} the task needs; "
        "they are restored with the next message"
    )


def _unreported(injections: list[dict[str, Any]]) -> int | None:
    """The index of the newest compaction record when no report of it was made yet."""
    at = _last(injections, lambda r: r.get("kind") == "compaction")
    if at is None or any(r.get("kind") == "report" for r in injections[at:]):
        return None
    return at


def _restoring_bytes(injections: list[dict[str, Any]], at: int) -> int:
    """The bytes injected since the compaction at ``at`` began (its SessionStart's injection included)."""
    start = _last(injections[:at], lambda r: r.get("kind") == "injection" and r.get("reset") == "compact")
    return sum(int(r.get("bytes") or 0) for r in injections[start or at :] if r.get("kind") == "injection")


def _say(store: SessionStore, record: dict[str, Any], known: dict[str, set[str]], size: int) -> str:
    line, restored = report(record, known, size)
    entry = {
        "v": observe.VERSION,
        "kind": "report",
        "at": now_ms(),
        "compaction": record.get("at"),
        "dropped": dropped_count(record),
        "restored": restored,
        "bytes": size,
        "line": line,
    }
    store.append(observe.INJECTIONS, [entry])
    return line


def report_if_restored(store: SessionStore, record: dict[str, Any], known: dict[str, set[str]]) -> str | None:
    """The report, when everything the compaction dropped is already back (after an automatic one); else None."""
    restored = all(h in known.get(f, set()) for f, hashes in (record.get("dropped") or {}).items() for h in hashes)
    if not restored:
        return None
    injections = store.injections().records
    at = _unreported(injections)
    return _say(store, record, known, _restoring_bytes(injections, at)) if at is not None else None


def report_due(store: SessionStore) -> str | None:
    """The report of the last compaction, once, after the injection that restored what it dropped."""
    injections = store.injections().records
    at = _unreported(injections)
    if at is None:
        return None
    doc = store.load_active() or {}
    baseline = doc.get("baseline")
    known = {k: set(v) for k, v in baseline.items()} if isinstance(baseline, dict) else {}
    return _say(store, injections[at], known, _restoring_bytes(injections, at))


def _size(n: int) -> str:
    return f"{n} B" if n < 1000 else f"{n / 1000:.1f} KB"


# -- what the session still knows -------------------------------------------------------------------------


def kept_through(store: SessionStore, injections: list[dict[str, Any]]) -> dict[str, list[str]]:
    """What the session still knows after a compaction: the hook context the client carries across it.

    Seen with the real binaries: Claude Code keeps the tail after the last assistant message verbatim
    (a print-mode ``/compact`` run's own SessionStart context; the prompt that triggered an automatic
    compaction, with its context) and resends the turn's attachments after a compaction mid-turn, so
    what was injected since the last Stop survives. Codex drops the context injected before a
    compaction and keeps what comes after it (compacting at the start of a turn, it fires the turn's
    SessionStart after compacting). Everything else is summarised away and is injected again.
    """
    observations = store.observations().records
    at_compaction = _last(observations, lambda o: o.get("kind") == "compact" and o.get("phase") == "pre")
    if at_compaction is None:
        at_compaction = _last(observations, lambda o: o.get("kind") == "session" and o.get("source") == "compact")
    if at_compaction is None:
        return {}
    # The logs' order, not the clock, says what came after what: a Stop, the compaction and an injection
    # can share a millisecond. An injection records how many observations the log held when it was made.
    if store.agent == "codex":
        since: int | None = at_compaction
    else:
        since = _last(observations[:at_compaction], lambda o: o.get("kind") == "turn")
    kept: dict[str, set[str]] = {}
    for record in injections:
        if record.get("kind") == "injection" and _after(record, since, observations):
            for field, hashes in (record.get("injected") or {}).items():
                kept.setdefault(field, set()).update(hashes)
    return {f: sorted(h) for f, h in kept.items()}


def _after(record: dict[str, Any], index: int | None, observations: list[dict[str, Any]]) -> bool:
    """Whether an injection was made after observation ``index`` (None: before the first; always true)."""
    if index is None:
        return True
    seen = record.get("observed")
    if isinstance(seen, int) and not isinstance(seen, bool):
        return seen > index
    return str(record.get("at")) > str(observations[index].get("at"))  # records written before "observed"


def _last(items: list[dict[str, Any]], match: Any) -> int | None:
    """The index of the last item ``match`` accepts, or None."""
    return next((n for n in range(len(items) - 1, -1, -1) if match(items[n])), None)
