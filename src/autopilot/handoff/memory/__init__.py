"""The active memory of a live session: what an agent is doing now, kept per session and worktree.

One directory per session and worktree under ``$AUTOPILOT_HOME/handoff/active/<worktree>/<agent>-<session>/``
(never a shared "latest"), holding append-only logs and one derived file:

- ``observations.jsonl``: what the hooks saw as it happened (:mod:`.observe`, on every hook, cheap) and
  what ``handoff recover`` rebuilt from the transcript (:mod:`.recover`), each line one observation;
- ``checkpoints.jsonl``: what the agent (or the user) said about its work (:mod:`.checkpoint`): claims,
  validated against ``checkpoint_schema.json``, never proof;
- ``injections.jsonl``: what was injected into the session, when, which fields, how many bytes, from
  which source hash (:mod:`.inject`);
- ``active.json``: the reduced state (:mod:`.reduce`, a pure function of the two logs), rewritten
  atomically; a corrupt one is moved aside and rebuilt, never overwritten in place.

Nothing here calls a model. Everything a transcript or a tool wrote is evidence, quoted, never an
instruction; what leaves the machine (an injection, ``handoff active``) is redacted first.
"""
