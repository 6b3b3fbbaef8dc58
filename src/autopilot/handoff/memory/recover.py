"""``handoff recover``: rebuild the observations the hooks missed from the session's own transcript.

Hooks miss events: the plugin was installed late, a hook crashed or timed out, Codex's hooks were
not trusted yet, or the session is older than all of it. The transcript (Claude Code) or rollout
(Codex) still holds what happened, so this module reads it through the existing readers (the
session sources, which refuse a session of another worktree, and the transcript folds) and appends
what the log lacks, marked ``"via": "recover"`` with a pointer to the line it came from:

- typed requests, edits (path, tool, result, the names they changed), validation runs (command, exit code, output tail),
  compactions and model changes;
- a run the hooks saw without its exit code (Codex hands none over) gets the rollout's.

It never touches checkpoints, so explicit unresolved work is never replaced; it is idempotent (an
observation already in the log, by id or by text and time, is not added again, and a second run
that adds nothing writes nothing); and it makes no model request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from autopilot.clock import now_ms, seconds_between
from autopilot.errors import BridgeError
from autopilot.handoff.memory import names, observe
from autopilot.handoff.memory.reduce import norm
from autopilot.handoff.memory.store import SessionStore
from autopilot.handoff.sources import Limits
from autopilot.handoff.sources.claude import ClaudeSource
from autopilot.handoff.sources.codex import CodexSource
from autopilot.handoff.sources.project import Project
from autopilot.handoff.transcripts import codex_fold, jsonl
from autopilot.handoff.transcripts.claude_fold import ClaudeFold
from autopilot.text import clip_value

if TYPE_CHECKING:
    from autopilot.handoff.transcripts.shapes import ClaudeFoldState, CodexFoldState

MATCH_S = 300  # a hook observation this close to a transcript row is the same event
EDIT_TOOLS = observe.EDIT_TOOLS | observe.PATCH_TOOLS


def source_for(agent: str) -> Any:
    """The local session source of ``agent`` (its transcripts or rollouts)."""
    return ClaudeSource() if agent == "claude" else CodexSource()


def _base(agent: str, at: Any, event: str, path: str, line: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {"v": observe.VERSION, "at": at or "", "agent": agent, "event": event, "via": "recover"}
    out["ref"] = {"transcript": path, "line": line}
    return out


def _line(event: dict[str, Any]) -> int | None:
    pointer = event.get("pointer") or {}
    return pointer.get("line") if isinstance(pointer.get("line"), int) else None


def from_events(agent: str, events: list[dict[str, Any]], path: str, cwd: str | None = None) -> list[dict[str, Any]]:
    """Requests, edits and validation runs as observations, from a source's events (oldest first).

    An edit's names (:mod:`.names`) come from its input; the definitions it sits in, from the file as it
    is now in ``cwd`` (the worktree), where its text is still found there.
    """
    out: list[dict[str, Any]] = []
    for event in events:
        if event.get("branch") not in (None, "active", "compacted"):
            continue  # a rewound branch or a rolled-back turn is not the session's work
        kind = event.get("kind")
        at = event.get("timestamp")
        if kind == "user" and not event.get("origin") and isinstance(event.get("text"), str):
            text = event["text"]
            if not text.strip() or text.lstrip().startswith(("<command-", "<local-command")):
                continue
            obs = {**_base(agent, at, "UserPromptSubmit", path, _line(event)), "kind": "request"}
            obs["prompt"] = clip_value(text, observe.PROMPT_CHARS)
            if event.get("turnId"):
                obs["id"] = event["turnId"]
            out.append(obs)
        elif kind == "tool" and isinstance(event.get("tool"), dict):
            out.extend(_tool(agent, event, path, cwd))
    return out


def _tool(agent: str, event: dict[str, Any], path: str, cwd: str | None) -> list[dict[str, Any]]:
    tool = event["tool"]
    name = tool.get("name")
    status = tool.get("status")
    if status in ("unfinished", "orphan") or not isinstance(name, str):
        return []
    result = tool.get("result") or {}
    at = event.get("timestamp")
    base = {**_base(agent, at, "PostToolUse", path, _line(event)), "tool": name}
    call = tool.get("callId")
    args = tool.get("input") if isinstance(tool.get("input"), dict) else {}
    if name in EDIT_TOOLS:
        paths = tool.get("paths") or [
            p for p in (args.get("file_path"), args.get("notebook_path")) if isinstance(p, str)
        ]
        outcome = "error" if status == "failed" else "ok"
        changed = _names(tool, args, paths, cwd) if outcome == "ok" else {}
        return [
            {
                **base,
                "kind": "edit",
                "path": p,
                "result": outcome,
                **({"id": f"{call}:{p}"} if call else {}),
                **({"names": changed[p]} if changed.get(p) else {}),
            }
            for p in paths
        ]
    command = tool.get("command")
    if name not in observe.SHELL_TOOLS or not isinstance(command, str) or not observe.looks_like_validation(command):
        return []
    code = result.get("exitCode")
    if not isinstance(code, int):
        code = 0 if status == "completed" and agent == "claude" else None  # Claude marks non-zero exits as errors
    obs = {**base, "kind": "run", "command": clip_value(command, observe.COMMAND_CHARS), "exit": code}
    obs["output"] = clip_value(result.get("text"), observe.OUTPUT_CHARS, tail=True)
    if call:
        obs["id"] = call
    return [obs]


def _names(tool: dict[str, Any], args: dict[str, Any], paths: list[str], cwd: str | None) -> dict[str, list[str]]:
    """The names each file of an edit changed: from a patch's hunks (Codex), or the tool's input (Claude Code)."""
    patch = tool.get("input")
    if isinstance(patch, str):
        if "\n" not in patch:  # a patch passed as a JSON string argument (older Codex) keeps its escapes
            patch = patch.replace("\\n", "\n")
        return names.of_patch(patch, cwd)
    return {p: names.of_tool(p, args, None, cwd) for p in paths}


def from_index(agent: str, path: str) -> list[dict[str, Any]]:
    """Compactions and model changes, from the transcript fold's index (the same cached index the source used)."""
    index: jsonl.Index[ClaudeFoldState] | jsonl.Index[CodexFoldState]
    if agent == "claude":
        index = claude = jsonl.scan(path, ClaudeFold())
        boundaries = [(b[0], b[1]) for b in claude.state["boundaries"]]
    else:
        index = codex = codex_fold.scan(path)
        boundaries = [(line, None) for line in codex.state["compaction_lines"]]
    models = index.state["modelChanges"]
    out: list[dict[str, Any]] = []
    with index.reader() as reader:
        for line, trigger in boundaries:
            row = reader.load(line) or {}
            obs = {**_base(agent, row.get("timestamp"), "PostCompact", path, line), "kind": "compact", "phase": "post"}
            obs.update(trigger=trigger or "unknown", id=f"compact:L{line}")
            out.append(obs)
        for line, model in models:
            row = reader.load(line) or {}
            obs = {**_base(agent, row.get("timestamp"), "model", path, line), "kind": "model", "model": model}
            obs["id"] = f"model:L{line}"
            out.append(obs)
    return out


def missing(candidates: list[dict[str, Any]], existing: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The candidates the log does not hold yet (by id, else by kind, text and time)."""
    by_id: dict[tuple[str, str], dict[str, Any]] = {}
    for o in existing:
        if isinstance(o.get("id"), str):
            by_id.setdefault((str(o.get("kind")), o["id"]), o)
    unmatched = [o for o in existing if o.get("kind") in ("request", "compact", "session")]
    used: set[int] = set()
    out = []
    for cand in candidates:
        kind = str(cand["kind"])
        ident = cand.get("id")
        if isinstance(ident, str) and (kind, ident) in by_id:
            known = by_id[(kind, ident)]
            if kind == "run" and known.get("exit") is None and isinstance(cand.get("exit"), int):
                out.append({**cand, "amends": "exit"})  # the hook saw the run, the rollout knows its exit code
            continue
        twin = next((n for n, o in enumerate(unmatched) if n not in used and _same(cand, o)), None)
        if twin is not None:
            used.add(twin)
            continue
        out.append(cand)
    return out


def _same(cand: dict[str, Any], known: dict[str, Any]) -> bool:
    if seconds_between(cand.get("at"), known.get("at")) > MATCH_S:
        return False
    if cand["kind"] == "request":
        return known.get("kind") == "request" and norm(str(known.get("prompt"))) == norm(str(cand.get("prompt")))
    if cand["kind"] == "compact":
        return (known.get("kind") == "compact" and known.get("phase") == "post") or (
            known.get("kind") == "session" and known.get("source") == "compact"
        )
    return False


def recover(agent: str, session: str, cwd: str | None = None) -> dict[str, Any]:
    """Append what the hooks missed; a summary of what was added and why coverage is what it is."""
    project = Project(cwd)
    source = source_for(agent)
    path, _ = source.selected(project, session)  # unknown session, or one of another worktree: refused
    try:
        observed = source.observe(project, session, Limits.from_env())
        candidates = from_events(agent, observed["events"], path, project.worktree) + from_index(agent, path)
    except FileNotFoundError:
        raise BridgeError(
            f"the transcript of {agent} session {session} disappeared while it was read ({path})",
            hint="nothing was changed; the active memory keeps what the hooks recorded",
        ) from None
    store = SessionStore(agent, session, project.worktree)
    existing = store.observations().records
    new = missing(candidates, existing)
    added: dict[str, int] = {}
    for o in new:
        added[o["kind"]] = added.get(o["kind"], 0) + 1
    gaps = [{k: g.get(k) for k in ("kind", "detail")} for g in observed["coverage"]["gaps"]]
    first_time = not any(o.get("kind") == "recovery" for o in existing)
    wrote = bool(new) or first_time
    if wrote:
        record = {
            "v": observe.VERSION,
            "at": now_ms(),
            "agent": agent,
            "event": "recover",
            "via": "recover",
            "kind": "recovery",
            "transcript": path,
            "sha256": observed["hash"]["sha256"],
            "added": dict(sorted(added.items())),
            "gaps": gaps,
        }
        store.append(observe.LOG, [*new, record])
    return {
        "agent": agent,
        "session": session,
        "worktree": project.worktree,
        "transcript": path,
        "added": dict(sorted(added.items())),
        "alreadyKnown": len(candidates) - len(new),
        "changed": wrote,
        "gaps": gaps,
        "modelRequests": 0,  # no code path here asks a model: test_recover_makes_no_model_request proves it
    }
