"""Two machines and their team's remote, for the share tests: real git, a bare repository, real SSH keys.

A :class:`Machine` is a home of its own (``$AUTOPILOT_HOME``, ``$CLAUDE_CONFIG_DIR``, ``$CODEX_HOME``, ``HOME``)
and a clone of the team's bare remote with its own git identity. :meth:`Machine.on` makes it the machine the
in-process CLI runs on; :meth:`Machine.env` is its environment for a subprocess. :func:`key` makes a real
ed25519 key with ``ssh-keygen``; :meth:`Machine.sign_with` makes the clone sign its commits with it (git's own
``gpg.format ssh``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.bridge import run_bridge
from tests.support.claude_rows import Transcript, text, thinking, tool_use
from tests.support.handoff_env import claude_session
from tests.support.repo import SRC

HOMES = ("AUTOPILOT_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "HOME")
REF = "refs/codex-autopilot/share"
PRIVATE = "PRIVATE-THOUGHT-7f3a"  # in every session's private reasoning: it must never leave the machine


def run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, check: bool = True) -> str:
    """Run a command; its stdout."""
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"{args} failed: {proc.stderr}")
    return proc.stdout


def git(repo: Path, *args: str, check: bool = True) -> str:
    """git in ``repo`` as whoever its config says."""
    return run("git", "-C", str(repo), *args, check=check)


def key(folder: Path, name: str) -> Path:
    """A new ed25519 key pair (no passphrase) made by ssh-keygen; the private key's path (``.pub`` beside it)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path))
    return path


def signer_line(principal: str, private: Path) -> str:
    """The allowed-signers line for a key."""
    return f"{principal} {Path(str(private) + '.pub').read_text().strip()}\n"


class Machine:
    """One machine of the team: its homes and its clone of the remote."""

    def __init__(self, root: Path, name: str, remote: Path | None, person: str = "") -> None:
        """The machine ``name`` under ``root``, cloning ``remote`` as ``person``; with no remote, the machine that
        is there already (a copy of one, as :func:`copied_team` makes)."""
        self.name = name
        self.root = root / name
        self.homes = {var: self.root / var.lower() for var in HOMES}
        for path in self.homes.values():
            path.mkdir(parents=True, exist_ok=True)
        self.repo = self.root / "project"
        if remote is not None:
            run("git", "clone", "-q", str(remote), str(self.repo))
            git(self.repo, "config", "user.name", person)
            git(self.repo, "config", "user.email", f"{name}@example.com")

    def env(self, **extra: str) -> dict[str, str]:
        """This machine's environment for a subprocess (this checkout importable)."""
        drop = ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CODEX_SANDBOX", "CODEX_THREAD_ID")
        env = {k: v for k, v in os.environ.items() if k not in drop}
        return {**env, **{k: str(v) for k, v in self.homes.items()}, "PYTHONPATH": str(SRC), **extra}

    @contextmanager
    def on(self) -> Iterator[Machine]:
        """Run in-process code as this machine (its homes set; the previous ones back afterwards)."""
        before = {var: os.environ.get(var) for var in HOMES}
        os.environ.update({k: str(v) for k, v in self.homes.items()})
        try:
            yield self
        finally:
            for var, value in before.items():
                if value is None:
                    os.environ.pop(var, None)
                else:
                    os.environ[var] = value

    def bridge(self, *args: str, cwd: Path | None = None) -> tuple[int, Any, str]:
        """The CLI in-process on this machine, in its clone: (exit code, parsed stdout or None, stderr)."""
        with self.on():
            code, out, err = run_bridge(*args, cwd=cwd or self.repo)
        return code, (json.loads(out) if out.strip() else None), err

    def ok(self, *args: str) -> Any:
        """The CLI's JSON answer, which must exit 0."""
        code, answer, err = self.bridge(*args)
        assert code == 0, err
        return answer

    def process(self, *args: str) -> subprocess.Popen[str]:
        """codex-bridge as a process of this machine, in its clone."""
        return subprocess.Popen(
            [sys.executable, "-m", "autopilot", *args],
            cwd=self.repo,
            env=self.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def session(self, objective: str, session: str | None = None, cwd: Path | None = None) -> str:
        """A Claude session recorded in this machine's clone (or ``cwd``): an objective, a private thought, a passing
        test run, a next step; its id."""
        t = Transcript(session=session or str(uuid.uuid4()))
        t.user(objective)
        t.assistant(thinking(f"{PRIVATE} weighing the options"), text("I will run the tests first."))
        t.assistant(tool_use("Bash", {"command": "pytest -q tests/test_parser.py"}, "toolu_t1"))
        t.result("toolu_t1", "3 passed in 0.02s")
        t.assistant(text("All three pass. Next: add a regression test for the empty header."))
        with self.on():
            claude_session(t, cwd or self.repo)
        return t.session

    def packet(self, objective: str = "Make the parser accept an empty header.") -> str:
        """A session of this machine exported as a packet for Codex; its id."""
        session = self.session(objective)
        answer = self.ok("handoff", "export", "--from", "claude", "--session", session, "--to", "codex")
        return str(answer["packet"])

    def sign_with(self, private: Path) -> None:
        """Sign this clone's commits with an SSH key (git's own SSH signing)."""
        git(self.repo, "config", "gpg.format", "ssh")
        git(self.repo, "config", "user.signingkey", str(private))


def team(root: Path, signers: str = "") -> tuple[Path, Machine, Machine]:
    """A bare remote whose main branch holds ``signers`` as .codex-autopilot/allowed_signers (when given), and two
    machines, Ada's (a) and Bob's (b), each with a clone of it."""
    remote = root / "remote.git"
    run("git", "init", "-q", "--bare", "-b", "main", str(remote))
    git(remote, "config", "receive.autoGc", "false")  # a push's `gc --auto` (git hides our GIT_CONFIG_* from it)
    seed = root / "seed"
    run("git", "clone", "-q", str(remote), str(seed))
    git(seed, "config", "user.name", "Seed")
    git(seed, "config", "user.email", "seed@example.com")
    (seed / "README.md").write_text("# project\n")
    if signers:
        (seed / ".codex-autopilot").mkdir()
        (seed / ".codex-autopilot" / "allowed_signers").write_text(signers)
    git(seed, "add", ".")
    git(seed, "commit", "-qm", "start")
    git(seed, "push", "-q", "origin", "main")
    return remote, Machine(root, "a", remote, "Ada"), Machine(root, "b", remote, "Bob")


def copied_team(made: Path, root: Path) -> tuple[Path, Machine, Machine]:
    """The team :func:`team` made under ``made`` (keys, clones' settings and all), copied into ``root``: the same
    repositories, their git settings that name a path (the remote, a signing key) moved to ``root``. A copy costs
    a tenth of making one (git init, a push and two clones)."""
    shutil.copytree(made, root, symlinks=True, dirs_exist_ok=True)
    for path in [*root.glob("*/.git/config"), *root.glob("*/project/.git/config")]:
        path.write_text(path.read_text().replace(f"{made}{os.sep}", f"{root}{os.sep}"))
    return root / "remote.git", Machine(root, "a", None), Machine(root, "b", None)


def remote_ref(remote: Path) -> str | None:
    """The commit the remote's share ref points at (None: it has none)."""
    out = git(remote, "rev-parse", "--verify", "--quiet", REF, check=False).strip()
    return out or None
