"""The ``openai`` backend: the Responses API over plain HTTP (the standard library), strict JSON-schema output.

One ``POST {OPENAI_BASE_URL}/responses`` an attempt, chained with ``previous_response_id``; tenacity owns retries.
The bridge sends a prompt and reads back the answer's text, its usage, its id and model: a few fields of one
endpoint, which the standard library's ``urllib`` carries (proxies from the environment included) for ~20 ms of
import. The openai SDK cost most of a second of CPU to import (0.45-0.7 s of wall on an idle 2-core machine, 2-4 s
under load), which every Stop hook paid before Codex was even asked, on the path the person waits on
(docs/BENCHMARKS.md, "The person's wait for Codex").
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

from autopilot import __version__, config
from autopilot.errors import InfraError
from autopilot.loop.backends import Reply, Usage

Json = dict[str, Any]  # a request or an answer of the API, read field by field
DEFAULT_MODEL = "gpt-6.2-sol"
DEFAULT_BASE_URL = "https://api.openai.com/v1"


class Failed(Exception):
    """One attempt that got no usable answer: the HTTP status (None: no answer at all) and what the API said."""

    def __init__(self, status: int | None, message: str, *, code: str | None = None, timeout: bool = False) -> None:
        super().__init__(message)
        self.status, self.code, self.timeout = status, code, timeout

    @property
    def transient(self) -> bool:
        """Whether trying again may help: a rate limit (not an exhausted quota), a server error, a timeout, a
        connection that failed or was dropped."""
        if self.status == 429:
            return self.code != "insufficient_quota"  # an exhausted quota will not come back in seconds
        return self.status is None or self.status >= 500 or self.status == 408


def _retry_policy(total: float) -> dict[str, Any]:
    """Retry transient failures, but never past ``total`` seconds from now (backoff included)."""
    import time

    import tenacity

    attempts = int(config.env("AUTOPILOT_RETRY_ATTEMPTS") or 4)
    base = float(config.env("AUTOPILOT_RETRY_BASE_S") or 1.0)
    cap = float(config.env("AUTOPILOT_RETRY_MAX_S") or 20.0)
    end = time.monotonic() + total

    def wait(state: tenacity.RetryCallState) -> float:
        # a backoff that would end past the deadline is cut to it (the next attempt then times out)
        return max(0.0, min(tenacity.wait_random_exponential(multiplier=base, max=cap)(state), end - time.monotonic()))

    return {
        "retry": tenacity.retry_if_exception(lambda exc: isinstance(exc, Failed) and exc.transient),
        "wait": wait,
        "stop": tenacity.stop_after_attempt(max(1, attempts)) | tenacity.stop_after_delay(max(0.0, total)),
        "reraise": True,
    }


def _within(seconds: float, call: Callable[[], Any], abort: Callable[[], None]) -> Any:
    """``call()``, or an InfraError of kind ``timeout`` once ``seconds`` have passed, whatever the server does.

    A socket timeout bounds each read, not the response: a server that sends one byte a second never trips it.
    So the call runs in a worker thread; at the deadline ``abort`` shuts its connection down.
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


def _infra(exc: Failed) -> InfraError:
    """The failure as the run records it (its kind decides whether it counts toward the reviewer-unavailable pause)."""
    status = exc.status
    if status == 429:
        quota = exc.code == "insufficient_quota"
        return InfraError(
            f"OpenAI {'quota exhausted' if quota else 'rate limit (429) after retries'}: {exc}",
            kind="quota" if quota else "rate_limit",
            hint="wait, or check your plan and limits",
        )
    if status in (401, 403):
        return InfraError(
            f"OpenAI refused the credentials ({status})",
            kind="auth",
            hint="check OPENAI_API_KEY (and OPENAI_BASE_URL if you set one)",
        )
    if exc.timeout or status == 408:
        return InfraError("OpenAI did not answer in time", kind="timeout", hint="raise AUTOPILOT_TIMEOUT")
    if status is None:
        return InfraError(f"cannot reach OpenAI: {exc}", kind="network", hint="check the network or OPENAI_BASE_URL")
    if status >= 500:
        return InfraError(f"OpenAI server error ({status}) after retries", kind="server")
    return InfraError(f"OpenAI rejected the request ({status}): {exc}", kind=f"http_{status}")


class Connection:
    """One HTTP exchange with the Responses API, which another thread may shut down (:meth:`abort`)."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self.url, self.headers = url, headers
        self.response: Any = None

    def post(self, body: Json, timeout: float) -> Json:
        """The answer to ``body`` as JSON; :class:`Failed` for anything else."""
        import urllib.error
        import urllib.request
        from http.client import HTTPException

        request = urllib.request.Request(self.url, json.dumps(body).encode("utf-8"), self.headers, method="POST")
        try:
            self.response = urllib.request.urlopen(request, timeout=max(0.1, timeout))  # noqa: S310 - the API's URL
            with self.response:
                raw = self.response.read()
        except urllib.error.HTTPError as exc:
            message, code = _error_of(exc)
            raise Failed(exc.code, message, code=code) from None
        except TimeoutError as exc:
            raise Failed(None, f"no answer in time ({exc})", timeout=True) from None
        except urllib.error.URLError as exc:
            timed_out = isinstance(exc.reason, TimeoutError)
            raise Failed(None, str(exc.reason), timeout=timed_out) from None
        except (OSError, HTTPException) as exc:  # dropped, reset, a body cut short
            raise Failed(None, f"{type(exc).__name__}: {exc}") from None
        try:
            answer = json.loads(raw)
        except ValueError:
            raise Failed(None, f"the answer is not JSON ({raw[:200]!r})") from None
        if not isinstance(answer, dict):
            raise Failed(None, "the answer is not a JSON object")
        return answer

    def abort(self) -> None:
        """Shut the connection down, so a read blocked on a server that drips its answer returns at once."""
        import socket

        sock = getattr(getattr(getattr(self.response, "fp", None), "raw", None), "_sock", None)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


def _error_of(exc: Any) -> tuple[str, str | None]:
    """What an error answer says (its message and code), from its JSON body when it has one."""
    try:
        body = json.loads(exc.read() or b"{}")
    except (ValueError, OSError):
        body = {}
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return f"HTTP {exc.code}", None
    code = error.get("code")
    return str(error.get("message") or f"HTTP {exc.code}"), str(code) if code else None


def output_text(answer: Json) -> str:
    """The answer's text: every ``output_text`` part of its messages, in order (what the SDK called ``output_text``)."""
    parts = []
    for item in answer.get("output") or []:
        if isinstance(item, dict) and item.get("type") == "message":
            for content in item.get("content") or []:
                if isinstance(content, dict) and content.get("type") == "output_text":
                    parts.append(str(content.get("text") or ""))
    return "".join(parts)


def usage_of(answer: Json) -> Usage | None:
    """The tokens the answer says it used (None when it says nothing)."""
    usage = answer.get("usage")
    if not isinstance(usage, dict):
        return None
    details = usage.get("input_tokens_details") or {}
    return Usage(
        input=int(usage.get("input_tokens") or 0),
        cached=int(details.get("cached_tokens") or 0),
        output=int(usage.get("output_tokens") or 0),
        cache_write=int(details.get("cache_write_tokens") or 0),
    )


class ResponsesBackend:
    """One ``POST /responses`` per prompt, chained with ``previous_response_id``."""

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

        import tenacity

        key = config.env("OPENAI_API_KEY")
        if not key:
            raise InfraError(
                "OPENAI_API_KEY is not set", kind="auth", hint="export OPENAI_API_KEY=... or choose --backend codex-cli"
            )
        end = time.monotonic() + timeout
        url = (config.env("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/") + "/responses"
        headers = {
            "Authorization": f"Bearer {key}",
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": f"codex-autopilot/{__version__}",
        }
        for variable, header in (("OPENAI_ORG_ID", "OpenAI-Organization"), ("OPENAI_PROJECT_ID", "OpenAI-Project")):
            value = config.env(variable)
            if value:
                headers[header] = value
        request: Json = {
            "model": model or DEFAULT_MODEL,
            "input": prompt,
            "text": {"format": {"type": "json_schema", "name": schema_name, "schema": schema, "strict": True}},
            "store": True,  # previous_response_id needs stored responses
        }
        if conversation_id:
            request["previous_response_id"] = conversation_id
        if effort:
            request["reasoning"] = {"effort": effort}
        connection = Connection(url, headers)

        def create() -> Json:
            return connection.post(request, end - time.monotonic())

        def ask() -> Json:
            try:
                return tenacity.Retrying(**_retry_policy(end - time.monotonic()))(create)
            except Failed as exc:
                # An expired or unknown previous response: start a fresh thread instead of failing.
                if exc.status not in (400, 404) or not conversation_id or "previous" not in str(exc).lower():
                    raise
                request.pop("previous_response_id")
                return tenacity.Retrying(**_retry_policy(end - time.monotonic()))(create)

        try:
            answer = _within(timeout, ask, connection.abort)
        except Failed as exc:
            raise _infra(exc) from None
        used = usage_of(answer)
        return Reply(
            text=output_text(answer),
            usage=used or Usage(),
            conversation_id=str(answer.get("id") or "") or None,
            model=str(answer.get("model") or "") or request["model"],
            # one request per call: the conversation is what this one read and wrote
            context_tokens=used.input + used.output if used is not None else None,
        )
