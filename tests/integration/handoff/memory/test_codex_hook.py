"""Codex's memory hook: a stand-alone launcher that runs the package's entry, and the launchers before it.

``install codex`` puts the launcher (``codex/assets/handoff/scripts/memory_hook.py``) in Codex's hooks: it finds the
package installed.json names and runs ``autopilot.handoff.memory.codex_hook.main``, which records with the recorder
Claude Code's hooks use; with no package to run it says nothing. An install from before the launcher keeps its
stand-alone script (``tests/fixtures/codex/memory_hook_6660d8c.py``) until setup runs again: it keeps recording with
this package, and ``install codex`` replaces it.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autopilot.codex import skills
from autopilot.codex.install import ASSETS
from autopilot.digest import sha256_hex
from autopilot.handoff.memory import codex_hook, observe
from tests.support.hooks import SESSION, context_of, payload
from tests.support.repo import FIXTURES
from tests.unit.test_twins import load

LAUNCHER = ASSETS / "handoff" / "scripts" / "memory_hook.py"
# The script `install codex` wrote before the launcher (commit 6660d8c, before the three-wings move): what an older
# install still runs until setup is run again.
OLDER_HOOK = FIXTURES / "codex" / "memory_hook_6660d8c.py"
PACKAGE = str(Path(observe.__file__).resolve().parents[3])  # the directory holding `autopilot`, as install records it
SOURCE = "class RateCache:\n    def get(self, day):\n        with open(self.path) as fh:\n        return load(fh)\n"
NEW = '        return load_rates(fh, parse_float=Decimal)  # "ghp_not_a_name"\n'
CODE = (
    'export function latestDay(rates) {\n  const API_TOKEN = "sk_live_a1B2c3D4"; // rotateToken()\n'
    "  return pickDay(rates);\n}\n"
)
NAMED_PATCH = (
    "*** Begin Patch\n*** Update File: src/fx.py\n@@ def load_rates\n     with open(path) as fh:\n"
    "-        return json.load(fh)\n+        return json.load(fh, parse_float=Decimal)  # note_this()\n"
    "*** Add File: docs/a.md\n+use parse_header()\n*** End Patch\n"
)
PATCH = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Move to: b.txt\n*** End Patch\n"
MEMORY_EVENTS = {
    "session start": ("SessionStart", {"source": "compact", "model": "m", "transcript_path": "/t.jsonl"}),
    "session end": ("SessionEnd", {"reason": "clear"}),
    "prompt": ("UserPromptSubmit", {"prompt": "p" * 5000, "turn_id": "t1"}),
    "subagent prompt": ("UserPromptSubmit", {"prompt": "x", "agent_id": "a"}),
    "stop": ("Stop", {"model": "gpt"}),
    "pre compact": ("PreCompact", {"trigger": "manual", "custom_instructions": "keep it"}),
    "post compact": ("PostCompact", {"trigger": "auto", "compact_summary": "s"}),
    "model switch": ("PostModelSwitch", {"from_model": "a", "to_model": "b"}),
    "edit": ("PostToolUse", {"tool_name": "Edit", "tool_input": {"file_path": "/w/é.py"}, "tool_use_id": "u"}),
    "patch": (
        "PostToolUse",
        {"tool_name": "apply_patch", "tool_input": {"command": PATCH}, "tool_response": "Exit code: 1"},
    ),
    "claude run": (
        "PostToolUse",
        {"tool_name": "Bash", "tool_input": {"command": "pytest"}, "tool_response": {"stdout": "1 passed"}},
    ),
    "claude failure": (
        "PostToolUseFailure",
        {"tool_name": "Bash", "tool_input": {"command": "make test"}, "error": "Exit code 2\nx"},
    ),
    "codex run": (
        "PostToolUse",
        {"tool_name": "Bash", "tool_input": {"command": "npm test"}, "tool_response": "ok " * 900},
    ),
    "other command": ("PostToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": "x"}),
    "edit naming what it changed": (
        "PostToolUse",
        {
            "tool_name": "Edit",
            "tool_input": {"file_path": "/w/fx.py", "old_string": "        return load(fh)\n", "new_string": NEW},
            "tool_response": {"originalFile": SOURCE},
            "tool_use_id": "u2",
        },
    ),
    "multiedit": (
        "PostToolUse",
        {
            "tool_name": "MultiEdit",
            "tool_input": {"file_path": "/w/fx.py", "edits": [{"old_string": "a", "new_string": NEW}]},
        },
    ),
    "write of code": ("PostToolUse", {"tool_name": "Write", "tool_input": {"file_path": "/w/n.ts", "content": CODE}}),
    "write of an env file": (
        "PostToolUse",
        {"tool_name": "Write", "tool_input": {"file_path": "/w/.env", "content": CODE}},
    ),
    "patch naming what it changed": ("PostToolUse", {"tool_name": "apply_patch", "tool_input": {"input": NAMED_PATCH}}),
    "turn end with next steps": (
        "Stop",
        {"last_assistant_message": "Fixed the parser.\n\n**Next steps:**\n1. make `pytest -k io` pass\n2. docs"},
    ),
    "turn end with a closing plan": ("Stop", {"last_assistant_message": "Done.\n\nNext, I'll wire the cache."}),
    "turn end without a plan": ("Stop", {"last_assistant_message": "All tests pass now."}),
}


def logged(repo: Path) -> list[dict]:
    """The Codex session's observations in ``repo``, as written."""
    path = Path(observe.session_dir(os.path.realpath(repo), "codex", SESSION)) / observe.LOG
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def untimed(found: list[dict]) -> list[dict]:
    return [{k: v for k, v in o.items() if k != "at"} for o in found]


@pytest.mark.parametrize("case", sorted(MEMORY_EVENTS))
def test_the_entry_records_what_the_recorder_finds(case, git_repo, tmp_path, monkeypatch, capsys):
    """Codex's entry point writes, line for line, the observations the recorder finds in the event (time aside), as
    Codex's, and says nothing when no bridge is there to inject."""
    event, fields = MEMORY_EVENTS[case]
    data = {"session_id": SESSION, "cwd": str(git_repo), "hook_event_name": event, **fields}
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(data).encode())))
    assert codex_hook.main(str(tmp_path)) == 0
    assert untimed(logged(git_repo)) == untimed(observe.redacted(observe.observations(event, data, "codex")))
    assert capsys.readouterr().out == ""


INSTALLED = {
    "as install writes it": json.dumps({"bridge": None, "python": "/v/bin/python", "package": "/v/src"}, indent=2),
    "compact, with escapes": '{"package":"/p\\u00e9/s\\"rc"}',
    "no package": '{"python": "/v/bin/python"}',
    "a null package": '{"package": null}',
    "a list": '["/v/src"]',
    "cut short": '{"package": "/v/src"',
    "two values": '{"package": "/v/src"} {}',
    "empty": "",
}


@pytest.mark.parametrize("case", sorted(INSTALLED))
def test_the_launcher_reads_installed_json_as_json_does(case, tmp_path):
    """The launcher's package path is json.loads's "package" string (None for anything else), without json."""
    (tmp_path / "installed.json").write_text(INSTALLED[case], encoding="utf-8")
    try:
        found = json.loads(INSTALLED[case])
    except ValueError:
        found = None
    package = found.get("package") if isinstance(found, dict) else None
    assert load(LAUNCHER).recorded_package(str(tmp_path)) == (package if isinstance(package, str) else None)


def test_the_launcher_without_installed_json_has_no_package(tmp_path):
    """No installed.json beside it: no recorded path (the package already importable, if any, is used)."""
    assert load(LAUNCHER).recorded_package(str(tmp_path)) is None


@pytest.mark.parametrize("package", ["gone", "broken"])
def test_without_a_package_to_run_the_launcher_says_nothing(package, git_repo, tmp_path):
    """With the recorded package gone or broken (and no other importable: -S), the launcher takes the whole event,
    records nothing and exits 0 with no output, as a hook with nothing to say."""
    where = tmp_path / "package"
    if package == "broken":  # a half-written upgrade
        (where / "autopilot").mkdir(parents=True)
        (where / "autopilot" / "__init__.py").write_text("def (\n")
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "memory_hook.py").write_text(LAUNCHER.read_text())
    (scripts / "installed.json").write_text(json.dumps({"bridge": None, "python": None, "package": str(where)}))
    proc = subprocess.Popen(
        [sys.executable, "-I", "-S", str(scripts / "memory_hook.py")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    event = payload("UserPromptSubmit", git_repo, prompt="use sk-proj-" + "Ab3Cd4Ef5" * 5 + " " + "x" * 300_000)
    assert proc.stdin and proc.stdout and proc.stderr
    proc.stdin.write(json.dumps(event).encode())  # more than a pipe holds: a launcher that did not read it breaks this
    proc.stdin.close()
    out, err = proc.stdout.read(), proc.stderr.read()
    assert (proc.wait(), out, err) == (0, b"", b"")
    home = Path(os.environ["AUTOPILOT_HOME"])
    assert [p for p in home.rglob("*") if p.is_file()] == []


def older_install(bridge) -> Path:
    """Codex's side as an install from before the launcher left it: its stand-alone memory_hook.py in the handoff
    skill, listed in the skill's marker as that install's own; the scripts folder."""
    code, _, err = bridge("install", "codex")
    assert code == 0, err
    folder = skills.skill_dir("handoff")
    older = OLDER_HOOK.read_bytes()
    (folder / "scripts" / "memory_hook.py").write_bytes(older)
    marker = json.loads((folder / skills.MARKER).read_text())
    marker["files"]["scripts/memory_hook.py"] = "sha256:" + sha256_hex(older)
    (folder / skills.MARKER).write_text(json.dumps(marker, indent=2, sort_keys=True) + "\n")
    return folder / "scripts"


def codex_runs(scripts: Path, event: dict) -> str:
    """Run the installed hook as Codex does (its sh launcher, memory-hook) on one event; its stdout (exit 0)."""
    proc = subprocess.run(
        [str(scripts / "memory-hook")], input=json.dumps(event), capture_output=True, text=True, timeout=120
    )
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    return proc.stdout


PARSER = "def parse_header(line):\n    return line.split(':')\n"
EDIT = {
    "tool_name": "Edit",
    "tool_input": {"file_path": "parser.py", "old_string": "line.split(':')", "new_string": "split_fields(line)"},
    "tool_response": {"originalFile": PARSER},
    "tool_use_id": "u1",
}


def test_an_older_install_keeps_recording_with_this_package(bridge, git_repo):
    """The stand-alone script an older install left records a Codex edit and a prompt with this package, exit 0 and
    silent, redacting with its redactor; the prompt after the edit gets this bridge's injection. It finds no names
    for the edit (it looks for the package's memory where it was before the move) until setup replaces it."""
    scripts = older_install(bridge)
    assert codex_runs(scripts, payload("PostToolUse", git_repo, **EDIT)) == ""
    answer = codex_runs(scripts, payload("UserPromptSubmit", git_repo, prompt="use sk-proj-" + "Ab3Cd4Ef5" * 5))
    edit, request = logged(git_repo)
    assert (edit["kind"], edit["path"], "names" in edit) == ("edit", "parser.py", False)
    assert request["prompt"] == "use [REDACTED:openai_api_key]"
    assert "parser.py" in context_of(json.loads(answer))


def test_install_codex_replaces_an_older_memory_hook_with_the_launcher(bridge, git_repo):
    """`install codex` (what setup runs after an update) writes the launcher over the older script, which then
    records the edit with the names it changed."""
    scripts = older_install(bridge)
    code, out, err = bridge("install", "codex")
    assert code == 0, err
    assert "scripts/memory_hook.py" in json.loads(out)["skills"]["handoff"]["changed"]
    assert (scripts / "memory_hook.py").read_text() == LAUNCHER.read_text()
    assert codex_runs(scripts, payload("PostToolUse", git_repo, **EDIT)) == ""
    (edit,) = logged(git_repo)
    assert (edit["path"], edit["names"]) == ("parser.py", ["parse_header", "split_fields", "split"])
