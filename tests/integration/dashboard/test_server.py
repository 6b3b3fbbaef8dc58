"""The dashboard process ended by a signal while a request reads Codex's sessions: no codex of ours is left."""

from __future__ import annotations

import os
import re
import shlex
import signal
import stat
import sys
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from tests.support.dashboard import Dashboard
from tests.support.fake_codex import alive, fake_codex, reap
from tests.support.second_user import as_user, second_user


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_dashboard_ended_mid_request_stops_the_codex_app_server_it_started(git_repo, tmp_path, signum):
    """SIGTERM or SIGHUP while a request waits on a `codex app-server` that never answers: the dashboard exits and
    takes that app server with it."""
    bin_dir = tmp_path / "bin"
    fake_codex(bin_dir, "silent")
    try:
        with Dashboard(git_repo, env={"AUTOPILOT_CODEX_BIN": str(bin_dir / "codex")}) as board:
            threading.Thread(
                target=lambda: board.request("GET", "/api/sources/codex?source=app-server"), daemon=True
            ).start()
            deadline = time.monotonic() + 30
            while not alive(bin_dir) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert alive(bin_dir), "the app server never started"
            assert board.proc is not None
            board.proc.send_signal(signum)
            board.proc.wait(timeout=30)
        assert alive(bin_dir) == []
    finally:
        reap(bin_dir)


# --- The dashboard's launch code never stands on a command line: another local user can neither read it nor win it.
FAKE_BROWSER = """
import os, sys, time
open(sys.argv[1], "w").write(f"{os.getpid()}\\n" + "\\n".join(sys.argv[2:]))
time.sleep(60)
"""


def fake_browser(tmp_path: Path) -> tuple[str, Path]:
    """A ``$BROWSER`` command that records what it is started with (its pid, then its arguments) and stays alive."""
    script = tmp_path / "browser.py"
    script.write_text(FAKE_BROWSER)
    record = tmp_path / "opened"
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} {shlex.quote(str(record))} %s", record


def started_browser(record: Path) -> tuple[int, list[str]]:
    deadline = time.monotonic() + 20
    while not record.exists() or "\n" not in record.read_text():
        assert time.monotonic() < deadline, "the dashboard never started the browser"
        time.sleep(0.1)
    pid, *argv = record.read_text().split("\n")
    return int(pid), argv


def test_another_local_user_can_neither_read_nor_win_the_browsers_launch_code(git_repo, tmp_path):
    """The second user reads the browser's command line (no code in it) and cannot open the page it names; the
    person's browser reads the page and trades its code for a session."""
    browser, record = fake_browser(tmp_path)
    with Dashboard(git_repo, session=False, browser=browser) as dash:
        pid, argv = started_browser(record)
        page = Path(unquote(urlparse(argv[0]).path))
        assert argv[0].startswith("file://") and "code=" not in " ".join(argv)
        assert stat.S_IMODE(page.stat().st_mode) == 0o600 and stat.S_IMODE(page.parent.stat().st_mode) == 0o700

        def steal() -> dict[str, object]:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                seen = fh.read().decode(errors="replace")
            try:
                page.read_text()
                read = "read"
            except PermissionError:
                read = "refused"
            return {"cmdline": seen, "page": read}

        with second_user() as user:
            stolen = as_user(user, {"PATH": os.environ["PATH"]}, steal)
        assert str(page) in stolen["cmdline"] and "code=" not in stolen["cmdline"] and stolen["page"] == "refused"
        [code] = re.findall(r"#code=([\w-]+)", page.read_text())[:1]
        assert code != dash.code  # the page's code is its own: the printed one is the terminal's
        assert dash.exchange(code)
        os.kill(pid, 9)
    assert not page.exists()  # removed when the dashboard stopped
