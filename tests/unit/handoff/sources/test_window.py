"""handoff/sources/window.py: a transcript over the read cap is read as its head and its newest lines, mapped back."""

from __future__ import annotations

import os
from pathlib import Path

from autopilot import paths
from autopilot.handoff.sources import HEAD_SHARE
from autopilot.handoff.sources.window import read_window


def transcript(tmp_path, lines: int, width: int = 99):
    """A file of ``lines`` lines of ``width`` bytes and a newline, each naming its number."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(f"{n:0{width}d}\n".encode() for n in range(1, lines + 1)))
    return path


def test_a_file_within_the_cap_is_read_in_place_and_whole(tmp_path):
    """At or under the cap: one span, the file itself, cached, no head and no gap."""
    path = transcript(tmp_path, 10)
    with read_window(str(path), cap=os.path.getsize(path)) as window:
        assert (window.tail.scan_path, window.tail.cached, window.head, window.gap) == (str(path), True, None, None)
        assert (window.tail.start, window.tail.line(7), window.size) == (0, 7, 1000)


def test_a_file_over_the_cap_is_its_head_and_tail_at_line_boundaries(tmp_path):
    """The head is whole lines within cap/HEAD_SHARE, the tail whole lines up to the cap; the copies hold them."""
    path = transcript(tmp_path, 100)  # 10,000 bytes, 100 bytes a line
    cap = 3200
    with read_window(str(path), cap=cap) as window:
        head, tail = window.head, window.tail
        assert head is not None and (head.cached, tail.cached) == (False, False)
        head_text = Path(head.scan_path).read_bytes()
        tail_text = Path(tail.scan_path).read_bytes()
        assert len(head_text) == (cap // HEAD_SHARE) // 100 * 100 == window.head_end == 200  # 2 whole lines
        assert head_text.endswith(b"\n") and tail_text.startswith(b"0" * 97 + b"72\n")  # the first whole line
        assert tail_text == path.read_bytes()[tail.start :] and len(tail_text) <= cap


def test_line_numbers_of_the_tail_map_back_to_the_real_file(tmp_path):
    """A scanned line of the tail is the real line it copies, and back: every pointer stays exact."""
    path = transcript(tmp_path, 100)
    with read_window(str(path), cap=3200) as window:
        tail = window.tail
        first = int(Path(tail.scan_path).read_bytes().split(b"\n", 1)[0])
        assert tail.line(1) == first == 72 and tail.scanned(72) == 1 and tail.real_path == str(path)


def test_what_was_not_read_is_a_read_cap_gap(tmp_path):
    """The lines between the spans are named as a gap, with the bytes skipped; they were counted, never parsed."""
    path = transcript(tmp_path, 100)
    with read_window(str(path), cap=3200) as window:
        assert window.gap == {
            "kind": "read_cap",
            "detail": "the transcript is 10000 bytes, over the 3200-byte read cap: lines 3..71 were not read",
            "fromLine": 3,
            "toLine": 71,
            "skippedBytes": 7100 - 200,
        }


def test_a_head_without_a_whole_line_is_left_out(tmp_path):
    """When no line ends inside the head's share there is no head span, only the tail and the gap."""
    path = transcript(tmp_path, 20, width=999)  # 1,000-byte lines, a head share of 250 bytes
    with read_window(str(path), cap=4000) as window:
        assert (window.head, window.head_end) == (None, 0) and window.gap is not None
        assert window.gap["fromLine"] == 1


def test_the_private_copies_are_removed_afterwards(tmp_path):
    """Copies live under $AUTOPILOT_HOME/cache while the window is open, readable by the user only, then go."""
    path = transcript(tmp_path, 100)
    with read_window(str(path), cap=3200) as window:
        copies = [window.tail.scan_path, window.head.scan_path if window.head else ""]
        assert all(c.startswith(str(paths.autopilot_home() / "cache")) for c in copies)
        assert oct(os.stat(copies[0]).st_mode & 0o777) == "0o600"
    assert not any(os.path.exists(c) for c in copies)
