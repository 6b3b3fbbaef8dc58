"""The ``codex-cli`` backend: the user's Codex CLI, run read-only, one thread per run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autopilot import clock, config, paths
from autopilot.codex.sessions import find_rollout, newest_root_session, readable
from autopilot.config import SETUP_HINT, codex_binary
from autopilot.errors import CallBusy, InfraError
from autopilot.loop.backends import Reply, Usage

if TYPE_CHECKING:
    from autopilot.config import Config

TOTALS_FILE = "codex-thread-usage.json"
ExecEvent = dict[str, Any]  # one JSON line of `codex exec --json` (thread.started, item.completed, error...)
TIMEOUT_HINT = "raise AUTOPILOT_TIMEOUT or timeout_seconds in the config, or check that Codex answers"
# What codex needs from the environment to authenticate and reach its provider, and nothing else:
# the user's other secrets stay out of the reviewer's reach (its shell tools get a core set on top).
REVIEWER_ENV = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TMPDIR",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "CODEX_HOME",
    "CODEX_API_KEY",
    "CODEX_ACCESS_TOKEN",
    "CODEX_SQLITE_HOME",
    "CODEX_CA_CERTIFICATE",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
)


def reviewer_env() -> dict[str, str]:
    """The environment codex runs in: REVIEWER_ENV, the ``env_key`` of every provider in Codex's config.toml,
    and the names listed in ``$AUTOPILOT_CODEX_ENV`` (comma-separated, for what a custom setup needs)."""
    names = set(REVIEWER_ENV) | provider_keys()
    names |= {n.strip() for n in (config.env("AUTOPILOT_CODEX_ENV") or "").split(",") if n.strip()}
    return {name: os.environ[name] for name in names if name in os.environ}


def provider_keys() -> set[str]:
    """The environment variables Codex's configured model providers read their keys from."""
    from autopilot.config import toml_reader

    try:
        with open(paths.codex_home() / "config.toml", "rb") as fh:
            providers = toml_reader("reading Codex's providers").load(fh).get("model_providers")
    except (OSError, ValueError):
        return set()
    if not isinstance(providers, dict):
        return set()
    return {str(p["env_key"]) for p in providers.values() if isinstance(p, dict) and isinstance(p.get("env_key"), str)}


LOCK_WAIT_S = 120.0
ROLLOUT_TAIL = 512 * 1024


def _classify(text: str) -> str:
    import re

    low = text.lower()
    if "no rollout found" in low or ("failed to resolve rollout path" in low and "does not exist" in low):
        return "thread_missing"  # the second is codex 0.145's: the thread is in its database, its file is gone
    if re.search(r"\b401\b|unauthori[sz]ed|authentication|not logged in", low):
        return "auth"
    if re.search(r"\b429\b|rate limit|quota|usage limit", low):
        return "rate_limit"
    if "timed out" in low or "timeout" in low:
        return "timeout"
    if re.search(r"\b5\d\d\b|high demand|server error", low):
        return "server"
    return "exit_status"


def _stderr_reason(stderr: str) -> str:
    """The line of codex's stderr that says what went wrong (it may end in a stack backtrace)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("Error") or "error:" in line.lower():
            return line
    return lines[-1] if lines else "no output"


def usage_from_event(raw: dict[str, Any]) -> Usage:
    """A Usage from ``turn.completed.usage`` or a rollout ``total_token_usage`` object."""
    return Usage(
        input=int(raw.get("input_tokens") or 0),
        cached=int(raw.get("cached_input_tokens") or 0),
        output=int(raw.get("output_tokens") or 0),
        cache_write=int(raw.get("cache_write_input_tokens") or 0),
    )


def rollout_total(thread_id: str) -> Usage | None:
    """The thread's running token total as its rollout last recorded it."""
    path = find_rollout(thread_id)
    if path is None:
        return None
    path = readable(path)
    total: Usage | None = None
    with open(path, "rb") as fh:
        for line in fh:
            if b'"token_count"' not in line:
                continue
            try:
                info = (json.loads(line).get("payload") or {}).get("info") or {}
            except ValueError:
                continue
            if info.get("total_token_usage"):
                total = usage_from_event(info["total_token_usage"])
    return total


def _tail(thread_id: str) -> bytes:
    """The last ROLLOUT_TAIL bytes of the thread's rollout (empty when it cannot be found)."""
    path = find_rollout(thread_id)
    if path is None:
        return b""
    path = readable(path)
    with open(path, "rb") as fh:
        fh.seek(max(0, path.stat().st_size - ROLLOUT_TAIL))
        return fh.read()


def _newest(tail: bytes, kind: bytes, pick: Callable[[dict[str, Any]], Any]) -> Any:
    """``pick(payload)`` of the newest line of ``kind`` in ``tail`` for which it is not None."""
    for line in reversed(tail.splitlines()):
        if kind in line:
            try:
                found = pick(json.loads(line).get("payload") or {})
            except (ValueError, AttributeError):
                continue
            if found is not None:
                return found
    return None


def rollout_model(thread_id: str) -> str | None:
    """The model the thread's latest turn ran on, from the tail of its rollout (``turn_context.model``)."""
    model = _newest(_tail(thread_id), b'"turn_context"', lambda p: p.get("model") or None)
    return str(model) if model else None


def rollout_context(thread_id: str) -> int | None:
    """The thread's size after its latest request as Codex counted it (that request's input and output tokens),
    from the newest ``token_count`` in its rollout; None when the rollout has none."""

    def size(payload: dict[str, Any]) -> int | None:
        last = (payload.get("info") or {}).get("last_token_usage")
        if not isinstance(last, dict):
            return None
        return int(last.get("input_tokens") or 0) + int(last.get("output_tokens") or 0)

    found = _newest(_tail(thread_id), b'"token_count"', size)
    return int(found) if found is not None else None


def configured_model() -> str | None:
    """The ``model`` in ``$CODEX_HOME/config.toml``, if it names one."""
    from autopilot.config import toml_reader

    try:
        with open(paths.codex_home() / "config.toml", "rb") as fh:
            model = toml_reader("reading Codex's model").load(fh).get("model")
    except (OSError, ValueError):
        return None
    return str(model) if isinstance(model, str) else None


class CodexCLI:
    """Runs ``codex exec`` (new thread) or ``codex exec resume`` (same thread) with a strict output schema."""

    name = "codex-cli"

    def __init__(self, *, run_dir: str, config: Config) -> None:
        self.binary = codex_binary(config)
        self.run_dir = Path(run_dir)

    def _argv(
        self, schema_path: str, conversation_id: str | None, model: str | None, cwd: str, effort: str | None = None
    ) -> list[str]:
        """The codex command line; the prompt goes on stdin (``-``): an argument is capped at 128 KiB and
        visible in ``ps`` to every local user.

        Every flag comes before ``resume`` (accepted there since codex 0.100; ``--output-schema`` after
        ``resume`` only since 0.132). The reviewer runs isolated from the user's Codex setup: their hooks
        are off for the call (``--disable hooks``) and its shell tools see only a core environment.
        The reasoning effort goes on every call, resumes included: a thread does not keep it (codex 0.171).
        """
        assert self.binary
        isolation = [
            "--disable", "hooks",
            "-c", "shell_environment_policy.inherit=core",
            # and no *KEY*, *SECRET*, *TOKEN* names either (codex 0.129-0.145 still hand their tools the
            # provider's own key whatever the policy: a known limit of those versions, see docs/bridge.md)
            "-c", "shell_environment_policy.ignore_default_excludes=false",
        ]  # fmt: skip
        common = ["--json", "--output-schema", schema_path, "--skip-git-repo-check", *isolation]
        if effort:
            common += ["-c", f'model_reasoning_effort="{effort}"']
        model_args = ["-m", model] if model else []
        if conversation_id:
            # the thread keeps its cwd; `exec resume` takes the sandbox through -c only
            return [
                self.binary,
                "exec",
                *common,
                "-c",
                'sandbox_mode="read-only"',
                *model_args,
                "resume",
                conversation_id,
                "-",
            ]
        return [self.binary, "exec", *common, "--sandbox", "read-only", "-C", cwd, *model_args, "-"]

    def _totals(self) -> dict[str, Any]:
        try:
            data = json.loads((self.run_dir / TOTALS_FILE).read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def _save_total(self, thread_id: str, total: Usage | None, baseline: Usage) -> None:
        """Record the thread's running total (a failed turn's thread with what was known before it), one writer of
        the file at a time: two turns on different threads may end together."""
        from autopilot.fsutil import atomic_write, held

        with held(self.run_dir / "codex-totals.lock"):
            totals = self._totals()
            if total is None and thread_id in totals:
                return
            totals[thread_id] = (total if total is not None else baseline).as_dict()
            atomic_write(self.run_dir / TOTALS_FILE, json.dumps(totals, sort_keys=True))

    def _baseline(self, thread_id: str | None) -> Usage:
        if not thread_id:
            return Usage()
        known = self._totals().get(thread_id)
        if isinstance(known, dict):
            return Usage(**{k: int(known.get(k, 0)) for k in ("input", "cached", "output", "cache_write")})
        return rollout_total(thread_id) or Usage()

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
        """Ask Codex once, within ``timeout`` seconds in all; per-call usage is the growth of the thread's total."""
        end = time.monotonic() + timeout
        if not self.binary or not (os.path.isfile(self.binary) or os.sep not in self.binary):
            raise InfraError(
                f"the Codex CLI was not found ({self.binary or 'codex not on PATH'})",
                kind="binary_missing",
                hint=SETUP_HINT + "; AUTOPILOT_CODEX_BIN names a binary",
            )
        try:
            return self._turn(prompt, schema_path, conversation_id, model, cwd, end, effort)
        except InfraError as exc:
            if exc.kind != "thread_missing" or not conversation_id:
                raise
        # The run's thread is gone (sessions pruned or archived): carry on in a new one.
        from autopilot.output import say

        say(f"Codex no longer has thread {conversation_id}; starting a new one")
        return self._turn(prompt, schema_path, None, model, cwd, end, effort)

    def _turn(
        self,
        prompt: str,
        schema_path: str,
        conversation_id: str | None,
        model: str | None,
        cwd: str,
        end: float,
        effort: str | None = None,
    ) -> Reply:
        from autopilot.fsutil import Lock

        self.run_dir.mkdir(parents=True, exist_ok=True)
        # One turn at a time on the run's thread: its running total must be read, grown and saved in order. A turn
        # that opens a new thread (a verdict beside a review in flight) has no total to wait for.
        # Two calls on the same thread can meet here; the later one waits a bounded time, then counts as busy.
        wait = max(0.0, min(end - time.monotonic(), LOCK_WAIT_S))
        lock = Lock(self.run_dir / "codex-thread.lock")
        if conversation_id and not lock.acquire(wait):
            raise CallBusy(
                f"another call of this run has been talking to Codex for over {LOCK_WAIT_S:.0f}s",
                hint="try again when it finishes (`codex-bridge status`)",
            )
        try:
            baseline = self._baseline(conversation_id)
            started = clock.unix()
            argv = self._argv(schema_path, conversation_id, model, cwd, effort)
            events = self._run(argv, prompt, cwd, end - time.monotonic())
            thread_id, text, total, failure = conversation_id, None, None, None
            for event in events:
                kind = event.get("type")
                if kind == "thread.started" and event.get("thread_id"):
                    thread_id = str(event["thread_id"])
                elif kind == "item.completed" and (event.get("item") or {}).get("type") == "agent_message":
                    text = str(event["item"].get("text") or "")
                elif kind == "turn.completed":
                    total = usage_from_event(event.get("usage") or {})
                elif kind in ("turn.failed", "error"):
                    failure = str((event.get("error") or {}).get("message") or event.get("message") or event)
            if not thread_id:
                found = newest_root_session(os.path.realpath(cwd), started)
                thread_id = found.thread_id if found else None
            used = (total - baseline) if total is not None else Usage()
            if thread_id:
                # Every thread the run ever opened is recorded, failed ones too, so `handoff from-codex copy`
                # never mistakes a reviewer thread for the user's own session.
                self._save_total(thread_id, total, baseline)
        finally:
            if conversation_id:
                lock.release()
        if failure or text is None:
            message = failure or "Codex ended the turn without an answer"
            raise InfraError(
                f"codex failed: {message[:500]}",
                kind=_classify(message),
                hint="see `codex-bridge status`; the run pauses after repeated failures",
            ).with_usage(used)
        # With no model configured Codex picks one; price the call by the model the rollout names.
        return Reply(
            text=text,
            usage=used,
            conversation_id=thread_id,
            model=model or (rollout_model(thread_id) if thread_id else None) or configured_model(),
            context_tokens=rollout_context(thread_id) if thread_id else None,
        )

    def _run(self, argv: list[str], prompt: str, cwd: str, timeout: float) -> list[ExecEvent]:
        if timeout <= 0:
            raise InfraError("no time was left to ask codex", kind="timeout", hint=TIMEOUT_HINT)
        try:
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env=reviewer_env(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
            raise InfraError(f"cannot run {argv[0]}: {exc}", kind="binary_missing", hint=SETUP_HINT) from None
        except OSError as exc:  # resources (EAGAIN, ENOMEM...): not a missing binary
            raise InfraError(f"cannot start {argv[0]}: {exc}", kind="spawn_failed") from None
        try:
            events, err = _exchange(proc, prompt.encode("utf-8"), timeout)
        except BaseException:
            # Whatever ends the call (a deadline, Codex that cannot answer, SIGTERM, Ctrl-C): codex runs in a session
            # of its own, so nothing else would stop it.
            _kill_group(proc)
            raise
        finally:
            for pipe in (proc.stdin, proc.stdout, proc.stderr):  # Popen closes them only in communicate()
                if pipe is not None:
                    pipe.close()
        if proc.returncode != 0:
            detail = next(
                (
                    str((e.get("error") or {}).get("message") or e.get("message"))
                    for e in reversed(events)
                    if e.get("type") in ("turn.failed", "error")
                ),
                "",
            )
            message = detail or _stderr_reason(err.decode("utf-8", "replace"))
            raise InfraError(f"codex exited with status {proc.returncode}: {message[:500]}", kind=_classify(message))
        return events


# Codex prints `thread.started` as soon as it runs (within a second, codex 0.129-0.171): one that says nothing for
# this long is hung, whatever the call's own deadline.
START_S = 20.0
# What codex 0.171 prints, and then waits for ever, when it cannot reach its provider (no network, a server that is
# not there): an `error` event while the turn goes on.
OFFLINE = "waiting for network"
OFFLINE_HINT = (
    "Codex cannot reach its model provider: check the network, `codex login` (or the provider's base_url in "
    "$CODEX_HOME/config.toml), then try again"
)


def _exchange(proc: subprocess.Popen[bytes], prompt: bytes, timeout: float) -> tuple[list[ExecEvent], bytes]:
    """Give codex the prompt and read its events until it exits (its JSON events and stderr); a codex that starts no
    thread within START_S, says it cannot reach its provider, or outlasts ``timeout`` raises InfraError."""
    import selectors

    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    start = time.monotonic()
    end = start + timeout
    events: list[ExecEvent] = []
    out, err = bytearray(), bytearray()
    sel = selectors.DefaultSelector()
    os.set_blocking(proc.stdin.fileno(), False)
    if prompt:
        sel.register(proc.stdin, selectors.EVENT_WRITE)
    else:
        proc.stdin.close()
    sel.register(proc.stdout, selectors.EVENT_READ)
    sel.register(proc.stderr, selectors.EVENT_READ)
    sent = 0
    try:
        while sel.get_map():
            now = time.monotonic()
            if now >= end:
                raise InfraError(f"codex did not answer within {timeout:.0f}s", kind="timeout", hint=TIMEOUT_HINT)
            if not events and now - start >= START_S:
                raise InfraError(
                    f"codex started no thread within {START_S:.0f}s (it printed nothing)",
                    kind="timeout",
                    hint="check that `codex exec` runs in a terminal; AUTOPILOT_CODEX_BIN names another binary",
                )
            wait = min(end, start + START_S) - now if not events else end - now
            for key, _ in sel.select(max(0.0, wait)):
                if key.fileobj is proc.stdin:
                    try:
                        sent += os.write(proc.stdin.fileno(), prompt[sent : sent + 65536])
                    except BrokenPipeError:
                        sent = len(prompt)
                    if sent >= len(prompt):
                        sel.unregister(proc.stdin)
                        proc.stdin.close()
                    continue
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                elif key.fileobj is proc.stderr:
                    err += chunk[: max(0, (1 << 20) - len(err))]  # enough to say why; never unbounded
                else:
                    out += chunk
                    lines = out.split(b"\n")
                    out[:] = lines.pop()
                    for line in lines:
                        _take(line, events)
    finally:
        sel.close()
    if out:
        _take(bytes(out), events)
    try:
        proc.wait(timeout=max(0.1, end - time.monotonic()))
    except subprocess.TimeoutExpired:  # its output closed, but it goes on
        raise InfraError(f"codex did not exit within {timeout:.0f}s", kind="timeout", hint=TIMEOUT_HINT) from None
    return events, bytes(err)


def _take(line: bytes | bytearray, events: list[ExecEvent]) -> None:
    """Add one line of codex's output to ``events`` if it is a JSON event; raise when it says Codex is offline."""
    try:
        event = json.loads(line)
    except ValueError:
        return
    if not isinstance(event, dict):
        return
    events.append(event)
    if event.get("type") == "error" and OFFLINE in str(event.get("message") or ""):
        raise InfraError(f"codex failed: {str(event['message'])[:300]}", kind="network", hint=OFFLINE_HINT)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(timeout=2)
            return
        except subprocess.TimeoutExpired:
            continue
