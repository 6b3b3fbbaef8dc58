"""The pinned real agents the end-to-end tests drive, and how to point them at scripted servers."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.repo import REPO

AGENTS = REPO / "tests" / "agents" / "node_modules" / ".bin"


def agent_bin(name: str) -> Path:
    """The pinned real ``claude`` or ``codex`` binary from tests/agents (see .ci/run)."""
    override = os.environ.get(f"AUTOPILOT_TEST_{name.upper()}_BIN")
    path = Path(override) if override else AGENTS / name
    if not path.exists():
        if os.environ.get("AUTOPILOT_REQUIRE_E2E"):
            pytest.fail(f"{path} is missing: run `npm ci --prefix tests/agents` (.ci/run does)")
        pytest.skip(f"{path} is missing: run `npm ci --prefix tests/agents`")
    return path


def agent_version(name: str) -> tuple[int, ...]:
    """The x.y.z of the claude or codex under test (the pinned one, or the matrix's)."""
    return _version(str(agent_bin(name)))


@functools.cache
def _version(binary: str) -> tuple[int, ...]:
    """What ``binary --version`` says, asked in a throwaway home: it runs at collection, before any test has
    a home of its own, and even ``codex --version`` writes to its home (``tmp/arg0``)."""
    import tempfile

    from autopilot.config import parse_version

    with tempfile.TemporaryDirectory(prefix="agent-version-") as home:
        env = {**os.environ, "HOME": home, "CODEX_HOME": home, "CLAUDE_CONFIG_DIR": home}
        said = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60, env=env).stdout
    return parse_version(said) or (0, 0, 0)


def needs(name: str, version: tuple[int, ...], why: str) -> pytest.MarkDecorator:
    """Skip a test on an older client of the matrix (tests/matrix) when the test, not the product, needs ``version``.

    The pinned clients always satisfy it (so CI, which refuses skipped tests, runs it); a missing binary
    does not skip either: the test then fails as every e2e test does without its client.
    """
    try:
        found = agent_version(name)
    except Exception:  # no binary: let the test itself say so
        return pytest.mark.skipif(False, reason=why)
    said = ".".join(map(str, version))
    return pytest.mark.skipif(found < version, reason=f"needs {name} {said}+: {why}")


def have(binary: str) -> bool:
    """Whether a program is on PATH."""
    return shutil.which(binary) is not None


def write_codex_config(codex_home: Path, base_url: str) -> None:
    """Point the real codex at a scripted Responses server (a `model_providers` entry), with no retries."""
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(
        'model = "gpt-6.2-sol"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
        f'base_url = "{base_url}"\nenv_key = "FAKE_OPENAI_KEY"\nwire_api = "responses"\n'
        "request_max_retries = 0\nstream_max_retries = 0\n\n[analytics]\nenabled = false\n"
    )


def codex_exec(cwd: Path, *args: str) -> list[dict[str, Any]]:
    """Run the real `codex exec --json` to the end in ``cwd``; its events (asserting exit 0)."""
    proc = subprocess.run(
        [str(agent_bin("codex")), "exec", "--json", "--skip-git-repo-check", *args],
        cwd=cwd,
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
