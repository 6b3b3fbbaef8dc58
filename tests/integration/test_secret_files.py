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


@pytest.fixture
def ignored_env(openai_env, git_repo, bridge):
    """A run planned where `.env` is gitignored: git holds no blob of it, so no copy matches one."""
    (git_repo / ".gitignore").write_text(".env\n")
    (git_repo / "deploy.sh").write_text('#!/bin/sh\nset -e\nAPP=web\n./build.sh "$APP"\n./push.sh\n')
    commit_all(git_repo, "base")
    (git_repo / ".env").write_text(f"WEIRD_SETTING={PLAIN}\nOTHER=1\n")
    openai_env.push(reply_json(PLAN))
    code, _, err = bridge("-C", str(git_repo), "plan", "--goal", "Move the settings")
    assert code == 0, err
    return git_repo


def test_a_copy_of_an_ignored_env_file_is_withheld(ignored_env, openai_env, bridge):
    """`cp .env settings.txt` with .env gitignored: the copy matches the file in the work tree, and is withheld."""
    (ignored_env / "settings.txt").write_text((ignored_env / ".env").read_text())
    (ignored_env / "feature.py").write_text("x = 1\n")
    result = review(bridge, openai_env, ignored_env)
    assert PLAIN not in sent(openai_env) and result["diff"]["secret_files"] == ["settings.txt"]
    assert "their contents are withheld: settings.txt" in sent(openai_env)


def test_a_copy_of_a_secret_file_inside_an_ignored_folder_is_withheld(openai_env, git_repo, bridge):
    """git lists an ignored folder whole (`secrets/`), not its `.pgpass`: the copy is still matched and withheld."""
    pgpass = "db.internal:5432:app:admin:S3cretInDirxyz\n"  # no shape the redactor knows: only withholding helps
    (git_repo / ".gitignore").write_text("secrets/\nnode_modules/\n")
    commit_all(git_repo, "base")
    (git_repo / "secrets").mkdir()
    (git_repo / "secrets" / ".pgpass").write_text(pgpass)
    (git_repo / "node_modules" / "pkg").mkdir(parents=True)
    (git_repo / "node_modules" / "pkg" / ".pgpass").write_text("dependency:1:x:y:not-ours\n")  # never walked
    openai_env.push(reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Move the settings")[0] == 0
    (git_repo / "copy2.txt").write_text(pgpass)
    (git_repo / "feature.py").write_text("x = 1\n")
    result = review(bridge, openai_env, git_repo)
    assert "S3cretInDirxyz" not in sent(openai_env) and result["diff"]["secret_files"] == ["copy2.txt"]


def test_an_ignored_env_file_moved_and_edited_is_known_by_its_content(ignored_env, openai_env, bridge):
    """`mv .env config/app.settings` and edit it: no file to match, but its `NAME=value` lines read as an env file."""
    (ignored_env / "config").mkdir()
    (ignored_env / ".env").rename(ignored_env / "config" / "app.settings")
    with open(ignored_env / "config" / "app.settings", "a") as fh:
        fh.write("# added later\nEXTRA=2\n")
    (ignored_env / "feature.py").write_text("x = 1\n")
    result = review(bridge, openai_env, ignored_env)
    assert PLAIN not in sent(openai_env) and result["diff"]["secret_files"] == ["config/app.settings"]


def test_env_lines_pasted_into_a_tracked_file_withhold_it(ignored_env, openai_env, bridge):
    """A tracked file overwritten with env lines holding a secret is withheld; a script with assignments is not."""
    (ignored_env / "deploy.sh").write_text('#!/bin/sh\nset -e\nAPP=api\n./build.sh "$APP"\n./push.sh\n')
    (ignored_env / "README.md").write_text("# demo\nDB_HOST=db\nDB_PASSWORD=zq9tokenvalue42\n")
    result = review(bridge, openai_env, ignored_env)
    body = sent(openai_env)
    assert "zq9tokenvalue42" not in body and result["diff"]["secret_files"] == ["README.md"]
    assert "APP=api" in body  # the script is reviewed as usual


def test_env_like_files_without_secrets_and_templates_are_reviewed(ignored_env, openai_env, bridge):
    """Settings with no secret value, and a template under a template's name, stay in the diff."""
    (ignored_env / "app.conf").write_text("HOST=db1.internal\nPORT=5432\nDEBUG=true\nREGION=eu-central-1\n")
    (ignored_env / "config.env.example").write_text("API_TOKEN=Xq7kDnNfribxUdl12\nDB_PASSWORD=s3cr3tvalue\n")
    (ignored_env / ".env.example").write_text("API_TOKEN=your-api-token\nDB_PASSWORD=changeme\n")
    result = review(bridge, openai_env, ignored_env)
    body = sent(openai_env)
    assert result["diff"]["secret_files"] == [] and "HOST=db1.internal" in body
    assert "b/config.env.example" in body and "b/.env.example" in body
