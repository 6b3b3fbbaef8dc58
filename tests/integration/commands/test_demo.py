"""codex-bridge demo as a newcomer meets it: the README's first command whatever is installed, and each way it ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from autopilot.loop.backends import codex_cli
from tests.support.fake_codex import alive, fake_codex, reap, runs
from tests.support.terminal import as_started_from_a_terminal

BRIDGE = str(Path(sys.executable).parent / "codex-bridge")  # the console script the README's command runs


@pytest.fixture
def machine(tmp_path, isolated_homes, monkeypatch):
    """A newcomer's machine: a codex on PATH, set up as their backend everywhere, and a temp folder of its own."""
    bin_dir, tmp = tmp_path / "bin", tmp_path / "tmp"
    tmp.mkdir()
    (isolated_homes / "autopilot" / "config.yaml").write_text("backend: codex-cli\n")
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("AUTOPILOT_BACKEND", "codex-cli")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("TMPDIR", str(tmp))
    # the in-process bridge asks tempfile, which read TMPDIR once already: a kept demo must land here, not in /tmp
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    yield bin_dir, tmp
    reap(bin_dir)


def demo_dirs(tmp: Path) -> list[str]:
    """The demo's throwaway folders left in ``tmp``."""
    return sorted(p.name for p in tmp.glob("codex-autopilot-demo-*"))


@pytest.mark.parametrize("mode", ["offline", "silent"])
def test_the_first_command_stays_offline_with_a_codex_that_cannot_answer(machine, mode):
    """With a codex on PATH and set up as the backend, the README's `codex-bridge demo` finishes offline and in
    seconds, calls that codex not once, and leaves no folder behind."""
    bin_dir, tmp = machine
    fake_codex(bin_dir, mode)
    started = time.monotonic()
    proc = subprocess.run([BRIDGE, "demo"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 60
    assert "offline demo" in proc.stderr and "status=done" in proc.stdout.splitlines()[-1]
    assert runs(bin_dir) == []
    assert demo_dirs(tmp) == []


def test_a_backend_that_cannot_reach_its_provider_says_so_within_seconds(machine):
    """`demo --backend codex-cli` with a codex that cannot reach its provider stops at the first call, in seconds,
    saying why and what to do, exit 3, with no codex process and no folder left."""
    bin_dir, tmp = machine
    fake_codex(bin_dir, "offline")
    started = time.monotonic()
    proc = subprocess.run(
        [BRIDGE, "demo", "--backend", "codex-cli"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert time.monotonic() - started < 15
    assert proc.returncode == 3, proc.stderr
    assert "the demo's backend (codex-cli) cannot answer" in proc.stderr
    assert "waiting for network" in proc.stderr and "codex login" in proc.stderr
    assert "codex-bridge demo` without --backend" in proc.stderr
    assert len(runs(bin_dir)) == 1 and alive(bin_dir) == []
    assert demo_dirs(tmp) == []


def test_a_hung_codex_is_given_up_on_when_it_starts_no_thread(machine, bridge, monkeypatch):
    """A codex that prints nothing is given up on after START_S, not after the call's whole deadline, and stopped."""
    bin_dir, _ = machine
    fake_codex(bin_dir, "silent")
    monkeypatch.setattr(codex_cli, "START_S", 1.0)
    started = time.monotonic()
    code, _, err = bridge("demo", "--backend", "codex-cli")
    assert code == 3 and time.monotonic() - started < 10
    assert "codex started no thread within 1s" in err
    assert alive(bin_dir) == []


def test_a_missing_codex_is_said_before_anything_starts(machine, bridge):
    """`--backend codex-cli` with no codex anywhere is refused at once, with the fix."""
    code, out, err = bridge("demo", "--backend", "codex-cli")
    assert code == 3 and out == ""
    assert "the Codex CLI was not found" in err and "offline demo" in err


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_demo_ended_by_a_signal_leaves_no_process_and_no_folder(machine, signum):
    """SIGTERM (`timeout`, `kill`) or SIGHUP (a closed terminal) while codex answers: the demo stops its codex,
    removes its throwaway folder and exits 128 + the signal."""
    bin_dir, tmp = machine
    fake_codex(bin_dir, "started")
    proc = subprocess.Popen(
        [BRIDGE, "demo", "--backend", "codex-cli"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        start_new_session=True,  # a signal to the demo only, as `kill PID` sends it
        preexec_fn=as_started_from_a_terminal,
    )
    try:
        deadline = time.monotonic() + 30
        while not alive(bin_dir) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert alive(bin_dir), "codex never started"
        assert demo_dirs(tmp) != []
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 128 + signum, err
    assert f"stopped by signal {int(signum)}" in err.decode()
    assert alive(bin_dir) == []
    assert demo_dirs(tmp) == []


def test_an_offline_demo_ended_by_sigterm_leaves_no_folder(machine):
    """The offline demo ended mid-run by SIGTERM removes its repository and run, as Ctrl-C does."""
    _, tmp = machine
    proc = subprocess.Popen(
        [BRIDGE, "demo"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True
    )
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "throwaway repository" in line:
                break
        assert demo_dirs(tmp) != []
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM
    assert demo_dirs(tmp) == []


def test_the_printed_repository_is_said_to_go_and_keep_keeps_it(machine, bridge):
    """The demo says its repository is removed at the end (and it is); --keep keeps it and says where."""
    code, _, err = bridge("demo")
    line = next(x for x in err.splitlines() if "throwaway repository" in x)
    repo = line.split("throwaway repository: ", 1)[1].split(" (", 1)[0]
    assert code == 0 and "(removed when the demo ends)" in line and not os.path.exists(repo)
    code, _, err = bridge("demo", "--keep")
    line = next(x for x in err.splitlines() if "throwaway repository" in x)
    repo = line.split("throwaway repository: ", 1)[1].split(" (", 1)[0]
    assert code == 0 and "(kept when the demo ends)" in line
    assert (Path(repo) / "test_greet.py").exists() and f"kept {Path(repo).parent}" in err
    assert Path(repo).parent.parent == machine[1]  # kept in the machine's temp folder, gone with the test's


def test_each_review_line_tells_its_own_task(machine, bridge):
    """T2's review speaks of T2's test, not of T1's helper; one changed file is one file."""
    code, out, err = bridge("demo")
    reviews = [line for line in out.splitlines() if line.startswith("review")]
    assert code == 0 and len(reviews) == 2
    assert "shout() delegates" in reviews[0] and "test_greet.py" in reviews[1]
    assert "review 1 changed file against T1" in err and "2 changed files against T2" in err


def test_the_plan_line_says_what_planning_cost_and_that_the_budget_leaves_it_out(machine, bridge):
    """The plan's cost is on the plan line, not $0 until the end, and said to sit outside the budget."""
    code, out, err = bridge("demo")
    plan = out.splitlines()[0]
    assert code == 0 and plan.startswith("plan")
    cost = plan.split("2 tasks for $", 1)[1].split(" ", 1)[0]
    assert float(cost) > 0 and "(planning is not charged to the budget)" in plan
    assert f"planning: ${cost}, not charged to it" in err


def test_model_without_a_backend_is_refused_and_offline_still_accepted(machine, bridge):
    """--model only means something to a real backend; --offline, the earlier flag, is the default now."""
    code, out, err = bridge("demo", "--model", "gpt-6.2-sol")
    assert code == 1 and out == "" and "--backend" in err
    assert bridge("demo", "--offline")[0] == 0
    code, _, err = bridge("demo", "--offline", "--backend", "openai")
    assert code == 1 and "contradict" in err
