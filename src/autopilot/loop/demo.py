"""The demo: the whole loop (plan, edit, review, verdict ... done) in a throwaway repository.

With no backend configured (or ``offline``), Codex's answers come from the scripted Responses server in
this process (:func:`scripted_answer`), so nothing leaves the machine. ``codex-bridge demo`` runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from typing import TYPE_CHECKING, Any

from autopilot import config, paths
from autopilot.errors import BridgeError
from autopilot.git import run_git
from autopilot.loop import status
from autopilot.loop.plan import plan
from autopilot.loop.review import review
from autopilot.loop.state import Store
from autopilot.loop.verdict import decide
from autopilot.scripted.responses_server import ResponsesServer, reply_json

if TYPE_CHECKING:
    from autopilot.loop.shapes import Plan
    from autopilot.loop.shapes import RunState as State
    from autopilot.scripted.shapes import Step

GOAL = "Add a shout() helper to greet.py that upper-cases a greeting, with a test"
PLAN: Plan = {
    "summary": "Add the helper first, then a test that pins its behaviour.",
    "tasks": [
        {
            "id": "T1",
            "title": "Add shout()",
            "description": "Add shout(name) to greet.py returning greet(name).upper().",
            "acceptance": ["greet.py defines shout(name)", "shout('ada') returns 'HELLO, ADA!'"],
        },
        {
            "id": "T2",
            "title": "Test shout()",
            "description": "Add test_greet.py covering greet() and shout().",
            "acceptance": ["test_greet.py asserts shout('ada') == 'HELLO, ADA!'"],
        },
    ],
}
# What "Claude" does in the demo: one edit per turn.
EDITS = [
    (
        "greet.py",
        'def greet(name):\n    return f"Hello, {name}!"\n\n\ndef shout(name):\n    return greet(name).upper()\n',
    ),
    (
        "test_greet.py",
        "from greet import greet, shout\n\n\n"
        "def test_greet():\n    assert greet('ada') == 'Hello, ada!'\n"
        "\n\ndef test_shout():\n    assert shout('ada') == 'HELLO, ADA!'\n",
    ),
]


def scripted_answer(body: dict[str, Any]) -> Step:
    """The offline Codex: answers plan, review and verdict prompts by looking at the evidence it was sent."""
    name = (((body.get("text") or {}).get("format")) or {}).get("name", "")
    raw = body.get("input")
    prompt = raw if isinstance(raw, str) else json.dumps(raw)
    has_shout, has_test = "def shout" in prompt, "def test_shout" in prompt
    if name.endswith("plan"):
        return reply_json(PLAN)
    if name.endswith("review"):
        issues = (
            []
            if has_shout
            else [{"severity": "major", "file": "greet.py", "line": None, "message": "shout() is missing"}]
        )
        return reply_json(
            {
                "decision": "approve" if has_shout else "request_changes",
                "summary": "shout() delegates to greet() and upper-cases it."
                if has_shout
                else "The diff does not add shout() yet.",
                "issues": issues,
            }
        )
    current = "T2" if '<task id="T2">' in prompt else "T1"
    if current == "T1":
        verdict = {
            "decision": "continue",
            "reason": "T1 is met; add the test next (T2).",
            "next_task_id": "T2",
            "progressed": has_shout,
            "criteria": [
                {"criterion": c, "met": has_shout, "evidence": "greet.py"} for c in PLAN["tasks"][0]["acceptance"]
            ],
        }
    else:
        verdict = {
            "decision": "done" if has_test else "continue",
            "reason": "Both tasks are met." if has_test else "Add test_greet.py.",
            "next_task_id": None if has_test else "T2",
            "progressed": has_test,
            "criteria": [
                {
                    "criterion": PLAN["tasks"][1]["acceptance"][0],
                    "met": has_test,
                    "evidence": "test_greet.py: test_shout" if has_test else "",
                }
            ],
        }
    return reply_json(verdict)


def _git(repo: str, *args: str) -> None:
    env = {
        "GIT_AUTHOR_NAME": "demo",
        "GIT_AUTHOR_EMAIL": "demo@example.invalid",
        "GIT_COMMITTER_NAME": "demo",
        "GIT_COMMITTER_EMAIL": "demo@example.invalid",
    }
    run_git(repo, *args, env=env)


def _make_repo(root: str) -> str:
    repo = os.path.join(root, "greet-demo")
    os.makedirs(repo)
    _git(repo, "init", "-q", "-b", "main")
    with open(os.path.join(repo, "greet.py"), "w", encoding="utf-8") as fh:
        fh.write('def greet(name):\n    return f"Hello, {name}!"\n')
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "greet()")
    return repo


class _Printer:
    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json

    def __call__(self, step: str, state: State, note: str = "") -> None:
        current = state.get("current_task")
        task = current.get("id") if current else None
        if self.as_json:
            print(
                json.dumps(
                    {
                        "step": step,
                        "status": state["status"],
                        "task": task,
                        "iteration": state["iteration"],
                        "budget_used_usd": state["budget_used_usd"],
                        "budget_usd": state["budget_usd"],
                        "note": note,
                    }
                ),
                flush=True,
            )
        else:
            print(
                f"{step:<16} status={state['status']:<8} task={task or '-':<3} iteration={state['iteration']} "
                f"spend=${state['budget_used_usd']:.4f}/${state['budget_usd']:.2f}  {note}",
                flush=True,
            )


def demo(
    *,
    offline: bool = False,
    as_json: bool = False,
    keep: bool = False,
    backend: str | None = None,
    model: str | None = None,
    effort: str | None = None,
) -> int:
    """Run the demo loop and print each state change; returns 0 when the run ends done."""
    show = _Printer(as_json)
    root = tempfile.mkdtemp(prefix="codex-autopilot-demo-")
    saved = {
        k: os.environ.get(k)
        for k in (
            "AUTOPILOT_HOME",
            "OPENAI_BASE_URL",
            "OPENAI_API_KEY",
            "AUTOPILOT_BACKEND",
            "AUTOPILOT_MODEL",
            "AUTOPILOT_CONFIG",
            "AUTOPILOT_PRICES",
        )
    }
    server = None
    try:
        real = None
        if not offline:
            try:
                real = config.resolve_backend(backend, None, config.load_config())
            except BridgeError:
                real = None
        # The demo's run lives in a throwaway home, but a real backend keeps the user's settings and prices.
        user_files = {
            "AUTOPILOT_CONFIG": config.config_path(),
            "AUTOPILOT_PRICES": paths.autopilot_home() / "prices.yaml",
        }
        os.environ["AUTOPILOT_HOME"] = os.path.join(root, "home")  # the demo never touches your runs
        if real is not None:
            os.environ["AUTOPILOT_BACKEND"] = real
            os.environ.update({k: str(v) for k, v in user_files.items() if not os.environ.get(k) and v.exists()})
        if real is None:
            server = ResponsesServer(responder=scripted_answer).start()
            os.environ.update(
                OPENAI_BASE_URL=server.url,
                OPENAI_API_KEY="offline-demo",
                AUTOPILOT_BACKEND="openai",
                AUTOPILOT_MODEL="gpt-6.2-sol",
            )
            print(
                "offline demo: Codex answers are scripted (a local server in this process; nothing leaves the machine)",
                file=sys.stderr,
                flush=True,
            )
        else:
            print(
                f"demo with your configured backend: {real} (real Codex calls, capped at $0.50)",
                file=sys.stderr,
                flush=True,
            )
        repo = _make_repo(root)
        print(f"throwaway repository: {repo}", file=sys.stderr, flush=True)
        store = Store(repo)
        made = plan(GOAL, budget=0.50, max_iterations=4, backend=backend, model=model, effort=effort, cwd=repo)
        show("plan", store.load(), f"{len(made['tasks'])} tasks; wrote {made['plan_path']}")
        for path, content in EDITS:
            with open(os.path.join(repo, path), "w", encoding="utf-8") as fh:
                fh.write(content)
            show("claude edits", store.load(), path)
            reviewed = review(backend=backend, model=model, cwd=repo)
            show("review", store.load(), f"{reviewed.get('decision')}: {str(reviewed.get('summary', ''))[:60]}")
            judged = decide(last_message=f"I edited {path}.", backend=backend, model=model, cwd=repo)
            show("verdict", store.load(), f"{judged.get('decision')}: {judged['reason'][:60]}")
            if store.load()["status"] != status.RUNNING:
                break
        final = store.load()
        if final["status"] == status.RUNNING:
            show("demo ends", final, "Codex wants more work than the demo scripts; stopping the run")
        print(
            f"\n{final['status']}: {final['iteration']} iterations, ${final['budget_used_usd']:.4f} spent "
            f"(+ ${final['plan_usd']:.4f} to plan). Try it in your project: "
            f'codex-bridge plan --goal "..."',
            file=sys.stderr,
            flush=True,
        )
        return 0 if final["status"] == "done" else 1
    finally:
        if server is not None:
            server.stop()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        if keep:
            print(f"kept {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
