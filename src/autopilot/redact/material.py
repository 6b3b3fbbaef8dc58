"""Key material written as data, not as a PEM body: JWK private members, minisign secret keys, Ethereum
private keys, BIP-39 seed phrases, and a JWT split across string literals.

Each is known by its structure rather than a provider's prefix: the ``d``/``p``/``q`` members of a JSON
Web Key (only in a text that holds ``"kty"``), minisign's base64 that opens with its algorithm bytes,
64 hex digits handed to a wallet or a key's name (a bare 64-digit hex is a digest and stays), twelve
or more words of the BIP-39 English list in a row (ordinary prose breaks such a run within a few
words: ``the``, ``a``, ``to``, ``is`` are not in the list), and string literals joined by ``+`` whose
contents together make a JWT.
"""

from __future__ import annotations

import os

from autopilot.patterns import lazy
from autopilot.redact import PLACEHOLDER, Counts
from autopilot.redact.rules import Rule, mixed_case, words_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# Between two string literals: a closing quote, an operator, spaces, a line break with what a line may start
# with (a diff marker, a line number, `→`), an opening quote; quotes may be escaped, a break written `\n`.
_GAP = r"\\{0,3}[\"'`](?:[^\"'`\\A-Za-z_]|\\{1,3}[nrt]){0,40}?\\{0,3}[\"'`]"


_WALLET = lazy(r"(?i)(?:wallet|signer|account)[\w.]{0,40}[\"'`]?[ \t]*(?:\([ \t]*|[:=,][ \t]*)[\"'`]?$")
_KEY_NAME = lazy(r"(?i)(?:key|secret)[\w.]{0,40}[\"'`]?[ \t]*(?:\([ \t]*|[:=,][ \t]*)[\"'`]?$")


def _handed_to_a_wallet(value: str, match: re.Match[str]) -> bool:
    """Whether 64 hex digits are given to a wallet, signer or account, or, with `0x`, to a key's or secret's name."""
    before = match.string[max(0, match.start() - 60) : match.start()]
    return bool(_WALLET.search(before) or (value.startswith("0x") and _KEY_NAME.search(before)))


def _jwk_member(value: str, match: re.Match[str]) -> bool:
    """Whether a JWK-like member holds key material: the text is a JWK (``kty``), or the value is long and generated."""
    return "kty" in match.string or (len(value) >= 40 and mixed_case(value))


MATERIAL: list[Rule] = [
    # A JSON Web Key's private members (RSA d p q dp dq qi, EC/OKP d, a symmetric key's k): any value in a text
    # that says `"kty"`, else a long generated one (a JWK's tail, cut from its `kty`, is still key material).
    Rule(
        "jwk_private_key",
        lazy(r"([\"'](?:d|p|q|dp|dq|qi|k)\\{0,3}[\"'][ \t]*:[ \t]*\\{0,3}[\"'])([A-Za-z0-9_\-]{16,})"),
        2,
        check=_jwk_member,
        hints=("kty", 'd"', 'p"', 'q"', 'i"', 'k"', "d'", "p'", "q'", "i'", "k'"),
    ),
    # minisign's secret key: base64 of "EdScB2" (scrypt-encrypted) or "Ed\0\0B2" (not encrypted), then the key.
    Rule(
        "minisign_secret_key",
        lazy(r"(?:RWRTY0Iy|RWQAAEIy)[A-Za-z0-9+/]{100,}={0,2}"),
        hints=("RWRTY0Iy", "RWQAAEIy"),
    ),
    # An Ethereum private key handed to a wallet, a signer or an account; or `0x` and 64 hex under a key's name
    # (a bare 64-digit hex is a digest, and a key's name without `0x` is :mod:`.named`'s).
    Rule(
        "ethereum_private_key",
        lazy(r"\b(?:0x)?[0-9a-fA-F]{64}(?![0-9A-Za-z])"),
        check=_handed_to_a_wallet,
        lower=("wallet", "signer", "account", "0x"),
        spans=words_of(64),
    ),
    # A JWT cut into string literals: its header, then its payload and signature after a gap that closes one
    # literal and opens the next (`" +` and a line break, in a diff, a numbered Read, or JSON-escaped).
    Rule(
        "jwt",
        lazy(
            r"eyJ(?<![\w\-]eyJ)[A-Za-z0-9_\-]{8,}\.?" + _GAP + r"\.?eyJ[A-Za-z0-9_\-]{8,}"
            r"(?:\.[A-Za-z0-9_\-]{8,}|\.?" + _GAP + r"\.?[A-Za-z0-9_\-]{8,})"
        ),
        hints=("eyJ",),
    ),
]

# Runs of twelve or more lower-case words of 3 to 8 letters (every BIP-39 English word is one).
_WORD_RUN = lazy(r"(?<![\w\-])[a-z]{3,8}(?:[ \t]{1,3}[a-z]{3,8}){11,}(?![\w\-])")
SEED_WORDS = 12  # the shortest BIP-39 mnemonic


_WORDS: list[frozenset[str]] = []  # loaded once (no functools or pathlib: the hooks' redaction pays every import)


def bip39_words() -> frozenset[str]:
    """The 2,048 words of the BIP-39 English list (shipped beside this module)."""
    if not _WORDS:
        with open(os.path.join(os.path.dirname(__file__), "bip39_english.txt"), encoding="ascii") as fh:
            _WORDS.append(frozenset(fh.read().split()))
    return _WORDS[0]


def _may_hold_words(line: str) -> bool:
    spaces = line.count(" ") + line.count("\t")
    if spaces < SEED_WORDS - 1:
        return False
    indent = len(line) - len(line.lstrip())
    return spaces - indent >= SEED_WORDS - 1 and _WORD_RUN.search(line) is not None


_LOWER_WORD = lazy(r"[a-z]+")


def seed_phrases(text: str, counts: Counts) -> str:
    """``text`` with every run of twelve or more BIP-39 words in a row replaced by one placeholder."""
    # Only lines with eleven spaces or more after their indentation can hold twelve words (cheap tests first:
    # the pattern is not).
    if not any(_may_hold_words(line) for line in text.split("\n")):
        return text
    words = bip39_words()

    def replace(match: re.Match[str]) -> str:
        run = match.group(0)
        spans: list[tuple[int, int]] = []  # maximal runs of list words: (start of the first, end of the last)
        first = last = -1
        count = 0
        for word in _LOWER_WORD.finditer(run):
            if word.group(0) in words:
                first, count = (word.start() if count == 0 else first), count + 1
                last = word.end()
                continue
            if count >= SEED_WORDS:
                spans.append((first, last))
            count = 0
        if count >= SEED_WORDS:
            spans.append((first, last))
        for a, b in reversed(spans):
            counts["seed_phrase"] += 1
            run = run[:a] + PLACEHOLDER.format(kind="seed_phrase") + run[b:]
        return run

    return _WORD_RUN.sub(replace, text)
