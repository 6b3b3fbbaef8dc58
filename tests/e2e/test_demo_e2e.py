"""The README's first command with the real codex (npm, pinned) installed, set up, and pointing at no server."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.agents import agent_bin

pytestmark = pytest.mark.e2e

BRIDGE = str(Path(sys.executable).parent / "codex-bridge")
NO_SERVER = """model = "gpt-6.2-sol"
model_provider = "fake"
[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:9/v1"
env_key = "FAKE_OPENAI_KEY"
wire_api = "responses"
"""


@pytest.fixture
def machine(isolated_homes, tmp_path, monkeypatch):
    """The real codex on PATH, set up as the backend, its provider a port nobody listens on; a TMPDIR apart."""
    (isolated_homes / "codex" / "config.toml").write_text(NO_SERVER)
    (isolated_homes / "autopilot" / "config.yaml").write_text("backend: codex-cli\n")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("PATH", f"{agent_bin('codex').parent}:/usr/bin:/bin")
    monkeypatch.setenv("FAKE_OPENAI_KEY", "not-a-real-key")
    monkeypatch.setenv("TMPDIR", str(tmp))
    return isolated_homes / "codex", tmp


def codex_processes(codex_home: Path) -> list[int]:
    """Processes whose environment names this test's CODEX_HOME (what our codex exec children carry)."""
    marker = f"CODEX_HOME={codex_home}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if marker in fh.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            continue
    return found


def test_the_first_command_never_asks_the_installed_codex(machine):
    """`codex-bridge demo` finishes offline in under 60 s, and the real codex never ran (it wrote no rollout)."""
    codex_home, tmp = machine
    started = time.monotonic()
    proc = subprocess.run([BRIDGE, "demo"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0 and time.monotonic() - started < 60, proc.stderr
    assert "offline demo" in proc.stderr
    assert not list(codex_home.rglob("rollout-*.jsonl")) and list(tmp.glob("codex-autopilot-demo-*")) == []


def test_asked_for_the_real_codex_the_demo_says_in_seconds_that_it_cannot_answer(machine):
    """`demo --backend codex-cli` stops at the first call once codex says it is waiting for the network: exit 3 well
    under 30 s, the reason and the fix on stderr, no codex process and no folder left."""
    codex_home, tmp = machine
    started = time.monotonic()
    argv = [BRIDGE, "demo", "--backend", "codex-cli"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 3 and time.monotonic() - started < 30, proc.stderr
    assert "cannot answer" in proc.stderr and "waiting for network" in proc.stderr and "codex login" in proc.stderr
    assert codex_processes(codex_home) == [] and list(tmp.glob("codex-autopilot-demo-*")) == []
