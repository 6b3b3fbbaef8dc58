"""Credential formats nobody enumerated (issue 21): each class withheld, ordinary code kept, every pattern linear."""

from __future__ import annotations

import time

import pytest

from autopilot.redact import redact
from autopilot.redact.generic import high_entropy
from tests.support.measured import untraced
from tests.support.secret_corpus import placed_in, unenumerated

CLASSES = unenumerated()


@pytest.mark.parametrize("shape", CLASSES, ids=[s.name for s in CLASSES])
def test_each_class_is_withheld(shape):
    """The shape alone, and placed in a file, keeps none of its secret parts."""
    for text in (shape.text, placed_in(shape)):
        out, counts = redact(text)
        assert sum(counts.values()) >= 1 and not [n for n in shape.needles if n in out], out


@pytest.mark.parametrize("shape", [s for s in CLASSES if s.token], ids=[s.name for s in CLASSES if s.token])
def test_each_provider_token_is_withheld_standing_alone(shape):
    """A provider's token needs no name next to it: alone in a sentence it goes too."""
    out, _ = redact(f"rotate {shape.token} today")
    assert shape.token not in out and out.startswith("rotate [REDACTED:")


ORDINARY = [
    "MAX_TOKENS = 4096",
    "seed = 42",
    "random.seed(1234567890123)",
    'session_id = request.cookies.get("session_id")',
    "conn = sqlite3.connect(path)",
    'dsn = os.environ["DATABASE_URL"]',
    "git clone git@github.com:acme/app.git",
    "git clone https://github.com/acme/app.git",
    "mkdir -p build/output/reports",
    "pytest -p no:cacheprovider -k test_login",
    "ssh -p 2222 deploy@host",
    "commit 3f9a2c1d4e5b6a7980c1d2e3f4a5b6c7d8e9f0a1",
    "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "tx = 0x9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "<version>1.2.3-SNAPSHOT</version>",
    "<password>${env.DB_PASSWORD}</password>",
    "localhost:5432:*:postgres:*",
    "Please make sure the build still passes after the change and tell me what broke.",
    "the quick brown fox jumps over the lazy dog while we wait for the build to finish",
    "Authorization: Bearer $TOKEN",
    "postgres://app:${DB_PASSWORD}@db:5432/prod",
    "%E2%9C%93 done: see https://example.com/a%20b?q=hello%20world",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_code_and_prose_stay(text):
    """Numbers, seeds, digests, tx hashes, references, paths, plain flags and prose are not credentials."""
    assert redact(text) == (text, {})


@pytest.mark.parametrize(
    "value,generated",
    [
        ("Zk7FqtRi4OrVa17kSpDV", True),
        ("9f86d081884c7d659a2feaa0c55ad015", True),
        ("hunter2", False),
        ("no:cacheprovider", False),
        ("build/output/reports", False),
        ("looks_like_validation", False),
        ("1.2.3-SNAPSHOT", False),
        ("aaaaaaaaaaaaaaaa1", False),
    ],
)
def test_high_entropy_tells_generated_values_from_words(value, generated):
    """Long, several classes, high entropy, not a word, path or identifier: what a generated secret looks like."""
    assert high_entropy(value) is generated


def test_a_seed_phrase_inside_prose_goes_but_the_prose_stays():
    """Twelve list words in a row are withheld as one placeholder; the sentence around them is kept."""
    phrase = "legal winner thank year wave sausage worth useful legal winner thank yellow"
    out, counts = redact(f"my wallet words are: {phrase}. Keep them safe.")
    assert out == "my wallet words are: [REDACTED:seed_phrase]. Keep them safe." and counts["seed_phrase"] == 1


def test_a_percent_encoded_token_is_withheld_whole():
    """Decoding `%5F` shows a GitHub token: the encoded run is replaced, the rest of the URL stays."""
    token = "ghp%5F" + "Ab1" * 12
    out, counts = redact(f"https://example.com/cb?next={token}&page=2")
    assert out == "https://example.com/cb?next=[REDACTED:github_token]&page=2" and counts["github_token"] == 1


ADVERSARIAL = {
    "separators": "= " * 50_000,
    "percent runs": "%41" * 60_000,
    "zero-width between word characters": "a\u200b" * 80_000,
    "lower-case words": "abandon " * 30_000,
    "short words with spaces": ("word " * 11 + "\n") * 4_000,
    "xml tags": "<password>" * 20_000,
    "add keys": '<add key="password" value="' * 8_000,
    "pgpass-like lines": "h:1:d:u:" * 25_000,
    "hex runs": "0x" + "a" * 200_000,
    "string literals joined": '"eyJ" + ' * 25_000,
    "urls with users": "https://" + "a" * 100 + "@" * 20_000,
    "option flags": "-p " * 60_000,
    "authorization schemes": "Authorization: X " * 12_000,
    "sudo pipes": "echo x | " * 20_000 + "sudo -S",
}


@untraced
@pytest.mark.parametrize("name", ADVERSARIAL)
def test_new_patterns_stay_linear(name):
    """~200 KB built to make each new pattern backtrack is redacted in well under two seconds."""
    started = time.process_time()
    redact(ADVERSARIAL[name])
    assert time.process_time() - started < 2.0


def test_a_secret_files_diff_in_tool_output_goes_whole():
    """A `.env` section of a `git diff` goes, hunk headers and all; the next file's section stays."""
    text = "diff --git a/.env b/.env\n@@ -1 +1 @@ HINT=abc\n-A=1\n+A=2\ndiff --git a/a.py b/a.py\n@@ -1 +1 @@\n-x\n+y\n"
    out, counts = redact(text)
    assert out == (
        "diff --git a/.env b/.env\n[REDACTED:secret_file_diff]\ndiff --git a/a.py b/a.py\n@@ -1 +1 @@\n-x\n+y\n"
    )
    assert counts == {"secret_file_diff": 1}
