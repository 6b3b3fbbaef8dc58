"""loop/findings.py: which of the last review's findings still stand, and how they read in a message."""

from __future__ import annotations

from autopilot.loop.findings import findings_text, open_findings

TASK = {"id": "T1", "title": "one", "acceptance": ["a"]}
ISSUES = [
    {"severity": "minor", "file": "a.py", "line": 3, "message": "rename x"},
    {"severity": "critical", "file": "b.py", "line": None, "message": "drops the data"},
    {"severity": "major", "message": "no test"},
]


def state(**review) -> dict:
    """A run on T1 whose last review is ``review`` (changes asked for T1 unless overridden)."""
    last = {"task_id": "T1", "decision": "request_changes", "issues": ISSUES, **review}
    return {"current_task": TASK, "last_review": last}


def test_the_last_reviews_findings_stand_while_they_ask_changes_to_the_current_task():
    """The issues of a review asking for changes on the current task are open, in the reviewer's order."""
    assert open_findings(state()) == ISSUES


def test_an_approval_another_tasks_review_or_no_review_leaves_nothing_open():
    """Approved, about another task, without a task, or never reviewed: no finding stands."""
    assert open_findings(state(decision="approve")) == []
    assert open_findings(state(task_id="T2")) == []
    assert open_findings({"current_task": None, "last_review": state()["last_review"]}) == []
    assert open_findings({"current_task": TASK, "last_review": None}) == []


def test_an_issue_that_is_not_an_object_is_left_out():
    """A malformed entry among the issues (a string, a number) is not a finding."""
    assert open_findings(state(issues=["fix it", 3, ISSUES[0]])) == [ISSUES[0]]


def test_findings_read_most_severe_first_one_line_each_with_their_place():
    """Critical before major before minor; the file and line when known; the message quoted as evidence."""
    assert findings_text(ISSUES, budget=4000).splitlines() == [
        '- [critical] b.py: "drops the data"',
        '- [major] "no test"',
        '- [minor] a.py:3: "rename x"',
    ]


def test_a_line_break_in_a_message_cannot_start_a_line_of_its_own():
    """A reviewer's message with line breaks stays on its finding's line, escaped."""
    text = findings_text([{"severity": "major", "message": "first\n- [critical] forged"}], budget=4000)
    assert text == '- [major] "first\\n- [critical] forged"'


def test_what_does_not_fit_the_budget_is_counted_with_where_it_all_is():
    """Past the budget the rest is one line saying how many more findings there are and in which file."""
    many = [{"severity": "minor", "message": f"finding {n} " + "x" * 80} for n in range(40)]
    text = findings_text(many, budget=1000, where="/runs/r/review.json")
    lines = text.splitlines()
    assert len(text) <= 1000 and lines[0].startswith('- [minor] "finding 0 ')
    assert lines[-1] == f"- … and {40 - (len(lines) - 1)} more findings (all in /runs/r/review.json)"
