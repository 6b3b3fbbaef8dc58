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

ALL = (
    IDLE,
    RUNNING,
    DONE,
    ABORTED,
    STOPPED_BUDGET,
    STOPPED_ITERATION_LIMIT,
    PAUSED_REVIEWER_UNAVAILABLE,
    PAUSED_BLOCK_CAP,
)
PAUSED = (PAUSED_REVIEWER_UNAVAILABLE, PAUSED_BLOCK_CAP)
RESUMABLE = (*PAUSED, STOPPED_BUDGET, STOPPED_ITERATION_LIMIT)  # what `resume` continues
