"""A handover offered before a rate limit: the status line records the windows, the next notice offers `$handoff`."""

from __future__ import annotations

import json
import time

from autopilot import paths
from autopilot.handoff.packets import store
from tests.support.claude_rows import Transcript
from tests.support.codex_home import limits_rollout, used
from tests.support.handoff_env import claude_session, edited_parser_repo, work_session
from tests.support.hooks import payload

FUTURE = int(time.time()) + 3 * 3600


def render(bridge, repo, **fields) -> None:
    """One status-line render in ``repo`` (the JSON Claude Code pipes in, with ``fields``)."""
    code, _, err = bridge("statusline", stdin=json.dumps({"workspace": {"current_dir": str(repo)}, **fields}))
    assert code == 0, err


def hook(bridge, repo, session: str, event: str, **fields) -> dict | None:
    data = {**payload(event, repo, **fields), "session_id": session}
    code, out, err = bridge("hook", event, stdin=json.dumps(data))
    assert code == 0, err
    return json.loads(out) if out.strip() else None


def working(bridge, git_repo) -> tuple:
    """A Claude session of the repository, recorded by the hooks."""
    repo = edited_parser_repo(git_repo)
    t = work_session(Transcript())
    claude_session(t, repo)
    hook(bridge, repo, t.session, "SessionStart", source="startup")
    return repo, t.session


def claude_at(percent: float, resets: int = FUTURE) -> dict:
    """The status line's `rate_limits` for a subscription login (claude 2.1.332's shape)."""
    return {"five_hour": {"used_percentage": percent, "resets_at": resets},
            "seven_day": {"used_percentage": 41, "resets_at": resets + 86400}}  # fmt: skip


def test_claudes_own_window_near_its_limit_offers_a_handover_once(bridge, git_repo):
    """At 93% of Claude's 5-hour window the next prompt offers $handoff with a packet to preview; once."""
    repo, session = working(bridge, git_repo)
    render(bridge, repo, rate_limits=claude_at(93))
    answer = hook(bridge, repo, session, "UserPromptSubmit", prompt="go on")
    said = answer["systemMessage"]
    assert "Claude's 5-hour limit is 93% used" in said and "type $handoff" in said
    packet = said.split("codex-bridge handoff inspect ")[1].split()[0]
    assert store.load(packet)[1]["source"]["sessionId"] == session  # ready to preview
    again = hook(bridge, repo, session, "UserPromptSubmit", prompt="and then?")
    assert not again or "limit is" not in again.get("systemMessage", "")


def test_codex_near_its_limit_offers_a_handover_at_the_turns_end(bridge, git_repo):
    """Codex's 5-hour window at 95% (from its rollouts) makes the next turn end offer $handoff."""
    repo, session = working(bridge, git_repo)
    limits_rollout(paths.codex_home(), time.time(), "01a2aaaa-0000-7000-8000-00000000000a", used(95, resets_at=FUTURE))
    render(bridge, repo)
    answer = hook(bridge, repo, session, "Stop", stop_hook_active=False, last_assistant_message="done")
    assert "Codex's 5-hour limit is 95% used" in answer["systemMessage"] and "$handoff" in answer["systemMessage"]


def test_no_offer_below_the_threshold_or_after_a_reset(bridge, git_repo):
    """89% used, or a window that has reset since it was seen, offers nothing."""
    repo, session = working(bridge, git_repo)
    render(bridge, repo, rate_limits=claude_at(89))
    assert hook(bridge, repo, session, "UserPromptSubmit", prompt="go on") is None
    render(bridge, repo, rate_limits=claude_at(97, resets=int(time.time()) - 60))
    assert hook(bridge, repo, session, "UserPromptSubmit", prompt="go on") is None


def test_without_windows_recorded_the_hooks_look_no_further(bridge, git_repo):
    """No status line ran: no limits file, so the hooks do one stat and offer nothing."""
    repo, session = working(bridge, git_repo)
    assert not (paths.handoff_dir() / "limits.json").exists()
    assert hook(bridge, repo, session, "UserPromptSubmit", prompt="go on") is None


def test_a_hand_edited_limits_file_loses_only_its_odd_windows(isolated_homes):
    """limits.json with a window whose values are not numbers (an edit by hand) is read without that window;
    the others still count, and a file that is not JSON reads as no windows at all."""
    from autopilot.handoff.memory import limits

    target = paths.handoff_dir() / "limits.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    windows = {"5-hour": {"used": "93", "resetsAt": FUTURE}, "weekly": {"used": 95, "resetsAt": None}}
    target.write_text(json.dumps({"claude": {"at": 1, "windows": windows}, "codex": "nonsense"}))
    assert limits.near(limits.load()) == [("claude", "weekly", 95.0, None)]
    target.write_text("{not json")
    assert limits.load() == {}
