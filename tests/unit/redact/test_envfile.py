"""An env file known by its content: NAME=value lines holding a secret value, not settings, templates or scripts."""

from __future__ import annotations

import pytest

from autopilot.redact import is_env_file_text
from tests.unit.test_redact import HEX64, PW2


@pytest.mark.parametrize(
    ("text", "env_file"),
    [
        ("WEIRD_SETTING=zq9-plain-secret-value\nOTHER=1\n", True),  # a generated-looking value
        (f"# database\nDB_HOST=db\nDB_PASSWORD={PW2}\n\nexport DEBUG=1\n", True),  # a value the redactor takes
        (f"APP_NAME=web\nSESSION_SALT={HEX64}\n", True),  # long hex
        ("HOST=db1.internal\nPORT=5432\nDEBUG=true\nREGION=eu-central-1\n", False),  # settings, no secret
        ("API_TOKEN=your-api-token\nDB_PASSWORD=changeme\nKEY=<key>\n", False),  # a template's stand-ins
        (f"#!/bin/sh\nset -e\nAPP={PW2}\n./build.sh\n./push.sh\n", False),  # a script: mostly commands
        (f"x = '{PW2}'\n", False),  # code, not an env line
        ("", False),
        ("NODE_ENV=production\nNODE_OPTIONS=--max-old-space-size=4096\nPORT=3000\n", False),  # an option
        (f"PROTOC_SHA256={HEX64}\nLLVM_COMMIT={HEX64[:40]}\nVERSION=3.2\n", False),  # pins, public by design
        ("JOB_ID=01a22c42-d7e9-7a81-a69d-62548f13c3f0\nTRACE_ID=9f0c2a4e-1b7d-4c3a-8e2f-5d6b7a8c9e0f\nX=1\n", False),
    ],
    ids=["generated", "redacted", "hex", "settings", "template", "script", "code", "empty", "options", "pins", "ids"],
)
def test_env_file_content_is_recognised(text, env_file):
    """Four content lines in five `NAME=value` with one secret value make an env file; settings and scripts do not."""
    assert is_env_file_text(text) is env_file
