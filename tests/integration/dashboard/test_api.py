"""The dashboard's API through a real `codex-bridge dashboard` process: the CLI's JSON, its schemas, its actions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autopilot.scripted.responses_server import reply_json
from tests.support.bridge import run_bridge
from tests.support.claude_rows import Transcript
from tests.support.dashboard import CHECKPOINT, Dashboard, check, serving
from tests.support.durable import person
from tests.support.handoff_env import claude_session, codex_lines, codex_rollout, run_json, thread_of, work_session
from tests.support.loop import continue_to, plan_two_tasks, state_of
from tests.support.world import copy_tree, scripted_world

FINDINGS = {
    "decision": "request_changes",
    "summary": "feature.py needs a docstring",
    "issues": [{"severity": "minor", "file": "feature.py", "line": 1, "message": "add a docstring"}],
}
RECEIVER = "01a2ffff-0000-7000-8000-000000000001"


@pytest.fixture(scope="module")
def project_world(tmp_path_factory, git_repo_template):
    """The planned repository after a review with findings and a verdict, with a Claude work session recorded in
    it: built once for the module (three calls through the SDK), each test given its own copy."""
    with scripted_world(tmp_path_factory, "project") as (world, server):
        with world.building():
            planned = plan_two_tasks(server, copy_tree(git_repo_template, world.work / "repo"))
            (planned / "parser.py").write_text("def parse(s):\n    return s\n")
            (planned / "feature.py").write_text("x = 1\n")
            server.push(reply_json(FINDINGS))
            assert run_bridge("-C", str(planned), "review")[0] == 0
            server.push(reply_json(continue_to("T2")))
            assert run_bridge("-C", str(planned), "verdict", "--last-message", "feature added")[0] == 0
            claude_session(work_session(Transcript()), planned)
            world.built = planned
        yield world


@pytest.fixture
def project(project_world, openai_env, monkeypatch):
    """The module's project, as built (this test's own copy)."""
    return project_world.restore(monkeypatch).built


@pytest.fixture(scope="module")
def served(project_world):
    """One dashboard process over the module's world, started once: each test's copy is what it serves."""
    with serving(project_world) as dashboard:
        yield dashboard


@pytest.fixture
def dash(served, project):
    """The module's dashboard, with a session, over this test's copy of the project."""
    return served


def run_name(bridge, repo) -> str:
    return Path(state_of(bridge, repo)["run_dir"]).name


def test_overview_names_the_project(dash, project):
    """The overview names the project, counts the run and its packets, and enables approvals."""
    o = check("overview", dash.get("/api/overview"))
    assert o["project"]["worktree"] == str(project.resolve()) and o["runs"] == {"total": 1, "byStatus": {"running": 1}}
    assert o["approvals"]["enabled"] is True and o["packets"] == {"total": 0}


def test_runs_are_what_status_json_all_prints(dash, bridge):
    """GET /api/runs answers exactly `codex-bridge status --json --all` and matches its schema."""
    answer = check("runs", dash.get("/api/runs"))
    code, out, _ = bridge("status", "--json", "--all")
    assert code == 0 and answer == json.loads(out)
    assert answer["runs"][0]["goal"] == "Add a feature with a test"


def test_a_run_is_what_status_json_prints(dash, bridge, project):
    """GET /api/runs/RUN answers `codex-bridge status --json` of its workspace: task, findings, verdict, calls."""
    name = run_name(bridge, project)
    answer = check("run", dash.get(f"/api/runs/{name}"))
    assert answer == json.loads(bridge("-C", str(project), "status", "--json")[1])
    assert answer["review"]["issues"] == FINDINGS["issues"] and answer["summary"]["task"]["id"] == "T2"
    assert [c["phase"] for c in answer["calls"]["calls"]] == ["plan", "review", "verdict"]


def test_stop_does_what_codex_stop_does(dash, bridge, project):
    """POST stop returns the run to idle with its spend kept, as `codex-bridge stop` does."""
    before = state_of(bridge, project)
    status, answer = dash.post(f"/api/runs/{run_name(bridge, project)}/stop", {"reason": "lunch"})
    assert status == 200 and check("stop", answer)["status"] == "idle"
    after = state_of(bridge, project)
    kept = before["budget_used_usd"]
    assert (after["status"], after["stop_reason"], after["budget_used_usd"]) == ("idle", "lunch", kept)


def test_resume_does_what_autopilot_resume_does(dash, bridge, project):
    """POST resume sets a paused run running again, as `codex-bridge resume` does."""
    run_dir = Path(state_of(bridge, project)["run_dir"])
    state = json.loads((run_dir / "state.json").read_text())
    state["status"] = "paused_block_cap"
    (run_dir / "state.json").write_text(json.dumps(state))
    (run_dir / "state.json.valid").unlink(missing_ok=True)
    status, answer = dash.post(f"/api/runs/{run_dir.name}/resume")
    assert status == 200 and check("resume", answer) == {"status": "running", "resumed": True, "max_iterations": 20}
    assert state_of(bridge, project)["status"] == "running"


def test_resuming_a_finished_run_is_refused_with_the_clis_reason(dash, bridge, project):
    """Resume of an idle run is a 400 with the error, its hint and the CLI's exit code; nothing changes."""
    name = run_name(bridge, project)
    dash.post(f"/api/runs/{name}/stop")
    status, answer = dash.post(f"/api/runs/{name}/resume")
    assert status == 400 and check("error", answer)["exitCode"] == 1 and "cannot be resumed" in answer["error"]
    assert state_of(bridge, project)["status"] == "idle"


def test_unknown_run_is_404(dash):
    """A well-formed run id that names no run is a 404."""
    status, answer, _ = dash.request("GET", "/api/runs/nothing-0123456789ab")
    assert status == 404 and "no run" in check("error", answer)["error"]


def test_sources_are_what_handoff_list_prints(dash, bridge, project):
    """GET /api/sources/claude answers `codex-bridge handoff list --from claude`."""
    answer = check("sources", dash.get("/api/sources/claude"))
    _, listed, _ = run_json(bridge, "handoff", "list", "--from", "claude", cwd=project)
    assert answer == listed and [s["sessionId"] for s in answer["sessions"]] == [Transcript().session]


def test_latest_is_a_filter_of_the_listing(dash, project):
    """?latest=1 narrows the listing to one row; it selects nothing anywhere."""
    codex_rollout(codex_lines("exec_plain"), project)
    claude_session(work_session(Transcript("22222222-2222-4333-8444-555555555555")), project)
    assert len(dash.get("/api/sources/claude")["sessions"]) == 2
    assert len(dash.get("/api/sources/claude?latest=1")["sessions"]) == 1


def test_a_session_page_is_what_handoff_read_prints(dash, bridge, project):
    """GET /api/sources/claude/ID answers `codex-bridge handoff read` (newest first)."""
    sid = Transcript().session
    answer = check("session-page", dash.get(f"/api/sources/claude/{sid}?limit=5"))
    _, read, _ = run_json(bridge, "handoff", "read", "--from", "claude", "--session", sid, "--limit", "5", cwd=project)
    assert answer == read and len(answer["events"]) == 5


def test_preview_writes_nothing_and_export_writes_the_packet(dash, project_world):
    """Export with preview returns the would-be packet and writes nothing; export stores it under its hash."""
    body = {"agent": "claude", "session": Transcript().session, "to": "codex"}
    status, preview = dash.post("/api/export", {**body, "preview": True})
    assert status == 200 and check("export", preview)["written"] is False
    packets = project_world.root / "autopilot" / "handoff" / "packets"
    assert not packets.exists() or list(packets.iterdir()) == []
    status, written = dash.post("/api/export", body)
    assert status == 200 and check("export", written)["packet"].startswith("sha256:")
    assert Path(written["path"]).is_file() and Path(written["evidenceIndex"]).is_file()


def test_packets_list_inspect_and_drift_now(dash, bridge, project):
    """A stored packet is listed, inspected (verified) and compared with git now: an edit is drift, claims go stale."""
    _, written = dash.post("/api/export", {"agent": "claude", "session": Transcript().session, "to": "codex"})
    listing = check("packets", dash.get("/api/packets"))
    _, cli, _ = run_json(bridge, "handoff", "packets", cwd=project)
    assert [p["packet"] for p in listing["packets"]] == [written["packet"]] and listing == cli
    clean = check("packet", dash.get(f"/api/packets/{written['packet']}"))
    assert clean["driftNow"]["comparable"] is True and clean["driftNow"]["gitDrift"]["changedPaths"] == []
    (project / "parser.py").write_text("def parse(s):\n    return s or ''\n")
    drifted = dash.get(f"/api/packets/{written['packet']}")
    assert drifted["driftNow"]["gitDrift"]["changedPaths"] == ["parser.py"]
    assert drifted["driftNow"]["staleClaims"]["validations"]


def test_import_into_an_explicitly_chosen_session(dash, bridge, project):
    """Import names its receiving session, writes its receipt and answers what `handoff import` prints."""
    _, written = dash.post("/api/export", {"agent": "claude", "session": Transcript().session, "to": "codex"})
    status, answer = dash.post(
        f"/api/packets/{written['packet']}/import", {"to": "codex", "session": RECEIVER, "newSession": True}
    )
    assert status == 200 and check("import", answer)["receivingSession"]["sessionId"] == RECEIVER
    assert Path(answer["receipt"]).is_file() and answer["context"].startswith("# Handoff packet sha256:")


def test_import_without_a_receiving_session_is_refused(dash):
    """No receiving session, no import: the request is refused before anything is read."""
    _, written = dash.post("/api/export", {"agent": "claude", "session": Transcript().session, "to": "codex"})
    status, answer = dash.post(f"/api/packets/{written['packet']}/import", {"to": "codex"})
    assert status == 400 and "receiving session id" in check("error", answer)["error"]


def test_a_codex_session_exports_for_claude(dash, project):
    """Codex threads are listed by thread id and hand over to Claude the same way."""
    lines = codex_lines("exec_plain")
    codex_rollout(lines, project)
    assert [s["threadId"] for s in dash.get("/api/sources/codex")["sessions"]] == [thread_of(lines)]
    status, written = dash.post("/api/export", {"agent": "codex", "session": thread_of(lines), "to": "claude"})
    assert status == 200 and check("export", written)["to"] == "claude"


def test_active_memory_is_what_handoff_active_prints(dash, bridge, project):
    """GET /api/memory/active lists this worktree's sessions, each as `handoff active --json` shows it."""
    sid = Transcript().session
    code, _, err = bridge(
        "handoff",
        "checkpoint",
        "--agent",
        "claude",
        "--session",
        sid,
        "--file",
        "-",
        stdin=json.dumps(CHECKPOINT),
        cwd=project,
    )
    assert code == 0, err
    answer = check("memory", dash.get("/api/memory/active"))
    _, active, _ = run_json(bridge, "handoff", "active", "--agent", "claude", "--session", sid, "--json", cwd=project)
    (view,) = answer["sessions"]
    assert (view["session"], view["nextAction"]["text"]) == (sid, CHECKPOINT["next_action"])
    skip = {"checkpoint"}  # its age moves between the two reads
    assert {k: v for k, v in view.items() if k not in skip} == {k: v for k, v in active.items() if k not in skip}


def test_search_is_what_handoff_search_prints(dash, bridge, project):
    """After an export from the page, GET /api/search finds its evidence, as `handoff search --json` does."""
    _, written = dash.post("/api/export", {"agent": "claude", "session": Transcript().session, "to": "codex"})
    answer = check("search", dash.get("/api/search?q=parse_header"))
    _, cli, _ = run_json(bridge, "handoff", "search", "parse_header", "--json", cwd=project)
    assert answer["results"] and {r["pointer"].get("packet") for r in answer["results"]} == {written["packet"]}
    assert [r["excerpt"] for r in answer["results"]] == [r["excerpt"] for r in cli["results"]]


def test_an_empty_search_is_400(dash):
    """A search without text is refused before the index is opened."""
    status, answer, _ = dash.request("GET", "/api/search?q=")
    assert status == 400 and "1 to 500 characters" in check("error", answer)["error"]


def test_a_candidate_from_a_packets_constraint_points_at_its_evidence(dash):
    """Proposing from a packet takes one of its constraints as a candidate rule with the packet and refs."""
    _, written = dash.post("/api/export", {"agent": "claude", "session": Transcript().session, "to": "codex"})
    status, rule = dash.post("/api/durable", {"packet": written["packet"], "constraint": 0, "by": "ada"})
    assert status == 200 and check("rule", rule)["status"] == "candidate"
    assert rule["text"] == "Never change the public API of parse()."
    assert rule["source"] == {"packet": written["packet"], "constraint": 0, "refs": ["E1"]}
    listing = check("durable", dash.get("/api/durable"))
    assert listing["counts"]["candidate"] == 1 and listing["integrity"]["ok"] is True


def test_a_decision_without_the_passphrase_is_refused_with_an_error_body(dash):
    """Approving without the person's passphrase is 403 with the error schema; the rule stays a candidate."""
    person()
    _, rule = dash.post("/api/durable", {"text": "Keep commits small."})
    status, answer = dash.post(f"/api/durable/{rule['id']}/approve", {"person": "Ada"})
    assert status == 403 and check("error", answer)["exitCode"] == 1
    assert dash.get("/api/durable")["rules"][0]["status"] == "candidate"


def test_ctrl_c_stops_the_dashboard_cleanly(project):
    """SIGINT ends the server with exit 0 and says so on stderr."""
    d = Dashboard(project).__enter__()
    code, err = d.stop()
    assert code == 0 and "dashboard stopped" in err


def test_the_first_stdout_line_is_the_url_with_its_launch_code(dash):
    """The address printed first is 127.0.0.1 with a one-time launch code in its fragment (32 url-safe characters)."""
    assert dash.url == f"http://127.0.0.1:{dash.port}/#code={dash.code}" and len(dash.code) == 32


def test_started_inside_an_agents_shell_approvals_are_off(project):
    """A dashboard launched with CLAUDECODE set (from an agent's tool) serves everything but decisions."""
    with Dashboard(project, env={"CLAUDECODE": "1"}) as d:
        assert d.get("/api/overview")["approvals"]["enabled"] is False


def test_readiness_is_what_doctor_json_prints(dash, bridge, project):
    """GET /api/readiness answers `codex-bridge doctor --json`: the same checks, each failing one with its fix."""
    answer = check("readiness", dash.get("/api/readiness"))
    _, doctor, _ = run_json(bridge, "doctor", "--json", cwd=project)
    assert [c["name"] for c in answer["checks"]] == [c["name"] for c in doctor["checks"]]
    assert all(c["fix"] for c in answer["checks"] if c["status"] == "fail")


def test_recover_rebuilds_a_degraded_sessions_memory(dash, project):
    """POST /api/memory/recover rebuilds what no hook recorded from the transcript; coverage says it was recovered."""
    sid = Transcript().session  # the work session in the project: no hook ever saw it
    status, answer = dash.post("/api/memory/recover", {"agent": "claude", "session": sid})
    assert status == 200, answer
    check("recover", answer)
    assert sum(answer["recovered"]["added"].values()) > 0
    assert "recovered" in [r["kind"] for r in answer["view"]["coverage"]["reasons"]]
    status, refused = dash.post("/api/memory/recover", {"agent": "claude", "session": "../../etc"})
    assert status == 400 and check("error", refused)


def test_the_archive_lists_what_prune_moved_and_is_searchable(dash, bridge, project):
    """After `handoff prune`, GET /api/archive lists the packet and GET /api/search?archived=1 finds its evidence."""
    _, written = dash.post("/api/export", {"agent": "claude", "session": Transcript().session, "to": "codex"})
    assert check("archive", dash.get("/api/archive"))["total"] == 0
    code, _, err = bridge("handoff", "prune", "--older-than", "0", cwd=project)
    assert code == 0, err
    archive = check("archive", dash.get("/api/archive"))
    assert [p["packet"] for p in archive["packets"]] == [written["packet"]]
    found = check("search", dash.get("/api/search?q=parse_header&archived=1"))
    assert found["results"] and {r["pointer"].get("packet") for r in found["results"]} == {written["packet"]}
