"""Administrator rules: a root-owned file the agents' user cannot write, delivered above the person's own.

Modelled on Claude Code's managed settings (``/etc/claude-code/managed-settings.json`` on Linux,
``/Library/Application Support/ClaudeCode/`` on macOS): the administrator writes
``/etc/codex-autopilot/managed-rules.json`` (macOS: ``/Library/Application Support/CodexAutopilot/``)::

    {"rules": [{"text": "Never push to a release branch.", "kind": "rule"}]}

The rules are used only when nobody but root can change them, checked every time they are read:

- the file is a regular file (not a link), owned by root, with no group or other write bit, and the
  current user cannot write it (``access(2)``, which honours ACLs);
- its directory is owned by root, with no group or other write bit, and not writable by the
  current user (else the file could be replaced);
- every directory above is owned by root and not writable by group or others unless sticky (in a
  sticky directory such as ``/tmp`` only root may rename or remove root's entries);
- the process does not run as root (root can write anything: the tier means nothing to it).

Otherwise nothing from the location is used, and the reason is returned for the person to see.
The location is a constant of the installed package: no variable or setting of the agent's user moves it (one
variable used to, and pointing it at an empty folder dropped the administrator's rules). While rules that were in
force are missing, every session start says so (``knowledge/durable/deliver.py``).
The file is opened without following links and its identity compared with what was checked.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from autopilot import clock
from autopilot.digest import sha256_hex
from autopilot.handoff.memory import observe

if TYPE_CHECKING:
    from autopilot.knowledge.durable.shapes import Managed

FILE = observe.MANAGED_FILE
MAX_BYTES = 64 * 1024
MAX_RULES = 100
MAX_TEXT = 2000
KINDS = ("rule", "decision")


def location() -> Path:
    """The administrator's directory: the platform's (``/etc/codex-autopilot``), never moved at run time."""
    return Path(observe.managed_dir())


def _writable_by_others(st: os.stat_result) -> bool:
    return bool(st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def unsafe(path: Path) -> str | None:
    """Why ``path`` (the rules file) could be changed by someone other than root, or None when only root can."""
    if os.geteuid() == 0:
        return "the agent runs as root, who can write any file: managed rules need the agents to run as another user"
    try:
        st = os.lstat(path)
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror}"
    if not stat.S_ISREG(st.st_mode):
        return f"{path} is not a regular file (a link or something else)"
    if st.st_uid != 0:
        return f"{path} is owned by uid {st.st_uid}, not root"
    if _writable_by_others(st) or os.access(path, os.W_OK):
        return f"{path} is writable by others than root (by you, uid {os.geteuid()}, or your group)"
    folder = path.parent
    here = True
    while True:
        try:
            st = os.lstat(folder)
        except OSError as exc:
            return f"cannot check {folder}: {exc.strerror}"
        if stat.S_ISLNK(st.st_mode):
            return f"{folder} is a symbolic link"
        if st.st_uid != 0:
            return f"{folder} is owned by uid {st.st_uid}, not root: its owner could replace the rules"
        sticky = bool(st.st_mode & stat.S_ISVTX) and not here
        if (_writable_by_others(st) or os.access(folder, os.W_OK)) and not sticky:
            return f"{folder} is writable by others than root: the rules in it could be replaced"
        if folder.parent == folder:
            return None
        folder, here = folder.parent, False


def load() -> Managed:
    """The managed rules in force: ``{"path", "rules", "refused"}`` (``refused``: why none are used, or None).

    Each rule: ``id`` (``M-`` and 12 hex digits of its kind and text), ``kind``, ``text``, ``tier``
    ``managed``, ``modified`` (the file's modification time).
    """
    path = location() / FILE
    out: Managed = {"path": str(path), "rules": [], "refused": None}
    if not os.path.lexists(path):
        return out
    why = unsafe(path)
    if why:
        out["refused"] = why
        return out
    checked = os.lstat(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        out["refused"] = f"cannot open {path}: {exc.strerror}"
        return out
    with os.fdopen(fd, "rb") as fh:
        now = os.fstat(fh.fileno())
        if (now.st_dev, now.st_ino) != (checked.st_dev, checked.st_ino):
            out["refused"] = f"{path} was replaced while it was checked"
            return out
        data = fh.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        out["refused"] = f"{path} is larger than {MAX_BYTES // 1024} KiB"
        return out
    try:
        doc = json.loads(data)
    except ValueError as exc:
        out["refused"] = f"{path} is not JSON ({exc})"
        return out
    found = doc.get("rules") if isinstance(doc, dict) else None
    if not isinstance(found, list):
        out["refused"] = f'{path} has no "rules" list'
        return out
    modified = clock.iso(checked.st_mtime)
    for item in found[:MAX_RULES]:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str) or not item["text"].strip():
            continue
        kind = str(item.get("kind")) if item.get("kind") in KINDS else "rule"
        text = " ".join(item["text"].split())[:MAX_TEXT]
        rid = "M-" + sha256_hex(f"{kind}\0{text}".encode())[:12]
        out["rules"].append({"id": rid, "kind": kind, "text": text, "tier": "managed", "modified": modified})
    return out
