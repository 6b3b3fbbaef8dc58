"""Handoff sources and packets against the real codex: its app server (read-only) and its rollouts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from autopilot.handoff.packets.store import resolve
from autopilot.handoff.sources import Limits, appserver, catalog
from autopilot.handoff.sources.codex import CodexSource
from autopilot.handoff.sources.project import Project
from autopilot.scripted.responses_server import reply_text, tool_call
from tests.fixtures.make_codex_fixtures import rig
from tests.support.agents import agent_bin, agent_version
from tests.support.handoff_env import claude_session, sources_state

pytestmark = pytest.mark.e2e


@pytest.fixture
def r(monkeypatch, tmp_path):
    """A CODEX_HOME the real codex writes, with a git work dir, and the bridge pointed at both."""
    codex = agent_bin("codex")
    with rig(under=tmp_path) as rg:
        for args in (
            ["init", "-q", "-b", "main"],
            ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"],
        ):
            subprocess.run(["git", "-C", str(rg.work), *args], check=True)
        monkeypatch.setenv("CODEX_HOME", str(rg.home))
        monkeypatch.setenv("AUTOPILOT_CODEX_BIN", str(codex))
        yield rg


def exec_thread(rg, prompt: str, *steps, cwd: Path | None = None) -> str:
    """Run one real `codex exec` turn against scripted answers and return its thread id."""
    rg.srv.push(*steps)
    if cwd is None:
        return rg.thread_id(rg.exec("--json", "--skip-git-repo-check", prompt))
    saved, rg.work = rg.work, cwd
    try:
        return rg.thread_id(rg.exec("--json", "--skip-git-repo-check", prompt))
    finally:
        rg.work = saved


def test_app_server_lists_only_this_worktrees_threads_and_only_reads(r):
    """Listing through the real app server finds this worktree's exec thread, sends only reads, calls no model."""
    here = exec_thread(r, "Work here", reply_text("Here."))
    other_dir = r.home.parent / "other"
    other_dir.mkdir()
    exec_thread(r, "Work elsewhere", reply_text("There."), cwd=other_dir)
    before, requests = sources_state(), len(r.srv.requests)
    server = appserver.AppServer()
    listing = appserver.sessions(Project(str(r.work)), Limits(), server=server)
    assert [s["threadId"] for s in listing["sessions"]] == [here]
    assert listing["sessions"][0]["source"] == "exec"
    assert set(server.sent) <= appserver.READ_METHODS and "thread/list" in server.sent
    assert len(r.srv.requests) == requests
    rollouts = {p: v for p, v in before.items() if "/sessions/" in p}
    assert {p: v for p, v in sources_state().items() if p in rollouts} == rollouts


def test_app_server_read_agrees_with_the_local_rollout(r):
    """The same thread read through the app server and from its rollout gives the same messages and command."""
    tid = exec_thread(
        r,
        "Run a check",
        tool_call("exec_command", {"cmd": "echo e2e-check"}, call_id="call_chk"),
        reply_text("Checked."),
    )
    requests = len(r.srv.requests)
    project = Project(str(r.work))
    server = appserver.AppServer()
    remote = appserver.AppServerSource(server).read(project, tid, cursor=None, limit=20, limits=Limits())
    local = CodexSource().read(project, tid, before=None, limit=20, limits=Limits())

    def messages(page):
        return [(e["kind"], e["text"]) for e in page["events"] if e["kind"] in ("user", "assistant")]

    assert messages(remote) == messages(local) == [("assistant", "Checked."), ("user", "Run a check")]
    gaps = [g["kind"] for g in remote["coverage"]["gaps"]]
    if server.version is not None and server.version < appserver.COMMANDS_IN_HISTORY:
        # older app servers drop the command from the history: said as a gap, and `auto` reads the rollout
        assert gaps == [appserver.COMMANDS_MISSING] and not any(e["kind"] == "tool" for e in remote["events"])
        auto = catalog.read("codex", project, tid, Limits(), limit=20)
        assert auto["sourceUsed"] == "local" and "command runs" in auto["sourceNote"]
        assert any("e2e-check" in e["tool"]["command"] for e in auto["events"] if e["kind"] == "tool")
        return
    assert gaps == []
    tool = next(e["tool"] for e in remote["events"] if e["kind"] == "tool")
    assert ("e2e-check" in tool["command"], tool["result"]["exitCode"], tool["status"]) == (True, 0, "completed")
    assert (remote["session"]["threadId"], remote["session"]["sessionId"]) == (tid, tid)
    assert set(server.sent) == {"initialize", "thread/read", "thread/turns/list"}
    assert len(r.srv.requests) == requests


def test_app_server_refuses_a_write_method_before_sending_it():
    """turn/start is refused by the client itself: it never reaches the server."""
    server = appserver.AppServer(binary="/nonexistent/codex")
    with pytest.raises(Exception, match="refused to call turn/start"):
        server.call("turn/start", {"threadId": "x", "input": []})
    assert server.sent == []


def test_app_server_packet_is_inspectable_but_not_importable(r, bridge):
    """export --source app-server makes a packet that inspect verifies and import refuses."""
    tid = exec_thread(r, "Fix the parser", reply_text("Next: add a test."))
    code, out, err = bridge(
        "handoff", "export", "--from", "codex", "--session", tid, "--to", "claude", "--source", "app-server", cwd=r.work
    )
    assert code == 0, err
    pid = json.loads(out)["packet"]
    packet = json.loads(resolve(pid).read_bytes())
    assert (packet["source"]["kind"], packet["source"]["hash"], packet["objective"]["text"]) == (
        "app-server",
        None,
        "Fix the parser",
    )
    assert packet["nextAction"]["text"] == "add a test."
    code, out, _ = bridge("handoff", "inspect", pid, cwd=r.work)
    assert (code, json.loads(out)["importable"]) == (0, False)
    code, _, err = bridge(
        "handoff",
        "import",
        pid,
        "--to",
        "claude",
        "--session",
        "88888888-8888-4888-8888-888888888888",
        "--new-session",
        cwd=r.work,
    )
    assert code == 1 and "app server" in err


def test_round_trip_through_a_real_codex_session(r, bridge):
    """Claude packet -> imported into a real codex thread -> that thread exported back keeps objective and links."""
    claude_path = claude_session("tools", r.work)
    code, out, err = bridge(
        "handoff",
        "export",
        "--from",
        "claude",
        "--session",
        "49fa090f-34fe-47da-9cd9-cf59c6a193ff",
        "--to",
        "codex",
        cwd=r.work,
    )
    assert code == 0, err
    first = json.loads(out)["packet"]
    tid = exec_thread(r, "Waiting for a handoff.", reply_text("Ready."))
    code, out, err = bridge("handoff", "import", first, "--to", "codex", "--session", tid, cwd=r.work)
    assert code == 0, err
    context = json.loads(out)["context"]
    r.srv.push(reply_text("Picked up the handoff."))
    r.exec("resume", tid, "--json", "--skip-git-repo-check", context)
    code, out, err = bridge("handoff", "export", "--from", "codex", "--session", tid, "--to", "claude", cwd=r.work)
    assert code == 0, err
    second_id = json.loads(out)["packet"]
    second = json.loads(resolve(second_id).read_bytes())
    a = json.loads(resolve(first).read_bytes())
    assert second["objective"]["text"] == a["objective"]["text"]
    assert second["nextAction"]["text"] == a["nextAction"]["text"]
    assert second["constraints"] == a["constraints"] == []  # the pasted context is not mined for constraints
    assert {p["linkedBy"] for p in second["predecessors"]} == {"import-receipt"}
    linked = [e for e in second["evidence"] if e.get("packetId") == first]
    assert linked and all(e["transcript"] == str(claude_path) for e in linked)
    code, out, err = bridge(
        "handoff",
        "import",
        second_id,
        "--to",
        "claude",
        "--session",
        "99999999-9999-4999-8999-999999999999",
        "--new-session",
        cwd=r.work,
    )
    assert code == 0, err
    assert a["objective"]["text"] in json.loads(out)["context"]


def test_list_and_read_prefer_the_app_server_and_fall_back_to_local_files(r, bridge, monkeypatch):
    """With no --source, Codex sessions come from the app server; when it cannot answer, the rollouts, said so."""
    tid = exec_thread(r, "Work here", reply_text("Here."))
    requests = len(r.srv.requests)
    answers = {}
    for label, args in {
        "list": ("handoff", "list", "--from", "codex"),
        "read": ("handoff", "read", "--from", "codex", "--session", tid),
        "list-local": ("handoff", "list", "--from", "codex", "--source", "local"),
    }.items():
        code, out, err = bridge(*args, cwd=r.work)
        assert code == 0, err
        answers[label] = json.loads(out)
    full_history = agent_version("codex") >= appserver.COMMANDS_IN_HISTORY  # older servers drop command runs
    read_from = "app-server" if full_history else "local"
    assert [answers[k]["sourceUsed"] for k in ("list", "read", "list-local")] == ["app-server", read_from, "local"]
    assert ("sourceNote" in answers["read"]) is not full_history and "sourceNote" not in answers["list"]
    listed = [[s["threadId"] for s in answers[k]["sessions"]] for k in ("list", "list-local")]
    assert listed == [[tid], [tid]]
    monkeypatch.setenv("AUTOPILOT_CODEX_BIN", str(r.home / "no-such-codex"))
    for args in (("handoff", "list", "--from", "codex"), ("handoff", "read", "--from", "codex", "--session", tid)):
        code, out, err = bridge(*args, cwd=r.work)
        assert code == 0, err
        fell_back = json.loads(out)
        assert fell_back["sourceUsed"] == "local" and "app server could not answer" in fell_back["sourceNote"]
        found = fell_back["sessions"][0] if "sessions" in fell_back else fell_back["session"]
        assert found["threadId"] == tid
    code, _, err = bridge("handoff", "list", "--from", "codex", "--source", "app-server", cwd=r.work)
    assert code == 1 and "--source local" in err  # named explicitly, there is no fallback
    assert len(r.srv.requests) == requests  # listing and reading never ask the model
