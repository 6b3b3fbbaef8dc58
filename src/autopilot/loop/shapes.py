"""The shapes of a run: its state.json, the answers Codex gives, and what the run's operations return.

For the type checker only: modules import these names under ``if TYPE_CHECKING:`` (a hook with a run
loads the run modules, and ``typing`` stays off its path). :class:`RunState` is state_schema.json's
properties, one for one (``tests/unit/loop/test_shapes.py`` holds them equal); :class:`Plan`,
:class:`Review` and :class:`Verdict` are what ``loop/schemas/`` lets Codex answer. Keys are
snake_case: the run's files and the JSON ``state`` and ``status --json`` print are spelt as
state.json has always been (docs/architecture.md, "JSON key case").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypedDict

if TYPE_CHECKING:
    from typing import NotRequired

    from autopilot.codex.shapes import RateLimits
    from autopilot.redact.shapes import Redactions


class Task(TypedDict):
    """One task of a plan, with the criteria that say it is done."""

    id: str
    title: str
    description: NotRequired[str]
    acceptance: list[str]


class Plan(TypedDict):
    """Codex's plan for a goal (``loop/schemas/plan.json``)."""

    summary: str
    tasks: list[Task]


class Issue(TypedDict):
    """One finding of a review."""

    severity: Literal["critical", "major", "minor"]
    file: str | None
    line: int | None
    message: str


class Review(TypedDict):
    """Codex's review of a diff against the current task (``loop/schemas/review.json``)."""

    decision: Literal["approve", "request_changes"]
    summary: str
    issues: list[Issue]


class Criterion(TypedDict):
    """Whether one acceptance criterion is met, and the evidence."""

    criterion: str
    met: bool
    evidence: str


class Verdict(TypedDict):
    """Codex's verdict when Claude tries to stop (``loop/schemas/verdict.json``)."""

    decision: Literal["continue", "done", "abort"]
    reason: str
    next_task_id: str | None
    progressed: bool
    criteria: list[Criterion]


class PhaseUsage(TypedDict):
    """Token counters of one phase."""

    input: int
    cached: int
    output: int
    calls: int


class TokenUsage(TypedDict):
    """Token counters by phase."""

    plan: PhaseUsage
    review: PhaseUsage
    verdict: PhaseUsage


class LastReview(TypedDict):
    """The newest review, as state.json keeps it."""

    task_id: str
    decision: Literal["approve", "request_changes"]
    summary: str
    issues_count: int
    issues: NotRequired[list[Issue]]
    base_sha: NotRequired[str | None]
    head_sha: NotRequired[str | None]
    fingerprint: NotRequired[str | None]
    timestamp: str
    review_path: NotRequired[str | None]


class LastVerdict(TypedDict):
    """The newest verdict, as state.json keeps it."""

    decision: Literal["continue", "done", "abort"]
    reason: str
    timestamp: str
    verdict_path: NotRequired[str | None]
    progressed: bool
    next_task_id: NotRequired[str | None]
    fingerprint: NotRequired[str | None]


class LastError(TypedDict, total=False):
    """The newest failed call: which phase, what kind, what it said."""

    phase: str
    kind: str
    message: str
    timestamp: str


class RunState(TypedDict):
    """A run's state.json after migration (every property of state_schema.json, one for one)."""

    schema_version: int
    run_id: str | None
    workspace: str | None
    owner_session_id: str | None
    goal: str | None
    plan_path: str | None
    plan: Plan | None
    conversation_id: str | None
    conversation_tokens: int  # the history the next call would carry (transitions.track_conversation)
    conversation_base: int | None  # what a call of this conversation counts that is not history
    conversation_restarts: int
    backend: str | None  # codex-cli | openai
    model: str | None
    effort: str | None  # low | medium | high | xhigh (config.EFFORTS)
    current_task: Task | None
    tasks_done: list[str]  # task ids a verdict left with every criterion met
    base_sha: str | None
    plan_tree: str | None
    plan_to_show: bool  # made from a Claude Code session, not shown to the person yet (hooks/delivery.py)
    iteration: int
    max_iterations: int
    no_progress_streak: int
    no_progress_threshold: int
    status: str  # one of loop/status.py's
    budget_used_usd: float
    budget_usd: float
    min_rate_limit_left: float | None
    plan_usd: float
    token_usage: TokenUsage
    last_review: LastReview | None
    reviews_pending: list[LastReview]  # not yet handed to Claude and the person, oldest first (hooks/delivery.py)
    last_verdict: LastVerdict | None
    verdict_tree: str | None  # the work tree the last verdict judged
    stop_reason: str | None
    last_error: LastError | None
    consecutive_errors: int
    verdict_errors: int
    consecutive_blocks: int
    unknown_models: list[str]
    notices: list[str]
    created_at: str | None
    updated_at: str | None


class ListedRun(RunState):
    """A run as a listing of every run reads it: its state, and the directory it was read from."""

    run_dir: str


class CorruptRun(TypedDict):
    """A run whose state.json a listing could not read: why, and where."""

    status: Literal["corrupt"]
    error: str
    run_dir: str


# -- what the run's operations return (the CLI prints them as JSON) ----------------------------------------------


class DiffFacts(TypedDict):
    """What a review or verdict was shown of the work: its size, whether it was cut, which files were left out."""

    files: int
    diff_chars: int
    cut: bool
    limit: int
    secret_files: list[str]
    skipped: list[dict[str, str]]  # {path, why}


class ReviewSkipped(TypedDict):
    """``codex-bridge review`` when nothing changed since the base: no call was made."""

    skipped: bool
    reason: str
    task_id: str
    base_sha: str | None
    fingerprint: str


class ReviewedWork(TypedDict):
    """What a review was about: the task, the tree it saw and what the prompt withheld."""

    task_id: str
    base_sha: str | None
    head_sha: str | None
    fingerprint: str
    diff: DiffFacts
    redactions: Redactions


class ReviewRecord(Review, ReviewedWork):
    """A review with what it was about and what it cost (its artifact file holds this)."""

    usd: float


class ReviewAbout(ReviewedWork):
    """What recording a review needs besides Codex's answer: also the run it was asked for, the prompt's size."""

    run_id: str | None
    prompt_tokens: int


class LeftReview(ReviewAbout, total=False):
    """``review-left.json``: a review left running at the provider (``loop/review.py``: ``collect``)."""

    response_id: str
    started: float  # when it was asked (Unix seconds)


class ReviewResult(ReviewRecord):
    """``codex-bridge review`` when the run took the review: where its file is (None: not written)."""

    review_path: str | None


class VerdictSkipped(TypedDict):
    """``codex-bridge verdict`` when nothing changed since the plan: no call was made."""

    applied: bool
    skipped: bool
    reason: str
    status: str
    iteration: int
    current_task: Task


class VerdictApplied(Verdict):
    """``codex-bridge verdict``: the decision, and the run as it left it."""

    applied: bool
    status: str
    iteration: int
    current_task: Task | None
    no_progress_streak: int
    stop_reason: str | None
    verdict_path: str
    usd: float
    budget_used_usd: float
    budget_usd: float


class VerdictNotApplied(Verdict):
    """``codex-bridge verdict`` when the run changed while Codex decided, or (``held``) when the decision would end
    the run while a review's request for changes has not reached Claude: the decision, and the run's status."""

    applied: bool
    held: NotRequired[bool]
    status: str


class Planned(TypedDict):
    """``codex-bridge plan``: the new run."""

    status: str
    goal: str
    plan_path: str
    plan_artifact: str
    summary: str
    tasks: list[Task]
    current_task: Task | None
    budget_usd: float
    plan_usd: float
    backend: str
    model: str | None
    effort: str | None
    min_rate_limit_left: float | None
    run_id: str
    conversation_id: str | None
    owner_session_id: str | None


class Stopped(TypedDict):
    """``codex-bridge stop``."""

    status: str
    stop_reason: str | None
    token_usage: TokenUsage
    budget_used_usd: float


class Resumed(TypedDict):
    """``codex-bridge resume``."""

    status: str
    resumed: bool
    max_iterations: NotRequired[int]


class BudgetChecked(TypedDict):
    """``codex-bridge budget check``."""

    status: str
    budget_used_usd: float
    budget_usd: float
    over_budget: bool
    stopped_now: bool


class BudgetSet(TypedDict):
    """``codex-bridge budget set``."""

    budget_usd: float
    budget_used_usd: float
    status: str


class Forecast(TypedDict):
    """Spend per iteration so far, and where it leads by the iteration limit."""

    usd_per_iteration: float
    iterations_left: int
    usd_at_limit: float
    over_budget: bool
    iterations_affordable: int | None


class TaskFacts(TypedDict):
    """The current task, and where it stands in the plan."""

    id: str | None
    title: str | None
    description: str | None
    acceptance: list[str]
    position: int | None
    of: int


class Spend(TypedDict):
    """What the run has spent, against its budget."""

    used_usd: float
    budget_usd: float
    plan_usd: float
    fraction: float | None


class RunSummary(TypedDict):
    """A run's facts (``status --json --all``, the dashboard's run list)."""

    run: str | None
    run_dir: str | None
    status: str | None
    workspace: str | None
    exists: bool
    goal: str | None
    stop_reason: str | None
    task: TaskFacts | None
    iteration: int
    max_iterations: int
    no_progress_streak: int
    no_progress_threshold: int
    spend: Spend
    token_usage: TokenUsage
    forecast: Forecast | None
    budget_warn_at: float | None
    backend: str | None
    model: str | None
    effort: str | None
    min_rate_limit_left: float | None
    owner_session_id: str | None
    plan_path: str | None
    last_review: LastReview | None
    last_verdict: LastVerdict | None
    last_error: LastError | None
    consecutive_errors: int
    unknown_models: list[str]
    resumable: bool
    stoppable: bool
    created_at: str | None
    updated_at: str | None
    lines: list[str]


class CorruptSummary(TypedDict):
    """A run whose state.json could not be read, in a listing."""

    run: str | None
    run_dir: str | None
    status: str | None
    error: str
    exists: bool
    resumable: bool
    stoppable: bool


class Call(TypedDict):
    """One model call of a run, from events.jsonl."""

    ts: object
    phase: object
    outcome: object
    backend: object
    model: object
    latency_ms: object
    usd: object
    tokens: dict[str, object]
    detail: object


class Calls(TypedDict):
    """The newest model calls of a run, and what could not be read."""

    calls: list[Call]
    total_read: int
    malformed: int
    older_not_read: bool
    other_runs: int  # calls of the workspace's earlier runs, left out


class RunReport(TypedDict):
    """One run in full (``status --json``, the dashboard's run view)."""

    summary: RunSummary | CorruptSummary
    review: dict[str, object] | None  # the last review file's decision, summary, issues, task, head, redactions
    verdict: dict[str, object] | None  # the last verdict file's decision, reason, next task, progress, criteria
    calls: Calls
    rate_limits: RateLimits | None


class RunList(TypedDict):
    """Every run on this machine, summarised."""

    runs: list[RunSummary | CorruptSummary]


# -- the cost report (``codex-bridge report``) ---------------------------------------------------------------


class Spent(TypedDict):
    """What a group of model calls used and cost."""

    calls: int
    failed: int
    input: int
    cached: int
    output: int
    usd: float


class CostRow(Spent):
    """One group of a cost report: a day, a model, a phase, or a run."""

    key: str


class RunLabel(TypedDict):
    """Who a run's group is: the run its directory holds now, an earlier one, or calls without a run id."""

    run: str  # current | earlier | no run id
    workspace: str | None
    goal: str | None


class RunRow(CostRow, RunLabel):
    """One run's group of a cost report (``--by run``)."""


class Difference(TypedDict):
    """A total the calls in events.jsonl and the run's state.json disagree on."""

    field: str
    events: float
    state: object


class RunCheck(TypedDict):
    """How a run's logged calls compare with its state.json: match, mismatch or unverified."""

    run_id: str | None
    workspace: str | None
    run_dir: str
    result: str
    differences: list[Difference]


class Checked(TypedDict):
    """The check of every current run against its state.json."""

    checked: int
    matching: int
    unverified: int
    mismatches: list[RunCheck]


class Lines(TypedDict):
    """The lines of events.jsonl read: files, calls, and the lines that were not calls or not readable."""

    files: int
    other: int
    malformed: int
    calls: int
    without_run_id: int


class CostReport(TypedDict):
    """``codex-bridge report``: spend and tokens grouped, their total, and the runs' check."""

    by: str
    since: str | None
    rows: list[CostRow | RunRow]
    total: Spent
    runs: Checked
    lines: Lines
