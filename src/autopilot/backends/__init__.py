"""Codex backends: one interface, two real implementations (the Codex CLI and the Responses API)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from autopilot.run.budget import Usage


@dataclass(frozen=True)
class Reply:
    """What one call returned: the answer text, the tokens it used, and the conversation to continue."""

    text: str
    usage: Usage
    conversation_id: str | None
    model: str | None


class Backend(Protocol):
    """Sends one prompt that must be answered as JSON matching ``schema``."""

    name: str

    def send(
        self,
        prompt: str,
        schema: dict[str, Any],
        *,
        schema_name: str,
        schema_path: str,
        conversation_id: str | None,
        model: str | None,
        cwd: str,
        timeout: float,
    ) -> Reply: ...


def make_backend(name: str, *, run_dir: str, config: dict[str, Any]) -> Backend:
    """The backend called ``name``, ready to send."""
    if name == "codex-cli":
        from autopilot.backends.codex_cli import CodexCLI

        return CodexCLI(run_dir=run_dir, config=config)
    from autopilot.backends.responses import ResponsesBackend

    return ResponsesBackend()
