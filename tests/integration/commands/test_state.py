"""`codex-bridge state`: the run as JSON, every run with --all, an idle state where there is none."""

from __future__ import annotations

import json


def test_state_all_lists_every_run(planned, openai_env, bridge, tmp_path):
    """state --all lists each workspace's run with its run_dir."""
    code, out, _ = bridge("state", "--all")
    runs = json.loads(out)
    assert code == 0 and len(runs) == 1 and runs[0]["goal"] == "Add a feature with a test"


def test_state_without_a_run_is_idle_json(git_repo, bridge):
    """state in a repo with no run prints an idle state (jq-able) and creates nothing."""
    code, out, _ = bridge("-C", str(git_repo), "state")
    s = json.loads(out)
    assert code == 0 and (s["status"], s["exists"]) == ("idle", False)
