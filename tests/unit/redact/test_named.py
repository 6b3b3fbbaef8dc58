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


# --- Code and documentation that only name a secret keep their text: the other half of the false positives.
NOT_SECRETS = {
    "an enum's value spelling its name (camel case)": 'TOKEN_LIST = "tokenList"',
    "an enum's value spelling its name (Pascal case)": 'ID_TOKEN_HTTP_NOT_FOUND = "IdTokenHttpNotFound"',
    "an enum's value spelling its name (kebab case)": 'OTP_CREDENTIALS = "otp-credentials"',
    "a placeholder's name": 'WORKLOAD_IDENTITY_API_KEY_PLACEHOLDER = "workload-identity-auth"',
    "a pattern's name": "_PEP610_USER_PASS_ENV_VARS_REGEX = re.compile(",
    "a type annotation": "    client_secret: ClientSecret",
    "a pydantic type": "    password: SecretStr",
    "a class": "    token: TrioToken",
    "an acronym's class": "    passwd: HTTPPasswordMgr",
    "a variable given a class": "        token = Comment",
    "an attribute given its parameter": "        self._credentials = credentials",
    "a variable given another": "    subject_token_identity = workload_identity",
    "a subscript passed on": "return BasicAuth(username=auth[0], password=auth[1])",
    "a call's result passed on": 'api_key=cast("str | None", api_key) if explicit_api_key else None,',
    "a variable passed on": "            api_key=credential,",
    "a mapping read": "password=parts['password'],",
    "a colour": '    Token:              "#ffffff",',
    "a dotted name": '"provideCredentials": "network.ContinueWithAuthParameters_Credentials",',
    "an id": 'credential_id = "user@example.com"',
    "a mask": '#> {"secret_date":"****/**/**"}',
    "a documentation URL's user:pass": "e.g. `host` in `https://user:pass@host:port/path?query#fragment`",
    "a test URL's a:b": 'os.environ["http_proxy"] = "http://a:b@localhost:3128/"',
    "a URL's password written as words": 'url = "https://jo%40email.com:a%20secret@www.example.com"',
}


@pytest.mark.parametrize("text", NOT_SECRETS.values(), ids=NOT_SECRETS.keys())
def test_code_and_documentation_that_only_name_a_secret_are_kept(text):
    """Nothing is withheld: each value is code, a type, an enum's own name, a colour, an id, a mask or an example."""
    assert redact(text) == (text, {})


SECRETS = {
    "an env line": ("TOKEN_LIST=tk9Fq2Lx7Wp3Zr8", "tk9Fq2Lx7Wp3Zr8"),
    "a YAML password": ("    password: Zq9Xw8Vu7", "Zq9Xw8Vu7"),
    "a keyword argument": ("Client(api_key='Zq9Xw8Vu7Ts6')", "Zq9Xw8Vu7Ts6"),
    "an inline password": ("login with password=Zq9Xw8Vu7 now", "Zq9Xw8Vu7"),
    "a URL's real password": ("postgres://app:Zq9Xw8Vu7Ts6@db:5432/prod", "Zq9Xw8Vu7Ts6"),
    "a secret_id stays a secret": ('VAULT_SECRET_ID="9f1c2b7e-aa11-4c3d-9e8f-0a1b2c3d4e5f"', "9f1c2b7e-aa11"),
}


@pytest.mark.parametrize("case", SECRETS.values(), ids=SECRETS.keys())
def test_a_real_value_in_the_same_place_is_still_withheld(case):
    """The same names and places with a value a secret would have: withheld."""
    text, secret = case
    assert secret not in redact(text)[0]
