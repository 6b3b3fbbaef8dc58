"""User settings: flags beat environment beats the config file beats defaults.

Every environment variable the bridge reads is read here (:func:`env`, and the homes): ``ENVIRONMENT``
names each with what it does, and a test keeps the rest of the package from reading one itself. The
hooks' no-run path imports this module, so it imports only ``os`` and ``autopilot.errors`` at the top;
pathlib, shutil and yaml load in the functions that need them.
"""

from __future__ import annotations

import os

from autopilot.errors import BridgeError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, TypedDict

    class PhaseSettings(TypedDict, total=False):
        """One phase's settings in the config file (``phases.<phase>``), checked when the file is read."""

        model: str
        effort: str

    class Config(TypedDict, total=False):
        """The config file's settings (``config.yaml``, snake_case). The keys are checked when it is read, and
        so are the values typed here; the others are checked where they are used (``positive_number``)."""

        backend: str  # codex-cli | openai
        model: Any
        notify: str  # off | bell | os
        budget_usd: Any
        max_iterations: Any
        no_progress_threshold: Any
        timeout_seconds: Any
        max_diff_chars: Any
        codex_bin: Any
        memory_inject_chars: Any
        effort: str  # one of EFFORTS
        phases: dict[str, PhaseSettings]
        budget_warn_at: Any  # a percentage (checked: ``percent``), as YAML gave it
        min_rate_limit_left: Any
        max_history_tokens: Any  # a whole number >= 0 (0: never restart), as YAML gave it
        review_mode: str  # one of REVIEW_MODES
        claude_projects_dir: str  # where Claude Code's transcripts are read (default $CLAUDE_CONFIG_DIR/projects)
        codex_sessions_dir: str  # where Codex's rollouts are read (default $CODEX_HOME/sessions)


BACKENDS = ("codex-cli", "openai")
NOTIFY = ("off", "bell", "os")  # how a run that ends or pauses tells the user (hooks.context.alert)
# When Codex reviews Claude's work: after edits, in the background (one review in flight, edits coalesced); once
# when Claude stops, before the verdict (the person waits for both); or never (the verdict alone judges the work).
REVIEW_MODES = ("edit", "stop", "off")
DEFAULT_REVIEW_MODE = "edit"
KNOWN_KEYS = {
    "backend",
    "model",
    "notify",
    "budget_usd",
    "max_iterations",
    "no_progress_threshold",
    "timeout_seconds",
    "max_diff_chars",
    "codex_bin",
    "memory_inject_chars",  # the active memory's injection budget (handoff/memory/inject.py)
    "effort",
    "phases",
    "budget_warn_at",
    "min_rate_limit_left",
    "max_history_tokens",  # the history a run's Codex conversation carries before it restarts (loop/transitions.py)
    "review_mode",  # when Codex reviews: edit (in the background), stop, off (config.review_mode)
    "claude_projects_dir",
    "codex_sessions_dir",
}
# The session folders the readers use, each: its config key, its environment variable, its default.
READER_DIRS = {
    "claude_projects_dir": ("AUTOPILOT_CLAUDE_PROJECTS_DIR", "$CLAUDE_CONFIG_DIR/projects"),
    "codex_sessions_dir": ("AUTOPILOT_CODEX_SESSIONS_DIR", "$CODEX_HOME/sessions"),
}
# Reasoning effort Codex is asked for (`-c model_reasoning_effort=…`, `reasoning.effort`). Codex itself
# validates nothing (it sends any word); these are the values the models' catalogue lists.
EFFORTS = ("low", "medium", "high", "xhigh")
PHASE_NAMES = ("plan", "review", "verdict")  # loop/migrations.PHASES (a test keeps them equal)
PHASE_KEYS = ("model", "effort")
DEFAULT_BUDGET_WARN_AT = 80.0  # percent of the budget at which the user is told once
DEFAULT_TIMEOUT_S = 300.0
DEFAULT_MAX_DIFF_CHARS = 60_000
# The history one Codex call may carry before the run's conversation restarts from its own state; chosen from
# bench/bench_conversation.py (docs/BENCHMARKS.md, "A long run's Codex conversation").
DEFAULT_MAX_HISTORY_TOKENS = 10_000
SETUP_HINT = (
    "install the Codex CLI (npm install -g @openai/codex) and log in, or set OPENAI_API_KEY, "
    "or choose one with --backend / AUTOPILOT_BACKEND"
)


# Every environment variable the bridge reads, and what it sets (docs/bridge.md shows users the same).
ENVIRONMENT = {
    "AUTOPILOT_HOME": "the bridge's home (default ~/.codex-autopilot)",
    "CODEX_HOME": "Codex's home (default ~/.codex)",
    "CLAUDE_CONFIG_DIR": "Claude Code's config and transcripts (default ~/.claude)",
    "AUTOPILOT_CONFIG": "the config file (default $AUTOPILOT_HOME/config.yaml)",
    "AUTOPILOT_CLAUDE_PROJECTS_DIR": "where the readers find Claude sessions (default $CLAUDE_CONFIG_DIR/projects)",
    "AUTOPILOT_CODEX_SESSIONS_DIR": "where the readers find Codex's sessions (default $CODEX_HOME/sessions)",
    "AUTOPILOT_BACKEND": "codex-cli or openai",
    "AUTOPILOT_MODEL": "the model Codex is asked for",
    "AUTOPILOT_EFFORT": "the reasoning effort Codex is asked for",
    "AUTOPILOT_BUDGET_USD": "a new run's budget",
    "AUTOPILOT_TIMEOUT": "seconds a model call may take, retries included",
    "AUTOPILOT_MAX_DIFF_CHARS": "the most of a diff sent for review",
    "AUTOPILOT_MAX_HISTORY_TOKENS": "the Codex conversation a call may carry before a fresh one (0: never)",
    "AUTOPILOT_MAX_FILE_BYTES": "changed files larger than this stay out of snapshots",
    "AUTOPILOT_PRICES": "a price table that replaces the built-in one",
    "AUTOPILOT_CODEX_BIN": "the codex binary (default: codex on PATH)",
    "AUTOPILOT_CLAUDE_BIN": "the claude binary doctor checks (default: claude on PATH)",
    "AUTOPILOT_CODEX_ENV": "more variables (comma-separated) the codex-cli reviewer may see",
    "AUTOPILOT_RETRY_ATTEMPTS": "attempts per Responses API call",
    "AUTOPILOT_RETRY_BASE_S": "the first retry's wait",
    "AUTOPILOT_RETRY_MAX_S": "the longest retry wait",
    "AUTOPILOT_NOTIFY": "how an ending or paused run tells you: off, bell or os",
    "AUTOPILOT_REVIEW_MODE": "when Codex reviews: edit (in the background, the default), stop or off",
    "AUTOPILOT_REVIEW_BACKGROUND": "off: the review worker never leaves an openai review at the provider (ZDR)",
    "AUTOPILOT_MEMORY": "off turns the active memory off",
    "AUTOPILOT_MEMORY_INJECT_CHARS": "the active memory's injection budget",
    "AUTOPILOT_HANDOFF_BUDGET_TOKENS": "a handover packet's token budget",
    "AUTOPILOT_HANDOFF_MAX_READ_BYTES": "the most of one session file a handoff reads",
    "AUTOPILOT_HANDOFF_WINDOW_EVENTS": "the events a handoff reads around its window",
    "AUTOPILOT_CODEX_SIDE_FROM": "set by the plugin's bootstrap: the version that set up the Codex side",
    "OPENAI_API_KEY": "the openai backend's key (and a reason to choose it)",
    "CLAUDE_CODE_SESSION_ID": "the Claude Code session that runs the bridge (it owns a run it plans)",
    "CLAUDE_PID": "the Claude Code process a hook runs for (the review worker it starts exits with it)",
    "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "Claude Code's cap on Stop blocks in a row (0: none)",
    "CLAUDE_PLUGIN_DATA": "the plugin's data folder (its venv), set by Claude Code",
    "TMPDIR": "the temporary folder, which Codex's workspace-write sandbox may write (setup --sandbox keeps the "
    "durable store out of it)",
}


def env(name: str) -> str | None:
    """The value of environment variable ``name`` (one ``ENVIRONMENT`` names), None when unset or empty."""
    if name not in ENVIRONMENT:
        raise KeyError(f"{name} is not in config.ENVIRONMENT")
    return os.environ.get(name) or None


# What the openai SDK (and httpx under it) reads from the environment besides OPENAI_*, and the retries' settings:
# two processes with the same of these make the same Responses API call.
_OPENAI_CALL_ENVIRONMENT = (
    "AUTOPILOT_RETRY_ATTEMPTS",
    "AUTOPILOT_RETRY_BASE_S",
    "AUTOPILOT_RETRY_MAX_S",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
)


def openai_environment_digest() -> str:
    """A digest of every environment variable that shapes a Responses API call (the key, the base URL, proxies,
    certificates, retries): the review worker relays a call only for a process whose digest is its own
    (loop/backends/relay.py). A digest, so the key itself never crosses the socket."""
    import hashlib
    import json

    wanted = set(_OPENAI_CALL_ENVIRONMENT) | {n.lower() for n in _OPENAI_CALL_ENVIRONMENT}
    chosen = sorted((k, v) for k, v in os.environ.items() if k.startswith("OPENAI_") or k in wanted)
    return hashlib.sha256(json.dumps(chosen).encode()).hexdigest()


def autopilot_home() -> str:
    """The bridge's home: ``$AUTOPILOT_HOME``, default ``~/.codex-autopilot`` (``paths`` makes it a Path)."""
    return env("AUTOPILOT_HOME") or os.path.join(os.path.expanduser("~"), ".codex-autopilot")


def codex_home() -> str:
    """Codex's home: ``$CODEX_HOME``, default ``~/.codex``."""
    return env("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")


def claude_config_dir() -> str:
    """Claude Code's config and transcript root: ``$CLAUDE_CONFIG_DIR``, default ``~/.claude``."""
    return env("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")


def config_path() -> Path:
    """The config file: ``$AUTOPILOT_CONFIG``, default ``$AUTOPILOT_HOME/config.yaml``."""
    from pathlib import Path

    given = env("AUTOPILOT_CONFIG")
    return Path(given) if given else Path(autopilot_home()) / "config.yaml"


def load_config() -> Config:
    """The config file's settings, or {} when there is none; unreadable files are an error."""
    path = config_path()
    if not path.exists():
        if env("AUTOPILOT_CONFIG"):
            raise BridgeError(f"AUTOPILOT_CONFIG names {path}, which does not exist", hint="fix or unset it")
        return {}
    import yaml

    try:
        data: Any = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise BridgeError(
            f"cannot read the config file {path}: {exc}", hint="fix the YAML or move the file away"
        ) from None
    if not _mapping(data):
        raise BridgeError(f"the config file {path} must be a YAML mapping", hint="e.g. `backend: openai`")
    unknown = set(data) - KNOWN_KEYS
    if unknown:
        raise BridgeError(
            f"the config file {path} has unknown keys: {', '.join(sorted(unknown))}",
            hint=f"known keys: {', '.join(sorted(KNOWN_KEYS))}",
        )
    if data.get("backend") not in (None, *BACKENDS):
        raise BridgeError(f"config {path}: backend must be one of {', '.join(BACKENDS)}")
    if data.get("review_mode") not in (None, *REVIEW_MODES):
        raise BridgeError(
            f"config {path}: review_mode must be one of {', '.join(REVIEW_MODES)}, not {data['review_mode']!r}"
        )
    if data.get("notify") not in (None, *NOTIFY):
        raise BridgeError(f"config {path}: notify must be one of {', '.join(NOTIFY)}, not {data['notify']!r}")
    if "effort" in data:
        effort_value(f"config {path}: effort", data["effort"])
    _check_phases(path, data.get("phases"))
    for key in ("budget_warn_at", "min_rate_limit_left"):
        if key in data:
            percent(f"config {path}: {key}", data[key])
    for key in READER_DIRS:
        if key in data and (not isinstance(data[key], str) or not data[key].strip()):
            raise BridgeError(f"config {path}: {key} must be a directory path, not {data[key]!r}")
    checked: Config = data  # its keys known, the values it types checked
    return checked


def _mapping(value: object) -> bool:
    """Whether YAML gave a mapping."""
    return isinstance(value, dict)


def _check_phases(path: Path, phases: Any) -> None:
    """``phases: {plan: {model: …, effort: …}, review: {…}, verdict: {…}}``, or a clear error."""
    if phases is None:
        return
    example = "e.g. phases: {plan: {effort: high}, review: {model: gpt-5.5, effort: low}}"
    if not isinstance(phases, dict):
        raise BridgeError(f"config {path}: phases must map phase names to settings", hint=example)
    for phase, settings in phases.items():
        where = f"config {path}: phases.{phase}"
        if phase not in PHASE_NAMES:
            raise BridgeError(f"{where}: unknown phase", hint=f"phases are {', '.join(PHASE_NAMES)}")
        if not isinstance(settings, dict):
            raise BridgeError(f"{where} must be a mapping of {' and '.join(PHASE_KEYS)}", hint=example)
        unknown = set(settings) - set(PHASE_KEYS)
        if unknown:
            raise BridgeError(
                f"{where} has unknown keys: {', '.join(sorted(map(str, unknown)))}",
                hint=f"a phase takes {' and '.join(PHASE_KEYS)}",
            )
        if "model" in settings and (not isinstance(settings["model"], str) or not settings["model"].strip()):
            raise BridgeError(f"{where}.model must be a model name, not {settings['model']!r}")
        if "effort" in settings:
            effort_value(f"{where}.effort", settings["effort"])


def effort_value(name: str, value: Any) -> str:
    """``value`` when it is a reasoning effort Codex can be asked for, else a BridgeError naming ``name``."""
    if value not in EFFORTS:
        raise BridgeError(f"{name} must be one of {', '.join(EFFORTS)}, not {value!r}")
    return str(value)


def percent(name: str, value: Any) -> float:
    """``value`` as a percentage from 0 to 100, or a BridgeError naming the setting."""
    import math

    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise BridgeError(f"{name} must be a percentage from 0 to 100, not {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise BridgeError(f"{name} must be a percentage from 0 to 100, not {value!r}") from None
    if not math.isfinite(number) or not 0 <= number <= 100:
        raise BridgeError(f"{name} must be a percentage from 0 to 100, not {value!r}")
    return number


def reader_dir(key: str) -> tuple[Path, str]:
    """A session folder the readers use (``claude_projects_dir`` or ``codex_sessions_dir``) and what set it.

    Its environment variable, else the config file's key, else the client's own default (which
    honours ``CLAUDE_CONFIG_DIR`` and ``CODEX_HOME``). The config file is parsed only when it names
    the key, so a reader that nobody pointed elsewhere pays no YAML import (the status line reads
    Codex's rate limits on every render).
    """
    from pathlib import Path

    name, default = READER_DIRS[key]
    given = env(name)
    if given:
        return Path(given).expanduser(), name
    path = config_path()
    try:
        named = key.encode() in path.read_bytes()
    except OSError:
        named = False  # no config file (or none readable: load_config says so where settings matter)
    if named:
        value = load_config().get(key)
        if isinstance(value, str):
            return Path(value).expanduser(), f"{key} in {path}"
    if key == "claude_projects_dir":
        return Path(claude_config_dir()) / "projects", default
    return Path(codex_home()) / "sessions", default


def claude_binary() -> str | None:
    """The claude CLI: ``AUTOPILOT_CLAUDE_BIN``, else ``claude`` on PATH."""
    import shutil

    return env("AUTOPILOT_CLAUDE_BIN") or shutil.which("claude")


def codex_binary(config: Config | None = None) -> str | None:
    """The Codex CLI to run: ``AUTOPILOT_CODEX_BIN``, the config's ``codex_bin``, else ``codex`` on PATH."""
    explicit = env("AUTOPILOT_CODEX_BIN") or (config or {}).get("codex_bin")
    if explicit:
        return explicit
    import shutil

    return shutil.which("codex")


def resolve_backend(flag: str | None, run_backend: str | None, config: Config) -> str:
    """Pick the backend: --backend > AUTOPILOT_BACKEND > the run's own > config > codex on PATH > OPENAI_API_KEY."""
    for source, value in (("--backend", flag), ("AUTOPILOT_BACKEND", env("AUTOPILOT_BACKEND"))):
        if value:
            if value not in BACKENDS:
                raise BridgeError(f"{source} must be one of {', '.join(BACKENDS)}, not {value!r}")
            return value
    if run_backend in BACKENDS:
        return run_backend  # keep the conversation on the backend that started it
    if config.get("backend"):
        return str(config["backend"])
    if codex_binary(config):
        return "codex-cli"
    if env("OPENAI_API_KEY"):
        return "openai"
    raise BridgeError("no Codex backend is set up", hint=SETUP_HINT)


def _phase(config: Config, phase: str | None) -> PhaseSettings:
    """The config's settings for one phase (``phases.<phase>``), or {}."""
    phases = config.get("phases")
    return (phases.get(phase) or {}) if phases and phase else {}


def resolve_model(flag: str | None, run_model: str | None, config: Config, phase: str | None = None) -> str | None:
    """Pick the model: --model > AUTOPILOT_MODEL > the config's ``phases.<phase>.model`` > its ``model`` > the
    run's own; None lets Codex choose."""
    return (
        flag or env("AUTOPILOT_MODEL") or _phase(config, phase).get("model") or config.get("model") or run_model or None
    )


def resolve_effort(flag: str | None, run_effort: str | None, config: Config, phase: str | None = None) -> str | None:
    """Pick the reasoning effort: --effort > AUTOPILOT_EFFORT > the config's ``phases.<phase>.effort`` > its
    ``effort`` > the run's own; None lets Codex use the model's default."""
    for source, value in (("--effort", flag), ("AUTOPILOT_EFFORT", env("AUTOPILOT_EFFORT"))):
        if value:
            return effort_value(source, value)
    chosen = _phase(config, phase).get("effort") or config.get("effort") or run_effort
    return str(chosen) if chosen else None


def budget_warn_at(config: Config) -> float:
    """The share of the budget (percent) at which the user is warned once per run; 0 turns the warning off."""
    raw = config.get("budget_warn_at")
    return DEFAULT_BUDGET_WARN_AT if raw is None else percent("budget_warn_at", raw)


def review_mode(config: Config | None = None) -> str:
    """When Codex reviews Claude's work: ``AUTOPILOT_REVIEW_MODE`` > the config's ``review_mode`` > ``edit``.

    ``config`` is the config file's settings when the caller has read them; without them the file is read only
    when the environment does not decide (the PostToolUse hook asks on every edit)."""
    raw = env("AUTOPILOT_REVIEW_MODE")
    if raw is None:
        raw = (config if config is not None else load_config()).get("review_mode") or DEFAULT_REVIEW_MODE
    mode = raw.strip().lower()
    if mode not in REVIEW_MODES:
        raise BridgeError(
            f"AUTOPILOT_REVIEW_MODE must be one of {', '.join(REVIEW_MODES)}, not {raw!r}",
            hint="edit reviews in the background after edits; stop, once when Claude stops; off, never",
        )
    return mode


def review_background() -> bool:
    """Whether the review worker asks its openai reviews in the Responses API's background mode, so that one in flight
    can be left running when the worker must go (``AUTOPILOT_REVIEW_BACKGROUND``: ``on``, the default, or ``off``).
    OpenAI keeps a background response about 10 minutes, which a Zero Data Retention project may not want: with
    ``off`` a review in flight is finished and recorded first, as codex-cli's is."""
    raw = (env("AUTOPILOT_REVIEW_BACKGROUND") or "on").strip().lower()
    if raw not in ("on", "off"):
        raise BridgeError(
            f"AUTOPILOT_REVIEW_BACKGROUND must be on or off, not {raw!r}",
            hint="off keeps reviews out of OpenAI's background mode (Zero Data Retention projects)",
        )
    return raw == "on"


def positive_number(name: str, value: Any, *, integer: bool = False) -> float | int:
    """``value`` as a positive number, or a BridgeError naming the setting."""
    try:
        number = int(value) if integer else float(value)
        if integer and float(value) != number:
            raise ValueError
    except (TypeError, ValueError):
        kind = "a whole number" if integer else "a number"
        raise BridgeError(f"{name} must be {kind}, not {value!r}") from None
    import math

    if not math.isfinite(number):  # nan would switch the budget off; inf is not valid JSON for jq
        raise BridgeError(f"{name} must be a finite number, not {value!r}")
    if number <= 0:
        raise BridgeError(f"{name} must be greater than zero, not {value!r}")
    return number


def timeout_seconds(config: Config) -> float:
    """How long one Codex call may take: ``AUTOPILOT_TIMEOUT`` > config > 300 s."""
    raw = env("AUTOPILOT_TIMEOUT") or config.get("timeout_seconds")
    return float(positive_number("AUTOPILOT_TIMEOUT", raw)) if raw else DEFAULT_TIMEOUT_S


def max_diff_chars(config: Config) -> int:
    """How much diff one prompt may carry before the middle is cut."""
    raw = env("AUTOPILOT_MAX_DIFF_CHARS") or config.get("max_diff_chars")
    return int(positive_number("max_diff_chars", raw, integer=True)) if raw else DEFAULT_MAX_DIFF_CHARS


def max_history_tokens(config: Config) -> int:
    """The history (tokens) a run's Codex conversation may carry into a call before that call starts a fresh one,
    seeded from the run's state: ``AUTOPILOT_MAX_HISTORY_TOKENS`` > config > 10,000; 0: never restart."""
    name = "AUTOPILOT_MAX_HISTORY_TOKENS"
    raw = env(name)
    if not raw:
        name, raw = "max_history_tokens", config.get("max_history_tokens")
    if raw is None or raw == "":
        return DEFAULT_MAX_HISTORY_TOKENS
    if str(raw).strip() == "0":
        return 0
    return int(positive_number(name, raw, integer=True))


def toml_reader(purpose: str) -> Any:
    """The TOML parser: the standard library's tomllib, or tomli (its backport, a dependency) on Python 3.10."""
    try:
        import tomllib  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[import-not-found,no-redef,unused-ignore]
        except ImportError:
            raise BridgeError(
                f"{purpose} needs tomli on Python 3.10 (pip install tomli) to read Codex's config.toml",
                hint="reinstall codex-autopilot: tomli is one of its dependencies there",
            ) from None
    return tomllib


def parse_version(text: str) -> tuple[int, ...] | None:
    """The first x.y.z in ``text``: what `claude --version` and `codex --version` print, or a user agent."""
    import re

    found = re.search(r"(\d+)\.(\d+)\.(\d+)", text)
    return tuple(int(x) for x in found.groups()) if found else None


def version_of(binary: str, timeout: float) -> tuple[tuple[int, ...] | None, str]:
    """What ``binary --version`` says, asked for at most ``timeout`` seconds: its x.y.z (None when it names none)
    and its own words (or why it could not be asked)."""
    import signal
    import subprocess
    from contextlib import suppress

    try:
        proc = subprocess.Popen(
            [binary, "--version"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
    except OSError as exc:
        return None, str(exc)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        # its whole group: a child left holding the pipes would hold this process for as long as it lives
        with suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None, str(exc)
    return parse_version(out + err), (out or err).strip()
