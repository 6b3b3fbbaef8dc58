"""Approved durable knowledge: rules and decisions a named person approved, revoked or superseded.

The third memory store, beside active task state (``handoff/memory/``) and passive evidence (``handoff/search/``).
Anyone may *propose* a candidate (an agent, a person, or a packet's constraint through the dashboard);
only a person may *approve* or *revoke* one, through one of two channels that no agent
tool reaches: the dashboard (session cookie and the person's name typed again) or
``codex-bridge durable approve | revoke`` at a terminal (a TTY, outside an agent's shell).
Hooks, skills and the scripts Codex runs never import :mod:`.store`'s deciding functions
(``tests/unit/knowledge/durable/test_store.py`` checks it). Everything lives in ``$AUTOPILOT_HOME/durable/``:
an append-only, hash-chained ``log.jsonl`` (the truth) and ``rules.json`` (the current view,
rebuilt from the log whenever it does not match the log's last hash).
"""
