"""`handoff search` on what the hooks recorded: each result says where its evidence is, never "of None"."""

from __future__ import annotations

from tests.support.hooks import run_hook


def test_a_result_from_the_active_memory_names_its_log_once_and_no_missing_transcript(bridge, git_repo):
    """Observations recorded by the hooks (one tool call delivered twice, as a relay may) show their log and entry,
    without the store's id said twice and without a transcript that is not there ("of None")."""
    run_hook(bridge, "SessionStart", git_repo, source="startup")
    run_hook(bridge, "UserPromptSubmit", git_repo, prompt="Fix the parser", prompt_id="p1")
    edit = {"file_path": str(git_repo / "parser.py"), "old_string": "a", "new_string": "b"}
    for _ in range(2):
        run_hook(bridge, "PostToolUse", git_repo, tool_name="Edit", tool_input=edit, tool_response={}, tool_use_id="t1")
    code, out, err = bridge("handoff", "search", "parser", cwd=git_repo)
    assert code == 0, err
    places = [line for line in out.splitlines() if "session" in line and line.startswith("   ")]
    assert places and all("active memory: observations.jsonl entry " in line for line in places)
    assert "None" not in out
    assert all(line.count("memory:claude:") == 0 for line in places)
