"""Every path the bridge touches hangs off one of three roots."""

from __future__ import annotations

import os
from pathlib import Path


def autopilot_home() -> Path:
    """The per-user home: ``$AUTOPILOT_HOME``, default ``~/.codex-autopilot``."""
    env = os.environ.get("AUTOPILOT_HOME")
    return Path(env) if env else Path.home() / ".codex-autopilot"


def codex_home() -> Path:
    """Codex's home: ``$CODEX_HOME``, default ``~/.codex``."""
    env = os.environ.get("CODEX_HOME")
    return Path(env) if env else Path.home() / ".codex"


def claude_config_dir() -> Path:
    """Claude Code's config and transcript root: ``$CLAUDE_CONFIG_DIR``, default ``~/.claude``."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(env) if env else Path.home() / ".claude"


def slugify(text: str, limit: int = 40) -> str:
    """A lowercase, dash-separated slug of ``text`` no longer than ``limit``."""
    import re

    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    if len(slug) > limit:
        cut = slug[: limit + 1].rfind("-")
        slug = slug[: cut if cut > limit // 2 else limit]
    return slug.strip("-") or "run"


def run_dir(workspace: str | os.PathLike[str]) -> Path:
    """The run directory of a workspace: ``runs/<slug>-<hash12>`` under the home."""
    from autopilot.digest import sha256_hex

    real = os.path.realpath(os.fspath(workspace))
    digest = sha256_hex(real.encode("utf-8"))[:12]
    return autopilot_home() / "runs" / f"{slugify(os.path.basename(real) or 'root', 32)}-{digest}"


def handoff_dir() -> Path:
    """Where handoff pointers and packets live."""
    return autopilot_home() / "handoff"
