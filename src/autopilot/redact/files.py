"""Secret-bearing files: known by name (``.env``, keys, credential stores) or by a key file's content.

An env file under another name is known by its content too: :mod:`.envfile` judges it, and
``ENV_FILE_LINE`` is the line that makes a file worth judging.
"""

from __future__ import annotations

from autopilot.patterns import IGNORECASE, MULTILINE, lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

# What stands for a withheld credential, by kind (exported as ``autopilot.redact.PLACEHOLDER``; defined here, the
# module the package loads first, so this module needs nothing from above).
PLACEHOLDER = "[REDACTED:{kind}]"


class Counts(dict[str, int]):
    """How many credentials of each kind a redaction withheld (exported as ``autopilot.redact.Counts``): counted as
    ``collections.Counter`` counts (a kind not seen counts 0, ``update`` adds), without importing ``collections``, ~2.5
    ms of a prompt hook that redacts. A ``Counter`` passed in its place counts the same."""

    __slots__ = ()

    def __missing__(self, kind: str) -> int:
        return 0

    def update(self, other: Mapping[str, int]) -> None:  # type: ignore[override]  # adds, as Counter.update does
        for kind, n in other.items():
            self[kind] = self.get(kind, 0) + n


_SECRET_NAMES = lazy(
    r"(^|/)(\.env(\..+)?|\.envrc|\.netrc|_netrc|\.npmrc|\.pypirc|\.git-credentials|\.pgpass|\.my\.cnf"
    r"|\.s3cfg|\.vault-token|\.dockercfg|\.htpasswd|kubeconfig(\.ya?ml)?"
    r"|credentials(\.json|\.csv)?|secrets?(\.[a-z]+)?|id_(rsa|dsa|ecdsa|ed25519)"
    r"|.*\.(pem|key|p8|p12|pfx|ppk|jks|keystore|keytab|asc|gpg|ovpn|kdbx|tfstate(\.backup)?))$",
    IGNORECASE,
)
_SECRET_DIRS = lazy(r"(^|/)(\.ssh|\.gnupg|\.aws|\.docker|\.kube|\.config/gcloud)/", IGNORECASE)
_NOT_SECRET = lazy(r"(^|/)\.env\.(example|sample|template|dist)$|\.pub$|(^|/)known_hosts$", IGNORECASE)

# Lines that make a file a key file whatever its name, as POSIX extended regexes (``git grep -E``
# reads them; ``is_key_file_text`` is the same test in Python): a PEM private key's BEGIN line, a
# PuTTY key file's first line, a kubeconfig's embedded client key, an OpenSSH key's first body
# line. Whole lines only, so code and docs that merely mention them (a regex, a test string) are
# not key files.
KEY_FILE_LINES = (
    r"^[[:space:]]*-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----[[:space:]]*$",
    r"^PuTTY-User-Key-File-[0-9]+:",
    r"^[[:space:]]*client-key-data:[[:space:]]*[A-Za-z0-9+/]",
    r"^[[:space:]]*b3BlbnNzaC1rZXktdjE[A-Za-z0-9+/]*=*[[:space:]]*$",
)
# A `NAME=value` line as an env file writes it (no space before `=`), as a POSIX extended regex:
# a file with one is read and judged by ``is_env_file_text``.
ENV_FILE_LINE = r"^[[:space:]]*(export[[:space:]]+)?[A-Za-z_][A-Za-z0-9_.-]*="
_KEY_FILE = lazy("|".join(f"(?:{p})" for p in KEY_FILE_LINES).replace("[[:space:]]", r"[ \t\r]"), MULTILINE)


def is_key_file_text(text: str) -> bool:
    """Whether file contents hold a key file's telltale line (``KEY_FILE_LINES``)."""
    return bool(_KEY_FILE.search(text))


_TEMPLATE = lazy(r"\.(example|sample|template|dist|tpl)$", IGNORECASE)


def is_public_path(path: str) -> bool:
    """Whether a path names what holds no secret by design: a template (``config.env.example``), a public key."""
    p = path.replace("\\", "/")
    return bool(_NOT_SECRET.search(p) or _TEMPLATE.search(p))


def is_secret_path(path: str) -> bool:
    """Whether a file path names a secret-bearing file whose contents must never be copied."""
    p = path.replace("\\", "/")
    if _NOT_SECRET.search(p):
        return False
    return bool(_SECRET_NAMES.search(p) or _SECRET_DIRS.search(p))


# A `git diff` file header (a Read of a .diff file carries its line number first) and the next one's start.
_DIFF_FILE = lazy(r"^(?:[ \t]*\d{1,7}→)?diff --git (?:\\?\"?a/)(.+?)\"? (?:\\?\"?b/)(.+?)\"?\r?$", MULTILINE)


def secret_diffs(text: str, counts: Counts) -> str:
    """``text`` with the diff of each secret-bearing file withheld whole, its hunk headers and lines too.

    A diff sent for review withholds such a file (``loop.withheld.secret_changes``); the same diff in an agent's
    tool output (``git diff``, ``git show``) is withheld here the same way: its ``diff --git`` line stays,
    everything up to the next file's goes. A hunk header's ``NAME=value`` context is the file's content.
    """
    found = list(_DIFF_FILE.finditer(text))
    if not any(is_secret_path(m.group(1)) or is_secret_path(m.group(2)) for m in found):
        return text
    parts, pos = [], 0
    for n, m in enumerate(found):
        if not (is_secret_path(m.group(1)) or is_secret_path(m.group(2))):
            continue
        end = found[n + 1].start() if n + 1 < len(found) else len(text)
        counts["secret_file_diff"] += 1
        parts += [text[pos : m.end()], "\n" + PLACEHOLDER.format(kind="secret_file_diff") + "\n"]
        pos = end
    return "".join(parts) + text[pos:]
