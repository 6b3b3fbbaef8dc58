"""A secret-bearing file's diff in an agent's tool output is withheld whole, hunk headers included.

A diff sent for review withholds a `.env` file; the same diff printed by `git diff` in a Claude
session's Bash call reached `handoff intake` and `raw read` through its hunk header, which git fills
with the nearest line above the hunk (`@@ -5,4 +5,4 @@ NAME=value`), a line of the env file.
"""

from __future__ import annotations

from tests.support.claude_rows import Transcript, tool_use
from tests.support.handoff_env import claude_session

VALUE = "Zx81kfjwe9QmPlain"  # no secret word in its name: only the file it comes from makes it secret
DIFF = f"""diff --git a/.env b/.env
index 1111111..2222222 100644
--- a/.env
+++ b/.env
@@ -5,4 +5,4 @@ DEPLOY_HINT={VALUE}
 A=1
-B=2
+B=3
diff --git a/src/app.py b/src/app.py
index 3333333..4444444 100644
--- a/src/app.py
+++ b/src/app.py
@@ -1,2 +1,2 @@ def main():
-    return 1
+    return 2
"""


def session_with_a_diff(repo):
    t = Transcript()
    t.user("what changed?")
    t.assistant(tool_use("Bash", {"command": "git diff"}, "toolu_d1"))
    t.result("toolu_d1", DIFF)
    return claude_session(t, repo)


def test_intake_withholds_the_env_files_diff_and_keeps_the_others(git_repo, bridge):
    """`handoff intake` shows src/app.py's diff and not a byte of the .env section's hunk header."""
    path = session_with_a_diff(git_repo)
    code, out, err = bridge("handoff", "intake", str(path), "--full", cwd=git_repo)
    assert code == 0, err
    assert VALUE not in out and "[REDACTED:secret_file_diff]" in out and "return 2" in out


def test_raw_read_withholds_the_env_files_diff(git_repo, bridge):
    """`handoff raw read` of the same rows withholds it too."""
    path = session_with_a_diff(git_repo)
    code, out, err = bridge("handoff", "raw", "read", str(path), "--line", "1", "--count", "10", cwd=git_repo)
    assert code == 0, err
    assert VALUE not in out and "secret_file_diff" in out
