"""Who can talk to the dashboard: the token, the Host header, the Origin, id shapes, and where it listens."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from autopilot.durable.store import Log
from tests.support.dashboard import Dashboard, check
from tests.support.loop import state_of

GETS = [
    "/",
    "/static/app.js",
    "/api/overview",
    "/api/runs",
    "/api/sources/claude",
    "/api/packets",
    "/api/durable",
    "/api/memory/active",
    "/api/search?q=x",
]


@pytest.fixture
def dash(planned):
    with Dashboard(planned) as d:
        yield d


def cookie_of(dash) -> str:
    """Trade the launch token for the page's session cookie, as the browser does; return the Cookie header."""
    status, _, headers = dash.request("GET", f"/?token={dash.token}", auth=False)
    assert status == 303 and headers["location"] == "/"
    return headers["set-cookie"].split(";")[0]


@pytest.mark.parametrize("path", GETS)
def test_no_token_is_401(dash, path):
    """Without the token (no cookie, no bearer) every page and API answers 401."""
    status, body, _ = dash.request("GET", path, auth=False)
    assert status == 401 and "token" in body["error"]


@pytest.mark.parametrize(
    "headers",
    [
        {"Authorization": "Bearer wrong-token"},
        {"Cookie": "autopilot_dashboard_{port}=wrong-session"},
        {"Cookie": "autopilot_dashboard_{port}={token}"},  # the URL token is not the session
    ],
    ids=["bearer", "cookie", "token-as-cookie"],
)
def test_a_wrong_token_is_401(dash, headers):
    """A wrong bearer token or session cookie is refused with 401."""
    filled = {k: v.format(port=dash.port, token=dash.token) for k, v in headers.items()}
    status, _, _ = dash.request("GET", "/api/runs", headers=filled, auth=False)
    assert status == 401


def test_a_wrong_token_in_the_url_is_401_and_sets_no_cookie(dash):
    """Opening the page with a wrong token is refused and no cookie is set."""
    status, _, headers = dash.request("GET", "/?token=not-the-token", auth=False)
    assert status == 401 and "set-cookie" not in headers


def test_the_token_is_traded_for_a_strict_httponly_cookie(dash):
    """The right token answers 303 to / with an HttpOnly, SameSite=Strict session cookie that opens the API."""
    status, _, headers = dash.request("GET", f"/?token={dash.token}", auth=False)
    cookie = headers["set-cookie"]
    assert status == 303 and "HttpOnly" in cookie and "SameSite=Strict" in cookie and dash.token not in cookie
    status, _, _ = dash.request("GET", "/api/runs", headers={"Cookie": cookie.split(";")[0]}, auth=False)
    assert status == 200


HOSTS = ["evil.example", "evil.example:{port}", "127.0.0.1:1", "localhost.evil.example:{port}"]


@pytest.mark.parametrize("host", HOSTS)
def test_a_foreign_host_header_is_403_even_with_the_token(dash, host):
    """A request naming any host but 127.0.0.1 or localhost on this port (DNS rebinding) is 403."""
    status, _, _ = dash.request("GET", "/api/runs", headers={"Host": host.format(port=dash.port)})
    assert status == 403


def test_localhost_on_its_port_is_accepted(dash):
    """localhost:PORT is the same dashboard."""
    status, _, _ = dash.request("GET", "/api/runs", headers={"Host": f"localhost:{dash.port}"})
    assert status == 200


def test_a_state_changing_request_from_a_foreign_origin_is_403(dash, bridge, planned):
    """A stop sent from another origin is refused even with a valid cookie, and the run keeps running."""
    run = Path(state_of(bridge, planned)["run_dir"]).name
    for origin in ("http://evil.example", "null", f"http://127.0.0.1:{dash.port + 1}"):
        status, _, _ = dash.request(
            "POST", f"/api/runs/{run}/stop", {}, headers={"Origin": origin, "Cookie": cookie_of(dash)}, auth=False
        )
        assert status == 403
    assert state_of(bridge, planned)["status"] == "running"


def test_a_cookie_post_without_an_origin_is_403(dash, bridge, planned):
    """The page always sends its Origin; a cookie-carrying POST without one is refused."""
    run = Path(state_of(bridge, planned)["run_dir"]).name
    status, _, _ = dash.request("POST", f"/api/runs/{run}/stop", {}, headers={"Cookie": cookie_of(dash)}, auth=False)
    assert status == 403 and state_of(bridge, planned)["status"] == "running"


def test_a_cross_site_fetch_is_403(dash):
    """Sec-Fetch-Site: cross-site is refused whatever else the request carries."""
    status, _, _ = dash.request("GET", "/api/runs", headers={"Sec-Fetch-Site": "cross-site"})
    assert status == 403


def test_no_cors(dash):
    """A preflight is 405 and no answer ever carries an Access-Control header."""
    status, _, headers = dash.request(
        "OPTIONS", "/api/runs", headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}
    )
    assert status == 405 and not [h for h in headers if h.startswith("access-control-")]
    _, _, headers = dash.request("GET", "/api/runs", headers={"Origin": f"http://127.0.0.1:{dash.port}"})
    assert not [h for h in headers if h.startswith("access-control-")]


def test_every_answer_carries_the_safety_headers(dash):
    """Pages and API answers carry a strict CSP, nosniff, no-referrer, DENY framing and no-store."""
    _, _, headers = dash.request("GET", "/")
    assert (
        "default-src 'none'" in headers["content-security-policy"]
        and "frame-ancestors 'none'" in (headers["content-security-policy"])
    )
    assert (headers["x-content-type-options"], headers["referrer-policy"], headers["x-frame-options"]) == (
        "nosniff",
        "no-referrer",
        "DENY",
    )
    assert headers["cache-control"] == "no-store"


BAD_PATHS = [
    "/api/runs/../../etc/passwd",
    "/api/runs/%2e%2e%2f%2e%2e%2fetc",
    "/api/runs//etc/passwd",
    "/api/runs/run-0123456789ab%00",
    "/api/packets/../../../etc/passwd",
    "/api/packets/%2Fetc%2Fpasswd",
    "/api/packets/sha256:0123456789ab%00",
    "/api/sources/claude/../../secret",
    "/api/sources/claude/%2Fetc%2Fpasswd",
    "/api/sources/claude/abcd%00efgh",
    "/api/sources/..%2F..",
    "/api/runs/x?y",
]


@pytest.mark.parametrize("path", BAD_PATHS)
def test_malformed_or_path_like_ids_are_400(dash, path):
    """`../`, absolute paths, NUL and other shapes that are not ids are refused with 400 before any file is read."""
    status, body, _ = dash.request("GET", path)
    assert status == 400, body
    check("error", body)


@pytest.mark.parametrize(
    "path,body",
    [
        ("/api/export", {"agent": "claude", "session": "../../etc/passwd", "to": "codex"}),
        ("/api/export", {"agent": "claude", "session": "/etc/passwd", "to": "codex"}),
        ("/api/export", {"agent": "claude", "session": "abcd\u0000efgh", "to": "codex"}),
        ("/api/export", {"agent": "../claude", "session": "abcdefgh", "to": "codex"}),
        ("/api/packets/0123456789abcdef/import", {"to": "codex", "session": "../x"}),
        ("/api/durable", {"packet": "../../etc/passwd", "constraint": 0}),
        ("/api/durable", {"text": "a rule", "supersedes": "../R-0123"}),
        ("/api/durable/..%2F..%2Fx/revoke", {"person": "A", "confirm": "A"}),
        ("/api/runs/..%2Fx/stop", {}),
    ],
)
def test_malformed_ids_in_actions_are_400_and_change_nothing(dash, path, body):
    """Ids in bodies and action paths are checked by shape: 400, nothing written (sent as the page sends them)."""
    headers = {"Cookie": cookie_of(dash), "Origin": f"http://127.0.0.1:{dash.port}"}
    status, answer, _ = dash.request("POST", path, body, headers=headers, auth=False)
    assert status == 400, answer
    assert Log().listing()["rules"] == []


def test_a_body_that_is_not_a_json_object_is_400(dash):
    """A body that is not JSON, or not an object, is a 400."""
    for raw in (b"{not json", b"[1, 2]"):
        status, body, _ = dash.request("POST", "/api/durable", raw, headers={"Origin": f"http://127.0.0.1:{dash.port}"})
        assert status == 400 and "JSON" in body["error"]


def test_the_server_listens_on_127_0_0_1_only(dash):
    """The listening socket is 127.0.0.1:PORT: other loopback addresses and IPv6 are refused."""
    listening = [line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:]]
    ours = [f[1] for f in listening if f[3] == "0A" and int(f[1].split(":")[1], 16) == dash.port]
    assert ours == [f"0100007F:{dash.port:04X}"]
    six = [line.split() for line in Path("/proc/net/tcp6").read_text().splitlines()[1:]]
    assert [f for f in six if f[3] == "0A" and int(f[1].split(":")[1], 16) == dash.port] == []
    for family, address in ((socket.AF_INET, "127.0.0.2"), (socket.AF_INET6, "::1")):
        with socket.socket(family, socket.SOCK_STREAM) as s, pytest.raises(OSError):
            s.settimeout(2)
            s.connect((address, dash.port))


def test_approval_needs_the_cookie_and_the_typed_name(dash):
    """With the page's cookie and Origin, a mismatched confirmation is 400; the matching one approves as that person."""
    rid = Log().propose("rule", "Keep commits small.", by="x", channel="cli")["id"]
    headers = {"Cookie": cookie_of(dash), "Origin": f"http://127.0.0.1:{dash.port}"}
    path = f"/api/durable/{rid}/approve"
    status, body, _ = dash.request("POST", path, {"person": "Ada", "confirm": "Bob"}, headers=headers, auth=False)
    assert status == 400 and "does not match" in body["error"]
    status, body, _ = dash.request("POST", path, {"person": "Ada", "confirm": "Ada"}, headers=headers, auth=False)
    assert status == 200 and (body["status"], body["approved"]["person"], body["approved"]["channel"]) == (
        "approved",
        "Ada",
        "dashboard",
    )
