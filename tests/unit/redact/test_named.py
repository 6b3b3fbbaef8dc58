"""redact/named.py: a value assigned to a secret-named variable, key or setting goes; references and settings stay."""

from __future__ import annotations

import pytest

from autopilot.redact import redact

# A fake password assembled at run time so no scanner mistakes this file for a leak.
PW = "Zq7kDnNf" + "RibxUdl3"


@pytest.mark.parametrize(
    ("text", "kept", "kind"),
    [
        (f"DB_PASSWORD={PW}", "DB_PASSWORD=[REDACTED:env_secret]", "env_secret"),
        (f"export API_TOKEN={PW}", "export API_TOKEN=[REDACTED:env_secret]", "env_secret"),
        (f"password = '{PW}'", "password = '[REDACTED:secret_assignment]'", "secret_assignment"),
        (f'"client_secret": "{PW}"', '"client_secret": "[REDACTED:secret_assignment]"', "secret_assignment"),
        (f"api_key: {PW}", "api_key: [REDACTED:config_secret]", "config_secret"),
    ],
)
def test_a_secret_named_value_goes_and_its_name_stays(text, kept, kind):
    """An env line, an assignment in code, a JSON key or a config setting: the name is kept, the value counted."""
    assert redact(text) == (kept, {kind: 1})


@pytest.mark.parametrize(
    "text",
    [
        "password = os.environ['DB_PASSWORD']",  # read from elsewhere
        "password_file = '/etc/app/pw'",  # where a secret is, not the secret
        "PASSWORD_MIN_LENGTH=12",  # a rule about passwords
        "token = get_token()",  # a call
        "secret_name: prod-db",  # the name of a secret
        "password: changeme",  # a template's stand-in
    ],
)
def test_a_reference_a_setting_or_a_stand_in_is_kept(text):
    """Code that reads a secret, a setting about one, or a placeholder value is left as it is."""
    assert redact(text) == (text, {})
