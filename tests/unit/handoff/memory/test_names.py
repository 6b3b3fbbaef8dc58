"""The names an edit changed (handoff/memory/names.py): what an edit records so a symbol of any edit is found."""

from __future__ import annotations

import os
import random
import secrets
import string
import threading

import pytest

from autopilot.handoff.memory import names
from autopilot.redact import redact
from tests.unit.test_redact import MORE_SECRETS, SECRETS

BEFORE = """import json


class RateCache:
    def __init__(self, path):
        self.path = path

    def get(self, day):
        with open(self.path) as fh:
            return json.load(fh).get(day)


def convert(amount, src, dst, rates):
    return amount * rates[dst] / rates[src]
"""


def test_an_edit_names_the_definitions_around_it_then_what_it_changed():
    """An edit inside RateCache.get names get, then RateCache, then the names and calls of its old and new text."""
    old = "            return json.load(fh).get(day)\n"
    new = "            return load_rates(fh, parse_float=Decimal).get(day)\n"
    args = {"file_path": "/w/src/fx.py", "old_string": old, "new_string": new}
    found = names.of_tool("/w/src/fx.py", args, {"originalFile": BEFORE})
    assert found == ["get", "RateCache", "load_rates", "parse_float", "load"]


def test_a_top_level_edit_sits_in_no_definition():
    """Renaming `def convert` (not indented) names convert and convert_amount, not the class method above it."""
    old = "def convert(amount, src, dst, rates):\n"
    args = {"file_path": "fx.py", "old_string": old, "new_string": old.replace("convert", "convert_amount")}
    assert names.of_tool("fx.py", args, {"originalFile": BEFORE}) == ["convert", "convert_amount"]


def test_without_the_file_before_the_file_on_disk_places_the_edit(tmp_path):
    """With no originalFile (Codex, or handoff recover), the edited file as it is now gives the enclosing names."""
    after = BEFORE.replace("json.load(fh).get(day)", "json.load(fh).get(day, None)")
    (tmp_path / "fx.py").write_text(after)
    args = {"old_string": "json.load(fh).get(day)", "new_string": "json.load(fh).get(day, None)"}
    assert names.of_tool("fx.py", args, None, str(tmp_path))[:2] == ["get", "RateCache"]


def test_a_patch_names_its_changed_lines_not_its_context(tmp_path):
    """A hunk's context lines only place it: their calls are not names of the edit; its @@ header is."""
    after = BEFORE.replace("return amount * rates[dst] / rates[src]", "return quantize(amount * rates[dst])")
    (tmp_path / "fx.py").write_text(after)
    patch = (
        "*** Begin Patch\n*** Update File: fx.py\n@@\n"
        "         with open(self.path) as fh:\n"
        "             return json.load(fh).get(day)\n \n \n def convert(amount, src, dst, rates):\n"
        "-    return amount * rates[dst] / rates[src]\n+    return quantize(amount * rates[dst])\n"
        "*** Update File: b.py\n@@ def refresh_rates\n-    fetch_all()\n+    fetch_all(timeout=10)\n*** End Patch\n"
    )
    found = names.of_patch(patch, str(tmp_path))
    assert found == {"fx.py": ["convert", "quantize"], "b.py": ["refresh_rates", "fetch_all"]}


def test_names_are_never_taken_from_strings_or_comments():
    """String literals (single, triple, template) and comments are where credentials sit in code: no name from them."""
    text = (
        'API_TOKEN = "ghp_Abc_def_token"  # see rotate_token_now()\n'
        "doc = '''mention_in_docstring()'''\n"
        "url = `template_literal_name`  // js_comment_call()\n"
        "/* block_comment_name */ real_call(x)\n"
    )
    assert names.edit_names("a.js", [text]) == ["API_TOKEN", "real_call"]


@pytest.mark.parametrize("path", [".env", "config/settings.yaml", "docs/usage.md", "deploy.sh", "Makefile"])
def test_files_that_are_not_code_give_no_names(path):
    """An .env, a YAML file, Markdown or a shell script can hold a credential unquoted: their edits name nothing."""
    assert names.of_tool(path, {"old_string": "a", "new_string": "API_TOKEN=parse_header_value()"}) == []


@pytest.mark.parametrize(
    ("kind", "text"), [(k, t) for k, t, *_ in SECRETS + MORE_SECRETS], ids=[k for k, *_ in SECRETS + MORE_SECRETS]
)
def test_no_name_comes_from_what_the_redactor_would_remove(kind, text):
    """For every credential shape the redactor knows, bare or quoted in code, every name is in its redacted text."""
    for body in (text, f'value = "{text}"', f"def setup():\n    {text}\n"):
        redacted, _ = redact(body)
        assert [n for n in names.edit_names("settings.py", ["", body]) if n not in redacted] == [], kind


def test_no_name_is_a_short_token_body_the_redactor_would_remove():
    """Identifiers of an unknown prefix and a 16-31-character generated body: none is kept that a view withholds."""
    rng = random.Random(5)
    alphabet = string.ascii_letters + string.digits
    for n in range(3000):
        prefix = ("zq_", "acme_", "corp_live_", "vx_", "tk_test_")[n % 5]
        token = prefix + "".join(rng.choice(alphabet[: rng.choice((52, 62))]) for _ in range(16 + n % 16))
        code = f"def f():\n    {token} = compute()\n    return {token}\n"
        redacted, _ = redact(code)
        assert [m for m in names.edit_names("settings.py", ["", code]) if m not in redacted] == [], token


def test_a_generated_value_in_a_string_is_never_a_name():
    """2,000 random tokens (URL-safe, hex, letters) assigned in code as string literals give no name at all."""
    for n in range(2000):
        token = (secrets.token_urlsafe(24), secrets.token_hex(16), "".join(random.choices(string.ascii_letters, k=30)))
        assert names.edit_names("config.py", [f'API_TOKEN = "{token[n % 3]}"\n']) == ["API_TOKEN"]


@pytest.mark.parametrize(
    "alphabet",
    [string.ascii_letters + string.digits, string.ascii_letters, string.ascii_uppercase + string.digits,
     string.ascii_lowercase + string.digits, string.hexdigits],
)  # fmt: skip
def test_generated_values_are_rarely_word_shaped(alphabet):
    """Bare in code, at most 0.5% of 2,000 random 32-character values pass as a name (a second line of defence)."""
    rng = random.Random(alphabet)
    values = ["".join(rng.choice(alphabet) for _ in range(32)) for _ in range(2000)]
    assert sum(names.word_shaped(v) for v in values) <= 10


@pytest.mark.parametrize(
    "name",
    ["parse_date", "RateCache", "CsvBankImporter", "test_two_coffees_same_day", "DATE_FORMATS", "HTTPServer",
     "utf8", "sha256", "test_migration_v3", "__init__", "ZeroDivisionError", "XMLHttpRequest", "base64Encode"],
)  # fmt: skip
def test_names_people_give_are_word_shaped(name):
    """Snake case, camel case, constants, acronyms and a version digit or two all pass."""
    assert names.word_shaped(name)


def test_names_are_bounded():
    """A huge edit gives at most NAMES_MAX names, each at most NAME_CHARS long, from its first NAMES_SCAN characters."""
    text = "".join(f"def function_number_{n}():\n    pass\n" for n in range(5000))
    found = names.edit_names("big.py", [text])
    assert len(found) == names.NAMES_MAX and all(len(n) <= names.NAME_CHARS for n in found)
    assert names.edit_names("big.py", ["x = 1\n" * names.NAMES_SCAN + "def too_far_down(): pass\n"]) == []


def test_a_fifo_is_never_read(tmp_path):
    """A named pipe where the edited file should be is not read (the hook would wait for a writer forever)."""
    fifo = tmp_path / "fx.py"
    os.mkfifo(fifo)
    done: list[str | None] = []
    reader = threading.Thread(target=lambda: done.append(names.read_source("fx.py", str(tmp_path))), daemon=True)
    reader.start()
    reader.join(5)
    assert done == [None]
