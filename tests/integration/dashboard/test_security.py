"""Who can talk to the dashboard: the one-time launch code, the session, Host, Origin, body size, id shapes, where it
listens, and deciding only with the person's passphrase (every attack tried over HTTP, as a script or a local server
would)."""

from __future__ import annotations

import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from autopilot.dashboard.security import CODE_TTL_S, Guard, LaunchRefused
from autopilot.knowledge.durable.store import Log
from tests.support.dashboard import Dashboard, check, serving
from tests.support.durable import PASSPHRASE, person, propose
from tests.support.loop import plan_two_tasks, state_of
from tests.support.world import copy_tree, scripted_world

GETS = [
    "/api/overview",
    "/api/runs",
    "/api/sources/claude",
    "/api/packets",
    "/api/durable",
    "/api/memory/active",
    "/api/search?q=x",
]


@pytest.fixture(scope="module")
def planned_world(tmp_path_factory, git_repo_template):
    """A repository with a running two-task plan, built once for the module (``planned`` gives each test a copy)."""
    with scripted_world(tmp_path_factory, "planned") as (world, server):
        with world.building():
            world.built = plan_two_tasks(server, copy_tree(git_repo_template, world.work / "repo"))
        yield world


@pytest.fixture
def planned(planned_world, openai_env, monkeypatch):
    """The module's planned repository, as built (this test's own copy)."""
    return planned_world.restore(monkeypatch).built


@pytest.fixture(scope="module")
def served(planned_world):
    """One dashboard process over the module's world, started once: each test's copy is what it serves."""
    with serving(planned_world) as dashboard:
        yield dashboard


@pytest.fixture
def dash(served, planned):
    """The module's dashboard, with a session, over this test's copy of the planned repository."""
    return served


def origin(dash) -> dict[str, str]:
    return {"Origin": f"http://127.0.0.1:{dash.port}"}


@pytest.mark.parametrize("path", GETS)
def test_no_session_is_401(dash, path):
    """Without a session every API answers 401."""
    status, body, _ = dash.request("GET", path, auth=False)
    assert status == 401 and "session" in body["error"]


def test_the_page_and_its_files_hold_no_data_and_need_no_session(dash):
    """The page and its script load without a session (it asks for one); no API answer does."""
    assert [dash.request("GET", p, auth=False)[0] for p in ("/", "/static/app.js", "/static/style.css")] == [200] * 3


@pytest.mark.parametrize(
    "headers",
    [
        {"Authorization": "Bearer wrong-session"},
        {"Authorization": "Bearer {code}"},  # the launch code is not a session
        {"Cookie": "autopilot_dashboard_{port}={session}"},  # no cookie opens anything, even the session's value
        {"Authorization": "Basic {session}"},
    ],
    ids=["wrong", "code-as-session", "session-as-cookie", "not-bearer"],
)
def test_anything_but_a_live_session_as_bearer_is_401(dash, headers):
    """Wrong sessions, the launch code itself, any cookie and other schemes are refused with 401."""
    filled = {k: v.format(port=dash.port, code=dash.code, session=dash.token) for k, v in headers.items()}
    status, _, _ = dash.request("GET", "/api/runs", headers=filled, auth=False)
    assert status == 401


def test_the_launch_code_is_in_the_fragment_never_the_query(dash):
    """The printed address carries the code after #, which a browser never sends to any server."""
    assert dash.url == f"http://127.0.0.1:{dash.port}/#code={dash.code}" and len(dash.code) == 32


def test_the_launch_code_works_once(planned):
    """A second exchange of the same code is refused, and ends the session the first one made."""
    with Dashboard(planned) as d:
        status, body, _ = d.request("POST", "/api/session", {"code": d.code}, headers=origin(d), auth=False)
        assert status == 401 and "already used" in body["error"]
        assert d.request("GET", "/api/runs")[0] == 401


def test_a_code_expires_within_two_minutes():
    """Past its two minutes a code is refused even unused (the guard's clock is moved, not waited for)."""
    now = [1000.0]
    guard = Guard(1234, clock=lambda: now[0])
    now[0] += CODE_TTL_S + 1
    with pytest.raises(LaunchRefused, match="expired"):
        guard.exchange(guard.code)
    assert CODE_TTL_S <= 120


def test_a_code_from_another_dashboard_opens_nothing(planned):
    """A launch code or session of one dashboard (an agent's own, say) is refused by another."""
    with Dashboard(planned) as mine, Dashboard(planned, session=False) as theirs:
        status, _, _ = theirs.request("POST", "/api/session", {"code": mine.code}, headers=origin(theirs), auth=False)
        assert status == 401
        assert (
            theirs.request("GET", "/api/runs", headers={"Authorization": f"Bearer {mine.token}"}, auth=False)[0] == 401
        )


def test_the_code_exchange_refuses_a_foreign_origin(planned):
    """A web page elsewhere cannot trade a code: a foreign Origin is 403 and the code stays unused."""
    with Dashboard(planned, session=False) as d:
        status, _, _ = d.request("POST", "/api/session", {"code": d.code}, headers={"Origin": "http://evil.example"})
        assert status == 403
        assert d.exchange(d.code)


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
    """A stop sent from another origin is refused even with a live session, and the run keeps running."""
    run = Path(state_of(bridge, planned)["run_dir"]).name
    for other in ("http://evil.example", "null", f"http://127.0.0.1:{dash.port + 1}"):
        status, _, _ = dash.request("POST", f"/api/runs/{run}/stop", {}, headers={"Origin": other})
        assert status == 403
    assert state_of(bridge, planned)["status"] == "running"


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
        ("/api/durable/..%2F..%2Fx/revoke", {"person": "A", "secret": "A"}),
        ("/api/runs/..%2Fx/stop", {}),
    ],
)
def test_malformed_ids_in_actions_are_400_and_change_nothing(dash, path, body):
    """Ids in bodies and action paths are checked by shape: 400, nothing written (sent as the page sends them)."""
    status, answer, _ = dash.request("POST", path, body, headers=origin(dash))
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


def approve_over_http(dash, rid: str, passphrase: str, name: str = "Ada") -> tuple[int, dict]:
    status, body, _ = dash.request(
        "POST", f"/api/durable/{rid}/approve", {"person": name, "secret": passphrase}, headers=origin(dash)
    )
    return status, body


def test_the_person_approves_with_their_passphrase(dash):
    """With a session, the person's name and passphrase approve the rule as theirs, at the dashboard."""
    person()
    rid = propose("Keep commits small.", None)
    status, body = approve_over_http(dash, rid, PASSPHRASE)
    assert status == 200 and (body["status"], body["approved"]["person"], body["approved"]["channel"]) == (
        "approved",
        "Ada",
        "dashboard",
    )


def test_a_session_without_the_passphrase_approves_nothing(dash):
    """A live session (the agent started this dashboard itself, with its markers unset) is no passphrase: 403."""
    person()
    rid = propose("Keep commits small.", None)
    status, body = approve_over_http(dash, rid, "a guess at it, wrong")
    assert status == 403 and "not the approval passphrase" in body["error"]
    assert Log().view()["rules"][rid]["status"] == "candidate"


def test_parallel_requests_check_one_guess_and_make_the_rest_wait(dash):
    """Sixteen approvals at once with wrong passphrases: one is checked (403), fifteen meet the wait (429)."""
    person()
    rid = propose("Keep commits small.", None)
    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(lambda n: approve_over_http(dash, rid, f"guess number {n:04d}")[0], range(16)))
    assert sorted(answers) == [403] + [429] * 15 and Log().view()["rules"][rid]["status"] == "candidate"


def test_a_dashboard_started_in_an_agents_shell_decides_nothing(planned):
    """Started with CLAUDECODE set, the dashboard refuses decisions even with the right passphrase."""
    person()
    rid = propose("Keep commits small.", None)
    with Dashboard(planned, env={"CLAUDECODE": "1"}) as d:
        status, body = approve_over_http(d, rid, PASSPHRASE)
    assert status == 400 and "inside an agent's shell" in body["error"]
    assert Log().view()["rules"][rid]["status"] == "candidate"


# -- bodies refused as they arrive ---------------------------------------------------------------------------


def rss_kb(pid: int) -> int:
    """The process's peak resident memory (VmHWM), in KiB."""
    line = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("VmHWM:"))
    return int(line.split()[1])


def raw_post(dash, framing: str, body_chunks, *, timeout: float = 20.0) -> tuple[bytes, int]:
    """POST /api/durable with the session and ``framing`` (a Content-Length or Transfer-Encoding header), sending as
    much of the body as the server takes; (the answer's bytes, body bytes sent)."""
    head = (
        f"POST /api/durable HTTP/1.1\r\nHost: 127.0.0.1:{dash.port}\r\nAuthorization: Bearer {dash.token}\r\n"
        f"Origin: http://127.0.0.1:{dash.port}\r\nContent-Type: application/json\r\n{framing}\r\n\r\n"
    ).encode()
    sent = 0
    with socket.create_connection(("127.0.0.1", dash.port), timeout=timeout) as sock:
        sock.sendall(head)
        try:
            for chunk in body_chunks:
                sock.sendall(chunk)
                sent += len(chunk)
        except OSError:
            pass  # the server answered and closed: exactly what is wanted
        answer = b""
        try:
            while True:
                data = sock.recv(65536)
                if not data:
                    break
                answer += data
        except OSError:
            pass
    return answer, sent


def test_a_declared_100_mb_body_is_refused_before_it_is_read(dash):
    """Content-Length: 100 MB is answered 413 at once, the connection closed, the server's memory unchanged."""
    before = rss_kb(dash.proc.pid)
    answer, sent = raw_post(dash, "Content-Length: 100000000", (b"x" * 65536 for _ in range(1526)))
    assert answer.startswith(b"HTTP/1.1 413") and sent < 100_000_000
    assert rss_kb(dash.proc.pid) - before < 20_000


def test_a_chunked_body_is_refused_as_it_passes_64_kib(dash):
    """A chunked body with no length is cut off once it passes 64 KiB: 413, long before 100 MB were read."""
    before = rss_kb(dash.proc.pid)
    chunk = b"10000\r\n" + b"x" * 65536 + b"\r\n"
    started = time.monotonic()
    answer, sent = raw_post(dash, "Transfer-Encoding: chunked", (chunk for _ in range(1526)))
    assert answer.startswith(b"HTTP/1.1 413") and sent < 100_000_000 and time.monotonic() - started < 20
    assert rss_kb(dash.proc.pid) - before < 20_000


def test_a_body_just_under_the_limit_is_read(dash):
    """A 60 KiB proposal is read and judged on its content (too long a text: 400), not refused for its size."""
    status, body, _ = dash.request("POST", "/api/durable", {"text": "x" * 60_000}, headers=origin(dash))
    assert status == 400 and "characters" in body["error"]
