"""What a test or lint command really reported: its outcome from the output's own summary, then its exit code.

A tool call that "completed" is not a passing test: ``pytest … || true`` exits 0 whether or
not a test ran, and a pipe (``pytest | tail``) reports the last command's status. So the
outcome is read in this order, and the basis says which one decided:

1. the runner's summary in the output: pytest (``1 failed, 2 passed in 0.3s``, ``no tests
   ran``), unittest (``Ran 3 tests`` / ``FAILED (failures=1)`` / ``OK``), jest and vitest
   (``Tests: 1 failed, 2 passed``), go test (``ok``/``FAIL``/``--- FAIL:``/``[no test
   files]``), cargo (``test result: FAILED.``), ruff and mypy (``All checks passed!``,
   ``Found 3 errors``, ``Success: no issues found``);
2. the exit code (``Exit code N`` / ``Process exited with code N``, or the reader's), unless
   the command masks it (``|| true``, ``|| :``, ``; true``, a pipe);
3. otherwise ``unknown``: a masked exit code and no summary prove nothing.

Outcomes: ``passed``, ``failed``, ``no-tests`` (the runner ran none) and ``unknown``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from autopilot.sources.local import exit_code

# A command that runs tests or a linter (its outcome is a validation).
TESTS = re.compile(
    r"\b(?:py\.?test|tox|nox|unittest|npm (?:run )?test|yarn test|pnpm test|jest|vitest|mocha|"
    r"go test|cargo test|make (?:test|check)|ruff|mypy|flake8|pylint|eslint|tsc|rspec|phpunit|"
    r"gradle(?:w)? test|mvn test|ctest|bats|tests/run)\b"
)
PASSED, FAILED, NO_TESTS, UNKNOWN = "passed", "failed", "no-tests", "unknown"
TAIL_CHARS = 6000  # summaries are at the end; tracebacks before them can be long
# A pytest summary line: counts (or "no tests ran") and a duration, optionally between ='s.
_PYTEST = re.compile(
    r"^=*\s*(?P<counts>(?:\d+ (?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?|rerun)"
    r"(?:, )?)+|no tests ran)(?: in [\d.]+s)?\b.*$",
    re.M,
)
_COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|deselected|xfailed|xpassed)")
_UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in [\d.]+s$", re.M)
_UNITTEST_END = re.compile(r"^(OK\b.*|FAILED \(.*\))$", re.M)
_JEST = re.compile(r"^\s*Tests:?\s+(.*\b(?:passed|failed)\b.*)$", re.M)
_GO_FAIL = re.compile(r"^(?:--- FAIL:|FAIL\b)", re.M)
_GO_OK = re.compile(r"^ok\s+\S+", re.M)
_CARGO = re.compile(r"^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed", re.M)
_LINT_FAIL = re.compile(r"^Found (\d+) errors?\b", re.M)
_LINT_OK = re.compile(r"^(?:All checks passed!|Success: no issues found.*)$", re.M)
_PYTEST_FAILED_LINE = re.compile(r"^(?:FAILED|ERROR) \S+", re.M)
_NONE_RAN = re.compile(r"^(?:no tests ran\b|No tests found\b|collected 0 items\b|\?\s+\S+\s+\[no test files\])", re.M)
# Shell forms after which the exit status no longer says how the test went.
_MASK = re.compile(r"\|\|\s*(?:true|:|exit\s+0)\b|;\s*(?:true|:|exit\s+0)\s*$|(?<![|])\|(?![|])")


@dataclass(frozen=True)
class Outcome:
    """A command's outcome and what it was read from."""

    status: str
    basis: str
    counts: dict[str, int] = field(default_factory=dict)


def masked(command: str) -> str | None:
    """The part of a command line that hides the test's exit status (``|| true``, a pipe), if any."""
    found = _MASK.search(command or "")
    return found.group(0).strip() if found else None


def read(command: str, output: str, code: int | None, is_error: bool) -> Outcome:
    """The outcome of one run of ``command`` from its ``output``, its exit ``code`` and the reader's error flag."""
    text = (output or "")[-TAIL_CHARS:]
    summary = _summary(text)
    if summary is not None:
        return summary
    if code is None:
        code = exit_code(output or "")
    hidden = masked(command)
    if hidden:
        return Outcome(UNKNOWN, f"the command hides its exit status (`{hidden}`) and its output has no test summary")
    if code is None:
        # Claude Code marks a non-zero exit as an error and prints "Exit code N"; no mark means 0.
        return Outcome(FAILED, "the tool reported an error") if is_error else Outcome(PASSED, "exit code 0")
    if code == 0:
        return Outcome(PASSED, "exit code 0")
    if code == 5 and re.search(r"\bpytest\b", command or ""):
        return Outcome(NO_TESTS, "exit code 5 (pytest: no tests were collected)")
    return Outcome(FAILED, f"exit code {code}")


def _summary(text: str) -> Outcome | None:
    """The outcome a runner's own summary states, or None when the output has none."""
    lines = list(_PYTEST.finditer(text))
    if lines:
        line = lines[-1].group(0).strip("= ").strip()
        counts = _counts(lines[-1].group("counts"))
        return _from_counts(counts, f"the summary line '{line}'")
    cargo = list(_CARGO.finditer(text))
    if cargo:
        ok, passed, failed = cargo[-1].groups()
        counts = {"passed": int(passed), "failed": int(failed)}
        status = FAILED if ok == "FAILED" or int(failed) else (PASSED if int(passed) else NO_TESTS)
        return Outcome(status, f"the summary line '{cargo[-1].group(0)}'", counts)
    ran = list(_UNITTEST_RAN.finditer(text))
    if ran:
        n = int(ran[-1].group(1))
        end = list(_UNITTEST_END.finditer(text))
        verdict = end[-1].group(1) if end else ""
        if verdict.startswith("FAILED"):
            return Outcome(FAILED, f"unittest: '{verdict}'", {"ran": n})
        return Outcome(PASSED if n else NO_TESTS, f"unittest: 'Ran {n} tests'" + (f", '{verdict}'" if verdict else ""))
    jest = list(_JEST.finditer(text))
    if jest:
        line = jest[-1].group(1).strip()
        return _from_counts(_counts(line.replace("|", ",")), f"the summary line 'Tests: {line}'")
    none = _NONE_RAN.search(text)
    if none:
        return Outcome(NO_TESTS, f"the output says '{none.group(0)}'")
    failed = _PYTEST_FAILED_LINE.search(text) or _GO_FAIL.search(text)
    if failed:
        return Outcome(FAILED, f"the output reports '{failed.group(0)}'")
    lint = list(_LINT_FAIL.finditer(text))
    if lint:
        return Outcome(FAILED, f"the output reports '{lint[-1].group(0)}'")
    ok = _LINT_OK.search(text) or _GO_OK.search(text)
    if ok:
        return Outcome(PASSED, f"the output reports '{ok.group(0)}'")
    return None


def _counts(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for n, word in _COUNT.findall(text):
        key = "errors" if word.startswith("error") else word
        counts[key] = counts.get(key, 0) + int(n)
    return counts


def _from_counts(counts: dict[str, int], basis: str) -> Outcome:
    if counts.get("failed") or counts.get("errors"):
        return Outcome(FAILED, basis, counts)
    if counts.get("passed") or counts.get("xpassed") or counts.get("xfailed"):
        return Outcome(PASSED, basis, counts)
    return Outcome(NO_TESTS, basis, counts)
