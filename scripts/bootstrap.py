"""Build codex-autopilot's venv in $CLAUDE_PLUGIN_DATA from the plugin's files, then run the bridge with it.

Claude Code never installs a plugin's Python dependencies, so scripts/bridge runs this (with any
Python >= 3.10 on PATH) when it finds no interpreter with codex-autopilot installed. On SessionStart
it builds ``$CLAUDE_PLUGIN_DATA/venv`` from the plugin's own pyproject.toml and writes the stamp
file that scripts/bridge checks; every other call, and a build that fails (offline, say), answers
with the exact commands to run instead. Hooks always exit 0. Standard library only.

The stamp is what lets scripts/bridge tell, with shell builtins alone (~1 ms), that the venv still
holds this plugin: its first line is the plugin version, every other line a file or folder the venv
was built from (pyproject.toml and src/autopilot), and its mtime is the venv's creation time. The
venv is current while the version matches and none of those paths is missing or newer than the
stamp, so an update that keeps the version number (a reinstall, a local marketplace, --plugin-dir)
still gets a new venv; a new file changes its folder's mtime.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time

STAMP = "codex-autopilot.stamp"
MIN_PYTHON = (3, 10)


def plugin_version(root: str) -> str:
    """The version in .claude-plugin/plugin.json (the stamp records it)."""
    with open(os.path.join(root, ".claude-plugin", "plugin.json"), encoding="utf-8") as fh:
        return str(json.load(fh).get("version") or "0")


def sources(root: str) -> list[str]:
    """The files and folders the venv is built from, relative to ``root``, in a stable order."""
    found = ["pyproject.toml"]
    for top, dirs, files in os.walk(os.path.join(root, "src", "autopilot")):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        rel = os.path.relpath(top, root)
        found += [rel, *(os.path.join(rel, f) for f in sorted(files) if not f.endswith((".pyc", ".pyo")))]
    return found


def write_stamp(root: str, venv: str, version: str) -> None:
    """Record the version and the source paths, dated when the venv was created (before pip read anything)."""
    path = os.path.join(venv, STAMP)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join([version, *sources(root)]) + "\n")
    created = os.stat(os.path.join(venv, "pyvenv.cfg")).st_mtime_ns
    os.utime(path, ns=(created, created))


def fresh(root: str, venv: str, version: str) -> bool:
    """Whether the venv's stamp names ``version`` and no source it lists is missing or newer (scripts/bridge's test)."""
    path = os.path.join(venv, STAMP)
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
        built = os.stat(path).st_mtime_ns
    except OSError:
        return False
    if len(lines) < 2 or lines[0] != version:
        return False
    for rel in lines[1:]:
        try:
            if os.stat(os.path.join(root, rel)).st_mtime_ns > built:
                return False
        except OSError:
            return False
    return True


def commands(root: str, venv: str) -> str:
    """The shell commands that build the venv by hand."""
    python = shlex.quote(sys.executable)
    q_venv, q_root = shlex.quote(venv), shlex.quote(root)
    return (
        f"{python} -m venv {q_venv} && {shlex.quote(os.path.join(venv, 'bin', 'python'))} -m pip install "
        f"{q_root} && {python} {shlex.quote(os.path.abspath(__file__))} --stamp {q_venv}"
    )


def build(root: str, venv: str, version: str, log: str) -> str | None:
    """Create the venv and install the plugin into it; None on success, else the reason it failed."""
    os.makedirs(os.path.dirname(venv), exist_ok=True)
    with open(venv + ".lock", "w") as lock:
        try:  # two sessions starting at once build it once
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)
        except ImportError:
            pass
        if fresh(root, venv, version):
            return None
        shutil.rmtree(venv, ignore_errors=True)
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} building {venv} for codex-autopilot {version}\n")
            out.flush()
            steps = [
                [sys.executable, "-m", "venv", venv],
                [
                    os.path.join(venv, "bin", "python"),
                    "-m",
                    "pip",
                    "install",
                    "--disable-pip-version-check",
                    "--no-input",
                    "--retries",
                    "1",
                    "--timeout",
                    "20",
                    root,
                ],
            ]
            for argv in steps:
                proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
                if proc.returncode != 0:
                    shutil.rmtree(venv, ignore_errors=True)
                    return f"`{' '.join(argv[:4])} …` exited with status {proc.returncode} (details in {log})"
        write_stamp(root, venv, version)
    return None


CODEX_SIDE_ENV = "AUTOPILOT_CODEX_SIDE_FROM"  # the SessionStart hook turns it into a notice (hooks/session.py)


def codex_side_version(env: dict[str, str] | None = None) -> str | None:
    """The codex-autopilot version that set up the Codex side ('' when it predates the record), or None if none did."""
    env = dict(os.environ) if env is None else env
    home = env.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")
    try:
        with open(os.path.join(home, "skills", "handoff", ".codex-autopilot.json"), encoding="utf-8") as fh:
            marker = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(marker, dict) or marker.get("owner") != "codex-autopilot":
        return None
    return str(marker.get("version") or "")


def main(argv: list[str]) -> int:
    """Build the venv on SessionStart and hand the call over to it; otherwise explain what to run."""
    event = argv[1] if len(argv) > 1 and argv[0] == "hook" else None
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the plugin this script ships in
    version = plugin_version(root)
    if len(argv) == 2 and argv[0] == "--stamp":  # the last of the commands that build the venv by hand
        write_stamp(root, argv[1], version)
        return 0
    data = os.environ.get("CLAUDE_PLUGIN_DATA")
    problem: str | None = None
    venv = os.path.join(data, "venv") if data else ""
    if sys.version_info < MIN_PYTHON:
        problem = f"{sys.executable} is Python {sys.version.split()[0]}; codex-autopilot needs 3.10 or newer"
    elif not data:
        problem = "CLAUDE_PLUGIN_DATA is not set, so there is nowhere to build the plugin's venv"
    elif event != "SessionStart":
        problem = (
            "its Python environment is out of date: the plugin's files changed since it was built "
            "(SessionStart rebuilds it)"
            if os.path.exists(os.path.join(venv, STAMP))
            else "its Python environment is not built yet (SessionStart builds it)"
        )
    else:
        problem = build(root, venv, version, os.path.join(data, "bootstrap.log"))
    if problem is None:
        python = os.path.join(venv, "bin", "python")
        installed = codex_side_version()  # only a SessionStart gets here, right after it built the venv
        if installed is not None and installed != version:  # the plugin was updated since setup ran
            os.environ[CODEX_SIDE_ENV] = installed or "an earlier version"
        os.execv(python, [python, "-I", "-m", "autopilot", *argv])  # stdin (the hook's input) is still unread
    todo = (
        f"Run: {commands(root, venv)}"
        if data and sys.version_info >= MIN_PYTHON
        else "Install Python 3.10+ and run: pip install codex-autopilot"
    )
    todo += ". Or set AUTOPILOT_PYTHON to a Python that has codex-autopilot installed."
    message = f"codex-autopilot is not active: {problem}. {todo}"
    if event:
        print(json.dumps({"systemMessage": message}))
        return 0
    print(message, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
