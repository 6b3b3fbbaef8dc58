"""Export one explicitly named session as a handover packet: the answer `handoff export` prints.

The CLI and the dashboard both call :func:`export`: it observes the session through its
source, builds the packet, and either returns it with its would-be id (``preview``: nothing
is written) or stores it and its evidence index and returns where they went.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot import config
from autopilot.errors import BridgeError
from autopilot.handoff.packets import build, store
from autopilot.handoff.sources import Limits, appserver, catalog
from autopilot.handoff.sources.project import Project

if TYPE_CHECKING:
    from autopilot.handoff.packets.shapes import Exported, Preview
    from autopilot.handoff.sources.shapes import Observed

MIN_BUDGET_TOKENS = 100


def budget_tokens(given: int | None) -> int:
    """The excerpt budget: ``given``, else ``AUTOPILOT_HANDOFF_BUDGET_TOKENS``, else the default; at least 100."""
    if given is None:
        raw = config.env("AUTOPILOT_HANDOFF_BUDGET_TOKENS") or str(build.DEFAULT_BUDGET_TOKENS)
        if not raw.isdigit():
            raise BridgeError(f"AUTOPILOT_HANDOFF_BUDGET_TOKENS={raw!r} is not a whole number; unset it or give one")
        given = int(raw)
    if given < MIN_BUDGET_TOKENS:
        raise BridgeError(f"--budget-tokens {given} is too small; use at least {MIN_BUDGET_TOKENS}")
    return given


def export(
    agent: str,
    session: str,
    to: str,
    project: Project,
    limits: Limits,
    *,
    preview: bool = False,
    source: str | None = None,
    budget: int | None = None,
) -> Preview | Exported:
    """Build a packet from one session; return it unwritten (``preview``) or store it and say where."""
    if to not in catalog.AGENTS:
        raise BridgeError(f"--to {to!r} is not an agent", hint="use claude or codex")
    tokens = budget_tokens(budget)
    observed: Observed
    if catalog.source_kind(agent, source) == "app-server":
        observed = appserver.AppServerSource().observe(project, session, limits)
    else:
        observed = catalog.local(agent).observe(project, session, limits)
    packet, evidence = build.build(observed, project, to, budget_tokens=tokens)
    if preview:
        pid, _, _ = store.seal(packet, evidence)
        return {
            "preview": True,
            "written": False,
            "packet": pid,
            "contents": packet,
            "evidenceEntries": len(evidence["entries"]),
        }
    pid, path = store.store(packet, evidence)
    return {
        "packet": pid,
        "path": str(path),
        "evidenceIndex": str(path.with_name(path.stem + ".evidence.json")),
        "from": agent,
        "to": to,
        "source": packet["source"]["kind"],
        "session": packet["source"].get("threadId") or packet["source"].get("sessionId"),
        "objective": packet.get("objective"),
        "nextAction": packet.get("nextAction"),
        "gaps": [g["kind"] for g in packet["coverage"]["gaps"]],
        "estimates": packet["estimates"],
        "redactions": packet["redactions"],
        "next": f"codex-bridge handoff import {pid} --to {to} --session RECEIVING_SESSION_ID",
    }


def export_quietly(agent: str, session: str, to: str, cwd: str) -> tuple[str | None, str | None]:
    """Export a session as a packet now, for a hook (``$handoff``, the offer before a limit): (its id, None), or
    (None, why not) when it cannot be made; never raises a BridgeError."""
    try:
        answer = export(agent, session, to, Project(cwd), Limits())
    except BridgeError as exc:
        return None, str(exc).splitlines()[0][:200]
    return str(answer["packet"]), None
