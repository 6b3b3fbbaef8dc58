"""``fastjson.lean_orjson`` in fresh processes: orjson without the modules its start-up loads for serialising types."""

from __future__ import annotations

import json
import subprocess
import sys

from autopilot import fastjson
from tests.support.measured import unmeasured

# Rows as the clients write them, and the edges of orjson's reading: escapes, surrogate pairs, big and small numbers.
CORPUS = [
    b'{"parentUuid":null,"type":"user","message":{"role":"user","content":"caf\\u00e9 \\ud83d\\ude00 \\"q\\""}}',
    b'{"a":[1,-2.5e-3,12345678901234567890,1e308,true,false,null,{},[]],"b":"\\n\\t\\\\"}',
    '{"text":"\u00e9\u4e2d\U0001f600"}'.encode(),
]
BAD = [b"{", b'{"a":NaN}', b'{"a":1}x', b'"\\ud800"', b"\xff"]

PROBE = r"""
import sys
mode = sys.argv[1]
before = set(sys.modules)
if mode == "lean":
    from autopilot.fastjson import lean_orjson
    orjson = lean_orjson()
else:
    import orjson
names = ("dataclasses", "inspect", "uuid", "platform", "datetime", "enum", "json", "re")
loaded = sorted(m for m in names if m in sys.modules)
rows = [bytes.fromhex(h) for h in sys.argv[2].split(",")]
bad = [bytes.fromhex(h) for h in sys.argv[3].split(",")]
out = [orjson.dumps(orjson.loads(r)).hex() for r in rows]
errors = []
for b in bad:
    try:
        orjson.loads(b)
        errors.append("parsed")
    except orjson.JSONDecodeError as exc:
        assert isinstance(exc, ValueError) and exc.doc is not None and exc.pos >= 0
        errors.append(type(exc).__name__ + ":" + str(exc) + f":{exc.lineno}:{exc.colno}")
import datetime, dataclasses, enum, json, uuid
real = [m.__name__ for m in (datetime.datetime, dataclasses.dataclass, uuid.UUID, enum.Enum, json.JSONDecodeError)]
real += [datetime.datetime.__module__, dataclasses.dataclass.__module__, uuid.UUID.__module__, enum.Enum.__module__]
when = orjson.dumps({"t": datetime.datetime(2026, 12, 8, 3, 4, 5, tzinfo=datetime.timezone.utc)}).decode()
class Level(enum.IntEnum):
    HIGH = 3
class Word(str, enum.Enum):
    YES = "yes"
members = orjson.dumps([Level.HIGH, Word.YES]).decode()
print(json.dumps({"loaded": loaded, "out": out, "errors": errors, "real": real, "when": when, "members": members}))
"""


def _run(mode: str) -> dict:
    argv = [sys.executable, "-c", PROBE, mode, ",".join(r.hex() for r in CORPUS), ",".join(b.hex() for b in BAD)]
    proc = subprocess.run(argv, capture_output=True, text=True, env=unmeasured())
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_the_installed_orjson_is_a_release_read_for_the_lean_import():
    """The test below proves the lean import on the orjson the suite runs: an upgrade fails here until it is tried."""
    assert fastjson._lean_release(sys.path)


def test_lean_orjson_reads_and_writes_as_orjson_and_leaves_the_real_modules():
    """Parsed rows, their dumps and every error (message, line and column) are orjson's own; none of the modules its
    start-up loads is loaded, and what the process imports afterwards is the real datetime, dataclasses, uuid, enum
    and json; an IntEnum or str Enum member is written as before."""
    lean, real = _run("lean"), _run("real")
    assert lean["loaded"] == []
    spared = {"dataclasses", "datetime", "enum", "inspect", "json", "re", "uuid"}  # and platform, which uuid loads
    assert spared <= set(real["loaded"]) <= spared | {"platform"}  # before Python 3.13
    assert lean["out"] == real["out"] and lean["errors"] == real["errors"]
    assert all(e.startswith("JSONDecodeError:") for e in lean["errors"]) and len(lean["errors"]) == len(BAD)
    assert lean["real"] == real["real"]
    assert lean["real"][-4:] == ["datetime", "dataclasses", "uuid", "enum"]
    assert lean["when"] == real["when"] == '{"t":"2026-12-08T03:04:05+00:00"}'
    assert lean["members"] == real["members"] == '[3,"yes"]'


def test_only_a_release_read_for_it_is_imported_lean(tmp_path):
    """Another orjson release (or one whose version is not beside it) is imported as it is: its start-up may look up
    other names, and a missing one would crash the process."""
    site = tmp_path / "site"
    (site / "orjson").mkdir(parents=True)
    (site / "orjson-3.99.0.dist-info").mkdir()
    assert not fastjson._lean_release([str(site), *sys.path])
    (site / f"orjson-{fastjson.LEAN_ORJSON[0]}.dist-info").mkdir()
    assert fastjson._lean_release([str(site), *sys.path])
    assert not fastjson._lean_release([str(tmp_path / "empty")])
