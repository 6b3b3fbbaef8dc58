"""The real-home guard of tests/conftest.py fails a test that writes to the real home, and only such a test."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support.home_guard import HomeGuard
from tests.support.repo import REPO


def test_a_file_written_under_a_watched_root_is_reported(tmp_path):
    """A file created inside the real home's ~/.codex is named as created."""
    (tmp_path / ".codex").mkdir()
    guard = HomeGuard([str(tmp_path)])
    (tmp_path / ".codex" / "sessions").mkdir()
    assert guard.check() == [f"created {tmp_path}/.codex/sessions"]


def test_a_changed_file_at_the_top_of_the_home_is_reported(tmp_path):
    """Rewriting ~/.claude.json (a different size) is reported as changed; the next check starts afresh."""
    (tmp_path / ".claude.json").write_text("{}")
    guard = HomeGuard([str(tmp_path)])
    (tmp_path / ".claude.json").write_text('{"projects": {}}')
    assert guard.check() == [f"changed {tmp_path}/.claude.json"]
    assert guard.check() == []


def test_an_untouched_home_reports_nothing(tmp_path):
    """Reading the home changes nothing the guard sees."""
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "config.toml").write_text("model = 'x'\n")
    guard = HomeGuard([str(tmp_path)])
    (tmp_path / ".codex" / "config.toml").read_text()
    assert guard.check() == []


def run_inner(tmp_path: Path, body: str, *, strict: bool = True) -> subprocess.CompletedProcess[str]:
    """Run one test file under this suite's conftest, with ``real`` as the run's real HOME (strict: as in CI)."""
    real = tmp_path / "real-home"
    (real / ".codex-autopilot").mkdir(parents=True)
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "test_inner.py").write_text(textwrap.dedent(body))
    env = {**os.environ, "HOME": str(real), "PROOF_REAL_HOME": str(real)}
    env.pop("CI", None)
    env["AUTOPILOT_HOME_GUARD"] = "strict" if strict else "warn"
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the inner run needs only the conftest (xdist, cov: a third of it)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest"]
        + ["--basetemp", str(tmp_path / "basetemp"), str(inner)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_test_that_writes_to_the_real_home_fails(tmp_path):
    """Under the suite's conftest, a test writing to the HOME the run started with fails, naming the file."""
    proc = run_inner(
        tmp_path,
        """
        import os

        def test_leaks():
            with open(os.path.join(os.environ["PROOF_REAL_HOME"], ".codex-autopilot", "leak.json"), "w") as fh:
                fh.write("{}")
        """,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "the test wrote to the real home" in proc.stdout
    assert f"created {tmp_path}/real-home/.codex-autopilot/leak.json" in proc.stdout


def test_outside_ci_a_real_home_change_is_a_warning(tmp_path):
    """Where other processes share the home (not CI), the same write is reported as a warning naming it."""
    proc = run_inner(
        tmp_path,
        """
        import os

        def test_leaks():
            with open(os.path.join(os.environ["PROOF_REAL_HOME"], ".codex-autopilot", "leak.json"), "w") as fh:
                fh.write("{}")
        """,
        strict=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "the real home changed during this test" in proc.stdout and "leak.json" in proc.stdout


def test_a_fixture_that_writes_home_before_the_test_has_one_fails(tmp_path):
    """A module-scoped fixture runs before the test's own HOME is set: what it writes to ~ fails, CI or not."""
    proc = run_inner(
        tmp_path,
        """
        import os

        import pytest

        @pytest.fixture(scope="module")
        def early():
            with open(os.path.join(os.path.expanduser("~"), ".early"), "w") as fh:
                fh.write("x")

        def test_uses_it(early):
            pass
        """,
        strict=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "the test wrote to the real home" in proc.stdout and "/.early" in proc.stdout
    assert not (tmp_path / "real-home" / ".early").exists()  # the sentinel took it, not the real home


def test_a_test_that_uses_its_own_home_passes(tmp_path):
    """Under the same conftest, a test writing only to the HOME it was given passes."""
    proc = run_inner(
        tmp_path,
        """
        import os

        def test_stays_home():
            with open(os.path.join(os.path.expanduser("~"), ".claude.json"), "w") as fh:
                fh.write("{}")
        """,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
