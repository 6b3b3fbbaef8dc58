"""Which changed files a review withholds: a secret-bearing file's contents never reach Codex, its name does."""

from __future__ import annotations

import json
from pathlib import Path

from autopilot.scripted.responses_server import reply_json
from tests.support.loop import APPROVE


def test_secret_bearing_files_are_withheld_from_the_prompt(planned, openai_env, bridge):
    """An untracked .env's contents never reach Codex; the prompt only says it changed."""
    (Path(planned) / ".env").write_text("WEIRD_SETTING=zq9-not-a-known-shape\n")
    (Path(planned) / "feature.py").write_text("x = 1\n")
    openai_env.push(reply_json(APPROVE))
    code, out, _ = bridge("-C", str(planned), "review")
    sent = openai_env.requests[-1]["input"]
    assert code == 0 and "zq9-not-a-known-shape" not in sent
    assert "contents are withheld: .env" in sent and json.loads(out)["diff"]["secret_files"] == [".env"]
