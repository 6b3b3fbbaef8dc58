"""The suite's gates (pyproject.toml) hold: a warning or an unexpected pass fails a test, an unknown setting fails the
run, and a bridge process, which leaves through os._exit, is measured by the full run's coverage."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support.measured import unmeasured

REPO = Path(__file__).resolve().parents[2]


def run_planted(tmp_path: Path, body: str, *options: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    """One planted test file run by pytest with this suite's settings (pyproject.toml) and ``options``."""
    (tmp_path / "test_planted.py").write_text(textwrap.dedent(body))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-c", str(REPO / "pyproject.toml"), "-p", "no:cacheprovider"]
        + ["--basetemp", str(tmp_path / "basetemp"), *options, str(tmp_path / "test_planted.py")],
        cwd=cwd,
        env={**unmeasured(), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},  # only pytest itself is under test
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_warning_fails_the_test_it_surfaces_in(tmp_path):
    """A warning, and a file left open for the garbage collector, fail their tests; a clean test passes."""
    proc = run_planted(
        tmp_path,
        """
        import gc, warnings

        def test_warns():
            warnings.warn("deprecated, say", DeprecationWarning)

        def test_leaves_a_file_open():
            open(__file__)
            gc.collect()

        def test_clean():
            pass
        """,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "2 failed, 1 passed" in proc.stdout, proc.stdout


def test_an_expected_failure_that_passes_fails(tmp_path):
    """``xfail`` that passes is a failure (xfail_strict): a fixed bug's marker cannot linger."""
    proc = run_planted(
        tmp_path,
        """
        import pytest

        @pytest.mark.xfail(reason="planted")
        def test_fixed_meanwhile():
            pass
        """,
    )
    assert proc.returncode == 1 and "XPASS(strict)" in proc.stdout, proc.stdout + proc.stderr


def test_an_unknown_setting_fails_the_run(tmp_path):
    """A misspelt setting is an error (--strict-config), not a warning nobody reads."""
    proc = run_planted(tmp_path, "def test_ok():\n    pass\n", "-o", "xfail_strikt=true")
    assert proc.returncode != 0 and "xfail_strikt" in proc.stderr, proc.stdout + proc.stderr


def measured_hook(tmp_path: Path, patch: list[str]) -> list[Path]:
    """The data files a bridge hook process writes when started as the full run starts it (coverage's settings from
    pyproject.toml in COVERAGE_PROCESS_CONFIG, with ``patch``), data kept under ``tmp_path``."""
    import coverage

    cov = coverage.Coverage(config_file=str(REPO / "pyproject.toml"), data_file=str(tmp_path / "data" / ".coverage"))
    cov.config.patch = patch
    proc = subprocess.run(
        [sys.executable, "-I", "-c", "from autopilot.cli import entry; entry()", "hook", "SessionEnd"],
        input="{}",
        env={**unmeasured(), "COVERAGE_PROCESS_CONFIG": cov.config.serialize()},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return sorted((tmp_path / "data").glob(".coverage.*"))


def test_a_bridge_process_is_measured_though_it_leaves_through_os_exit(tmp_path):
    """With pyproject.toml's settings a hook process saves its coverage, down to the os._exit that ends it; without
    the "_exit" patch (the counter-example) it saves nothing."""
    import coverage

    from autopilot import cli

    settings = coverage.Coverage(config_file=str(REPO / "pyproject.toml")).config
    assert settings.branch and {"subprocess", "_exit"} <= set(settings.patch)
    (saved,) = measured_hook(tmp_path / "with", list(settings.patch))
    data = coverage.CoverageData(str(saved))
    data.read()
    leaving = next(n for n, text in enumerate(Path(cli.__file__).read_text().splitlines(), 1) if "os._exit(" in text)
    assert leaving in (data.lines(str(Path(cli.__file__).resolve())) or [])
    assert measured_hook(tmp_path / "without", [p for p in settings.patch if p != "_exit"]) == []


def test_an_untraced_test_runs_without_the_tracer_and_gives_it_back():
    """What ``untraced`` wraps sees no tracer (coverage's, here a planted one); the tracer is back afterwards."""
    import sys

    from tests.support.measured import untraced

    def tracer(frame, event, arg):
        return None

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        seen = untraced(sys.gettrace)()
        after = sys.gettrace()
    finally:
        sys.settrace(previous)
    assert (seen, after) == (None, tracer)


def test_the_full_run_fails_below_the_coverage_floor(tmp_path):
    """pyproject.toml sets a floor of at least 80% (lines and branches), and pytest-cov enforces it: a planted package
    half of whose branches no test takes fails the run with the floor's own settings; fully covered, it passes."""
    import coverage

    floor = coverage.Coverage(config_file=str(REPO / "pyproject.toml")).config.fail_under
    assert floor >= 80
    (tmp_path / "planted.py").write_text("def f(x):\n    if x:\n        return 1\n    return 2\n")
    config = tmp_path / "coverage.toml"
    # Its data stays in tmp_path, and it runs there: a pytest-cov run erases the data files beside its own, and the
    # full run's subprocesses write theirs beside the checkout's .coverage (run from the checkout, it erased them).
    data = tmp_path / ".coverage"
    config.write_text(
        f"[tool.coverage.run]\nbranch = true\ndata_file = {str(data)!r}\n[tool.coverage.report]\nfail_under = {floor}\n"
    )
    runs = {}
    kept = set(REPO.glob(".coverage*"))  # the full run's own data so far, which a planted run must leave be
    for name, calls in (("half", "f(1)"), ("whole", "f(1); f(0)")):
        (tmp_path / name).mkdir()
        proc = run_planted(
            tmp_path / name,
            f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\nfrom planted import f\n\ndef test_f():\n    {calls}\n",
            "-p", "pytest_cov", "--cov=planted", f"--cov-config={config}", "--cov-report=",
            cwd=tmp_path / name,
        )  # fmt: skip
        runs[name] = (proc.returncode, "Required test coverage" in proc.stdout + proc.stderr)
    assert runs == {"half": (1, True), "whole": (0, True)}
    assert kept <= set(REPO.glob(".coverage*"))
