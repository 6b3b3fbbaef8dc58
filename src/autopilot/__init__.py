"""codex-autopilot: Codex plans, reviews and steers Claude Code; either agent can pick up the other's work."""

__version__ = "0.1.0"
