"""The demo: the whole loop (plan, edit, review, verdict ... done) in a throwaway repository.

Unless the person names a backend, Codex's answers come from the scripted Responses server in this process
(:func:`scripted_answer`), so nothing leaves the machine and no binary is asked, whatever is installed or
configured. ``codex-bridge demo`` runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from typing import TYPE_CHECKING, Any

from autopilot import config, paths
from autopilot.errors import BridgeError, InfraError
from autopilot.git import run_git
from autopilot.loop import status
from autopilot.loop.plan import plan
from autopilot.loop.review import review
from autopilot.loop.state import Store
from autopilot.loop.verdict import decide
from autopilot.output import say
from autopilot.scripted.responses_server import ResponsesServer, reply_json

if TYPE_CHECKING:
    from autopilot.loop.shapes import Plan, Review
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
    current = "T2" if '<task id="T2">' in prompt else "T1"
    if name.endswith("review"):
        return reply_json(_review(current, has_shout, has_test))
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


def _review(task: str, has_shout: bool, has_test: bool) -> Review:
    """The scripted review of the current task's diff: what that task's acceptance asks, met or not."""
    met, file, summary, missing = (
        (has_shout, "greet.py", "shout() delegates to greet() and upper-cases it.", "shout() is missing")
        if task == "T1"
        else (has_test, "test_greet.py", "test_greet.py pins greet() and shout(), a test each.", "no test of shout()")
    )
    return {
        "decision": "approve" if met else "request_changes",
        "summary": summary if met else f"The diff does not meet {task} yet: {missing}.",
        "issues": [] if met else [{"severity": "major", "file": file, "line": None, "message": missing}],
    }


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


BUDGET_USD = 0.50  # what a demo with a real backend may spend at most
# What the demo sets for its own run, and puts back as it found them however it ends.
DEMO_ENV = (
    "AUTOPILOT_HOME",
    "OPENAI_BASE_URL",
    "OPENAI_API_KEY",
    "AUTOPILOT_BACKEND",
    "AUTOPILOT_MODEL",
    "AUTOPILOT_EFFORT",
    "AUTOPILOT_CONFIG",
    "AUTOPILOT_PRICES",
)


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
    as_json: bool = False,
    keep: bool = False,
    backend: str | None = None,
    model: str | None = None,
    effort: str | None = None,
) -> int:
    """Run the demo loop and print each state change; returns 0 when the run ends done.

    Offline unless ``backend`` names one: Codex's answers are scripted and nothing is asked of any binary or server,
    whatever is installed or configured. A backend named is asked for real, and one that cannot answer ends the demo
    at its first call with the reason and the fix.
    """
    if (model or effort) and not backend:
        raise BridgeError(
            "--model and --effort choose what a real backend is asked; the offline demo's answers are scripted",
            hint="add --backend codex-cli (or openai) for real Codex calls, or drop them",
        )
    if backend == "codex-cli" and not config.codex_binary(config.load_config()):
        raise InfraError(
            "--backend codex-cli: the Codex CLI was not found",
            kind="binary_missing",
            hint=f"{config.SETUP_HINT}; or run `codex-bridge demo` for the offline demo",
        )
    show = _Printer(as_json)
    root = tempfile.mkdtemp(prefix="codex-autopilot-demo-")
    saved = {k: os.environ.get(k) for k in DEMO_ENV}
    server = None
    try:
        # The demo's run lives in a throwaway home, but a real backend keeps the user's settings and prices.
        user_files = {
            "AUTOPILOT_CONFIG": config.config_path(),
            "AUTOPILOT_PRICES": paths.autopilot_home() / "prices.yaml",
        }
        os.environ["AUTOPILOT_HOME"] = os.path.join(root, "home")  # the demo never touches your runs
        if backend:
            os.environ["AUTOPILOT_BACKEND"] = backend
            os.environ.update({k: str(v) for k, v in user_files.items() if not os.environ.get(k) and v.exists()})
            say(f"demo with a real backend: {backend} (real Codex calls, capped at ${BUDGET_USD:.2f})")
        else:
            server = ResponsesServer(responder=scripted_answer).start()
            for name in ("AUTOPILOT_CONFIG", "AUTOPILOT_PRICES", "AUTOPILOT_MODEL", "AUTOPILOT_EFFORT"):
                os.environ.pop(name, None)  # nothing of the user's setup reaches the offline run
            os.environ.update(
                OPENAI_BASE_URL=server.url,
                OPENAI_API_KEY="offline-demo",
                AUTOPILOT_BACKEND="openai",
                AUTOPILOT_MODEL="gpt-6.2-sol",
            )
            say(
                "offline demo: Codex's answers are scripted (a local server in this process; nothing leaves the "
                "machine). For real Codex calls: codex-bridge demo --backend codex-cli"
            )
        repo = _make_repo(root)
        say(f"throwaway repository: {repo} ({'kept' if keep else 'removed'} when the demo ends)")
        store = Store(repo)
        try:
            made = plan(
                GOAL, budget=BUDGET_USD, max_iterations=4, backend=backend, model=model, effort=effort, cwd=repo
            )
        except InfraError as exc:
            # The first call tells whether the backend answers at all: say so now, with the fix, not later.
            raise InfraError(
                f"the demo's backend ({backend}) cannot answer: {exc}",
                kind=exc.kind,
                hint="fix that and try again, or run `codex-bridge demo` without --backend for the offline demo",
            ) from None
        planned = store.load()
        show(
            "plan",
            planned,
            f"{len(made['tasks'])} tasks for ${planned['plan_usd']:.4f} (planning is not charged to the budget); "
            f"wrote {made['plan_path']}",
        )
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
        say(
            f"{final['status']}: {final['iteration']} iterations, ${final['budget_used_usd']:.4f} of the "
            f"${final['budget_usd']:.2f} budget spent (planning: ${final['plan_usd']:.4f}, not charged to it). "
            'Try it in your project: codex-bridge plan --goal "..."'
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
            say(f"kept {root} (the repository in greet-demo/, the run's files in home/)")
        else:
            shutil.rmtree(root, ignore_errors=True)
