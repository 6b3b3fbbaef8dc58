"""A review's snapshot of the work tree: a growing large file adds no copy to git's objects; binaries are left out."""

from __future__ import annotations

import json
import os
from pathlib import Path

from autopilot.scripted.responses_server import reply_json
from tests.support.loop import APPROVE


def git_objects_bytes(repo: Path) -> int:
    return sum(p.stat().st_size for p in (repo / ".git" / "objects").rglob("*") if p.is_file())


def test_a_growing_large_file_does_not_bloat_git_objects(planned, openai_env, bridge):
    """A 20 MB log appended to three times between reviews adds no copy of it to .git/objects, and is named."""

    big = planned / "trace.log"
    before = git_objects_bytes(planned)
    for n in range(3):
        with open(big, "ab") as fh:
            fh.write(os.urandom(20 << 20))  # incompressible, as a real log nearly is
        (planned / "feature.py").write_text(f"x = {n}\n")
        openai_env.push(reply_json(APPROVE))
        code, out, err = bridge("-C", str(planned), "review")
        assert code == 0, err
    grown = git_objects_bytes(planned) - before
    assert grown < 1 << 20, f".git/objects grew by {grown:,} bytes"
    review = json.loads(out)
    assert [s["path"] for s in review["diff"]["skipped"]] == ["trace.log"]
    prompt = json.dumps(openai_env.requests[-1]["input"])
    assert "trace.log" in prompt and "left out of this diff" in prompt


def test_binary_files_are_left_out_and_said_so(planned, openai_env, bridge):
    """A changed binary file is not hashed into the repository nor sent; the review says it was left out."""
    (planned / "icon.bin").write_bytes(b"\x89PNG\0\0" + bytes(range(256)) * 10)
    (planned / "feature.py").write_text("x = 1\n")
    openai_env.push(reply_json(APPROVE))
    code, out, err = bridge("-C", str(planned), "review")
    assert code == 0, err
    assert json.loads(out)["diff"]["skipped"] == [{"path": "icon.bin", "why": "binary"}]
    assert "icon.bin (binary)" in json.dumps(openai_env.requests[-1]["input"])
