"""Compressed rollouts (`.jsonl.zst`, as Codex writes old sessions) are read like plain ones."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import zstandard

from autopilot.codex import sessions
from autopilot.errors import BridgeError
from autopilot.handoff.transcripts.codex_intake import intake
from tests.support.codex_home import FIXTURES

# Written by the real codex 0.171 (app-server rollout/compress): one zstd frame, content size, no checksum.
REAL = next((FIXTURES / "compressed").glob("*.jsonl.zst"))
THREAD = "01a22fe6-15b3-70c0-8fd1-b5f1580d56fd"


def compress(source: Path, target: Path) -> Path:
    """``source`` compressed the way Codex does it."""
    target.write_bytes(zstandard.ZstdCompressor(write_content_size=True).compress(source.read_bytes()))
    return target


def without_paths(answer: dict) -> dict:
    """An intake answer minus what names the file it was read from."""
    return {k: v for k, v in answer.items() if k not in ("transcript", "path", "source", "file")}


def test_intake_of_a_compressed_rollout_equals_the_plain_ones(tmp_path):
    """The same rollout, plain and compressed, gives the same intake."""
    plain = FIXTURES / "exec_plain.jsonl"
    packed = compress(plain, tmp_path / (plain.name + ".zst"))
    assert without_paths(intake(str(sessions.readable(packed)))) == without_paths(intake(str(plain)))


def test_the_rollout_codex_compressed_is_read(tmp_path):
    """A rollout the real codex compressed decompresses to its 18 JSONL lines, session_meta first."""
    plain = sessions.readable(REAL)
    lines = plain.read_bytes().splitlines()
    assert len(lines) == 18 and json.loads(lines[0])["payload"]["id"] == THREAD
    assert sessions.read(REAL).thread_id == THREAD  # classified by line 1 without a full decompression
    assert sessions.readable(REAL) == plain  # decompressed once, then reused


def test_a_compressed_thread_is_found_by_id(isolated_homes):
    """find_rollout finds a thread whose only rollout is compressed; a plain copy of it wins when both exist."""
    day = isolated_homes / "codex" / "sessions" / "2026" / "11" / "23"
    day.mkdir(parents=True)
    packed = day / REAL.name
    shutil.copy(REAL, packed)
    assert sessions.find_rollout(THREAD) == packed
    plain = day / REAL.name.removesuffix(".zst")
    plain.write_bytes(sessions.readable(packed).read_bytes())
    assert sessions.find_rollout(THREAD) == plain


def test_the_cli_reads_a_compressed_rollout(tmp_path, bridge):
    """`handoff from-codex intake x.jsonl.zst` answers as for the plain file (it used to refuse)."""
    packed = compress(FIXTURES / "exec_plain.jsonl", tmp_path / "rollout-x.jsonl.zst")
    code, out, err = bridge("handoff", "from-codex", "intake", str(packed))
    assert code == 0, err
    assert json.loads(out)["session"]["id"] == "01a22c45-f34f-7752-9ff7-c45689ad7d88"


def test_a_decompression_bomb_is_refused(tmp_path, monkeypatch):
    """A .zst that decompresses past the limit is refused with a clear error and leaves no partial copy."""
    monkeypatch.setattr(sessions, "MAX_ROLLOUT_BYTES", 1 << 20)
    bomb = tmp_path / "rollout-bomb.jsonl.zst"
    bomb.write_bytes(zstandard.ZstdCompressor().compress(b"{}\n" * (2 << 20)))
    with pytest.raises(BridgeError, match="decompresses to more than"):
        sessions.readable(bomb)
    cache = Path(sessions.paths.autopilot_home()) / "cache" / "rollouts"
    assert not list(cache.glob("*")) if cache.exists() else True


def test_a_damaged_zst_is_a_clear_error(tmp_path):
    """Bytes that are not zstd give a one-line error naming the file, never a traceback."""
    bad = tmp_path / "rollout-bad.jsonl.zst"
    bad.write_bytes(b"not zstd at all")
    with pytest.raises(BridgeError, match="cannot decompress"):
        sessions.readable(bad)
    assert sessions.read(bad).kind in ("empty", "corrupt")
