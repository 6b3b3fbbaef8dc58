"""Codex's own home and processes, as codex-autopilot reads and changes them.

Reading (never writing) what Codex keeps: its saved sessions and rollouts (:mod:`.sessions`), what a
rollout's lines say (:mod:`.rollout`), the rate-limit windows they record (:mod:`.ratelimits`), and a
read-only ``codex app-server`` (:mod:`.app_server`). Changing, always reversibly and only what
codex-autopilot owns: the hooks in ``hooks.json`` (:mod:`.hooks_file`), their trust in ``config.toml``
(:mod:`.trust`) and the personal skills (:mod:`.skills`), which :mod:`.install` puts in place and takes
out together. ``assets/`` holds the skills and the stand-alone scripts Codex runs with its own Python;
their twins in the bridge are tested side by side (tests/unit/test_twins.py).
"""
