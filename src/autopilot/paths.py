"""Every path the bridge touches hangs off one of three roots."""

from __future__ import annotations

import os
from pathlib import Path

from autopilot import config


def autopilot_home() -> Path:
    """The per-user home: ``$AUTOPILOT_HOME``, default ``~/.codex-autopilot``."""
    return Path(config.autopilot_home())


def codex_home() -> Path:
    """Codex's home: ``$CODEX_HOME``, default ``~/.codex``."""
    return Path(config.codex_home())


def claude_config_dir() -> Path:
    """Claude Code's config and transcript root: ``$CLAUDE_CONFIG_DIR``, default ``~/.claude``."""
    return Path(config.claude_config_dir())


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
