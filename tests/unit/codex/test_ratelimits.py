"""Codex's rate-limit windows, read from the newest token_count events of recent rollouts."""

from __future__ import annotations

import os
from pathlib import Path

import zstandard

from autopilot.codex import ratelimits
from tests.support.codex_home import WITH_WINDOWS, WITHOUT_WINDOWS, limits_rollout, used

NOW = 1796100000.0  # 2026-12-01 04:40 UTC


def rollout(home: Path, days_ago: int, name: str, *events: dict, mtime: float | None = None) -> Path:
    """A rollout in the day folder ``days_ago`` days before NOW, written at ``mtime`` (default: that day)."""
    return limits_rollout(home, NOW - days_ago * 86400, name, *events, mtime=mtime)


def test_the_record_codex_wrote_is_read_with_both_windows(tmp_path):
    """latest() gives each window's use, what is left and its reset time (ISO and unix), and where it came from."""
    path = rollout(tmp_path, 0, "a", WITH_WINDOWS)
    assert ratelimits.latest(tmp_path, now=NOW) == {
        "rollout": str(path),
        "at": "2026-12-01T03:37:31.098Z",
        "limit_id": "codex",
        "limit_name": None,
        "plan_type": None,
        "primary": {
            "used_percent": 42.5,
            "left_percent": 57.5,
            "window_minutes": 300,
            "resets_at": "2026-12-01T05:37:29Z",
            "resets_at_unix": 1796103449,
            "reset": False,
        },
        "secondary": {
            "used_percent": 17.0,
            "left_percent": 83.0,
            "window_minutes": 10080,
            "resets_at": "2026-12-05T19:44:09Z",
            "resets_at_unix": 1796499849,
            "reset": False,
        },
    }


def test_the_last_record_of_a_rollout_counts(tmp_path):
    """Of several token_count events in one rollout, the last one written is the answer."""
    rollout(tmp_path, 0, "a", used(10), used(20), used(30))
    assert ratelimits.latest(tmp_path, now=NOW)["primary"]["used_percent"] == 30.0


def test_the_most_recently_written_rollout_wins_whatever_its_folder(tmp_path):
    """A thread resumed today in yesterday's folder is newer than one started today and left alone."""
    rollout(tmp_path, 0, "today", used(10), mtime=NOW - 3600)
    rollout(tmp_path, 1, "resumed", used(70), mtime=NOW - 60)
    assert ratelimits.latest(tmp_path, now=NOW)["primary"]["used_percent"] == 70.0


def test_a_rollout_without_windows_is_passed_over(tmp_path):
    """The newest rollout records no windows (an API-key session); the one before it still answers."""
    rollout(tmp_path, 0, "apikey", WITHOUT_WINDOWS, mtime=NOW - 10)
    rollout(tmp_path, 0, "chatgpt", used(55), mtime=NOW - 500)
    assert ratelimits.latest(tmp_path, now=NOW)["primary"]["used_percent"] == 55.0


def test_only_the_newest_token_count_of_a_rollout_counts(tmp_path):
    """A session whose latest turn recorded no window says nothing, whatever an earlier turn recorded."""
    rollout(tmp_path, 0, "a", used(40), WITHOUT_WINDOWS)
    assert ratelimits.latest(tmp_path, now=NOW) is None


def test_no_record_at_all_is_none(tmp_path):
    """No sessions folder, or rollouts without windows: nothing to report."""
    assert ratelimits.latest(tmp_path, now=NOW) is None
    rollout(tmp_path, 0, "apikey", WITHOUT_WINDOWS)
    assert ratelimits.latest(tmp_path, now=NOW) is None


def test_folders_older_than_the_recent_days_are_not_read(tmp_path):
    """A record in a day folder from before RECENT_DAYS is not looked for (its weekly window is over)."""
    rollout(tmp_path, ratelimits.RECENT_DAYS + 2, "old", WITH_WINDOWS, mtime=NOW)
    assert ratelimits.latest(tmp_path, now=NOW) is None


def test_a_window_past_its_reset_time_has_reset(tmp_path):
    """After resets_at the recorded use no longer applies: the window shows as reset, with everything left."""
    rollout(tmp_path, 0, "a", used(99))
    primary = ratelimits.latest(tmp_path, now=1796103449 + 1)["primary"]
    assert (primary["reset"], primary["left_percent"], primary["used_percent"]) == (True, 100.0, 99.0)


def test_a_window_without_reset_time_resets_after_its_length(tmp_path):
    """With no resets_at, a 5-hour window counts as reset 5 hours after the record."""
    event = used(80)
    event["payload"]["rate_limits"]["primary"]["resets_at"] = None
    rollout(tmp_path, 0, "a", event)
    recorded = 1796096251.098  # 2026-12-01T03:37:31.098Z
    assert ratelimits.latest(tmp_path, now=recorded + 5 * 3600 - 1)["primary"]["reset"] is False
    assert ratelimits.latest(tmp_path, now=recorded + 5 * 3600 + 1)["primary"]["reset"] is True


def test_a_compressed_rollout_is_read(tmp_path):
    """A .jsonl.zst rollout (Codex compresses old sessions) is decompressed and read like a plain one."""
    plain = rollout(tmp_path, 0, "a", used(64))
    packed = plain.with_name(plain.name + ".zst")
    packed.write_bytes(zstandard.ZstdCompressor(write_content_size=True).compress(plain.read_bytes()))
    plain.unlink()
    found = ratelimits.latest(tmp_path, now=NOW)
    assert (found["rollout"], found["primary"]["used_percent"]) == (str(packed), 64.0)


def test_damaged_lines_and_files_are_skipped(tmp_path):
    """A torn last line, garbage and a corrupt .zst newer than the record do not hide it."""
    path = rollout(tmp_path, 0, "a", used(33), mtime=NOW - 100)
    with path.open("a") as fh:
        fh.write('not json "token_count" "rate_limits"\n{"type":"event_msg","payload":{"type":"token_count","rate_')
    os.utime(path, (NOW - 100, NOW - 100))
    broken = path.with_name("rollout-2026-12-01T00-00-01-b.jsonl.zst")
    broken.write_bytes(b"\x28\xb5\x2f\xfd garbage")
    os.utime(broken, (NOW, NOW))
    assert ratelimits.latest(tmp_path, now=NOW)["primary"]["used_percent"] == 33.0


def test_only_the_tail_of_a_large_rollout_is_read(tmp_path):
    """A record followed by more than TAIL bytes of other events is out of reach: only the tail is read."""
    filler = {"type": "response_item", "payload": {"type": "message", "text": "x" * 1000}}
    rollout(tmp_path, 0, "a", used(12), *[filler] * (ratelimits.TAIL // 1000 + 10))
    assert ratelimits.latest(tmp_path, now=NOW) is None
    rollout(tmp_path, 0, "b", *[filler] * (ratelimits.TAIL // 1000 + 10), used(13))
    assert ratelimits.latest(tmp_path, now=NOW)["primary"]["used_percent"] == 13.0


def test_codex_home_comes_from_the_environment(isolated_homes):
    """Without an argument, latest() reads $CODEX_HOME/sessions."""
    rollout(isolated_homes / "codex", 0, "a", used(21))
    assert ratelimits.latest(now=NOW)["primary"]["used_percent"] == 21.0


def test_the_short_window_is_the_emptiest_under_the_floor(tmp_path):
    """short_window names the window with less left than the floor (the emptiest if both), else None."""
    event = used(95)
    event["payload"]["rate_limits"]["secondary"]["used_percent"] = 92.0
    rollout(tmp_path, 0, "a", event)
    record = ratelimits.latest(tmp_path, now=NOW)
    assert ratelimits.short_window(record, 10) == ("5-hour", record["primary"])
    assert ratelimits.short_window(record, 5) is None
    assert ratelimits.short_window(None, 50) is None


def test_windows_are_named_by_their_length():
    """300 minutes is the 5-hour window, 10080 the weekly one; other lengths say their size."""
    names = [ratelimits.window_name("primary", {"window_minutes": m}) for m in (300, 10080, 60, 2880)]
    assert names == ["5-hour", "weekly", "1-hour", "2-day"]


def test_window_text_says_what_is_left_and_when_it_resets(tmp_path):
    """A window for people: percentage left, reset time in UTC and how long until then."""
    rollout(tmp_path, 0, "a", WITH_WINDOWS)
    record = ratelimits.latest(tmp_path, now=NOW)
    assert ratelimits.window_text("primary", record["primary"], now=NOW) == (
        "5-hour window: 57.5% left, resets 2026-12-01 05:37 UTC (in 57 min)"
    )
