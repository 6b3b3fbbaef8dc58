"""A long scan in a fresh process: orjson reads it, imported lean (``fastjson.lean_orjson``)."""

from __future__ import annotations

import json
import subprocess
import sys

from autopilot.handoff.transcripts import jsonl
from tests.fixtures.make_big_sessions import Shape, claude_session, codex_rollout
from tests.support.measured import unmeasured

PROBE = (  # the kept patterns in the test's own file (as test_hot_path.py does), written back after each scan
    "import sys; from autopilot import patterns; kept = sys.argv.pop(1); patterns.keep_compiled(kept)\n"
    "from autopilot.handoff.transcripts import jsonl\n"
    "from autopilot.handoff.transcripts.claude_fold import ClaudeFold\n"
    "from autopilot.handoff.transcripts.codex_fold import CodexFold\n"
    "fold = ClaudeFold() if sys.argv[2] == 'claude' else CodexFold()\n"
    "loaded = ('orjson', 'dataclasses', 'inspect', 'uuid', 're', 'enum')\n"
    "i = jsonl.scan(sys.argv[1], fold, cache=False)\n"
    "found = [m for m in loaded if m in sys.modules]\n"
    "added = patterns.compiled_cache()\n"
    "if added is not None: open(kept, 'wb').write(added)\n"
    "import json\n"
    "print(json.dumps([found, i.lines, list(i.entries), i.malformed]))"
)


def _scan(path, agent: str, small: bool) -> list:
    code = (
        PROBE.replace("fold, cache", "fold, cache")
        if not small
        else PROBE.replace("i = jsonl.scan", "jsonl.SMALL_SCAN_BYTES = 1 << 30; i = jsonl.scan")
    )
    argv = [sys.executable, "-c", code, str(path.parent / "regex.marshal"), str(path), agent]
    # Twice: the first scan anywhere compiles the readers' patterns (with re) and keeps them, as on any machine the
    # bridge has read a transcript on before; the second is the one looked at.
    subprocess.run(argv, capture_output=True, text=True, check=True, env=unmeasured())
    return json.loads(subprocess.run(argv, capture_output=True, text=True, check=True, env=unmeasured()).stdout)


def test_a_long_scan_reads_with_orjson_imported_lean_and_folds_as_the_scanner_does(tmp_path):
    """A scan of more than SMALL_SCAN_BYTES loads orjson without dataclasses, inspect, uuid, re or enum, and gives the
    same lines, entries and malformed counts as the C scanner's reading of the same file."""
    for agent, write in (("claude", claude_session), ("codex", codex_rollout)):
        made = write(tmp_path / agent, Shape(1.5, compact_every=0.5))
        assert made.size > jsonl.SMALL_SCAN_BYTES
        with open(made.path, "ab") as fh:
            fh.write(b'{"type":"user","message":\n[1,2]\n{"truncated')  # malformed rows and a cut last line
        lean, scanner = _scan(made.path, agent, small=False), _scan(made.path, agent, small=True)
        assert lean[0] == ["orjson"]  # (the scanner hands a malformed row to orjson too)
        assert lean[1:] == scanner[1:] and lean[1] > 100 and lean[3]
