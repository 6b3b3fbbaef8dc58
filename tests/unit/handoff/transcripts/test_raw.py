"""The raw diagnostic views of a Claude transcript (`handoff raw inspect|read`): file facts, rows masked and cut."""

from __future__ import annotations

import json

import pytest

from autopilot.commands.handoff import intake as handoff_intake
from autopilot.errors import BridgeError
from autopilot.handoff.transcripts import raw
from autopilot.handoff.transcripts.evidence import OMITTED_SECRET, OMITTED_SECRET_OUTPUT
from tests.support.claude_rows import Transcript, fixture, text, thinking, tool_use
from tests.unit.handoff.transcripts.test_claude_intake import dump, everything

SECRET_TEXT = "zq9-plain-secret-value"  # no credential shape: only the secret-file rule keeps it out


def _secret_session() -> Transcript:
    """A session that reads, cats and writes secret files, and reads one ordinary file."""
    t = Transcript()
    t.user("check the config")
    t.assistant(tool_use("Read", {"file_path": "/home/dev/work/.env"}, "toolu_read"))
    t.result("toolu_read", SECRET_TEXT)
    t.rows[-1]["toolUseResult"] = {"type": "text", "file": {"filePath": "/home/dev/work/.env", "content": SECRET_TEXT}}
    t.assistant(tool_use("Bash", {"command": "cat .env | head"}, "toolu_cat"))
    t.result("toolu_cat", SECRET_TEXT)
    t.assistant(tool_use("Write", {"file_path": "/home/dev/work/.env.local", "content": SECRET_TEXT}, "toolu_w"))
    t.result("toolu_w", "File created successfully")
    t.assistant(tool_use("Read", {"file_path": "/home/dev/work/notes.txt"}, "toolu_notes"))
    t.result("toolu_notes", "ordinary notes")
    return t


def test_raw_inspect_reports_file_facts(capsys):
    """raw inspect lists row types, entries, lineage and index state of a real transcript."""
    handoff_intake.raw_inspect(str(fixture("compact")))
    facts = json.loads(capsys.readouterr().out)
    assert (facts["lines"], facts["entries"], facts["malformedLines"], facts["compactSummaryLines"]) == (
        116,
        12,
        {},
        [34, 79],
    )


def test_raw_read_masks_private_parts(capsys):
    """raw read shows a row's fields but not its thinking, usage or hook context."""
    path = fixture("tools")
    lines = path.read_text().splitlines()
    think = next(n for n, line in enumerate(lines, 1) if "THINKING-MARKER" in line)
    hook = next(n for n, line in enumerate(lines, 1) if "HOOK-CONTEXT-MARKER" in line and "attachment" in line)
    for line in (think, hook):
        handoff_intake.raw_read(str(path), line=line)
        out = capsys.readouterr().out
        assert "MARKER" not in out and "[omitted" in out and "input_tokens" not in out


def test_raw_read_shows_no_text_of_a_line_it_cannot_parse(tmp_path, capsys):
    """A cut-off or oversize line is shown only by its size, reason and row type, never its text."""
    marker = "PRIVATE-MARKER-5150"
    t = Transcript()
    t.user("hi")
    t.assistant(thinking(marker + " plan"), text("answer"))
    cut = json.dumps(t.rows.pop(), separators=(",", ":")).encode()
    t.raw(cut[: cut.index(marker.encode()) + 40])
    t.meta("api-request-blob", hash="h", message={"role": "system", "content": [text(marker + "s" * (9 << 20))]})
    path = t.write(tmp_path / "t.jsonl")
    sizes = [len(line) for line in path.read_bytes().split(b"\n")]
    handoff_intake.raw_read(str(path), line=2, count=2)
    out = capsys.readouterr().out
    assert marker not in out
    assert json.loads(out)["rows"] == [
        {"line": 2, "bytes": sizes[1], "parsed": False, "reason": "malformed", "rowType": "assistant"},
        {"line": 3, "bytes": sizes[2], "parsed": False, "reason": "oversize", "rowType": "api-request-blob"},
    ]


def test_raw_read_past_the_end_says_how_long_the_file_is():
    """Asking for a line past the end is an error naming the line count."""
    with pytest.raises(BridgeError, match="has 50 lines"):
        handoff_intake.raw_read(str(fixture("tools")), line=51)


def test_raw_read_omits_what_the_intake_omits_from_secret_files(tmp_path):
    """Reads, command output and writes of secret-bearing files are omitted in raw read as in the intake."""
    path = _secret_session().write(tmp_path / "t.jsonl")
    rows = raw.read(str(path), line=1, count=9, max_chars=2000)["rows"]
    assert SECRET_TEXT not in dump(rows) and SECRET_TEXT not in dump(everything(path))
    results = [r["row"] for r in rows if r["row"].get("toolUseResult")]
    assert [r["message"]["content"][0]["content"] for r in results] == [
        OMITTED_SECRET,
        OMITTED_SECRET_OUTPUT,
        OMITTED_SECRET,  # as in the intake: a call on a secret file loses its result too
        "ordinary notes",
    ]
    assert [r["toolUseResult"] for r in results[:3]] == [OMITTED_SECRET, OMITTED_SECRET_OUTPUT, OMITTED_SECRET]
    write = next(r["row"] for r in rows if "toolu_w" in dump(r["row"]) and r["row"]["type"] == "assistant")
    assert write["message"]["content"][0]["input"] == {
        "file_path": "/home/dev/work/.env.local",
        "content": OMITTED_SECRET,
    }


def test_raw_read_of_a_result_row_alone_finds_its_call_far_back(tmp_path):
    """A result row read on its own is matched to its call 300 rows back, without sourceToolAssistantUUID."""
    t = Transcript()
    t.assistant(tool_use("Bash", {"command": "cat ~/.aws/credentials"}, "toolu_far"))
    for n in range(300):
        t.user(f"filler {n}")
    t.result("toolu_far", SECRET_TEXT)
    del t.rows[-1]["sourceToolAssistantUUID"]
    path = t.write(tmp_path / "t.jsonl")
    row = raw.read(str(path), line=302, count=1)["rows"][0]["row"]
    assert SECRET_TEXT not in dump(row) and row["message"]["content"][0]["content"] == OMITTED_SECRET_OUTPUT


def test_raw_read_omits_a_secret_read_whose_call_is_gone(tmp_path):
    """A result whose call is not in the file is omitted when its own toolUseResult names a secret file."""
    t = Transcript()
    t.result("toolu_gone", SECRET_TEXT)
    t.rows[-1]["toolUseResult"] = {"type": "text", "file": {"filePath": "/srv/app/id_ed25519", "content": SECRET_TEXT}}
    path = t.write(tmp_path / "t.jsonl")
    row = raw.read(str(path), line=1, count=1)["rows"][0]["row"]
    assert SECRET_TEXT not in dump(row) and row["toolUseResult"] == OMITTED_SECRET
