"""The handoff: either agent picks up the other's live work, and a long session keeps its memory.

Its parts, lowest first (each imports only those before it; ``tests/unit/test_architecture.py`` checks it):

- :mod:`.transcripts`: readers of Claude Code transcripts and Codex rollouts into bounded evidence views;
- :mod:`.sources`: read-only session sources (local files, Codex's app server) and the project's identity;
- :mod:`.memory`: the active memory of live sessions (hook observations, checkpoints, injections);
- :mod:`.packets`: immutable, content-addressed handover packets (export, inspect, import);
- :mod:`.search`: the evidence index over packets and memory, and its ranked answers.

The handoff never imports the autopilot loop (:mod:`autopilot.loop`), nor the loop the handoff. Importing the
package loads nothing.
"""
