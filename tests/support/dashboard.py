"""A real `codex-bridge dashboard` process for tests: its address, a session traded for its code, raw HTTP, Ctrl-C.

``Dashboard(dir)`` starts it and, unless ``session=False``, trades the printed launch code for a session as
the page does (``POST /api/session``); ``request`` sends that session as the bearer token.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import jsonschema
import referencing

from tests.support.repo import SRC
from tests.support.terminal import as_started_from_a_terminal
from tests.support.world import World


class Dashboard:
    """``codex-bridge -C DIR dashboard --no-open`` as a subprocess, started in ``__enter__``."""

    def __init__(
        self, directory: Path, *, env: dict[str, str] | None = None, session: bool = True, browser: str | None = None
    ) -> None:
        """``browser``: a command the dashboard opens its page with (``$BROWSER``), instead of ``--no-open``."""
        self.directory = directory
        self.browser = browser
        self.env = {**os.environ, "PYTHONPATH": str(SRC), **(env or {})}
        for name in ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT"):  # the test runner may itself run inside an agent
            if env is None or name not in env:
                self.env.pop(name, None)
        self.proc: subprocess.Popen[str] | None = None
        self.stopped: tuple[int, str] | None = None
        self.url = self.code = self.token = ""
        self.with_session = session
        self.port = 0

    def __enter__(self) -> Dashboard:
        opening = ["--no-open"] if self.browser is None else []
        if self.browser is not None:
            self.env["BROWSER"] = self.browser
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "autopilot", "-C", str(self.directory), "dashboard", *opening],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=self.env,
            preexec_fn=as_started_from_a_terminal,
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        if not self.url:
            raise RuntimeError(f"the dashboard did not start: {self.proc.stderr.read() if self.proc.stderr else ''}")
        parsed = urlparse(self.url)
        self.port = parsed.port or 0
        self.code = parsed.fragment.removeprefix("code=")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # the URL is printed just before uvicorn accepts
            try:
                self.request("GET", "/static/app.js", auth=False)
                break
            except OSError:
                time.sleep(0.05)
        if self.with_session:
            self.token = self.exchange(self.code)
        return self

    def new_code(self) -> str:
        """A fresh one-time launch code, as Enter at the dashboard's terminal prints one."""
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        return urlparse(self.proc.stdout.readline().strip()).fragment.removeprefix("code=")

    def exchange(self, code: str) -> str:
        """Trade a launch code for a session, as the page does; the session (a failed exchange fails the test)."""
        status, body, _ = self.request(
            "POST", "/api/session", {"code": code}, headers={"Origin": f"http://127.0.0.1:{self.port}"}, auth=False
        )
        assert status == 200, (status, body)
        return str(body["session"])

    def stop(self) -> tuple[int, str]:
        """Ctrl-C (SIGINT to the process, by its pid); return its exit code and stderr."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            code = self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        if self.stopped is None:  # the first stop reads stderr and closes the pipes; a second one repeats its answer
            self.stopped = (code, self.proc.stderr.read() if self.proc.stderr else "")
            for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                if pipe is not None:
                    pipe.close()
        return self.stopped

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        headers: dict[str, str] | None = None,
        auth: bool = True,
    ) -> tuple[int, Any, dict[str, str]]:
        """A raw request (the client sets nothing but what is given); returns status, JSON (or text), headers."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        send = {"Host": f"127.0.0.1:{self.port}"}
        if auth:
            send["Authorization"] = f"Bearer {self.token}"
        if body is not None:
            send["Content-Type"] = "application/json"
        send.update(headers or {})
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for k, v in send.items():
            conn.putheader(k, v)
        if data is not None:
            conn.putheader("Content-Length", str(len(data)))
        conn.endheaders(data)
        resp = conn.getresponse()
        raw = resp.read()
        conn.close()
        try:
            parsed: Any = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode("utf-8", "replace")
        return resp.status, parsed, {k.lower(): v for k, v in resp.getheaders()}

    def get(self, path: str, **kw: Any) -> Any:
        """GET ``path`` with the bearer token; the JSON of a 200 answer (anything else fails)."""
        status, body, _ = self.request("GET", path, **kw)
        assert status == 200, (status, body)
        return body

    def post(self, path: str, body: Any = None, **kw: Any) -> tuple[int, Any]:
        """POST ``path`` with the bearer token and the dashboard's own Origin; status and JSON."""
        headers = {"Origin": f"http://127.0.0.1:{self.port}", **kw.pop("headers", {})}
        status, answer, _ = self.request("POST", path, {} if body is None else body, headers=headers, **kw)
        return status, answer


@contextmanager
def serving(world: World) -> Iterator[Dashboard]:
    """One dashboard process over ``world`` (``world.built`` is its directory), started once with the environment a
    test of the world has: whatever a test restored is what it serves."""
    with world.environment():
        dashboard = Dashboard(world.built)
    with dashboard:
        yield dashboard


def schema_validator(name: str) -> jsonschema.Draft202012Validator:
    """A validator for ``dashboard/schemas/<name>.json``, with the package's other schemas resolvable."""
    folder = resources.files("autopilot.dashboard").joinpath("schemas")
    docs = {p.name: json.loads(p.read_text()) for p in folder.iterdir() if p.name.endswith(".json")}
    registry = referencing.Registry().with_resources(
        (n, referencing.Resource.from_contents(d, default_specification=referencing.jsonschema.DRAFT202012))
        for n, d in docs.items()
    )
    return jsonschema.Draft202012Validator(docs[f"{name}.json"], registry=registry)


def check(name: str, answer: Any) -> Any:
    """``answer`` when it matches the published schema ``name`` (else the first error fails the test)."""
    errors = sorted(schema_validator(name).iter_errors(answer), key=lambda e: list(e.path))
    assert not errors, f"{name}: {errors[0].message} at {list(errors[0].path)}"
    return answer


CHECKPOINT = {
    "objective": "Make the parser accept empty input.",
    "next_action": "add a regression test for empty input",
    "unresolved": ["parse('') still raises"],
}


def record_checkpoint(bridge: Any, project: Path, session: str) -> None:
    """Store :data:`CHECKPOINT` for a Claude session of ``project`` through `handoff checkpoint`."""
    code, _, err = bridge(
        "handoff", "checkpoint", "--agent", "claude", "--session", session, "--file", "-",
        stdin=json.dumps(CHECKPOINT), cwd=project,
    )  # fmt: skip
    assert code == 0, err
