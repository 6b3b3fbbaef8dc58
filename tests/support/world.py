"""Homes of a test's own, and a world built once per module and handed to each of its tests as it was built.

:func:`enter_homes` is what ``tests/conftest.py`` does for every test: fresh ``$AUTOPILOT_HOME``, ``$CODEX_HOME``,
``$CLAUDE_CONFIG_DIR`` and ``HOME`` under one folder, and no setting inherited from the person running the tests.
:func:`not_an_agent` keeps the processes above the test run (an agent's shell, CI) out of ``memory.origin``.

A :class:`World` is for a module whose tests all start from the same costly state (a run planned and judged
through the SDK, hooks that started a review worker, a dashboard process serving it): the module builds it once
(:meth:`World.building`: the homes and the work folders under one root, the environment pointed there as each
test's is), and :meth:`World.restore` gives each test a fresh copy at the same paths (absolute paths are written
into state and transcripts), its environment pointed at it. A test may change its copy freely: the next one gets
the world as built again. Anything running over the world (a dashboard process) sees each test's copy.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

HOMES = (("AUTOPILOT_HOME", "autopilot"), ("CODEX_HOME", "codex"), ("CLAUDE_CONFIG_DIR", "claude"), ("HOME", "home"))
CLEARED = (  # the person's own settings: no test inherits them
    "AUTOPILOT_BACKEND",
    "AUTOPILOT_MODEL",
    "AUTOPILOT_EFFORT",
    "AUTOPILOT_BUDGET_USD",
    "AUTOPILOT_CODEX_BIN",
    "AUTOPILOT_CONFIG",
    "AUTOPILOT_CLAUDE_PROJECTS_DIR",
    "AUTOPILOT_CODEX_SESSIONS_DIR",
    "AUTOPILOT_PRICES",
    "CLAUDE_CODE_SESSION_ID",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
)


def enter_homes(mp: pytest.MonkeyPatch, root: Path) -> Path:
    """Point every root the bridge uses at fresh folders under ``root`` and clear the person's settings."""
    for _, sub in HOMES:
        (root / sub).mkdir(parents=True)
    point_homes(mp, root)
    for var in CLEARED:
        mp.delenv(var, raising=False)
    return root


def point_homes(mp: pytest.MonkeyPatch, root: Path) -> None:
    """Every root the bridge uses, under ``root`` (as :func:`enter_homes` made them)."""
    for var, sub in HOMES:
        mp.setenv(var, str(root / sub))
    from autopilot.handoff.memory import observe

    # never the machine's /etc/codex-autopilot: in-process only (nothing at run time moves it for a real process)
    mp.setattr(observe, "MANAGED_DIR", str(root / "managed"))


def _ancestors() -> set[int]:
    """The processes above this test run (the shell, an agent, CI): outside every test's world."""
    found, pid = set(), os.getppid()
    while pid > 1 and pid not in found:
        found.add(pid)
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                stat = fh.read().decode("utf-8", "replace")
            pid = int(stat[stat.rfind(")") + 2 :].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return found


OUTSIDE = _ancestors()


def not_an_agent(mp: pytest.MonkeyPatch) -> None:
    """Who started the test run is no part of a test: ``memory.origin`` never reads the processes above pytest."""
    from autopilot.handoff.memory import origin

    real = origin.environ_of
    mp.setattr(origin, "environ_of", lambda pid: None if pid in OUTSIDE else real(pid))


def openai_settings(url: str) -> dict[str, str]:
    """The openai backend at a scripted server's ``url``, with fast retries (what ``openai_env`` sets)."""
    return {
        "OPENAI_BASE_URL": url,
        "OPENAI_API_KEY": "sk-test-not-a-real-key",
        "AUTOPILOT_BACKEND": "openai",
        "AUTOPILOT_MODEL": "gpt-6.2-sol",
        "AUTOPILOT_RETRY_BASE_S": "0.01",
        "AUTOPILOT_RETRY_MAX_S": "0.05",
    }


def point_openai(mp: pytest.MonkeyPatch, url: str) -> None:
    """Set :func:`openai_settings` for the rest of the test."""
    for name, value in openai_settings(url).items():
        mp.setenv(name, value)


def copy_tree(source: Path, dest: Path) -> Path:
    """``source`` copied to ``dest`` (symlinks kept as links, times kept)."""
    shutil.copytree(source, dest, symlinks=True)
    return dest


class World:
    """Homes and work folders under ``root`` (``root/autopilot``, … as :func:`enter_homes` lays them out, and
    ``root/work``), built once and restored for each test; ``settings`` are environment variables the building and
    anything served over the world have (a scripted server's address)."""

    def __init__(self, root: Path, **settings: str) -> None:
        self.root = root
        self.work = root / "work"
        self.settings = settings
        self._saved = root.with_name(root.name + ".as-built")
        self.built: Any = None  # what the building returned (paths, states) for the tests to read

    @contextmanager
    def environment(self) -> Iterator[pytest.MonkeyPatch]:
        """The environment a test of this world has (its homes, no setting of the person's, ``settings``)."""
        with pytest.MonkeyPatch.context() as mp:
            for var in CLEARED:
                mp.delenv(var, raising=False)
            point_homes(mp, self.root)
            for name, value in self.settings.items():
                mp.setenv(name, value)
            not_an_agent(mp)
            yield mp

    @contextmanager
    def building(self) -> Iterator[pytest.MonkeyPatch]:
        """:meth:`environment` over fresh homes while the module builds the world; the world is saved after."""
        for _, sub in HOMES:
            (self.root / sub).mkdir(parents=True)
        self.work.mkdir()
        with self.environment() as mp:
            yield mp
        copy_tree(self.root, self._saved)

    def restore(self, mp: pytest.MonkeyPatch) -> World:
        """This world as built, at the same paths, and the test's homes pointed at it (nothing else of the test's
        environment changes: ``isolated_homes`` has cleared the person's settings already)."""
        _mirror(self._saved, self.root)
        point_homes(mp, self.root)
        return self


@contextmanager
def scripted_world(factory: pytest.TempPathFactory, name: str, **settings: str) -> Iterator[tuple[World, Any]]:
    """A new :class:`World` with the openai backend at a scripted Responses server (and ``settings``), and the server:
    it answers as long as the ``with`` lasts (keep it for the module when something served over the world may call)."""
    from autopilot.scripted.responses_server import ResponsesServer

    with ResponsesServer() as server:
        yield World(factory.mktemp(name) / "world", **openai_settings(server.url), **settings), server


def _mirror(source: str | Path, dest: str | Path) -> None:
    """Make ``dest`` hold exactly what ``source`` holds; folders both have are kept, not made anew (a process whose
    working directory is one, as a dashboard started with ``-C`` is, still has it)."""
    wanted = {entry.name: entry for entry in os.scandir(source)}
    for entry in os.scandir(dest):
        twin = wanted.get(entry.name)
        if twin is not None and twin.is_dir(follow_symlinks=False) and entry.is_dir(follow_symlinks=False):
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
    for name, entry in wanted.items():
        target = os.path.join(dest, name)
        if entry.is_dir(follow_symlinks=False):
            if not os.path.isdir(target):
                os.mkdir(target)
            _mirror(entry.path, target)
            shutil.copystat(entry.path, target)
        elif entry.is_symlink():
            os.symlink(os.readlink(entry.path), target)
        else:
            shutil.copy2(entry.path, target)
