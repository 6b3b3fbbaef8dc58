"""codex-bridge demo: the README's first command runs the whole loop in a throwaway repository."""

from __future__ import annotations

import json

from autopilot.loop.demo import scripted_answer
from autopilot.scripted.responses_server import ResponsesServer


def test_offline_demo_runs_the_loop_to_done_and_says_it_is_scripted(bridge, isolated_homes, monkeypatch):
    """With no backend set up, the demo says its answers are scripted, reaches done, and leaves no run behind."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no codex on PATH, no OPENAI_API_KEY: nothing configured
    code, out, err = bridge("demo")
    assert code == 0, err
    assert "offline demo: Codex answers are scripted" in err
    steps = [line.split()[0] for line in out.splitlines()]
    assert steps == ["plan", "claude", "review", "verdict", "claude", "review", "verdict"]
    assert "status=done" in out.splitlines()[-1]
    assert not (isolated_homes / "autopilot" / "runs").exists()


def test_demo_json_prints_one_state_change_per_line(bridge, monkeypatch):
    """--json prints each state change as a JSON object on its own line."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    code, out, _ = bridge("demo", "--json")
    changes = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [c["step"] for c in changes][0] == "plan" and changes[-1]["status"] == "done"
    assert all(c["budget_used_usd"] <= c["budget_usd"] for c in changes)


def test_demo_uses_a_configured_backend_with_the_users_settings(bridge, isolated_homes, monkeypatch):
    """With a backend set up the demo calls it for real, honouring the user's config file (here its model)."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    (isolated_homes / "autopilot" / "config.yaml").write_text("backend: openai\nmodel: gpt-6.1-sol\n")
    with ResponsesServer(responder=scripted_answer) as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        code, out, err = bridge("demo")
    assert code == 0, err
    assert "demo with your configured backend: openai" in err and "offline" not in err
    assert len(srv.requests) == 5 and {r["model"] for r in srv.requests} == {"gpt-6.1-sol"}
