"""The shapes of the scripted Responses server's steps, for the type checker only.

Modules import these names under ``if TYPE_CHECKING:``. A step is a plain JSON object (scripts may
be JSON files): its keys are the server's own. The usage it states and answers with are the
Responses API's, snake_case as OpenAI spells them. Requests and response items stay plain
dicts: they are the API's JSON, read field by field.
"""

from __future__ import annotations

from typing import Any, TypedDict


class StatedUsage(TypedDict, total=False):
    """Token counts a step states instead of what the ledger would bill."""

    input_tokens: int
    output_tokens: int
    cached_tokens: int
    cache_write_tokens: int
    reasoning_tokens: int


class Step(TypedDict, total=False):
    """One scripted answer (see the server's docstring): a response, an HTTP error, a delay, a drop."""

    output: list[dict[str, Any]]  # Responses API output items
    usage: StatedUsage | None
    status: int
    error: dict[str, Any]
    delay: float
    drip: float
    drop: bool
    failed: dict[str, Any]
    headers: dict[str, str]


class InputDetails(TypedDict):
    """The cached part of a call's input tokens."""

    cached_tokens: int
    cache_write_tokens: int


class OutputDetails(TypedDict):
    """The reasoning part of a call's output tokens."""

    reasoning_tokens: int


class ResponseUsage(TypedDict):
    """A response's ``usage`` as the Responses API reports it."""

    input_tokens: int
    input_tokens_details: InputDetails
    output_tokens: int
    output_tokens_details: OutputDetails
    total_tokens: int


class ResponseObject(TypedDict, total=False):
    """A Responses API ``Response`` as the server answers it (``usage`` None while a background one runs)."""

    id: str
    object: str
    created_at: int
    status: str  # queued, in_progress, completed, failed
    background: bool
    model: str
    output: list[dict[str, Any]]
    parallel_tool_calls: bool
    tool_choice: str
    tools: list[Any]
    previous_response_id: str | None
    usage: ResponseUsage | None
    error: dict[str, Any]
