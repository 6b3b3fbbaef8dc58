"""handoff/transcripts/evidence.py: what a transcript view keeps of a string (redacted, bounded) and what it omits."""

from __future__ import annotations

import base64
import re

import pytest

import autopilot.redact as redact_module
from autopilot.handoff.transcripts import evidence
from autopilot.handoff.transcripts.evidence import (
    OMITTED_SECRET,
    OMITTED_SECRET_OUTPUT,
    Evidence,
    constraints_in,
    secret_command,
    strip_reminders,
    tool_omission,
)
from autopilot.redact import Redactor
from autopilot.text import clip_middle, middle_split
from tests.support.secret_corpus import (
    Shape,
    audited,
    der_rsa,
    key_needles,
    leaked,
    pem,
    redteamed,
    shapes,
    unenumerated,
)

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


# ---- a long string is redacted in the windows a page shows, as if redacted whole ----

BOUND = 2000
HEAD, TAIL = middle_split(BOUND)
MARK = re.compile(r"\n…\[\d+ chars omitted\]…\n")
CORPUS = shapes() + audited() + unenumerated() + redteamed()


def filler(n: int) -> str:
    """``n`` characters of ordinary log lines."""
    lines, size = [], 0
    while size < n:
        lines.append(f"step {len(lines):05d}: built module_{len(lines) % 97} in 12 ms, cache hit")
        size += len(lines[-1]) + 1
    return "\n".join(lines)[:n]


def placed(shape: Shape, at: int, size: int = 12_000) -> str:
    """A ``size``-character text of log lines with ``shape``'s text on its own lines from about ``at`` (negative:
    from the end)."""
    start = at if at >= 0 else size + at
    before = filler(start).rsplit("\n", 1)[0] + "\n"
    return before + shape.text.rstrip() + "\n" + filler(max(0, size - len(before) - len(shape.text) - 1))


def shown(text: str) -> tuple[str, str]:
    """The head and the tail of a cut string."""
    head, tail = MARK.split(text)
    return head, tail


def same_text(got: tuple[str, str], whole: tuple[str, str]) -> bool:
    """Whether a windowed head and tail show what the whole string's do (a window a redaction shortened below the
    bound shows less of it: the shorter head a prefix of the longer, the shorter tail a suffix)."""
    (head, tail), (whole_head, whole_tail) = got, whole
    heads = sorted((head, whole_head), key=len)
    tails = sorted((tail, whole_tail), key=len)
    return heads[1].startswith(heads[0]) and tails[1].endswith(tails[0])


# Where a secret sits: across the kept head's end, across the end of the head's nominal window (its line finished),
# across the start of the kept tail, across the start of the tail's nominal window.
PLACES = {
    "head cut": HEAD - 8,
    "head window's edge": HEAD + 1024 - 8,
    "tail cut": -(TAIL + 8),
    "tail window's edge": -(TAIL + 1024 + 8),
}


@pytest.mark.parametrize("where", PLACES)
def test_a_secret_at_a_cut_or_a_window_edge_is_withheld_as_the_whole_string_would_be(where):
    """Every corpus secret placed across a cut or a window's edge of a 12 kB string is withheld, and the head and tail
    shown are those of the string redacted whole (or less of them, where a redaction shortened a window)."""
    leaks, differ = [], []
    for shape in CORPUS:
        text = placed(shape, PLACES[where])
        got = Evidence(max_chars=BOUND).text(text)
        leaks += leaked([shape], got)
        if not shape.key and not same_text(shown(got), shown(clip_middle(Redactor()(text), BOUND))):
            differ.append(shape.name)
    assert (leaks, differ) == ([], [])


def test_a_secret_only_in_the_cut_middle_is_neither_shown_nor_redacted():
    """The middle a page drops is not redacted (nor counted): only what is shown is."""
    token = "ghp_" + "a1B2" * 9
    ev = Evidence(max_chars=BOUND)
    got = ev.text(filler(6000) + f"\nexport GITHUB_TOKEN={token}\n" + filler(6000))
    assert token not in got and "REDACTED" not in got and ev.summary() == {"total": 0, "by_kind": {}}


def test_an_encoded_secret_on_a_long_line_begun_before_the_tail_window_is_judged_whole():
    """A base64 run begun before the tail's nominal window, whose end the tail shows, is decoded from its start."""
    token = "ghp_" + "Zq9X" * 9
    blob = base64.b64encode(("config:\n  github_token: " + token + "\n" + "x" * 1500).encode()).decode()
    text = filler(9000) + "\nvalue: " + blob + "\n" + "ok\n" * 200
    got = Evidence(max_chars=BOUND).text(text)
    assert blob[-300:] not in got and "[REDACTED:" in shown(got)[1]


def test_windows_that_meet_redact_the_string_whole(monkeypatch):
    """A string just over the bound (its windows would overlap) is redacted once, whole."""
    calls: list[int] = []
    real = Redactor.__call__

    def counting(self: Redactor, text: str) -> str:
        calls.append(len(text))
        return real(self, text)

    monkeypatch.setattr(Redactor, "__call__", counting)
    text = filler(BOUND + 2 * evidence._MARGIN)
    Evidence(max_chars=BOUND).text(text)
    assert calls == [len(text)]


@pytest.mark.parametrize("size", [3000, 20_000])
def test_a_cut_string_is_not_redacted_again_by_a_later_pass(monkeypatch, size):
    """What text() returns for a long string (cut whole or in windows) passes the same redactor unchanged, without
    being redacted again (the Codex intake's last pass over its answer)."""
    ev = Evidence(max_chars=BOUND)
    got = ev.text(filler(size) + "\napi_key = 'q8W3e5R7t9Y1u3I5o7P9a1S3'\n")
    before = dict(ev.summary())
    calls: list[str] = []
    real = redact_module.redact
    monkeypatch.setattr(redact_module, "redact", lambda text, *a, **k: calls.append(text) or real(text, *a, **k))
    assert (ev.redactor.walk({"text": got}), ev.summary(), got in calls) == ({"text": got}, before, False)
