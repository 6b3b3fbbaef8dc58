"""Shared fixtures: every test gets its own homes, and none may touch the real ones."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
import warnings

import pytest

from tests.support.bridge import run_bridge
from tests.support.home_guard import HomeGuard, real_homes
from tests.support.hooks import stop_review_workers
from tests.support.world import enter_homes, not_an_agent

# The run's own HOME is an empty sentinel until each test sets its own: what a fixture or a probe writes
# to "~" before that lands there, and the guard fails the test. The real homes are watched as well.
_REAL_HOMES = real_homes()
SENTINEL_HOME = tempfile.mkdtemp(prefix="sentinel-home-")
os.environ["HOME"] = SENTINEL_HOME
atexit.register(shutil.rmtree, SENTINEL_HOME, True)
REAL_HOME = HomeGuard(_REAL_HOMES, [SENTINEL_HOME])
# A real home's change fails the test where nothing else writes there (CI); elsewhere it is a warning.
STRICT_HOME_GUARD = bool(os.environ.get("CI")) or os.environ.get("AUTOPILOT_HOME_GUARD") == "strict"
# The tests' repositories live for seconds: git's housekeeping after a commit, fetch or push (`maintenance run
# --auto`, `gc --auto`: ~300 processes a run) has nothing to keep. Set for every git this run starts.
for _n, (_key, _value) in enumerate((("maintenance.auto", "false"), ("gc.auto", "0"), ("receive.autoGc", "false"))):
    os.environ[f"GIT_CONFIG_KEY_{_n}"], os.environ[f"GIT_CONFIG_VALUE_{_n}"] = _key, _value
os.environ["GIT_CONFIG_COUNT"] = "3"
# Codex will not make its sandbox helper (`codex-linux-sandbox`) inside the temporary directory: with the system's
# bubblewrap installed (CI installs it), every sandboxed command of a Codex whose CODEX_HOME lies under $TMPDIR fails
# with "bwrap: execvp codex-linux-sandbox" (codex 0.171; ../shared/reference/codex.md). Every test's homes are under
# pytest's temporary directory, so the processes the tests start get a $TMPDIR of their own beside it (this process
# keeps the one it already chose).
tempfile.gettempdir()
AGENTS_TMP = tempfile.mkdtemp(prefix="codex-autopilot-tmp-")
os.environ["TMPDIR"] = AGENTS_TMP
atexit.register(shutil.rmtree, AGENTS_TMP, True)


@pytest.fixture(autouse=True, scope="session")
def one_tls_context_per_trust_store():
    """Every OpenAI client the in-process bridge makes builds a TLS context, reading the whole CA bundle (~25 ms of
    CPU, a third of a plan against a scripted server, which is plain http and never uses it). This test process
    builds one per trust store (the same ``SSL_CERT_FILE``, ``SSL_CERT_DIR``) and hands it to every client: the
    same context the SDK would build, read once. Bridge processes build their own, as a user's do."""
    try:
        import httpcore2  # the openai SDK's transport
    except ImportError:
        yield
        return
    real, made = httpcore2.default_ssl_context, {}

    def shared(*, _trust_env: bool = True):
        store = (_trust_env, os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
        if store not in made:
            made[store] = real(_trust_env=_trust_env)
        return made[store]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(httpcore2, "default_ssl_context", shared)
        yield


@pytest.fixture(autouse=True)
def outside_is_not_an_agent(monkeypatch):
    """Who started the test run (an agent's shell, when you run the tests from Claude Code) is no part of a test.

    ``memory.origin`` reads the environment of every ancestor process to tell a person from an agent's
    shell; the processes above pytest are the same for every test and would make the in-process bridge
    look like an agent's shell. Tests that need an agent's shell start one below pytest.
    """
    not_an_agent(monkeypatch)


@pytest.fixture(autouse=True)
def isolated_homes(tmp_path_factory, monkeypatch):
    """Point every root the bridge uses at a fresh directory, so no test touches real homes."""
    root = enter_homes(monkeypatch, tmp_path_factory.mktemp("homes"))
    yield root
    stop_review_workers(os.environ.get("AUTOPILOT_HOME") or root / "autopilot")  # a test's worker idles for minutes
    touched = REAL_HOME.check()
    ours = [t for t in touched if REAL_HOME.in_sentinel(t)]
    if ours or (touched and STRICT_HOME_GUARD):
        pytest.fail("the test wrote to the real home:\n  " + "\n  ".join((ours or touched)[:20]), pytrace=False)
    if touched:
        warnings.warn(
            "the real home changed during this test (the test, or another process sharing the home):\n  "
            + "\n  ".join(touched[:20]),
            stacklevel=1,
        )


@pytest.fixture(scope="session")
def git_repo_template(tmp_path_factory):
    """A git repository with one commit, made once per test process (``git_repo`` copies it)."""
    repo = tmp_path_factory.mktemp("git-template") / "repo"
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    (repo / "README.md").write_text("# demo\n")
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "init"], check=True, env=env)
    for sample in (repo / ".git" / "hooks").glob("*.sample"):  # inert examples: a third of the files to copy
        sample.unlink()
    return repo


@pytest.fixture
def git_repo(tmp_path, git_repo_template):
    """A real git repository with one commit, as a workspace for a run: a copy of the process's template (a
    repository holds no path of its own, so the copy is the same repository as `git init` and a commit would make,
    at a tenth of the cost)."""
    repo = tmp_path / "repo"
    shutil.copytree(git_repo_template, repo, symlinks=True)
    return repo


@pytest.fixture
def bridge():
    """The in-process CLI runner."""
    return run_bridge


def pytest_collection_finish(session):
    """What collection built (every test module, item and fixture definition) lives until the run ends: moved out of
    the garbage collector's sight, and collections made rarer, the collector's share of a test process's CPU goes
    from ~7% to ~3% (2.3 s -> 1.0 s over the unit tests)."""
    import gc

    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
