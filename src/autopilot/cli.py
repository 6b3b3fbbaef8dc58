"""codex-bridge: the only place that parses arguments; every command returns an exit code."""

from __future__ import annotations

import contextlib
import os
import sys

from autopilot.errors import EXIT_CRASH, EXIT_USAGE, BridgeError

DESCRIPTION = """\
Let OpenAI Codex plan, review and steer Claude Code's work, and hand live work between
Claude and Codex. JSON goes to stdout (pipe it to jq); diagnostics go to stderr.

exit codes: 0 ok, 1 bad input or refused (nothing changed), 2 bad command line,
3 Codex unavailable (recorded in the run), 4 budget spent, 5 unusable state.json, 70 crash."""

EPILOG = """\
typical loop:
  codex-bridge plan --goal "add a --json flag to the export command"
  codex-bridge review             # after edits: Codex reviews the diff against the task
  codex-bridge verdict            # when Claude stops: continue / done / abort
  codex-bridge status             # what is happening and what it cost
try it offline first:  codex-bridge demo"""


def _command_of(argv: list[str]) -> str | None:
    """The subcommand ``argv`` names (after an optional ``-C DIR``), without parsing anything else."""
    rest = argv[2:] if argv[:1] == ["-C"] else argv
    return rest[0] if rest and not rest[0].startswith("-") else None


def _parser(command: str | None = None):  # type: ignore[no-untyped-def]
    import argparse

    from autopilot import __version__

    parser = argparse.ArgumentParser(
        prog="codex-bridge",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"codex-autopilot {__version__}")
    parser.add_argument("-C", dest="cwd", metavar="DIR", help="run as if started in DIR (like git -C)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def backend_flags(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--backend",
            choices=["codex-cli", "openai"],
            help="Codex backend (default: AUTOPILOT_BACKEND, the run's, config, codex on PATH, openai)",
        )
        p.add_argument("--model", help="model to ask (default: AUTOPILOT_MODEL, config, the run's, Codex's own)")

    p = sub.add_parser(
        "plan",
        help="Codex turns a goal into tasks with acceptance criteria; resets the run",
        description="Ask Codex to plan GOAL, write docs/autopilot/plans/<date>-<slug>.md in "
        "the repo, and reset this workspace's run around the plan.",
    )
    p.add_argument("--goal", required=True, help="what you want done, in your words")
    p.add_argument(
        "--budget",
        type=float,
        metavar="USD",
        help="spend cap for reviews and verdicts (default: AUTOPILOT_BUDGET_USD, config, 5.00)",
    )
    p.add_argument("--max-iterations", type=int, metavar="N", help="verdicts before the run stops (default 20)")
    p.add_argument(
        "--no-progress-threshold",
        type=int,
        metavar="N",
        help="verdicts without progress in a row before a forced abort (default 3)",
    )
    p.add_argument(
        "--session-id",
        metavar="ID",
        help="Claude session that owns the run (default: $CLAUDE_CODE_SESSION_ID; none: first to claim)",
    )
    backend_flags(p)
    p.set_defaults(func=lambda a: _plan(a))

    p = sub.add_parser(
        "review",
        help="Codex reviews the diff since base_sha against the current task",
        description="Review committed, staged, unstaged and untracked changes since the run's "
        "base commit. Never changes the task, base, status or iteration.",
    )
    backend_flags(p)
    p.set_defaults(func=lambda a: _review(a))

    p = sub.add_parser(
        "verdict",
        help="Codex decides: continue with the next task, done, or abort",
        description="Advance the run: iteration+1, then continue/done/abort by Codex's verdict, "
        "the no-progress streak and the iteration limit.",
    )
    group = p.add_mutually_exclusive_group()
    group.add_argument("--last-message", metavar="TEXT", help="Claude's last message (evidence, not proof)")
    group.add_argument("--last-message-file", metavar="FILE", help="read Claude's last message from FILE ('-': stdin)")
    backend_flags(p)
    p.set_defaults(func=lambda a: _verdict(a))

    p = sub.add_parser("state", help="print this workspace's state.json as JSON")
    p.add_argument("--all", action="store_true", help="list every run under $AUTOPILOT_HOME/runs")
    p.set_defaults(func=lambda a: _run_state().show_state(all_runs_flag=a.all, cwd=a.cwd))

    p = sub.add_parser("status", help="human summary: task, iteration, spend, last review/verdict/error")
    p.set_defaults(func=lambda a: _run_state().show_status(cwd=a.cwd))

    p = sub.add_parser("stop", help="return the run to idle (token usage and spend are kept)")
    p.add_argument("--reason", default="stopped by the user", help="why (recorded as stop_reason)")
    p.set_defaults(func=lambda a: _run_state().stop(a.reason, cwd=a.cwd))

    p = sub.add_parser("resume", help="continue a paused, budget-stopped or iteration-limited run")
    p.set_defaults(func=lambda a: _run_state().resume(cwd=a.cwd))

    p = sub.add_parser("budget", help="the budget guard and the spend cap")
    bsub = p.add_subparsers(dest="budget_command", metavar="ACTION", required=True)
    b = bsub.add_parser("check", help="stop a running run that is over budget (exit 4 when over)")
    b.set_defaults(func=lambda a: _run_state().budget_check(cwd=a.cwd))
    b = bsub.add_parser("set", help="change the run's spend cap")
    b.add_argument("usd", type=float, metavar="USD")
    b.set_defaults(func=lambda a: _run_state().budget_set(a.usd, cwd=a.cwd))

    p = sub.add_parser(
        "demo",
        help="run the whole loop in a throwaway repo (offline unless a backend is set up)",
        description="Plan, edit, review and verdict until done in a temporary git repository, "
        "printing each state change. With no backend configured, Codex's answers "
        "come from the bundled scripted server (nothing leaves the machine).",
    )
    p.add_argument("--offline", action="store_true", help="use the scripted server even if a backend is set up")
    p.add_argument("--json", action="store_true", help="print each state change as a JSON line")
    p.add_argument("--keep", action="store_true", help="keep the throwaway repository and print its path")
    backend_flags(p)
    p.set_defaults(func=lambda a: _demo(a))

    p = sub.add_parser(
        "handoff",
        help="hand live work between Claude and Codex (transcript intake, packets)",
        description="Read a Claude transcript or a Codex rollout as bounded, newest-first, "
        "redacted evidence for the other agent.",
    )
    hsub = p.add_subparsers(dest="handoff_command", metavar="ACTION", required=True)
    if command in (None, "handoff"):  # its ten actions cost ~10 ms to build; other commands skip them
        from autopilot.commands import handoff_codex, handoff_intake, handoff_packets

        handoff_intake.add_parser(hsub)
        handoff_packets.add_parser(hsub)
        handoff_codex.add_parser(hsub)

    p = sub.add_parser(
        "install",
        help="install the $handoff hook and the handoff / from-claude skills into Codex",
        description="Merge codex-autopilot's UserPromptSubmit hook into $CODEX_HOME/hooks.json (backed "
        "up first, other hooks untouched) and install the handoff and from-claude skills "
        "under $CODEX_HOME/skills. Running it twice changes nothing.",
    )
    p.add_argument("agent", choices=["codex"], help="where to install (the Claude Code side is the plugin itself)")
    p.add_argument("--uninstall", action="store_true", help="remove exactly what install added")
    p.add_argument(
        "--trust",
        action="store_true",
        help="also record in config.toml that Codex may run the hook (instead of /hooks in Codex)",
    )
    p.set_defaults(func=lambda a: _install(a))

    p = sub.add_parser("hook", help="run a Claude Code hook (reads the event JSON on stdin)")
    p.add_argument("event")
    p.set_defaults(func=lambda a: _hook(a.event))
    return parser


def _plan(a) -> int:  # type: ignore[no-untyped-def]
    from autopilot.commands import plan

    return plan.run(
        a.goal,
        budget=a.budget,
        max_iterations=a.max_iterations,
        no_progress_threshold=a.no_progress_threshold,
        model=a.model,
        backend=a.backend,
        session_id=a.session_id,
        cwd=a.cwd,
    )


def _review(a) -> int:  # type: ignore[no-untyped-def]
    from autopilot.commands import review

    return review.run(backend=a.backend, model=a.model, cwd=a.cwd)


def _verdict(a) -> int:  # type: ignore[no-untyped-def]
    from autopilot.commands import verdict

    message = a.last_message
    if a.last_message_file:
        try:
            if a.last_message_file == "-":
                message = sys.stdin.read()
            else:
                with open(a.last_message_file, encoding="utf-8") as fh:
                    message = fh.read()
        except OSError as exc:
            raise BridgeError(f"cannot read {a.last_message_file}: {exc.strerror}") from None
    return verdict.run(last_message=message, backend=a.backend, model=a.model, cwd=a.cwd)


def _run_state():  # type: ignore[no-untyped-def]
    from autopilot.commands import run_state

    return run_state


def _demo(a) -> int:  # type: ignore[no-untyped-def]
    from autopilot.commands import demo

    return demo.run(offline=a.offline, as_json=a.json, keep=a.keep, backend=a.backend, model=a.model)


def _install(a) -> int:  # type: ignore[no-untyped-def]
    from autopilot.commands import install

    return install.run(a.agent, uninstall=a.uninstall, trust=a.trust)


def _hook(event: str) -> int:
    from autopilot import hooks

    return hooks.main(event)


def main(argv: list[str] | None = None) -> int:
    """Run codex-bridge with ``argv`` and return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # Hooks run on every Claude Code event, and `state` is what scripts poll: both skip argparse.
    if len(argv) == 2 and argv[0] == "hook":
        return _guarded(lambda: _hook(argv[1]))
    if argv in (["state"], ["-C", *argv[1:2], "state"]):
        cwd = argv[1] if argv[0] == "-C" else None
        return _guarded(lambda: _run_state().show_state(cwd=cwd))
    try:
        args = _parser(_command_of(argv)).parse_args(argv)
    except SystemExit as exc:  # argparse: --help, --version, or a malformed command line
        return int(exc.code or 0) if exc.code in (0, None) else EXIT_USAGE
    return _guarded(lambda: _in_dir(args))


def _in_dir(args) -> int:  # type: ignore[no-untyped-def]
    """Run the command from -C DIR, so every path it reads is relative to DIR, as with git -C."""
    if not args.cwd:
        return int(args.func(args))
    before = os.getcwd()
    try:
        os.chdir(args.cwd)
    except OSError as exc:
        raise BridgeError(f"-C {args.cwd}: {exc.strerror}", hint="give a directory that exists") from None
    args.cwd = os.getcwd()  # commands that take cwd= get it absolute
    try:
        return int(args.func(args))
    finally:
        os.chdir(before)


def _guarded(call) -> int:  # type: ignore[no-untyped-def]
    try:
        return int(call())
    except BridgeError as exc:
        print(f"codex-bridge: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("codex-bridge: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: say so, keep the traceback
        from autopilot.errors import write_crash_log
        from autopilot.paths import autopilot_home

        log = write_crash_log(str(autopilot_home()), exc)
        print(
            f"codex-bridge: internal error: {type(exc).__name__}: {exc} (traceback in {log}; please report it)",
            file=sys.stderr,
        )
        return EXIT_CRASH


def entry() -> None:
    """The console script: run main() and leave without interpreter teardown."""
    code = main()
    # Tearing down an interpreter that imported openai/pydantic costs 100+ ms of garbage collection
    # on every review and verdict (measured: bench/bench_bridge.py). Nothing needs it: every file the
    # bridge writes is closed before main() returns, and locks die with the process.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    entry()
