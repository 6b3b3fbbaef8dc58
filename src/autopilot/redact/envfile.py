"""Env files under any name: contents most of whose lines are ``NAME=value``, a secret among the values.

``.env`` is withheld by its name; its copy ``settings.txt`` (or the file it was pasted into) is
known by what it holds, so ``loop.withheld.secret_changes`` withholds it as well. A value is a secret when
the redactor would remove it (``DB_PASSWORD=…``, a token's shape) or when it looks generated:
mixed case with digits, long hex (not under a checksum's or a commit's name), or twenty letters and
digits without a dot or a slash (a host, a path or a version has them) that is not a UUID. Options
(``--flag``) are no secrets. Templates are kept out by name (``is_public_path``).
"""

from __future__ import annotations

import re

from autopilot.patterns import lazy
from autopilot.redact import redact
from autopilot.redact.rules import mixed_case

MAX_CHARS = 64 * 1024  # an env file is small; a larger file is something else
_ASSIGNMENT = lazy(r"(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.\-]*)=(.*)")
_COMMENT = ("#", ";", "//")
# What a template puts where the secret goes: `your-api-key`, `<token>`, `xxxx`, `changeme`.
_TEMPLATE_VALUE = lazy(r"(?i)^[\"']?(?:<.*>|\.\.\.|x{4,})[\"']?$|your[-_]|example|placeholder|changeme|replace[-_]?me")
_GENERATED = lazy(r"(?=.*[A-Za-z])[A-Za-z0-9_\-+=]+")
_UUID = lazy(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# Names whose hex value is a checksum or a commit a build pins, public by design.
_PINNED = lazy(r"(?i)(?:sha(?:1|256|512)?|hash|digest|checksum|commit|rev(?:ision)?)$")


def is_env_file_text(text: str) -> bool:
    """Whether file contents read like a ``.env`` file: four content lines in five ``NAME=value``, one a secret."""
    if len(text) > MAX_CHARS:
        return False
    content = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith(_COMMENT)]
    pairs = [m for line in content if (m := _ASSIGNMENT.fullmatch(line))]
    if not pairs or len(pairs) * 5 < len(content) * 4:
        return False
    return any(_secret(m.group(1), m.group(2).strip()) for m in pairs)


def _secret(name: str, value: str) -> bool:
    """Whether one ``NAME=value`` holds a secret: the redactor takes it, or the value looks generated."""
    if _TEMPLATE_VALUE.search(value):
        return False
    line = f"{name}={value}"
    if redact(line)[0] != line:
        return True
    bare = value.strip("\"'")
    if bare.startswith("-") or _PINNED.search(name):  # options (`NODE_OPTIONS=--max-old-space-size=4096`), pins
        return False
    if (len(bare) >= 16 and mixed_case(bare)) or re.fullmatch(r"[0-9a-fA-F]{32,}", bare):
        return True
    # 20 characters or more of letters and digits with no dot or slash: a key or a password, not a host, a path,
    # a version or an id (a UUID)
    if _UUID.fullmatch(bare):
        return False
    return len(bare) >= 20 and bool(_GENERATED.fullmatch(bare)) and any(map(str.isdigit, bare))
