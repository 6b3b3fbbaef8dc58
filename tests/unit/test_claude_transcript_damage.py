"""The Claude intake on damaged, branched and growing transcripts, and its index reuse paths."""

from __future__ import annotations

import json
import os

from autopilot.handoff.transcripts.claude_intake import intake
from tests.support.claude_rows import Transcript, fixture, text, tool_use

VOLATILE = ("index", "scannedBytes")


def same_answer(a: dict, b: dict) -> bool:
    """Whether two answers agree on everything but how the index was obtained."""
    a, b = json.loads(json.dumps(a)), json.loads(json.dumps(b))
    for answer in (a, b):
        for key in VOLATILE:
            answer["diagnostics"].pop(key)
    return a == b


def lines_of(answer: dict) -> list[int]:
    """The raw line numbers of a page's entries."""
    return [e["line"] for e in answer["entries"]]


def conversation(t: Transcript, turns: int = 3) -> None:
    """A few prompt / tool call / result / answer turns."""
    for n in range(turns):
        t.user(f"prompt {n}")
        t.assistant(tool_use("Bash", {"command": f"echo {n}"}, f"toolu_{n}"))
        t.result(f"toolu_{n}", f"out {n}")
        t.assistant(text(f"answer {n}"))


def test_truncated_last_line_is_counted_and_skipped(tmp_path):
    """Half a row at the end (a crash mid-write) is one malformed line; every entry before it stays."""
    source = fixture("tools")
    damaged = tmp_path / source.name
    tail = source.read_text().splitlines()[-2]
    damaged.write_text(source.read_text() + tail[: len(tail) // 2])
    answer = intake(damaged, limit=500)
    assert answer["counts"]["malformedLines"] == 1
    assert answer["diagnostics"]["malformedLines"] == {"truncated": 1}
    assert lines_of(answer) == lines_of(intake(source, limit=500))


def test_completed_last_line_is_read_once_it_is_whole(tmp_path):
    """When the rest of a half-written row arrives, the index is extended and the row becomes an entry."""
    t = Transcript()
    conversation(t, 1)
    t.assistant(text("late answer"))
    path = t.write(tmp_path / "t.jsonl")
    data = path.read_bytes()
    path.write_bytes(data[:-20])
    assert intake(path)["diagnostics"]["malformedLines"] == {"truncated": 1}
    path.write_bytes(data)
    answer = intake(path)
    assert (answer["diagnostics"]["index"], answer["counts"]["malformedLines"]) == ("extended", 0)
    assert answer["entries"][0]["content"] == [{"type": "text", "text": "late answer"}]


def test_invalid_utf8_and_non_object_lines_are_counted(tmp_path):
    """Lines that are not UTF-8, or are JSON but not objects, are counted by reason and skipped."""
    t = Transcript()
    t.user("before")
    t.raw(b'{"type":"user","message":{"role":"user","content":"\xff\xfe bad"}}')
    t.raw(b"[1, 2, 3]")
    t.raw(b'"just a string"')
    t.raw(b"{not json")
    t.assistant(text("after"))
    answer = intake(t.write(tmp_path / "t.jsonl"))
    assert answer["diagnostics"]["malformedLines"] == {"invalid_json": 1, "invalid_utf8": 1, "not_object": 2}
    assert answer["diagnostics"]["malformedSample"] == [2, 3, 4, 5]
    assert [e["content"][0]["text"] for e in answer["entries"]] == ["after", "before"]


def test_twenty_megabyte_tool_result_is_not_parsed(tmp_path):
    """A 20 MB tool result is reported as oversize, its call shows a placeholder, lineage goes on."""
    t = Transcript()
    t.user("dump the log")
    t.assistant(tool_use("Bash", {"command": "cat huge.log"}, "toolu_big"))
    t.result("toolu_big", "L" * (20 << 20))
    t.assistant(text("the log is long"))
    answer = intake(t.write(tmp_path / "t.jsonl"), limit=500)
    assert answer["diagnostics"]["oversizeLines"] == [3]
    call = answer["entries"][1]["content"][0]
    assert call["result"]["line"] == 3 and "too large to show" in call["result"]["text"]
    assert [e["branch"] for e in answer["entries"]] == ["active", "active", "active"]
    assert len(json.dumps(answer)) < 20_000


def test_twenty_megabyte_prompt_is_an_oversize_entry(tmp_path):
    """A pasted 20 MB prompt is still a user entry, shown as a placeholder with its size."""
    t = Transcript()
    t.user("P" * (20 << 20))
    t.assistant(text("that was a lot"))
    path = t.write(tmp_path / "t.jsonl")
    answer = intake(path)
    entry = answer["entries"][1]
    assert (entry["line"], entry["role"], entry["oversize"]) == (1, "user", True)
    size = len(path.read_bytes().split(b"\n", 1)[0])
    assert entry["content"][0]["text"] == f"[line 1 is {size} bytes, too large to show]"
    assert answer["entries"][0]["branch"] == "active"


def test_edit_and_resubmit_leaves_a_non_lineage_branch(tmp_path):
    """Rewinding to an earlier message and resubmitting marks the abandoned rows non-lineage."""
    t = Transcript()
    t.user("first")
    fork = t.assistant(text("reply one"))
    t.user("second, as first typed")
    t.assistant(text("reply to the old second"))
    t.user("second, edited", parent=fork)
    t.assistant(text("reply to the edited second"))
    answer = intake(t.write(tmp_path / "t.jsonl"))
    branches = [(e["content"][0]["text"], e["branch"]) for e in answer["entries"]]
    assert branches == [
        ("reply to the edited second", "active"),
        ("second, edited", "active"),
        ("reply to the old second", "non-lineage"),
        ("second, as first typed", "non-lineage"),
        ("reply one", "active"),
        ("first", "active"),
    ]
    assert answer["branches"] == {"leafLine": 6, "nonLineageEntries": 2, "compactedEntries": 0, "compactionLine": None}


def test_checkpoint_on_an_abandoned_branch_is_not_used(tmp_path):
    """A compact summary that is no longer on the newest leaf's lineage is not the checkpoint."""
    t = Transcript()
    t.user("first")
    t.compact("OLD-ACTIVE-SUMMARY")
    fork = t.assistant(text("after the first compaction"))
    t.user("went one way")
    t.compact("ABANDONED-SUMMARY")
    t.assistant(text("on the abandoned branch"))
    t.user("went the other way", parent=fork)
    t.assistant(text("on the kept branch"))
    checkpoint = intake(t.write(tmp_path / "t.jsonl"))["checkpoint"]
    assert "OLD-ACTIVE-SUMMARY" in checkpoint["text"] and "ABANDONED" not in checkpoint["text"]


def test_lineage_crosses_compaction_through_the_logical_parent(tmp_path):
    """Rows before a compact boundary are its compacted history (reached via logicalParentUuid), not lost."""
    t = Transcript()
    conversation(t, 2)
    t.compact("SUMMARY")
    t.user("after compaction")
    answer = intake(t.write(tmp_path / "t.jsonl"), limit=500)
    branches = [e["branch"] for e in answer["entries"]]
    assert branches == ["active"] + ["compacted"] * (len(branches) - 1)
    assert answer["checkpoint"]["trigger"] == "manual"


def test_unchanged_transcript_reuses_its_index(tmp_path):
    """A second intake of the same file reads no transcript bytes at all."""
    path = fixture("compact")
    first = intake(path)
    again = intake(path, before_line=first["nextBeforeLine"])
    assert (first["diagnostics"]["index"], again["diagnostics"]["index"]) == ("built", "reused")
    assert again["diagnostics"]["scannedBytes"] == 0


def test_appended_rows_extend_the_index_and_show_first(tmp_path):
    """After Claude appends a turn, only the new bytes are read and the new turn is newest."""
    t = Transcript()
    conversation(t, 2)
    path = t.write(tmp_path / "t.jsonl")
    intake(path)
    size = path.stat().st_size
    t.rows.clear()
    t.user("a new prompt")
    t.assistant(text("a new answer"))
    with open(path, "ab") as fh:
        fh.write(t.write(tmp_path / "more.jsonl").read_bytes())
    answer = intake(path)
    assert (answer["diagnostics"]["index"], answer["diagnostics"]["scannedBytes"]) == (
        "extended",
        path.stat().st_size - size,
    )
    assert [e["content"][0]["text"] for e in answer["entries"][:2]] == ["a new answer", "a new prompt"]
    assert same_answer(answer, intake(path, cache=False))


def test_rewritten_transcript_is_rebuilt(tmp_path):
    """A transcript rewritten in place (not appended to) gets a fresh index with the new content."""
    t = Transcript()
    conversation(t, 2)
    path = t.write(tmp_path / "t.jsonl")
    intake(path)
    t.rows[0]["message"]["content"] = "prompt 0, rewritten"
    t.write(path)
    answer = intake(path, limit=500)
    assert answer["diagnostics"]["index"] == "rebuilt"
    assert answer["entries"][-1]["content"] == [{"type": "text", "text": "prompt 0, rewritten"}]


def test_growing_a_real_transcript_line_by_line_matches_fresh_reads(tmp_path):
    """Extending the index one real line at a time always gives the same answer as a fresh read."""
    lines = fixture("compact").read_bytes().splitlines(keepends=True)
    path = tmp_path / "grow.jsonl"
    path.write_bytes(b"")
    for line in lines:
        with open(path, "ab") as fh:
            fh.write(line)
        assert same_answer(intake(path, limit=5), intake(path, limit=5, cache=False))


def test_a_branch_appended_later_updates_lineage_incrementally(tmp_path):
    """A rewind appended after the index was built turns the old branch non-lineage, as a fresh read does."""
    t = Transcript()
    t.user("first")
    fork = t.assistant(text("reply one"))
    conversation(t, 2)
    path = t.write(tmp_path / "t.jsonl")
    intake(path)
    t.user("rewound", parent=fork)
    t.assistant(text("new direction"))
    t.write(path)
    answer = intake(path, limit=500)
    assert answer["diagnostics"]["index"] == "extended"
    assert answer["branches"]["nonLineageEntries"] == 6  # two turns of prompt, call and answer
    assert same_answer(answer, intake(path, limit=500, cache=False))


def test_walk_started_before_an_append_still_visits_old_entries_once(tmp_path):
    """Cursors are raw line numbers, so rows appended mid-walk never repeat or hide older entries."""
    t = Transcript()
    conversation(t, 4)
    path = t.write(tmp_path / "t.jsonl")
    expected = lines_of(intake(path, limit=500))
    page = intake(path, limit=3)
    seen = lines_of(page)
    with open(path, "ab") as fh:
        fh.write(b'{"type":"queue-operation","operation":"enqueue"}\n')
        fh.write(
            json.dumps(
                {"parentUuid": None, "type": "user", "uuid": "zz", "message": {"role": "user", "content": "new"}}
            ).encode()
            + b"\n"
        )
    before = page["nextBeforeLine"]
    while before is not None:
        page = intake(path, before_line=before, limit=3)
        seen += lines_of(page)
        before = page["nextBeforeLine"]
    assert seen == expected


def test_index_survives_a_deleted_cache(tmp_path):
    """Removing the cache directory only costs a rebuild."""
    path = fixture("tools")
    intake(path)
    for root, _dirs, files in os.walk(os.environ["AUTOPILOT_HOME"]):
        for name in files:
            os.unlink(os.path.join(root, name))
    assert intake(path)["diagnostics"]["index"] == "built"


def test_empty_transcript_gives_an_empty_answer(tmp_path):
    """A transcript Claude has only just created reads as no entries, no checkpoint, no cursor."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"")
    answer = intake(path)
    assert (answer["entries"], answer["checkpoint"], answer["nextBeforeLine"], answer["lastPrompt"]) == (
        [],
        None,
        None,
        None,
    )
    assert answer["counts"]["lines"] == 0


def test_bookkeeping_only_transcript_has_no_entries(tmp_path):
    """A file of queue and mode rows (a session that never reached the model) has counts but no entries."""
    t = Transcript()
    t.meta("queue-operation", operation="enqueue", timestamp="2026-07-19T10:00:00.000Z", content="hi")
    t.meta("mode", mode="normal")
    answer = intake(t.write(tmp_path / "t.jsonl"))
    assert (answer["entries"], answer["counts"]["rowTypes"]) == ([], {"mode": 1, "queue-operation": 1})
    assert answer["firstTimestamp"] == "2026-07-19T10:00:00.000Z"
