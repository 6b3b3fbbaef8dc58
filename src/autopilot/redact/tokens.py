"""Credentials known by their own shape: provider prefixes and fixed formats, whatever they are called.

A token rule needs no name next to it (``ghp_…`` is a GitHub token wherever it stands), so none
is ``local``: each runs over the whole text, skipped when its literal hints are absent.
"""

from __future__ import annotations

from autopilot.patterns import escape, lazy
from autopilot.redact.rules import Rule, alnum_run_after, mixed_case, stand_in, words_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

_DATE_OR_NUMBER = lazy(r"[\d\-:./ TZ]+")
_PERCENT = lazy(r"%[0-9A-Fa-f]{2}")  # a URL's escaped character

# Microsoft's common annotated security key (Azure DevOps PATs since 2024, Azure AI services keys, ...): 52 generated
# base62 characters, the fixed signature `JQQJ9` and a version, a date, 16 characters of platform data, then the
# provider's four-letter signature at 76 (`AZDO` for Azure DevOps) and a checksum; 84 characters, or 88 with `==`.
_ANNOTATED = (
    r"(?<![A-Za-z0-9])[A-Za-z0-9]{{52}}JQQJ9[9DH][A-Za-z0-9][A-L][A-Za-z0-9]{{16}}{provider}[A-Za-z0-9]{{4}}"
    r"(?:[A-Za-z0-9]{{2}}==)?(?![A-Za-z0-9])"
)
_AWS_ID = r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)(?<!\w.{4})[0-9A-Z]{16}"


def _word(opening: str) -> str:
    """Literal text at the start of a word, the boundary checked after it rather than with a leading ``\\b``.

    A pattern that opens with literal text (or a choice of literal texts) lets ``re`` search for
    that text instead of trying the whole pattern at every position: ~50 times less work for
    each rule on text without the token. Every token pattern here opens that way.
    """
    return escape(opening) + rf"(?<!\w.{{{len(opening)}}})"


def _both_cases(value: str, match: re.Match[str]) -> bool:
    """Whether a 40-character value has upper and lower case, as an AWS secret access key does (a word does not)."""
    return any(map(str.isupper, value)) and any(map(str.islower, value))


def _console_password(value: str, match: re.Match[str]) -> bool:
    """Whether the column before a key id holds a password, not a date, a number or a stand-in."""
    return not (stand_in(value) or _DATE_OR_NUMBER.fullmatch(value))


def _letters_and_digits(value: str, match: re.Match[str]) -> bool:
    """Whether a value holds letters and digits, as a generated key does (``key-frames…`` does not)."""
    return any(map(str.isdigit, value)) and any(map(str.isalpha, value))


def _discord_id(value: str, match: re.Match[str]) -> bool:
    """Whether a dotted token opens with a Discord bot token's user id: base64 of a decimal number."""
    import binascii  # here: a process that redacts loads it only when a text needs it

    head = value.split(".", 1)[0].replace("-", "+").replace("_", "/")
    try:
        raw = binascii.a2b_base64(head + "=" * (-len(head) % 4))
    except (binascii.Error, ValueError):
        return False
    return len(raw) >= 17 and raw.isdigit()


def _base32_pat(value: str, match: re.Match[str]) -> bool:
    """Whether 52 lower-case base32 characters read as generated: two digits or more, 16 different characters."""
    return sum(map(str.isdigit, value)) >= 2 and len(set(value)) >= 16


def _ngrok_halves(value: str, match: re.Match[str]) -> bool:
    """Whether both halves of an ngrok authtoken read as generated: the id before ``_`` and the secret after it."""
    start = match.start(1) - 1
    return mixed_case(value) and mixed_case(match.string[start - 21 : start])  # the id's last 21 (the pattern's)


_EXAMPLE_PASSWORDS = frozenset({"pass", "passwd", "pwd", "pw", "pword", "secret", "password", "xxx", "changeme"})


def _url_password(value: str, match: re.Match[str]) -> bool:
    """Whether a URL's password is one, not a documentation example: ``user:pass@``, ``a:b@``, ``…:a%20secret@``."""
    plain = _PERCENT.sub(lambda m: chr(int(m.group(0)[1:], 16)), value)
    return len(plain) >= 3 and plain.lower() not in _EXAMPLE_PASSWORDS and " " not in plain and not stand_in(plain)


_HEX = frozenset("0123456789abcdef")
_LOWER_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def _mailgun_tail(text: str) -> bool:
    """Whether a ``-`` in ``text`` opens 8 hex digits, ``-`` and 8 more (the gate: no pattern is compiled for this)."""
    at = text.find("-")
    while at >= 0:
        if (
            text[at + 9 : at + 10] == "-"
            and set(text[at + 1 : at + 9]) <= _HEX
            and set(text[at + 10 : at + 18]) <= _HEX
        ):
            return len(text) >= at + 18
        at = text.find("-", at + 1)
    return False


def _bootstrap_tail(text: str) -> bool:
    """Whether a ``.`` in ``text`` is followed by 16 lower-case letters and digits (the bootstrap token's gate)."""
    at = text.find(".")
    while at >= 0:
        if len(text) >= at + 17 and set(text[at + 1 : at + 17]) <= _LOWER_ALNUM:
            return True
        at = text.find(".", at + 1)
    return False


_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def _bootstrap_token(value: str, match: re.Match[str]) -> bool:
    """Whether ``abcdef.0123456789abcdef`` is a bootstrap token, not a file or a module: both halves hold a digit and a
    letter, the second two digits or more."""
    head, tail = match.group(1), match.group(2)
    return _letters_and_digits(head, match) and _letters_and_digits(tail, match) and sum(map(str.isdigit, tail)) >= 2


def _mixed_token(value: str, match: re.Match[str]) -> bool:
    """Whether a value reads as generated: both cases and a digit (``s.Abc1…`` is, ``s.getattribute`` is not)."""
    return mixed_case(value)


# Order matters: specific token shapes first, so an Anthropic key is not reported as an OpenAI one.
PRIVATE_KEY = Rule(
    "private_key",
    lazy(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*\Z)"
    ),
    hints=("PRIVATE KEY",),
)
TOKENS: list[Rule] = [
    Rule("anthropic_api_key", lazy(_word("sk-ant-") + r"[a-z]{2,8}\d{2}-[A-Za-z0-9_\-]{20,}"), hints=("sk-ant-",)),
    Rule(
        "openai_api_key",
        lazy(_word("sk-") + r"(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}(?:T3BlbkFJ[A-Za-z0-9_\-]+)?"),
        hints=("sk-",),
    ),
    # A secret access key written next to its key id (positional arguments, `AKIA…:secret`, the
    # console's credentials CSV), and that CSV's console password, before the id is replaced.
    Rule(
        "aws_secret_access_key",
        lazy(
            r"((?:AKIA|ASIA)(?<!\w.{4})[0-9A-Z]{16}(?=[\"' \t,:;|=])[\"']?[ \t]*(?:[,:;|=][ \t]*)?[\"']?)"
            r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        2,
        _both_cases,
        hints=("AKIA", "ASIA"),
    ),
    Rule(
        "aws_console_password",
        lazy(
            r"(?m)^([^,\n]{1,64},)([^,\n]{4,128})"
            r"(?=,(?:" + _AWS_ID + r",|https://[\w.\-]{0,80}signin\.aws\.amazon\.com))"
        ),
        2,
        _console_password,
        hints=("AKIA", "ASIA", "signin.aws"),
    ),
    Rule("aws_access_key_id", lazy(_AWS_ID + r"\b"), hints=("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA")),
    Rule(
        "github_token",
        lazy(r"(?:gh[pousr]_(?<!\w.{4})[A-Za-z0-9]{36,255}|github_pat_(?<!\w.{11})[A-Za-z0-9_]{22,255})\b"),
        hints=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),  # each match opens with one
    ),
    Rule(
        "gitlab_token",
        lazy(_word("gl") + r"(?:pat|ptt|dt|rt|cbt|imt|agent|oas|ft|soat)-[A-Za-z0-9_\-]{20,}"),
        hints=("gl",),
    ),
    Rule("slack_token", lazy(r"(?:xox[abposre]|xapp)-(?<!\w.{5})[A-Za-z0-9\-]{10,}"), hints=("xox", "xapp-")),
    Rule(
        "slack_webhook",
        lazy(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/\-]{20,}"),
        hints=("hooks.slack.com",),
    ),
    Rule(
        "stripe_key",
        lazy(r"(?:sk|rk|pk)_(?:live|test)_(?<!\w.{8})[A-Za-z0-9]{16,}\b"),
        hints=("_live_", "_test_"),
    ),
    Rule("stripe_webhook_secret", lazy(_word("whsec_") + r"[A-Za-z0-9]{24,}\b"), hints=("whsec_",)),
    Rule("google_api_key", lazy(_word("AIza") + r"[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"), hints=("AIza",)),
    Rule("google_oauth_token", lazy(_word("ya29.") + r"[0-9A-Za-z_\-]{20,}"), hints=("ya29.",)),
    Rule("google_client_secret", lazy(_word("GOCSPX-") + r"[0-9A-Za-z_\-]{20,}"), hints=("GOCSPX-",)),
    Rule("npm_token", lazy(_word("npm_") + r"[A-Za-z0-9]{36}\b"), hints=("npm_",)),
    Rule("huggingface_token", lazy(_word("hf_") + r"[A-Za-z0-9]{30,}\b"), hints=("hf_",)),
    Rule("sendgrid_key", lazy(_word("SG.") + r"[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"), hints=("SG.",)),
    Rule("pypi_token", lazy(_word("pypi-AgE") + r"[A-Za-z0-9_\-]{50,}"), hints=("pypi-",)),
    Rule("vault_token", lazy(r"hv[sbr]\.(?<!\w.{4})[A-Za-z0-9_\-]{20,}"), hints=("hvs.", "hvb.", "hvr.")),
    Rule(
        "jwt",
        lazy(_word("eyJ") + r"[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
        hints=("eyJ",),
    ),
    Rule("digitalocean_token", lazy(r"do[opr]_v1_(?<!\w.{7})[a-f0-9]{64}\b"), hints=("_v1_",)),
    Rule("shopify_token", lazy(_word("shp") + r"(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"), hints=("shp",)),
    # A Discord bot token: base64 of the bot's user id, a timestamp, an HMAC (the id is checked).
    Rule(
        "discord_bot_token",
        lazy(r"[MNO](?<![\w\-.][MNO])[A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}(?![\w\-])"),
        check=_discord_id,
        needs=((".",),),
    ),
    # A Telegram bot token: the bot's id (public: kept), a colon, 35 characters (`api.telegram.org/bot<token>/…`).
    Rule(
        "telegram_bot_token",
        lazy(r":(?<=\d{5}:)(?<!\d{17}:)(A[A-Za-z0-9_\-]{34})(?![\w\-])"),
        1,
        hints=(":A",),
    ),
    Rule("twilio_api_key", lazy(_word("SK") + r"[0-9a-fA-F]{32}\b"), hints=("SK",)),
    Rule("mailgun_key", lazy(_word("key-") + r"[0-9a-z]{32}\b"), check=_letters_and_digits, hints=("key-",)),
    Rule("atlassian_token", lazy(_word("ATATT") + r"[A-Za-z0-9_\-=]{60,}"), hints=("ATATT",)),
    Rule("databricks_token", lazy(_word("dapi") + r"[0-9a-f]{32}(?:-\d)?\b"), hints=("dapi",)),
    Rule("age_secret_key", lazy(_word("AGE-SECRET-KEY-1") + r"[0-9A-Z]{58}\b"), hints=("AGE-SECRET-KEY-1",)),
    Rule("linear_api_key", lazy(_word("lin_") + r"(?:api|oauth)_[A-Za-z0-9]{32,64}\b"), hints=("lin_",)),
    Rule("postman_api_key", lazy(_word("PMAK-") + r"[A-Za-z0-9]{24}-[A-Za-z0-9]{34}\b"), hints=("PMAK-",)),
    # Providers an audit found missing (issue 21), each by its documented prefix and length.
    Rule("groq_api_key", lazy(_word("gsk_") + r"[A-Za-z0-9]{48,}\b"), hints=("gsk_",)),
    Rule("xai_api_key", lazy(_word("xai-") + r"[A-Za-z0-9]{70,}\b"), hints=("xai-",)),
    Rule("perplexity_api_key", lazy(_word("pplx-") + r"[A-Za-z0-9]{40,}\b"), hints=("pplx-",)),
    Rule("replicate_token", lazy(_word("r8_") + r"[A-Za-z0-9]{37,}\b"), hints=("r8_",)),
    Rule(
        "tailscale_key",
        lazy(_word("tskey-") + r"(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}"),
        hints=("tskey-",),
    ),
    Rule(
        "doppler_token",
        lazy(_word("dp.") + r"(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}\b"),
        hints=("dp.",),
    ),
    Rule(
        "grafana_token",
        lazy(r"(?:glsa_(?<!\w.{5})[A-Za-z0-9]{32}_[0-9a-fA-F]{8}|glc_(?<!\w.{4})[A-Za-z0-9+/]{32,}={0,2})\b"),
        hints=("glsa_", "glc_"),
    ),
    Rule("new_relic_key", lazy(r"NR(?:AK|II|JS|AA|RA)-(?<!\w.{5})[A-Z0-9]{27}\b"), hints=("NR",)),
    Rule("pulumi_token", lazy(_word("pul-") + r"[a-f0-9]{40}\b"), hints=("pul-",)),
    Rule(
        "supabase_token",
        lazy(r"(?:sbp_(?<!\w.{4})|sb_secret_(?<!\w.{10}))[A-Za-z0-9_]{32,}\b"),
        hints=("sbp_", "sb_secret_"),
    ),
    Rule("notion_token", lazy(_word("ntn_") + r"[A-Za-z0-9]{43,}\b"), hints=("ntn_",)),
    Rule("notion_token", lazy(_word("secret_") + r"[A-Za-z0-9]{43}\b"), hints=("secret_",)),
    Rule("figma_token", lazy(_word("figd_") + r"[A-Za-z0-9_\-]{38,}"), hints=("figd_",)),
    Rule(
        "planetscale_token",
        lazy(_word("pscale_") + r"(?:tkn|pw|oauth)_[A-Za-z0-9_\-.]{32,}"),
        hints=("pscale_",),
    ),
    Rule("rubygems_key", lazy(_word("rubygems_") + r"[a-f0-9]{48}\b"), hints=("rubygems_",)),
    Rule("netlify_token", lazy(_word("nfp_") + r"[A-Za-z0-9]{36,}\b"), hints=("nfp_",)),
    Rule("fly_token", lazy(r"(?:fm[12][ar]?_|fo1_)(?<!\w.{4})[A-Za-z0-9_\-+/=]{40,}"), hints=("fm1", "fm2", "fo1_")),
    Rule("bitbucket_token", lazy(r"(?:ATBB|ATCTT)(?<!\w.{4})[A-Za-z0-9_\-=]{28,}"), hints=("ATBB", "ATCTT")),
    Rule("sentry_token", lazy(r"sntry[us]_(?<!\w.{7})[A-Za-z0-9_\-+/=]{40,}"), hints=("sntry",)),
    Rule("onepassword_token", lazy(_word("ops_eyJ") + r"[A-Za-z0-9_\-+/=]{50,}"), hints=("ops_eyJ",)),
    Rule(
        "cloudflare_origin_ca_key",
        lazy(_word("v1.0-") + r"[a-f0-9]{24}-[a-f0-9]{146}\b"),
        hints=("v1.0-",),
    ),
    Rule(
        "azure_client_secret",
        lazy(r"(?<![\w~.\-])[A-Za-z0-9_.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![\w~\-])"),
        hints=("Q~",),
        spans=words_of(37),
    ),
    Rule("vault_token", lazy(r"s\.(?<![\w.\-]s\.)([A-Za-z0-9]{24})\b"), check=_mixed_token, hints=("s.",)),
    Rule("google_refresh_token", lazy(r"(?<![\w/])1//0[A-Za-z0-9_\-]{40,}"), hints=("1//0",), spans=words_of(44)),
    # Bare tokens a red-team pass found leaking (no prefix: each found by what is fixed in its format).
    Rule("azure_devops_pat", lazy(_ANNOTATED.format(provider="AZDO")), hints=("JQQJ9",)),
    Rule("azure_annotated_key", lazy(_ANNOTATED.format(provider="[A-Za-z][A-Za-z0-9]{3}")), hints=("JQQJ9",)),
    # An Azure DevOps PAT before 2024: exactly 52 characters of lower-case base32 (a-z, 2-7) standing alone. Opens with
    # its class and rejects a position inside a word at once, so a text costs one pass.
    Rule(
        "azure_devops_pat",
        lazy(r"[a-z2-7](?<![A-Za-z0-9][a-z2-7])[a-z2-7]{51}(?![A-Za-z0-9])"),
        check=_base32_pat,
        spans=words_of(52),
    ),
    # An ngrok authtoken (and API key): the credential's id (27 base62 characters, a KSUID; 21 in older tokens), `_`,
    # then the secret: a digit and 20 base62 characters. Found from the `_`; the secret is withheld, the id (what
    # ngrok's dashboard lists the credential by, `cr_<id>`) kept, so the reader knows which one to revoke.
    Rule(
        "ngrok_authtoken",
        lazy(r"_(?:(?<=(?<![\w\-])[A-Za-z0-9]{21}_)|(?<=(?<![\w\-])[A-Za-z0-9]{27}_))([0-9][A-Za-z0-9]{20})(?![\w\-])"),
        1,
        _ngrok_halves,
        hints=("_",),
        gate=lambda text: alnum_run_after(text, "_", 21, digit_first=True),
    ),
    # Providers a red-team pass found missing (each by its documented prefix and length; what nobody listed is the
    # prefixed-token rule's in generic.py).
    Rule("heroku_api_key", lazy(_word("HRKU-") + r"[A-Za-z0-9_\-]{40,}"), hints=("HRKU-",)),
    Rule("brevo_api_key", lazy(r"x(?:keysib|smtpsib)-(?<!\w.{8})[a-f0-9]{64}-[A-Za-z0-9]{16}\b"), hints=("sib-",)),
    Rule("mailchimp_api_key", lazy(r"[0-9a-f]{32}-us\d{1,2}\b(?<![\w\-][0-9a-f]{32}-us\d)"), hints=("-us",)),
    Rule("square_token", lazy(_word("sq0") + r"(?:atp|csp|idp)-[A-Za-z0-9_\-]{22,}"), hints=("sq0",)),
    # Issue 35: formats from providers' documentation whose body is hex, one case, short, or a UUID, so only the
    # documented prefix or structure tells them from a digest or an id (generated-looking ones are bare.py's).
    Rule("sonarqube_token", lazy(r"sq[upa]_(?<!\w.{4})[a-f0-9]{40}\b"), hints=("squ_", "sqp_", "sqa_")),
    Rule("nuget_api_key", lazy(_word("oy2") + r"[a-z0-9]{43}\b"), hints=("oy2",)),
    Rule("backblaze_application_key", lazy(_word("K00") + r"[0-9][A-Za-z0-9+/]{27}(?![A-Za-z0-9+/=])"), hints=("K00",)),
    Rule("scaleway_access_key", lazy(_word("SCW") + r"[A-Z0-9]{17}\b"), check=_letters_and_digits, hints=("SCW",)),
    Rule("akamai_client_token", lazy(_word("akab-") + r"[a-z0-9]{16}-[a-z0-9]{16}\b"), hints=("akab-",)),
    Rule(
        "plaid_access_token",
        lazy(r"(?:access|public)-(?<!\w.{7})(?:sandbox|development|production)-" + _UUID + r"\b"),
        hints=("-sandbox-", "-development-", "-production-"),
    ),
    Rule("checkout_secret_key", lazy(r"(?:sk|pk)_sbox_(?<!\w.{8})[a-z0-9]{26}\b"), hints=("_sbox_",)),
    Rule("razorpay_key", lazy(_word("rzp_") + r"(?:live|test)_[A-Za-z0-9]{14}\b"), hints=("rzp_",)),
    Rule(
        "paddle_api_key",
        lazy(_word("pdl_") + r"(?:live|sdbx)_apikey_[a-z0-9]{26}_[A-Za-z0-9]{22}_[A-Za-z0-9]{3}\b"),
        hints=("pdl_",),
    ),
    Rule("elevenlabs_api_key", lazy(_word("sk_") + r"[a-f0-9]{48}\b"), hints=("sk_",)),
    Rule("anyscale_api_key", lazy(_word("esecret_") + r"[a-z0-9]{26}\b"), hints=("esecret_",)),
    Rule(
        "pagerduty_user_token", lazy(r"u\+(?<![\w+]u\+)[A-Za-z0-9_\-]{18}(?![\w\-])"), check=_mixed_token, hints=("u+",)
    ),
    Rule("launchdarkly_key", lazy(r"(?:sdk|api|mob)-(?<!\w.{4})" + _UUID + r"\b"), hints=("sdk-", "api-", "mob-")),
    # Mailgun's newer keys: 32, 8 and 8 hex digits (searched only in a text holding an 8-and-8 tail: a scan that opens
    # with a literal, not a class tried at every position).
    Rule(
        "mailgun_key",
        lazy(r"(?<![\w\-])[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\b"),
        hints=("-",),
        gate=_mailgun_tail,
    ),
    # X's (Twitter's) app-only bearer token: twenty A's or more, then the token (percent-encoded in places).
    Rule(
        "twitter_bearer_token",
        lazy(r"A{20}(?<![\w+]A{20})[A-Za-z0-9%]{30,}"),
        check=_mixed_token,
        hints=("A" * 20,),
    ),
    Rule("infisical_token", lazy(_word("st.") + _UUID + r"\.[a-f0-9]{32}\.[a-f0-9]{32}\b"), hints=("st.",)),
    Rule(
        "onepassword_secret_key",
        lazy(_word("A3-") + r"[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})(?:-[A-Z0-9]{5}){3}\b"),
        hints=("A3-",),
    ),
    Rule("django_secret_key", lazy(_word("django-insecure-") + r"[^\s'\"`]{40,}"), hints=("django-insecure-",)),
    Rule(
        "openvpn_static_key",
        lazy(r"-----BEGIN OpenVPN Static key V1-----[\s\S]*?(?:-----END OpenVPN Static key V1-----|\Z)"),
        hints=("OpenVPN Static key",),
    ),
    # Kubernetes' bootstrap token: six and sixteen lower-case letters and digits, a digit and a letter in each half.
    Rule(
        "kubernetes_bootstrap_token",
        lazy(r"(?<![\w.\-])([a-z0-9]{6})\.([a-z0-9]{16})(?![\w\-])(?!\.(?![A-Za-z]{1,5}\b)[\w.])"),
        check=_bootstrap_token,
        hints=(".",),
        gate=_bootstrap_tail,
    ),
    Rule(
        "braintree_access_token",
        lazy(_word("access_token$") + r"(?:production|sandbox|development)\$[a-z0-9]{16}\$[a-f0-9]{32}"),
        hints=("access_token$",),
    ),
    Rule("facebook_square_token", lazy(_word("EAA") + r"[A-Za-z0-9_\-]{56,}"), check=_mixed_token, hints=("EAA",)),
    Rule("dropbox_token", lazy(_word("sl.") + r"(?:u\.)?[A-Za-z0-9_\-]{100,}"), hints=("sl.",)),
    Rule("asana_token", lazy(r"[12]/(?<![\w/][12]/)\d{10,20}(?:/\d{10,20})?:[0-9a-f]{32}\b"), hints=("1/", "2/")),
    Rule("airtable_token", lazy(_word("pat") + r"[A-Za-z0-9]{14}\.[a-f0-9]{64}\b"), hints=("pat",)),
    Rule("clojars_token", lazy(_word("CLOJARS_") + r"[a-z0-9]{60}\b"), hints=("CLOJARS_",)),
    Rule("contentful_token", lazy(_word("CFPAT-") + r"[A-Za-z0-9_\-]{43}"), hints=("CFPAT-",)),
    Rule("dynatrace_token", lazy(_word("dt0c01.") + r"[A-Z0-9]{24}\.[A-Z0-9]{64}\b"), hints=("dt0c01.",)),
    Rule("easypost_key", lazy(r"EZ[AT]K(?<!\w.{4})[A-Za-z0-9]{54}\b"), hints=("EZAK", "EZTK")),
    Rule("frameio_token", lazy(_word("fio-u-") + r"[A-Za-z0-9_\-=]{64}"), hints=("fio-u-",)),
    Rule("adafruit_key", lazy(_word("aio_") + r"[A-Za-z0-9]{28}\b"), hints=("aio_",)),
    Rule("alibaba_access_key_id", lazy(_word("LTAI") + r"[A-Za-z0-9]{12,20}\b"), hints=("LTAI",)),
    Rule("prefect_token", lazy(_word("pnu_") + r"[A-Za-z0-9]{36}\b"), hints=("pnu_",)),
    Rule("readme_key", lazy(_word("rdme_") + r"[a-z0-9]{70}\b"), hints=("rdme_",)),
    Rule("shippo_token", lazy(_word("shippo_") + r"(?:live|test)_[a-f0-9]{40}\b"), hints=("shippo_",)),
    Rule("typeform_token", lazy(_word("tfp_") + r"[A-Za-z0-9_\-]{40,}"), hints=("tfp_",)),
    Rule("duffel_token", lazy(_word("duffel_") + r"(?:live|test)_[A-Za-z0-9_\-=]{43}"), hints=("duffel_",)),
    Rule("flutterwave_key", lazy(r"FLW(?:SECK|PUBK)(?<!\w.{7})(?:_TEST)?-[a-fA-F0-9]{32}-X"), hints=("FLW",)),
    Rule("yandex_key", lazy(_word("AQVN") + r"[A-Za-z0-9_\-]{35,38}"), hints=("AQVN",)),
    Rule("mapbox_secret_token", lazy(_word("sk.eyJ") + r"[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{20,}"), hints=("sk.eyJ",)),
    Rule("openshift_token", lazy(_word("sha256~") + r"[A-Za-z0-9_\-]{43}"), hints=("sha256~",)),
    Rule("octopus_api_key", lazy(_word("API-") + r"[A-Z0-9]{26}\b"), check=_letters_and_digits, hints=("API-",)),
    Rule("terraform_cloud_token", lazy(r"\.atlasv1\.[A-Za-z0-9_\-=]{60,70}"), hints=(".atlasv1.",)),
    Rule("langsmith_key", lazy(_word("lsv2_") + r"(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b"), hints=("lsv2_",)),
    Rule("pinecone_key", lazy(_word("pcsk_") + r"[A-Za-z0-9]{4,8}_[A-Za-z0-9]{40,}\b"), hints=("pcsk_",)),
    Rule("buildkite_token", lazy(_word("bkua_") + r"[a-f0-9]{40}\b"), hints=("bkua_",)),
    Rule("render_key", lazy(_word("rnd_") + r"[A-Za-z0-9]{32}\b"), hints=("rnd_",)),
    Rule("neon_key", lazy(_word("napi_") + r"[A-Za-z0-9]{64}\b"), hints=("napi_",)),
    Rule("resend_key", lazy(_word("re_") + r"[A-Za-z0-9]{8}_[A-Za-z0-9]{24,}\b"), hints=("re_",)),
    Rule("sourcegraph_token", lazy(_word("sgp_") + r"(?:[a-f0-9]{16}_|local_)?[a-f0-9]{40}\b"), hints=("sgp_",)),
    Rule("jfrog_key", lazy(r"(?:AKCp|cmVmdGtu)(?<!\w.{4})[A-Za-z0-9]{56,69}\b"), hints=("AKCp", "cmVmdGtu")),
    Rule("salesforce_token", lazy(_word("00D") + r"[A-Za-z0-9]{12,15}![A-Za-z0-9._]{80,}"), hints=("00D",)),
    Rule("klaviyo_key", lazy(_word("pk_") + r"[a-f0-9]{34}\b"), hints=("pk_",)),
    Rule("huggingface_token", lazy(_word("api_org_") + r"[A-Za-z0-9]{34}\b"), hints=("api_org_",)),
    Rule("scalingo_token", lazy(_word("tk-us-") + r"[A-Za-z0-9_\-]{48}"), hints=("tk-us-",)),
    Rule("infracost_key", lazy(_word("ico-") + r"[A-Za-z0-9]{32}\b"), hints=("ico-",)),
    Rule("intra42_secret", lazy(_word("s-s4t2") + r"(?:ud|af)-[a-f0-9]{64}\b"), hints=("s-s4t2",)),
    Rule(
        "harness_token",
        lazy(_word("pat.") + r"[A-Za-z0-9_\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}\b"),
        hints=("pat.",),
    ),
    Rule("circleci_token", lazy(_word("CCIPAT_") + r"[A-Za-z0-9]{22}_[a-f0-9]{40}\b"), hints=("CCIPAT_",)),
    Rule(
        "gocardless_token",
        lazy(_word("live_") + r"[A-Za-z0-9_\-=]{40}(?![\w\-=])"),
        check=_mixed_token,
        hints=("live_",),
    ),
    Rule("twitch_token", lazy(_word("oauth:") + r"[a-z0-9]{30}\b"), check=_letters_and_digits, hints=("oauth:",)),
    Rule("deno_token", lazy(r"dd[pw]_(?<!\w.{4})[A-Za-z0-9]{36}\b"), hints=("ddp_", "ddw_")),
    Rule("linear_webhook_secret", lazy(_word("lin_wh_") + r"[A-Za-z0-9]{32,64}\b"), hints=("lin_wh_",)),
    Rule(
        "discord_webhook",
        lazy(
            r"(https://(?:(?:ptb|canary)\.)?discord(?:app)?\.com/api/(?:v\d+/)?webhooks/\d{5,30}/)([A-Za-z0-9_\-]{20,})"
        ),
        2,
        hints=("/webhooks/",),
    ),
    Rule(
        "teams_webhook",
        lazy(r"(\.webhook\.office\.com/webhookb2/[^\s/]{8,200}/IncomingWebhook/)([A-Za-z0-9]{20,}/[0-9a-fA-F\-]{36})"),
        2,
        hints=("webhook.office.com",),
    ),
    # A Sentry DSN's key is the URL's user part (32 hex digits; the old form adds `:secret`).
    Rule(
        "sentry_dsn",
        lazy(r"(?i)(\bhttps?://)([0-9a-f]{32}(?::[0-9a-f]{32})?)(@)"),
        2,
        hints=("://",),
        spans=words_of(40),
    ),
    # The user may be empty: `redis://:password@host`.
    Rule(
        "url_password",
        # the password runs to the authority's last `@`: a password may hold one (`p@ss`)
        lazy(r"(://(?<=[A-Za-z0-9+.\-]://)[^\s/:@\[\]]{0,64}:)([^\s/]{1,128})(@)(?=[^\s/@]*(?:[/?#\s\"'`]|$))"),
        2,
        check=_url_password,
        hints=("://",),
    ),
]
