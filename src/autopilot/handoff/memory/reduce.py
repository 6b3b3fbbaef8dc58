"""The deterministic reducer: a session's observations and checkpoints in, its active state out.

Pure: the same two logs always give the same state (no clock is read; ages are computed when the
state is shown). Observations are taken in time order (recovered ones carry the transcript's
times, so they fall where they happened), duplicates by id are kept once. The rules:

- **objective / constraints**: the newest checkpoint's; without one, the session's first request
  (constraints picked from it by wording, and labelled so).
- **unresolved**: every item a checkpoint lists stays open until a later checkpoint lists it as
  completed (an item the newest checkpoint no longer repeats is kept, marked ``restated: false``):
  nothing is lost by compaction, recovery or a forgetful checkpoint. Validations whose newest run
  did not pass are open too (observed, not claimed).
- **completed**: every item any checkpoint lists as done, once; an item a later checkpoint reopens
  moves back to unresolved.
- **validation**: the newest run of each command wins (a later failing run supersedes an earlier
  pass), judged by :func:`autopilot.handoff.transcripts.validation.classify`.
- **next steps**: what the agent said it would do next at the end of a turn (Stop's last message: a
  "Next steps" list, a "Next:" line, a closing "Next, I'll…"), when it is newer than the newest
  checkpoint: its claim, kept like a checkpoint's next action.
- **next action**: the newest checkpoint's, or the first stated next step when that is newer, unless
  validations failed after it and still fail: then making each of those commands pass is the next
  action (observed), every failing one named, not only the newest.
- **current work**: the newest request and the files edited since the newest checkpoint.

An automatic checkpoint (``by: hook-auto``, taken before a compaction) is derived from these same logs:
it is kept as a record (``automaticCheckpoint``) and never counts as a checkpoint here. Neither does one
written from another session's shell (``by: elsewhere``), nor one that waits for the session's own hook
(``pending``) until an ``attest`` observation holds its hash.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from autopilot.clock import seconds_between
from autopilot.handoff.transcripts import validation
from autopilot.handoff.transcripts.evidence import constraints_in

if TYPE_CHECKING:
    from autopilot.handoff.memory.shapes import (
        Active,
        CheckpointFacts,
        Compaction,
        Constraint,
        CurrentWork,
        Edited,
        Edits,
        Item,
        ModelChange,
        ObservationCounts,
        Run,
        Stated,
        StatedNext,
    )
    from autopilot.handoff.transcripts.shapes import Judged

AUTOMATIC = (
    "hook-auto"  # the ``by`` of a checkpoint the hooks took (handoff/memory/compaction.py): a record, never a claim
)
ELSEWHERE = "elsewhere"  # the ``by`` of one written from another agent session's shell: a record, never injected
RECENT_EDITS = 20
CONSTRAINTS_FROM_REQUEST = 10
CONSTRAINT_CHARS = 300
COMPACT_SAME_S = 60  # a SessionStart(compact) this close to a PostCompact (no request between) is the same one


def norm(text: str) -> str:
    """The key two items share when they say the same thing (case, spacing and end punctuation aside)."""
    return " ".join(text.casefold().split()).rstrip(".!;:,")


def is_request(obs: dict[str, Any]) -> bool:
    """Whether an observation is a typed request (slash commands and the $handoff trigger are not)."""
    prompt = str(obs.get("prompt") or "").strip()
    return obs.get("kind") == "request" and bool(prompt) and not prompt.startswith(("/", "$"))


def ordered(observations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Observations in time order (stable), each id of each kind kept once.

    Of two runs with one id (the hook's and the rollout's), the one that knows the exit code wins.
    """
    kept: dict[tuple[str, str], int] = {}
    out: list[dict[str, Any]] = []
    for obs in sorted(observations, key=lambda o: str(o.get("at") or "")):
        ident = obs.get("id")
        if isinstance(ident, str):
            key = (str(obs.get("kind")), ident)
            if key in kept:
                first = out[kept[key]]
                if obs.get("kind") == "run" and first.get("exit") is None and isinstance(obs.get("exit"), int):
                    out[kept[key]] = {**first, "exit": obs["exit"], "output": obs.get("output") or first.get("output")}
                continue
            kept[key] = len(out)
        out.append(obs)
    return out


def reduce(observations: list[dict[str, Any]], checkpoints: list[dict[str, Any]]) -> Active:
    """The active state of one session."""
    obs = ordered(observations)
    every = sorted(checkpoints, key=lambda c: str(c.get("at") or ""))
    vouched = attested(obs)
    cps = [c for c in every if counts(c, vouched)]
    automatic = [c for c in every if c.get("by") == AUTOMATIC]
    last_cp = cps[-1] if cps else None
    cp_at = str(last_cp.get("at")) if last_cp else ""

    requests = [o for o in obs if is_request(o)]
    runs = _validation(obs)
    unresolved, completed = _items(cps)
    for run in runs:
        if run["outcome"] in validation.FAILING:
            unresolved.append(
                {"text": f"`{run['command']}` {_said(run)}", "source": "observed", "since": run["at"], "restated": True}
            )
    model, changes = _models(obs)
    plan = _stated_next(obs, cp_at)
    state: Active = {
        "objective": _objective(last_cp, requests),
        "constraints": _constraints(last_cp, requests),
        "nextAction": _next_action(last_cp, runs, plan),
        "nextSteps": plan,
        "unresolved": unresolved,
        "completed": completed,
        "currentWork": _current_work(obs, requests, cp_at),
        "validation": runs,
        "edits": _edits(obs),
        "compactions": _compactions(obs),
        "boundaries": [
            {"at": o.get("at"), "event": o.get("event"), "source": o.get("source"), "reason": o.get("reason")}
            for o in obs
            if o.get("kind") in ("session", "end")
        ],
        "model": model,
        "modelChanges": changes,
        "turns": sum(1 for o in obs if o.get("kind") == "turn"),
        "requests": len(requests),
        "checkpoint": _checkpoint(last_cp, len(cps)),
        "automaticCheckpoint": _checkpoint(automatic[-1], len(automatic)) if automatic else None,
        "recoveries": [
            {"at": o.get("at"), "transcript": o.get("transcript"), "added": o.get("added"), "gaps": o.get("gaps")}
            for o in obs
            if o.get("kind") == "recovery"
        ],
        "observations": _counts(obs),
        "lastAt": str(obs[-1].get("at")) if obs else (cp_at or None),
    }
    return state


def attested(observations: list[dict[str, Any]]) -> set[str]:
    """The checkpoint hashes the session's own hooks saw its own commands print (``attest`` observations)."""
    return {
        str(h)
        for o in observations
        if o.get("kind") == "attest" and o.get("via") == "hook"
        for h in o.get("attests") or []
    }


def counts(checkpoint: dict[str, Any], vouched: set[str]) -> bool:
    """Whether a stored checkpoint is one of the session's: not automatic, not from another session's shell, and,
    when it waits for the session's own hook, seen by it."""
    if checkpoint.get("by") in (AUTOMATIC, ELSEWHERE):
        return False
    return not checkpoint.get("pending") or checkpoint.get("sha256") in vouched


def _said(run: Run) -> str:
    what = {"fail": "fails", "no-tests": "ran no test", "interrupted": "was interrupted"}.get(
        run["outcome"], "is unclear"
    )
    return what + (f" ({run['summary']})" if run.get("summary") else "")


def _items(cps: list[dict[str, Any]]) -> tuple[list[Item], list[Item]]:
    """Unresolved and completed items across checkpoints (open until completed; done once)."""
    open_: dict[str, Item] = {}
    done: dict[str, Item] = {}
    for cp in cps:
        body = cp.get("checkpoint") or {}
        at = cp.get("at")
        for text in body.get("completed") or []:
            key = norm(text)
            open_.pop(key, None)
            done.setdefault(key, {"text": text, "since": at})
        for item in open_.values():
            item["restated"] = False
        for text in body.get("unresolved") or []:
            key = norm(text)
            done.pop(key, None)  # reopened
            if key in open_:
                open_[key]["restated"] = True
            else:
                open_[key] = {"text": text, "source": "checkpoint", "since": at, "restated": True}
    return list(open_.values()), list(done.values())


def _objective(cp: dict[str, Any] | None, requests: list[dict[str, Any]]) -> Stated | None:
    if cp:
        stated: Stated = {"text": cp["checkpoint"]["objective"], "source": "checkpoint", "at": cp.get("at")}
        return _writer(stated, cp)
    if requests:
        first = requests[0]
        out: Stated = {"text": first["prompt"], "source": "first-request", "at": first.get("at")}
        out["via"] = first.get("via")
        if first.get("carriedFrom"):
            out["carriedFrom"] = str(first["carriedFrom"])  # the cleared session's: not in this one's context
        return out
    return None


def _writer(stated: Stated, cp: dict[str, Any]) -> Stated:
    """``stated`` with who wrote its checkpoint, when it was not the agent itself (the person, the autopilot, a
    packet)."""
    by = cp.get("by") or "agent-claim"
    if by != "agent-claim":
        stated["writer"] = str(by)
        if cp.get("packet"):
            stated["packet"] = str(cp["packet"])
    return stated


def _constraints(cp: dict[str, Any] | None, requests: list[dict[str, Any]]) -> list[Constraint]:
    if cp:
        return [{"text": c, "source": "checkpoint"} for c in cp["checkpoint"].get("constraints") or []]
    if requests:
        wording = constraints_in(requests[0]["prompt"])[:CONSTRAINTS_FROM_REQUEST]
        return [{"text": c[:CONSTRAINT_CHARS], "source": "first-request (by wording)"} for c in wording]
    return []


def _validation(obs: list[dict[str, Any]]) -> list[Run]:
    """The newest run of each validating command, with the outcome it superseded.

    Only the two newest runs of a command are judged (a reducer over 100,000 observations must not
    read every output), and each distinct command is classified once.
    """
    kinds: dict[str, str | None] = {}
    latest: dict[str, list[Any]] = {}  # key -> [count, previous observation, newest observation]
    for o in obs:
        command = o.get("command")
        if o.get("kind") != "run" or not isinstance(command, str):
            continue
        if command not in kinds:
            kinds[command] = validation.kind_of(command)
        if kinds[command] is None:
            continue
        key = validation.key_of(command)
        entry = latest.pop(key, None) or [0, None, None]
        latest[key] = [entry[0] + 1, entry[2], o]  # re-inserted: newest last
    out: list[Run] = []
    for count, before, o in latest.values():
        out.append(
            {
                "command": o["command"],
                "kind": kinds[o["command"]],
                **_judge(o),
                "exit": _exit(o),
                "at": o.get("at"),
                "via": o.get("via"),
                "runs": count,
                "previous": _judge(before)["outcome"] if before is not None else None,
            }
        )
    return out


def _exit(o: dict[str, Any]) -> int | None:
    value = o.get("exit")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _judge(o: dict[str, Any]) -> Judged:
    return validation.classify(o["command"], _exit(o), o.get("output"), interrupted=bool(o.get("interrupted")))


def _stated_next(obs: list[dict[str, Any]], cp_at: str) -> StatedNext | None:
    """The newest next steps the agent stated at a turn's end, when newer than the newest checkpoint."""
    turn = next((o for o in reversed(obs) if o.get("kind") == "turn" and o.get("next")), None)
    if turn is None or str(turn.get("at") or "") <= cp_at:
        return None
    steps = [line for line in str(turn["next"]).splitlines() if line.strip()]
    return {"steps": steps, "source": "stated", "at": turn.get("at")} if steps else None


def _next_action(cp: dict[str, Any] | None, runs: list[Run], plan: StatedNext | None = None) -> Stated | None:
    cp_at = str(cp.get("at")) if cp else ""
    failing = [r for r in runs if r["outcome"] in validation.FAILING and str(r.get("at") or "") > cp_at]
    if failing:
        failing.sort(key=lambda r: str(r.get("at") or ""))
        text = "; ".join(f"make `{run['command']}` pass: it {_said(run)}" for run in failing)
        out: Stated = {"text": text, "source": "observed", "at": failing[-1]["at"]}
        if cp:
            out["checkpointSaid"] = cp["checkpoint"]["next_action"]
        return out
    if plan:
        return {"text": plan["steps"][0], "source": "stated", "at": plan["at"]}
    if cp:
        stated: Stated = {"text": cp["checkpoint"]["next_action"], "source": "checkpoint", "at": cp.get("at")}
        return _writer(stated, cp)
    return None


def _current_work(obs: list[dict[str, Any]], requests: list[dict[str, Any]], cp_at: str) -> CurrentWork:
    edited: dict[str, Edited] = {}
    for o in obs:
        if o.get("kind") == "edit" and str(o.get("at") or "") > cp_at and isinstance(o.get("path"), str):
            edited.pop(o["path"], None)
            edited[o["path"]] = {"path": o["path"], "tool": o.get("tool"), "result": o.get("result"), "at": o.get("at")}
    last = requests[-1] if requests else None
    return {
        "request": {"text": last["prompt"], "at": last.get("at")} if last else None,
        "editedSinceCheckpoint": list(reversed(edited.values())),
    }


def _edits(obs: list[dict[str, Any]]) -> Edits:
    edits = [o for o in obs if o.get("kind") == "edit"]
    recent: list[Edited] = [
        {
            "path": o.get("path"),
            "tool": o.get("tool"),
            "result": o.get("result"),
            "at": o.get("at"),
            "via": o.get("via"),
        }
        for o in edits[-RECENT_EDITS:]
    ]
    recent.reverse()
    return {
        "total": len(edits),
        "files": len({o.get("path") for o in edits}),
        "failed": sum(1 for o in edits if o.get("result") == "error"),
        "recent": recent,
    }


def _compactions(obs: list[dict[str, Any]]) -> list[Compaction]:
    """Compactions that happened (PostCompact, SessionStart(compact) or a recovered boundary), once each.

    One compaction fires PreCompact, then SessionStart(compact) and PostCompact within moments; a
    PreCompact that nothing follows did not compact (Claude Code fires one before deciding not to).
    Two signals belong to one compaction when they are close and no request came between them.
    """
    out: list[Compaction] = []
    pending_pre: dict[str, Any] | None = None
    joinable = False
    for o in obs:
        kind = o.get("kind")
        if kind == "request":
            joinable = False
            continue
        if kind == "compact" and o.get("phase") == "pre":
            pending_pre, joinable = o, False
            continue
        happened = (kind == "compact" and o.get("phase") == "post") or (
            kind == "session" and o.get("source") == "compact"
        )
        if not happened:
            continue
        at = str(o.get("at") or "")
        if joinable and out and seconds_between(out[-1]["at"], at) <= COMPACT_SAME_S:
            if o.get("trigger") and not out[-1].get("trigger"):
                out[-1]["trigger"] = o.get("trigger")
            continue
        entry: Compaction = {"at": at, "trigger": o.get("trigger"), "via": o.get("via")}
        if pending_pre is not None:
            entry["trigger"] = entry["trigger"] or pending_pre.get("trigger")
            if pending_pre.get("instructions"):
                entry["instructions"] = pending_pre["instructions"]
            pending_pre = None
        elif o.get("instructions"):
            entry["instructions"] = o["instructions"]
        out.append(entry)
        joinable = True
    return out


def _models(obs: list[dict[str, Any]]) -> tuple[str | None, list[ModelChange]]:
    """The session's model now, and each time it changed."""
    current = None
    changes: list[ModelChange] = []
    for o in obs:
        model = o.get("model")
        if not isinstance(model, str) or not model:
            continue
        if current is not None and model != current:
            changes.append({"at": o.get("at"), "from": current, "to": model, "via": o.get("via")})
        current = model
    return current, changes


def _checkpoint(cp: dict[str, Any] | None, count: int) -> CheckpointFacts | None:
    if cp is None:
        return None
    return {
        "at": cp.get("at"),
        "sha256": cp.get("sha256"),
        "source": cp.get("source"),
        "count": count,
        "claim": cp.get("claim"),
        "inheritedFrom": cp.get("inheritedFrom"),
        "writer": cp.get("by") or "agent-claim",
        "packet": cp.get("packet"),
    }


def _counts(records: list[dict[str, Any]]) -> ObservationCounts:
    """The observations by how they came and by kind; a recovery marker is recover's note of what it added
    (``recoveries``), not an observation, so it is not counted."""
    obs = [o for o in records if o.get("kind") != "recovery" and not o.get("carriedFrom")]  # this session's own
    by_via: dict[str, int] = {}
    by_kind: dict[str, int] = {}
    for o in obs:
        by_via[str(o.get("via"))] = by_via.get(str(o.get("via")), 0) + 1
        by_kind[str(o.get("kind"))] = by_kind.get(str(o.get("kind")), 0) + 1
    first_hook = next((o for o in obs if o.get("via") == "hook"), None)
    return {
        "total": len(obs),
        "byVia": dict(sorted(by_via.items())),
        "byKind": dict(sorted(by_kind.items())),
        "firstHook": {"at": first_hook.get("at"), "event": first_hook.get("event"), "source": first_hook.get("source")}
        if first_hook
        else None,
    }
