"""An apply_patch in a rollout written elsewhere (no patch event): settled by its own output, not left "proposed"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autopilot.handoff.transcripts.codex_intake import intake

FIXTURE = Path(__file__).resolve().parents[3] / "fixtures" / "codex" / "exec_tools.jsonl"
SUCCESS = "Success. Updated the following files:\nA greeting.txt\n"
PATCH = "*** Begin Patch\n*** Add File: greeting.txt\n+hello from the patch\n*** End Patch\n"


def without_patch_events(tmp_path: Path, output: object, *, as_function: bool = False) -> str:
    """codex 0.171's exec_tools rollout as older Codex versions and other tools write one: the apply_patch call and
    its output only (no FileChange item, no patch_apply_end), the output being ``output``."""
    rows = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    kept = []
    for row in rows:
        p = row.get("payload") or {}
        if p.get("type") in ("item_completed", "item_started", "patch_apply_begin", "patch_apply_end"):
            continue
        if p.get("call_id") == "call_patch_bad":
            continue  # the fixture's second patch: this test has one
        if p.get("call_id") == "call_patch1" and p.get("type") == "custom_tool_call" and as_function:
            p.update(type="function_call", arguments=json.dumps({"input": PATCH}))
            p.pop("input", None)
        if p.get("call_id") == "call_patch1" and p.get("type") == "custom_tool_call_output":
            p["output"] = output
            if as_function:
                p["type"] = "function_call_output"
        kept.append(row)
    path = tmp_path / FIXTURE.name
    path.write_text("".join(json.dumps(r) + "\n" for r in kept))
    return str(path)


def status_of(path: str) -> str:
    (found,) = [f for f in intake(path)["editedFiles"] if f["path"].endswith("greeting.txt")]
    return str(found["status"])


@pytest.mark.parametrize(
    "output, as_function, status",
    [
        ("Exit code: 0\nWall time: 0 seconds\nOutput:\n" + SUCCESS, 0, "applied"),
        (json.dumps({"output": SUCCESS, "metadata": {"exit_code": 0}}), 1, "applied"),
        ("apply_patch verification failed: greeting.txt already exists", 0, "failed"),
        (json.dumps({"output": "error: patch does not apply", "metadata": {"exit_code": 1}}), 1, "failed"),
        ("", 0, "proposed"),  # an output that says neither: still only proposed
    ],
)  # fmt: skip
def test_a_patch_is_settled_by_what_its_output_says(tmp_path, output, as_function, status):
    """A completed apply_patch (custom tool or function call) is applied, a refused one failed; one whose output
    says neither stays proposed."""
    assert status_of(without_patch_events(tmp_path, output, as_function=bool(as_function))) == status


def test_the_real_rollout_is_read_as_before():
    """codex 0.171's own rollout, with its FileChange item, still reads applied."""
    assert status_of(str(FIXTURE)) == "applied"
