"""The command line itself: -C DIR runs a command from DIR, as git -C does; the intakes keep the regular expressions
they compile for the next process (cli._patterns_kept), whose page compiles none of them again and answers the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.repo import REPO


def test_relative_paths_follow_dash_c(planned, openai_env, bridge, tmp_path):
    """-C DIR works like git -C: the command runs from DIR."""
    code, out, _ = bridge("-C", str(planned), "state")
    assert code == 0 and json.loads(out)["workspace"] == str(Path(planned).resolve())
    code, _, err = bridge("-C", str(tmp_path / "nope"), "status")
    assert code == 1 and "-C" in err and "directory" in err


SESSION = REPO / "tests" / "fixtures" / "claude" / "tools" / "49fa090f-34fe-47da-9cd9-cf59c6a193ff.jsonl"
ROLLOUT = REPO / "tests" / "fixtures" / "codex" / "exec_tools.jsonl"
# A bridge process that counts the patterns re's Python compiler builds while the command runs (stderr: the count).
COUNTING = """
import importlib, os, sys
compiler = importlib.import_module("re._compiler" if sys.version_info >= (3, 11) else "sre_compile")
from autopilot import cli
cli.kept_patterns_path = lambda: os.environ["KEPT_PATTERNS"]  # this test's own file, not the checkout's
real, built = compiler.compile, []
compiler.compile = lambda p, flags=0: built.append(p) or real(p, flags)
code = cli.main(sys.argv[1:])
print(len(built), file=sys.stderr)
sys.exit(code)
"""


def page(stdout: str) -> dict[str, object]:
    """The answer without what says how it was read (its index built or reused, the bytes scanned)."""
    answer = json.loads(stdout)
    for key in ("index", "scannedBytes"):
        answer["diagnostics"].pop(key)
    return answer  # type: ignore[no-any-return]


def run(home: Path, *args: str, bytecode: bool = True) -> tuple[dict[str, object], int]:
    kept_at = home / "compiled" / "regex.marshal"
    env = {**os.environ, "AUTOPILOT_HOME": str(home), "PYTHONPATH": str(REPO / "src"), "KEPT_PATTERNS": str(kept_at)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", COUNTING, *args], env=env, capture_output=True, text=True, timeout=120, check=True
    )
    return page(done.stdout), int(done.stderr.split()[-1])


def kept(home: Path) -> Path:
    found = home / "compiled" / "regex.marshal"
    assert found.is_file()
    return found


def test_compiled_patterns_are_kept_beside_the_code_never_in_the_home() -> None:
    """A kept program runs as the redactor: it lives where the package's bytecode does, which an agent's sandbox
    cannot write, not in the home, which it can."""
    from autopilot import cli, paths

    where = Path(cli.kept_patterns_path())
    package = Path(cli.__file__).resolve().parent
    assert where.parent.name == "__pycache__" and where.resolve().is_relative_to(package)
    assert not where.resolve().is_relative_to(paths.autopilot_home().resolve())


def test_a_second_page_compiles_no_pattern_the_first_kept(tmp_path: Path) -> None:
    for agent, args in (
        ("claude", ["handoff", "intake", str(SESSION)]),
        ("codex", ["handoff", "from-codex", "intake", str(ROLLOUT)]),
    ):
        home = tmp_path / agent
        first, built_first = run(home, *args)
        cache = kept(home)
        written = cache.stat().st_mtime_ns
        second, built_second = run(home, *args)
        assert second == first  # the same page
        assert built_first >= 15 and built_second <= built_first - 15, (agent, built_first, built_second)
        assert cache.stat().st_mtime_ns == written  # nothing new: not written again


def test_a_damaged_or_unwritable_cache_changes_no_answer(tmp_path: Path) -> None:
    home = tmp_path / "home"
    args = ["handoff", "intake", str(SESSION)]
    clean, _ = run(home, *args)
    kept(home).write_bytes(b"\x00garbage")
    damaged, built = run(home, *args)
    assert damaged == clean and built >= 15  # compiled again, and the file made good
    _, built = run(home, *args)
    assert built < 15
    other = tmp_path / "other"
    (other / "compiled" / "regex.marshal").mkdir(parents=True)  # a directory where the file goes
    unwritable, _ = run(other, *args)
    assert unwritable == clean
    quiet = tmp_path / "no-bytecode"
    assert run(quiet, *args, bytecode=False)[0] == clean
    assert not (quiet / "compiled").exists()  # a user who keeps no bytecode gets no kept pattern either


# A hook process whose kept file is this test's: stderr says whether it loaded re, stdout is the hook's answer.
HOOK = """
import os, sys
from autopilot import patterns
patterns.kept_path = lambda: os.environ["KEPT_PATTERNS"]  # this test's own file, not the checkout's
from autopilot import cli
code = cli.main(["hook", "UserPromptSubmit"])
print(*(m in sys.modules for m in ("re", "enum", "collections")), file=sys.stderr)
sys.exit(code)
"""


def test_a_prompt_hook_keeps_what_it_compiled_and_the_next_one_loads_no_re(git_repo: Path, tmp_path: Path) -> None:
    """The first prompt with a credential after an install compiles the patterns it needs with re and keeps them;
    the next builds them from the kept programs and never imports re (nor enum, nor collections: the redactor counts
    with redact.Counts), redacting the same."""
    from tests.support.hooks import payload
    from tests.support.measured import unmeasured

    kept_at = tmp_path / "pycache" / "regex.marshal"
    home = tmp_path / "home"
    env = unmeasured({**os.environ, "AUTOPILOT_HOME": str(home), "KEPT_PATTERNS": str(kept_at)})
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    key = "sk-proj-" + "Ab3Cd4Ef5" * 5
    stdin = json.dumps(payload("UserPromptSubmit", git_repo, prompt=f"deploy with the api key {key}"))
    loaded = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-I", "-c", HOOK], input=stdin, env=env, capture_output=True, text=True, check=True
        )
        loaded.append(done.stderr.split())
        if not loaded[1:]:
            assert kept_at.is_file()
            written = kept_at.stat().st_mtime_ns
    assert loaded == [["True"] * 3, ["False"] * 3]
    assert kept_at.stat().st_mtime_ns == written  # nothing new: not written again
    stored = "".join(p.read_text() for p in home.rglob("observations.jsonl"))
    assert stored.count("[REDACTED:openai_api_key]") == 2 and key not in stored
