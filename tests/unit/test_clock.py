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


@freeze_time(MOMENT)
def test_unix_and_utc_now_read_the_frozen_clock():
    """Unix seconds and the aware UTC datetime are the same moment, and tests can freeze both."""
    assert clock.unix() == 1796099851.098765
    assert clock.utc_now().isoformat() == MOMENT


@freeze_time(MOMENT)
def test_utc_formats_now_or_given_seconds():
    """A strftime format is applied to now in UTC, or to the Unix seconds given."""
    assert clock.utc("%Y-%m-%d %H:%M UTC") == "2026-12-01 04:37 UTC"
    assert clock.utc("%Y-%m-%d", 0) == "1970-01-01"


def test_local_formats_in_this_machines_zone(monkeypatch):
    """A strftime format is applied in the local time zone, with its offset (the crash log's stamp)."""
    import time

    monkeypatch.setenv("TZ", "Asia/Kolkata")
    time.tzset()
    try:
        assert clock.local("%Y-%m-%dT%H:%M:%S%z", 0) == "1970-01-01T05:30:00+0530"
    finally:
        monkeypatch.undo()
        time.tzset()


def test_iso_us_writes_any_datetime_as_utc_microseconds():
    """An aware time is converted to UTC, a naive one is taken as UTC: the events' own format."""
    assert clock.iso_us(clock.parse("2026-12-01T05:37:31.5+01:00")) == "2026-12-01T04:37:31.500000Z"
    assert clock.iso_us(clock.parse("2026-12-01")) == "2026-12-01T00:00:00.000000Z"


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
