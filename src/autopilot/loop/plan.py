"""Plan: Codex turns a goal into tasks with acceptance criteria; the run is reset around the new plan.

Writes the plan file into the repository (``docs/autopilot/plans/``) and a plan artifact in
the run directory. A failed plan leaves the run that is there untouched (it is in events.jsonl).
The goal is redacted before anything uses it: no copy of it (prompt, plan file, state, output)
holds a credential the user pasted.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from autopilot import clock, config, git, untrusted
from autopilot.errors import BridgeError
from autopilot.fsutil import replace_text, user_dirs
from autopilot.loop import reviewer, snapshot, status, transitions
from autopilot.loop.migrations import (
    DEFAULT_MAX_ITERATIONS,
    DEFAULT_NO_PROGRESS_THRESHOLD,
    env_budget_usd,
)
from autopilot.loop.prompts import middle_cut
from autopilot.loop.workspace import PLAN_DIR, Workspace
from autopilot.output import printable, say
from autopilot.paths import slugify
from autopilot.redact import Redactor

if TYPE_CHECKING:
    from autopilot.loop.shapes import Plan, Planned

MAX_FILE_LIST_CHARS = 6000


def _repo_facts(root: str, redactor: Redactor) -> str:
    files = git.run_git(root, "ls-files", check=False)
    listing, cut = middle_cut(files, MAX_FILE_LIST_CHARS), len(files) > MAX_FILE_LIST_CHARS
    body = (
        f"branch: {git.branch(root) or '(detached)'}\nHEAD: {git.head_sha(root) or '(no commits)'}\n"
        f"tracked files{' (middle omitted)' if cut else ''}:\n{listing}"
    )
    return untrusted.evidence("repository", redactor(body))


def _plan_markdown(goal: str, plan: Plan, created: str) -> str:
    lines = [f"# Autopilot plan: {goal}", "", f"_Planned by Codex on {created}._", "", plan["summary"], ""]
    for task in plan["tasks"]:
        lines += [f"## {task['id']}: {task['title']}", "", task["description"], "", "Acceptance:"]
        lines += [f"- [ ] {criterion}" for criterion in task["acceptance"]]
        lines.append("")
    return "\n".join(lines)


def _plan_file(root: str, goal: str) -> Path:
    day = clock.utc("%Y-%m-%d")
    base = Path(PLAN_DIR) / f"{day}-{slugify(goal)}"
    path, n = base.with_suffix(".md"), 2
    while (Path(root) / path).exists():
        path, n = Path(PLAN_DIR) / f"{base.name}-{n}.md", n + 1
    return path


def plan(
    goal: str,
    *,
    budget: float | None = None,
    max_iterations: int | None = None,
    no_progress_threshold: int | None = None,
    model: str | None = None,
    backend: str | None = None,
    session_id: str | None = None,
    cwd: str | None = None,
    effort: str | None = None,
    min_rate_limit_left: float | None = None,
) -> Planned:
    """Plan ``goal`` with Codex, write the plan file and reset the run; returns the new run.

    The run keeps ``model`` and ``effort`` as given (flag, environment, the config's own; a phase's
    settings in the config apply per call) and ``min_rate_limit_left`` (flag, else the config's).
    """
    goal = (goal or "").strip()
    if not goal:
        raise BridgeError("the goal is empty", hint='say what you want done: codex-bridge plan --goal "..."')
    # Redacted once, here: the goal goes to Codex, into the plan file's name and text in the
    # repository, state.json, stderr and stdout, and no copy of it keeps a credential.
    redactor = Redactor()
    goal = redactor(goal)
    ws = Workspace(cwd)
    cfg = ws.config
    budget_usd = (
        float(config.positive_number("--budget", budget))
        if budget is not None
        else (
            float(config.positive_number("budget_usd", cfg["budget_usd"]))
            if "budget_usd" in cfg and not config.env("AUTOPILOT_BUDGET_USD")
            else env_budget_usd()
        )
    )
    max_iter = int(
        config.positive_number(
            "--max-iterations",
            max_iterations if max_iterations is not None else cfg.get("max_iterations", DEFAULT_MAX_ITERATIONS),
            integer=True,
        )
    )
    threshold = int(
        config.positive_number(
            "--no-progress-threshold",
            no_progress_threshold
            if no_progress_threshold is not None
            else cfg.get("no_progress_threshold", DEFAULT_NO_PROGRESS_THRESHOLD),
            integer=True,
        )
    )
    chosen_model = config.resolve_model(model, None, cfg)
    run_effort = config.resolve_effort(effort, None, cfg)
    floor_raw = min_rate_limit_left if min_rate_limit_left is not None else cfg.get("min_rate_limit_left")
    floor = config.percent("--min-rate-limit-left", floor_raw) if floor_raw is not None else None
    run_id = transitions.new_run_id()
    previous = ws.store.load()
    if previous.get("status") == status.RUNNING:
        say(f"replacing the running run ({redactor(str(previous.get('goal')))!r}); its spend stays in events.jsonl")
    text = reviewer.prompt("plan", goal=goal, repo=_repo_facts(ws.root, redactor))
    answer = ws.consult(
        "plan",
        text,
        None,  # a failed plan is in events.jsonl; the run that is there now is not touched by it
        backend=backend,
        model=model,
        effort=effort,
        run_id=run_id,
        min_rate_limit_left=floor,
        budget_usd=budget_usd,
        what=f"to plan: {goal[:80]}",
        check=transitions.check_plan,
        record=lambda answer: answer,  # the new run is built below, outside the call slot
    )
    plan: Plan = answer.data
    created = clock.utc("%Y-%m-%d %H:%M UTC")
    rel = _plan_file(ws.root, goal)
    target = Path(ws.root) / rel
    user_dirs(target.parent)  # the repository's folders get the user's umask, not the bridge's private one
    # whole or not at all, with the user's umask; Codex's words made printable: people `cat` this file
    replace_text(target, printable(_plan_markdown(goal, plan, created)))
    artifact = ws.store.artifact("plan", {"goal": goal, "plan": plan, "plan_path": str(rel)})
    owner = session_id if session_id is not None else config.env("CLAUDE_CODE_SESSION_ID")
    # Work already in the tree (uncommitted edits, the plan file itself) is not the first task's work.
    plan_tree = snapshot.work_tree(ws.root)
    with ws.store.transaction() as s:
        transitions.apply_plan(
            s,
            run_id=run_id,
            goal=goal,
            plan=plan,
            plan_path=str(rel),
            conversation_id=answer.conversation_id,
            base_sha=git.head_sha(ws.root),
            plan_tree=plan_tree,
            budget_usd=budget_usd,
            max_iterations=max_iter,
            no_progress_threshold=threshold,
            backend=answer.backend,
            model=chosen_model,
            owner_session_id=owner,
            usage=answer.usage,
            usd=answer.usd,
            calls=answer.calls,
            effort=run_effort,
            min_rate_limit_left=floor,
        )
        transitions.note_unknown_model(s, answer.unknown_model)
        answer.fresh = True  # a plan always starts the run's conversation
        transitions.track_conversation(s, answer)
        state = s.copy()
    say(f"planned {len(plan['tasks'])} tasks; wrote {rel}")
    if floor is not None and answer.backend != "codex-cli":
        say("--min-rate-limit-left holds back codex-cli calls only (the openai backend spends no Codex plan window)")
    return {
        "status": state["status"],
        "goal": goal,
        "plan_path": str(rel),
        "plan_artifact": str(artifact),
        "summary": plan["summary"],
        "tasks": plan["tasks"],
        "current_task": state["current_task"],
        "budget_usd": budget_usd,
        "plan_usd": answer.usd,
        "backend": answer.backend,
        "model": chosen_model,
        "effort": run_effort,
        "min_rate_limit_left": floor,
        "run_id": run_id,
        "conversation_id": answer.conversation_id,
        "owner_session_id": owner,
    }
