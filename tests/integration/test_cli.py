"""The command line itself: -C DIR runs a command from DIR, as git -C does."""

from __future__ import annotations

import json
from pathlib import Path


def test_relative_paths_follow_dash_c(planned, openai_env, bridge, tmp_path):
    """-C DIR works like git -C: the command runs from DIR."""
    code, out, _ = bridge("-C", str(planned), "state")
    assert code == 0 and json.loads(out)["workspace"] == str(Path(planned).resolve())
    code, _, err = bridge("-C", str(tmp_path / "nope"), "status")
    assert code == 1 and "-C" in err and "directory" in err
