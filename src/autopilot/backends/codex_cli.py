"""The ``codex-cli`` backend: the user's Codex CLI, run read-only, one thread per run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from autopilot import paths
from autopilot.backends import Reply
from autopilot.budget import Usage
from autopilot.config import SETUP_HINT, codex_binary
from autopilot.errors import InfraError

TOTALS_FILE = "codex-thread-usage.json"


def _classify(text: str) -> str:
    low = text.lower()
    if "401" in low or "unauthorized" in low or "authentication" in low or "not logged in" in low:
        return "auth"
    if "429" in low or "rate limit" in low or "quota" in low or "usage limit" in low:
        return "rate_limit"
    if "timed out" in low or "timeout" in low:
        return "timeout"
    if "high demand" in low or " 50" in low or "server error" in low:
        return "server"
    return "exit_status"


def usage_from_event(raw: dict[str, Any]) -> Usage:
    """A Usage from ``turn.completed.usage`` or a rollout ``total_token_usage`` object."""
    return Usage(input=int(raw.get("input_tokens") or 0), cached=int(raw.get("cached_input_tokens") or 0),
                 output=int(raw.get("output_tokens") or 0),
                 cache_write=int(raw.get("cache_write_input_tokens") or 0))


def find_rollout(thread_id: str) -> Path | None:
    """The rollout file of a thread under ``$CODEX_HOME/sessions`` (or archived_sessions)."""
    home = paths.codex_home()
    for root in (home / "sessions", home / "archived_sessions"):
        if root.is_dir():
            for path in root.rglob(f"rollout-*{thread_id}.jsonl"):
                return path
    return None


def newest_rollout(cwd: str, since: float) -> tuple[str, Path] | None:
    """The thread id and path of the newest exec rollout for ``cwd`` started after ``since``."""
    root = paths.codex_home() / "sessions"
    if not root.is_dir():
        return None
    best: tuple[float, str, Path] | None = None
    for path in root.rglob("rollout-*.jsonl"):
        try:
            mtime = path.stat().st_mtime
            if mtime < since - 1:
                continue
            with open(path, "rb") as fh:
                meta = json.loads(fh.readline())
        except (OSError, ValueError):
            continue
        payload = meta.get("payload") or {}
        if meta.get("type") != "session_meta" or os.path.realpath(str(payload.get("cwd", ""))) != cwd:
            continue
        if best is None or mtime > best[0]:
            best = (mtime, str(payload.get("id")), path)
    return (best[1], best[2]) if best else None


def rollout_total(thread_id: str) -> Usage | None:
    """The thread's running token total as its rollout last recorded it."""
    path = find_rollout(thread_id)
    if path is None:
        return None
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


class CodexCLI:
    """Runs ``codex exec`` (new thread) or ``codex exec resume`` (same thread) with a strict output schema."""

    name = "codex-cli"

    def __init__(self, *, run_dir: str, config: dict[str, Any]) -> None:
        self.binary = codex_binary(config)
        self.run_dir = Path(run_dir)

    def _argv(self, prompt: str, schema_path: str, conversation_id: str | None, model: str | None,
              cwd: str) -> list[str]:
        assert self.binary
        model_args = ["-m", model] if model else []
        if conversation_id:
            # `exec resume` has no --sandbox/-C: the sandbox goes through -c and the thread keeps its cwd.
            return [self.binary, "exec", "resume", "--json", "--output-schema", schema_path,
                    "-c", 'sandbox_mode="read-only"', "--skip-git-repo-check", *model_args,
                    "--", conversation_id, prompt]
        return [self.binary, "exec", "--json", "--output-schema", schema_path, "--sandbox", "read-only",
                "--skip-git-repo-check", "-C", cwd, *model_args, "--", prompt]

    def _totals(self) -> dict[str, Any]:
        try:
            data = json.loads((self.run_dir / TOTALS_FILE).read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def _save_total(self, thread_id: str, total: Usage) -> None:
        from autopilot.state import atomic_write_text

        totals = self._totals()
        totals[thread_id] = total.as_dict()
        atomic_write_text(self.run_dir / TOTALS_FILE, json.dumps(totals, sort_keys=True))

    def _baseline(self, thread_id: str | None) -> Usage:
        if not thread_id:
            return Usage()
        known = self._totals().get(thread_id)
        if isinstance(known, dict):
            return Usage(**{k: int(known.get(k, 0)) for k in ("input", "cached", "output", "cache_write")})
        return rollout_total(thread_id) or Usage()

    def send(self, prompt: str, schema: dict[str, Any], *, schema_name: str, schema_path: str,
             conversation_id: str | None, model: str | None, cwd: str, timeout: float) -> Reply:
        """Ask Codex once; per-call usage is the growth of the thread's running total."""
        if not self.binary or not (os.path.isfile(self.binary) or os.sep not in self.binary):
            raise InfraError(f"the Codex CLI was not found ({self.binary or 'codex not on PATH'})",
                             kind="binary_missing", hint=SETUP_HINT + "; AUTOPILOT_CODEX_BIN names a binary")
        import filelock

        self.run_dir.mkdir(parents=True, exist_ok=True)
        # One turn at a time per run: the thread's running total must be read, grown and saved in order.
        with filelock.FileLock(str(self.run_dir / "codex-thread.lock"), timeout=timeout + 60):
            baseline = self._baseline(conversation_id)
            started = time.time()
            events, stderr = self._run(self._argv(prompt, schema_path, conversation_id, model, cwd), cwd, timeout)
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
                found = newest_rollout(os.path.realpath(cwd), started)
                thread_id = found[0] if found else None
            used = (total - baseline) if total is not None else Usage()
            if thread_id and total is not None:
                self._save_total(thread_id, total)
        if failure or text is None:
            message = failure or "Codex ended the turn without an answer"
            raise InfraError(f"codex failed: {message[:500]}", kind=_classify(message),
                             hint="see `codex-bridge status`; the run pauses after repeated failures").with_usage(used)
        return Reply(text=text, usage=used, conversation_id=thread_id, model=model)

    def _run(self, argv: list[str], cwd: str, timeout: float) -> tuple[list[dict[str, Any]], str]:
        try:
            proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True)
        except OSError as exc:
            raise InfraError(f"cannot run {argv[0]}: {exc}", kind="binary_missing", hint=SETUP_HINT) from None
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            raise InfraError(f"codex did not answer within {timeout:.0f}s", kind="timeout",
                             hint="raise AUTOPILOT_TIMEOUT or timeout_seconds in the config") from None
        stderr = err.decode("utf-8", "replace")
        events = []
        for line in out.decode("utf-8", "replace").splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                events.append(event)
        if proc.returncode != 0:
            detail = next((str((e.get("error") or {}).get("message") or e.get("message"))
                           for e in reversed(events) if e.get("type") in ("turn.failed", "error")), "")
            message = detail if detail else (detail or stderr.strip().splitlines()[-1:] or ["no output"])[0]
            raise InfraError(f"codex exited with status {proc.returncode}: {message[:500]}",
                             kind=_classify(detail + stderr) if (detail + stderr) else "exit_status")
        return events, stderr


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
