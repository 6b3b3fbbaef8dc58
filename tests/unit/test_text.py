"""text.py: the one home of clipping keeps what each reader needs and says what it cut."""

from __future__ import annotations

import pytest

from autopilot.text import clip, clip_counted, clip_middle, clip_value, reads_generated, word_parts


def test_clip_keeps_the_start_and_marks_the_cut_within_the_limit():
    """A long text becomes its first limit-1 characters and an ellipsis: exactly ``limit`` characters."""
    assert clip("abcdefghij", 5) == "abcd…"


def test_clip_with_tail_keeps_the_end():
    """With tail, the end survives (a command's output ends with its result)."""
    assert clip("abcdefghij", 5, tail=True) == "…ghij"


def test_clip_leaves_a_short_text_alone():
    """A text within the limit comes back as it was."""
    assert clip("abc", 3) == "abc"


def test_clip_value_is_none_for_what_is_no_string():
    """A hook input's field that is not a string (a list, None) gives None, not a crash."""
    assert (clip_value(["x"], 5), clip_value(None, 5), clip_value("abcdef", 5)) == (None, None, "abcd…")


def test_clip_counted_says_how_many_characters_went():
    """The start is kept and the mark counts what was cut, the mark inside the limit."""
    out = clip_counted("x" * 1000, 100)
    assert out == "x" * 60 + " […940 characters cut]" and len(out) <= 100


def test_clip_counted_takes_another_mark():
    """The packets' wording is the same cut with its own mark."""
    assert clip_counted("y" * 100, 50, " …[{cut} chars omitted]") == "y" * 10 + " …[90 chars omitted]"


def test_clip_middle_keeps_two_thirds_of_the_start_and_one_of_the_end():
    """The start and the end survive around a count of what was left out."""
    assert clip_middle("a" * 50 + "b" * 50, 30) == "a" * 20 + "\n…[70 chars omitted]…\n" + "b" * 10


def test_clip_middle_takes_another_mark_and_rounding():
    """A caller's own mark counts what went and the whole; with end_rounds_up the end keeps the odd character."""
    text = "a" * 150 + "b" * 150
    assert clip_middle(text, 200) == "a" * 134 + "\n…[100 chars omitted]…\n" + "b" * 66
    assert clip_middle(text, 200, "<{omitted} of {total}>", end_rounds_up=True) == "a" * 133 + "<100 of 300>" + "b" * 67


def test_clip_middle_without_a_limit_keeps_everything():
    """None is no bound (``--full``)."""
    assert clip_middle("z" * 10_000, None) == "z" * 10_000


@pytest.mark.parametrize(
    ("text", "count"), [("GetItemInt64Borrow", 5), ("HTTPServer", 2), ("parse", 1), ("X20Enable", 3), ("", 0)]
)
def test_word_parts_counts_words_acronyms_and_numbers(text, count):
    """A name splits where case or class changes, an acronym before the capital that starts the next word."""
    assert word_parts(text) == count


def test_a_name_of_words_does_not_read_as_generated_and_random_text_does():
    """Words with vowels, a part every 3-5 characters, are a name; case and digits changing every few are not."""
    assert not reads_generated("GetSlowCompTauX20Enable")
    assert not reads_generated("kwDOA5dJV85Yc5QlAb")  # a GitHub node id
    assert reads_generated("Xk3pQ9zLm2Rt7WbY")
