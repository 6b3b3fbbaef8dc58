"""Code and documentation that only name a secret keep their text: the other half of the false positives.

Over the installed dependencies' sources, half of what the named rules withheld was no secret at all (issue 35):
an enum whose value spells its own name, a type annotation, a keyword argument passing a variable or a call, a
colour, an id, a mask, a documentation URL's ``user:pass``. Each is kept now; the value a real secret would have in
the same place is still withheld (``test_a_real_value_in_the_same_place_is_still_withheld``).
"""

from __future__ import annotations

import pytest

from autopilot.redact import redact

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
