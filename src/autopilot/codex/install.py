"""The Codex side: the `$handoff` hook, the active memory's hooks and the `handoff` / `from-claude` skills.

Everything it writes is marked as codex-autopilot's (the skills' marker files; the hook by its command),
so installing twice changes nothing and :func:`uninstall` takes out exactly what :func:`install` added.
hooks.json and config.toml are backed up before they change; a file Codex could not read is refused,
never overwritten. ``codex-bridge install codex`` and ``codex-bridge setup`` run it;
doctor's look at what it left is :func:`autopilot.plugin.check_codex_side`.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autopilot import paths
from autopilot.codex import hooks_file, skills, trust
from autopilot.codex.skills import File, skill_dir
from autopilot.config import codex_binary
from autopilot.output import say

if TYPE_CHECKING:
    from autopilot.codex.shapes import (
        HookRecord,
        HookTrust,
        Installed,
        MemoryHookTrust,
        MemoryRecord,
        SkillMarker,
        TrustRecorded,
        Uninstalled,
    )

ASSETS = Path(__file__).resolve().parent / "assets"
# Where the `autopilot` package is: the Codex memory hook imports the redactor from there (installed.json).
PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent.parent)
HOOK_SCRIPT = "scripts/handoff_hook.py"
HOOK_WRAPPER = "scripts/handoff-hook"
MEMORY_SCRIPT = "scripts/memory_hook.py"  # records every Codex event in the active memory (docs/memory.md)
MEMORY_WRAPPER = "scripts/memory-hook"
INTAKE_SCRIPT = "scripts/from_claude.py"
INTAKE_WRAPPER = "scripts/from-claude"
SKILLS = ("handoff", "from-claude", "handoff-import", "checkpoint")
RECORD = "scripts/installed.json"  # the environment the scripts run in: the Python, its bridge, the package
PYTHON_KEY = '"python": "'  # how installed.json's python line starts (json.dumps, indent=2): the wrappers read it


def _asset(rel: str) -> str:
    return (ASSETS / rel).read_text(encoding="utf-8")


def _wrapper(script: Path, what: str) -> str:
    """A POSIX sh launcher of ``script`` with the Python ``installed.json`` beside it names, else python3 (the script
    is stdlib-only). The same text whichever environment installed it: only installed.json says which one."""
    return (
        f"#!/bin/sh\n# {what}\n"
        "# Written by `codex-bridge install codex`: run that again rather than editing this.\n"
        "py=python3\n"
        f"rec={shlex.quote(str(script.parent / Path(RECORD).name))}\n"
        'if [ -r "$rec" ]; then\n'
        "  while IFS= read -r line; do\n"
        "    case $line in\n"
        f"      *'{PYTHON_KEY}'*) p=${{line#*'{PYTHON_KEY}'}}; p=${{p%\\\"*}}; [ -x \"$p\" ] && py=$p ;;\n"
        "    esac\n"
        '  done < "$rec"\n'
        "fi\n"
        f'exec "$py" -I {shlex.quote(str(script))} "$@"\n'
    )


def installed_bridge() -> tuple[str, str | None]:
    """The Python running this installer and the codex-bridge beside it (None when there is none)."""
    python = sys.executable or "python3"
    beside = Path(python).parent / "codex-bridge"  # a venv's (or pipx's) bin directory; not resolved on purpose
    return python, (str(beside) if os.access(beside, os.X_OK) else None)


def record(python: str, bridge: str | None) -> str:
    """installed.json: the environment the Codex side runs in (the only file that depends on who installed it)."""
    recorded = {"bridge": bridge, "python": python, "package": PACKAGE_ROOT}
    return json.dumps(recorded, indent=2, ensure_ascii=False) + "\n"  # the wrappers read the python line as it is


def skill_files() -> dict[str, dict[str, File]]:
    """Every file of the skills, by skill and path inside it, but the environment's record (``RECORD``): the same for
    one version of codex-autopilot whichever environment (the plugin's venv, a shell install) installs it."""
    handoff, intake = skill_dir("handoff"), skill_dir("from-claude")
    command = shlex.quote(str(intake / INTAKE_WRAPPER))
    return {
        "handoff": {
            "SKILL.md": File(_asset("handoff/SKILL.md")),
            "agents/openai.yaml": File(_asset("handoff/agents/openai.yaml")),
            HOOK_SCRIPT: File(_asset(f"handoff/{HOOK_SCRIPT}"), executable=True),
            HOOK_WRAPPER: File(_wrapper(handoff / HOOK_SCRIPT, "codex-autopilot's $handoff hook for Codex."), True),
            MEMORY_SCRIPT: File(_asset(f"handoff/{MEMORY_SCRIPT}"), executable=True),
            MEMORY_WRAPPER: File(
                _wrapper(handoff / MEMORY_SCRIPT, "codex-autopilot's active-memory hook for Codex."), executable=True
            ),
        },
        "from-claude": {
            "SKILL.md": File(_asset("from-claude/SKILL.md").replace("{{COMMAND}}", command)),
            "agents/openai.yaml": File(_asset("from-claude/agents/openai.yaml")),
            INTAKE_SCRIPT: File(_asset(f"from-claude/{INTAKE_SCRIPT}"), executable=True),
            INTAKE_WRAPPER: File(_wrapper(intake / INTAKE_SCRIPT, "codex-autopilot's from-claude intake."), True),
        },
        "handoff-import": {  # runs the from-claude script's --import mode: one script, one bridge lookup
            "SKILL.md": File(_asset("handoff-import/SKILL.md").replace("{{COMMAND}}", command)),
            "agents/openai.yaml": File(_asset("handoff-import/agents/openai.yaml")),
        },
        "checkpoint": {  # the file it has the agent write is picked up by the thread's own memory hook
            "SKILL.md": File(_asset("checkpoint/SKILL.md")),
            "agents/openai.yaml": File(_asset("checkpoint/agents/openai.yaml")),
        },
    }


# The skills whose scripts run the recorded environment's Python (the wrappers read it) or bridge.
RECORDED = ("handoff", "from-claude")


def _with_record(python: str, bridge: str | None) -> dict[str, dict[str, File]]:
    """Every file install writes: :func:`skill_files`, and the environment's record in the skills that run it."""
    files = skill_files()
    for name in RECORDED:
        files[name][RECORD] = File(record(python, bridge))
    return files


def hook_command() -> str:
    """The command hooks.json runs: the handoff skill's launcher, shell-quoted (Codex runs it with $SHELL -lc)."""
    return shlex.quote(str(skill_dir("handoff") / HOOK_WRAPPER))


def memory_command() -> str:
    """The command hooks.json runs for the active memory's events: its launcher, shell-quoted."""
    return shlex.quote(str(skill_dir("handoff") / MEMORY_WRAPPER))


def install(record_trust: bool) -> Installed:
    """Install the Codex side (and record Codex's trust for its hooks when asked); what was done. Each user file that
    changes (hooks.json, config.toml) is backed up once, however many hooks change in it."""
    with hooks_file.one_backup_each():
        return _install(record_trust)


def _install(record_trust: bool) -> Installed:
    home = paths.codex_home().absolute()
    python, bridge = installed_bridge()
    files = _with_record(python, bridge)
    for name in SKILLS:  # every refusal happens before anything changes
        skills.check(name, files[name])
    hooks_json, config = home / "hooks.json", home / "config.toml"
    doc = hooks_file.load(hooks_json)
    marker = skills.read_marker("handoff") or {}
    old_hook = marker.get("hook") or {}
    old_memory = marker.get("memory") or {}
    command, recorder = hook_command(), memory_command()
    new_doc, where = hooks_file.merge(doc, command, set(old_hook.get("commands") or []))
    # The memory's handlers come after the $handoff one, so that hook keeps its place (and trust key).
    placed: dict[str, tuple[int, int]] = {}
    for event in hooks_file.MEMORY_EVENTS:
        new_doc, placed[event] = hooks_file.merge(new_doc, recorder, set(old_memory.get("commands") or []), event=event)
    key = trust.key(hooks_json, where)
    digest = trust.hook_hash(new_doc["hooks"][hooks_file.EVENT][where[0]]["hooks"][where[1]])
    memory_trust: dict[str, MemoryHookTrust] = {
        event: {
            "position": list(at),
            "key": trust.key(hooks_json, at, hooks_file.label(event)),
            "hash": trust.hook_hash(new_doc["hooks"][event][at[0]]["hooks"][at[1]], hooks_file.label(event)),
        }
        for event, at in placed.items()
    }
    trust.trusted_hash(config, key)  # refuses an unreadable config.toml before anything changes
    records = [r for r in marker.get("trust") or [] if isinstance(r, dict)]
    hook_record: HookRecord = {
        "file": str(hooks_json),
        "commands": [command],
        "createdFile": bool(old_hook.get("createdFile", doc is None)),
    }
    memory_record: MemoryRecord = {"commands": [recorder], "events": list(hooks_file.MEMORY_EVENTS)}

    extras: dict[str, SkillMarker] = {"handoff": {"hook": hook_record, "memory": memory_record, "trust": records}}
    outcomes = {name: skills.install(name, files[name], extras.get(name)) for name in SKILLS}
    changed_hooks = new_doc != doc
    saved = hooks_file.write(hooks_json, new_doc) if changed_hooks else None

    summary_trust: HookTrust = {
        "config": str(config),
        "key": key,
        "hash": digest,
        "recorded": False,
        "checkedWith": None,
    }
    recorded_memory = False
    if record_trust:
        listed = _codex_hooks(home)
        said = _record_trust(config, key, digest, listed)
        summary_trust["recorded"], summary_trust["hash"] = said["recorded"], said["hash"]
        summary_trust["checkedWith"] = said["checkedWith"]
        digest = summary_trust["hash"]
        for entry in memory_trust.values():
            result = _record_trust(config, entry["key"], entry["hash"], listed)
            recorded_memory = recorded_memory or bool(result["recorded"])
            entry["hash"], entry["status"] = result["hash"], None
        wanted = {(key, digest), *((e["key"], e["hash"]) for e in memory_trust.values())}
        for stale in records:  # trust an earlier install recorded for a position or hash that is gone
            if (stale.get("key"), stale.get("hash")) not in wanted:
                trust.forget(config, str(stale.get("key")), str(stale.get("hash")))
        records = [{"key": k, "hash": h} for k, h in sorted(wanted)]
        if summary_trust["checkedWith"]:  # Codex itself has the final word on what it trusts now
            after = {h.get("key"): h.get("trustStatus") for h in _codex_hooks(home) or []}
            summary_trust["status"] = str(after.get(key) or "untrusted")
            for entry in memory_trust.values():
                entry["status"] = str(after.get(entry["key"]) or "untrusted")
    status = summary_trust.get("status") or _status(trust.trusted_hash(config, key), digest)
    summary_trust["status"] = status
    for entry in memory_trust.values():
        entry["status"] = entry.get("status") or _status(trust.trusted_hash(config, entry["key"]), entry["hash"])
    marker = {
        **(skills.read_marker("handoff") or {}),
        "hook": hook_record,
        "memory": memory_record,
        "trust": records,
    }
    if skills.write_marker("handoff", marker) and skills.MARKER not in outcomes["handoff"].changed:
        outcomes["handoff"].changed.append(skills.MARKER)

    _tell_install(status, summary_trust, command, config, requested=record_trust)
    _tell_memory(memory_trust, record_trust)
    return {
        "agent": "codex",
        "action": "install",
        "codexHome": str(home),
        "changed": bool(
            changed_hooks or summary_trust["recorded"] or recorded_memory or any(o.changed for o in outcomes.values())
        ),
        "hook": {
            "file": str(hooks_json),
            "event": hooks_file.EVENT,
            "command": command,
            "position": list(where),
            "changed": changed_hooks,
            "backup": str(saved) if saved else None,
        },
        "trust": summary_trust,
        "memory": {"command": recorder, "events": memory_trust},
        "skills": {name: {"path": o.path, "changed": o.changed} for name, o in outcomes.items()},
        "python": python,
        "bridge": bridge,
    }


def _status(recorded: str | None, digest: str) -> str:
    return "trusted" if recorded == digest else ("modified" if recorded else "untrusted")


def _codex_hooks(home: Path) -> list[dict[str, Any]] | None:
    """What a codex binary at hand lists for hooks (key, currentHash, trustStatus), or None without one."""
    binary = codex_binary()
    return trust.ask_codex(binary, str(home)) if binary else None


def _record_trust(config: Path, key: str, digest: str, listed: list[dict[str, Any]] | None) -> TrustRecorded:
    """Record the trust in config.toml, and let Codex itself confirm it when a codex binary is at hand."""
    recorded = trust.record(config, key, digest)
    result: TrustRecorded = {"recorded": recorded, "hash": digest, "checkedWith": None}
    ours = next((h for h in listed or [] if h.get("key") == key), None)
    if ours is None:
        return result
    binary = codex_binary()
    current = ours.get("currentHash")
    if isinstance(current, str) and current != digest:
        # This Codex hashes differently from 0.171: its own answer is the one it will compare against.
        result["recorded"] = trust.record(config, key, current) or recorded
        result["hash"] = current
    result["checkedWith"] = binary
    return result


def _tell_install(status: str, trust: HookTrust, command: str, config: Path, *, requested: bool) -> None:
    if status == "trusted" and not trust["recorded"]:
        say(f"the $handoff hook is already trusted in {config}.")
    elif status == "trusted":
        checked = (
            f"{trust['checkedWith']} lists it as trusted"
            if trust["checkedWith"]
            else "with the hash codex 0.171 computes; no codex binary was found to confirm it, so if $handoff "
            "is not caught, type /hooks in Codex and trust it there"
        )
        say(f"recorded the trust of the $handoff hook in {config} ({checked}).")
    elif requested:
        say(
            f"recorded the trust of the $handoff hook in {config}, but {trust['checkedWith']} still lists it as "
            f"{status}: open Codex, type /hooks and trust codex-autopilot's UserPromptSubmit hook ({command})."
        )
    else:
        say(
            "Codex runs a new or changed hook only after you trust it: open Codex, type /hooks once and trust "
            f"codex-autopilot's UserPromptSubmit hook ({command}), or run `codex-bridge install codex --trust` to "
            "record the trust in config.toml. Until then, $handoff reaches the model, which only says that no "
            "handoff was recorded."
        )
    say(
        "in Codex, type $handoff to hand a session to Claude Code, and $from-claude to pick up one handed over "
        "from Claude Code."
    )


def _tell_memory(memory: dict[str, MemoryHookTrust], requested: bool) -> None:
    untrusted = [event for event, entry in memory.items() if entry.get("status") != "trusted"]
    if not untrusted:
        say(f"the active memory's hooks ({', '.join(memory)}) are trusted: Codex sessions are recorded.")
    elif not requested:
        say(
            f"the active memory records Codex sessions once its hooks ({', '.join(untrusted)}) are trusted too "
            "(/hooks in Codex, or --trust); until then `codex-bridge handoff recover --from codex --session ID` "
            "rebuilds a session from its rollout."
        )


def uninstall() -> Uninstalled:
    """Take out exactly what install added; each user file that changes is backed up once."""
    with hooks_file.one_backup_each():
        return _uninstall()


def _uninstall() -> Uninstalled:
    home = paths.codex_home().absolute()
    hooks_json, config = home / "hooks.json", home / "config.toml"
    marker = skills.read_marker("handoff") or {}
    old_hook = marker.get("hook") or {}
    doc = hooks_file.load(hooks_json)  # refuses a corrupt file before anything changes
    records = [r for r in marker.get("trust") or [] if isinstance(r, dict)]
    if records:
        trust.trusted_hash(config, str(records[0].get("key")))  # likewise for config.toml
    commands = {hook_command(), memory_command(), *(old_hook.get("commands") or [])}
    commands |= set((marker.get("memory") or {}).get("commands") or [])
    saved = None
    changed_hooks = False
    if doc is not None:
        events = tuple(dict.fromkeys((hooks_file.EVENT, *hooks_file.MEMORY_EVENTS)))
        new_doc = hooks_file.unmerge(doc, commands, events)
        if new_doc != doc:
            changed_hooks = True
            gone = old_hook.get("createdFile") and new_doc == {"hooks": {}}
            saved = hooks_file.write(hooks_json, None if gone else new_doc)
    forgotten = {str(r.get("key")): trust.forget(config, str(r.get("key")), str(r.get("hash"))) for r in records}
    outcomes = {name: skills.uninstall(name) for name in SKILLS}
    for outcome in outcomes.values():
        if outcome.kept == ["."]:
            say(f"left {outcome.path} alone: it is not codex-autopilot's.")
        elif outcome.kept:
            say(f"left {', '.join(outcome.kept)} in {outcome.path}: changed since codex-autopilot installed them.")
    return {
        "agent": "codex",
        "action": "uninstall",
        "codexHome": str(home),
        "changed": bool(changed_hooks or "removed" in forgotten.values() or any(o.changed for o in outcomes.values())),
        "hook": {"file": str(hooks_json), "changed": changed_hooks, "backup": str(saved) if saved else None},
        "trust": forgotten,
        "skills": {name: {"path": o.path, "removed": o.changed, "kept": o.kept} for name, o in outcomes.items()},
    }
