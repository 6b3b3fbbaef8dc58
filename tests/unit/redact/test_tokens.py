"""A second red-team pass over redaction: tokens with no prefix to find them by (Azure DevOps PATs in both formats and
Microsoft's other annotated keys, ngrok authtokens) and unknown vendors' tokens whose body is 16-31 characters are
withheld; names, ids, hashes and transcript ids of the same lengths are kept."""

from __future__ import annotations

import random
import time

import pytest

from autopilot.redact import redact
from tests.support.measured import untraced
from tests.support.secret_corpus import alnum, annotated_key, bare_and_short, placed_in

SHAPES = bare_and_short()
BASE32 = "abcdefghijklmnopqrstuvwxyz234567"
BASE62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_each_shape_is_withheld_alone_in_a_file_and_bare(shape):
    """The shape as written, placed in a file, and the token by itself keep none of its secret parts."""
    for text in (shape.text, placed_in(shape), shape.token):
        out, counts = redact(text)
        assert sum(counts.values()) >= 1 and not [n for n in shape.needles if n in out], out


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_each_token_is_withheld_in_a_query_a_json_value_and_a_log_line(shape):
    """None of these needs a credential's name next to it: in a URL's query, a JSON value or a log line it goes too."""
    for text in (
        f"GET https://api.example.com/v1?key={shape.token}&page=2",
        f'{{"value": "{shape.token}"}}',
        f"2026-12-02T03:00:00Z INFO created {shape.token}",
    ):
        out = redact(text)[0]
        assert not [n for n in shape.needles if n in out], out


def test_an_azure_devops_pat_is_told_from_microsofts_other_annotated_keys():
    """The provider's signature at 76 names the kind: `AZDO` is Azure DevOps, another is an Azure annotated key."""
    assert redact(annotated_key("AZDO"))[0] == "[REDACTED:azure_devops_pat]"
    assert redact(annotated_key("ACOG"))[0] == "[REDACTED:azure_annotated_key]"


def test_the_long_form_of_an_annotated_key_goes_whole():
    """The 88-character form (two more characters and `==`) leaves nothing of itself behind."""
    key = annotated_key("AZDO") + alnum(2) + "=="
    assert redact(f"pat: {key}")[0] == "pat: [REDACTED:azure_devops_pat]"


def test_a_52_character_base32_pat_is_withheld_in_a_clone_url_and_basic_auth():
    """The older PAT goes where it is used: a clone URL's user part, `curl -u :PAT`, a header's value."""
    pat = alnum(50, BASE32) + "27"
    for text in (
        f"git clone https://{pat}@dev.azure.com/acme/app/_git/app",
        f"curl -u :{pat} https://dev.azure.com/acme/_apis/projects",
        f"AZURE_DEVOPS_EXT_PAT={pat}",
    ):
        assert pat not in redact(text)[0], text


@pytest.mark.parametrize(
    "text",
    [
        "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz",  # 52 letters, no digit: a word-like run, not a PAT
        "a2" * 25 + "b",  # 51 characters
        "a2" * 26 + "b",  # 53 characters
        "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",  # an IPFS CID (59)
        "Zz" + "a2" * 26,  # a longer run with upper case in it
    ],
)
def test_lower_case_base32_runs_of_other_lengths_or_without_digits_are_kept(text):
    """Only exactly 52 characters of a-z and 2-7 standing alone, two of them digits, read as the older PAT."""
    assert redact(text)[0] == text


def test_an_ngrok_secret_is_withheld_and_its_credential_id_kept():
    """The part after `_` is the secret; the id before it (`cr_<id>` in ngrok's dashboard) names what to revoke."""
    head, tail = "2" + alnum(26), "4" + alnum(20)
    assert redact(f"ngrok config add-authtoken {head}_{tail}")[0] == (
        f"ngrok config add-authtoken {head}_[REDACTED:ngrok_authtoken]"
    )


@pytest.mark.parametrize(
    "text",
    [
        "abcdefghijklmnopqrstuvwxyzA_1bcdefghijklmnopqrst",  # no digit in the id
        "test_something_really_long_name_1abcdefghijklmnopqrst",  # snake_case: the id is not 21 or 27 characters
        "2" + "a" * 26 + "_4" + "B" * 20,  # neither half reads as generated
    ],
)
def test_names_shaped_like_an_ngrok_token_are_kept(text):
    """An id and a secret must both read as generated, and the id be exactly 21 or 27 characters standing alone."""
    assert redact(text)[0] == text


def test_unknown_prefixed_tokens_with_short_bodies_are_withheld():
    """Of 2,000 random base62 bodies of 16-31 characters behind an unknown prefix, 97% or more are withheld."""
    rng = random.Random(21)
    prefixes = ["zq_", "acme-", "corp_live_", "tk-test-", "vx_"]
    withheld = 0
    for n in range(2000):
        body = "".join(rng.choice(BASE62) for _ in range(16 + n % 16))
        withheld += body not in redact(f"use {prefixes[n % 5]}{body} now")[0]
    assert withheld >= 1940, withheld


def test_a_body_shorter_than_16_is_not_judged():
    """Below 16 characters, names and generated bodies cannot be told apart: the bound the measurement chose."""
    body = "Xk3pQ9zLm2Rt7Wb"
    assert redact(f"use acme_{body} now")[0] == f"use acme_{body} now"
    assert redact(f"use acme_{body}Y now")[0] == "use acme_[REDACTED:prefixed_token] now"


@pytest.mark.parametrize(
    "text",
    [
        "CPyList_GetItemInt64Borrow",  # names made of words, acronyms and numbers (mypyc, pygments, typeshed)
        "MCC_GetSlowCompTauX20Enable",
        "PyUnicode_AsLatin1String",
        "SQL_FieldNameToNum",
        "dbc_AfterDBGetProp",
        "TF2_IsPlayerInDuel",
        "CPy_InitAttrRefIfNull",
        "ZSTD_c_ldmHashRateLog",
        "toolu_01A09q90qw90lq917835",  # transcript and API ids
        "msg_01XFDUDYJgAACzvnptvVoYE",
        "req_011CX7aBcDeFgHiJkLmN",
        "call_Xk3pQ9zLm2Rt7WbYqA",
        "file-6QkaLDmpCamPX4aV4mCqEM",
        "ftjob-Xk3pQ9zLm2Rt7WbYqAbC",
        "asst_Xk3pQ9zLm2Rt7WbYqAbC",
        "msgbatch_01HkcTjaV5uDC8jWR4ZsDV8d",
        "cus_NffrFeUfNV2HibXyZ12",  # Stripe's object ids
        "pm_1MqLiJLkdIwHu7ixUEgbFdYF",
        "PR_kwDOA5dJV85Yc5QlAb",  # GitHub's node ids
        "agent-a2c664ce26ff442dc",  # a Claude Code subagent
        "run-3f2b9c1e-8d4a-4b6f-9e2d-1a7c5b3e9f0d",  # a uuid
        "sha256-Zk9vYmFyYmF6cXV4MTIz",  # a digest
        "main-5d41402abc4b2a76b9719d911017c592.js",  # a hashed file name
    ],
)
def test_names_ids_and_digests_with_short_bodies_are_kept(text):
    """Reviews stay readable: names, transcript and API ids, uuids and digests are not tokens."""
    assert redact(f"see {text} here")[0] == f"see {text} here"


@untraced
@pytest.mark.parametrize(
    "text",
    [
        "a2" * 100_000,
        "Ab1_" * 50_000,
        ("A" * 21 + "_") * 10_000,
        ("x" * 27 + "_1" + "y" * 20 + " ") * 5_000,
        "JQQJ99" * 30_000,
        "ab_" + "Xk3pQ9zL" * 20_000,
    ],
)
def test_each_new_pattern_is_linear(text):
    """Long hostile inputs to the base32, ngrok, annotated-key and short-body rules are redacted quickly."""
    start = time.process_time()
    redact(text)
    assert time.process_time() - start < 2.0
