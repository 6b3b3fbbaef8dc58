"""Which commands validate (test, lint, type check, build), and what a run of one really showed.

A run's outcome is read from what it printed as much as from its exit code, because the exit code
can lie: ``pytest … || true`` exits 0 whatever happened, and ``pytest`` that collected nothing exits
5 but prints no failure. So: a run that ran no test is ``no-tests`` (never a pass); one whose output
reports failures is ``fail`` even when it exited 0; a masked exit code (``|| true``, ``; exit 0``)
with nothing conclusive printed is ``unknown``; otherwise exit 0 is ``pass`` and any other code is
``fail``. Codex's hooks hand over no exit code at all: its runs are judged by their output until
``handoff recover`` reads the code from the rollout.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autopilot.handoff.transcripts.shapes import Judged

# Words that wrap the real command: `env X=1 timeout 60 uv run pytest` validates with pytest.
_WRAPPERS = frozenset({"env", "time", "nice", "sudo", "command", "exec", "xvfb-run", "npx", "bunx", "pnpx", "stdbuf"})
_RUNNERS = frozenset({"uv", "poetry", "pipenv", "hatch", "pdm", "rye", "pixi"})  # `<runner> run <command>`
_TEST = frozenset(
    {"pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "ctest", "rspec", "phpunit", "ava", "bats"}
)
_LINT = frozenset({"ruff", "flake8", "pylint", "eslint", "black", "isort", "prettier", "shellcheck", "golangci-lint"})
_TYPES = frozenset({"mypy", "pyright", "tsc", "pytype", "dmypy"})
_SCRIPT_WORDS = ("test", "lint", "build", "check", "typecheck", "type-check", "types", "verify", "ci")
_SEGMENTS = re.compile(r"&&|\|\||[;|\n]")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_TEST_SCRIPT = re.compile(r"(?:^|/)(?:run[_-]?)?tests?(?:[_-]\w+)?(?:\.sh|\.py)?$|(?:^|/)tests?/run$")
_MASKED = re.compile(r"\|\|\s*(?:true|:|exit\s+0)\b|;\s*(?:true|exit\s+0)\s*$")
_NO_TESTS = re.compile(
    r"no tests ran|collected 0 items|\bRan 0 tests\b|\bno tests? (?:found|to run)\b|no test files"
    r"|\b0 tests? (?:passed|ran)\b|no tests were found",
    re.I,
)
_FAILED = re.compile(
    r"\b[1-9]\d* (?:failed|failing|failures?|errors?)\b|^FAILED\b|\bFAIL\b|Tests?:\s+[1-9]\d* failed"
    r"|\bFound [1-9]\d* errors?\b|\berror TS\d+|test result: FAILED|^error(?:\[E\d+\])?:|panicked at"
    r"|^FAILED \(|\bwould reformat\b",
    re.M,
)
_PASSED = re.compile(
    r"\b[1-9]\d* passed\b|^OK\b|All checks passed|Success: no issues found|\b0 errors?\b"
    r"|Tests?:\s+\d+ passed|test result: ok|^ok\s+\S+|\bPASS\b|\bwould be left unchanged\b",
    re.M,
)
_SUMMARY = re.compile(
    r"\b\d+ (?:passed|failed|errors?|skipped|failures?)\b|no tests ran|collected 0 items|\bRan \d+ tests?\b"
    r"|All checks passed|Success: no issues found|\bFound \d+ errors?\b|test result:|Tests?:\s+\d+",
    re.I,
)
FAILING = frozenset({"fail", "no-tests", "interrupted"})


def kind_of(command: str) -> str | None:
    """``test``, ``lint``, ``typecheck`` or ``build`` when one segment of ``command`` runs such a tool, else None."""
    for segment in _SEGMENTS.split(command):
        found = _segment_kind(segment.split())
        if found:
            return found
    return None


def _segment_kind(words: list[str]) -> str | None:
    while words and (_ASSIGNMENT.match(words[0]) or words[0] in _WRAPPERS):
        words = words[1:]
        if words and words[0].isdigit():  # `timeout 60`, `nice 5`
            words = words[1:]
    if words and words[0] == "timeout":
        words = words[2:]
    if len(words) > 1 and words[0] in _RUNNERS and words[1] in ("run", "exec"):
        words = words[2:]
    if len(words) > 2 and os.path.basename(words[0]).startswith("python") and words[1] == "-m":
        words = words[2:]
    if not words:
        return None
    first = os.path.basename(words[0])
    second = words[1] if len(words) > 1 else ""
    if first in _TEST or (first == "unittest" or (first == "go" and second == "test")):
        return "test"
    if first in _LINT or (first == "go" and second == "vet") or (first == "cargo" and second == "clippy"):
        return "lint"
    if first in _TYPES:
        return "typecheck"
    if first == "cargo" and second in ("test", "nextest"):  # noqa: SIM114 - one line per tool reads better
        return "test"
    if (first == "cargo" and second in ("build", "check")) or (first == "go" and second == "build"):
        return "build"
    if first in ("npm", "pnpm", "yarn", "bun"):
        rest = _without_options(words[1:])
        second = rest[0] if rest else ""
        script = rest[1] if second == "run" and len(rest) > 1 else second
        for word in _SCRIPT_WORDS:
            if script == word or script.startswith(word + ":"):
                return "test" if word == "test" else "lint" if word == "lint" else "build"
        return None
    if first in ("make", "just", "task"):
        targets = [w for w in words[1:] if not w.startswith("-")]
        return (
            "test"
            if any("test" in t or t in ("check", "ci") for t in targets)
            else "build"
            if first == "make"
            else None
        )
    if first in ("mvn", "mvnw", "gradle", "gradlew", "./gradlew", "./mvnw") or words[0] in ("./gradlew", "./mvnw"):
        return "test" if any(w in ("test", "verify", "check") for w in words[1:]) else "build"
    if first == "dotnet" and second == "test":
        return "test"
    if _TEST_SCRIPT.search(words[0]):
        return "test"
    return None


# a package manager's options before its command that take a value (`npm --prefix web test`, `pnpm -C web test`,
# `yarn --cwd web test`, `npm -w app test`); `--prefix=web` carries its own
_VALUED_OPTIONS = frozenset({"--prefix", "-C", "--dir", "--cwd", "--workspace", "-w", "--filter", "-F"})


def _without_options(words: list[str]) -> list[str]:
    """``words`` from the package manager's command on: its leading options (and their values) left out."""
    while words and words[0].startswith("-"):
        words = words[2:] if words[0] in _VALUED_OPTIONS else words[1:]
    return words


def key_of(command: str) -> str:
    """The command as one validation (``|| true`` and spacing do not make it another one)."""
    return " ".join(_MASKED.sub("", command).split())


def masked(command: str) -> bool:
    """Whether the command hides its exit code (``|| true``, ``|| :``, ``; exit 0``...)."""
    return bool(_MASKED.search(command))


def classify(command: str, exit_code: int | None, output: str | None, *, interrupted: bool = False) -> Judged:
    """A run's ``outcome`` (pass | fail | no-tests | unknown | interrupted) and its summary line."""
    text = output or ""
    hidden = masked(command)
    summary = None
    for line in reversed(text.splitlines()):
        if _SUMMARY.search(line):
            summary = line.strip(" =*-")[:200]
            break
    if interrupted:
        outcome = "interrupted"
    elif _NO_TESTS.search(text):
        outcome = "no-tests"
    elif _FAILED.search(text) or (exit_code is not None and exit_code != 0 and not hidden):
        outcome = "fail"
    elif (exit_code == 0 and not hidden) or _PASSED.search(text):
        outcome = "pass"
    else:
        outcome = "unknown"
    return {"outcome": outcome, "summary": summary, "masked": hidden}


def basis(judged: Judged, exit_code: int | None) -> str:
    """Where :func:`classify` read a run's outcome: its summary line, else its exit code (unless the command hid it)."""
    if judged.get("summary"):
        return f"the summary line '{judged['summary']}'"
    if judged.get("masked"):
        return "the command hides its exit code and printed no conclusive summary"
    return f"exit code {exit_code}" if exit_code is not None else "no exit code and no conclusive summary"
