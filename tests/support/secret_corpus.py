"""The secret corpus: credential shapes, the places they are put, and the count of those that leak.

Every value is fake and assembled at run time from a seeded generator, so no scanner mistakes
this repository for a leak and every run builds the same corpus. A ``Shape`` is how a credential
is written where it is found (``text``: a line of a .env, a whole key file, a header), what it
is when it stands alone (``token``, for file names, goals and commit messages; None when it
cannot stand alone), and the ``needles`` that must never appear anywhere we send or store:
the secret parts (for a key, a slice of every body line).

Shared by ``tests/integration/test_secret_corpus.py``, ``tests/e2e/test_secret_corpus_e2e.py``
and ``bench/bench_secrets.py``.
"""

from __future__ import annotations

import base64
import json
import random
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.handoff_env import git

_RNG = random.Random(20261130)
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def alnum(n: int, alphabet: str = _ALNUM) -> str:
    """``n`` random characters of ``alphabet`` (the corpus's own generator: deterministic)."""
    return "".join(_RNG.choice(alphabet) for _ in range(n))


def hexs(n: int) -> str:
    return alnum(n, "0123456789abcdef")


def b64(nbytes: int) -> str:
    return base64.b64encode(_RNG.randbytes(nbytes)).decode()


def pem(label: str, der: bytes, width: int = 64) -> str:
    """A PEM file: BEGIN line, base64 body lines of ``width``, END line."""
    body = "\n".join(textwrap.wrap(base64.b64encode(der).decode(), width))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----\n"


def der_rsa() -> bytes:
    """A PKCS#1 RSA private key's DER shape (SEQUENCE, version 0, modulus) with random contents."""
    return bytes.fromhex("308204a40201000282010100") + _RNG.randbytes(1180)


def der_pkcs8() -> bytes:
    """A PKCS#8 RSA private key's DER shape."""
    return bytes.fromhex("308204be020100300d06092a864886f70d0101010500048204a8308204a40201000282010100") + (
        _RNG.randbytes(1180)
    )


def der_ec() -> bytes:
    """A SEC1 EC private key's DER shape (P-256)."""
    return (
        bytes.fromhex("30770201010420")
        + _RNG.randbytes(32)
        + bytes.fromhex("a00a06082a8648ce3d030107a144034200")
        + _RNG.randbytes(65)
    )


def der_encrypted() -> bytes:
    """An encrypted PKCS#8 key's DER shape (PBES2)."""
    return bytes.fromhex("30820529305706092a864886f70d01050d304a") + _RNG.randbytes(1300)


def openssh_key() -> str:
    """An OpenSSH private key file (70-character body lines)."""
    raw = b"openssh-key-v1\x00" + _RNG.randbytes(380)
    body = "\n".join(textwrap.wrap(base64.b64encode(raw).decode(), 70))
    return f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----\n"


def ppk() -> str:
    """A PuTTY .ppk (version 3) RSA key file: public lines, then the private lines."""
    public = "\n".join(textwrap.wrap(b64(270), 64))
    private = "\n".join(textwrap.wrap(b64(660), 64))
    return (
        "PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: rsa-key-20261130\n"
        f"Public-Lines: {public.count(chr(10)) + 1}\n{public}\n"
        f"Private-Lines: {private.count(chr(10)) + 1}\n{private}\nPrivate-MAC: {hexs(64)}\n"
    )


def body_lines(text: str) -> list[str]:
    """The long base64 lines of a key text (its body), however it is wrapped or escaped."""
    lines = text.replace("\\n", "\n").splitlines()
    return [
        line.strip(' "')
        for line in lines
        if len(line.strip(' "')) >= 40 and all(c.isalnum() or c in "+/=" for c in line.strip(' "'))
    ]


def key_needles(text: str) -> list[str]:
    """A 20-character slice from the middle of every body line: any one found is a leak."""
    return [line[len(line) // 2 - 10 : len(line) // 2 + 10] for line in body_lines(text)]


@dataclass
class Shape:
    """One credential as it is written, alone, and what of it must never leave."""

    name: str
    text: str
    token: str | None = None
    needles: list[str] = field(default_factory=list)
    key: bool = False  # a multi-line key file: placed whole, and changed in the middle
    # Whether its lines joined by spaces are still a way to write it (`.netrc`'s fields are its one-line
    # form), so the joined line can be what git puts in a hunk header; a YAML block or a CSV cannot.
    one_line: bool = True

    def __post_init__(self) -> None:
        if not self.needles:
            self.needles = key_needles(self.text) if self.key else [self.token or self.text]


def _tok(name: str, token: str, line: str | None = None) -> Shape:
    return Shape(name, (line or "{}").format(token), token, [token])


def _pair(name: str, line: str, secret: str, token: str | None = None) -> Shape:
    return Shape(name, line, token, [secret])


def shapes() -> list[Shape]:
    """The corpus: 100+ credential shapes, token formats first, then names and values, then keys, then the audited."""
    global _RNG
    _RNG = random.Random(20261130)  # every call builds the same corpus
    t = alnum
    sa = t(20) + "/" + t(19)
    pw = [f"Pw{t(10)}!{n}" for n in range(20)]
    rsa = pem("RSA PRIVATE KEY", der_rsa())
    pkcs8 = pem("PRIVATE KEY", der_pkcs8())
    ec = pem("EC PRIVATE KEY", der_ec())
    enc = pem("ENCRYPTED PRIVATE KEY", der_encrypted())
    ssh = openssh_key()
    putty = ppk()
    kube_key = pem("RSA PRIVATE KEY", der_rsa())
    tls_key = pem("PRIVATE KEY", der_pkcs8())
    gcp_key = pem("PRIVATE KEY", der_pkcs8())
    pgp_body = "\n".join(textwrap.wrap(b64(900), 64))
    middle = pem("RSA PRIVATE KEY", der_rsa())
    middle_body = "\n".join(middle.splitlines()[6:14])
    der_line = base64.b64encode(der_pkcs8()).decode()
    docker = base64.b64encode(f"deploy:{pw[5]}".encode()).decode()
    basic = base64.b64encode(f"admin:{pw[6]}".encode()).decode()
    sentry = hexs(32)
    legacy_key, legacy_secret = hexs(32), hexs(32)
    out = [
        _tok("openai legacy key", "sk-" + t(48), "OPENAI_KEY_IN_CODE = '{}'"),
        _tok("openai project key", "sk-proj-" + t(40) + "T3BlbkFJ" + t(20), "client = OpenAI(api_key='{}')"),
        _tok("openai service account key", "sk-svcacct-" + t(48), "key: {}"),
        _tok("openai admin key", "sk-admin-" + t(48), "curl -H 'Authorization: Bearer {}'"),
        _tok("anthropic api key", "sk-ant-api03-" + t(80), "ANTHROPIC={}"),
        _tok("anthropic admin key", "sk-ant-admin01-" + t(60), "admin key {}"),
        _tok("aws access key id", "AKIA" + t(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"), "aws_access_key_id = {}"),
        _tok("aws temporary key id", "ASIA" + t(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"), "id={}"),
        _pair("aws secret access key", f"aws_secret_access_key = {sa}", sa),
        _tok("github classic token", "ghp_" + t(36), "git clone https://x-access-token:{}@github.com/o/r"),
        _tok("github oauth token", "gho_" + t(36), "GH {}"),
        _tok("github fine-grained token", "github_pat_11" + t(20) + "_" + t(59), "token {}"),
        _tok("github app token", "ghs_" + t(36), "app {}"),
        _tok("gitlab token", "glpat-" + t(20), "GITLAB {}"),
        _tok("slack bot token", "xoxb-" + t(12, "0123456789") + "-" + t(24), "SLACK_BOT {}"),
        _tok("slack user token", "xoxp-" + t(12, "0123456789") + "-" + t(32), "user {}"),
        _tok("slack app token", "xapp-1-A" + t(10) + "-" + t(13, "0123456789") + "-" + hexs(64), "app-level {}"),
        _tok("slack webhook", "https://hooks.slack.com/services/T" + t(10) + "/B" + t(10) + "/" + t(24), "hook {}"),
        _tok("stripe live key", "sk_live_" + t(24), "Stripe.api_key = {}"),
        _tok("stripe restricted key", "rk_test_" + t(24), "rk {}"),
        _tok("stripe webhook secret", "whsec_" + t(32), "whsec {}"),
        _tok("google api key", "AIza" + t(35), "maps key {}"),
        _tok("google oauth token", "ya29." + t(60), "oauth {}"),
        _tok("google client secret", "GOCSPX-" + t(28), "gcp {}"),
        _tok("npm token", "npm_" + t(36), "//registry.npmjs.org/:_authToken={}"),
        _tok("hugging face token", "hf_" + t(34), "HF {}"),
        _tok("sendgrid key", "SG." + t(22) + "." + t(43), "sendgrid {}"),
        _tok("pypi token", "pypi-AgEIcHlwaS5vcmc" + t(60), "password = {}"),
        _tok("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOi" + t(20) + ".sig" + t(40), "session {}"),
        _tok("vault service token", "hvs.CAES" + t(90), "VAULT {}"),
        _tok("vault batch token", "hvb.AAAA" + t(120), "batch {}"),
        _pair("sentry dsn", f"SENTRY_DSN https://{sentry}@o4504.ingest.sentry.io/4505", sentry),
        _pair(
            "sentry legacy dsn",
            f"dsn = 'https://{legacy_key}:{legacy_secret}@sentry.example.com/12'",
            legacy_secret,
        ),
        _pair("url password", f"DATABASE_URL: postgres://app:{pw[0]}@db.internal:5432/prod", pw[0]),
        _pair("url password, empty user", f"cache at redis://:{pw[1]}@cache.internal:6379/0", pw[1]),
        _pair("bearer header", f"Authorization: Bearer {t(40)}", "", None),
        _pair("basic auth header", f"authorization: Basic {basic}", basic),
        _pair("x-api-key header", f'curl -H "X-Api-Key: {pw[2]}" https://api.example.com', pw[2]),
        _pair("gitlab private-token header", f"--header 'PRIVATE-TOKEN: {pw[3]}'", pw[3]),
        _pair(
            "azure storage connection string",
            f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={b64(64)};EndpointSuffix=core.windows.net",
            "",
        ),
        _pair(
            "azure sas url",
            f"https://acme.blob.core.windows.net/c/b.txt?sv=2022-11-02&ss=b&sp=r&sig={t(43)}%3D",
            "",
        ),
        _pair(
            "s3 presigned url",
            f"https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature={hexs(64)}",
            "",
        ),
        _pair("docker config auth", json.dumps({"auths": {"ghcr.io": {"auth": docker}}}), docker),
        _pair("netrc line", f"machine api.example.com login deploy password {pw[4]}", pw[4]),
        _pair("netrc fields", f"machine git.example.com\n  login deploy\n  password {pw[7]}\n", pw[7]),
        _pair("env password", f"DATABASE_PASSWORD={pw[8]}", pw[8]),
        _pair("exported quoted secret", f'export STRIPE_SECRET="{pw[9]} with spaces"', pw[9]),
        _pair("yaml password", f"db_password: {pw[10]}", pw[10]),
        _pair("json client secret", json.dumps({"client_secret": pw[11]}), pw[11]),
        _pair("escaped json password", json.dumps(json.dumps({"password": pw[12]})), pw[12]),
        _pair("password= in prose", f"log in with password={pw[13]} and then rotate it", pw[13]),
        _pair("token in a url query", f"GET /api/items?access_token={pw[14]}&page=2", pw[14]),
        _pair("password flag", f"mysql --password {pw[15]} -h db", pw[15]),
        _pair("curl user:password", f"curl -u admin:{pw[16]} https://ci.example.com", pw[16]),
        _pair("ini api key", f"api_key = {pw[17]}", pw[17]),
        Shape("rsa private key", rsa, key=True),
        Shape("pkcs8 private key", pkcs8, key=True),
        Shape("ec private key", ec, key=True),
        Shape("encrypted private key", enc, key=True),
        Shape("openssh private key", ssh, key=True),
        Shape("putty ppk", putty, needles=key_needles(putty.split("Private-Lines:")[1]), key=True),
        Shape(
            "kubeconfig client-key-data",
            "users:\n- name: admin\n  user:\n    client-certificate-data: "
            + base64.b64encode(b"-----BEGIN CERTIFICATE-----\n" + _RNG.randbytes(300)).decode()
            + "\n    client-key-data: "
            + base64.b64encode(kube_key.encode()).decode()
            + "\n",
            needles=[base64.b64encode(kube_key.encode()).decode()[100:140]],
            key=True,
        ),
        Shape(
            "kubernetes tls secret",
            "apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.key: "
            + base64.b64encode(tls_key.encode()).decode()
            + "\n",
            needles=[base64.b64encode(tls_key.encode()).decode()[100:140]],
            key=True,
        ),
        Shape(
            "gcp service account json",
            json.dumps({"type": "service_account", "private_key": gcp_key, "client_email": "ci@p.iam"}, indent=2),
            needles=key_needles(gcp_key),
            key=True,
        ),
        Shape(
            "pgp private key block",
            f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{pgp_body}\n=Ab12\n-----END PGP PRIVATE KEY BLOCK-----\n",
            key=True,
        ),
        Shape("key body without begin or end", middle_body + "\n", needles=key_needles(middle_body), key=True),
        Shape("der key on one line", f"signing:\n  der: {der_line}\n", needles=[der_line[200:240]], key=True),
    ]
    out += audited()
    out += unenumerated()
    out += redteamed()
    out += bare_and_short()
    from tests.support.secret_corpus_issue35 import issue35  # issue 35's part: it draws from this generator

    out += issue35()
    for s in out:
        if not s.needles or s.needles == [""]:
            s.needles = [_secret_part(s.text)]
    return out


def audited() -> list[Shape]:
    """The shapes an audit found passing unchanged: AWS secrets by position, YAML blocks, assignment forms,
    command lines, commented or escaped key bodies, cookies, eleven token families, short secret names."""
    t = alnum
    key_id = "AKIA" + t(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    sa = [t(20) + "/" + t(14) + "+" + t(4) for _ in range(6)]
    pw = [f"Qx{t(11)}{n}" for n in range(30)]
    body = pem("RSA PRIVATE KEY", der_rsa()).splitlines()[3:10]
    bodies = ["\n".join(body)] + ["\n".join(pem("PRIVATE KEY", der_pkcs8()).splitlines()[3:10]) for _ in range(4)]
    discord_id = base64.b64encode(("1" + t(17, "0123456789")).encode()).decode()
    telegram = "AA" + t(33)
    enc, app, master = hexs(64), b64(32), hexs(32)
    return [
        _pair("aws configure set", f"aws configure set aws_secret_access_key {sa[0]}", sa[0]),
        _pair("aws secret after its id (boto3)", f'boto3.client("s3", "{key_id}", "{sa[1]}")', sa[1]),
        _pair("aws secret after its id (C#)", f'new BasicAWSCredentials("{key_id}", "{sa[2]}");', sa[2]),
        Shape(
            "aws console credentials csv",
            "User name,Password,Access key ID,Secret access key,Console login link\n"
            f"deploy,{pw[0]},{key_id},{sa[3]},https://{t(12, '0123456789')}.signin.aws.amazon.com/console\n",
            needles=[pw[0], sa[3]],
            one_line=False,
        ),
        _pair("aws id:secret", f"{key_id}:{sa[4]}", sa[4]),
        _pair("go secretKey :=", f'secretKey := "{sa[5]}"', sa[5]),
        Shape("yaml block scalar", f"db:\n  password: |\n    {pw[1]}\n  host: db\n", needles=[pw[1]], one_line=False),
        Shape("yaml folded scalar", f"api:\n  token: >-\n    {pw[2]}\n", needles=[pw[2]], one_line=False),
        _pair("kubernetes env value", f"env:\n  - name: DB_PASSWORD\n    value: {pw[3]}\n", pw[3]),
        _pair("kubernetes env quoted value", f'env:\n  - name: API_TOKEN\n    value: "{pw[4]}"\n', pw[4]),
        Shape("yaml password list", f"passwords:\n  - {pw[5]}\n  - {pw[6]}\n", needles=[pw[5], pw[6]], one_line=False),
        _pair("php array password", f"$db = ['password' => '{pw[7]}',", pw[7]),
        _pair("ruby symbol password", f':password => "{pw[8]}"', pw[8]),
        _pair("go password :=", f'password := "{pw[9]}"', pw[9]),
        _pair("getenv default", f"os.environ.get('DB_PASSWORD', '{pw[10]}')", pw[10]),
        _pair("header subscript", f"headers['X-API-KEY'] = '{pw[11]}'", pw[11]),
        _pair("mysql -p attached", f"mysql -u root -p{pw[12]} app", pw[12]),
        _pair("sshpass -p", f"sshpass -p '{pw[13]}' ssh deploy@host", pw[13]),
        _pair("docker login -p", f"docker login -u bob -p {pw[14]} registry.example.com", pw[14]),
        _pair("setx", f"setx API_TOKEN {pw[15]}", pw[15]),
        _pair("fish set -x", f"set -x API_TOKEN {pw[16]}", pw[16]),
        _pair("curl token header", f"curl -H 'token: {pw[17]}' https://api.example.com", pw[17]),
        Shape(
            "key body behind # comments",
            "\n".join("# " + x for x in bodies[0].split("\n")),
            needles=key_needles(bodies[0]),
            key=True,
        ),
        Shape(
            "key body behind // comments",
            "\n".join("// " + x for x in bodies[1].split("\n")),
            needles=key_needles(bodies[1]),
            key=True,
        ),
        Shape(
            "key body in a mail quote",
            "\n".join("> " + x for x in bodies[2].split("\n")),
            needles=key_needles(bodies[2]),
            key=True,
        ),
        Shape(
            "key body in python concatenation",
            "KEY = (\n" + "\n".join(f'    "{x}\\n"' for x in bodies[3].split("\n")) + "\n)\n",
            needles=key_needles(bodies[3]),
            key=True,
        ),
        Shape(
            "key body escaped twice in json",
            json.dumps(json.dumps({"blob": bodies[4] + "\n"})),
            needles=key_needles(bodies[4]),
            key=True,
        ),
        Shape("cookie header", f"Cookie: theme=dark; sessionid={pw[18]}; csrftoken={pw[19]}", needles=[pw[18], pw[19]]),
        _pair("set-cookie header", f"Set-Cookie: __Host-session={pw[20]}; Path=/; Secure; HttpOnly", pw[20]),
        _tok("digitalocean token", "dop_v1_" + hexs(64), "DIGITALOCEAN {}"),
        _tok("shopify token", "shpat_" + hexs(32), "shop {}"),
        _tok("discord bot token", discord_id + ".G" + t(5) + "." + t(38), "Bot {}"),
        _pair("telegram bot token", f"https://api.telegram.org/bot{t(9, '123456789')}:{telegram}/getMe", telegram),
        _tok("twilio api key", "SK" + hexs(32), "twilio {}"),
        _tok("mailgun key", "key-" + t(31, "abcdefghijklmnopqrstuvwxyz0123456789") + "7", "mailgun api:{}"),
        _tok("atlassian token", "ATATT3xFfGF0" + t(170) + "=" + hexs(8).upper(), "jira {}"),
        _tok("databricks token", "dapi" + hexs(32), "databricks {}"),
        _tok("age secret key", "AGE-SECRET-KEY-1" + t(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"), "age {}"),
        _tok("linear api key", "lin_api_" + t(40), "linear {}"),
        _tok("postman api key", "PMAK-" + hexs(24) + "-" + hexs(34), "postman {}"),
        _pair("admin pw", f"ADMIN_PW={pw[21]}", pw[21]),
        _pair("encryption key hex", f"ENCRYPTION_KEY={enc}", enc),
        _pair("signing", f"SIGNING={pw[22]}", pw[22]),
        _pair("webhook hmac", f"WEBHOOK_HMAC={pw[23]}", pw[23]),
        _pair("db_pass", f"db_pass={pw[24]}", pw[24]),
        _pair("laravel app key", f"APP_KEY=base64:{app}", app),
        _pair("rails master key", f"RAILS_MASTER_KEY={master}", master),
    ]


def b64url(nbytes: int) -> str:
    return base64.urlsafe_b64encode(_RNG.randbytes(nbytes)).decode().rstrip("=")


def bip39_words() -> list[str]:
    """The BIP-39 English word list the redactor ships."""
    from importlib.resources import files

    return files("autopilot.redact").joinpath("bip39_english.txt").read_text().split()


def unenumerated() -> list[Shape]:
    """Issue 21's classes: provider prefixes the list lacked, webhook URLs, key material, credential files,
    password options, evasions, and values only their context marks as secret (the generic rule)."""
    t = alnum
    up = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    pw = [f"Zk{t(11)}{n}" for n in range(40)]
    words = bip39_words()
    seed12 = " ".join(_RNG.choice(words) for _ in range(12))
    seed24 = " ".join(_RNG.choice(words) for _ in range(24))
    jwk_d, jwk_p, jwk_q, ec_d = b64url(256), b64url(128), b64url(128), b64url(32)
    jwk = {"kty": "RSA", "n": b64url(256), "e": "AQAB", "d": jwk_d, "p": jwk_p, "q": jwk_q,
           "dp": b64url(128), "dq": b64url(128), "qi": b64url(128)}  # fmt: skip
    minisign = "RWRTY0Iy" + b64(150)
    jwt_payload, jwt_sig = "eyJzdWIiOi" + t(30), t(43)
    ghp = "ghp_" + t(36)
    guid = "-".join(hexs(n) for n in (8, 4, 4, 4, 12))
    hec = "-".join(hexs(n) for n in (8, 4, 4, 4, 12))
    eth = hexs(64)
    return [
        _tok("groq key", "gsk_" + t(52), "groq {}"),
        _tok("xai key", "xai-" + t(80), "grok {}"),
        _tok("perplexity key", "pplx-" + t(48), "pplx {}"),
        _tok("replicate token", "r8_" + t(37), "replicate {}"),
        _tok("tailscale auth key", "tskey-auth-k" + t(10) + "CNTRL-" + t(33), "tailscale up --authkey={}"),
        _tok("doppler token", "dp.pt." + t(43), "doppler {}"),
        _tok("grafana service account token", "glsa_" + t(32) + "_" + hexs(8), "grafana {}"),
        _tok("new relic user key", "NRAK-" + t(27, up), "newrelic {}"),
        _tok("pulumi token", "pul-" + hexs(40), "pulumi {}"),
        _tok("supabase access token", "sbp_" + hexs(40), "supabase {}"),
        _tok("notion token", "ntn_" + t(46), "notion {}"),
        _tok("figma token", "figd_" + t(40), "figma {}"),
        _tok("planetscale token", "pscale_tkn_" + t(43), "planetscale {}"),
        _tok("rubygems key", "rubygems_" + hexs(48), "gem {}"),
        _tok("netlify token", "nfp_" + t(40), "netlify {}"),
        _tok("fly token", "fm2_" + t(120), "fly FlyV1 {}"),
        _tok("bitbucket app password", "ATBB" + t(32), "bitbucket {}"),
        _tok("sentry user token", "sntryu_" + hexs(64), "sentry {}"),
        _tok("1password service account token", "ops_eyJ" + t(220), "op {}"),
        _tok("cloudflare origin ca key", "v1.0-" + hexs(24) + "-" + hexs(146), "origin ca {}"),
        _tok("azure ad client secret", t(3) + "8Q~" + t(34, _ALNUM + "_-.~"), "azure app {}"),
        _tok("vault legacy token", "s." + t(24), "vault {}"),
        _tok("google refresh token", "1//0" + t(100, _ALNUM + "_-"), "refresh {}"),
        _pair(
            "discord webhook",
            f"hook https://discord.com/api/webhooks/{t(18, '0123456789')}/{pw[0]}{t(55, _ALNUM + '_-')}",
            pw[0],
        ),
        _pair(
            "teams webhook",
            f"https://acme.webhook.office.com/webhookb2/{guid}@{guid}/IncomingWebhook/{pw[1]}{hexs(19)}/{guid}",
            pw[1],
        ),
        Shape("jwk private rsa key", json.dumps(jwk, indent=2), needles=[jwk_d[100:140], jwk_p[60:100], jwk_q[60:100]]),
        _pair("jwk private ec key", json.dumps({"kty": "EC", "crv": "P-256", "x": b64url(32), "d": ec_d}), ec_d),
        Shape(
            "minisign secret key",
            f"untrusted comment: minisign encrypted secret key\n{minisign}\n",
            needles=[minisign[60:100]],
            one_line=False,
        ),
        _pair("ethereum private key", f'const wallet = new ethers.Wallet("0x{eth}");', eth),
        _pair("bip-39 seed phrase, 12 words", f"recovery: {seed12}", " ".join(seed12.split()[3:8])),
        _pair("bip-39 seed phrase, 24 words", seed24, " ".join(seed24.split()[9:14])),
        Shape(
            "jwt split across string literals",
            f'const token = "eyJhbGciOiJIUzI1NiJ9" +\n  ".{jwt_payload}" +\n  ".{jwt_sig}";',
            needles=[jwt_payload, jwt_sig],
        ),
        _pair("pgpass line", f"db.internal:5432:prod:app:{pw[3]}", pw[3]),
        _pair(
            "maven server password",
            f"<server>\n  <id>releases</id>\n  <username>deploy</username>\n  <password>{pw[4]}</password>\n</server>",
            pw[4],
        ),
        _pair("nuget cleartext password", f'<add key="ClearTextPassword" value="{pw[5]}" />', pw[5]),
        _pair("web.config app setting", f'<add key="PaymentGatewayApiKey" value="{pw[6]}" />', pw[6]),
        _pair(
            "terraform state output",
            json.dumps({"outputs": {"db_admin": {"value": pw[7], "type": "string", "sensitive": True}}}, indent=2),
            pw[7],
        ),
        _pair(
            "terraform state random_password",
            json.dumps(
                {
                    "mode": "managed",
                    "type": "random_password",
                    "name": "db",
                    "instances": [{"attributes": {"id": "none", "length": 24, "result": pw[8], "special": True}}],
                },
                indent=2,
            ),  # fmt: skip
            pw[8],
        ),
        _pair("sudo -S input", f"echo '{pw[9]}' | sudo -S apt-get install -y nginx", pw[9]),
        _pair("keytool store password", f"keytool -importkeystore -srckeystore a.p12 -srcstorepass {pw[10]}", pw[10]),
        _pair("htpasswd -b", f"htpasswd -b /etc/nginx/.htpasswd admin {pw[11]}", pw[11]),
        _pair("ssh-keygen -N", f"ssh-keygen -t ed25519 -N '{pw[12]}' -f deploy_key", pw[12]),
        _pair("zip -P", f"zip -P {pw[13]} backup.zip db.sql", pw[13]),
        _pair("7z -p", f"7z a -p{pw[14]} backup.7z db.sql", pw[14]),
        _pair("ldapsearch -w", f"ldapsearch -x -D cn=admin,dc=example,dc=com -w {pw[15]} -b dc=example", pw[15]),
        _pair("curl -u :token", f"curl -u :{pw[16]}{t(20)} https://dev.azure.com/acme/_apis/projects", pw[16]),
        _pair("curl --oauth2-bearer", f"curl --oauth2-bearer {pw[17]}{t(20)} https://api.example.com", pw[17]),
        _pair("docker build arg", f"docker build --build-arg GITHUB_PAT={pw[18]}{t(20)} .", pw[18]),
        _pair("okta ssws header", f"Authorization: SSWS 00{pw[19]}{t(28)}", pw[19]),
        _pair("splunk hec header", f"-H 'Authorization: Splunk {hec}'", hec),
        _pair("token as a clone url's user", f"git clone https://{pw[21]}{t(28)}@github.com/acme/app.git", pw[21]),
        Shape(
            "url password with an @",
            f"DATABASE_URL=postgres://app:{pw[22]}@{pw[23]}@db.internal:5432/prod",
            needles=[pw[22], pw[23]],
        ),
        _pair("zero-width space inside a token", f"GH {ghp[:12]}\u200b{ghp[12:]}", ghp[12:]),
        _pair("percent-encoded prefix", f"GET /login?next=ghp%5F{pw[24]}{t(23)}", pw[24]),
        _pair("salt under a credential-like name", f"HASH_SALT={pw[25]}{t(20)}", pw[25]),
        _pair("dsn keyed in json", json.dumps({"dsn": f"{pw[26]}{t(24)}"}), pw[26]),
        _pair("unknown cli's -p option", f"vaultctl login -p {pw[27]}{t(16)} --host db", pw[27]),
        _pair("xml config token element", f"<apiToken>{pw[28]}{t(20)}</apiToken>", pw[28]),
        _pair("properties passphrase", f"signing.keystore.passphrase={pw[29]}", pw[29]),
    ]


def _secret_part(text: str) -> str:
    """The secret tail of a line whose secret was generated inline (headers, connection strings, URLs)."""
    for marker in ("Bearer ", "AccountKey=", "sig=", "X-Amz-Signature="):
        if marker in text:
            rest = text.split(marker, 1)[1]
            return rest.split(";")[0].split("%")[0].split("&")[0][:40]
    raise ValueError(text)


def placed_in(shape: Shape) -> str:
    """The file text a shape is placed in: the shape's own text, between ordinary lines."""
    return f"# settings for the service\n{shape.text.rstrip()}\n# end\n"


# --- the repository scenario: diffs, hunk headers, renames, copies, names, commit messages ----------


@dataclass
class Scenario:
    """A repository laid out with the corpus before and after the run's base commit."""

    repo: Path
    shapes: list[Shape]
    goal: str
    last_message: str


def name_safe(token: str) -> bool:
    """Whether a token can be a file name as it is."""
    return "/" not in token and len(token) <= 200


def before_plan(repo: Path, corpus: list[Shape]) -> None:
    """Commit what the base holds: key files and hunk-header files to be changed later, a .env, named files.

    A second env file, ``.env.local``, is gitignored: git never holds a blob of it.
    """
    (repo / "deploy").mkdir(exist_ok=True)
    filler = "".join(f"  echo step {n}\n" for n in range(12))
    for n, s in enumerate(corpus):
        if s.key:
            (repo / "deploy" / f"blob-{n:02d}.dat").write_text(s.text)
        else:  # the line becomes the function context of a later hunk's header
            head = s.text.rstrip().replace("\n", " ") if s.one_line else s.text.rstrip()
            (repo / "deploy" / f"env-{n:02d}.sh").write_text(head + "\n" + filler)
    (repo / ".env").write_text("".join(f"SETTING_{n}={s.needles[0]}\n" for n, s in enumerate(corpus)))
    (repo / ".gitignore").write_text(".env.local\n")
    (repo / ".env.local").write_text("".join(f"LOCAL_{n}={s.needles[-1]}\n" for n, s in enumerate(corpus)))
    (repo / "names-base").mkdir(exist_ok=True)
    for n, s in enumerate(corpus):
        if s.token and name_safe(s.token):
            (repo / "names-base" / f"{s.token}.txt").write_text(f"file {n}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base with the corpus")


def after_plan(repo: Path, corpus: list[Shape]) -> None:
    """The work the review sees: new files, keys changed in the middle, hunk headers, a rename, copies, names."""
    (repo / "corpus").mkdir(exist_ok=True)
    for n, s in enumerate(corpus):
        (repo / "corpus" / f"shape-{n:02d}.txt").write_text(placed_in(s))
        if s.key:  # change one line in the middle of the key: the hunk shows body lines only
            path = repo / "deploy" / f"blob-{n:02d}.dat"
            lines = path.read_text().split("\n")
            mid = len(lines) // 2
            lines[mid] = lines[mid][::-1]
            path.write_text("\n".join(lines))
        else:
            path = repo / "deploy" / f"env-{n:02d}.sh"
            path.write_text(path.read_text().replace("echo step 9", "echo step nine"))
    git(repo, "mv", ".env", "env.txt")  # a renamed secret file: the old side counts
    (repo / "env.txt").write_text((repo / "env.txt").read_text() + "EXTRA=1\n")
    (repo / "settings.copy").write_text(git(repo, "show", "HEAD:.env"))  # a copy of the committed .env
    (repo / "local-settings.txt").write_text((repo / ".env.local").read_text())  # a copy of the ignored one
    (repo / "names-new").mkdir(exist_ok=True)
    for n, s in enumerate(corpus):
        if s.token and name_safe(s.token):
            (repo / "names-new" / f"{s.token}.md").write_text(f"file {n}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "work\n\n" + "\n".join(s.text for s in corpus))  # commit messages too
    (repo / "uncommitted.txt").write_text("\n\n".join(s.text for s in corpus))


def scenario(repo: Path) -> Scenario:
    """The corpus and the goal and last message that carry it (the repository is filled by the callers)."""
    corpus = shapes()
    tokens = [s.token for s in corpus if s.token]
    goal = "Rotate the leaked credentials: " + " ".join(tokens)
    last = "Done. I used these:\n" + "\n".join(s.text for s in corpus)
    return Scenario(repo, corpus, goal, last)


# --- a Claude Code transcript that carries the corpus -----------------------------------------------


def transcript_rows(corpus: list[Shape], cwd: str) -> Any:
    """A Claude session that meets every shape: typed, said, run, read, written and committed."""
    from tests.support.claude_rows import Transcript, text, tool_use

    t = Transcript()
    t.user("Find why the deploy fails. Never print secrets.")
    for n, s in enumerate(corpus):
        t.user(f"here is what I found:\n{s.text}")
        t.assistant(text(f"The config holds:\n{s.text}\nNext: rotate it."))
        t.assistant(tool_use("Bash", {"command": f"grep -rn . deploy/blob-{n:02d}.dat"}, f"toolu_g{n}"))
        t.result(f"toolu_g{n}", s.text)
        t.assistant(tool_use("Read", {"file_path": f"{cwd}/deploy/blob-{n:02d}.dat"}, f"toolu_r{n}"))
        t.result(f"toolu_r{n}", "\n".join(f"{i:6d}→{line}" for i, line in enumerate(s.text.splitlines(), 1)))
        t.assistant(tool_use("Write", {"file_path": f"{cwd}/notes-{n}.txt", "content": s.text}, f"toolu_w{n}"))
        t.result(f"toolu_w{n}", "File created successfully")
        if s.token:
            t.assistant(tool_use("Bash", {"command": f"git commit -m 'rotate {s.token}'"}, f"toolu_c{n}"))
            t.result(f"toolu_c{n}", f"[main 1a2b3c4] rotate {s.token}")
    # a call that never returned: pending commands and the next action carry its input
    t.assistant(tool_use("Bash", {"command": "export " + corpus[0].token + "\n./deploy.sh"}, "toolu_pending"))
    return t


# --- counting leaks -------------------------------------------------------------------------------


def strings(value: Any) -> Iterable[str]:
    """Every string inside a JSON-like value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings(v)


def leaked(corpus: list[Shape], haystack: str) -> list[str]:
    """The names of the shapes any of whose needles is in ``haystack``."""
    return [s.name for s in corpus if any(n and n in haystack for n in s.needles)]


# --- a Codex rollout that carries the corpus ------------------------------------------------------


def codex_rollout_lines(corpus: list[Shape]) -> list[str]:
    """A real Codex 0.171 rollout (exec_tools) with every shape typed, run, patched and said in its last turn."""
    from tests.support.handoff_env import codex_lines

    lines = [json.loads(line) for line in codex_lines("exec_tools")]
    by_kind = {(row["type"], row["payload"].get("type"), row["payload"].get("role")): row for row in lines}
    user = by_kind[("response_item", "message", "user")]
    assistant = by_kind[("response_item", "message", "assistant")]
    call = next(r for r in lines if r["payload"].get("name") == "exec_command")
    output = by_kind[("response_item", "function_call_output", None)]
    patch = by_kind[("response_item", "custom_tool_call", None)]
    extra: list[dict[str, Any]] = []

    def add(template: dict[str, Any], **payload: Any) -> None:
        row = json.loads(json.dumps(template))
        row["payload"].update(payload)
        extra.append(row)

    for n, s in enumerate(corpus):
        add(user, id=f"msg_u{n}", content=[{"type": "input_text", "text": f"here is what I found:\n{s.text}"}])
        add(call, id=f"fc_c{n}", call_id=f"call_c{n}", arguments=json.dumps({"cmd": f"cat deploy/blob-{n:02d}.dat"}))
        add(output, id=f"fco_c{n}", call_id=f"call_c{n}", output=f"Process exited with code 0\nOutput:\n{s.text}\n")
        body = "".join(f"+{line}\n" for line in s.text.splitlines())
        add(
            patch,
            id=f"fc_p{n}",
            call_id=f"call_p{n}",
            input=f"*** Begin Patch\n*** Add File: notes-{n}.txt\n{body}*** End Patch\n",
        )
        add(assistant, id=f"msg_a{n}", content=[{"type": "output_text", "text": f"The config holds:\n{s.text}"}])
    last = lines.pop()  # the last turn's task_complete: the corpus goes inside that turn
    for k, row in enumerate([*extra, last]):
        row["ordinal"] = len(lines) + k + 1
    return [json.dumps(row, separators=(",", ":")) for row in [*lines, *extra, last]]


# --- the whole run: plan, review, verdict and the handoff, over the corpus ----------------------------

RECEIVER = "01a2ffff-0000-7000-8000-00000000c0de"


@dataclass
class Place:
    """One place the corpus can land: what it holds, as text, and which shapes leaked into it."""

    name: str
    text: str
    leaked: list[str]


def run_corpus(run: Any, server: Any, repo: Path, home: Path) -> list[Place]:
    """Drive plan, review and verdict (the scripted ``server`` answers) and the Claude and Codex handoffs.

    ``run(args, cwd)`` runs one ``codex-bridge`` command and returns (exit code, stdout, stderr);
    ``home`` is ``$AUTOPILOT_HOME``. Returns every place with the shapes found in it.
    """
    from autopilot.scripted.responses_server import reply_json
    from tests.support.handoff_env import CLAUDE_CWD, claude_session, codex_rollout, thread_of
    from tests.support.loop import APPROVE, PLAN, continue_to

    sc = scenario(repo)
    corpus = sc.shapes
    texts: dict[str, str] = {}
    config = home / "config.yaml"
    if not config.exists():  # the whole corpus diff is sent, not its middle cut out (the default is 60,000)
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text("max_diff_chars: 400000\n")

    def call(place: str, args: list[str], cwd: Path) -> str:
        sent = len(server.requests)
        code, out, err = run(args, cwd)
        if code != 0:
            raise AssertionError(f"{' '.join(args[:3])} exited {code}: {err[-2000:]}")
        texts["stdout and stderr"] = texts.get("stdout and stderr", "") + out + err
        if len(server.requests) > sent:  # every request the command made, whatever the backend
            texts[f"{place} request body"] = "\n".join(s for r in server.requests[sent:] for s in strings(r))
        return out

    before_plan(repo, corpus)
    server.push(reply_json(PLAN))
    plan = json.loads(call("plan", ["plan", "--goal", sc.goal], repo))
    texts["plan file in the repository"] = (repo / plan["plan_path"]).read_text()
    after_plan(repo, corpus)
    server.push(reply_json(APPROVE))
    review = json.loads(call("review", ["review"], repo))
    assert not review["diff"]["cut"], "the corpus diff was cut: raise AUTOPILOT_MAX_DIFF_CHARS so all of it is sent"
    server.push(reply_json(continue_to("T2")))
    call("verdict", ["verdict", "--last-message", sc.last_message], repo)

    claude = claude_session(transcript_rows(corpus, CLAUDE_CWD), repo)
    session = claude.stem
    texts["claude intake"] = call("intake", ["handoff", "intake", str(claude), "--full", "--limit", "500"], repo)
    rows = len(claude.read_text().splitlines())
    texts["claude raw read"] = "".join(
        call(
            "raw",
            ["handoff", "raw", "read", str(claude), "--line", str(k), "--count", "50", "--max-chars", "100000"],
            repo,
        )
        for k in range(1, rows + 1, 50)
    )
    pid = json.loads(
        call("export", ["handoff", "export", "--from", "claude", "--session", session, "--to", "codex"], repo)
    )["packet"]
    texts["claude import context"] = call(
        "import", ["handoff", "import", pid, "--to", "codex", "--session", RECEIVER, "--new-session"], repo
    )
    # the other handoff commands that print what a session or a packet holds
    texts["handoff list, read, packets, inspect"] = "".join(
        call(place, args, repo)
        for place, args in (
            ("list", ["handoff", "list", "--from", "claude"]),
            ("read", ["handoff", "read", "--from", "claude", "--session", session, "--limit", "500"]),
            ("packets", ["handoff", "packets"]),
            ("inspect", ["handoff", "inspect", pid]),
        )
    )
    lines = codex_rollout_lines(corpus)
    rollout = codex_rollout(lines, repo)
    texts["codex intake"] = call(
        "intake", ["handoff", "from-codex", "intake", str(rollout), "--full", "--limit", "500"], repo
    )
    cpid = json.loads(
        call("export", ["handoff", "export", "--from", "codex", "--session", thread_of(lines), "--to", "claude"], repo)
    )["packet"]
    texts["codex import context"] = call(
        "import", ["handoff", "import", cpid, "--to", "claude", "--session", RECEIVER, "--new-session"], repo
    )
    texts["packets and evidence indexes"] = "\n".join(
        "\n".join(strings(json.loads(p.read_text()))) for p in sorted((home / "handoff" / "packets").glob("*.json"))
    )
    return [Place(name, text, leaked(corpus, text)) for name, text in texts.items()]


def redteamed() -> list[Shape]:
    """A red-team pass: 45 providers' formats the list still lacked, an unknown vendor's prefixed token, a secret split
    across string literals, and secrets encoded as base64, hex and escapes."""
    t = alnum
    up = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    low = "abcdefghijklmnopqrstuvwxyz0123456789"
    url = _ALNUM + "-_"
    digits = "0123456789"
    vendors = [
        ("heroku api key", "HRKU-AA" + t(58, url)),
        ("brevo api key", "xkeysib-" + hexs(64) + "-" + t(16)),
        ("mailchimp api key", hexs(32) + "-us12"),
        ("square oauth secret", "sq0csp-" + t(43, url)),
        ("square access token", "EAAA" + t(60, url)),
        ("facebook access token", "EAACEdEose0cBA" + t(150)),
        ("dropbox short-lived token", "sl." + t(136, url)),
        ("asana token", "2/1204" + t(12, digits) + "/1206" + t(12, digits) + ":" + hexs(32)),
        ("airtable token", "pat" + t(14) + "." + hexs(64)),
        ("clojars token", "CLOJARS_" + t(60, low)),
        ("contentful token", "CFPAT-" + t(43, url)),
        ("dynatrace token", "dt0c01." + t(24, up) + "." + t(64, up)),
        ("easypost key", "EZAK" + t(54)),
        ("frame.io token", "fio-u-" + t(64, url)),
        ("adafruit key", "aio_" + t(28)),
        ("alibaba access key id", "LTAI" + t(20)),
        ("prefect key", "pnu_" + t(36)),
        ("readme key", "rdme_" + t(70, low)),
        ("shippo token", "shippo_live_" + hexs(40)),
        ("typeform token", "tfp_" + t(44, url) + "_" + t(14)),
        ("duffel token", "duffel_live_" + t(43, url)),
        ("flutterwave secret key", "FLWSECK_TEST-" + hexs(32) + "-X"),
        ("yandex api key", "AQVN" + t(36, url)),
        ("mapbox secret token", "sk.eyJ1IjoiYWRhIiwiYSI6I" + t(40) + "." + t(22, url)),
        ("openshift token", "sha256~" + t(43, url)),
        ("octopus api key", "API-" + t(26, up)),
        ("terraform cloud token", t(14) + ".atlasv1." + t(67, url)),
        ("langsmith key", "lsv2_pt_" + hexs(32) + "_" + hexs(10)),
        ("pinecone key", "pcsk_" + t(5) + "_" + t(60)),
        ("buildkite token", "bkua_" + hexs(40)),
        ("render key", "rnd_" + t(32)),
        ("neon key", "napi_" + t(64, low)),
        ("resend key", "re_" + t(8) + "_" + t(24)),
        ("sourcegraph token", "sgp_" + hexs(16) + "_" + hexs(40)),
        ("jfrog api key", "AKCp" + t(69)),
        ("salesforce token", "00D" + t(15) + "!AQ" + t(90, _ALNUM + "._")),
        ("klaviyo key", "pk_" + hexs(34)),
        ("huggingface org token", "api_org_" + t(34)),
        ("scalingo token", "tk-us-" + t(48, url)),
        ("infracost key", "ico-" + t(32)),
        ("intra42 secret", "s-s4t2ud-" + hexs(64)),
        ("harness token", "pat." + t(22) + "." + t(24) + "." + t(20)),
        ("circleci token", "CCIPAT_" + t(22) + "_" + hexs(40)),
        ("twitch token", "oauth:" + t(30, low)),
        ("deno deploy token", "ddp_" + t(36)),
    ]
    out = [_tok(name, token, "they sent {} to the channel") for name, token in vendors]
    ghp = "ghp_" + t(36)
    unknown = "acme_live_" + t(40)
    out += [
        _tok("an unknown vendor's prefixed token", unknown, "curl https://api.acme.example/v1 -d key={}"),
        _pair("a token split across literals with +", f'token = "{ghp[:20]}" +\n  "{ghp[20:]}"', ghp[20:]),
        _pair("a key split across adjacent literals", f'client = Client(("{ghp[:18]}"\n  "{ghp[18:]}"))', ghp[18:]),
    ]
    b64_line = base64.b64encode(f"GITHUB_TOKEN={ghp}".encode()).decode()
    hex_token = ghp.encode().hex()
    escaped = "".join(f"\\u{ord(c):04x}" for c in ghp)
    out += [
        _pair("a token line in base64", f"echo {b64_line} | base64 -d", b64_line),
        _pair("a token in hex", f"payload {hex_token}", hex_token),
        _pair("a token as unicode escapes", f'"k": "{escaped}"', escaped),
    ]
    return out


def annotated_key(provider: str) -> str:
    """A Microsoft common annotated security key: 52 generated characters, `JQQJ99`, a date, platform data, the
    provider's signature (`AZDO`: Azure DevOps) and a checksum; 84 characters."""
    t = alnum
    return t(52) + "JQQJ99" + t(1) + t(1, "ABCDEFGHIJKL") + t(16) + provider + t(4)


def bare_and_short() -> list[Shape]:
    """A second red-team pass: tokens with no prefix at all (Azure DevOps PATs in both formats, another Azure key of
    the same format, ngrok authtokens in both forms) and unknown vendors' tokens whose body is 16-31 characters."""
    t = alnum
    base32 = "abcdefghijklmnopqrstuvwxyz234567"
    ngrok = [("2" + t(26), "4" + t(20)), ("6" + t(20), "2" + t(20))]
    short = [("zq_", t(16)), ("acme-live-", t(20)), ("corp_test_", t(24)), ("vx-", t(28)), ("tk_", t(31))]
    out = [
        _tok("azure devops pat", annotated_key("AZDO"), "pasted {} into the pipeline variables"),
        _tok("azure ai services key", annotated_key("ACOG"), "they sent {} to the channel"),
        _tok(
            "azure devops pat, 52-character base32",
            t(52, base32),
            "git push https://{}@dev.azure.com/acme/app/_git/app",
        ),
        Shape(
            "ngrok authtoken",
            f"ngrok config add-authtoken {ngrok[0][0]}_{ngrok[0][1]}",
            "_".join(ngrok[0]),
            [ngrok[0][1]],
        ),
        Shape(
            "ngrok authtoken, older form",
            f"tunnel started with {ngrok[1][0]}_{ngrok[1][1]}",
            "_".join(ngrok[1]),
            [ngrok[1][1]],
        ),
    ]
    out += [
        Shape(
            f"an unknown vendor's token, {len(body)}-character body",
            f"INFO using {prefix}{body} for staging",
            prefix + body,
            [body],
        )
        for prefix, body in short
    ]
    return out
