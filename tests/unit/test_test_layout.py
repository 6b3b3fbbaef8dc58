"""The tests mirror the package: a module's tests are found at the path its own path gives (tests/README.md).

``src/autopilot/<path>/<mod>.py`` is tested in-process at ``tests/unit/<path>/test_<mod>.py`` and through the CLI,
a hook or a process at ``tests/integration/<path>/test_<mod>.py``; a package's ``__init__.py`` at
``test_<package>.py`` in the folder above (the package's face: ``redact/__init__.py`` -> ``tests/unit/test_redact.py``,
``autopilot/__init__.py`` -> ``tests/unit/test_autopilot.py``). A test about no single module sits at the top of its
tier, named for its concern and listed in CONCERNS with the reason. Each rule has a check that a planted
counter-example fails.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.repo import PACKAGE, TESTS

TIERS = ("unit", "integration")  # e2e/ and browser/ are system tests, by feature
# The tests at the top of a tier that are about no single module of the package: file -> its concern.
CONCERNS = {
    "unit/test_architecture.py": "the package's layout: layers, wings, imports only downwards, no circle",
    "unit/test_cli_docs.py": "the CLI reference in docs/ equals the parsers (scripts/cli_docs.py)",
    "unit/test_codex_handoff_hook.py": "the `$handoff` hook script Codex runs (codex/assets/, stand-alone)",
    "unit/test_compaction_fixtures.py": "every way the real clients compact: both intakes' checkpoint is what was sent",
    "unit/test_from_claude_skill.py": "the from-claude skill's script Codex runs (codex/assets/, stand-alone)",
    "unit/test_home_guard.py": "the tests' own guard of the real homes (tests/support/home_guard.py)",
    "unit/test_memory_long_session.py": "a 100-turn session of each real client through the active memory",
    "unit/test_messages_server.py": "the tests' scripted Anthropic server (tests/support/messages_server.py)",
    "unit/test_plugin_commands.py": "the plugin's skills hand what the user typed to the bridge unexpanded",
    "unit/test_plugin_files.py": "the plugin's files agree with each other and with Claude Code's conventions",
    "unit/test_plugin_shim.py": "scripts/bridge and scripts/bootstrap.py: the interpreter the plugin runs",
    "unit/test_redact_redteam.py": "red-team passes over the whole redactor",
    "unit/test_redact_speed.py": "every redaction pattern stays linear in the text",
    "unit/test_single_homes.py": "one home per concept (docs/architecture.md)",
    "unit/test_single_homes_git.py": "git.py is the one home of git processes",
    "unit/test_slash_commands.py": "every slash command a user is told to type exists as typed",
    "unit/test_test_layout.py": "this layout: the tests mirror the package",
    "unit/test_typed_json.py": "untyped JSON (dict[str, Any]) stays rare in src/",
    "unit/test_twins.py": "the stand-alone scripts Codex runs agree with the bridge functions they copy",
    "integration/test_approval_authority.py": "only the person decides: every way an agent's shell tries to approve",
    "integration/test_concurrency.py": "many bridge processes on one run, SIGKILLs mid-transaction",
    "integration/test_conversation_bound.py": "a run's Codex conversation stays bounded over 100 calls",
    "integration/test_disk_full.py": "writes the kernel refuses (RLIMIT_FSIZE)",
    "integration/test_effort.py": "reasoning effort and model per phase, from flags and config to the request",
    "integration/test_failures.py": "failure classes: exit codes, what is recorded, the crash log",
    "integration/test_from_codex_wait.py": "the from-codex skill's script waits for a rollout Codex is still writing",
    "integration/test_hot_path.py": "the hot paths load only the pinned modules",
    "integration/test_injection_quoting.py": "what a tool, a transcript or a model said is injected only quoted",
    "integration/test_memory_at_rest.py": "the secret corpus through the hooks: no credential stored at rest",
    "integration/test_retrieval_quality.py": "the labelled retrieval benchmark and its thresholds",
    "integration/test_secret_corpus.py": "the secret corpus end to end: never to Codex, never in a packet",
    "integration/test_secret_files.py": "secret-bearing files in review and verdict diffs",
    "integration/test_share_concurrency.py": "ten share pushes from two machines at once",
    "integration/test_terminal_escapes.py": "no escape sequence reaches a person's terminal",
    "integration/test_transcript_secret_diffs.py": "a secret file's diff in an agent's tool output withheld whole",
}
# The share of the package's modules that must have a test at their mirrored path, in either tier (issue 32).
MIRRORED_AT_LEAST = 0.60


def package_modules(package: Path) -> list[str]:
    """Every module of ``package`` as a path relative to it (``loop/state.py``), Codex's stand-alone assets aside."""
    found = (p.relative_to(package) for p in package.rglob("*.py"))
    return sorted(str(p) for p in found if p.parts[:2] != ("codex", "assets"))


def mirrored_paths(module: str, tiers: tuple[str, ...] = TIERS) -> list[str]:
    """Where ``module``'s tests go in each tier (``loop/state.py`` -> ``unit/loop/test_state.py``, ...)."""
    path = Path(module)
    if path.name == "__init__.py":
        folder, name = path.parent.parent, path.parent.name or "autopilot"
    else:
        folder, name = path.parent, path.stem
    return [str(Path(tier) / folder / f"test_{name}.py") for tier in tiers]


def files_of(tests: Path, tiers: tuple[str, ...] = TIERS) -> list[str]:
    """Every test file of the tiers, relative to ``tests`` (``unit/loop/test_state.py``)."""
    return sorted(str(p.relative_to(tests)) for tier in tiers for p in (tests / tier).rglob("test_*.py"))


def orphans(tests: Path, package: Path, concerns: dict[str, str]) -> list[str]:
    """The test files that name no module at their path and are no listed concern at the top of a tier, and the
    listed concerns that are not such a file."""
    homes = {home for module in package_modules(package) for home in mirrored_paths(module)}
    found = files_of(tests)
    top = {f for f in found if len(Path(f).parts) == 2}
    stray = [f for f in found if f not in homes and f not in (concerns.keys() & top)]
    stale = [f"{f} (listed as a concern)" for f in sorted(concerns) if f not in top or f in homes]
    return stray + stale


def mirrored(tests: Path, package: Path) -> tuple[list[str], list[str]]:
    """The package's modules with a test at a mirrored path, and those without."""
    found = set(files_of(tests))
    modules = package_modules(package)
    have = [m for m in modules if found & set(mirrored_paths(m))]
    return have, [m for m in modules if m not in have]


def too_few(have: list[str], missing: list[str], at_least: float) -> str | None:
    """What is wrong when fewer than ``at_least`` of the modules have a mirrored test, else None."""
    ratio = len(have) / (len(have) + len(missing))
    return None if ratio >= at_least else f"{len(have)}/{len(have) + len(missing)} = {ratio:.0%}; without: {missing}"


def test_every_test_file_names_a_module_or_a_concern():
    """A test file under a tier names an existing module by its path, or is a concern listed at the tier's top."""
    assert orphans(TESTS, PACKAGE, CONCERNS) == []


def test_enough_modules_have_a_mirrored_test():
    """At least 60% of the package's modules have a test at their mirrored path (the message names the others)."""
    assert too_few(*mirrored(TESTS, PACKAGE), MIRRORED_AT_LEAST) is None


def plant(root: Path, *files: str) -> None:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")


def test_the_layout_checks_find_planted_counter_examples(tmp_path):
    """The checks above can fail: a test naming no module, an unlisted top-level file and a stale concern are
    found; a module's test, a package's face and a listed concern are not; two modules of five is 40%."""
    package, tests = tmp_path / "autopilot", tmp_path / "tests"
    plant(package, "__init__.py", "git.py", "loop/__init__.py", "loop/state.py", "codex/assets/x/script.py")
    plant(package, "loop/backends/__init__.py")
    plant(
        tests,
        "unit/loop/test_state.py",  # loop/state.py
        "integration/test_loop.py",  # loop/__init__.py
        "unit/loop/test_foo.py",  # no loop/foo.py
        "unit/test_stray.py",  # neither a module nor a listed concern
        "unit/test_corpus.py",  # a listed concern
        "unit/loop/conftest.py",  # not a test file
    )
    concerns = {"unit/test_corpus.py": "a concern", "unit/test_gone.py": "no such file", "unit/test_git.py": "a module"}
    assert orphans(tests, package, concerns) == [
        "unit/loop/test_foo.py",
        "unit/test_stray.py",
        "unit/test_git.py (listed as a concern)",
        "unit/test_gone.py (listed as a concern)",
    ]
    have, missing = mirrored(tests, package)
    assert (have, missing) == (
        ["loop/__init__.py", "loop/state.py"],
        ["__init__.py", "git.py", "loop/backends/__init__.py"],
    )
    assert too_few(have, missing, MIRRORED_AT_LEAST) == f"2/5 = 40%; without: {missing}"
    assert too_few(have, missing, 0.4) is None
    assert mirrored_paths("__init__.py") == ["unit/test_autopilot.py", "integration/test_autopilot.py"]
    assert mirrored_paths("loop/backends/__init__.py", ("unit",)) == ["unit/loop/test_backends.py"]
