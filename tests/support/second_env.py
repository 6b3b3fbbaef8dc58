"""A second Python environment with this same codex-autopilot: the plugin's venv beside a shell install.

It is a real venv's shape (``pyvenv.cfg``, ``bin/python``, ``bin/codex-bridge``) whose site-packages are this
environment's, so the same version of the same project runs from another path, as the plugin's venv in
``$CLAUDE_PLUGIN_DATA`` and the README's ``.venv`` do on one machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def second_env(folder: Path) -> Path:
    """A venv at ``folder`` sharing this one's packages; its ``bin/python``."""
    here = Path(sys.prefix)
    (folder / "bin").mkdir(parents=True)
    (folder / "pyvenv.cfg").write_text((here / "pyvenv.cfg").read_text())
    os.symlink(here / "lib", folder / "lib")
    python = folder / "bin" / "python"
    os.symlink(os.path.realpath(sys.executable), python)
    bridge = folder / "bin" / "codex-bridge"
    bridge.write_text(f"#!{python}\nfrom autopilot.cli import entry\nentry()\n")
    bridge.chmod(0o755)
    return python


def run_in(python: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``codex-bridge ARGS`` run by ``python``'s environment, with this test's environment."""
    return subprocess.run(
        [str(python), "-I", "-c", "from autopilot.cli import entry; entry()", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
