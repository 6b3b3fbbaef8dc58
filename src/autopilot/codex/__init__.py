"""codex."""
