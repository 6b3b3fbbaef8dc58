"""The run statuses: the one vocabulary state.json, the loop, the hooks and the CLI share.

``state_schema.json`` lists the same names in its ``status`` enum; a test keeps the two equal.
"""

IDLE = "idle"  # no run, or stopped by the user
RUNNING = "running"
DONE = "done"  # Codex judged the goal met, with evidence for every criterion
ABORTED = "aborted"  # Codex gave up, or no progress for too long
STOPPED_BUDGET = "stopped_budget"
STOPPED_ITERATION_LIMIT = "stopped_iteration_limit"
PAUSED_REVIEWER_UNAVAILABLE = "paused_reviewer_unavailable"
PAUSED_BLOCK_CAP = "paused_block_cap"
PAUSED_RATE_LIMIT = "paused_rate_limit"  # a Codex rate-limit window fell below the run's min_rate_limit_left

ALL = (
    IDLE,
    RUNNING,
    DONE,
    ABORTED,
    STOPPED_BUDGET,
    STOPPED_ITERATION_LIMIT,
    PAUSED_REVIEWER_UNAVAILABLE,
    PAUSED_BLOCK_CAP,
    PAUSED_RATE_LIMIT,
)
PAUSED = (PAUSED_REVIEWER_UNAVAILABLE, PAUSED_BLOCK_CAP, PAUSED_RATE_LIMIT)
RESUMABLE = (*PAUSED, STOPPED_BUDGET, STOPPED_ITERATION_LIMIT)  # what `resume` continues
