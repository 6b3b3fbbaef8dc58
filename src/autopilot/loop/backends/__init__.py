"""Codex backends: one interface, two real implementations (the Codex CLI and the Responses API).

A backend sends one prompt and returns the answer with the tokens it used (:class:`Usage`);
what those tokens cost is the run's business (``loop/budget.py``).
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable

    from autopilot.config import Config

    class Backend(Protocol):
        """Sends one prompt that must be answered as JSON matching ``schema``.

        ``timeout`` bounds the whole send: connecting, every retry and its backoff, reading a
        server that answers one byte at a time. When it runs out the send raises an InfraError of
        kind ``timeout`` (a codex process is killed with its process group); nothing outlives it.
        ``effort`` is the reasoning effort to ask for (low … xhigh); None leaves the model's default.
        """

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
            effort: str | None = None,
        ) -> Reply: ...


class _Value:
    """A small immutable record: equal to another of its class with the same fields, hashable, readable."""

    __slots__: tuple[str, ...] = ()

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Value) and other.__class__ is self.__class__ and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self.__slots__)})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")


class Usage(_Value):
    """Tokens one model call used (``input`` includes ``cached`` and ``cache_write``)."""

    __slots__ = ("input", "cached", "output", "cache_write")
    input: int
    cached: int
    output: int
    cache_write: int

    def __init__(self, input: int = 0, cached: int = 0, output: int = 0, cache_write: int = 0) -> None:
        for name, value in zip(self.__slots__, (input, cached, output, cache_write), strict=True):
            object.__setattr__(self, name, value)

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input + other.input,
            self.cached + other.cached,
            self.output + other.output,
            self.cache_write + other.cache_write,
        )

    def __sub__(self, other: Usage) -> Usage:
        return Usage(
            max(0, self.input - other.input),
            max(0, self.cached - other.cached),
            max(0, self.output - other.output),
            max(0, self.cache_write - other.cache_write),
        )

    def as_dict(self) -> dict[str, int]:
        """The counters as a plain dict."""
        return {"input": self.input, "cached": self.cached, "output": self.output, "cache_write": self.cache_write}


class Reply(_Value):
    """What one call returned: the answer text, the tokens it used, and the conversation to continue.

    ``context_tokens`` is the conversation's size after the call as the provider counts it (its last
    request's input and output: what a next call on it starts from), or None when it is not known.
    """

    __slots__ = ("text", "usage", "conversation_id", "model", "context_tokens")
    text: str
    usage: Usage
    conversation_id: str | None
    model: str | None
    context_tokens: int | None

    def __init__(
        self, text: str, usage: Usage, conversation_id: str | None, model: str | None, context_tokens: int | None = None
    ) -> None:
        for name, value in zip(self.__slots__, (text, usage, conversation_id, model, context_tokens), strict=True):
            object.__setattr__(self, name, value)


class Detached(Exception):  # noqa: N818 - an outcome, not a failure
    """A call left running at the provider because the process waiting for it had to go (the review worker at the
    session's end): its answer is fetched by id later (``loop/review.py``: ``collect``). Not a failure: nothing is
    charged or recorded until then, and the provider bills it once, when it completes."""

    def __init__(self, response_id: str) -> None:
        super().__init__(f"left running at the provider as {response_id}")
        self.response_id = response_id


class Detach:
    """How a call may be left running: ``started(response_id)`` is told its id as soon as the provider took it (so a
    process killed after that still leaves the id behind), ``leave()`` says whether to stop waiting now."""

    def __init__(self, started: Callable[[str], None], leave: Callable[[], bool]) -> None:
        self.started, self.leave = started, leave


# Set around a call that may be left running (the review worker's own reviews); None everywhere else. A context
# variable: the calls the worker relays for the Stop hook run in threads of their own, and always wait.
DETACH: ContextVar[Detach | None] = ContextVar("detach", default=None)

SERVING_RELAY = False  # set in the review worker, which serves the run's relay (loop/backends/relay.py)


def make_backend(name: str, *, run_dir: str, config: Config) -> Backend:
    """The backend called ``name``, ready to send."""
    if name == "codex-cli":
        from autopilot.loop.backends.codex_cli import CodexCLI

        return CodexCLI(run_dir=run_dir, config=config)
    if SERVING_RELAY:  # the review worker: it sends its own calls (and those it relays) with its loaded client
        from autopilot.loop.backends.responses import ResponsesBackend

        return ResponsesBackend()
    from autopilot.loop.backends.relay import RelayBackend

    return RelayBackend(run_dir)
