"""`handoff intake` / `from-codex intake` run without the cycle collector: a read makes no reference cycles."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.fixtures.make_big_sessions import Shape, claude_session, codex_rollout
from tests.support.measured import unmeasured

# A first read, a read after an append and a cached read of one session, in one process; after each, what the
# cycle collector finds unreachable (nothing: reference counting freed it all) and whether it runs again.
PROBE = r"""
import gc, io, contextlib, json, os, sys
from autopilot.commands.handoff.intake import intake
path, agent, cut = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(path, "rb").read()
with open(path, "wb") as fh:
    fh.write(data[:cut])
gc.collect()
found = []
for step in ("first", "appended", "cached"):
    if step == "appended":
        with open(path, "ab") as fh:
            fh.write(data[cut:])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = intake(path, agent=agent)
    page = json.loads(out.getvalue())
    found.append([step, rc, page["diagnostics"]["index"], gc.isenabled(), gc.collect()])
print(json.dumps(found))
"""


def _read(tmp_path, agent: str) -> list:
    made = (claude_session if agent == "claude" else codex_rollout)(tmp_path / agent, Shape(1.2, compact_every=0.2))
    assert made.compactions >= 3 and made.rewinds
    data = made.path.read_bytes()
    cut = data.rindex(b"\n", 0, len(data) // 2) + 1
    env = {**unmeasured(), "AUTOPILOT_HOME": str(tmp_path / "home")}
    argv = [sys.executable, "-c", PROBE, str(made.path), agent, str(cut)]
    out = subprocess.run(argv, capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout)


def test_a_claude_read_leaves_nothing_for_the_cycle_collector(tmp_path):
    """Compactions, rewinds and subagents, read first, after an append and cached: no unreachable object is left,
    and the collector runs again once the page is built."""
    assert _read(tmp_path, "claude") == [
        ["first", 0, "built", True, 0],
        ["appended", 0, "extended", True, 0],
        ["cached", 0, "reused", True, 0],
    ]


def test_a_codex_read_leaves_nothing_for_the_cycle_collector(tmp_path):
    """The same of a Codex rollout with context compactions and roll-backs."""
    assert _read(tmp_path, "codex") == [
        ["first", 0, "built", True, 0],
        ["appended", 0, "extended", True, 0],
        ["cached", 0, "reused", True, 0],
    ]
