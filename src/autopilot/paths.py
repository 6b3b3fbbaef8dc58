"""Every path the bridge touches hangs off one of three roots.

Each is a ``Path``; the bridge's home and its handoff folder are also strings (:func:`home_folder`,
:func:`handoff_folder`) for `handoff search`, which answers without ``pathlib`` (with ``urllib.parse``,
``ipaddress``, ``fnmatch``, ``contextlib`` and ``warnings``: ~4-5 ms of a process, bench/bench_search.py). A
string is the ``Path``'s own text: ``str(handoff_dir()) == handoff_folder()``.
"""

from __future__ import annotations

import os

from autopilot import config

TYPE_CHECKING = False  # typing costs ~2 ms to import; `handoff search` loads this module
if TYPE_CHECKING:
    from pathlib import Path


def pure(path: str) -> str:
    """``str(PurePosixPath(path))`` without ``pathlib``: repeated ``/`` and ``.`` parts dropped, no trailing ``/``
    (two leading slashes kept, as POSIX allows them a meaning of their own), ``..`` kept."""
    lead = "/" if path.startswith("/") else ""
    if path.startswith("//") and not path.startswith("///"):
        lead = "//"
    return lead + "/".join(part for part in path.split("/") if part and part != ".") or "."


def joined(folder: str, name: str) -> str:
    """``str(Path(folder) / name)`` for a ``folder`` :func:`pure` made and a plain ``name``, without ``pathlib``."""
    if folder == ".":
        return name
    return folder + name if folder.endswith("/") else f"{folder}/{name}"


def home_folder() -> str:
    """:func:`autopilot_home` as a string."""
    return pure(config.autopilot_home())


def autopilot_home() -> Path:
    """The per-user home: ``$AUTOPILOT_HOME``, default ``~/.codex-autopilot``."""
    from pathlib import Path

    return Path(config.autopilot_home())


def codex_home() -> Path:
    """Codex's home: ``$CODEX_HOME``, default ``~/.codex``."""
    from pathlib import Path

    return Path(config.codex_home())


def claude_config_dir() -> Path:
    """Claude Code's config and transcript root: ``$CLAUDE_CONFIG_DIR``, default ``~/.claude``."""
    from pathlib import Path

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
    from pathlib import Path

    return Path(handoff_folder())


def handoff_folder() -> str:
    """:func:`handoff_dir` as a string."""
    return joined(home_folder(), "handoff")
