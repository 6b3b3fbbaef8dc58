"""redact/shell.py: the credentials a command line carries go; the options that only name where a secret is stay."""

from __future__ import annotations

import pytest

from autopilot.redact import redact

# A fake password assembled at run time so no scanner mistakes this file for a leak.
PW = "Zq7kDnNf" + "RibxUdl3"


@pytest.mark.parametrize(
    ("command", "kept"),
    [
        (f"mytool --password {PW} --verbose", "mytool --password [REDACTED:cli_secret] --verbose"),
        (f"mytool --api-key {PW}", "mytool --api-key [REDACTED:cli_secret]"),
        (f"curl -u alice:{PW} https://example.com", "curl -u alice:[REDACTED:cli_secret] https://example.com"),
        (f"mysql -u root -p{PW} shop", "mysql -u root -p[REDACTED:cli_secret] shop"),
        (f"sshpass -p {PW} ssh host", "sshpass -p [REDACTED:cli_secret] ssh host"),
        (f"docker login -u bob -p {PW} r.example.com", "docker login -u bob -p [REDACTED:cli_secret] r.example.com"),
        (f"redis-cli -a {PW} ping", "redis-cli -a [REDACTED:cli_secret] ping"),
        (f"mongosh -u admin -p {PW}", "mongosh -u admin -p [REDACTED:cli_secret]"),
        (f"openssl rsa -passin pass:{PW} -in k.pem", "openssl rsa -passin pass:[REDACTED:cli_secret] -in k.pem"),
    ],
)
def test_a_password_flag_loses_its_value_and_keeps_the_command(command, kept):
    """Each command's own password flag, and --password/--api-key VALUE: the value goes, counted as cli_secret."""
    assert redact(command) == (kept, {"cli_secret": 1})


@pytest.mark.parametrize(
    ("command", "kept", "kind"),
    [
        (f"setx API_TOKEN {PW}", "setx API_TOKEN [REDACTED:env_secret]", "env_secret"),
        (f"setenv DB_PASSWORD {PW}", "setenv DB_PASSWORD [REDACTED:env_secret]", "env_secret"),
        (
            f'curl -H "X-Api-Key: {PW}" https://x',
            'curl -H "X-Api-Key: [REDACTED:header_secret]" https://x',
            "header_secret",
        ),
    ],
)
def test_a_variable_set_by_command_or_a_secret_header_loses_its_value(command, kept, kind):
    """setx and setenv set a secret-named variable; -H passes a secret header: their values go."""
    assert redact(command) == (kept, {kind: 1})


@pytest.mark.parametrize(
    "command",
    [
        "mytool --password-file /run/secrets/db --token-length 32",  # options about a secret, not one
        "mytool --password $DB_PASSWORD",  # a reference, resolved by the shell
        "mytool --password <your-password>",  # a stand-in
        "mytool --password hunter",  # a short plain word: prose as likely as a password
    ],
)
def test_what_only_names_a_secret_is_kept(command):
    """A path or length option, a variable, a placeholder or a short word after a flag is left as it is."""
    assert redact(command) == (command, {})
