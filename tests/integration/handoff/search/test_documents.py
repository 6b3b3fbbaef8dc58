"""The causal links search shows: a tool error is fixed only by an applied edit of a file it names."""

from __future__ import annotations

import json

from tests.support.claude_rows import Transcript, tool_use
from tests.support.handoff_env import CLAUDE_CWD, claude_session, edited_parser_repo


def fixed_by(bridge, repo, query: str, command: str) -> list[str]:
    """The first line of each result ``command``'s failed run is linked to as ``fixed-by``."""
    code, out, err = bridge("handoff", "search", "--json", query, cwd=repo)
    assert code == 0, err
    results = json.loads(out)["results"]
    by_ref = {r["pointer"]["ref"]: r for r in results}
    run = next(r for r in results if r["excerpt"].startswith(f"Bash: {command}"))
    refs = [link["ref"] for link in run.get("links") or [] if link["rel"] == "fixed-by"]
    return [by_ref[ref]["excerpt"].splitlines()[0] if ref in by_ref else ref for ref in refs]


def test_a_tool_error_is_not_fixed_by_a_pending_or_unrelated_edit(bridge, git_repo):
    """`cat config/missing.yml` fails; an edit of parser.py that never got its result, and an applied one of
    parser.py, name no file the error named: neither is linked as its fix. An applied edit of config/missing.yml is."""
    repo = edited_parser_repo(git_repo)
    t = Transcript("s1")
    t.user("Make the parser accept empty input.")
    t.assistant(tool_use("Bash", {"command": "cat config/missing.yml"}, "toolu_c"))
    t.result("toolu_c", "cat: config/missing.yml: No such file or directory", is_error=True)
    t.assistant(tool_use("Edit", {"file_path": f"{CLAUDE_CWD}/parser.py", "old_string": "a", "new_string": "b"}, "e1"))
    t.result("e1", "The file has been updated successfully.")
    t.assistant(tool_use("Write", {"file_path": f"{CLAUDE_CWD}/config/missing.yml", "content": "mode: fast\n"}, "w1"))
    t.result("w1", "File created successfully")
    t.assistant(tool_use("Edit", {"file_path": f"{CLAUDE_CWD}/parser.py", "old_string": "b", "new_string": "c"}, "e2"))
    claude_session(t, repo)  # the session ends with the last edit pending
    assert bridge("handoff", "export", "--from", "claude", "--session", "s1", "--to", "codex", cwd=repo)[0] == 0
    fixes = fixed_by(bridge, repo, "missing.yml", "cat config/missing.yml")
    assert len(fixes) == 1 and fixes[0].startswith("Write: ") and "config/missing.yml" in fixes[0]
