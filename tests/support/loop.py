"""The scripted Codex answers and state helpers the loop tests share."""

from __future__ import annotations

import copy
import json
import subprocess

PLAN = {
    "summary": "two steps",
    "tasks": [
        {"id": "T1", "title": "Add feature", "description": "add feature.py", "acceptance": ["feature.py exists"]},
        {"id": "T2", "title": "Test it", "description": "add test_feature.py", "acceptance": ["test passes"]},
    ],
}
APPROVE = {"decision": "approve", "summary": "looks right", "issues": []}


def continue_to(task_id: str, progressed: bool = True) -> dict:
    return {
        "decision": "continue",
        "reason": f"now do {task_id}",
        "next_task_id": task_id,
        "progressed": progressed,
        "criteria": [],
    }


def done(*criteria: str) -> dict:
    return {
        "decision": "done",
        "reason": "all met",
        "next_task_id": None,
        "progressed": True,
        "criteria": [{"criterion": c, "met": True, "evidence": f"evidence for {c}"} for c in criteria],
    }


def plan_two_tasks(server, repo, bridge=None):
    """``repo`` with a running two-task plan (:data:`PLAN`, one plan call to the scripted ``server``); ``repo``."""
    from autopilot.scripted.responses_server import reply_json
    from tests.support.bridge import run_bridge

    server.push(reply_json(copy.deepcopy(PLAN)))
    code, _, err = (bridge or run_bridge)("-C", str(repo), "plan", "--goal", "Add a feature with a test")
    assert code == 0, err
    return repo


def state_of(bridge, repo) -> dict:
    code, out, err = bridge("-C", str(repo), "state")
    assert code == 0, err
    return json.loads(out)


def commit_all(repo, message="work") -> None:
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message], check=True
    )


def billed(bills: list[dict[str, int]]) -> dict:
    """What the scripted server billed for these calls, in the shape of a run's token_usage bucket."""
    return {
        "input": sum(b["input_tokens"] for b in bills),
        "cached": sum(b["cached_tokens"] for b in bills),
        "output": sum(b["output_tokens"] for b in bills),
        "calls": len(bills),
    }
