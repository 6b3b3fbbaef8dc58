"""Secrets at rest: what the hooks store under $AUTOPILOT_HOME holds no credential a view would redact.

The whole secret corpus goes through real hook calls (a prompt, a failing test run's command and
output, an edit's path, a compaction's instructions); then the memory logs, every other file under
``$AUTOPILOT_HOME``, the evidence index file, the stdout of ``handoff active``, ``search`` and
``inject``, and the dashboard API's answers are searched for every shape. Stores written before the
recorder redacted are rewritten once, on upgrade; Codex's hook records with the bridge it was installed
from (without it, it records nothing: tests/integration/handoff/memory/test_codex_hook.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autopilot.dashboard.api import Api
from autopilot.handoff.memory import observe, store
from tests.support.hooks import SESSION, payload
from tests.support.secret_corpus import leaked, shapes

ASSET = Path(observe.__file__).resolve().parents[2] / "codex" / "assets" / "handoff" / "scripts" / "memory_hook.py"


def hook(bridge, event: str, repo: Path, **fields) -> str:
    code, out, err = bridge("hook", event, stdin=json.dumps(payload(event, repo, **fields)))
    assert code == 0, err
    return out


def every_file(home: Path) -> str:
    """Every byte under $AUTOPILOT_HOME, decoded leniently, joined (logs, state, the index, crash logs)."""
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in sorted(home.rglob("*")) if p.is_file())


@pytest.mark.slow
def test_hooks_holding_the_corpus_store_and_show_none_of_it(git_repo, bridge, isolated_homes):
    """Every shape sent through the hooks: 0 found in the logs, the home, the index, the commands and the API."""
    corpus = shapes()
    home = Path(os.environ["AUTOPILOT_HOME"])
    outputs = [hook(bridge, "SessionStart", git_repo, source="startup")]
    for n, shape in enumerate(corpus):
        text = shape.text
        outputs.append(hook(bridge, "UserPromptSubmit", git_repo, prompt=f"here is what I found:\n{text}"))
        command = "pytest -q" + (f" --token {shape.token}" if shape.token else "")
        failure = {"tool_input": {"command": command}, "error": f"Exit code 1\n{text}\n1 failed"}
        hook(bridge, "PostToolUseFailure", git_repo, tool_name="Bash", **failure)
        if shape.token and "/" not in shape.token:
            hook(
                bridge, "PostToolUse", git_repo, tool_name="Edit",
                tool_input={"file_path": f"/w/{shape.token}.py"}, tool_response={},
            )  # fmt: skip
        if n % 10 == 0:
            hook(bridge, "PreCompact", git_repo, trigger="manual", custom_instructions=text[:400])
    log = (Path(observe.session_dir(os.path.realpath(git_repo), "claude", SESSION)) / observe.LOG).read_text()
    assert log.count('"kind":"request"') == len(corpus) and "here is what I found" in log
    places = {"observations.jsonl": log, "hook outputs": "\n".join(outputs)}
    for args in (
        ("handoff", "active", "--agent", "claude", "--session", SESSION, "--json"),
        ("handoff", "search", "found", "--json"),
        ("handoff", "inject", "--agent", "claude"),
    ):
        code, out, err = bridge(*args, cwd=git_repo, stdin=json.dumps(payload("UserPromptSubmit", git_repo)))
        assert code == 0, err
        places[" ".join(args[:2])] = out + err
    api = Api(str(git_repo))
    places["dashboard /api/memory/active"] = json.dumps(api.active_memory())
    places["dashboard /api/search"] = json.dumps(api.search("found"))
    places["everything under AUTOPILOT_HOME (the index file too)"] = every_file(home)
    assert any(p.name == "evidence.sqlite3" for p in home.rglob("*")), "the search built no index"
    if os.environ.get("DEBUG_LEAKS"):
        by = {s.name: s for s in corpus}
        with open(os.environ["DEBUG_LEAKS"], "w") as fh:
            for name, text in places.items():
                for shape in leaked(corpus, text):
                    for needle in by[shape].needles:
                        i = text.find(needle)
                        if i >= 0:
                            fh.write(f"{name} | {shape} | {text[max(0, i - 200) : i + 50]!r}\n")
    assert {name: leaked(corpus, text) for name, text in places.items() if leaked(corpus, text)} == {}


def write_old_store(repo: Path, secret: str) -> Path:
    """A session's store as a version without at-rest redaction left it: the secret in plain text."""
    folder = Path(observe.session_dir(os.path.realpath(repo), "claude", SESSION))
    folder.mkdir(parents=True)
    request = {"v": 1, "at": "2026-11-30T10:00:00.000Z", "agent": "claude", "event": "UserPromptSubmit",
               "via": "hook", "kind": "request", "prompt": f"deploy with {secret}"}  # fmt: skip
    (folder / observe.LOG).write_text(json.dumps(request) + "\nnot json " + secret + "\n")
    checkpoint = {"objective": f"rotate {secret}", "constraints": [], "next_action": "x", "unresolved": [],
                  "completed": []}  # fmt: skip
    (folder / observe.CHECKPOINTS).write_text(
        json.dumps({"v": 1, "at": "2026-11-30T10:00:01.000Z", "sha256": "sha256:old", "checkpoint": checkpoint}) + "\n"
    )
    return folder


def test_stores_written_before_the_upgrade_are_redacted_once(git_repo, bridge):
    """The first store opened after the upgrade rewrites every log redacted and marks it done; lines stay."""
    secret = "ghp_" + "Zq9Xw8Vu7Ts6" * 3
    folder = write_old_store(git_repo, secret)
    code, out, err = bridge("handoff", "active", "--agent", "claude", "--session", SESSION, "--json", cwd=git_repo)
    assert code == 0, err
    logs = (folder / observe.LOG).read_text() + (folder / observe.CHECKPOINTS).read_text()
    assert secret not in logs and logs.count("[REDACTED:github_token]") == 3 and "not json" in logs
    cp = json.loads((folder / observe.CHECKPOINTS).read_text())
    assert cp["sha256"] != "sha256:old" and (store.active_root() / store.AT_REST).read_text().strip() == "1"
    assert json.loads(out)["requests"] == 1


def test_the_rewrite_runs_once(git_repo, bridge):
    """After the marker is written, a store is not read again for redaction: a planted line stays as written."""
    store.redact_at_rest()  # nothing there yet: nothing to do, no marker
    folder = write_old_store(git_repo, "ghp_" + "Zq9Xw8Vu7Ts6" * 3)
    assert store.redact_at_rest() == 2
    with open(folder / observe.LOG, "a") as fh:
        fh.write('{"kind":"turn","note":"ghp_' + "Zq9Xw8Vu7Ts6" * 3 + '"}\n')
    assert store.redact_at_rest() == 0


def codex_hook(script_dir: Path, repo: Path, prompt: str, home: Path) -> str:
    """Run Codex's memory hook launcher from ``script_dir`` on one prompt; the observations it wrote."""
    event = payload("UserPromptSubmit", repo, prompt=prompt)
    subprocess.run(
        [sys.executable, "-I", str(script_dir / "memory_hook.py")],
        input=json.dumps(event), text=True, check=True, env={**os.environ, "AUTOPILOT_HOME": str(home)},
    )  # fmt: skip
    return (Path(observe.session_dir(os.path.realpath(repo), "codex", SESSION)) / observe.LOG).read_text()


def test_the_codex_hook_redacts_with_the_installing_bridge(git_repo, tmp_path):
    """With installed.json naming the bridge's package, Codex's hook stores the placeholder."""
    (tmp_path / "memory_hook.py").write_text(ASSET.read_text())
    package = str(Path(observe.__file__).resolve().parents[3])
    (tmp_path / "installed.json").write_text(json.dumps({"bridge": None, "python": None, "package": package}))
    secret = "sk-proj-" + "Ab3Cd4Ef5" * 5
    log = codex_hook(tmp_path, git_repo, f"use {secret}", Path(os.environ["AUTOPILOT_HOME"]))
    assert secret not in log and "[REDACTED:openai_api_key]" in log
