"""paths.py: every path hangs off one of three roots, and a workspace's run folder is named by its real path."""

from __future__ import annotations

import contextlib
import os

import pytest

from autopilot import paths


def test_the_three_homes_are_the_environments(monkeypatch, tmp_path):
    """$AUTOPILOT_HOME, $CODEX_HOME and $CLAUDE_CONFIG_DIR are the roots, as given."""
    for name in ("AUTOPILOT_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    assert (paths.autopilot_home(), paths.codex_home(), paths.claude_config_dir()) == (
        tmp_path / "autopilot_home",
        tmp_path / "codex_home",
        tmp_path / "claude_config_dir",
    )
    assert paths.handoff_dir() == tmp_path / "autopilot_home" / "handoff"


def test_unset_homes_default_under_the_users_home(monkeypatch, tmp_path):
    """Without the variables the homes are ~/.codex-autopilot, ~/.codex and ~/.claude."""
    for name in ("AUTOPILOT_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert (paths.autopilot_home(), paths.codex_home(), paths.claude_config_dir()) == (
        tmp_path / ".codex-autopilot",
        tmp_path / ".codex",
        tmp_path / ".claude",
    )


@pytest.mark.parametrize(
    ("text", "limit", "slug"),
    [
        ("Add a --json flag to Export!", 40, "add-a-json-flag-to-export"),
        ("café au lait", 40, "caf-au-lait"),
        ("one two three four five six", 15, "one-two-three"),  # cut at the last dash inside the limit
        ("abcdefghijklmnopqrstuvwxyz-end", 10, "abcdefghij"),  # no dash past half the limit: cut hard
        ("!!!", 40, "run"),
        ("", 40, "run"),
    ],
)
def test_slugify_keeps_lowercase_words_within_the_limit(text, limit, slug):
    """Lowercase letters and digits joined by single dashes, at most ``limit`` long, never empty."""
    assert paths.slugify(text, limit) == slug
    assert len(slug) <= limit and not slug.startswith("-") and not slug.endswith("-")


def test_a_run_folder_is_named_by_the_workspace_and_a_hash_of_its_real_path(tmp_path):
    """runs/<slug>-<12 hex>: the same folder through a symlink, another for another workspace of the same name."""
    work = tmp_path / "My Project"
    work.mkdir()
    link = tmp_path / "link"
    link.symlink_to(work)
    other = tmp_path / "elsewhere" / "My Project"
    other.mkdir(parents=True)
    run = paths.run_dir(work)
    assert run.parent == paths.autopilot_home() / "runs"
    name, digest = run.name.rsplit("-", 1)
    assert name == "my-project" and len(digest) == 12 and int(digest, 16) >= 0
    assert paths.run_dir(link) == paths.run_dir(str(work)) == run
    assert paths.run_dir(other) != run and paths.run_dir(other).name.startswith("my-project-")


def test_the_filesystem_root_has_a_run_folder_of_its_own():
    """A workspace with no base name (/) still gets a named folder."""
    assert paths.run_dir(os.sep).name.startswith("root-")


def test_the_string_folders_are_the_paths_own_text(monkeypatch, tmp_path):
    """`handoff search` uses strings, not Paths: each is exactly the Path's text, for any home however it is spelled
    (repeated and trailing slashes, `.` parts, relative, `..` kept), in the archive too."""
    import itertools
    from pathlib import PurePosixPath

    from autopilot.handoff.packets import store
    from autopilot.handoff.search import index

    atoms = ["", "/", "//", "///", ".", "..", "a", "b c", "x.y"]
    spellings = ["".join(c) for k in range(1, 5) for c in itertools.product(atoms, repeat=k) if "".join(c)]
    for text in spellings:
        assert paths.pure(text) == str(PurePosixPath(text)), text
        assert paths.joined(paths.pure(text), "handoff") == str(PurePosixPath(text) / "handoff"), text
    for home in (str(tmp_path), f"{tmp_path}//x/./y/", "rel/./home/", ".", "/", "//srv", "..//up"):
        monkeypatch.setenv("AUTOPILOT_HOME", home)
        assert paths.home_folder() == str(paths.autopilot_home())
        assert paths.handoff_folder() == str(paths.handoff_dir())
        for archived in (False, True):
            with store.archived() if archived else contextlib.nullcontext():
                assert store.in_archive() is archived
                assert store.packets_folder() == str(store.packets_dir())
                assert store.archive_folder() == str(store.archive_dir())
                assert index.index_folder() == str(index.index_dir())
                assert index.index_file() == str(index.index_path())
        assert not store.in_archive()
