"""Readers of agent transcripts (Claude Code JSONL, Codex rollouts) into bounded evidence views."""
