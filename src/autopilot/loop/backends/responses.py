"""The ``openai`` backend: the Responses API through the openai SDK, strict JSON schema output."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from autopilot import config
from autopilot.errors import InfraError
from autopilot.loop.backends import DETACH, Detach, Detached, Reply, Usage

DEFAULT_MODEL = "gpt-6.2-sol"


def _retry_policy(total: float) -> dict[str, Any]:
    """Retry transient failures, but never past ``total`` seconds from now (backoff included)."""
    import time

    import tenacity
    from openai import APIConnectionError, APITimeoutError, InternalServerError, RateLimitError

    attempts = int(config.env("AUTOPILOT_RETRY_ATTEMPTS") or 4)
    base = float(config.env("AUTOPILOT_RETRY_BASE_S") or 1.0)
    cap = float(config.env("AUTOPILOT_RETRY_MAX_S") or 20.0)

    def transient(exc: BaseException) -> bool:
        if isinstance(exc, RateLimitError):
            # An exhausted quota will not come back in seconds; retrying only burns time.
            return getattr(exc, "code", None) != "insufficient_quota"
        return isinstance(exc, (InternalServerError, APITimeoutError, APIConnectionError))

    end = time.monotonic() + total

    def wait(state: tenacity.RetryCallState) -> float:
        # a backoff that would end past the deadline is cut to it (the next attempt then times out)
        return max(0.0, min(tenacity.wait_random_exponential(multiplier=base, max=cap)(state), end - time.monotonic()))

    return {
        "retry": tenacity.retry_if_exception(transient),
        "wait": wait,
        "stop": tenacity.stop_after_attempt(max(1, attempts)) | tenacity.stop_after_delay(max(0.0, total)),
        "reraise": True,
    }


def _within(seconds: float, call: Callable[[], Any], abort: Callable[[], None]) -> Any:
    """``call()``, or an InfraError of kind ``timeout`` once ``seconds`` have passed, whatever the server does.

    httpx's timeouts bound each read, not the response: a server that sends one byte a second never
    trips them. So the call runs in a worker thread; at the deadline ``abort`` closes its connection.
    """
    import threading

    result: dict[str, Any] = {}

    def target() -> None:
        try:
            result["value"] = call()
        except BaseException as exc:  # re-raised in the caller's thread
            result["error"] = exc

    worker = threading.Thread(target=target, name="openai-call", daemon=True)
    worker.start()
    worker.join(max(0.0, seconds))
    if worker.is_alive():
        with contextlib.suppress(Exception):
            abort()
        raise InfraError(
            f"OpenAI did not answer within {seconds:.0f}s (retries included)",
            kind="timeout",
            hint="raise AUTOPILOT_TIMEOUT, or check the server (it may be hung)",
        )
    if "error" in result:
        raise result["error"]
    return result["value"]


def _infra(exc: Exception) -> InfraError:
    import openai

    status = getattr(exc, "status_code", None)
    if isinstance(exc, openai.RateLimitError):
        quota = getattr(exc, "code", None) == "insufficient_quota"
        return InfraError(
            f"OpenAI {'quota exhausted' if quota else 'rate limit (429) after retries'}: {exc}",
            kind="quota" if quota else "rate_limit",
            hint="wait, or check your plan and limits",
        )
    if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
        return InfraError(
            f"OpenAI refused the credentials ({status})",
            kind="auth",
            hint="check OPENAI_API_KEY (and OPENAI_BASE_URL if you set one)",
        )
    if isinstance(exc, openai.APITimeoutError):
        return InfraError("OpenAI did not answer in time", kind="timeout", hint="raise AUTOPILOT_TIMEOUT")
    if isinstance(exc, openai.APIConnectionError):
        return InfraError(f"cannot reach OpenAI: {exc}", kind="network", hint="check the network or OPENAI_BASE_URL")
    if isinstance(exc, openai.InternalServerError):
        return InfraError(f"OpenAI server error ({status}) after retries", kind="server")
    if isinstance(exc, openai.APIStatusError):
        return InfraError(f"OpenAI rejected the request ({status}): {exc}", kind=f"http_{status}")
    return InfraError(f"OpenAI call failed: {exc}", kind="network")


class ResponsesBackend:
    """One ``responses.create`` per prompt, chained with ``previous_response_id``."""

    name = "openai"

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
    ) -> Reply:
        """Ask once (tenacity retries transient failures, all within ``timeout``); usage is what it reports."""
        import time

        import openai
        import tenacity

        if not config.env("OPENAI_API_KEY"):
            raise InfraError(
                "OPENAI_API_KEY is not set", kind="auth", hint="export OPENAI_API_KEY=... or choose --backend codex-cli"
            )
        end = time.monotonic() + timeout
        client = openai.OpenAI(max_retries=0, timeout=max(0.1, timeout))  # tenacity owns retries
        request: dict[str, Any] = {
            "model": model or DEFAULT_MODEL,
            "input": prompt,
            "text": {"format": {"type": "json_schema", "name": schema_name, "schema": schema, "strict": True}},
            "store": True,  # previous_response_id needs stored responses
        }
        if conversation_id:
            request["previous_response_id"] = conversation_id
        if effort:
            request["reasoning"] = {"effort": effort}

        def create() -> Any:
            return client.responses.create(**request)

        def ask() -> Any:
            try:
                return tenacity.Retrying(**_retry_policy(end - time.monotonic()))(create)
            except (openai.NotFoundError, openai.BadRequestError) as exc:
                # An expired or unknown previous response: start a fresh thread instead of failing.
                if not conversation_id or "previous" not in str(exc).lower():
                    raise
                request.pop("previous_response_id")
                return tenacity.Retrying(**_retry_policy(end - time.monotonic()))(create)

        detach = DETACH.get()
        try:
            if detach is None:
                response = _within(timeout, ask, client.close)
            else:  # streamed from the provider's background: its id at once, its answer as soon as it is done
                request["background"], request["stream"] = True, True
                response = _streamed(ask, client, detach, end)
        except openai.OpenAIError as exc:
            raise _infra(exc) from None
        finally:
            # its pooled connection: a process that asks again (the in-process bridge of a long test run) keeps
            # no socket of a finished call open (closing twice, after an abort, is harmless)
            client.close()
        return _reply(response, request["model"])

    def retrieve(self, response_id: str, timeout: float) -> Reply | None:
        """The answer of a call left running (:class:`~autopilot.loop.backends.Detached`), fetched by its id: None
        while the provider is still working on it. An InfraError when it failed, expired or cannot be fetched."""
        import openai

        if not config.env("OPENAI_API_KEY"):
            raise InfraError("OPENAI_API_KEY is not set", kind="auth", hint="export OPENAI_API_KEY=...")
        client = openai.OpenAI(max_retries=2, timeout=max(0.1, timeout))
        try:
            response = _within(timeout, lambda: client.responses.retrieve(response_id), client.close)
        except openai.OpenAIError as exc:
            raise _infra(exc) from None
        finally:
            client.close()
        if response.status in PENDING:
            return None
        return _reply(_completed(response), None)


PENDING = ("queued", "in_progress")  # a background response the provider is still working on
ENDED = ("response.completed", "response.failed", "response.incomplete")  # a stream's last event
LEAVE_S = 0.2  # how often a streamed background call asks whether to leave it
POLL_S = 0.25  # how soon a call in the background is first asked after; then 1.5 times longer each time
POLL_MAX_S = 2.0  # ... up to this (what the provider's guide suggests)


class _Seen:
    """What the thread reading a streamed call has seen: the call as created, its final response, or its error."""

    def __init__(self) -> None:
        import threading

        self.created: Any = None
        self.response: Any = None
        self.error: BaseException | None = None
        self.over = threading.Event()  # the stream has ended, one way or another


def _streamed(ask: Callable[[], Any], client: Any, detach: Detach, end: float) -> Any:
    """The final response of a streamed background call (``ask()`` opens the stream).

    The stream is read in a thread of its own. Its first event carries the id, handed to ``detach.started``. While it
    runs, ``detach.leave()`` is asked every LEAVE_S: when it says so, the connection is closed and :class:`Detached`
    raised, the provider still at work. A stream cut after the provider took the call is asked after by id
    (:func:`_finished`); past ``end`` (``time.monotonic()``) the call is a ``timeout``.
    """
    import threading
    import time

    seen = _Seen()

    def read() -> None:
        try:
            for event in ask():
                if event.type == "response.created" and seen.created is None:
                    detach.started(event.response.id)
                    seen.created = event.response
                elif event.type in ENDED:
                    seen.response = event.response
                    return
        except BaseException as exc:  # re-raised in the caller's thread
            seen.error = exc
        finally:
            seen.over.set()

    threading.Thread(target=read, name="openai-call", daemon=True).start()
    while not seen.over.wait(LEAVE_S):
        if time.monotonic() > end:
            client.close()
            raise InfraError("OpenAI did not answer in time (a background review)", kind="timeout")
        if seen.created is not None and detach.leave():
            client.close()
            raise Detached(seen.created.id)
    if seen.response is not None:
        return _completed(seen.response)
    if seen.created is None:
        raise seen.error or InfraError("OpenAI closed the stream before taking the call", kind="network")
    return _finished(client, seen.created, detach, end)  # the stream was cut: its id says how it ended


def _finished(client: Any, response: Any, detach: Detach, end: float) -> Any:
    """Poll a background response until it is no longer pending; :class:`Detached` as soon as ``detach`` says to
    leave it (its id was handed to ``detach.started`` already). Past ``end`` (``time.monotonic()``) the caller has
    given up on it (a timeout): the thread stops asking."""
    import time

    import openai

    wait = POLL_S
    while response.status in PENDING:
        if time.monotonic() > end:
            raise InfraError("the background response was given up on", kind="timeout")
        until = time.monotonic() + wait
        wait = min(POLL_MAX_S, wait * 1.5)  # each poll costs ~2 ms of CPU: a 30 s review is asked ~18 times
        while time.monotonic() < until:
            if detach.leave():
                raise Detached(response.id)
            time.sleep(0.05)
        try:
            response = client.responses.retrieve(response.id)
        except (openai.APIConnectionError, openai.InternalServerError, openai.RateLimitError):
            continue  # a poll that failed is asked again; the deadline (the caller's) bounds it
    return _completed(response)


def _completed(response: Any) -> Any:
    """``response`` when it completed; an InfraError (with the tokens it billed) when it failed or was cut off."""
    if response.status == "completed":
        return response
    error = getattr(response, "error", None)
    failure = InfraError(
        f"OpenAI's background response {response.id} ended {response.status}"
        + (f": {getattr(error, 'message', error)}" if error else ""),
        kind="server",
    )
    if response.usage is not None:
        failure.usage = _usage(response.usage)
    raise failure


def _usage(usage: Any) -> Usage:
    """The tokens a response reports, as the run counts them."""
    details = getattr(usage, "input_tokens_details", None)
    return Usage(
        input=int(getattr(usage, "input_tokens", 0) or 0),
        cached=int(getattr(details, "cached_tokens", 0) or 0),
        output=int(getattr(usage, "output_tokens", 0) or 0),
        cache_write=int(getattr(details, "cache_write_tokens", 0) or 0),
    )


def _reply(response: Any, model: str | None) -> Reply:
    """What a completed response returned, with the tokens it used as it reports them (``model``: the one asked
    for, when the response names none)."""
    usage = response.usage
    used = _usage(usage) if usage is not None else Usage()
    return Reply(
        text=response.output_text or "",
        usage=used,
        conversation_id=response.id,
        model=getattr(response, "model", None) or model,
        # one request per call: the conversation is what this one read and wrote
        context_tokens=used.input + used.output if usage is not None else None,
    )
