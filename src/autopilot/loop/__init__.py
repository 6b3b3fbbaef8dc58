"""The autopilot loop of one workspace: a goal, its plan, the current task, spend and status.

A run lives in ``$AUTOPILOT_HOME/runs/<slug>-<hash12>/``: ``state.json`` (the contract,
``state_schema.json``), ``events.jsonl`` (one line per model call) and the plan, review and
verdict files. The operations the CLI, the hooks and the dashboard share are here:

- asking Codex: :mod:`.plan`, :mod:`.review` (and :mod:`.review_worker`, its detached process),
  :mod:`.verdict`, through one exchange (:mod:`.reviewer`) with prompts from :mod:`.prompts`;
- what the answers do to a run: :mod:`.transitions` (pure transitions), :mod:`.control` (pause, resume,
  stop, the budget guard), :mod:`.status` (the statuses), :mod:`.budget` (prices and charges);
- the files: :mod:`.workspace` (one workspace's run and settings), :mod:`.state` (locked,
  validated, atomic), :mod:`.migrations` (any older ``state.json`` brought up to date);
- reading runs back: :mod:`.summary` (``status``, the dashboard), :mod:`.report` (the cost report);
- how Codex is asked: :mod:`.backends` (the Codex CLI and the Responses API).

The loop never imports the handoff (:mod:`autopilot.handoff`), nor the handoff the loop.

Importing the package loads nothing: a hook with no run never pays for it.
"""
