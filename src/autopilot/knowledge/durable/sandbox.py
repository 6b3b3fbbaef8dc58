"""The agents' own sandboxes as the durable store's boundary: what setup writes into each agent's settings, what
uninstall puts back, and whether each agent's shell can write the store (doctor).

A process running as the person can do anything the person can, so no check of markers, ancestry or terminals
keeps an agent's shell from the approval passphrase, the anchors or the log. Both agents ship a boundary it cannot
cross, and ``codex-bridge setup --sandbox`` turns it on (verified with the real binaries: docs/threat-model.md):

- **Claude Code** (``settings.json`` in ``$CLAUDE_CONFIG_DIR``): ``sandbox.enabled`` (its Bash tool and the skills'
  shell blocks run in bubblewrap, with socat for the network, on Linux), ``allowUnsandboxedCommands: false`` (the
  model cannot ask to run a command outside it), ``failIfUnavailable: true`` (no sandbox, no session rather than an
  unconfined shell); ``sandbox.filesystem.allowWrite`` the bridge's home (its caches and packets) but
  ``denyWrite`` the protected paths below, and ``Edit(//path/**)`` deny rules for them, which hold the Edit and
  Write tools too (they do not run in the sandbox).
- **Codex** (``config.toml`` in ``$CODEX_HOME``): ``sandbox_mode = "workspace-write"`` (its shell writes only the
  workspace and the temporary directories), and, when a protected path lies under ``/tmp`` or ``$TMPDIR``,
  ``[sandbox_workspace_write] exclude_slash_tmp`` / ``exclude_tmpdir_env_var`` so that those are not writable.

The protected paths: the durable store (the log, the anchors, the passphrase's record, what the person last saw),
the team's trust state (``share/``: when this machine first saw each commit), the active memories (only the
sessions' own hooks write them: an agent's checkpoint goes through the file its own hook picks up) and this
module's own record. What setup changed is recorded beside the store (:func:`record_path`) so that uninstall
restores each value as it was; a value the person changed since is left alone.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autopilot import clock, paths
from autopilot.config import env, toml_reader
from autopilot.errors import BridgeError
from autopilot.fsutil import atomic_write, replace_text

if TYPE_CHECKING:
    from autopilot.knowledge.durable.shapes import AgentSandbox, SandboxOn

Settings = dict[str, Any]  # a person's settings.json or a TOML table as they wrote it: only its keys are ours
RECORD = "sandbox-setup.json"
CODEX_MARK = "# codex-autopilot: the durable store stays outside Codex's writable roots (codex-bridge setup --sandbox)"
CLAUDE_SANDBOX = {"enabled": True, "allowUnsandboxedCommands": False, "failIfUnavailable": True}
WORKSPACE_WRITE = "workspace-write"
SAFE_CODEX_MODES = ("workspace-write", "read-only")


def protected() -> list[Path]:
    """The paths no agent's shell or tool may write once the sandboxes are on."""
    home = paths.autopilot_home()
    return [home / "durable", home / "share", home / "handoff" / "active"]  # (setup's record is in durable/)


def record_path() -> Path:
    """Where setup records what it changed in the agents' settings (itself a protected path)."""
    return paths.autopilot_home() / "durable" / RECORD


def _claude_settings() -> Path:
    return paths.claude_config_dir() / "settings.json"


def _codex_config() -> Path:
    return paths.codex_home() / "config.toml"


def _edit_rule(path: Path) -> str:
    """Claude Code's permission rule for everything under ``path`` (``//`` starts an absolute path)."""
    return f"Edit(/{path}/**)"


def _obj(value: Any) -> Settings:
    """``value`` when it is a JSON object (or TOML table), else an empty one."""
    return value if isinstance(value, dict) else {}


def _load_json(path: Path) -> Settings:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise BridgeError(f"{path} cannot be read as JSON ({exc}); nothing was changed") from None
    if not isinstance(data, dict):
        raise BridgeError(f"{path} is not a JSON object; nothing was changed")
    return data


def _record() -> Settings:
    try:
        found = json.loads(record_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


# -- Claude Code -------------------------------------------------------------------------------------------


def _claude_wanted() -> tuple[Settings, list[str], list[str], list[str]]:
    """The sandbox keys, the write grants, the write denials and the deny rules setup wants in Claude Code."""
    guarded = [str(p) for p in protected()]
    return dict(CLAUDE_SANDBOX), [str(paths.autopilot_home())], guarded, [_edit_rule(p) for p in protected()]


def _claude_on(settings: Settings) -> tuple[Settings, Settings]:
    """``settings`` with the sandbox on; what was there before (to restore) and what was added."""
    keys, grants, denials, rules = _claude_wanted()
    sandbox = settings.setdefault("sandbox", {})
    if not isinstance(sandbox, dict):
        raise BridgeError("Claude Code's settings.json has a `sandbox` that is not an object; nothing was changed")
    before = {k: sandbox.get(k, None) for k in keys if k in sandbox}
    sandbox.update(keys)
    filesystem = sandbox.setdefault("filesystem", {})
    permissions = settings.setdefault("permissions", {})
    added: dict[str, list[str]] = {"allowWrite": [], "denyWrite": [], "deny": []}
    for name, values, where in (
        ("allowWrite", grants, filesystem),
        ("denyWrite", denials, filesystem),
        ("deny", rules, permissions),
    ):
        current = where.setdefault(name, [])
        for value in values:
            if value not in current:
                current.append(value)
                added[name].append(value)
    return {"keys": before, "absent": [k for k in keys if k not in before]}, added


def _claude_off(settings: Settings, saved: Settings) -> bool:
    """Undo what :func:`_claude_on` recorded in ``saved``; whether anything changed."""
    changed = False
    if not isinstance(settings.get("sandbox"), dict):
        return False
    sandbox: Settings = settings["sandbox"]
    for key, value in (saved.get("before") or {}).get("keys", {}).items():
        if sandbox.get(key) == CLAUDE_SANDBOX.get(key):
            sandbox[key], changed = value, True
    for key in (saved.get("before") or {}).get("absent", []):
        if key in sandbox and sandbox.get(key) == CLAUDE_SANDBOX.get(key):
            sandbox.pop(key)
            changed = True
    filesystem, permissions = _obj(sandbox.get("filesystem")), _obj(settings.get("permissions"))
    added = saved.get("added") or {}
    for name, where in (("allowWrite", filesystem), ("denyWrite", filesystem), ("deny", permissions)):
        for value in added.get(name, []):
            if value in (where.get(name) or []):
                where[name].remove(value)
                changed = True
        if name in where and not where[name]:
            where.pop(name)
    if filesystem == {} and "filesystem" in sandbox:
        sandbox.pop("filesystem")
    if not sandbox:
        settings.pop("sandbox")
    if permissions == {} and "permissions" in settings:
        settings.pop("permissions")
    return changed


# -- Codex -------------------------------------------------------------------------------------------------


def _under(path: Path, root: str | None) -> bool:
    if not root:
        return False
    try:
        return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(root))
    except (OSError, ValueError):
        return False


def _codex_excludes() -> list[str]:
    """The ``[sandbox_workspace_write]`` switches that keep the protected paths out of Codex's writable roots."""
    found = []
    if any(_under(p, "/tmp") for p in protected()):
        found.append("exclude_slash_tmp")
    tmpdir = env("TMPDIR")  # what Codex itself reads to add $TMPDIR to its roots
    if any(_under(p, tmpdir) for p in protected()):
        found.append("exclude_tmpdir_env_var")
    return found


def _codex_on(text: str) -> tuple[str, list[str]]:
    """``config.toml``'s text with workspace-write (and the excludes the store needs); the lines added, each marked."""
    doc = toml_reader("the Codex sandbox check").loads(text) if text.strip() else {}
    lines = text.splitlines()
    added: list[str] = []
    first_table = next((i for i, line in enumerate(lines) if line.lstrip().startswith("[")), len(lines))
    mode = doc.get("sandbox_mode")
    if mode is not None and mode not in SAFE_CODEX_MODES:
        raise BridgeError(
            f"{_codex_config()} sets sandbox_mode = {mode!r}: Codex's shell may write anywhere, and setup will not "
            "change a mode you chose; nothing was changed",
            hint='set sandbox_mode = "workspace-write" there yourself, then run setup --sandbox again',
        )
    if mode is None:
        new = [CODEX_MARK, f'sandbox_mode = "{WORKSPACE_WRITE}"']
        lines[first_table:first_table] = new
        added += new
    table = doc.get("sandbox_workspace_write")
    wanted = [f"{k} = true" for k in _codex_excludes() if not _obj(table).get(k)]
    if wanted and table is None:
        new = [CODEX_MARK, "[sandbox_workspace_write]", *wanted]
        lines += new
        added += new
    elif wanted and isinstance(table, dict):
        at = next(i for i, line in enumerate(lines) if line.strip() == "[sandbox_workspace_write]") + 1
        new = [CODEX_MARK, *wanted]
        lines[at:at] = new
        added += new
    out = "\n".join(lines) + "\n"
    toml_reader("the Codex sandbox check").loads(out)  # what is written must still be Codex's config
    return out, added


def _codex_off(text: str, added: list[str]) -> tuple[str, bool]:
    """``config.toml``'s text without the lines setup added (each removed once, only where it still stands)."""
    lines, changed = text.splitlines(), False
    for line in added:
        if line in lines:
            lines.remove(line)
            changed = True
    while lines and lines[-1] == "[sandbox_workspace_write]":  # the table setup added, emptied
        lines.pop()
    return "\n".join(lines) + ("\n" if lines else ""), changed


# -- setup, uninstall, doctor ------------------------------------------------------------------------------


def turn_on() -> SandboxOn:
    """Turn both agents' sandboxes on for the durable store; what was written where (recorded for uninstall)."""
    claude_path, codex_path = _claude_settings(), _codex_config()
    settings = _load_json(claude_path)
    codex_text = codex_path.read_text(encoding="utf-8") if codex_path.exists() else ""
    new_codex, codex_added = _codex_on(codex_text)  # refuses before anything is written
    saved = _record()
    for path in protected():  # a sandbox binds what exists: each protected folder is made now, the person's own
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    before, added = _claude_on(settings)
    if saved.get("claude"):  # on already: keep what was there before the first setup, add what is new
        old = saved["claude"]
        before = old.get("before") or before
        added = {k: sorted(set(old.get("added", {}).get(k, [])) | set(v)) for k, v in added.items()}
    claude_path.parent.mkdir(parents=True, exist_ok=True)
    replace_text(claude_path, json.dumps(settings, indent=2) + "\n")
    if codex_added:
        codex_path.parent.mkdir(parents=True, exist_ok=True)
        replace_text(codex_path, new_codex)
    codex_all = [*(saved.get("codex") or {}).get("added", []), *codex_added]
    record = {
        "at": clock.now(),
        "claude": {"settings": str(claude_path), "before": before, "added": added},
        "codex": {"config": str(codex_path), "added": codex_all},
    }
    record_path().parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    atomic_write(record_path(), json.dumps(record, indent=2) + "\n", mode=0o600)
    return {
        "claude": {"settings": str(claude_path), "sandbox": CLAUDE_SANDBOX, **added},
        "codex": {"config": str(codex_path), "added": codex_added},
        "protected": [str(p) for p in protected()],
        "record": str(record_path()),
    }


def turn_off() -> Settings | None:
    """Put back what :func:`turn_on` changed (a value changed since is left as it is); None when it never ran."""
    saved = _record()
    if not saved:
        return None
    out: Settings = {}
    claude = saved.get("claude") or {}
    path = Path(claude.get("settings") or _claude_settings())
    settings = _load_json(path)
    out["claude"] = {"settings": str(path), "changed": _claude_off(settings, claude)}
    if out["claude"]["changed"]:
        replace_text(path, json.dumps(settings, indent=2) + "\n")
    codex = saved.get("codex") or {}
    config = Path(codex.get("config") or _codex_config())
    if config.exists():
        text, changed = _codex_off(config.read_text(encoding="utf-8"), list(codex.get("added") or []))
        if changed:
            replace_text(config, text)
        out["codex"] = {"config": str(config), "changed": changed}
    record_path().unlink(missing_ok=True)
    return out


def claude_can_write() -> tuple[bool, str]:
    """Whether Claude Code's Bash tool or its Edit and Write tools could write the durable store, and why."""
    try:
        settings = _load_json(_claude_settings())
    except BridgeError as exc:
        return True, str(exc)
    sandbox = _obj(settings.get("sandbox"))
    if sys.platform.startswith("linux") and not (shutil.which("bwrap") and shutil.which("socat")):
        return True, "Claude Code's sandbox needs bubblewrap and socat on Linux (apt-get install bubblewrap socat)"
    if sandbox.get("enabled") is not True:
        return True, "Claude Code's sandbox is off: its Bash tool runs as you, unconfined"
    if sandbox.get("allowUnsandboxedCommands") is not False:
        return True, "the model may ask to run a command outside Claude Code's sandbox (allowUnsandboxedCommands)"
    denied = [str(d) for d in _obj(sandbox.get("filesystem")).get("denyWrite") or []]
    rules = [str(r) for r in _obj(settings.get("permissions")).get("deny") or []]
    store = paths.autopilot_home() / "durable"
    if str(store) not in denied:
        return True, f"Claude Code's sandbox does not deny writes to {store} (sandbox.filesystem.denyWrite)"
    if _edit_rule(store) not in rules:
        return True, f"Claude Code's Edit and Write tools may write {store} (no {_edit_rule(store)} deny rule)"
    return False, f"Claude Code's sandbox denies writes to {store}, and its Edit and Write tools are denied there"


def codex_can_write() -> tuple[bool, str]:
    """Whether Codex's shell could write the durable store under its configured sandbox, and why."""
    config = _codex_config()
    try:
        text = config.read_text(encoding="utf-8") if config.exists() else ""
        doc = toml_reader("the Codex sandbox check").loads(text) if text.strip() else {}
    except (OSError, ValueError) as exc:
        return True, f"{config} cannot be read ({exc})"
    mode = doc.get("sandbox_mode")
    if mode not in SAFE_CODEX_MODES:
        why = "is not set" if mode is None else f"is {mode!r}"
        return True, f"Codex's sandbox_mode {why} in {config}: a session may run its shell unconfined"
    table = _obj(doc.get("sandbox_workspace_write"))
    store = paths.autopilot_home() / "durable"
    if mode == WORKSPACE_WRITE:
        for root in [str(r) for r in table.get("writable_roots") or []]:
            if _under(store, root):
                return True, f"{store} lies under {root}, one of Codex's writable_roots"
        missing = [k for k in _codex_excludes() if not table.get(k)]
        if missing:
            return True, f"{store} lies under a temporary directory Codex's workspace-write may write ({missing[0]})"
    return False, f"Codex's {mode} sandbox cannot write {store}"


def status() -> list[AgentSandbox]:
    """Per agent: can its shell write the durable store, why, and the fix."""
    out: list[AgentSandbox] = []
    for agent, check in (("claude", claude_can_write), ("codex", codex_can_write)):
        can, why = check()
        out.append(
            {
                "agent": agent,
                "canWriteStore": can,
                "why": why,
                "fix": "codex-bridge setup --sandbox (in your own terminal)" if can else None,
            }
        )
    return out
