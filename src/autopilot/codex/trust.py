"""Codex hook trust: the key and hash Codex trusts a hook by, recorded in ``config.toml`` or asked of Codex.

Codex runs a non-managed hook only when ``config.toml`` holds ``[hooks.state."<key>"] trusted_hash``
equal to the hook's current hash. For a hook in ``$CODEX_HOME/hooks.json`` (codex 0.171,
codex-rs/hooks/src/engine/discovery.rs, reproduced here and checked against the binary's own
``hooks/list`` answer in tests/e2e):

- key: ``<CODEX_HOME resolved>/hooks.json:user_prompt_submit:<group index>:<handler index>``;
- hash: ``sha256:`` + SHA-256 of the compact, key-sorted JSON of
  ``{"event_name": "user_prompt_submit", "hooks": [{"type": "command", "command", "timeout", "async",
  "statusMessage"?}]}`` (matcher is ignored for UserPromptSubmit; timeout defaults to 600).

When a codex binary is at hand, ``codex app-server``'s ``hooks/list`` has the final word: its
``currentHash`` is what that version compares against.
"""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path
from typing import Any

from autopilot.codex.app_server import AppServerClient
from autopilot.codex.hooks_file import EVENT_LABEL, backup
from autopilot.config import toml_reader
from autopilot.digest import canonical, sha256_hex
from autopilot.errors import BridgeError
from autopilot.fsutil import replace_text

HEADER = re.compile(
    r"""^[ \t]*\[[ \t]*hooks[ \t]*\.[ \t]*state[ \t]*\.[ \t]*("(?:[^"\\\n]|\\.)*"|'[^'\n]*')[ \t]*\]"""
    r"""[ \t]*(?:#.*)?$"""
)
ANY_HEADER = re.compile(r"^[ \t]*\[")
TRUSTED = re.compile(r"^[ \t]*trusted_hash[ \t]*=")
ASK_TIMEOUT = 20.0


def key(hooks_file: Path, where: tuple[int, int], event_label: str = EVENT_LABEL) -> str:
    """The trust key of the hook of an event (UserPromptSubmit by default) at (group, handler) in ``hooks_file``."""
    return f"{os.path.realpath(hooks_file)}:{event_label}:{where[0]}:{where[1]}"


def hook_hash(entry: dict[str, Any], event_label: str = EVENT_LABEL) -> str:
    """The hash Codex trusts a command handler of an event (UserPromptSubmit by default) by.

    The same formula holds for every event codex-autopilot installs (checked against ``hooks/list``
    of codex 0.171 for each): a handler without a matcher hashes without one.
    """
    normalized: dict[str, Any] = {
        "type": "command",
        "command": entry["command"],
        "timeout": max(1, int(entry.get("timeout") or 600)),
        "async": bool(entry.get("async", False)),
    }
    if entry.get("statusMessage") is not None:
        normalized["statusMessage"] = entry["statusMessage"]
    identity = {"event_name": event_label, "hooks": [normalized]}
    return "sha256:" + sha256_hex(canonical(identity))


def _parse(path: Path, text: str) -> dict[str, Any]:
    try:
        return dict(toml_reader("recording hook trust").loads(text))
    except ValueError as exc:
        raise BridgeError(f"{path} is not valid TOML ({exc}); fix it, then run again (nothing was changed)") from None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as exc:
        raise BridgeError(f"cannot read {path} ({exc}); fix it, then run again (nothing was changed)") from None


def _current(data: dict[str, Any], trust_key: str) -> str | None:
    node: Any = data
    for part in ("hooks", "state", trust_key, "trusted_hash"):
        node = node.get(part) if isinstance(node, dict) else None
    return node if isinstance(node, str) else None


def trusted_hash(config: Path, trust_key: str) -> str | None:
    """The trusted_hash ``config.toml`` records for ``trust_key``, if any."""
    text = _read(config)
    return _current(_parse(config, text), trust_key) if "trusted_hash" in text else None


def _table(lines: list[str], trust_key: str) -> tuple[int, int] | None:
    """The line range [header, next header) of ``[hooks.state."<trust_key>"]``."""
    for i, line in enumerate(lines):
        m = HEADER.match(line.rstrip("\r\n"))
        if not m:
            continue
        quoted = m.group(1)
        try:
            name = json.loads(quoted) if quoted.startswith('"') else quoted[1:-1]
        except ValueError:
            continue
        if name == trust_key:
            end = next((j for j in range(i + 1, len(lines)) if ANY_HEADER.match(lines[j])), len(lines))
            return i, end
    return None


def _with_hash(data: dict[str, Any], trust_key: str, value: str | None) -> dict[str, Any]:
    new = copy.deepcopy(data)
    entry = new.setdefault("hooks", {}).setdefault("state", {}).setdefault(trust_key, {})
    if value is None:
        entry.pop("trusted_hash", None)
    else:
        entry["trusted_hash"] = value
    return _pruned(new, trust_key)


def _pruned(data: dict[str, Any], trust_key: str) -> dict[str, Any]:
    """``data`` without empty tables on the path hooks.state.<key> (a header implies them)."""
    hooks = data.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    if isinstance(state, dict) and state.get(trust_key) == {}:
        del state[trust_key]
    if isinstance(hooks, dict) and hooks.get("state") == {}:
        del hooks["state"]
    if data.get("hooks") == {}:
        del data["hooks"]
    return data


def _save(config: Path, old_text: str, new_text: str, expected: dict[str, Any], trust_key: str) -> Path | None:
    """Write ``new_text`` after checking it parses to ``expected``; back the old file up; the backup."""
    try:
        got = _pruned(dict(toml_reader("recording hook trust").loads(new_text)), trust_key)
    except ValueError:
        got = None
    if got != expected:
        raise BridgeError(
            f"cannot change the trust of codex-autopilot's hook in {config} without disturbing the "
            "rest of the file (it is written in a form this installer does not edit); trust the hook "
            "with /hooks in Codex instead (nothing was changed)"
        )
    saved = backup(config) if old_text else None
    replace_text(config, new_text)
    return saved


def record(config: Path, trust_key: str, value: str) -> bool:
    """Make ``config.toml`` trust ``trust_key`` at hash ``value``; whether the file changed."""
    text = _read(config)
    data = _parse(config, text)
    if _current(data, trust_key) == value:
        return False
    line = f'trusted_hash = "{value}"\n'
    lines = text.splitlines(keepends=True)
    span = _table(lines, trust_key)
    if span is None:
        prefix = text if not text or text.endswith("\n") else text + "\n"
        header = f"[hooks.state.{json.dumps(trust_key, ensure_ascii=False)}]\n"
        new_text = prefix + ("\n" if prefix.strip() else "") + header + line
    else:
        start, end = span
        at = next((i for i in range(start + 1, end) if TRUSTED.match(lines[i])), None)
        if at is None:
            lines.insert(start + 1, line)
        else:
            lines[at] = line
        new_text = "".join(lines)
    _save(config, text, new_text, _pruned(_with_hash(data, trust_key, value), trust_key), trust_key)
    return True


def forget(config: Path, trust_key: str, value: str) -> str:
    """Take out the trust ``record`` wrote: ``removed``, ``absent``, or ``kept`` (changed since, or not ours)."""
    text = _read(config)
    if "trusted_hash" not in text:
        return "absent"
    data = _parse(config, text)
    current = _current(data, trust_key)
    if current is None:
        return "absent"
    lines = text.splitlines(keepends=True)
    span = _table(lines, trust_key)
    if current != value or span is None:
        return "kept"
    start, end = span
    ours = next((i for i in range(start + 1, end) if TRUSTED.match(lines[i])), None)
    if ours is None:
        return "kept"
    drop = {ours}
    if all(not lines[i].strip() or lines[i].lstrip().startswith("#") for i in range(start + 1, end) if i != ours):
        # Only our line was in the table: the header goes too, with the blank line record() put before it.
        drop.add(start)
        if start > 0 and not lines[start - 1].strip():
            drop.add(start - 1)
    lines = [line for i, line in enumerate(lines) if i not in drop]
    _save(config, text, "".join(lines), _with_hash(data, trust_key, None), trust_key)
    return "removed"


def ask_codex(binary: str, cwd: str) -> list[dict[str, Any]] | None:
    """The hooks ``codex app-server`` lists for ``cwd`` (with key, currentHash, trustStatus); None if it cannot say."""
    try:
        with AppServerClient(
            binary,
            methods={"hooks/list"},
            timeout=ASK_TIMEOUT,
            cwd=cwd,
            client="codex_autopilot_installer",
            purpose="codex-autopilot installer",
        ) as server:
            result = server.call("hooks/list", {"cwds": [cwd]})
    except BridgeError:
        return None
    return [hook for entry in result.get("data") or [] for hook in entry.get("hooks") or [] if isinstance(hook, dict)]
