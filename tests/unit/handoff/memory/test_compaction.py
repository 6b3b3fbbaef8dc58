"""Whether a compaction summary still says a fact: files, validation outcomes and sentences."""

from __future__ import annotations

from autopilot.handoff.memory.compaction import says_path, says_run, says_sentence, words


def test_a_file_is_held_by_its_path_in_the_worktree_or_its_name():
    """The summary may name an edited file by its worktree path or its file name; another file does not count."""
    assert says_path("Edited src/app/parser.py to fix it.", "/w/src/app/parser.py", "/w")
    assert says_path("The fix is in parser.py.", "/w/src/app/parser.py", "/w")
    assert not says_path("The fix is in parser.pyc and myparser.py.", "/w/src/app/parser.py", "/w")


def test_a_run_is_held_only_with_its_latest_kind_of_outcome():
    """A summary that still calls a now-failing command passing has dropped its outcome."""
    assert says_run("`pytest -q tests/test_a.py` fails with 2 errors", "pytest -q tests/test_a.py", "fail")
    assert not says_run("`pytest -q tests/test_a.py` passed earlier", "pytest -q tests/test_a.py", "fail")
    assert not says_run("the tests fail", "pytest -q tests/test_a.py", "fail")  # no command, no outcome of it


def test_a_masked_run_is_the_same_command():
    """`|| true` does not make a run another command for the summary either."""
    assert says_run("ran pytest -q: it failed", "pytest -q || true", "fail")


def test_a_sentence_is_held_by_most_of_its_words_and_all_its_identifiers():
    """Rewording keeps a sentence; losing its path or most of its words drops it."""
    text = "rewrite the tokenizer loop in src/lexer.py before the fuzz run"
    said = "Next step: rewrite the tokenizer loop (src/lexer.py), then the fuzz run."
    assert says_sentence(said, text, words(said))
    other = "Next step: rewrite the tokenizer loop, then the fuzz run."
    assert not says_sentence(other, text, words(other))
    vague = "Keep working on src/lexer.py."
    assert not says_sentence(vague, text, words(vague))
