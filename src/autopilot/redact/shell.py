"""Credentials a command line carries: secret flags, commands' own password flags, exports by command.

``--password VALUE`` and ``--api-key VALUE`` (the ``=`` form is :mod:`.named`'s ``inline_secret``),
curl's ``-u user:password``, the password flags of mysql, sshpass, ``docker login``, redis-cli,
mongosh and openssl, ``setx``/``set -x``/``setenv``, and a secret header passed with ``-H``.
"""

from __future__ import annotations

from autopilot.patterns import IGNORECASE, lazy
from autopilot.redact.named import SECRET_WORDS, env_value, not_stand_in
from autopilot.redact.rules import LINE_START, Rule, stand_in, whole_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# Options that name where a secret is, or what it is like, not the secret itself (`--password-file PATH`).
_NOT_A_SECRET_OPTION = lazy(r"file|path|dir|stdin|env|name|type|length|count|size|prompt|id$", IGNORECASE)


def _flag_value(value: str, match: re.Match[str]) -> bool:
    """Whether ``--password VALUE`` passes a secret: not a path option, and not a plain word of prose."""
    if _NOT_A_SECRET_OPTION.search(match.group(2)):
        return False
    return not stand_in(value) and (not value.isalpha() or len(value) >= 12)


SHELL: list[Rule] = [
    # `--password VALUE`, `--api-key VALUE` on a command line (the `=` form is inline_secret's),
    # and curl's `-u user:password`.
    Rule(
        "cli_secret",
        lazy(
            r"(?i)(?<![\w\-])(--?" + whole_name(r"[\w\-]", SECRET_WORDS) + r"[ \t]+([\"']?))"
            r"(?![\-$<{\[])([^\s\"'`;|&]{4,})\3"
        ),
        4,
        _flag_value,
        hints=("-",),
        local=True,
        needs=(("-",), (" ", "\t")),
    ),
    Rule(
        "cli_secret",
        lazy(r"(?<![\w\-])((?:-u|--user)[ \t]+[\"']?[^\s:\"'@]{0,64}:)([^\s\"'@]{3,})"),
        2,
        hints=("-u", "--user"),
    ),
    # Passwords that commands take in their own flags: `mysql -pSECRET` (attached), `sshpass -p`,
    # `docker login -p` (and podman, nerdctl, buildah, skopeo, oras, crane, helm registry),
    # `redis-cli -a`, `mongosh -p`, openssl's `-passin pass:`.
    Rule(
        "cli_secret",
        lazy(
            r"((?<![\w\-])(?:(?:mysql(?:dump|admin|import|show|check|slap)?|mariadb(?:-dump|-admin)?)\b"
            r"[^\n|;&]{0,200}?[ \t]-p(?=\S)"
            r"|sshpass\b[^\n|;&]{0,100}?[ \t]-p[ \t]*"
            r"|(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|helm[ \t]+registry)[ \t]+login\b"
            r"[^\n|;&]{0,200}?[ \t]-p[ \t]+"
            r"|redis-cli\b[^\n|;&]{0,200}?[ \t]-a[ \t]+"
            r"|mongo(?:sh|dump|restore|export|import)?\b[^\n|;&]{0,200}?[ \t]-p[ \t]+"
            r"|-pass(?:in|out)?[ \t]+pass:)"
            r"([\"']?))([^\s\"'`;|&]{3,})\2"
        ),
        3,
        not_stand_in,
        lower=("mysql", "mariadb", "sshpass", "login", "redis-cli", "mongo", "pass:"),
    ),
    # Passwords other commands take as arguments: `echo PW | sudo -S`, `htpasswd -b FILE USER PW`,
    # `ssh-keygen -N PW` / `-P PW`, `zip -P PW` (and unzip), `7z -pPW`, `ldapsearch -w PW` (and the other ldap tools).
    *(
        Rule("cli_secret", lazy(r"(" + opening + r"([\"']?))([^\s\"'`;|&]{3,})\2"), 3, not_stand_in, lower=(hint,))
        for hint, opening in (
            (
                "sudo",
                r"(?<![\w\-])(?:echo|printf)(?:[ \t]+-[neE]{1,3})?[ \t]+"
                r"(?=[^\n|]{1,300}\|[ \t]*sudo\b[^\n|;&]{0,200}?[ \t]-\w*S)",
            ),
            ("htpasswd", r"htpasswd\b(?:[ \t]+-\w+)*?[ \t]+-\w*b\w*(?:[ \t]+-\w+)*[ \t]+\S+[ \t]+\S+[ \t]+"),
            ("ssh-keygen", r"ssh-keygen\b[^\n|;&]{0,200}?[ \t]-[NP][ \t]*"),
            ("zip", r"zip\b[^\n|;&]{0,200}?[ \t]-P[ \t]*"),
            ("7z", r"7za?\b[^\n|;&]{0,200}?[ \t]-p(?=\S)"),
            ("ldap", r"ldap\w{0,20}\b[^\n|;&]{0,200}?[ \t]-w[ \t]+"),
        )
    ),
    # `setx API_TOKEN …` (Windows), `set -x API_TOKEN …` (fish), `setenv API_TOKEN …` (csh).
    Rule(
        "env_secret",
        lazy(
            r"(?im)("
            + LINE_START
            + r"(?:setx|setenv|set(?:[ \t]+-[a-z]+)+)[ \t]+"
            + whole_name(r"\w", SECRET_WORDS)
            + r"[ \t]+([\"']?))((?<=[\"'])[^\"'\n]{4,255}(?=[\"'])|[^\s\"'`;|&]{4,})"
        ),
        4,
        env_value,
        lower=("set",),
        local=True,
    ),
    # A header with a secret name passed to curl or wget: `-H 'token: …'`, `--header "X-Auth-Token: …"`.
    Rule(
        "header_secret",
        lazy(
            r"(?i)((?<![\w\-])(?:-H|--header)[ \t]*=?[ \t]*([\"'])[ \t]*"
            + whole_name(r"[\w\-]", SECRET_WORDS, 3)
            + r"[ \t]*:[ \t]*)([^\"'\n]{4,512}?)(?=\2)"
        ),
        4,
        not_stand_in,
        lower=("-h", "--header"),
        local=True,
        needs=((":",), ('"', "'")),
    ),
]
