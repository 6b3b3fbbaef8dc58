"""The Codex fold: one entry per copy of a message text, whatever the order and repetition; an apply_patch settled by
its own output in a rollout with no patch event."""

from __future__ import annotations

import copy
import json
import random
from functools import cache
from pathlib import Path

import pytest

from autopilot.handoff.transcripts import codex_fold
from autopilot.handoff.transcripts.codex_fold import REP_EVENT, REP_ITEM, REP_RESPONSE, CodexFold
from autopilot.handoff.transcripts.codex_intake import intake

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "codex"
REPS = (REP_RESPONSE, REP_EVENT, REP_ITEM)


@cache
def _lines(name: str) -> list[str]:
    return (FIXTURES / name).read_text(encoding="utf-8").splitlines()


def _real(name: str, line: int) -> dict:
    return json.loads(_lines(name)[line - 1])


def representation(role: str, text: str, rep: int) -> dict:
    """One of the three ways codex writes a message, made from a real line of that kind with its text replaced."""
    if rep == REP_RESPONSE:
        row = copy.deepcopy(_real("exec_tools.jsonl", 41 if role == "user" else 30))
        row["payload"]["content"][0]["text"] = text
    elif rep == REP_EVENT:
        row = copy.deepcopy(_real("legacy_classic.jsonl", 7 if role == "user" else 14))
        row["payload"]["message"] = text
    else:
        row = copy.deepcopy(_real("exec_tools.jsonl", 29))
        row["payload"]["item"] = {"type": "UserMessage" if role == "user" else "AgentMessage", "id": "m"}
        row["payload"]["item"]["content"] = [{"type": "Text", "text": text}]
    return row


def masks_reference(events: list[tuple[str, int]]) -> list[bool]:
    """The rule as first written: each text keeps a list of masks, one per copy; a representation joins the oldest
    copy that lacks it, else starts a copy (an entry)."""
    masks: dict[str, list[int]] = {}
    out = []
    for text, rep in events:
        kept = masks.setdefault(text, [])
        for i, mask in enumerate(kept):
            if not mask & rep:
                kept[i] = mask | rep
                out.append(False)
                break
        else:
            kept.append(rep)
            out.append(True)
    return out


@pytest.mark.parametrize("seed", range(20))
def test_entries_are_those_the_list_of_masks_gave(seed):
    """Random interleavings of a few texts in every representation give the entries the mask rule gives."""
    rng = random.Random(seed)
    texts = ["continue", "Done.", "Let me run the tests.", f"text {seed}"][: rng.randint(1, 4)]
    events = [(rng.choice(texts), rng.choice(REPS)) for _ in range(rng.randint(1, 300))]
    fold = CodexFold()
    state = fold.start()
    got = [fold.row(state, n, representation("assistant", t, rep)) for n, (t, rep) in enumerate(events, 1)]
    assert got == masks_reference(events)
    assert state["entries_by_kind"].get("assistant", 0) == sum(got)


def test_a_text_repeated_all_turn_keeps_three_counts():
    """Thousands of copies of "continue" in one turn, each written three ways, are thousands of entries; what the
    fold remembers of the text stays three counts (a mask per copy, scanned by every new copy, was quadratic)."""
    fold = CodexFold()
    state = fold.start()
    entries = 0
    for n in range(3000):
        for rep in (REP_EVENT, REP_RESPONSE, REP_ITEM):
            entries += fold.row(state, n * 3 + rep, representation("user", "continue", rep))
    assert entries == 3000 == len(state["user_turns"])
    assert list(state["pending"].values()) == [[3000, 3000, 3000]]
    assert state["omitted"]["duplicateMessages"] == 6000


def test_a_turn_start_forgets_the_copies_of_the_turn_before():
    """The counts are per turn: the same text in the next turn is a new message even if it came only one way."""
    fold = CodexFold()
    state = fold.start()
    start = _real("exec_tools.jsonl", 2)
    assert start["payload"]["type"] in codex_fold.TURN_START
    seen = [fold.row(state, 1, representation("user", "continue", REP_EVENT))]
    fold.row(state, 2, start)
    seen += [fold.row(state, 3, representation("user", "continue", REP_RESPONSE))]
    assert seen == [True, True]


@pytest.mark.parametrize("seed", range(6))
def test_an_index_extended_append_after_append_holds_what_a_fresh_read_holds(tmp_path, seed):
    """A long rollout (context compactions, roll-backs, repeated texts) appended in random pieces, some ending in
    the middle of a line and some lines never finished: after every append the extended index is a fresh read's."""
    from autopilot.handoff.transcripts import jsonl
    from tests.fixtures.make_big_sessions import Shape, codex_rollout

    rng = random.Random(seed)
    made = codex_rollout(tmp_path / "made", Shape(0.5, compact_every=0.06, rewinds=3, seed=seed, scale=0.2))
    assert made.compactions >= 5 and made.rewinds == 3
    data = made.path.read_bytes()
    path = tmp_path / made.path.name
    path.write_bytes(b"")
    cuts = sorted(rng.sample(range(1, len(data)), 10))
    statuses = set()
    for start, end in zip([0, *cuts], [*cuts, len(data)], strict=True):
        with open(path, "ab") as fh:
            fh.write(data[start:end])
            if rng.random() < 0.15 and not data[start:end].endswith(b"\n"):
                fh.write(b"\n")  # a crash: the line stays cut short
        cached = jsonl.scan(path, CodexFold())
        fresh = jsonl.scan(path, CodexFold(), cache=False)
        statuses.add(cached.status)
        assert cached.state == fresh.state
        assert (list(cached.entries), list(cached.offsets), cached.malformed) == (
            list(fresh.entries),
            list(fresh.offsets),
            fresh.malformed,
        )
    assert "extended" in statuses and fresh.state["compactions"] >= 3


class _Parsed(CodexFold):
    """The same fold reading every line parsed: nothing offered raw."""

    skim_prefixes = ()


def _same_fold(path: Path) -> tuple[dict, dict]:
    from autopilot.handoff.transcripts import jsonl

    skimmed, parsed = jsonl.scan(path, CodexFold(), cache=False), jsonl.scan(path, _Parsed(), cache=False)
    assert (list(skimmed.entries), skimmed.malformed) == (list(parsed.entries), parsed.malformed)
    return skimmed.state, parsed.state


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.jsonl")))
def test_a_real_rollout_folds_the_same_skimmed_as_parsed(name):
    """Every real rollout (forks replaying their parent's history included) folds to the same state whether its
    telemetry, quiet item events and tool outputs are read from their raw bytes or parsed."""
    skimmed, parsed = _same_fold(FIXTURES / name)
    assert skimmed == parsed


@pytest.mark.parametrize("seed", range(3))
def test_a_long_rollout_folds_the_same_skimmed_as_parsed(tmp_path, seed):
    """A generated long rollout: the same state both ways, and most of its tool outputs were skimmed."""
    from tests.fixtures.make_big_sessions import Shape, codex_rollout

    made = codex_rollout(tmp_path, Shape(1.0, compact_every=0.2, rewinds=2, seed=seed, scale=0.3))
    skimmed, parsed = _same_fold(made.path)
    assert skimmed == parsed
    lines = made.path.read_bytes().splitlines()
    fold, state = CodexFold(), CodexFold().start()
    offered = [fold.skim(state, n, raw) for n, raw in enumerate(lines, 1) if raw.startswith(CodexFold.skim_prefixes)]
    assert sum(r is not None for r in offered) > len(lines) / 3


# --- An apply_patch settled by its output ---

FIXTURE = FIXTURES / "exec_tools.jsonl"
SUCCESS = "Success. Updated the following files:\nA greeting.txt\n"
PATCH = "*** Begin Patch\n*** Add File: greeting.txt\n+hello from the patch\n*** End Patch\n"


def without_patch_events(tmp_path: Path, output: object, *, as_function: bool = False) -> str:
    """codex 0.171's exec_tools rollout as older Codex versions and other tools write one: the apply_patch call and
    its output only (no FileChange item, no patch_apply_end), the output being ``output``."""
    rows = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    kept = []
    for row in rows:
        p = row.get("payload") or {}
        if p.get("type") in ("item_completed", "item_started", "patch_apply_begin", "patch_apply_end"):
            continue
        if p.get("call_id") == "call_patch_bad":
            continue  # the fixture's second patch: this test has one
        if p.get("call_id") == "call_patch1" and p.get("type") == "custom_tool_call" and as_function:
            p.update(type="function_call", arguments=json.dumps({"input": PATCH}))
            p.pop("input", None)
        if p.get("call_id") == "call_patch1" and p.get("type") == "custom_tool_call_output":
            p["output"] = output
            if as_function:
                p["type"] = "function_call_output"
        kept.append(row)
    path = tmp_path / FIXTURE.name
    path.write_text("".join(json.dumps(r) + "\n" for r in kept))
    return str(path)


def status_of(path: str) -> str:
    (found,) = [f for f in intake(path)["editedFiles"] if f["path"].endswith("greeting.txt")]
    return str(found["status"])


@pytest.mark.parametrize(
    "output, as_function, status",
    [
        ("Exit code: 0\nWall time: 0 seconds\nOutput:\n" + SUCCESS, 0, "applied"),
        (json.dumps({"output": SUCCESS, "metadata": {"exit_code": 0}}), 1, "applied"),
        ("apply_patch verification failed: greeting.txt already exists", 0, "failed"),
        (json.dumps({"output": "error: patch does not apply", "metadata": {"exit_code": 1}}), 1, "failed"),
        ("", 0, "proposed"),  # an output that says neither: still only proposed
    ],
)  # fmt: skip
def test_a_patch_is_settled_by_what_its_output_says(tmp_path, output, as_function, status):
    """A completed apply_patch (custom tool or function call) is applied, a refused one failed; one whose output
    says neither stays proposed."""
    assert status_of(without_patch_events(tmp_path, output, as_function=bool(as_function))) == status


def test_the_real_rollout_is_read_as_before():
    """codex 0.171's own rollout, with its FileChange item, still reads applied."""
    assert status_of(str(FIXTURE)) == "applied"
