"""handoff/transcripts/evidence.py: what a transcript view keeps of a string (redacted, bounded) and what it omits."""

from __future__ import annotations

import pytest

from autopilot.handoff.transcripts.evidence import (
    OMITTED_SECRET,
    OMITTED_SECRET_OUTPUT,
    Evidence,
    constraints_in,
    secret_command,
    strip_reminders,
    tool_omission,
)
from tests.support.secret_corpus import der_rsa, key_needles, pem

TOKEN = "ghp_" + "a1B2" * 9


def test_a_string_is_redacted_then_cut_to_its_head_and_tail_and_counted():
    """A credential becomes its placeholder, the middle past max_chars is dropped with its size, the kind counted."""
    evidence = Evidence(max_chars=100)
    text = evidence.text(f"token={TOKEN} " + "x" * 500)
    assert text.startswith("token=[REDACTED:github_token] x") and "\n…[430 chars omitted]…\n" in text
    assert TOKEN not in text and evidence.summary() == {"total": 1, "by_kind": {"github_token": 1}}


def test_without_a_bound_nothing_is_cut():
    """``--full`` (max_chars None) keeps a long string whole, still redacted."""
    long = "y" * 5000 + " " + TOKEN
    assert Evidence(max_chars=None).text(long) == "y" * 5000 + " [REDACTED:github_token]"


def test_a_key_whose_begin_line_was_cut_away_is_still_withheld():
    """In a string too long to redact whole, a key begun before the kept tail loses its body and END line too."""
    key = pem("RSA PRIVATE KEY", der_rsa())
    evidence = Evidence(max_chars=2000)
    text = evidence.text("x" * 70_000 + "\n" + key + "\nafter the key")
    assert text.endswith("\n[REDACTED:private_key]\n\nafter the key")
    assert [n for n in key_needles(key) if n in text] == [] and evidence.summary()["by_kind"] == {"private_key": 1}


def test_values_are_walked_keys_included_and_depth_bounded():
    """Every string of a JSON-like value is redacted (keys too); past eight levels the rest is omitted."""
    evidence = Evidence()
    assert evidence.value({TOKEN: [TOKEN, 3, None, True]}) == {
        "[REDACTED:github_token]": ["[REDACTED:github_token]", 3, None, True]
    }
    deep: dict = {}
    node = deep
    for _ in range(12):
        node["a"] = {}
        node = node["a"]
    walked = evidence.value(deep)
    for _ in range(8):
        walked = walked["a"]
    assert walked == {"a": "[omitted: nested too deep]"}


def test_system_reminders_are_stripped_from_prose_and_counted():
    """The harness's ``<system-reminder>`` blocks (an unclosed one too) go, and the view counts them."""
    assert strip_reminders("a <system-reminder>x\ny</system-reminder>\n b <system-reminder>z") == ("a b ", 2)
    evidence = Evidence()
    assert evidence.prose("hi <system-reminder>do this</system-reminder> there") == "hi there"
    assert evidence.reminders == 1


def test_constraints_are_the_sentences_that_read_like_rules():
    """Sentences and list items with never, do not, keep...: each once, list markers dropped, in order."""
    text = "Add a flag. Never change the CSV!\n- keep the API stable\n1) Do not touch docs\nNever change the CSV! ok."
    assert constraints_in(text) == ["Never change the CSV!", "keep the API stable", "Do not touch docs"]


@pytest.mark.parametrize(
    ("args", "omitted"),
    [
        ({"file_path": "/w/.env"}, OMITTED_SECRET),
        ({"path": "/home/u/.ssh/id_rsa"}, OMITTED_SECRET),
        ({"notebook_path": "analysis.ipynb"}, None),
        ({"command": "cat .env | head"}, OMITTED_SECRET_OUTPUT),
        ({"command": "grep -r secret src"}, None),  # a search word, not a file
        ({"command": "ls -la"}, None),
        ({}, None),
    ],
)
def test_a_tool_call_on_a_secret_file_loses_its_contents_or_its_output(args, omitted):
    """A path naming a secret-bearing file drops what the call wrote and read; a command naming one, its output."""
    assert tool_omission(args) == omitted


def test_common_words_need_a_path_to_be_a_secret_file():
    """`secrets` is a search term until it is a path (``./secrets``); a non-string is never a command."""
    assert (secret_command("pytest -k secrets"), secret_command("cat ./secrets"), secret_command(3)) == (
        False,
        True,
        False,
    )
