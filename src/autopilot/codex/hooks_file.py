"""Codex's hooks.json: merge codex-autopilot's hooks in, and take exactly them out again.

Two kinds: the ``$handoff`` trigger (UserPromptSubmit) and the active memory's recorder (every event
in :data:`MEMORY_EVENTS`). Each function works on one event (``event``, UserPromptSubmit by default).

The format is the one codex 0.171 reads from ``$CODEX_HOME/hooks.json`` (checked against the binary):
``{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": ..., "timeout": ...}]}]}}``.
Codex refuses a file with any top-level key besides ``description`` and ``hooks``, ignores
``matcher`` for UserPromptSubmit, and keys trust by the hook's position (group and handler index).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from autopilot import clock
from autopilot.errors import BridgeError
from autopilot.fsutil import replace_text

EVENT = "UserPromptSubmit"
EVENT_LABEL = "user_prompt_submit"  # the event's name in trust keys and hashes
TIMEOUT = 10  # seconds; the hook answers in tens of milliseconds
# The events the active memory records in Codex 0.171 (it has no model-switch or tool-failure hook).
MEMORY_EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "PreCompact", "PostCompact", "Stop", "SessionEnd")
SESSION_END_TIMEOUT = 3  # Codex clamps SessionEnd hooks to 3 s (and says so on every run if asked for more)
TOP_LEVEL_KEYS = ("description", "hooks")

Doc = dict[str, Any]


def label(event: str) -> str:
    """An event's name in Codex's trust keys and hashes (``UserPromptSubmit`` -> ``user_prompt_submit``)."""
    return "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(event))


def timeout_for(event: str) -> int:
    """The timeout codex-autopilot gives its handler of ``event``."""
    return SESSION_END_TIMEOUT if event == "SessionEnd" else TIMEOUT


def handler(command: str, timeout: int = TIMEOUT) -> dict[str, Any]:
    """The handler entry codex-autopilot adds."""
    return {"type": "command", "command": command, "timeout": timeout}


def load(path: Path) -> Doc | None:
    """The parsed hooks.json, None when there is none; a file Codex could not use is refused, never touched."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise BridgeError(
            f"cannot read {path} ({exc}); fix it or move it away, then run again (nothing was changed)"
        ) from None
    try:
        doc = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise BridgeError(
            f"{path} is not valid JSON ({exc}); fix it or move it away, then run again (nothing was changed)"
        ) from None
    _check(path, doc)
    return doc


def _check(path: Path, doc: Any) -> None:
    where = f"{path} (nothing was changed)"
    if not isinstance(doc, dict):
        raise BridgeError(f"{path} must hold a JSON object, not {type(doc).__name__}; fix it, then run again {where}")
    stray = [key for key in doc if key not in TOP_LEVEL_KEYS]
    if stray:
        raise BridgeError(
            f"{path} has top-level keys Codex does not read ({', '.join(map(str, stray))}), so Codex "
            'ignores the whole file; move events under "hooks" (e.g. {"hooks": {"Stop": [...]}}), '
            f"then run again {where}"
        )
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict):
        raise BridgeError(f'"hooks" in {path} must be an object of events; fix it, then run again {where}')
    for event in dict.fromkeys((EVENT, *MEMORY_EVENTS)):
        groups = hooks.get(event, [])
        if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
            raise BridgeError(f'"hooks"."{event}" in {path} must be a list of objects; fix it, then run again {where}')
        for group in groups:
            if not isinstance(group.get("hooks", []), list):
                raise BridgeError(
                    f'a {event} group in {path} has "hooks" that is not a list; fix it, then run again {where}'
                )


def position(doc: Doc | None, commands: set[str], event: str = EVENT) -> tuple[int, int] | None:
    """The (group, handler) index of the first handler of ``event`` running one of ``commands``."""
    for g, group in enumerate(((doc or {}).get("hooks") or {}).get(event) or []):
        for h, entry in enumerate(group.get("hooks") or []):
            if isinstance(entry, dict) and entry.get("command") in commands:
                return g, h
    return None


def merge(
    doc: Doc | None, command: str, previous: set[str] | None = None, *, event: str = EVENT
) -> tuple[Doc, tuple[int, int]]:
    """``doc`` with codex-autopilot's hook of ``event`` in it (updated in place if present), and its position.

    ``previous`` are commands earlier installs wrote; the first of them found becomes the current
    one (so the position, and with it Codex's trust key, stays put) and any duplicates go.
    """
    ours = {command, *(previous or set())}
    new = copy.deepcopy(doc) if doc is not None else {"hooks": {}}
    groups = new.setdefault("hooks", {}).setdefault(event, [])
    wanted = handler(command, timeout_for(event))
    found = position(new, ours, event)
    if found is None:
        groups.append({"hooks": [wanted]})
        return new, (len(groups) - 1, 0)
    g, h = found
    entry = groups[g]["hooks"][h]
    if {k: entry.get(k) for k in ("type", "command", "timeout")} != wanted:
        entry.update(wanted)
    # Anything of ours after the first is a leftover: drop it (the first keeps its position).
    _remove(new, ours, keep=found, event=event)
    return new, found


def unmerge(doc: Doc, commands: set[str], events: tuple[str, ...] = (EVENT,)) -> Doc:
    """``doc`` without the handlers running ``commands``; groups and the events left empty by that go too."""
    new = copy.deepcopy(doc)
    for event in events:
        _remove(new, commands, keep=None, event=event)
    return new


def _remove(doc: Doc, commands: set[str], keep: tuple[int, int] | None, event: str = EVENT) -> None:
    hooks = doc.get("hooks") or {}
    groups = hooks.get(event)
    if not isinstance(groups, list):
        return
    kept_groups, changed = [], False
    for g, group in enumerate(groups):
        entries = group.get("hooks") or []
        kept = [
            e
            for h, e in enumerate(entries)
            if not (isinstance(e, dict) and e.get("command") in commands and (g, h) != keep)
        ]
        if len(kept) != len(entries):
            changed = True
            if not kept:
                continue  # the group held only our handler: it was ours
            group["hooks"] = kept
        kept_groups.append(group)
    if not changed:
        return
    if kept_groups:
        hooks[event] = kept_groups
    else:
        del hooks[event]  # the event list was there only for our hook


def dump(doc: Doc) -> str:
    """hooks.json text: two-space indent, the user's key order kept."""
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


# Within one setup (:func:`one_backup_each`): each file's backup, made before its first change.
_BACKED_UP: ContextVar[dict[Path, Path] | None] = ContextVar("backed_up", default=None)


@contextmanager
def one_backup_each() -> Iterator[None]:
    """Within it, a file is backed up once, before its first change: one setup leaves one backup of each user file
    (config.toml changes once per trusted hook)."""
    if _BACKED_UP.get() is not None:  # an outer one already counts
        yield
        return
    token = _BACKED_UP.set({})
    try:
        yield
    finally:
        _BACKED_UP.reset(token)


def backup(path: Path) -> Path | None:
    """Copy ``path`` aside before it changes; the copy's path (None when there was no file).

    The copy sits beside ``path`` (in ``$CODEX_HOME``, not in a dotfiles folder a symlink points
    into) and holds the content: a symlink's target is copied, not the link. Within
    :func:`one_backup_each`, a file already backed up is not copied again (its first backup is returned).
    """
    done = _BACKED_UP.get()
    if done is not None and path.absolute() in done:
        return done[path.absolute()]
    if not path.exists():
        return None
    stamp = clock.local("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}.codex-autopilot-{stamp}.bak")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.codex-autopilot-{stamp}-{n}.bak")
    shutil.copy2(path, target)
    if done is not None:
        done[path.absolute()] = target
    return target


def write(path: Path, doc: Doc | None) -> Path | None:
    """Back the file up, then replace it atomically with ``doc`` (or remove it, for None); the backup.

    A symlinked file is never removed (that would drop the link and leave the hook in its target):
    for None its target gets an empty ``{"hooks": {}}``.
    """
    saved = backup(path)
    if doc is None and path.is_symlink():
        doc = {"hooks": {}}
    if doc is None:
        os.unlink(path)
    else:
        replace_text(path, dump(doc))
    return saved
