"""codex-bridge: the one entry point; maps commands to their modules and errors to exit codes.

Argument parsing is done by each command module's ``add_parser`` (``commands/``); this module
holds the lazy table of commands, the fast paths that skip argparse (``hook EVENT``, ``state``,
``statusline``, and the ``handoff`` actions agents run often, with a command line read as argparse
would: ``QUICK``), ``-C DIR``, and the one mapping from :class:`~autopilot.errors.BridgeError` to exit codes.
"""

from __future__ import annotations

import os
import sys

from autopilot.errors import EXIT_CRASH, EXIT_USAGE, BridgeError

TYPE_CHECKING = False  # typing costs ~2 ms to import; this idiom keeps it off the fast paths
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import Any

DESCRIPTION = """\
Let OpenAI Codex plan, review and steer Claude Code's work, and hand live work between
Claude and Codex. JSON goes to stdout (pipe it to jq); diagnostics go to stderr.

exit codes: 0 ok, 1 bad input or refused (nothing changed), 2 bad command line,
3 Codex or the git remote unavailable, 4 budget spent, 5 unusable state.json, 70 crash."""

EPILOG = """\
typical loop:
  codex-bridge plan --goal "add a --json flag to the export command"
  codex-bridge review             # after edits: Codex reviews the diff against the task
  codex-bridge verdict            # when Claude stops: continue / done / abort
  codex-bridge status             # what is happening and what it cost
try it offline first:  codex-bridge demo"""


# The commands, in the order --help lists them: each is autopilot.commands.<name> (dashes as
# underscores), exposing add_parser(sub) and run(args). Only the module of the command being run
# is imported, so no command pays for another's parser or imports.
COMMANDS = (
    "plan",
    "review",
    "verdict",
    "state",
    "status",
    "stop",
    "resume",
    "budget",
    "report",
    "demo",
    "handoff",
    "durable",
    "share",
    "dashboard",
    "install",
    "setup",
    "doctor",
    "statusline",
    "hook",
)


ALIASES = {"memory": "durable"}  # a command's earlier name -> its module (argparse knows them as aliases)


def _command_of(argv: list[str]) -> str | None:
    """The subcommand ``argv`` names (after an optional ``-C DIR``), without parsing anything else."""
    rest = argv[2:] if argv[:1] == ["-C"] else argv
    name = rest[0] if rest and not rest[0].startswith("-") else None
    return ALIASES.get(name, name) if name else None


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser, with the full sub-parser of ``command`` only (all of them for --help or an unknown one)."""
    import argparse
    import importlib

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
    for name in COMMANDS if command not in COMMANDS else (command,):
        importlib.import_module(f"autopilot.commands.{name.replace('-', '_')}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run codex-bridge with ``argv`` and return the exit code; what it creates is its user's alone (umask 077, a
    home an older version left readable tightened once), and the caller's umask is put back."""
    from autopilot import config, fsutil

    previous = fsutil.private_umask()
    try:
        fsutil.tighten(config.autopilot_home())
        return _main(list(sys.argv[1:] if argv is None else argv))
    finally:
        fsutil.restore_umask(previous)


def _main(argv: list[str]) -> int:
    # Hooks run on every Claude Code event, `state` is what scripts poll, agents search and read often: all skip
    # argparse.
    if len(argv) == 2 and argv[0] == "hook" and not argv[1].startswith("-"):  # `hook --help`: argparse
        from autopilot import hooks

        # A hook that redacts (a prompt with a credential in it) builds its patterns from the kept programs without
        # loading `re`: what it compiled afresh is kept for the next one.
        return _guarded(lambda: _keeping_new_patterns(lambda: hooks.main(argv[1])))
    if argv[:1] == ["statusline"]:  # runs on every status-line render: no argparse
        from autopilot.commands import statusline

        return statusline.respond(argv[1:])
    if argv in (["state"], ["-C", *argv[1:2], "state"]):
        from autopilot.commands import state

        cwd = argv[1] if argv[0] == "-C" else None
        return _guarded(lambda: state.show(cwd=cwd))
    quick = _quick(argv)
    if quick is not None:
        return quick
    try:
        args = _parser(_command_of(argv)).parse_args(argv)
    except SystemExit as exc:  # argparse: --help, --version, or a malformed command line
        return int(exc.code or 0) if exc.code in (0, None) else EXIT_USAGE
    return _guarded(lambda: _in_dir(args.cwd, lambda here: _run(args, here)))


# The commands agents run often, read without argparse when their command line is a usual one: the words
# after `handoff`, and the module whose quick_args/run_quick read and run it (commands/quick.py).
QUICK = {
    ("search",): "handoff.search",
    ("intake",): "handoff.intake",
    ("from-codex", "intake"): "handoff.codex",
    ("read",): "handoff.packets",
}
# The same for top-level commands: `review`, whose own time bench_bridge.py holds to 150 ms.
QUICK_COMMANDS = {"review": "review"}


def _quick(argv: list[str]) -> int | None:
    """``[-C DIR] handoff ACTION ...`` or ``[-C DIR] review ...`` run without argparse (~12 ms of the process), or
    None: not read here."""
    given = argv[:1] == ["-C"] and len(argv) > 1 and not argv[1].startswith("-")
    cwd, rest = (argv[1], argv[2:]) if given else (None, argv)
    if rest[:1] and rest[0] in QUICK_COMMANDS:
        command = _module(f"autopilot.commands.{QUICK_COMMANDS[rest[0]]}")
        options = command.quick_args(rest[1:])
        if options is None:  # --help, a bad value, anything unusual: argparse says it, as always
            return None
        return _guarded(lambda: _in_dir(cwd, lambda here: command.run_quick(options, here)))
    if rest[:1] != ["handoff"]:
        return None
    words = next((w for w in QUICK if tuple(rest[1 : 1 + len(w)]) == w), None)
    if words is None:
        return None
    command = _module(f"autopilot.commands.{QUICK[words]}")
    options = command.quick_args(rest[1 + len(words) :])
    if options is None:  # --help, a bad value, anything unusual: argparse says it, as always
        return None

    def run() -> int:
        return _guarded(lambda: _in_dir(cwd, lambda here: command.run_quick(options, here)))

    return _patterns_kept(run) if words in KEEP_PATTERNS else run()


def _module(name: str) -> Any:
    """The module ``name``, imported: ``importlib.import_module`` without importlib (and the warnings module it
    imports), ~1 ms of every quick command."""
    __import__(name)
    return sys.modules[name]


# The quick actions that keep the patterns they compile: the intakes' pages redact (and read transcripts); a search
# tokenizes its query with the tokenizer's patterns, built from kept programs without loading `re` (~7 ms with enum).
KEEP_PATTERNS = {("intake",), ("from-codex", "intake"), ("search",)}


def _patterns_kept(call: Callable[[], int]) -> int:
    """``call`` with the regular expressions it compiles kept for the next process (``autopilot.patterns``): a page of a
    transcript compiles ~55 of the redactor's and the readers' patterns, ~20 ms that a kept program saves."""
    from autopilot import patterns

    patterns.keep_compiled(kept_patterns_path())
    try:
        return _keeping_new_patterns(call)
    finally:
        patterns.keep_compiled(None)  # an in-process caller (a test) goes on without the kept file


def _keeping_new_patterns(call: Callable[[], int]) -> int:
    """``call``, then the programs of the patterns it compiled that its kept file lacked written there (a process that
    compiled none, or never loaded the patterns module, writes nothing and loads nothing for it)."""
    try:
        return call()
    finally:
        patterns = sys.modules.get("autopilot.patterns")
        path = None if patterns is None else patterns.kept_in()
        data = None if path is None else patterns.compiled_cache()  # type: ignore[union-attr]  # path: loaded
        if path is not None and data is not None and not sys.dont_write_bytecode:  # no bytecode, no program either
            from autopilot import fsutil

            try:  # a cache: a read-only install only means the next process compiles again
                os.makedirs(os.path.dirname(path), exist_ok=True)
                fsutil.atomic_write(path, data, durable=False)
            except OSError:
                pass


def kept_patterns_path() -> str:
    """Where the intakes keep the compiled patterns (``patterns.kept_path``: beside the package's own bytecode,
    never in the bridge's home)."""
    from autopilot import patterns

    return patterns.kept_path()


def _run(args: argparse.Namespace, cwd: str | None) -> int:
    args.cwd = cwd  # commands that take cwd= get it absolute
    return int(args.func(args))


def _in_dir(cwd: str | None, call: Callable[[str | None], int]) -> int:
    """``call`` run from -C DIR (given DIR made absolute), so every path it reads is relative to DIR, as with git -C."""
    if not cwd:
        return int(call(None))
    before = os.getcwd()
    try:
        os.chdir(cwd)
    except OSError as exc:
        raise BridgeError(f"-C {cwd}: {exc.strerror}", hint="give a directory that exists") from None
    try:
        return int(call(os.getcwd()))
    finally:
        os.chdir(before)


def _guarded(call: Callable[[], int]) -> int:
    from autopilot.errors import Terminated, end_cleanly_on_signals, restore_signals

    # A command ended by SIGTERM or a closed terminal cleans up as on Ctrl-C: no child process, no temp folder left.
    previous = end_cleanly_on_signals()
    try:
        return _answered(call)
    except Terminated as exc:
        print(f"codex-bridge: stopped by signal {exc.signum}", file=sys.stderr)
        return 128 + exc.signum
    finally:
        restore_signals(previous)


def _answered(call: Callable[[], int]) -> int:
    """``call``'s exit code, with a BridgeError, Ctrl-C or a crash turned into its own."""
    try:
        return int(call())
    except BridgeError as exc:
        from autopilot.output import printable

        print(f"codex-bridge: error: {printable(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("codex-bridge: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: say so, keep the traceback
        from autopilot.errors import unwritable
        from autopilot.output import printable
        from autopilot.paths import autopilot_home
        from autopilot.plugin import write_crash_log

        full = unwritable(exc)  # a full or read-only disk met outside the run's own writes is no bug either
        if full is not None:
            print(f"codex-bridge: error: {printable(str(full))}", file=sys.stderr)
            return full.exit_code

        log = write_crash_log(str(autopilot_home()), exc)
        print(
            f"codex-bridge: internal error: {type(exc).__name__}: {printable(str(exc))} (traceback in {log}; "
            "please report it)",
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
        # not contextlib.suppress: contextlib costs ~3 ms to import on every hook (bench/bench_hooks.py)
        try:  # noqa: SIM105
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":
    entry()
