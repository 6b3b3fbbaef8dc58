"""A real second local user (``useradd``), and running bridge code as that user.

The tests run as root (CI and the development machines do). :func:`second_user` creates a system user
with its own group and no home, and removes both afterwards, whatever happened. :func:`as_user` runs a
function in a forked child that has dropped every privilege to that user (``setgroups([])``, ``setgid``,
``setuid``: its real, effective and saved ids), so every file the code opens, stats or checks with
``access(2)`` is judged by the kernel for that user. Forking, rather than exec-ing an interpreter, keeps
the test independent of where Python and this checkout live (a root-only ``/root/.pyenv`` on the
development machines): the modules the code needs are imported before the privileges are dropped.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import traceback
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

PRELOAD = (
    "autopilot.cli",
    "autopilot.commands.hook",
    "autopilot.commands.handoff.memory",
    "autopilot.commands.durable",
    "autopilot.knowledge.durable.store",
    "autopilot.hooks",
    "autopilot.hooks.memory",
    "autopilot.hooks.session",
    "autopilot.hooks.context",
    "autopilot.knowledge.durable.deliver",
    "autopilot.knowledge.durable.managed",
    "autopilot.handoff.memory.inject",
    "autopilot.handoff.memory.observe",
    "autopilot.config",
    "autopilot.redact",
    "filelock",
    "orjson",
    "yaml",
)


@contextmanager
def second_user() -> Iterator[pwd.struct_passwd]:
    """A fresh local user and group (``useradd --system --user-group``), removed afterwards."""
    name = "apt" + uuid.uuid4().hex[:12]
    subprocess.run(
        ["useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
        check=True,
        capture_output=True,
    )
    try:
        yield pwd.getpwnam(name)
    finally:
        subprocess.run(["userdel", name], capture_output=True)
        subprocess.run(["groupdel", name], capture_output=True)  # gone with the user already, normally


@contextmanager
def owned_dir(user: pwd.struct_passwd) -> Iterator[Path]:
    """A directory under /tmp that ``user`` owns (mode 0700), removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix="autopilot-user-", dir="/tmp"))
    os.chown(path, user.pw_uid, user.pw_gid)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@contextmanager
def root_dir() -> Iterator[Path]:
    """A directory under /tmp that root owns, readable by all (mode 0755): an administrator's location."""
    path = Path(tempfile.mkdtemp(prefix="autopilot-admin-", dir="/tmp"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def chown_tree(path: Path, user: pwd.struct_passwd) -> None:
    """Give ``path`` and everything under it to ``user``."""
    for root, dirs, files in os.walk(path):
        for name in [root, *(os.path.join(root, d) for d in dirs), *(os.path.join(root, f) for f in files)]:
            os.chown(name, user.pw_uid, user.pw_gid, follow_symlinks=False)


def as_user(user: pwd.struct_passwd, env: dict[str, str], fn: Callable[[], Any], *, timeout: float = 120) -> Any:
    """``fn()`` run as ``user`` in a forked child with ``env`` as its environment; its JSON-able result (an
    exception in the child fails the test with its traceback)."""
    import importlib

    for module in PRELOAD:
        importlib.import_module(module)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop to the user for good, run, report, exit without pytest's cleanup
        status = 0
        try:
            os.close(read)
            signal.alarm(int(timeout))  # a hung child dies, and the parent sees no answer
            os.setgroups([])
            os.setgid(user.pw_gid)
            os.setuid(user.pw_uid)
            assert os.getuid() == os.geteuid() == user.pw_uid != 0
            os.environ.clear()
            os.environ.update(env)
            os.chdir(env.get("HOME", "/"))
            payload = {"ok": fn()}
        except BaseException:  # noqa: BLE001 (everything goes back to the parent)
            payload = {"error": traceback.format_exc()}
            status = 1
        try:
            os.write(write, json.dumps(payload).encode())
        finally:
            os._exit(status)
    os.close(write)
    chunks = []
    with os.fdopen(read, "rb") as fh:
        chunks.append(fh.read())
    _, status = os.waitpid(pid, 0)
    answer = json.loads(b"".join(chunks) or b"{}")
    assert "error" not in answer, answer.get("error")
    assert os.waitstatus_to_exitcode(status) == 0
    return answer.get("ok")
