"""Another server on 127.0.0.1 gets nothing from the browser that used the dashboard: what it saw opens nothing.

Cookies ignore ports: every server on 127.0.0.1 receives the browser's cookies for 127.0.0.1. The dashboard
sets none; its session lives in the tab's sessionStorage (per origin, so per port) and travels as a header
only to its own origin. This runs a capturing server on another port, sends the same browser there after it
used the dashboard, and replays everything captured against the dashboard.
"""

from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.support.dashboard import Dashboard
from tests.support.durable import person, propose


class Capture(ThreadingHTTPServer):
    """A local server on another port that records every request the browser sends it."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, dict[str, str]]] = []
        self.dashboard_port = 0
        super().__init__(("127.0.0.1", 0), Handler)


class Handler(BaseHTTPRequestHandler):
    server: Capture

    def log_message(self, *args: object) -> None:
        pass

    def _record(self) -> None:
        self.server.seen.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self._record()
        dash = self.server.dashboard_port
        page = (
            "<!doctype html><title>elsewhere</title><img src='/pixel.png'>"
            f"<img src='http://127.0.0.1:{dash}/api/durable'>"
            f"<script>fetch('http://127.0.0.1:{dash}/api/durable', {{credentials: 'include'}}).catch(() => 0);"
            f"fetch('/echo', {{credentials: 'include'}}).then(() => document.title = 'done');</script>"
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)


@pytest.fixture
def capture():
    server = Capture()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def replay(port: int, method: str, path: str, headers: dict[str, str], body: bytes | None = None) -> int:
    """Send ``headers`` (as captured, with the dashboard's own Host and Origin) to the dashboard; the status."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    send = {k: v for k, v in headers.items() if k not in ("host", "origin", "content-length")}
    send.update({"Host": f"127.0.0.1:{port}", "Origin": f"http://127.0.0.1:{port}"})
    if body is not None:
        send["Content-Type"] = "application/json"
    conn.request(method, path, body=body, headers=send)
    status = conn.getresponse().status
    conn.close()
    return status


def test_another_local_server_captures_nothing_that_opens_the_dashboard(browser, planned, capture):
    """After the browser used the dashboard, a server on another 127.0.0.1 port sees no cookie and no session, and
    every request it captured, replayed against the dashboard, is refused (401) and decides nothing."""
    person()
    rid = propose("Keep commits small.", None)
    with Dashboard(planned, session=False) as dash:
        capture.dashboard_port = dash.port
        browser.get(dash.url)
        WebDriverWait(browser, 30).until(lambda d: "Project" in d.find_element(By.ID, "project").text)
        session = browser.execute_script("return sessionStorage.getItem('autopilot-dashboard-session')")
        assert session
        browser.get(f"http://127.0.0.1:{capture.server_address[1]}/")
        WebDriverWait(browser, 30).until(lambda d: d.title == "done")
        assert len(capture.seen) >= 2
        for _method, _path, headers in capture.seen:
            assert "cookie" not in headers and "authorization" not in headers
            assert session not in " ".join(headers.values())
            assert replay(dash.port, "GET", "/api/durable", headers) == 401
            body = b'{"person": "Mallory", "secret": ""}'
            assert replay(dash.port, "POST", f"/api/durable/{rid}/approve", headers, body) == 401
        status, listing, _ = dash.request(
            "GET", "/api/durable", headers={"Authorization": f"Bearer {session}"}, auth=False
        )
    assert status == 200 and listing["rules"][0]["status"] == "candidate"
