"""Run the codex-bridge CLI in-process, as most tests do."""

from __future__ import annotations

import io
import os
from contextlib import redirect_stderr, redirect_stdout


def run_bridge(*args: str, stdin: str = "", cwd: str | os.PathLike[str] | None = None) -> tuple[int, str, str]:
    """Run the CLI in-process and return (exit code, stdout, stderr)."""
    from autopilot.cli import main

    out, err = io.StringIO(), io.StringIO()
    old_cwd = os.getcwd()
    old_stdin = os.sys.stdin
    try:
        if cwd is not None:
            os.chdir(cwd)
        os.sys.stdin = io.StringIO(stdin)
        with redirect_stdout(out), redirect_stderr(err):
            code = main(list(args))
    finally:
        os.sys.stdin = old_stdin
        os.chdir(old_cwd)
    return code, out.getvalue(), err.getvalue()
