"""The Claude intake as a process: its list of subagent transcripts (nested folders too) loads no pathlib."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from tests.support.claude_rows import fixture


def _session_with_nested_agents(tmp_path):
    source = fixture("subagent")
    shutil.copy(source, tmp_path / source.name)
    shutil.copytree(source.with_suffix(""), tmp_path / source.stem)
    agents = tmp_path / source.stem / "subagents"
    nested = agents / "workflows" / "wf_1"
    nested.mkdir(parents=True)
    for suffix in (".jsonl", ".meta.json"):
        shutil.copy(agents / f"agent-a2c664ce26ff442dc{suffix}", nested / f"agent-b00000000000000{suffix}")
    (agents / "notes.jsonl").write_text("")  # not an agent's transcript
    (tmp_path / "elsewhere").mkdir()
    (agents / "linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)  # not followed
    shutil.copy(agents / "agent-a2c664ce26ff442dc.jsonl", tmp_path / "elsewhere" / "agent-c00000000000000.jsonl")
    return tmp_path / source.name


def test_subagents_in_nested_folders_are_listed_and_a_page_loads_no_pathlib(tmp_path):
    """A session's subagents, one in a nested workflow folder, are all listed with their metadata, and the page
    that lists them imports no pathlib (with urllib.parse and ipaddress, ~3 ms of every page of such a session)."""
    path = _session_with_nested_agents(tmp_path)
    code = (
        "import json, sys\n"
        "from autopilot.handoff.transcripts.claude_intake import intake\n"
        "agents = intake(sys.argv[1])['subagents']\n"
        "print(json.dumps([[a['agentId'], a['agentType'], a['description']] for a in agents]))\n"
        "print('pathlib' in sys.modules)\n"
    )
    env_home = tmp_path / "home"
    out = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path[:0] = {sys.path!r}\n{code}", str(path)],
        capture_output=True,
        text=True,
        check=True,
        env={"AUTOPILOT_HOME": str(env_home), "HOME": str(tmp_path)},
    ).stdout.splitlines()
    listed = sorted(map(tuple, json.loads(out[0])))
    assert listed == [
        ("a2c664ce26ff442dc", "general-purpose", "Count data.txt lines"),
        ("b00000000000000", "general-purpose", "Count data.txt lines"),
    ]
    assert out[1] == "False"
