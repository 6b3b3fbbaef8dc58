"""codex-autopilot's Codex hook for the active memory: record each event of a Codex session, cheaply.

Installed by `codex-bridge install codex` for SessionStart, UserPromptSubmit, PostToolUse, PreCompact,
PostCompact, Stop and SessionEnd, and run by Codex with the event's JSON on stdin. It is standard
library only (Codex runs it with its own Python, before or without the bridge) and fails open: any
error exits 0 with no output. It appends the event's observations to
$AUTOPILOT_HOME/handoff/active/<worktree>/codex-<session>/observations.jsonl. When an injection may
be due (SessionStart after a compaction, or a prompt after facts changed), it asks the bridge that
installed it (`handoff inject --agent codex`, a few hundred milliseconds) and relays its answer, the
changed facts as additionalContext; without a bridge nothing is injected.

Codex has no hook for a model switch (the model is read from the `model` field every event carries)
and its PostToolUse hands over a command's output without its exit code (`handoff recover --from
codex` reads it from the rollout; coverage says so until then).

Stand-alone twins (this file cannot import the bridge; tests/unit/test_twins.py runs both sides on the
same inputs): everything from ``home`` to ``due`` is ``autopilot.handoff.memory.observe`` (same names; the names an
edit changed come from the bridge's own ``autopilot.handoff.memory.names``, imported as the redactor is), but
``now`` is ``autopilot.clock.now_ms``, ``dumps`` is ``autopilot.fastjson.dumps`` and ``clip`` is
``autopilot.text.clip_value``; ``toplevel`` is ``autopilot.git.toplevel``, ``loads`` is
``autopilot.fastjson.parse_json``.
"""

import os
import sys
import time

TYPE_CHECKING = False  # typing stays off Codex's every event
if TYPE_CHECKING:
    import types

# Codex runs this on every event: no `json` package (its decoder imports re), no subprocess and no
# hashlib (OpenSSL) unless needed; the C halves of json and SHA-256 do the work (measured:
# bench/bench_memory.py). The twins elsewhere in the bridge do the same (autopilot.hooks, observe).
try:
    from _json import encode_basestring_ascii, make_encoder, make_scanner
except ImportError:  # not CPython: the json package does it
    make_encoder = make_scanner = None  # type: ignore[misc,assignment]

VERSION = 1
LOG = "observations.jsonl"
CHECKPOINTS = "checkpoints.jsonl"
MARK = "inject.mark"
RULES_MARK = "rules.mark"  # the approved and managed rules' stamp when they were last delivered to the session
DURABLE_LOG = (
    "durable",
    "log.jsonl",
)  # under $AUTOPILOT_HOME: the person's approved rules (autopilot.knowledge.durable)
SEEN = ("durable", "seen.json")  # what the person last saw at a session start (autopilot.knowledge.durable.deliver)
MANAGED_FILE = "managed-rules.json"  # the administrator's rules (autopilot.knowledge.durable.managed)
MANAGED_DIR = "/Library/Application Support/CodexAutopilot" if sys.platform == "darwin" else "/etc/codex-autopilot"
WORKTREE_FILE = "worktree"
CLEARED = "cleared."
PROMPT_CHARS = 4000
COMMAND_CHARS = 1000
OUTPUT_CHARS = 1500
INSTRUCTIONS_CHARS = 500
EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
PATCH_TOOLS = frozenset({"apply_patch"})
SHELL_TOOLS = frozenset({"Bash", "exec_command", "shell", "local_shell", "shell_command"})
RUN_HINTS = (
    "test", "spec", "lint", "check", "mypy", "ruff", "flake8", "pylint", "pyright", "eslint", "tsc",
    "build", "compile", "vet", "clippy", "tox", "nox", "jest", "vitest", "mocha", "cargo", "gradle",
    "mvn", "make", "verify",
)  # fmt: skip
FACT_MARKS = (
    b'"kind":"edit"', b'"kind":"run"', b'"kind":"compact"', b'"kind":"model"', b'"kind":"attest"', b'"via":"recover"',
)  # fmt: skip
PATCH_HEADERS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")
TEXT_FIELDS = frozenset({"prompt", "command", "output", "instructions", "path", "transcript", "next"})
WITHHELD = "[withheld: may hold a credential, and the bridge's redactor could not be loaded]"
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
INJECT_TIMEOUT = 8.0  # Codex gives the hook 10 s
AGENT = "codex"


def toplevel(cwd: str) -> str | None:
    """The git work tree around ``cwd`` (found by walking up; git itself only under GIT_DIR/GIT_WORK_TREE)."""
    cwd = os.path.abspath(cwd)
    if "GIT_DIR" not in os.environ and "GIT_WORK_TREE" not in os.environ:
        here = os.path.realpath(cwd)
        while True:
            if os.path.exists(os.path.join(here, ".git")):
                return here
            parent = os.path.dirname(here)
            if parent == here:
                return None
            here = parent
    import subprocess

    try:
        proc = subprocess.run(
            ["git", "-C", cwd, "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"},
        )
    except OSError:
        return None
    if proc.returncode != 0 or not proc.stdout.strip():
        return None
    return os.path.realpath(proc.stdout.strip())


def home() -> str:
    """$AUTOPILOT_HOME, default ~/.codex-autopilot."""
    return os.environ.get("AUTOPILOT_HOME") or os.path.join(os.path.expanduser("~"), ".codex-autopilot")


def enabled() -> bool:
    """Whether the active memory records at all (AUTOPILOT_MEMORY=off switches it off)."""
    return os.environ.get("AUTOPILOT_MEMORY", "").strip().lower() not in ("off", "0", "false", "no")


def worktree_id(top: str) -> str:
    """The first 12 hex digits of the worktree path's SHA-256 (``autopilot.digest.sha256_hex``'s imports)."""
    try:
        from _sha2 import sha256  # Python >= 3.12
    except ImportError:
        try:
            from _sha256 import sha256  # Python 3.10, 3.11
        except ImportError:
            from hashlib import sha256
    return str(sha256(top.encode("utf-8")).hexdigest())[:12]


def session_dir(top: str, agent: str, session: str) -> str:
    """Where one session's active memory in worktree ``top`` lives."""
    return os.path.join(home(), "handoff", "active", worktree_id(top), f"{agent}-{session}")


def safe_session(value: object) -> "str | None":
    """``value`` when it can name a directory, else None."""
    if not isinstance(value, str) or not 4 <= len(value) <= 80 or not set(value) <= _SAFE:
        return None
    return value


def now() -> str:
    """The current UTC time, ISO 8601 with milliseconds and Z."""
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


class _ScanContext:
    """The settings json.JSONDecoder gives its scanner (``autopilot.fastjson._ScanContext``)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float


def loads(raw: str) -> object:
    """``json.loads(raw)`` with the C scanner alone (``autopilot.fastjson.parse_json``)."""
    if make_scanner is None:
        import json

        return json.loads(raw)
    text = raw.strip()
    try:
        value, end = make_scanner(_ScanContext())(text, 0)  # type: ignore[arg-type]
    except StopIteration:
        raise ValueError("not JSON") from None
    if end != len(text):
        raise ValueError("extra data after the JSON value")
    return value


def _unencodable(obj: object) -> object:
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


def dumps(obj: object) -> str:
    """Compact, ASCII-only JSON (``json.dumps(obj, separators=(",", ":"))``)."""
    if make_encoder is None:
        import json

        return json.dumps(obj, separators=(",", ":"))
    encode = make_encoder(None, _unencodable, encode_basestring_ascii, None, ":", ",", False, False, True)
    return "".join(encode(obj, 0))


def clip(value: object, limit: int, *, tail: bool = False) -> "str | None":
    """A string cut to ``limit`` characters (its end when ``tail``) at a line or word boundary, or None."""
    if not isinstance(value, str):
        return None
    if len(value) <= limit:
        return value
    keep = max(0, limit - 1)
    clipped = "…" + value[len(value) - keep :] if tail else value[:keep] + "…"
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


def observations(event: str, data: dict, agent: str) -> list:  # type: ignore[type-arg]
    """What one hook event tells the active memory (possibly nothing)."""
    base = {"v": VERSION, "at": now(), "agent": agent, "event": event, "via": "hook"}
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
            return []
        out = {**base, "kind": "request", "prompt": clip(data.get("prompt"), PROMPT_CHARS) or ""}
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
        instructions = clip(data.get("custom_instructions"), INSTRUCTIONS_CHARS)
        if instructions:
            out["instructions"] = instructions
        return [out]
    if event == "PostModelSwitch":
        return [{**base, "kind": "model", "model": str(data.get("to_model") or ""), "from": data.get("from_model")}]
    if event in ("PostToolUse", "PostToolUseFailure"):
        return _tool(base, event, data)
    return []


def stated_next(message: object) -> "str | None":
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


def _next_marker(line: str) -> "str | None":
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


def _list_item(line: str) -> "str | None":
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


def _tool(base: dict, event: str, data: dict) -> list:  # type: ignore[type-arg]
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
        names = names_module()
        found = names.of_tool(path, args, data.get("tool_response"), _cwd(data)) if names else None
        return [_edit(base, path, "ok", found)]
    if tool in PATCH_TOOLS:
        patch = args.get("command") or args.get("input")
        if not isinstance(patch, str):
            return []
        code = _exit_code(data.get("tool_response"))
        result = "error" if failed or (code is not None and code != 0) else "ok"
        names = names_module() if result == "ok" else None
        changed = names.of_patch(patch, _cwd(data)) if names else {}
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
            return [{**base, "kind": "attest", "command": clip(command, COMMAND_CHARS), "attests": found}]
    if not failed and CHECKPOINT_FILE in command:
        named = [w.strip("'\"") for w in command.split() if w.strip("'\"").endswith(CHECKPOINT_FILE)]
        if named:
            return [{**base, "kind": "pickup", "path": w} for w in named[:3]]
    if not looks_like_validation(command):
        return []
    out = {**base, "kind": "run", "command": clip(command, COMMAND_CHARS)}
    response = data.get("tool_response")
    if failed:
        error = data.get("error")
        out["exit"] = _exit_code(error)
        out["output"] = clip(error, OUTPUT_CHARS, tail=True)
        if data.get("is_interrupt"):
            out["interrupted"] = True
    elif isinstance(response, dict):
        text = "\n".join(s for s in (response.get("stdout"), response.get("stderr")) if isinstance(s, str) and s)
        out["exit"] = None if response.get("interrupted") else 0
        out["output"] = clip(text, OUTPUT_CHARS, tail=True)
        if response.get("interrupted"):
            out["interrupted"] = True
    else:
        out["exit"] = None
        out["output"] = clip(response, OUTPUT_CHARS, tail=True)
    return [out]


def _edit(base: dict, path: str, result: str, names: "list[str] | None" = None) -> dict:  # type: ignore[type-arg]
    """One edited file; its id is the call's plus the path; the names it changed, when it has any."""
    out = {**base, "kind": "edit", "path": path, "result": result}
    if "id" in base:
        out["id"] = f"{base['id']}:{path}"
    if names:
        out["names"] = names
    return out


def _cwd(data: dict) -> "str | None":  # type: ignore[type-arg]
    """The hook's working directory, which relative paths (a patch's) are relative to."""
    cwd = data.get("cwd")
    return cwd if isinstance(cwd, str) else None


def redacted(found: list) -> list:  # type: ignore[type-arg]
    """The observations with credentials in their texts replaced, by the bridge's redactor; a text that may hold
    one is withheld whole when the redactor cannot be loaded (a bridge moved or removed since install)."""
    if not any(needs_redaction(v) for o in found for k, v in o.items() if k in TEXT_FIELDS and isinstance(v, str)):
        return found
    redact = redactor()

    def keep(value: str) -> str:
        if redact is None:
            return WITHHELD if needs_redaction(value) else value
        return redact(value)  # type: ignore[operator,no-any-return]

    return [{k: keep(v) if k in TEXT_FIELDS and isinstance(v, str) else v for k, v in o.items()} for o in found]


def names_module() -> "types.ModuleType | None":
    """The bridge's ``autopilot.handoff.memory.names`` (the names an edit changed), imported from the package path
    ``install codex`` recorded, or the one already importable; None when neither loads (edits are recorded
    without names)."""
    package = installed().get("package")
    usable = isinstance(package, str) and os.path.isdir(os.path.join(package, "autopilot", "handoff", "memory"))
    if usable and package not in sys.path:
        sys.path.insert(0, str(package))
    try:
        from autopilot.handoff.memory import names
    except Exception:  # no bridge, or an older one: the edit is recorded all the same
        return None
    return names


def redactor() -> "object | None":
    """The bridge's redactor, imported from the package path ``install codex`` recorded (None: not loadable)."""
    package = installed().get("package")
    if not isinstance(package, str) or not os.path.isdir(os.path.join(package, "autopilot", "redact")):
        return None
    if package not in sys.path:
        sys.path.insert(0, package)
    try:
        from autopilot.redact import Redactor
    except Exception:  # an older or broken bridge: withhold rather than write a secret
        return None
    return Redactor()


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

    False means the redactor would leave ``text`` as it is (tests/unit/test_memory_at_rest.py checks that
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


def attests(response: object) -> list:  # type: ignore[type-arg]
    """The checkpoint hashes (``sha256:`` and 64 hex digits) a command printed, each once, at most 20."""
    if isinstance(response, dict):
        response = "\n".join(s for s in (response.get("stdout"), response.get("stderr")) if isinstance(s, str))
    if not isinstance(response, str):
        return []
    found: list = []  # type: ignore[type-arg]
    at = response.find("sha256:")
    while at >= 0 and len(found) < 20:
        digest = response[at : at + 71]
        if len(digest) == 71 and set(digest[7:]) <= _HEX and digest not in found:
            found.append(digest)
        at = response.find("sha256:", at + 7)
    return found


def looks_like_validation(command: str) -> bool:
    """Whether a command might build, test, lint or type-check."""
    lowered = command.lower()
    return any(hint in lowered for hint in RUN_HINTS)


def patch_paths(patch: str) -> list:  # type: ignore[type-arg]
    """The files an apply_patch body adds, updates, deletes or moves to, in order, each once."""
    found: list = []  # type: ignore[type-arg]
    for line in patch.splitlines():
        for header in PATCH_HEADERS:
            if line.startswith(header):
                path = line[len(header) :].strip()
                if path and path not in found:
                    found.append(path)
    return found


def _exit_code(text: object) -> "int | None":
    """The code of a leading ``Exit code N`` / ``Exit code: N`` line."""
    if not isinstance(text, str) or not text.startswith("Exit code"):
        return None
    head = text[9:].lstrip(":").strip().split("\n", 1)[0].split(" ", 1)[0]
    try:
        return int(head)
    except ValueError:
        return None


def append(folder: str, name: str, lines: list) -> int:  # type: ignore[type-arg]
    """Append whole lines with one write (O_APPEND)."""
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


def record(event: str, data: dict, agent: str) -> "tuple[str, bool] | None":  # type: ignore[type-arg]
    """Append the event's observations; (the session's directory, whether an injection may be due)."""
    if not enabled():
        return None
    session = safe_session(data.get("session_id"))
    if session is None:
        return None
    top = toplevel(str(data.get("cwd") or os.getcwd()))
    if top is None:
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
    return os.environ.get("AUTOPILOT_MANAGED_DIR") or MANAGED_DIR


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


def rules_due(event: str, data: dict, folder: str) -> bool:  # type: ignore[type-arg]
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


def due(event: str, data: dict, folder: str) -> bool:  # type: ignore[type-arg]
    """Whether this event may have something to inject."""
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


def installed() -> dict:  # type: ignore[type-arg]
    """What ``install codex`` recorded beside this script (installed.json): the bridge, its python, its package."""
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "installed.json"), encoding="utf-8") as fh:
            found = loads(fh.read())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def bridge_command() -> "list | None":  # type: ignore[type-arg]
    """How to run the bridge that installed this hook (installed.json beside this script), or None."""
    recorded = installed()
    if isinstance(recorded.get("bridge"), str) and os.access(recorded["bridge"], os.X_OK):
        return [recorded["bridge"]]
    if isinstance(recorded.get("python"), str) and os.access(recorded["python"], os.X_OK):
        return [recorded["python"], "-I", "-m", "autopilot"]
    return None


def inject(raw: bytes) -> str:
    """The bridge's injection answer for this event (hook JSON), or '' when it has nothing or cannot say."""
    command = bridge_command()
    if command is None:
        return ""
    import subprocess

    proc = subprocess.run(
        [*command, "handoff", "inject", "--agent", AGENT],
        input=raw,
        capture_output=True,
        timeout=INJECT_TIMEOUT,
    )
    out = proc.stdout.decode("utf-8", "replace").strip()
    return out if proc.returncode == 0 and out.startswith("{") else ""


def handle(raw: bytes) -> str:
    """Record one event; the hook's stdout (changed facts as additionalContext, or nothing)."""
    data = loads(raw.decode("utf-8")) if raw.strip() else {}
    if not isinstance(data, dict):
        return ""
    event = str(data.get("hook_event_name") or "")
    recorded = record(event, data, AGENT)
    if recorded is None or not recorded[1]:
        return ""
    return inject(raw)


def crash_log(exc: BaseException) -> None:
    """Append the traceback to $AUTOPILOT_HOME/crash.log, if that can be done at all."""
    try:
        import traceback

        os.makedirs(home(), exist_ok=True)
        with open(os.path.join(home(), "crash.log"), "a", encoding="utf-8") as fh:
            fh.write(f"--- {now()} codex memory hook\n")
            fh.write("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    except Exception:
        pass


def main() -> int:
    """Read the event from stdin and answer; never let an error reach Codex as a failure."""
    try:
        out = handle(sys.stdin.buffer.read())
    except Exception as exc:  # fail open: a broken hook must not break the user's session
        crash_log(exc)
        return 0
    if out:
        sys.stdout.write(out + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
