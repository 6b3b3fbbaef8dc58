"""Who runs this process: a person at a terminal, or an agent session's shell (and which session).

Claude Code sets ``CLAUDE_CODE_SESSION_ID`` (and ``CLAUDECODE``) in its Bash tool's environment; Codex sets
``CODEX_THREAD_ID`` (and ``CODEX_SANDBOX*``) in its shell's (both seen with the real clients: docs/memory.md,
"What the clients deliver"). A process started from such a shell inherits them. Unsetting them for one
command (``unset``, ``env -u``, ``env -i``, a pseudo-terminal from ``script``) leaves them in the environment
of the shell that started it, so the environment of every ancestor process (``/proc/<pid>/environ``, read
while it belongs to this user) counts as well as this process's own.

What this cannot see: an agent whose command leaves its own process tree (a daemon, a ``tmux`` server the
person started) and drops the variables looks like the person. That is why what an agent writes for a
session reaches that session only once its own hook has seen the command (handoff/memory/checkpoint.py), and why
this answer is a label, never an authority.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

# The variable that names the session whose shell a process runs in, per agent (verified with the clients).
SESSION_VARS = (("claude", "CLAUDE_CODE_SESSION_ID"), ("codex", "CODEX_THREAD_ID"))
# Set in the shell an agent's tools run in: Claude Code's Bash tool (CLAUDECODE), Codex's sandboxed commands
# (CODEX_SANDBOX*) and its thread variables.
AGENT_ENV = (
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_CODE_SESSION_ID",
    "CODEX_SANDBOX",
    "CODEX_SANDBOX_NETWORK_DISABLED",
    "CODEX_THREAD_ID",
)
MAX_DEPTH = 64  # ancestors read at most (a loop in a broken /proc can never hold this up)


@dataclass(frozen=True)
class Caller:
    """Where a command comes from: the agent sessions whose shells it runs in (nearest first), or none."""

    sessions: tuple[tuple[str, str], ...] = ()
    marker: str | None = None  # the first agent variable seen (also when no session id came with it)
    where: str = ""  # which process showed it: "this process" or "process 1234 (bash)"
    notes: list[str] = field(default_factory=list)

    @property
    def agent_shell(self) -> bool:
        """Whether the command runs in (or below) an agent's shell."""
        return self.marker is not None

    def relation(self, agent: str, session: str) -> str:
        """``own`` (the session's own shell), ``elsewhere`` (another agent session's shell) or ``person``."""
        if not self.agent_shell:
            return "person"
        if self.sessions and set(self.sessions) == {(agent, session)}:
            return "own"
        return "elsewhere"

    def describe(self) -> str:
        """The caller in words, for the command's answer."""
        if self.sessions:
            agent, session = self.sessions[0]
            return f"the shell of {agent} session {session} ({self.where})"
        if self.marker:
            return f"an agent's shell ({self.marker} is set in {self.where})"
        return "a terminal outside any agent session"


def environ_of(pid: int) -> dict[str, str] | None:
    """The environment process ``pid`` started with, or None when it cannot be read (another user, gone, no /proc)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    out = {}
    for item in raw.split(b"\0"):
        name, sep, value = item.partition(b"=")
        if sep:
            out[name.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
    return out


def _parent_and_name(pid: int) -> tuple[int, str] | None:
    """The parent pid and the command name of ``pid`` (from /proc/<pid>/stat), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read().decode("utf-8", "replace")
    except OSError:
        return None
    start, end = stat.find("("), stat.rfind(")")
    fields = stat[end + 2 :].split()
    if start < 0 or end < 0 or len(fields) < 2:
        return None
    try:
        return int(fields[1]), stat[start + 1 : end]
    except ValueError:
        return None


def caller(env: dict[str, str] | os._Environ[str] | None = None, pid: int | None = None) -> Caller:
    """Who runs process ``pid`` (this one by default): its environment, then each ancestor's."""
    chain: list[tuple[str, dict[str, str] | os._Environ[str]]] = [("this process", os.environ if env is None else env)]
    here = os.getpid() if pid is None else pid
    seen = {here}
    info = _parent_and_name(here)
    while info is not None and len(chain) < MAX_DEPTH:
        parent, _ = info
        if parent <= 1 or parent in seen:
            break
        seen.add(parent)
        info = _parent_and_name(parent)
        found = environ_of(parent)
        if found is not None:
            chain.append((f"process {parent} ({info[1] if info else '?'})", found))
    sessions: list[tuple[str, str]] = []
    marker, where = None, ""
    for place, values in chain:
        for agent, name in SESSION_VARS:
            value = values.get(name)
            if value and (agent, value) not in sessions:
                sessions.append((agent, value))
        if marker is None:
            marker = next((name for name in AGENT_ENV if values.get(name)), None)
            where = place if marker else ""
    first = next((place for place, values in chain if any(values.get(n) for _, n in SESSION_VARS)), where)
    return Caller(tuple(sessions), marker, first or where)
