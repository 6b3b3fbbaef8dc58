"""Issue 35's part of the secret corpus: formats from providers' documentation (2025-26) that no rule of the project
was written for, evasions, credentials said in prose, and names.

Formats as the providers document them (prefix, alphabet, length): container registries and CI runners, cloud
storage and cloud session tokens, fintech and payment keys, AI and developer-tool providers, identity, databases,
social and messaging, crypto wallets, tunnels and VPNs. Every value is fake and made at run time by the corpus's own
seeded generator (``tests/support/secret_corpus.py``), so the corpus is the same on every run and no scanner takes
this repository for a leak. Called by ``secret_corpus.shapes()`` after the earlier parts, so it draws from the same
generator in the same order.
"""

from __future__ import annotations

import base64
import json
import textwrap

from tests.support import secret_corpus
from tests.support.secret_corpus import Shape, _pair, _tok, alnum, b64, hexs, pem

UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
LOW = "abcdefghijklmnopqrstuvwxyz0123456789"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


# Formats a reader (or a scanner) can tell from a digest, an id or a word only by what stands next to them (the
# provider's variable or flag): placed with it, never standing alone as a name.
CONTEXT_ONLY = frozenset(
    ("cloudflare r2 secret", "linode personal access token", "wise api token", "together api key", "sparkpost api key")
    + ("postmark server token", "gitea access token", "spotify client secret", "mongodb atlas private key")
    + (
        "monero spend key",
        "netbird setup key",
        "rabbitmq erlang cookie",
        "rails secret key base",
        "mattermost personal token",
    )
    + ("symfony app secret",)
)


def uuid() -> str:
    return "-".join(hexs(n) for n in (8, 4, 4, 4, 12))


def providers() -> list[Shape]:
    """Token formats from providers' documentation that the project had no rule for, each in a line as it is met."""
    t = alnum
    said = "they sent {} to the channel"
    tokens = [
        # container registries and CI
        ("docker hub personal access token", "dckr_pat_" + t(27, URL), "docker login -u ci --password-stdin <<< {}"),
        ("docker hub organization access token", "dckr_oat_" + t(32, URL), said),
        ("quay robot token", t(64, UP), "QUAY_ROBOT_TOKEN={}"),
        ("azure container registry password", t(42) + "+ACR" + t(6), "az acr login --password {}"),
        (
            "aws ecr login password",
            base64.b64encode(
                json.dumps(
                    {
                        "payload": b64(600),
                        "datakey": b64(200),
                        "version": "2",
                        "type": "DATA_KEY",
                        "expiration": 1796000000,
                    }
                ).encode()
            ).decode(),
            "echo {} | docker login",
        ),  # fmt: skip
        (
            "gitlab runner registration token",
            "GR1348941" + t(20, URL),
            "gitlab-runner register --registration-token {}",
        ),
        ("gitlab runner authentication token", "glrt-t1_" + t(27, URL), 'token = "{}"'),
        (
            "github actions runner registration token",
            "A" + t(28, B32),
            "./config.sh --url https://github.com/o/r --token {}",
        ),
        ("gitlab deploy token", "gldt-" + t(20, URL), said),
        ("gitlab feed token", "glft-" + t(20, URL), said),
        ("travis ci token", t(22), "travis login --github-token {}"),
        ("teamcity access token", "eyJ0eXAiOiAiVENWMiJ9." + t(36, URL) + "." + t(48, URL), said),
        ("sonarqube user token", "squ_" + hexs(40), "sonar-scanner -Dsonar.token={}"),
        ("sonarqube project token", "sqp_" + hexs(40), said),
        ("sonarqube global token", "sqa_" + hexs(40), said),
        ("woodpecker ci token", t(64, LOW), "WOODPECKER_TOKEN={}"),
        ("harness personal access token", "pat." + t(22) + "." + t(24) + "." + t(20), said),
        ("nuget api key", "oy2" + t(43, "abcdefghijklmnopqrstuvwxyz234567"), "dotnet nuget push -k {}"),
        ("crates.io token", "cio" + t(32), "cargo login {}"),
        ("rubygems api key", "rubygems_" + hexs(48), said),
        # cloud storage and cloud session tokens
        ("aws session token", "IQoJb3JpZ2luX2VjE" + b64(700), "aws_session_token = {}"),
        ("aws session token, older form", "FwoGZXIvYXdzE" + b64(300), "AWS_SESSION_TOKEN={}"),
        ("aws bedrock api key", "ABSK" + b64(100), said),
        ("azure storage account key", b64(64), "az storage blob list --account-key {}"),
        ("azure cosmos db key", b64(64), said),
        ("azure service bus key", b64(32), "SharedAccessKeyName=root;Key={}"),
        ("azure function key", t(54, URL) + "==", "x-functions-key {}"),
        ("azure refresh token", "0.A" + t(300, URL), said),
        ("gcs hmac access id", "GOOG1E" + t(55, UP), said),
        ("gcs hmac secret", b64(30), "gsutil hmac secret {}"),
        (
            "backblaze b2 application key",
            "K005" + t(27, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+"),
            "b2 authorize-account 0051a2b3c4d5e6f0000000001 {}",
        ),  # fmt: skip
        ("digitalocean spaces secret", b64(32).rstrip("="), "DO_SPACES_SECRET={}"),
        ("cloudflare api token", t(40, URL), said),
        ("cloudflare r2 secret", hexs(64), "R2_SECRET_ACCESS_KEY={}"),
        ("wasabi secret key", t(40), said),
        ("hetzner api token", t(64), said),
        ("vultr api key", t(36, UP), said),
        ("tencent cloud secret id", "AKID" + t(32), said),
        ("huawei cloud secret key", t(40), said),
        ("ibm cloud api key", t(44, URL), "ibmcloud login --apikey {}"),
        ("alibaba oss secret", t(30), said),
        ("scaleway access key", "SCW" + t(17, UP), "SCW_ACCESS_KEY={}"),
        ("akamai client token", "akab-" + t(16, LOW) + "-" + t(16, LOW), said),
        ("akamai client secret", b64(32), "client_secret = {}"),
        ("fastly api token", t(32, URL), said),
        ("upstash redis token", "AX" + t(68, URL) + "=", said),
        ("linode personal access token", hexs(64), "LINODE_TOKEN={}"),
        # fintech and payments
        ("plaid access token", "access-production-" + uuid(), said),
        ("plaid sandbox access token", "access-sandbox-" + uuid(), said),
        ("paypal client secret", "E" + t(79, URL), said),
        ("paypal access token", "A21AA" + t(92, URL), "Authorization: Bearer {}"),
        ("adyen api key", "AQE" + t(6) + "+" + b64(110), "X-API-Key: {}"),
        ("checkout.com secret key", "sk_sbox_" + t(26, LOW), said),
        ("razorpay key secret", "rzp_live_" + t(14) + " " + t(24), "RAZORPAY={}"),
        ("paystack secret key", "sk_live_" + hexs(40), said),
        ("mollie api key", "live_" + t(30), said),
        ("modern treasury api key", "live-" + t(64), said),
        ("paddle api key", "pdl_live_apikey_" + t(26, LOW) + "_" + t(22) + "_" + t(3), said),
        ("mercury api token", "secret-token:mercury_production_wma_" + t(32), said),
        ("increase api key", "secret_key_" + t(40, LOW), said),
        ("brex api token", "bxt_" + t(40), said),
        ("coinbase api secret", b64(64), said),
        ("kraken private key", b64(64), "KRAKEN_PRIVATE_KEY={}"),
        ("binance secret key", t(64), said),
        ("alpaca secret key", t(40), said),
        (
            "lemon squeezy api key",
            "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJhdWQiOiIxIiwianRpIjoi" + t(60, URL) + "." + t(120, URL),
            said,
        ),
        ("wise api token", uuid(), "WISE_API_TOKEN={}"),
        ("stripe connect secret", "sk_live_51" + t(96), said),
        ("stripe publishable restricted", "rk_live_51" + t(96), said),
        # AI and developer tools
        ("mistral api key", t(32), "MISTRAL_API_KEY={}"),
        ("cohere api key", t(40), said),
        ("together api key", hexs(64), "TOGETHER_API_KEY={}"),
        ("fireworks api key", "fw_" + t(24), said),
        ("deepseek api key", "sk-" + hexs(32), said),
        ("openrouter api key", "sk-or-v1-" + hexs(64), said),
        ("voyage api key", "pa-" + t(43, URL), said),
        ("elevenlabs api key", "sk_" + hexs(48), said),
        ("cerebras api key", "csk-" + t(48, LOW), said),
        ("anyscale api key", "esecret_" + t(26, LOW), said),
        ("modal token secret", "as-" + t(22), said),
        ("runpod api key", "rpa_" + t(40, UP), said),
        ("langfuse secret key", "sk-lf-" + uuid(), said),
        ("posthog personal api key", "phx_" + t(43), said),
        ("sanity api token", "sk" + t(80), said),
        ("pagerduty api key", "u+" + t(18, URL), said),
        ("honeycomb api key", "hcaik_" + t(58, LOW), said),
        ("segment write key", t(32), said),
        ("launchdarkly sdk key", "sdk-" + uuid(), said),
        ("launchdarkly api token", "api-" + uuid(), said),
        ("sentry auth token", "sntrys_eyJpYXQiO" + t(80, URL) + "_" + t(43), said),
        ("telnyx api key", "KEY" + hexs(32).upper() + "_" + t(22), said),
        ("plivo auth token", t(40), said),
        ("sparkpost api key", hexs(40), "SPARKPOST_API_KEY={}"),
        ("postmark server token", uuid(), "POSTMARK_SERVER_TOKEN={}"),
        ("mailgun api key, new format", hexs(32) + "-" + hexs(8) + "-" + hexs(8), said),
        ("intercom access token", "dG9rO" + t(55, URL) + "=", said),
        ("zendesk api token", t(40), said),
        ("clickup api token", "pk_" + t(8, "0123456789") + "_" + t(32, UP), said),
        ("trello api token", "ATTA" + hexs(64) + t(8, UP), said),
        ("jira data center pat", t(44), said),
        ("gitea access token", hexs(40), "GITEA_TOKEN={}"),
        ("vercel access token", t(24), said),
        ("vercel blob token", "vercel_blob_rw_" + t(16) + "_" + t(30), said),
        ("netlify personal token, older", t(43, URL), said),
        (
            "supabase service role key",
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJlZiI6I" + t(60, URL) + "." + t(43, URL),
            said,
        ),  # fmt: skip
        ("pinterest access token", "pina_" + t(120, URL), said),
        ("twitter bearer token", "AAAAAAAAAAAAAAAAAAAAA" + t(10) + "%3D" + t(50), said),
        ("linkedin access token", "AQ" + t(150, URL), said),
        ("spotify client secret", hexs(32), "SPOTIFY_CLIENT_SECRET={}"),
        ("tomtom api key", t(32), said),
        ("etherscan api key", t(34, UP), said),
        ("alchemy api key", t(32, URL), said),
        ("infura api secret", t(32), said),
        # identity
        ("auth0 client secret", t(64, URL), said),
        ("stytch secret", "secret-live-" + t(36, URL), said),
        ("workos api key", "sk_" + t(62), said),
        ("ory personal access token", "ory_pat_" + t(32), said),
        ("keycloak client secret", t(32), said),
        ("bitwarden access token", "0." + uuid() + "." + t(30) + ":" + t(22) + "==", said),
        ("infisical service token", "st." + uuid() + "." + hexs(32) + "." + hexs(32), said),
        ("akeyless access key", b64(32), "AKEYLESS_ACCESS_KEY={}"),
        (
            "1password secret key",
            "A3-" + t(6, UP) + "-" + t(6, UP) + "-" + t(5, UP) + "-" + t(5, UP) + "-" + t(5, UP) + "-" + t(5, UP),
            said,
        ),  # fmt: skip
        ("doppler service token with an environment", "dp.st.prd." + t(43), said),
        ("doppler cli token", "dp.ct." + t(43), said),
        ("doppler scim token", "dp.scim." + t(43), said),
        # databases
        ("influxdb token", t(86, URL) + "==", said),
        (
            "elastic cloud api key",
            base64.b64encode((t(20, URL) + ":" + t(22, URL)).encode()).decode(),
            "Authorization: ApiKey {}",
        ),
        ("clickhouse cloud key secret", "4b1d" + t(38), said),
        (
            "turso auth token",
            "eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJhIjoicnciLCJpYXQiO" + t(40, URL) + "." + t(86, URL),
            said,
        ),
        ("neo4j aura password", t(43, URL), said),
        ("mongodb atlas private key", uuid(), "MONGODB_ATLAS_PRIVATE_KEY={}"),
        # crypto
        ("bitcoin wif private key", "K" + t(51, B58), said),
        ("solana private key", t(88, B58), said),
        ("monero spend key", hexs(64), "MONERO_SPEND_KEY={}"),
        # tunnels, VPNs, infrastructure
        ("wireguard private key", b64(32), "PrivateKey = {}"),
        (
            "cloudflare tunnel token",
            base64.b64encode(json.dumps({"a": hexs(32), "t": uuid(), "s": b64(32)}).encode()).decode(),
            "cloudflared tunnel run --token {}",
        ),  # fmt: skip
        ("kubernetes bootstrap token", t(6, LOW) + "." + t(16, LOW), "kubeadm join 10.0.0.1:6443 --token {}"),
        ("consul gossip key", b64(32), 'encrypt = "{}"'),
        ("nomad gossip key", b64(32), said),
        ("tailscale oauth client secret", "tskey-client-k" + t(10) + "CNTRL-" + t(33), said),
        ("zerotier api token", t(32), said),
        ("grafana cloud access policy token", "glc_eyJvIjoi" + t(60, URL) + "In19", said),
        ("hashicorp cloud service principal secret", t(64, URL), "HCP_CLIENT_SECRET={}"),
        ("mattermost personal token", t(26, LOW), "MM_TOKEN={}"),
        ("ansible vault password", t(32), said),
        ("jwt signing secret", b64(48), "JWT_SECRET={}"),
        (
            "django secret key",
            "django-insecure-" + t(50, "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)"),
            "SECRET_KEY = '{}'",
        ),
        ("rails secret key base", hexs(128), "SECRET_KEY_BASE={}"),
        ("symfony app secret", hexs(32), "APP_SECRET={}"),
        ("flask secret key", b64(24), said),
        ("nextauth secret", b64(32), "NEXTAUTH_SECRET={}"),
    ]
    out: list[Shape] = []
    for name, token, line in tokens:
        shape = _tok(name, token, line)
        if name in CONTEXT_ONLY:  # hex, a UUID, a short run of one case: a name or a flag marks it, nothing else can
            shape.token = None
        out.append(shape)
    for shape in out:  # a secret of two parts (Razorpay's id and secret): each part that is secret is a needle
        if " " in (shape.token or ""):
            shape.needles = [part for part in shape.token.split(" ") if len(part) >= 20]  # type: ignore[union-attr]
            shape.token = None
    rng = secret_corpus._RNG
    ec = bytes.fromhex("30770201010420") + rng.randbytes(32) + bytes.fromhex("a00a06082a8648ce3d030107a144034200")
    pem_key = pem("EC PRIVATE KEY", ec + rng.randbytes(65))
    openvpn = "\n".join(hexs(32) for _ in range(16))
    out += [
        Shape(
            "coinbase cdp api key json",
            json.dumps({"name": f"organizations/{uuid()}/apiKeys/{uuid()}", "privateKey": pem_key}, indent=2),
            needles=[],
            key=True,
        ),
        Shape(
            "openvpn static key",
            f"-----BEGIN OpenVPN Static key V1-----\n{openvpn}\n-----END OpenVPN Static key V1-----\n",
            needles=[openvpn.split("\n")[3], openvpn.split("\n")[11]],
            one_line=False,
        ),
    ]
    out[-2].needles = [line[10:40] for line in pem_key.splitlines()[1:-1] if len(line) > 40]
    return out


def evasions() -> list[Shape]:
    """A credential hidden by how it is written: escapes, entities, percent-encoding, continued or wrapped lines,
    base64 of an env file or of base64, JSON's escaped slash, a homoglyph prefix, ANSI colours. Each shape has values
    of its own, so a leak is named by the shape it came from."""
    t = alnum

    def ghp() -> str:
        return "ghp_" + t(36)

    def pw() -> str:
        return "Qz" + t(10) + "9!"

    g = [ghp() for _ in range(14)]
    p = [pw() for _ in range(4)]
    session = "IQoJb3JpZ2luX2VjE" + b64(200)
    env = f"DB_HOST=db.internal\nDB_PASSWORD={p[0]}\nAPI_TOKEN={t(32)}\nLOG_LEVEL=info\n"
    wrapped = "\n".join(textwrap.wrap(base64.b64encode(env.encode()).decode(), 76))
    escaped_slashes = session.replace("/", "\\/")
    twice = base64.b64encode(base64.b64encode(f"GITHUB_TOKEN={g[0]}".encode())).decode()
    bearer, fragment, tail = t(24, URL), t(28), hexs(8).upper()
    return [
        _pair("a \\u escape inside a token", '{"token": "ghp\\u005f' + g[1][4:] + '"}', g[1][4:]),
        _pair(
            "a token escaped twice in json",
            '{"out": "{\\\\"t\\\\": \\\\"ghp\\\\u005f' + g[2][4:] + '\\\\"}"}',
            g[2][4:],
        ),
        _pair("an html numeric entity inside a token", f"<code>ghp&#95;{g[3][4:]}</code>", g[3][4:]),
        _pair("an html named entity inside a token", f"<td>ghp&lowbar;{g[4][4:]}</td>", g[4][4:]),
        _pair(
            "a token in html entities",
            "<p>" + "".join(f"&#{ord(c)};" for c in g[5]) + "</p>",
            "".join(f"&#{ord(c)};" for c in g[5][6:16]),
        ),
        _pair("a password= behind an entity", f"password&#61;{p[1]}", p[1]),
        _pair("a password= url-encoded", "q=password%3D" + p[2].replace("!", "%21"), p[2][:-1]),
        _pair(
            "a shell continuation inside a token",
            f"export GH_TOKEN={g[6][:20]}\\\n{g[6][20:]}\n./deploy.sh",
            g[6][20:],
        ),
        _pair(
            "a continuation inside a bearer header",
            f'curl -H "Authorization: Bearer \\\n  {bearer}" https://x',
            bearer,
        ),
        _pair("a token cut after its =", "ATATT3xFfGF0" + t(180, URL) + "=\n" + tail, tail),
        _pair("base64 of an env file, wrapped", f"$ base64 .env\n{wrapped}\n", wrapped.split("\n")[0]),
        _pair(
            "a session token with json's escaped slashes",
            f'{{"SessionToken": "{escaped_slashes}"}}',
            session[20:60],
        ),
        _pair("ansi colours inside a token", f"\x1b[1m{g[7][:12]}\x1b[0m{g[7][12:]}", g[7][12:]),
        _pair("a token in a markdown code span", f"use `{g[8]}` for CI", g[8]),
        _pair("a token in a csv", f"name,token,expires\nci,{g[9]},2027-01-01\n", g[9]),
        _pair("a token in xml cdata", f"<token><![CDATA[{g[10]}]]></token>", g[10]),
        _pair("a token after a cyrillic homoglyph prefix", f"GH ghр_{g[11][4:]}", g[11][4:]),
        Shape(
            "a bare token split by a space",
            f"token part one {g[12][4:20]} {g[12][20:]} end",
            needles=[g[12][4:20], g[12][20:]],
        ),
        _pair(
            "a generated token in a url fragment",
            f"https://app.example.com/callback#access_token={fragment}",
            fragment,
        ),
        _pair("a token base64-encoded twice", f"value: {twice}", twice),
    ]


def prose() -> list[Shape]:
    """Credentials said in words, in English sentences and in ``key: value`` notes."""
    t = alnum
    pw = [f"Tq{t(9)}{n}#" for n in range(8)]
    hex32 = hexs(32)
    return [
        _pair("prose: the staging db password is", f"fyi the staging db password is {pw[0]} until friday", pw[0]),
        _pair("prose: our analytics api key is <32 hex>", f"our analytics api key is {hex32}.", hex32),
        _pair("prose: webhook secret:", f"webhook secret: {t(32)}", ""),
        _pair("prose: the token for prod is", f"The token for prod is {t(20)}9, rotate it monthly.", ""),
        _pair("prose: admin password for", f"Password for the admin account: {pw[1]}", pw[1]),
        _pair("prose: set the api key to", f"I set the API key to {pw[2]} in the dashboard", pw[2]),
        _pair("prose: the password is:", f"The password is: {pw[3]}", pw[3]),
        _pair("prose: a quoted passphrase with spaces", f'the passphrase is "{pw[4]} blue horse"', pw[4]),
        _pair("prose: access key now", f"ok the access key is now {t(20, UP)}7", ""),
        _pair("prose: credentials arrow", f"prod credentials -> {pw[5]}", pw[5]),
        _pair("prose: a note's line", f"Staging DB password: {pw[6]}", pw[6]),
        _pair("prose: the secret was", f"the signing secret was {t(24)} before the rotation", ""),
        _pair("prose: in a commit message", f"fix: use new token {t(30)} for the mirror", ""),
        _pair("prose: slack-style message", f"@here new vpn passcode = {pw[7]}", pw[7]),
    ]


def names() -> list[Shape]:
    """Tokens that stand as names: a branch, a file, a folder, a tag (the corpus's runs put them in each view)."""
    t = alnum
    return [
        _tok("a token as a branch name", "wip-" + t(32), "On branch {}"),
        _tok("a token as a file name", t(40) + ".txt", "git add {}"),
        _tok("a token as a folder name", "deploy-" + t(28), "cd ~/work/{}/app"),
        _tok("a token as a tag", "v1-" + t(30), "git push origin refs/tags/{}"),
    ]


def issue35() -> list[Shape]:
    """All of this part, with each secret part a needle (a shape whose needles are empty takes its token's tail)."""
    out = providers() + evasions() + prose() + names()
    for shape in out:
        if not shape.needles or shape.needles == [""]:
            shape.needles = [_tail(shape.text)]
    return out


def _tail(text: str) -> str:
    """The generated word of a sentence whose secret was made inline: its longest word with a digit."""
    words = [w.strip(".,;:\"'`") for w in text.split()]
    return max((w for w in words if any(c.isdigit() for c in w)), key=len)
