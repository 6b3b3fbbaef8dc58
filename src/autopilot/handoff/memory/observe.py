"""Recording one hook event in the active memory: the cheap half, run on every hook.

Claude Code and Codex call a hook on every prompt, tool call, turn end, compaction and session
boundary, in every repository. So this module is on the hot path (docs/architecture.md): it
imports ``os``, the C halves of ``json`` and SHA-256, and the hot-path modules ``autopilot.git`` /
``autopilot.digest`` / ``autopilot.errors`` / ``autopilot.clock`` / ``autopilot.text`` only (pinned
by tests/integration/test_hooks.py), redacts the texts it keeps before they are written
(the redactor loads only when a text may hold a credential: :func:`needs_redaction`), writes each
event's observations with one ``os.write``
to an ``O_APPEND`` file (concurrent hooks never interleave whole lines), and decides with a
``stat`` and a short read whether an injection could be due. Everything heavier (the reducer,
the injection itself) runs in :mod:`autopilot.hooks.memory` only when it is due.

What is kept is what the hook input says, cut short: the prompt of a request, the path, tool and
result of an edit (and the names it changed: :mod:`autopilot.handoff.memory.names`), the command, exit code
and output tail of a run that looks like validation (the reducer decides precisely which runs
validate and what their outcome was), compaction, session and turn boundaries, model changes. Tool
outputs of other commands and file contents are never kept. Codex's memory hook records with this
module too: its installed launcher runs :mod:`.codex_hook`, which calls :func:`record`.
"""

from __future__ import annotations

import os
import sys

from autopilot import config
from autopilot.clock import now_ms
from autopilot.digest import sha256_hex
from autopilot.errors import BridgeError
from autopilot.fastjson import dumps
from autopilot.git import toplevel
from autopilot.text import clip_value

TYPE_CHECKING = False  # `typing` stays off the hot path
if TYPE_CHECKING:
    from typing import Any

VERSION = 1
AGENTS = ("claude", "codex")  # whose sessions a worktree's active memory holds
LOG = "observations.jsonl"
CHECKPOINTS = "checkpoints.jsonl"
INJECTIONS = "injections.jsonl"
MARK = "inject.mark"  # "<observation bytes> <checkpoint bytes>" when the last injection was decided
RULES = "rules.jsonl"  # every delivery of approved rules to the session (autopilot.knowledge.durable.deliver)
RULES_MARK = "rules.mark"  # the approved and managed rules' stamp when they were last delivered to the session
DURABLE_LOG = (
    "durable",
    "log.jsonl",
)  # under $AUTOPILOT_HOME: the person's approved rules (autopilot.knowledge.durable)
SEEN = ("durable", "seen.json")  # what the person last saw at a session start (autopilot.knowledge.durable.deliver)
MANAGED_FILE = "managed-rules.json"  # the administrator's rules (autopilot.knowledge.durable.managed)
MANAGED_DIR = "/Library/Application Support/CodexAutopilot" if sys.platform == "darwin" else "/etc/codex-autopilot"
WORKTREE_FILE = "worktree"  # the worktree's path, beside its sessions
CLEARED = "cleared."  # + <agent>.<session>: an empty file SessionEnd(reason=clear) leaves for the next session
PROMPT_CHARS = 4000
COMMAND_CHARS = 1000
OUTPUT_CHARS = 1500
INSTRUCTIONS_CHARS = 500
EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
PATCH_TOOLS = frozenset({"apply_patch"})
SHELL_TOOLS = frozenset({"Bash", "exec_command", "shell", "local_shell", "shell_command"})
# A run is kept when its command has one of these (the reducer's classify() is the precise test).
RUN_HINTS = (
    "test", "spec", "lint", "check", "mypy", "ruff", "flake8", "pylint", "pyright", "eslint", "tsc",
    "build", "compile", "vet", "clippy", "tox", "nox", "jest", "vitest", "mocha", "cargo", "gradle",
    "mvn", "make", "verify",
)  # fmt: skip
# The kinds that can change what is injected; a line written by `handoff recover` can too.
FACT_MARKS = (
    b'"kind":"edit"', b'"kind":"run"', b'"kind":"compact"', b'"kind":"model"', b'"kind":"attest"', b'"via":"recover"',
)  # fmt: skip
PATCH_HEADERS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")
# The fields of an observation that carry text from the user, a tool or the agent: redacted before they are written.
TEXT_FIELDS = frozenset({"prompt", "command", "output", "instructions", "path", "transcript", "next"})
_HEX = frozenset("0123456789abcdef")
# The commands that write a session's memory (the from-claude skill's script imports the handed-over packet).
ATTESTED_VERBS = ("handoff checkpoint", "handoff import", "from-claude", "from_claude")
CHECKPOINT_FILE = "autopilot-checkpoint.json"  # a checkpoint the session's own tool wrote: its hook picks it up
_SAFE = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_")
# The agent's own words about what it does next, at the end of its turn (Stop's ``last_assistant_message``).
NEXT_STEPS = 8  # steps kept at most
STEP_CHARS = 300
NEXT_MARKERS = ("next steps", "next step", "next up", "next", "remaining work", "remaining", "still to do",
                "left to do", "to do", "todo", "plan")  # fmt: skip
NEXT_OPENERS = ("next, i", "next i ", "i'll next", "i will next", "my next step", "the next step", "then i'll")
NEXT_TAIL_LINES = 80  # only the closing part of a long message is read


def home() -> str:
    """``$AUTOPILOT_HOME``, default ``~/.codex-autopilot`` (``paths.autopilot_home`` without pathlib)."""
    return config.autopilot_home()


def enabled() -> bool:
    """Whether the active memory records at all (``AUTOPILOT_MEMORY=off`` switches it off)."""
    return (config.env("AUTOPILOT_MEMORY") or "").strip().lower() not in ("off", "0", "false", "no")


def worktree_id(top: str) -> str:
    """The directory name of a worktree's sessions: the first 12 hex digits of its path's SHA-256."""
    return sha256_hex(top.encode("utf-8"))[:12]


def session_dir(top: str, agent: str, session: str) -> str:
    """Where one session's active memory in worktree ``top`` lives."""
    return os.path.join(home(), "handoff", "active", worktree_id(top), f"{agent}-{session}")


def sessions_of(worktree: str) -> list[tuple[str, str]]:
    """The (agent, session) pairs with an active memory in ``worktree``, sorted."""
    folder = os.path.dirname(session_dir(worktree, "x", "xxxx"))
    try:
        names = sorted(os.listdir(folder))
    except OSError:  # no memory here yet (or the folder is unreadable: nothing to list)
        return []
    found = []
    for name in names:
        agent, _, session = name.partition("-")
        if agent in AGENTS and session and os.path.isdir(os.path.join(folder, name)):
            found.append((agent, session))
    return found


def safe_session(value: object) -> str | None:
    """``value`` when it can name a directory (letters, digits, ``-``, ``_``; 4 to 80 of them), else None."""
    if not isinstance(value, str) or not 4 <= len(value) <= 80 or not set(value) <= _SAFE:
        return None
    return value


def clip_whole(value: object, limit: int, *, tail: bool = False) -> str | None:
    """``text.clip_value``, then cut back to a line or word boundary (see :func:`_at_a_boundary`)."""
    clipped = clip_value(value, limit, tail=tail)
    if clipped is None or clipped == value:
        return clipped
    return _at_a_boundary(clipped, tail=tail)


def _at_a_boundary(text: str, *, tail: bool) -> str:
    """A clipped text without the line (or, on one line, the word) the cut went through: half a key body line or
    half a token is neither shown nor able to hide from the redactor, which knows them by their start."""
    if tail:
        rest = text[1:]
        cut = rest.find("\n")
        if 0 <= cut < len(rest) // 2:
            return "…\n" + rest[cut + 1 :]  # the mark on a line of its own: the first line stays a whole line
        cut = min((i for i in (rest.find(" "), rest.find("\t")) if i >= 0), default=-1)
        return "…" + rest[cut + 1 :] if 0 <= cut < len(rest) // 2 else "…"
    rest = text[:-1]
    cut = rest.rfind("\n")
    if cut > len(rest) // 2:
        return rest[:cut] + "\n…"
    cut = max(rest.rfind(" "), rest.rfind("\t"))
    return rest[:cut] + "…" if cut > len(rest) // 2 else "…"


def observations(event: str, data: dict[str, Any], agent: str) -> list[dict[str, Any]]:
    """What one hook event tells the active memory (possibly nothing)."""
    base: dict[str, Any] = {"v": VERSION, "at": now_ms(), "agent": agent, "event": event, "via": "hook"}
    model = data.get("model")
    if isinstance(model, str) and model:
        base["model"] = model
    if event == "SessionStart":
        out = {**base, "kind": "session", "source": str(data.get("source") or "startup")}
        if isinstance(data.get("transcript_path"), str):
            out["transcript"] = data["transcript_path"]
        return [out]
    if event == "SessionEnd":
        return [{**base, "kind": "end", "reason": str(data.get("reason") or "other")}]
    if event == "UserPromptSubmit":
        if data.get("agent_id") or data.get("agent_type"):
            return []  # a subagent's prompt is its parent's instruction, not the user's request
        out = {**base, "kind": "request", "prompt": clip_whole(data.get("prompt"), PROMPT_CHARS) or ""}
        ident = data.get("prompt_id") or data.get("turn_id")
        if isinstance(ident, str):
            out["id"] = ident
        return [out]
    if event == "Stop":
        turn = {**base, "kind": "turn"}
        steps = stated_next(data.get("last_assistant_message"))
        if steps:
            turn["next"] = steps  # the agent's own words: its claim, kept like a checkpoint's next action
        return [turn]
    if event in ("PreCompact", "PostCompact"):
        out = {**base, "kind": "compact", "phase": "pre" if event == "PreCompact" else "post"}
        out["trigger"] = str(data.get("trigger") or "unknown")
        instructions = clip_whole(data.get("custom_instructions"), INSTRUCTIONS_CHARS)
        if instructions:
            out["instructions"] = instructions
        return [out]
    if event == "PostModelSwitch":
        return [{**base, "kind": "model", "model": str(data.get("to_model") or ""), "from": data.get("from_model")}]
    if event in ("PostToolUse", "PostToolUseFailure"):
        return _tool(base, event, data)
    return []


def stated_next(message: object) -> str | None:
    """The next steps the agent stated at the end of its turn, one per line, or None.

    A "Next:" line, a "Next steps" (or "Remaining", "To do", "Plan") heading with the list under it,
    or a closing paragraph that opens with "Next, I…": the last such block of the message, bounded
    (:data:`NEXT_STEPS` steps of :data:`STEP_CHARS` characters). No regular expression: this runs in
    every turn's Stop hook.
    """
    if not isinstance(message, str) or not message:
        return None
    low = message.lower()
    if "next" not in low and "remaining" not in low and "to do" not in low and "todo" not in low and "plan" not in low:
        return None
    lines = message.splitlines()[-NEXT_TAIL_LINES:]
    at, first = -1, ""
    for i, line in enumerate(lines):
        head = _next_marker(line)
        if head is not None:
            at, first = i, head
    steps = [first] if first else []
    if at >= 0:
        for line in lines[at + 1 :]:
            text = line.strip()
            if not text:
                if steps:
                    break  # a blank line ends the list
                continue
            item = _list_item(text)
            if item is not None:
                steps.append(item)
                continue
            if not steps:
                steps.append(text)  # "Next steps:" and one plain sentence under it
            break
    else:
        paragraph = message.strip().split("\n\n")[-1].strip()
        if paragraph.lower().startswith(NEXT_OPENERS):
            steps = [" ".join(paragraph.split())]
    kept = [_clip_step(s) for s in steps if s.strip()][:NEXT_STEPS]
    return "\n".join(kept) or None


def _next_marker(line: str) -> str | None:
    """The text after a next-steps marker on ``line`` ("" for a heading alone), or None when it is not one."""
    bare = line.strip().lstrip("#>*_ ").rstrip()
    low = bare.lower()
    for marker in NEXT_MARKERS:
        if low.startswith(marker):
            rest = bare[len(marker) :].lstrip("*_ ")
            if rest.startswith((":", "：")):
                return rest[1:].strip(" *_")
            if not rest.strip("*_#: "):
                return "" if marker != "next" else None  # "Next" alone is a word, not a heading
            return None
    return None


def _list_item(line: str) -> str | None:
    """A list item's text ("- x", "* x", "• x", "1. x", "2) x", "[ ] x"), or None."""
    for bullet in ("- [ ] ", "* [ ] ", "- ", "* ", "• ", "[ ] "):
        if line.startswith(bullet):
            return line[len(bullet) :].strip() or None
    digits = 0
    while digits < len(line) and line[digits].isdigit():
        digits += 1
    if 0 < digits <= 3 and line[digits : digits + 2] in (". ", ") "):
        return line[digits + 2 :].strip() or None
    return None


def _clip_step(step: str) -> str:
    """One step on one line, at most STEP_CHARS characters, cut at a word."""
    one = " ".join(step.split())
    if len(one) <= STEP_CHARS:
        return one
    cut = one[: STEP_CHARS - 1].rfind(" ")
    return one[: cut if cut > STEP_CHARS // 2 else STEP_CHARS - 1] + "…"


def _tool(base: dict[str, Any], event: str, data: dict[str, Any]) -> list[dict[str, Any]]:
    tool = data.get("tool_name")
    args = data.get("tool_input")
    if not isinstance(tool, str) or not isinstance(args, dict):
        return []
    base["tool"] = tool
    ident = data.get("tool_use_id")
    if isinstance(ident, str):
        base["id"] = ident
    if data.get("agent_id"):
        base["subagent"] = str(data["agent_id"])
    failed = event == "PostToolUseFailure"
    if tool in EDIT_TOOLS:
        path = args.get("file_path") or args.get("notebook_path")
        if not isinstance(path, str):
            return []
        if os.path.basename(path) == CHECKPOINT_FILE:
            return [] if failed else [{**base, "kind": "pickup", "path": path}]
        if failed:
            return [_edit(base, path, "error")]
        from autopilot.handoff.memory import names  # only when an edit is recorded

        return [_edit(base, path, "ok", names.of_tool(path, args, data.get("tool_response"), _cwd(data)))]
    if tool in PATCH_TOOLS:
        patch = args.get("command") or args.get("input")
        if not isinstance(patch, str):
            return []
        code = _exit_code(data.get("tool_response"))
        result = "error" if failed or (code is not None and code != 0) else "ok"
        changed: dict[str, list[str]] = {}
        if result == "ok":
            from autopilot.handoff.memory import names

            changed = names.of_patch(patch, _cwd(data))
        return [
            {**base, "kind": "pickup", "path": p}
            if os.path.basename(p) == CHECKPOINT_FILE
            else _edit(base, p, result, changed.get(p))
            for p in patch_paths(patch)
            if result == "ok" or os.path.basename(p) != CHECKPOINT_FILE
        ]
    if tool not in SHELL_TOOLS:
        return []
    command = args.get("command")
    if isinstance(command, list):
        command = " ".join(str(part) for part in command)
    if not isinstance(command, str):
        return []
    if not failed and any(verb in " ".join(command.split()) for verb in ATTESTED_VERBS):
        # The session's own command wrote its memory: the receipt it printed is what this hook vouches for.
        found = attests(data.get("tool_response"))
        if found:
            return [{**base, "kind": "attest", "command": clip_whole(command, COMMAND_CHARS), "attests": found}]
    if not failed and CHECKPOINT_FILE in command:
        named = [w.strip("'\"") for w in command.split() if w.strip("'\"").endswith(CHECKPOINT_FILE)]
        if named:
            return [{**base, "kind": "pickup", "path": w} for w in named[:3]]
    if not looks_like_validation(command):
        return []
    out = {**base, "kind": "run", "command": clip_whole(command, COMMAND_CHARS)}
    response = data.get("tool_response")
    if failed:  # Claude Code: {"error": "Exit code 3\n<output>", "is_interrupt": bool}
        error = data.get("error")
        out["exit"] = _exit_code(error)
        out["output"] = clip_whole(error, OUTPUT_CHARS, tail=True)
        if data.get("is_interrupt"):
            out["interrupted"] = True
    elif isinstance(response, dict):  # Claude Code's Bash ran to exit 0 (a non-zero exit is a failure event)
        text = "\n".join(s for s in (response.get("stdout"), response.get("stderr")) if isinstance(s, str) and s)
        out["exit"] = None if response.get("interrupted") else 0
        out["output"] = clip_whole(text, OUTPUT_CHARS, tail=True)
        if response.get("interrupted"):
            out["interrupted"] = True
    else:  # Codex 0.171 hands the output only, without the exit code: recover reads it from the rollout
        out["exit"] = None
        out["output"] = clip_whole(response, OUTPUT_CHARS, tail=True)
    return [out]


def _edit(base: dict[str, Any], path: str, result: str, names: list[str] | None = None) -> dict[str, Any]:
    """One edited file; its id is the call's plus the path (one patch can touch several files); the names it
    changed (:mod:`autopilot.handoff.memory.names`), when it has any."""
    out = {**base, "kind": "edit", "path": path, "result": result}
    if "id" in base:
        out["id"] = f"{base['id']}:{path}"
    if names:
        out["names"] = names
    return out


def _cwd(data: dict[str, Any]) -> str | None:
    """The hook's working directory, which relative paths (a patch's) are relative to."""
    cwd = data.get("cwd")
    return cwd if isinstance(cwd, str) else None


def redacted(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The observations with credentials in their texts replaced by placeholders, before they are written.

    The redactor (~150 patterns: 10-20 ms to load) is loaded only when a text may hold a secret
    (:func:`needs_redaction`); most prompts, paths and test outputs do not.
    """
    if not any(needs_redaction(v) for o in found for k, v in o.items() if k in TEXT_FIELDS and isinstance(v, str)):
        return found
    from autopilot.redact import Redactor

    redact = Redactor()
    return [{k: redact(v) if k in TEXT_FIELDS and isinstance(v, str) else v for k, v in o.items()} for o in found]


# Words that can make a line hold a secret (the redactor's secret words and command hints), and longer words that
# contain one without being one (`passed`, `bypass`: a test run's output is full of them).
_SCREEN_WORDS = (
    "secret", "token", "pass", "pwd", "pw", "hmac", "key", "credential", "auth", "sig", "cookie", "bearer",
    "private", "://", "-----", "sudo", "zip", "7z", "ldap", "mysql", "mariadb", "mongo", "redis", "login",
    "machine", "setx", "setenv", "set -", "-u", "--user", "-h", "--header", "salt", "pepper", "mnemonic",
    "wallet", "signer", "account", "kty", "minisign", "random_", "sensitive", "<add",
)  # fmt: skip
_BENIGN = ("passed", "passes", "passing", "bypass", "compass", "keyboard", "author")
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.~%:")
_ZERO_WIDTH = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad")


def needs_redaction(text: str) -> bool:
    """Whether ``text`` may hold a credential: a secret word or command, a token-like run, a seed-phrase-like line.

    False means the redactor would leave ``text`` as it is (tests/unit/handoff/memory/test_observe.py checks that
    over the corpus and thousands of files); it costs a few string scans, no regular expression.
    """
    lowered = text.lower()
    for word in _BENIGN:
        if word in lowered:
            lowered = lowered.replace(word, " ")
    if any(word in lowered for word in _SCREEN_WORDS) or any(c in text for c in _ZERO_WIDTH):
        return True
    if text.count("\\u00") + text.count("\\x") >= 8:  # escaped characters: a secret written as escapes
        return True
    run = 0
    upper = lower = digit = False
    for c in text:  # a run of 12+ token characters with a digit or both cases: a generated value
        if c in _TOKEN_CHARS:
            run += 1
            upper, lower, digit = upper or c.isupper(), lower or c.islower(), digit or c.isdigit()
            if run >= 12 and (digit or (upper and lower)):
                return True
        else:
            run, upper, lower, digit = 0, False, False, False
    return any(_seed_like(line) for line in text.split("\n") if line.count(" ") + line.count("\t") >= 11)


def _seed_like(line: str) -> bool:
    """Whether a line holds twelve lower-case words of 3 to 8 letters in a row (a BIP-39 seed phrase could)."""
    run = 0
    for word in line.split():
        run = run + 1 if 3 <= len(word) <= 8 and word.isalpha() and word.islower() else 0
        if run >= 12:
            return True
    return False


def attests(response: object) -> list[str]:
    """The checkpoint hashes (``sha256:`` and 64 hex digits) a command printed, each once, at most 20."""
    if isinstance(response, dict):
        response = "\n".join(s for s in (response.get("stdout"), response.get("stderr")) if isinstance(s, str))
    if not isinstance(response, str):
        return []
    found: list[str] = []
    at = response.find("sha256:")
    while at >= 0 and len(found) < 20:
        digest = response[at : at + 71]
        if len(digest) == 71 and set(digest[7:]) <= _HEX and digest not in found:
            found.append(digest)
        at = response.find("sha256:", at + 7)
    return found


def looks_like_validation(command: str) -> bool:
    """Whether a command might build, test, lint or type-check (loose: the reducer classifies precisely)."""
    lowered = command.lower()
    return any(hint in lowered for hint in RUN_HINTS)


def patch_paths(patch: str) -> list[str]:
    """The files an ``apply_patch`` body adds, updates, deletes or moves to, in order, each once."""
    found: list[str] = []
    for line in patch.splitlines():
        for header in PATCH_HEADERS:
            if line.startswith(header):
                path = line[len(header) :].strip()
                if path and path not in found:
                    found.append(path)
    return found


def _exit_code(text: object) -> int | None:
    """The code of a leading ``Exit code N`` / ``Exit code: N`` line (Claude Code and Codex write these)."""
    if not isinstance(text, str) or not text.startswith("Exit code"):
        return None
    head = text[9:].lstrip(":").strip().split("\n", 1)[0].split(" ", 1)[0]
    try:
        return int(head)
    except ValueError:
        return None


def append(folder: str, name: str, lines: list[str]) -> int:
    """Append whole lines to ``folder/name`` with one write (O_APPEND: concurrent writers never interleave)."""
    payload = "".join(line + "\n" for line in lines).encode("utf-8")
    fd = os.open(os.path.join(folder, name), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, payload)
        return os.fstat(fd).st_size
    finally:
        os.close(fd)


def ensure(folder: str, top: str) -> None:
    """Create a session's directory (and its worktree's, with the worktree's path in it) if missing."""
    if os.path.isdir(folder):
        return
    os.makedirs(folder, mode=0o700, exist_ok=True)
    marker = os.path.join(os.path.dirname(folder), WORKTREE_FILE)
    if not os.path.exists(marker):
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, top.encode("utf-8"))
        finally:
            os.close(fd)


def record(event: str, data: dict[str, Any], agent: str) -> tuple[str, bool] | None:
    """Append the event's observations to its session; (the session's directory, whether an injection may be due).

    None when nothing is recorded: memory switched off, no usable session id, or not in a git worktree.
    """
    if not enabled():
        return None
    session = safe_session(data.get("session_id"))
    if session is None:
        return None
    try:
        top = toplevel(str(data.get("cwd") or os.getcwd()))
    except BridgeError:
        return None
    found = observations(event, data, agent)
    folder = session_dir(top, agent, session)
    if not found and not os.path.isdir(folder):
        return None
    ensure(folder, top)
    if found:
        append(folder, LOG, [dumps(o) for o in redacted(found)])
    if event == "SessionEnd" and data.get("reason") == "clear":
        fd = os.open(os.path.join(os.path.dirname(folder), f"{CLEARED}{agent}.{session}"), os.O_WRONLY | os.O_CREAT)
        os.close(fd)
    picked = any(o.get("kind") in ("pickup", "attest") for o in found)  # its own call wrote its memory
    return folder, picked or due(event, data, folder)


def managed_dir() -> str:
    """The administrator's rules directory: ``AUTOPILOT_MANAGED_DIR``, else the platform's (/etc/codex-autopilot)."""
    return config.env("AUTOPILOT_MANAGED_DIR") or MANAGED_DIR


def rules_stamp() -> str:
    """The approved and managed rules as a stat sees them (size and change time of each file and the managed
    directory): it changes whenever either could have; "" when neither file exists."""
    parts = []
    managed = managed_dir()
    for path in (os.path.join(home(), *DURABLE_LOG), os.path.join(managed, MANAGED_FILE), managed):
        try:
            st = os.stat(path)
            parts.append(f"{st.st_size}:{st.st_ctime_ns}:{st.st_mtime_ns}")
        except OSError:
            parts.append("-")
    return "" if parts[:2] == ["-", "-"] else " ".join(parts)


def rules_due(event: str, data: dict[str, Any], folder: str) -> bool:
    """Whether the rules may have changed since they were last delivered to the session in ``folder`` (or, at a
    session's start, whether the person should hear that the approved set changed since their last session)."""
    try:
        with open(os.path.join(folder, RULES_MARK), "rb") as fh:
            seen = fh.read(300).decode("utf-8", "replace").strip()
    except OSError:
        seen = ""
    if rules_stamp() != seen:
        return True
    return event == "SessionStart" and data.get("source") == "startup" and os.path.exists(os.path.join(home(), *SEEN))


def due(event: str, data: dict[str, Any], folder: str) -> bool:
    """Whether this event may have something to do beyond recording: a compaction (the checkpoint before it, the
    comparison with its summary after it), a reset (/clear) or a fact new since the mark."""
    if event in ("PreCompact", "PostCompact"):
        return True  # the automatic checkpoint before, the comparison with the summary after
    if event == "UserPromptSubmit" and str(data.get("prompt") or "").strip() == "$handoff":
        return True  # Codex's $handoff: the sender's automatic checkpoint before the pointer
    if event not in ("SessionStart", "UserPromptSubmit"):
        return False
    source = data.get("source")
    if event == "SessionStart" and source in ("compact", "clear"):
        return True
    if rules_due(event, data, folder):
        return True
    if event == "SessionStart" and source == "startup":
        return False
    try:
        with open(os.path.join(folder, MARK), "rb") as fh:
            seen_obs, seen_ckpt = (int(x) for x in fh.read(64).split()[:2])
    except (OSError, ValueError):
        seen_obs = seen_ckpt = 0
    try:
        ckpt = os.stat(os.path.join(folder, CHECKPOINTS)).st_size
    except OSError:
        ckpt = 0
    if ckpt != seen_ckpt:
        return True
    try:
        with open(os.path.join(folder, LOG), "rb") as fh:
            fh.seek(seen_obs)
            new = fh.read()
    except OSError:
        return False
    return any(mark in new for mark in FACT_MARKS)
