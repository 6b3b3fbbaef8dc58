"""Checkpoints: what an agent (or its user) says about the work at a moment, validated and kept as a claim.

A checkpoint is ``{"objective", "constraints"[], "next_action", "unresolved"[], "completed"[]}``
(``checkpoint_schema.json``, shipped with the package). It is checked before anything is written: a
file that is not JSON, breaks the schema or is too large is refused with one line naming what is
wrong, and nothing is stored. A stored checkpoint is appended to the session's
``checkpoints.jsonl`` with its time, its source and its content hash, and is always labelled as the
agent's own claim: it is never proof that the work it describes was done.
"""

from __future__ import annotations

import contextlib
import json
import os
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from autopilot.clock import now_ms
from autopilot.digest import canonical, sha256_hex
from autopilot.errors import BridgeError
from autopilot.handoff.memory import observe
from autopilot.handoff.memory.reduce import AUTOMATIC, ELSEWHERE
from autopilot.handoff.memory.store import SessionStore
from autopilot.redact import Redactor
from autopilot.text import clip

if TYPE_CHECKING:
    from autopilot.handoff.memory.shapes import CheckpointBody

SCHEMA_PATH = Path(__file__).with_name("checkpoint_schema.json")
MAX_BYTES = 64 * 1024
CLAIM = "agent-authored checkpoint: the agent's claim about its own work, not proof"
AGENT, PERSON, AUTOPILOT, PACKET = "agent-claim", "person", "autopilot", "packet-import"
# Who may write a session's checkpoint, and what each is labelled as. Only the session's own hooks (an agent's
# checkpoint once its hook has seen the command; the autopilot's at a task transition; an import its hook saw)
# or the person write what reaches the session; one from another session's shell is a record, never injected.
WRITERS = {
    AGENT: CLAIM,
    # No check tells the person from a process running as them (an agent's shell can unset its markers and detach):
    # what this says is only where it was written from, never who wrote it.
    PERSON: "written outside any agent session's shell, as far as this machine can tell (by the person, or by "
    "anything running as them): a claim about the work, not proof",
    AUTOPILOT: "the autopilot's plan at a task transition (goal, next task, tasks done): the plan, not proof",
    PACKET: "from a handover packet: the sending session's claims at their time, not proof",
    ELSEWHERE: "written from another agent session's shell: kept as a record, never injected into this session",
    AUTOMATIC: "automatic checkpoint: what the hooks observed before a compaction, not the agent's claim",
}
LIST_FIELDS = ("constraints", "unresolved", "completed")


@cache
def schema() -> dict[str, Any]:
    """The checkpoint's JSON schema."""
    loaded: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return loaded


def parse(data: bytes, source: str) -> CheckpointBody:
    """The checkpoint in ``data`` (lists defaulted to []), or a one-line BridgeError saying what is wrong."""
    if len(data) > MAX_BYTES:
        raise BridgeError(
            f"{source}: {len(data)} bytes is too large for a checkpoint (at most {MAX_BYTES}); nothing was stored"
        )
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise BridgeError(f"{source}: not valid JSON ({str(exc).splitlines()[0][:120]}); nothing was stored") from None
    import jsonschema  # ~100 ms: only when a checkpoint is parsed, never on a prompt's injection (memory.autopilot)

    validator = jsonschema.Draft202012Validator(schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(doc))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "the checkpoint"
        raise BridgeError(f"{source}: {where}: {_message(error)}; nothing was stored", hint=_hint())
    return {
        "objective": doc["objective"],
        "constraints": list(doc.get("constraints") or []),
        "next_action": doc["next_action"],
        "unresolved": list(doc.get("unresolved") or []),
        "completed": list(doc.get("completed") or []),
    }


def _message(error: Any) -> str:
    """A schema error as a short sentence (a blank string is called blank, not a regex mismatch)."""
    if error.validator == "pattern":
        return "is blank"
    if error.validator == "type":
        return f"must be a JSON {error.validator_value}, not {type(error.instance).__name__}"
    if error.validator in ("maxLength", "minLength"):
        bound = "at most" if error.validator == "maxLength" else "at least"
        return f"must be {bound} {error.validator_value} characters"
    if error.validator == "maxItems":
        return f"has more than {error.validator_value} items"
    if error.validator == "required":
        return str(error.message).replace("is a required property", "is missing")
    text = " ".join(str(error.message).split())
    return clip(text, 160)


def _hint() -> str:
    shape = '{"objective": str, "next_action": str, "constraints": [str], "unresolved": [str], "completed": [str]}'
    return f"a checkpoint is {shape} (schema: {SCHEMA_PATH})"


def digest(checkpoint: CheckpointBody) -> str:
    """The content hash of a checkpoint (canonical JSON)."""
    return "sha256:" + sha256_hex(canonical(checkpoint))


def record(
    store: SessionStore,
    checkpoint: CheckpointBody,
    source: str,
    *,
    at: str | None = None,
    by: str = AGENT,
    pending: bool = False,
    **extra: Any,
) -> dict[str, Any]:
    """Append a validated checkpoint to the session's log and return the stored record.

    ``by`` says who wrote it (:data:`WRITERS`); a ``pending`` one counts once the session's own hook has seen
    the command that wrote it (an ``attest`` observation holding its hash). ``extra`` fields are kept with it.
    """
    checkpoint = Redactor().walk(checkpoint)  # stored as every view would show it: credentials withheld
    entry = {
        "v": observe.VERSION,
        "at": at or now_ms(),
        "agent": store.agent,
        "session": store.session,
        "by": by,
        "claim": WRITERS[by],
        "source": source,
        "sha256": digest(checkpoint),
        "checkpoint": checkpoint,
        **({"pending": True} if pending else {}),
        **extra,
    }
    store.append(observe.CHECKPOINTS, [entry])
    return entry


def pick_up(store: SessionStore, data: dict[str, Any]) -> list[str]:
    """Record the checkpoint files the session's own tool call just wrote (its hook's input names them).

    The hook vouches for them: the call is the session's own. A file that is not a valid checkpoint is left in
    place and the answer says what is wrong; a recorded one is removed. What the call wrote is taken from the
    call itself when it carries the content (Write), else from the file.
    """
    said = []
    given = data.get("tool_input")
    args: dict[str, Any] = given if isinstance(given, dict) else {}
    tool = str(data.get("tool_name") or "tool")
    found = observe.observations(str(data.get("hook_event_name") or "PostToolUse"), data, store.agent)
    for path in [str(o["path"]) for o in found if o.get("kind") == "pickup"]:
        full = os.path.join(str(data.get("cwd") or "."), os.path.expanduser(path))
        content = args.get("content") if tool == "Write" and isinstance(args.get("content"), str) else None
        try:
            raw = content.encode("utf-8") if content is not None else _read(full)
            parsed = parse(raw, "the file")
        except BridgeError as exc:
            said.append(f"codex-autopilot: checkpoint file {path} was not recorded: {exc}")
            continue
        entry = record(store, parsed, f"file {path} (this session's own {tool} call)", via="hook")
        with contextlib.suppress(OSError):  # already gone, or not ours to remove: the record stands
            os.unlink(full)
        said.append(f"codex-autopilot: checkpoint recorded for this session ({entry['sha256'][:19]}…), from {path}")
    return said


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise BridgeError(f"cannot read it ({exc.strerror})") from None
