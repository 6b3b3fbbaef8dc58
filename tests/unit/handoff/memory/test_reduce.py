"""The deterministic reducer: observations and checkpoints in, the session's active state out."""

from __future__ import annotations

import copy
import random

from autopilot.handoff.memory.reduce import reduce
from autopilot.handoff.transcripts.evidence import constraints_in


def obs(kind: str, at: str, **fields):
    return {
        "v": 1,
        "at": f"2026-12-01T10:{at}Z",
        "agent": "claude",
        "event": "x",
        "via": "hook",
        "kind": kind,
        **fields,
    }


def cp(at: str, **body):
    full = {"objective": "O", "constraints": [], "next_action": "N", "unresolved": [], "completed": [], **body}
    return {"at": f"2026-12-01T10:{at}Z", "sha256": f"sha256:{at}", "checkpoint": full, "claim": "claim"}


def run(at: str, command: str, exit_code, output: str = "", **fields):
    return obs("run", at, command=command, exit=exit_code, output=output, **fields)


def texts(items):
    return [i["text"] for i in items]


def test_without_a_checkpoint_the_first_request_is_the_objective():
    """The first typed request (not a slash command) is the objective, labelled as such."""
    state = reduce(
        [obs("request", "00:00", prompt="/model opus"), obs("request", "00:01", prompt="Fix the parser")], []
    )
    assert (state["objective"]["text"], state["objective"]["source"]) == ("Fix the parser", "first-request")


def test_a_checkpoint_supplies_objective_constraints_and_next_action():
    """The newest checkpoint's objective, constraints and next action win over the first request."""
    state = reduce(
        [obs("request", "00:00", prompt="hello")],
        [
            cp("01:00", objective="Old", next_action="a"),
            cp("02:00", objective="New", constraints=["c1"], next_action="b"),
        ],
    )
    assert (state["objective"]["text"], texts(state["constraints"]), state["nextAction"]["text"]) == (
        "New",
        ["c1"],
        "b",
    )
    assert state["checkpoint"]["count"] == 2 and state["checkpoint"]["at"] == "2026-12-01T10:02:00Z"


def test_unresolved_items_stay_open_until_completed():
    """An item a later checkpoint does not repeat stays open (marked not restated); only completing it closes it."""
    state = reduce(
        [],
        [
            cp("01:00", unresolved=["parser crash", "docs"]),
            cp("02:00", unresolved=["docs"]),
            cp("03:00", unresolved=[], completed=["Docs."]),
        ],
    )
    assert [(u["text"], u["restated"]) for u in state["unresolved"]] == [("parser crash", False)]
    assert texts(state["completed"]) == ["Docs."]


def test_completed_items_are_kept_once():
    """The same completed item in several checkpoints (spacing and case aside) is listed once."""
    state = reduce([], [cp("01:00", completed=["wrote tests"]), cp("02:00", completed=["Wrote  tests", "fixed bug"])])
    assert texts(state["completed"]) == ["wrote tests", "fixed bug"]


def test_a_reopened_item_leaves_completed():
    """An item listed unresolved after it was completed is open again, and no longer completed."""
    state = reduce([], [cp("01:00", completed=["fix bug"]), cp("02:00", unresolved=["fix bug"])])
    assert (texts(state["unresolved"]), state["completed"]) == (["fix bug"], [])


def test_a_later_failing_run_supersedes_an_earlier_pass():
    """The newest run of a command decides its outcome; the superseded one is named."""
    state = reduce([run("00:01", "pytest -q", 0, "3 passed"), run("00:02", "pytest -q", 1, "1 failed, 2 passed")], [])
    (v,) = state["validation"]
    assert (v["outcome"], v["previous"], v["runs"]) == ("fail", "pass", 2)
    assert texts(state["unresolved"]) == ["`pytest -q` fails (1 failed, 2 passed)"]


def test_an_empty_masked_run_does_not_count_as_a_pass():
    """`pytest … || true` that ran no test leaves the validation open, after an earlier pass too."""
    state = reduce([run("00:01", "pytest -q", 0, "3 passed"), run("00:02", "pytest -q || true", 0, "no tests ran")], [])
    assert state["validation"][0]["outcome"] == "no-tests" and state["unresolved"]


def test_a_failure_after_the_checkpoint_is_the_next_action():
    """A validation that fails after the newest checkpoint becomes the next action (observed, naming the claim)."""
    state = reduce([run("03:00", "pytest", 1, "1 failed")], [cp("02:00", next_action="write docs")])
    assert state["nextAction"] == {
        "text": "make `pytest` pass: it fails (1 failed)",
        "source": "observed",
        "at": "2026-12-01T10:03:00Z",
        "checkpointSaid": "write docs",
    }


def test_a_failure_before_the_checkpoint_leaves_its_next_action():
    """A failure the checkpoint already knew about does not override its next action."""
    state = reduce([run("01:00", "pytest", 1, "1 failed")], [cp("02:00", next_action="fix the test")])
    assert (state["nextAction"]["text"], state["nextAction"]["source"]) == ("fix the test", "checkpoint")


def test_current_work_lists_files_edited_since_the_checkpoint():
    """Files edited after the newest checkpoint are the current work, newest first, each once."""
    edits = [
        obs("edit", "01:00", path="/old.py", tool="Edit", result="ok"),
        obs("edit", "03:00", path="/a.py", tool="Edit", result="ok"),
        obs("edit", "04:00", path="/b.py", tool="Write", result="error"),
        obs("edit", "05:00", path="/a.py", tool="Edit", result="ok"),
    ]
    state = reduce(edits, [cp("02:00")])
    assert [e["path"] for e in state["currentWork"]["editedSinceCheckpoint"]] == ["/a.py", "/b.py"]
    assert (state["edits"]["total"], state["edits"]["files"], state["edits"]["failed"]) == (4, 3, 1)


def test_a_hook_and_a_recovered_run_with_one_id_count_once_with_the_exit_code():
    """The same call seen by a hook (no exit code) and by recovery (exit 1) is one run that failed."""
    hook = run("00:05", "pytest", None, "", id="call_1")
    recovered = {**run("00:04", "pytest", 1, "Process exited with code 1", id="call_1"), "via": "recover"}
    state = reduce([hook, recovered], [])
    assert [(v["outcome"], v["runs"]) for v in state["validation"]] == [("fail", 1)]


def test_compactions_are_counted_once_with_their_instructions():
    """PreCompact, SessionStart(compact) and PostCompact of one compaction make one entry carrying its instructions."""
    state = reduce(
        [
            obs("compact", "00:00", phase="pre", trigger="manual", instructions="keep the parser"),
            obs("session", "00:10", source="compact"),
            obs("compact", "00:11", phase="post", trigger="manual"),
            obs("compact", "30:00", phase="pre", trigger="auto"),  # PreCompact alone: nothing was compacted
        ],
        [],
    )
    assert [(c["trigger"], c.get("instructions")) for c in state["compactions"]] == [("manual", "keep the parser")]


def test_model_changes_come_from_any_event_naming_a_model():
    """A model switch, or a later event naming another model, is a change; repeating one is not."""
    state = reduce(
        [
            obs("session", "00:00", source="startup", model="m1"),
            obs("turn", "01:00", model="m1"),
            obs("model", "02:00", model="m2", **{"from": "m1"}),
            obs("turn", "03:00", model="m2"),
        ],
        [],
    )
    assert (state["model"], [(c["from"], c["to"]) for c in state["modelChanges"]]) == ("m2", [("m1", "m2")])


def test_reduction_is_deterministic_whatever_the_write_order():
    """Shuffled logs (recovered lines are appended late) reduce to the same state."""
    log = [
        obs("request", "00:00", prompt="Fix it. Never break the API."),
        obs("edit", "01:00", path="/a.py", tool="Edit", result="ok", id="t1:/a.py"),
        run("02:00", "pytest", 1, "1 failed", id="t2"),
        obs("compact", "03:00", phase="post", trigger="auto"),
        run("04:00", "pytest", 0, "2 passed", id="t3"),
    ]
    cps = [cp("01:30", unresolved=["u1"]), cp("05:00", completed=["u1"])]
    expected = reduce(copy.deepcopy(log), copy.deepcopy(cps))
    for seed in range(5):
        shuffled = log[:]
        random.Random(seed).shuffle(shuffled)
        assert reduce(shuffled, cps) == expected


def test_constraints_are_taken_from_the_first_request_by_wording():
    """Sentences with must, never, only, without, keep... are the first request's constraints."""
    prompt = "Add a --json flag. Never change the CSV output.\n- keep it under 100 lines\nThanks!"
    assert constraints_in(prompt) == ["Never change the CSV output.", "keep it under 100 lines"]


# The agent's own stated next steps, against the checkpoint and the failing validations.


def test_stated_steps_newer_than_the_checkpoint_are_the_next_action_and_steps():
    """The first stated step is the next action (labelled stated); all steps are kept."""
    state = reduce([obs("turn", "05:00", next="fix the lexer\nupdate NOTES.md")], [cp("01:00", next_action="N")])
    assert state["nextAction"]["text"] == "fix the lexer" and state["nextAction"]["source"] == "stated"
    assert state["nextSteps"]["steps"] == ["fix the lexer", "update NOTES.md"]


def test_a_newer_checkpoint_supersedes_the_stated_steps():
    """Steps stated before the newest checkpoint are not the plan any more: the checkpoint is."""
    state = reduce([obs("turn", "01:00", next="old step")], [cp("05:00", next_action="the checkpoint's step")])
    assert state["nextSteps"] is None and state["nextAction"]["text"] == "the checkpoint's step"


def test_the_next_action_names_every_failing_validation():
    """Two validations that fail after the checkpoint are both in the next action, not only the newest."""
    state = reduce(
        [run("02:00", "pytest tests/test_a.py", 1, "1 failed"), run("03:00", "pytest tests/test_b.py", 1, "1 failed")],
        [cp("01:00")],
    )
    text = state["nextAction"]["text"]
    assert "`pytest tests/test_a.py` pass" in text and "`pytest tests/test_b.py` pass" in text
