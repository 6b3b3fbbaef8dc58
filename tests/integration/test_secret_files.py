"""Secret-bearing files in review and verdict diffs: by name, renamed, copied, deleted, or known by content.

Each test drives a real `codex-bridge review` (or verdict) against the scripted Responses server
and reads what was sent.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from autopilot.scripted.responses_server import reply_json
from tests.support.loop import APPROVE, PLAN, commit_all, continue_to
from tests.support.secret_corpus import der_rsa, key_needles, pem, ppk

PLAIN = "zq9-plain-secret-value"  # no credential shape: only withholding the file keeps it out


def sent(server) -> str:
    """The last request body as text."""
    return json.dumps(server.requests[-1])


@pytest.fixture
def based(openai_env, git_repo, bridge):
    """A run planned on top of a commit holding a .env, a key under a harmless name and a script."""
    (git_repo / ".env").write_text(f"WEIRD_SETTING={PLAIN}\nOTHER=1\n")
    (git_repo / "deploy").mkdir()
    (git_repo / "deploy" / "blob.dat").write_text(pem("RSA PRIVATE KEY", der_rsa()))
    (git_repo / "deploy" / "run.sh").write_text(
        "export SERVICE_DSN='https://0123456789abcdef0123456789abcdef:0123456789abcdef0123456789abcdef@h/1'\n"
        + "".join(f"  echo step {n}\n" for n in range(12))
    )
    commit_all(git_repo, "base")
    openai_env.push(reply_json(PLAN))
    code, _, err = bridge("-C", str(git_repo), "plan", "--goal", "Rotate the deploy secrets")
    assert code == 0, err
    return git_repo


def review(bridge, server, repo: Path) -> dict:
    server.push(reply_json(APPROVE))
    code, out, err = bridge("-C", str(repo), "review")
    assert code == 0, err
    return json.loads(out)


def test_a_renamed_env_file_is_still_withheld(based, openai_env, bridge):
    """`.env` renamed `env.txt` and edited: the old side counts, so neither name's contents are sent."""
    subprocess.run(["git", "-C", str(based), "mv", ".env", "env.txt"], check=True)
    (based / "env.txt").write_text(f"WEIRD_SETTING={PLAIN}\nOTHER=2\n")
    (based / "feature.py").write_text("x = 1\n")
    result = review(bridge, openai_env, based)
    assert PLAIN not in sent(openai_env) and "OTHER=2" not in sent(openai_env)
    assert result["diff"]["secret_files"] == [".env", "env.txt"]


def test_a_copy_of_a_committed_env_file_is_withheld(based, openai_env, bridge):
    """A byte-for-byte copy of a secret file under another name is withheld as the original is."""
    (based / "settings.bak").write_text((based / ".env").read_text())
    (based / "feature.py").write_text("x = 1\n")
    result = review(bridge, openai_env, based)
    assert PLAIN not in sent(openai_env) and result["diff"]["secret_files"] == ["settings.bak"]


def test_a_key_file_with_a_harmless_name_changed_in_the_middle_is_withheld(based, openai_env, bridge):
    """A key is known by its content: `deploy/blob.dat` changed in one body line is withheld whole."""
    path = based / "deploy" / "blob.dat"
    text = path.read_text()
    lines = text.splitlines()
    lines[8] = lines[8][::-1]
    path.write_text("\n".join(lines) + "\n")
    result = review(bridge, openai_env, based)
    assert not [n for n in key_needles(text) if n in sent(openai_env)]
    assert result["diff"]["secret_files"] == ["deploy/blob.dat"]


def test_a_deleted_key_file_is_withheld(based, openai_env, bridge):
    """Deleting a key shows its lines as removed; the old side's content makes it a secret file."""
    text = (based / "deploy" / "blob.dat").read_text()
    (based / "deploy" / "blob.dat").unlink()
    (based / "feature.py").write_text("x = 1\n")
    result = review(bridge, openai_env, based)
    assert not [n for n in key_needles(text) if n in sent(openai_env)]
    assert result["diff"]["secret_files"] == ["deploy/blob.dat"]


def test_a_putty_key_under_any_name_is_withheld(based, openai_env, bridge):
    """A new PuTTY key file called notes.txt is a key file by its first line."""
    text = ppk()
    (based / "notes.txt").write_text(text)
    result = review(bridge, openai_env, based)
    assert not [n for n in key_needles(text.split("Private-Lines:")[1]) if n in sent(openai_env)]
    assert result["diff"]["secret_files"] == ["notes.txt"]


def test_a_hunk_header_cut_by_git_is_dropped(based, openai_env, bridge):
    """Git cuts the line above a hunk at 80 bytes, possibly inside a secret: that header context is not sent."""
    script = based / "deploy" / "run.sh"
    script.write_text(script.read_text().replace("echo step 9", "echo step nine"))
    review(bridge, openai_env, based)
    body = sent(openai_env)
    assert "echo step nine" in body and "0123456789abcdef" not in body
    assert "[function line omitted: git cut it at 80 bytes]" in body


def test_a_whole_hunk_header_line_is_redacted(based, openai_env, bridge):
    """A short line above a hunk (`export API_TOKEN=…`) reaches the header whole, and is redacted there."""
    script = based / "deploy" / "run.sh"
    script.write_text("export API_TOKEN=zq9tokenvalue42\n" + script.read_text().split("\n", 1)[1])
    commit_all(based, "token line")
    script.write_text(script.read_text().replace("echo step 9", "echo step nine"))
    review(bridge, openai_env, based)
    body = sent(openai_env)
    assert "zq9tokenvalue42" not in body and "export API_TOKEN=[REDACTED:env_secret]" in body


def test_withheld_file_names_are_redacted(based, openai_env, bridge):
    """A secret file's name can hold a credential: the withheld list is redacted like the rest."""
    token = "ghp_" + "Ab1" * 12
    (based / f".env.{token}").write_text("A=1\n")
    result = review(bridge, openai_env, based)
    assert token not in sent(openai_env) and token not in json.dumps(result)
    assert "contents are withheld: .env.[REDACTED:github_token]" in sent(openai_env)


def test_verdict_withholds_what_review_withholds(based, openai_env, bridge):
    """The verdict's diff evidence is the review's: a renamed .env's contents stay out of it too."""
    subprocess.run(["git", "-C", str(based), "mv", ".env", "env.txt"], check=True)
    (based / "feature.py").write_text("x = 1\n")
    openai_env.push(reply_json(continue_to("T2")))
    code, _, err = bridge("-C", str(based), "verdict", "--last-message", "renamed the env file")
    assert code == 0, err
    assert PLAIN not in sent(openai_env) and "contents are withheld: .env, env.txt" in sent(openai_env)
