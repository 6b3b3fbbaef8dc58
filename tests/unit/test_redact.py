"""Redaction: credentials become typed placeholders and are counted; ordinary text is left alone."""

from __future__ import annotations

import base64
import hashlib
import json
import textwrap
import uuid

import pytest

from autopilot.redact import Redactor, redact
from tests.support.secret_corpus import pem

# Fake credentials assembled at run time so no scanner mistakes this file for a leak.
A = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0"

SECRETS = [
    ("openai_api_key", f"OPENAI key sk-{A[:32]}"),
    ("openai_api_key", f"sk-proj-{A}_{A[:10]}"),
    ("openai_api_key", f"sk-svcacct-{A}"),
    ("openai_api_key", f"sk-admin-{A}"),
    ("anthropic_api_key", f"sk-ant-api03-{A}{A}"),
    ("anthropic_api_key", f"token sk-ant-admin01-{A}"),
    ("aws_access_key_id", "AKIA" + "IOSFODNN7EXAMPLE"),
    ("aws_access_key_id", "ASIA" + "Y34FZKBOKMUTVV7A"),
    ("aws_secret_access_key", "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("github_token", "ghp_" + A[:36]),
    ("github_token", "gho_" + A[:36]),
    ("github_token", "github_pat_11ABCDEFG0" + A + "_" + A[:20]),
    ("gitlab_token", "glpat-" + A[:20]),
    ("slack_token", "xoxb-1234567890123-" + A[:24]),
    ("slack_webhook", "https://hooks.slack.com/services/T00000000/B00000000/" + A[:24]),
    ("stripe_key", "sk_live_" + A[:24]),
    ("stripe_key", "rk_test_" + A[:24]),
    ("stripe_webhook_secret", "whsec_" + A[:32]),
    ("google_api_key", "AIza" + "SyA-" + A[:31]),
    ("google_oauth_token", "ya29." + A),
    ("google_client_secret", "GOCSPX-" + A[:28]),
    ("npm_token", "npm_" + A[:36]),
    ("huggingface_token", "hf_" + A[:34]),
    ("sendgrid_key", "SG." + A[:22] + "." + (A + A)[:43]),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("private_key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----"),
    ("private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"),
    ("private_key", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC (truncated, no end line"),
    ("url_password", "postgres://app:hunter2hunter2@db.internal:5432/prod"),
    ("url_password", "https://user:p4ssw0rd@git.example.com/repo.git"),
    ("bearer_token", "Authorization: Bearer " + A),
    ("env_secret", "DATABASE_PASSWORD=correct-horse-battery"),
    ("env_secret", 'export STRIPE_SECRET="not-a-known-shape-1234"'),
    ("env_secret", "MY_SERVICE_API_KEY=abcdef123456"),
    ("env_secret", "+API_KEY=abcd1234efgh5678"),  # an added .env line in a unified diff
    ("env_secret", " DB_PASS=hunter2hunter2"),  # a context line
    ("config_secret", "+db_password: s3cr3t-pass"),
    ("config_secret", "client_secret = 8f9a7b6c5d4e"),
    ("secret_assignment", '{"client_secret": "abcdefgh12345678"}'),
    ("secret_assignment", "password: 'swordfish-1234'"),
    ("pypi_token", "pypi-AgEIcHlwaS5vcmc" + A + A),
]

# (kind, text, the part that must go): shapes the issue-11 hardening added.
PW = "Pw7kQz9xLm2!"
MORE_SECRETS = [
    ("slack_token", "xapp-1-A0123BCDEFG-1234567890123-" + A, A[:20]),
    ("vault_token", "VAULT_ADDR=x hvs.CAESI" + A + A, A[:20]),
    ("vault_token", "hvb.AAAAAQ" + A + A, A[:20]),
    ("sentry_dsn", "https://0123456789abcdef0123456789abcdef@o4504.ingest.sentry.io/4505", "0123456789abcdef0123"),
    ("url_password", f"redis://:{PW}@cache.internal:6379/0", PW),
    ("header_secret", f'curl -H "X-Api-Key: {PW}" https://api.example.com', PW),
    ("header_secret", f"--header 'PRIVATE-TOKEN: {PW}'", PW),
    ("azure_key", f"DefaultEndpointsProtocol=https;AccountName=a;AccountKey={A}==;EndpointSuffix=x", A[:20]),
    ("azure_key", f"Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={A}=", A[:20]),
    ("signed_url", f"https://a.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig={A}%3D", A[:20]),
    ("signed_url", f"https://b.s3.amazonaws.com/k?X-Amz-Signature={A}", A[:20]),
    ("docker_auth", json.dumps({"auths": {"ghcr.io": {"auth": base64.b64encode(b"me:" + PW.encode()).decode()}}}), ""),
    ("netrc_password", f"machine api.example.com login deploy password {PW}", PW),
    ("netrc_password", f"machine git.example.com\n  login deploy\n  password {PW}\n", PW),
    ("netrc_password", f"default login anonymous password {PW}", PW),
    ("inline_secret", f"log in with password={PW} and rotate it", PW),
    ("inline_secret", f"GET /api/items?access_token={PW}&page=2", PW),
    ("inline_secret", f'env: ["API_KEY={PW}", "X=1"]', PW),
    ("secret_assignment", json.dumps(json.dumps({"password": PW})), PW),  # JSON escaped inside a string
    ("secret_assignment", f'"password": "{PW[:7]}"', PW[:7]),  # seven characters
    ("cli_secret", f"mysql --password {PW} -h db", PW),
    ("cli_secret", f"curl -u admin:{PW} https://ci.example.com", PW),
    ("env_secret", f"@@ -5,4 +5,4 @@ export API_TOKEN={PW}", PW),  # a hunk header carries the line above
    ("env_secret", f"./deploy.sh:3:export API_KEY={PW}", PW),  # grep -rn
    ("env_secret", f"     3→export API_KEY={PW}", PW),  # Claude Code's Read
    ("env_secret", f"+      - DB_PASSWORD={PW}", PW),  # a compose file's environment list
    ("env_secret", f"ENV SERVICE_TOKEN={PW}", PW),  # a Dockerfile
    ("netrc_password", f"@@ -1,3 +1,3 @@\n machine h\n-  password {PW}\n+  password x{PW}", PW),
    ("key_material", f"tls.key: {A}{A}", A[:20]),
]
MORE_SECRETS = [(k, t.replace("\\n", "\n"), n) for k, t, n in MORE_SECRETS]


@pytest.mark.parametrize(
    ("kind", "text", "secret"), MORE_SECRETS, ids=[f"{k}-{n}" for n, (k, _, _) in enumerate(MORE_SECRETS)]
)
def test_more_secret_shapes_are_replaced(kind, text, secret):
    """Each credential shape the hardening added is replaced by its typed placeholder, and its value is gone."""
    out, counts = redact(text)
    assert f"[REDACTED:{kind}]" in out and counts[kind] >= 1
    if secret:
        assert secret not in out


# (kind, text, the part that must go): shapes an audit found passing unchanged, by class.
AWS_ID = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_SECRET = A[:19] + "/" + A[20:39] + "+"
PW2 = "Xq7kDnNf" + "ribxUdl"
HEX64 = hashlib.sha256(b"audit").hexdigest()
HEX32 = HEX64[:32]
CSV = f"User name,Password,Access key ID,Secret access key,Console login link\nbob,{PW2},{AWS_ID},{AWS_SECRET},"
AUDIT = {
    "aws": [
        ("aws_secret_access_key", f"aws configure set aws_secret_access_key {AWS_SECRET}", AWS_SECRET),
        ("aws_secret_access_key", f'boto3.client("s3", "{AWS_ID}", "{AWS_SECRET}")', AWS_SECRET),
        ("aws_secret_access_key", f'var c = new BasicAWSCredentials("{AWS_ID}", "{AWS_SECRET}");', AWS_SECRET),
        ("aws_secret_access_key", CSV + "https://123456789012.signin.aws.amazon.com/console", AWS_SECRET),
        ("aws_console_password", CSV + "https://123456789012.signin.aws.amazon.com/console", PW2),
        ("aws_console_password", f"alice,{PW2},https://123456789012.signin.aws.amazon.com/console", PW2),
        ("aws_secret_access_key", f"Access key ID,Secret access key\n{AWS_ID},{AWS_SECRET}\n", AWS_SECRET),
        ("aws_secret_access_key", f"{AWS_ID}:{AWS_SECRET}", AWS_SECRET),
        ("aws_secret_access_key", f"keys {AWS_ID} {AWS_SECRET} rotated", AWS_SECRET),
        ("aws_secret_access_key", f"{AWS_ID}\t{AWS_SECRET}", AWS_SECRET),
        ("secret_assignment", f'secretKey := "{AWS_SECRET}"', AWS_SECRET),
    ],
    "assignments": [
        ("secret_assignment", f"$db = ['password' => '{PW2}',", PW2),
        ("secret_assignment", f':password => "{PW2}"', PW2),
        ("secret_assignment", f'password := "{PW2}"', PW2),
        ("secret_assignment", f"os.environ.get('DB_PASSWORD', '{PW2}')", PW2),
        ("secret_assignment", f'ENV.fetch("API_TOKEN", "{PW2}")', PW2),
        ("secret_assignment", f"headers['X-API-KEY'] = '{PW2}'", PW2),
        ("secret_assignment", f"const t = process.env.API_TOKEN || '{PW2}';", PW2),
        ("secret_assignment", f"      DB_PASSWORD: ${{DB_PASSWORD:-{PW2}}}", PW2),
    ],
    "env names": [
        ("env_secret", f"ADMIN_PW={PW2}", PW2),
        ("env_secret", f"SIGNING={PW2}", PW2),
        ("env_secret", f"WEBHOOK_HMAC={PW2}", PW2),
        ("env_secret", f"export SMTP_PASSPHRASE={PW2}", PW2),
        ("config_secret", f"db_pass={PW2}", PW2),
        ("key_material", f"ENCRYPTION_KEY={HEX64}", HEX64),
        ("key_material", "APP_KEY=base64:" + base64.b64encode(HEX32.encode()).decode(), HEX32[:8]),
        ("key_material", f"RAILS_MASTER_KEY={HEX32}", HEX32),
    ],
    "yaml": [
        ("config_secret", f"password: |\n  {PW2}\n", PW2),
        ("config_secret", f"db:\n  password: >-\n    {PW2[:8]}\n    {PW2[8:]}x\n  host: db\n", PW2[:8]),
        ("config_secret", f"+  token: |-\n+    {PW2}\n", PW2),  # in a diff
        ("config_secret", f"     3→  secret: >\n     4→    {PW2}\n", PW2),  # read with line numbers
        ("env_secret", f"env:\n  - name: DB_PASSWORD\n    value: {PW2}\n", PW2),
        ("env_secret", f'env:\n  - name: DB_PASSWORD\n    value: "{PW2}"\n', PW2),
        ("env_secret", f"- Name: API_TOKEN\n  Value: '{PW2}'\n", PW2),  # CloudFormation, ECS
        ("env_secret", json.dumps([{"name": "DB_PASSWORD", "value": PW2}]), PW2),
        ("config_secret", f"passwords:\n  - {PW2}\n  - {PW2[::-1]}\n", PW2[::-1]),
        ("config_secret", f"api_tokens:\n- {PW2}\n", PW2),
    ],
    "commands": [
        ("cli_secret", f"mysql -u root -p{PW2}", PW2),
        ("cli_secret", f"mysqldump -h db -u app -p'{PW2}' app > dump.sql", PW2),
        ("cli_secret", f"sshpass -p '{PW2}' ssh deploy@host", PW2),
        ("cli_secret", f"docker login -u bob -p {PW2} ghcr.io", PW2),
        ("cli_secret", f"redis-cli -a {PW2} ping", PW2),
        ("cli_secret", f"mongosh -u admin -p {PW2}", PW2),
        ("cli_secret", f"openssl rsa -in k.pem -passin pass:{PW2}", PW2),
        ("env_secret", f"setx API_TOKEN {PW2}", PW2),
        ("env_secret", f'setx API_TOKEN "{PW2} x" /M', PW2),
        ("env_secret", f"set -x API_TOKEN {PW2}", PW2),
        ("env_secret", f"set -gx API_TOKEN {PW2}", PW2),
        ("env_secret", f"setenv API_TOKEN {PW2}", PW2),
        ("header_secret", f"curl -H 'token: {PW2}' https://api.example.com", PW2),
        ("header_secret", f'curl --header "X-Auth-Token: {PW2}" https://api.example.com', PW2),
    ],
    "cookies": [
        ("cookie", f"Cookie: sessionid={PW2}", PW2),
        ("cookie", f"Cookie: theme=dark; sessionid={PW2}; csrftoken={PW2[::-1]}", PW2[::-1]),
        ("cookie", f"Set-Cookie: __Host-session={PW2}; Path=/; Secure; HttpOnly", PW2),
        ("cookie", f"curl -H 'Cookie: sessionid={PW2}' https://example.com", PW2),
        ("cookie", f'document.cookie = "session={PW2}; path=/"', PW2),
    ],
    "tokens": [
        ("digitalocean_token", "DO dop_v1_" + HEX64, HEX64),
        ("digitalocean_token", "doo_v1_" + HEX64, HEX64),
        ("shopify_token", "shpat_" + HEX32, HEX32),
        ("shopify_token", "shpss_" + HEX32, HEX32),
        ("discord_bot_token", "Bot " + base64.b64encode(b"123456789012345678").decode() + ".GhIjKl." + A[:38], A[:30]),
        ("telegram_bot_token", "https://api.telegram.org/bot123456789:AA" + A[:33] + "/getMe", A[:30]),
        ("twilio_api_key", "SK" + HEX32, HEX32),
        ("mailgun_key", "api:key-" + "3ax6xnjp29jd6fds4gc373sgvjxteol0", "3ax6xnjp29jd6fds4gc3"),
        ("atlassian_token", "ATATT3xFfGF0" + A + A + A + "=1A2B3C4D", A[:30]),
        ("databricks_token", "DATABRICKS dapi" + HEX32, HEX32),
        ("age_secret_key", "AGE-SECRET-KEY-1" + ("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2)[:58], "QPZRY9X8GF2TVDW0S3JN"),
        ("linear_api_key", "lin_api_" + A, A[:30]),
        ("postman_api_key", "PMAK-" + HEX32[:24] + "-" + HEX64[:34], HEX64[:30]),
    ],
}
AUDIT_SECRETS = [(cls, *case) for cls, cases in AUDIT.items() for case in cases]
# Harmless text that looks like the audited shapes, by class: none of it may change.
AUDIT_KEPT = {
    "aws": [
        f"{AWS_ID} is the key id; its secret is in the vault",
        f"{AWS_ID} {hashlib.sha1(b'x').hexdigest()}",  # an id next to a hex digest
        f"alice,2024-01-01,{AWS_ID},Active",  # a report with a date before the id
    ],
    "tokens": [
        "MyVeryLongApplicationName1.module.someVeryLongFunctionNameGoesHere",  # dotted, but no Discord id
        "the meeting is at 12:30:AM",
        "key-value stores keep a key-" + "frameanimationnamethatislongxyzw",
        "see dapi.example.com and lin_api_docs, SKU 1234",
    ],
    "assignments": [
        "'password' => $password,",
        "headers['X-API-KEY'] = api_key",
        'os.environ.get("API_TOKEN", "")',
        'token = config.get("api_token", default)',
        "const t = process.env.API_TOKEN || fallback;",
        "${API_TOKEN:?set API_TOKEN first} ${API_TOKEN:-}",
        'api_key := os.Getenv("API_KEY")',
        '("token_count", "rate_limits"), ["api_key", "client_secret"]',  # a tuple and a list of names
        '(lambda s: s.pop("token_usage"), "token_usage_total")',
    ],
    "env names": [
        "pwm_pin = 13",
        "hmac_algorithm: sha256",
        "WEBHOOK_HMAC=sha256",
        "signing: enabled",
        f"cache_key = '{HEX32}'",
        f"PUBLIC_KEY_FINGERPRINT={HEX64}",
        "pass_count = 3",
        "def login(user, pw): pass",
        '{"pass": "passed", "fail": "failed"}',
    ],
    "yaml": [
        "description: |\n  Rotates the token every day.\n",
        "password: |\n  ${{ secrets.DB_PASSWORD }}\n",
        "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef: {name: db, key: password}\n",
        "- name: DB_PASSWORD\n  value: $(DB_PASSWORD)\n",
        "Passwords:\n- must be 12 characters long\n- never reused\n",
        "tokens:\n  - $TOKEN_A\n  - $TOKEN_B\n",
        "credentials:\n  - user: bob\n    role: admin\n",
        "secrets:\n  - name: db\n    mount: /run/secrets\n",
    ],
    "commands": [
        "mysql -u root -p",
        "mysql -u root -p mydb",
        "mysqldump -h db -P 3306 app",
        "mysql -u root -p$MYSQL_PWD",
        "sshpass -f ~/.pw ssh host",
        "docker login -u bob --password-stdin",
        "docker run -p 8080:80 nginx",
        "ssh -p 2222 host",
        "set -x PATH /usr/bin; set -e",
        'setx PATH "%PATH%;C:\\bin"',
        'curl -H "Content-Type: application/json" -H "Authorization: Bearer $TOKEN"',
        "redis-cli -a $REDIS_PASSWORD ping",
        "openssl rsa -passin pass:$PW",
    ],
    "cookies": [
        "Cookie: sid=${SID}",
        "Set-Cookie: theme=dark; Path=/",
        'cookie = request.cookies.get("sessionid")',
        'res.cookie("token", value)',
    ],
}
AUDIT_KEPT_TEXTS = [(cls, text) for cls, texts in AUDIT_KEPT.items() for text in texts]


@pytest.mark.parametrize(
    ("cls", "kind", "text", "secret"),
    AUDIT_SECRETS,
    ids=[f"{c}-{k}-{n}" for n, (c, k, _, _) in enumerate(AUDIT_SECRETS)],
)
def test_audited_shapes_are_replaced(cls, kind, text, secret):
    """Each shape the audit found passing unchanged is replaced by its typed placeholder, and its value is gone."""
    out, counts = redact(text)
    assert f"[REDACTED:{kind}]" in out and counts[kind] >= 1 and secret not in out, out


@pytest.mark.parametrize(
    ("cls", "text"), AUDIT_KEPT_TEXTS, ids=[f"{c}-{n}" for n, (c, _) in enumerate(AUDIT_KEPT_TEXTS)]
)
def test_lookalikes_of_audited_shapes_are_kept(cls, text):
    """Harmless code and prose that looks like an audited shape is kept (an AWS key id alone is still replaced)."""
    out, counts = redact(text)
    assert out == text.replace(AWS_ID, "[REDACTED:aws_access_key_id]") and set(counts) <= {"aws_access_key_id"}


NOT_SECRETS = [
    # code about secrets that the `=>`, `,`, `||` and short-word forms must leave readable for the reviewer
    "'token' => 'nullable|string|max:255'",
    "$rules = ['password' => 'required|min:6']",
    'os.getenv("TOKENIZER_PATH", "models/tokenizer.json")',
    'os.environ.get("SECRET_MANAGER_REGION", "us-east-1")',
    'opts.tokenizer || "cl100k_base"',
    "@field_serializer('password', 'password_bytes')",
    'MovedAttribute("HTTPPasswordMgr", "urllib2", "urllib.request")',
    'SIGNING = "Signing"',
    "util._assertion_pass = call_assertion_pass_hook",
    "DB_PASSWORD_FILE=/run/secrets/db_password",
    "task-list and risk-assessment are ordinary words",
    "commit 0123456789abcdef0123456789abcdef01234567 fixed it",
    "uuid 01a22c42-d7e9-7a81-a69d-62548f13c3f0",
    "TOKEN=${GITHUB_TOKEN}",
    "API_KEY=",
    "password = get_password()",
    'api_key = os.environ["OPENAI_API_KEY"]',
    "https://example.com/path?q=1",
    "ssh://git@github.com/org/repo.git",
    "The token count was 1234 tokens.",
    "eyJ is how base64 JSON starts",
    "AKIA is the prefix of AWS access key ids",
    "sk-short",
    "SECRET_KEY=<your-secret-here>",
    "+    password = self.config.password",
    "token_count = 12345678",
    "max_tokens: 4096",
    "secret_key = settings.SECRET",
    "tokenizer = Tokenizer()",
    # prose about passwords and tokens, with no value
    "Set the password in the settings page.",
    "password: required",
    "the password= option sets it",
    "passwords must be at least 12 characters long",
    "Use --password to pass it, or --token-file PATH",
    "the default password policy requires a login",
    "machine learning: password reset flow",
    "Authorization: Bearer <token>",
    '"auth": "required"',
    '{"password": "string", "token": "********"}',
    # code that names secrets without holding one
    "client = Client(password=password, token=token)",
    "+    client = Client(api_key=api_key, secret=self.secret)",
    "api_key=API_KEY",
    "MAX_TOKENS=4096",
    "@@ -30,23 +30,38 @@ DEFAULT_BUDGET_TOKENS = 12_000",
    "curl -u $USER:$TOKEN https://x",
    "printf 'GITHUB_TOKEN=ghp_%s\\n' \"$T\"",
    "docker login --password-stdin",
    "key = cache_key(user_id)",
    # hashes, ids, digests and ordinary base64
    "\n".join(hashlib.sha1(str(i).encode()).hexdigest() for i in range(6)),
    "\n".join(hashlib.sha512(str(i).encode()).hexdigest().upper() for i in range(3)),
    "\n".join(str(uuid.UUID(int=i * 7919 + 1)) for i in range(6)),
    "integrity sha512-" + base64.b64encode(hashlib.sha512(b"x").digest()).decode(),
    "github.com/x/y v1.0.0 h1:" + base64.b64encode(hashlib.sha256(b"x").digest()).decode(),
    "ThisIsAVeryLongCamelCaseIdentifierName123\nAnotherVeryLongCamelCaseIdentifierNameXY",
]
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + hashlib.sha512(b"png").digest() * 8).decode()
CERT_DER = bytes.fromhex("3082030130820269a003020102") + hashlib.sha512(b"cert").digest() * 10
NOT_SECRETS += [
    f'<img src="data:image/png;base64,{PNG}">',  # an ordinary base64 image
    "\n".join(textwrap.wrap(PNG, 76)),  # the same, wrapped as MIME does
    pem("CERTIFICATE", CERT_DER),  # a certificate is public
    "\n".join(pem("CERTIFICATE", CERT_DER).splitlines()[:4]),  # and so is its start without the END line
]


@pytest.mark.parametrize(("kind", "text"), SECRETS, ids=[f"{k}-{n}" for n, (k, _) in enumerate(SECRETS)])
def test_secret_shapes_are_replaced_by_typed_placeholders(kind, text):
    """Each credential shape is replaced by a placeholder naming its kind, and counted."""
    out, counts = redact(text)
    assert f"[REDACTED:{kind}]" in out
    assert counts[kind] >= 1
    assert A[:20] not in out and "hunter2" not in out and "swordfish" not in out


def test_corpus_has_at_least_25_shapes():
    """The corpus the issue asks for covers at least 25 credential shapes."""
    assert len(SECRETS) >= 25


@pytest.mark.parametrize("text", NOT_SECRETS, ids=range(len(NOT_SECRETS)))
def test_ordinary_text_is_untouched(text):
    """Text that only looks near a secret is returned unchanged with no counts."""
    assert redact(text) == (text, {})


def test_redaction_is_idempotent():
    """Redacting already-redacted text changes nothing and counts nothing."""
    once, _ = redact(
        "\n".join([t for _, t in SECRETS] + [t for _, t, _ in MORE_SECRETS] + [t for _, _, t, _ in AUDIT_SECRETS])
    )
    twice, counts = redact(once)
    assert twice == once
    assert sum(counts.values()) == 0


def test_env_assignment_keeps_name_and_comment():
    """A .env line keeps its variable name and trailing comment; only the value goes."""
    assert redact("SECRET_KEY=abcd1234 # rotate monthly")[0] == "SECRET_KEY=[REDACTED:env_secret] # rotate monthly"


def test_redactor_accumulates_counts_across_strings_and_structures():
    """One Redactor walks nested JSON and keeps one running count by kind."""
    r = Redactor()
    out = r.walk({"a": ["ghp_" + A[:36], {"b": "AKIA" + "IOSFODNN7EXAMPLE"}], "c": 3})
    assert out == {"a": ["[REDACTED:github_token]", {"b": "[REDACTED:aws_access_key_id]"}], "c": 3}
    assert r.summary() == {"total": 2, "by_kind": {"aws_access_key_id": 1, "github_token": 1}}


def test_a_redactor_answers_a_repeated_string_as_the_first_time_and_counts_each():
    """A string seen before (remembered) is redacted the same and its redactions counted again."""

    secret = "token=ghp_" + "a1B2" * 9
    redactor = Redactor()
    first, again, plain = redactor(secret), redactor(secret), redactor("line")
    assert first == again == redact(secret)[0] != secret and plain == "line"
    assert sum(redactor.counts.values()) == 2 * sum(redact(secret)[1].values()) > 0
