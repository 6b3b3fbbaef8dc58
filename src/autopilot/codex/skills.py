"""Codex personal skills codex-autopilot owns under ``$CODEX_HOME/skills/<name>/``.

A skill directory is codex-autopilot's only when it holds the marker file, which lists every file
the installer wrote with its SHA-256. Only those files, unchanged since, are ever replaced or
removed; a user's own skill of the same name, or a file the user edited, is refused with a message.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from autopilot import __version__, paths
from autopilot.digest import sha256_hex
from autopilot.errors import BridgeError
from autopilot.fsutil import atomic_write

if TYPE_CHECKING:
    from autopilot.codex.shapes import SkillMarker

MARKER = ".codex-autopilot.json"
OWNER = "codex-autopilot"


@dataclass(frozen=True)
class File:
    """One file of a skill: its text and whether it is a program."""

    text: str
    executable: bool = False


@dataclass
class Outcome:
    """What one install or uninstall did to a skill directory."""

    path: str
    changed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # ours once, edited since: left alone


def skill_dir(name: str) -> Path:
    """Where the personal skill ``name`` lives."""
    return paths.codex_home().absolute() / "skills" / name


def _digest(data: bytes) -> str:

    return "sha256:" + sha256_hex(data)


def _file_digest(path: Path) -> str | None:
    try:
        return _digest(path.read_bytes())
    except FileNotFoundError:
        return None


def read_marker(name: str) -> SkillMarker | None:
    """The marker of skill ``name``, None when the directory is not codex-autopilot's (or absent)."""
    folder = skill_dir(name)
    if folder.is_symlink() or not folder.is_dir():
        return None
    try:
        marker: SkillMarker = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not _is_marker(marker):
        return None
    return marker  # ours: written by install, its owner and file digests in place


def _is_marker(value: object) -> bool:
    """Whether a parsed marker file is codex-autopilot's: its owner, and its files' digests."""
    return isinstance(value, dict) and value.get("owner") == OWNER and isinstance(value.get("files"), dict)


def write_marker(name: str, marker: SkillMarker) -> bool:
    """Write the marker if it differs from what is there; whether it changed."""
    target = skill_dir(name) / MARKER
    text = json.dumps(marker, indent=2, sort_keys=True) + "\n"
    try:
        if target.read_text(encoding="utf-8") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    atomic_write(target, text)
    return True


def check(name: str, files: dict[str, File]) -> None:
    """Refuse, before anything changes, when installing ``files`` would touch what is not codex-autopilot's."""
    folder = skill_dir(name)
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise BridgeError(
            f"{folder} exists and is not a codex-autopilot skill directory; move it away, then run "
            "again (nothing was changed)"
        )
    if not folder.exists():
        return
    marker = read_marker(name)
    if marker is None:
        raise BridgeError(
            f"a skill named {name!r} already exists at {folder} and is not codex-autopilot's; rename "
            "or move it, then run again (nothing was changed)"
        )
    for rel, new in files.items():
        current = _file_digest(folder / rel)
        if current in (None, _digest(new.text.encode("utf-8")), marker["files"].get(rel)):
            continue
        raise BridgeError(
            f"{folder / rel} was changed since codex-autopilot installed it (or is not its own); move "
            "it away, then run again (nothing was changed)"
        )


def install(name: str, files: dict[str, File], extra: SkillMarker | None = None) -> Outcome:
    """Write the skill's files (only those that differ) and its marker; call ``check`` first."""
    folder = skill_dir(name)
    old: SkillMarker = read_marker(name) or {"files": {}}
    outcome = Outcome(str(folder))
    for rel, new in files.items():
        target = folder / rel
        data = new.text.encode("utf-8")
        if _file_digest(target) != _digest(data):
            atomic_write(target, new.text)
            outcome.changed.append(rel)
        mode = 0o755 if new.executable else 0o644
        if target.stat().st_mode & 0o777 != mode:
            os.chmod(target, mode)
            if rel not in outcome.changed:
                outcome.changed.append(rel)
    for rel, digest in old["files"].items():  # files an older version wrote and this one does not
        if rel not in files and _file_digest(folder / rel) == digest:
            (folder / rel).unlink()
            outcome.changed.append(rel)
    marker: SkillMarker = {
        **(extra or {}),
        "owner": OWNER,
        "skill": name,
        "version": __version__,  # scripts/bootstrap.py compares it with the plugin's after an update
        "files": {rel: _digest(f.text.encode("utf-8")) for rel, f in sorted(files.items())},
    }
    if write_marker(name, marker):
        outcome.changed.append(MARKER)
    _prune(folder)
    return outcome


def uninstall(name: str) -> Outcome:
    """Remove the files codex-autopilot wrote and nobody changed since, then the directories left empty."""
    folder = skill_dir(name)
    outcome = Outcome(str(folder))
    marker = read_marker(name)
    if marker is None:
        if folder.exists() or folder.is_symlink():
            outcome.kept.append(".")  # a user's own skill of that name
        return outcome
    for rel, digest in marker["files"].items():
        target = folder / rel
        current = _file_digest(target)
        if current is None:
            continue
        if current == digest:
            target.unlink()
            outcome.changed.append(rel)
        else:
            outcome.kept.append(rel)
    (folder / MARKER).unlink()
    outcome.changed.append(MARKER)
    _prune(folder)
    if folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
    return outcome


def _prune(folder: Path) -> None:
    """Remove empty subdirectories of ``folder`` (bottom up), never the folder itself."""
    if not folder.is_dir():
        return
    for root, _dirs, _files in os.walk(folder, topdown=False):
        if Path(root) != folder and not os.listdir(root):
            with contextlib.suppress(OSError):
                os.rmdir(root)
