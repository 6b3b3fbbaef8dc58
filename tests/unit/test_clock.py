"""clock.py: the one home of timestamps writes each precision the files use and reads ISO 8601 back."""

from __future__ import annotations

import re

from freezegun import freeze_time

from autopilot import clock

MOMENT = "2026-12-01T04:37:31.098765+00:00"


@freeze_time(MOMENT)
def test_now_is_utc_to_the_second():
    """Packets, durable rules and rate-limit resets: seconds and Z."""
    assert clock.now() == "2026-12-01T04:37:31Z"


@freeze_time(MOMENT)
def test_now_ms_is_utc_to_the_millisecond():
    """The active memory's observations: milliseconds and Z, as the transcripts write theirs."""
    assert clock.now_ms() == "2026-12-01T04:37:31.098Z"


@freeze_time(MOMENT)
def test_now_us_is_utc_to_the_microsecond():
    """state.json and events.jsonl: microseconds and Z."""
    assert clock.now_us() == "2026-12-01T04:37:31.098765Z"


@freeze_time(MOMENT)
def test_stamps_differ_under_a_frozen_clock():
    """Two file-name stamps taken in the same microsecond still name two files."""
    first, second = clock.stamp(), clock.stamp()
    assert first != second and re.fullmatch(r"20261201T043731\.098765Z-[0-9a-f]{6}", first)


def test_iso_writes_unix_seconds_as_utc():
    """Unix seconds become the seconds form."""
    assert clock.iso(0) == "1970-01-01T00:00:00Z"


def test_parse_reads_z_in_either_case():
    """``Z`` and ``z`` both mean UTC."""
    assert clock.parse("2026-12-01T04:37:31Z") == clock.parse("2026-12-01T04:37:31z ")
    assert clock.parse("2026-12-01T04:37:31Z").utcoffset().total_seconds() == 0


def test_epoch_is_none_for_what_is_no_time():
    """Anything that is not an ISO 8601 string gives None."""
    assert [clock.epoch(v) for v in (None, "", "yesterday", 5)] == [None] * 4
    assert clock.epoch("1970-01-01T00:01:00Z") == 60.0


def test_seconds_between_is_infinite_when_either_is_unreadable():
    """Two readable times give their distance either way round; a missing or zone-less mix gives infinity."""
    assert clock.seconds_between("2026-12-01T00:00:10Z", "2026-12-01T00:00:00Z") == 10.0
    assert clock.seconds_between(None, "2026-12-01T00:00:00Z") == float("inf")
    assert clock.seconds_between("2026-12-01T00:00:00", "2026-12-01T00:00:00Z") == float("inf")
