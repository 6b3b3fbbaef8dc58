"""The dashboard's one backend API: plain functions over the bridge's operations, returning the CLI's JSON.

Each public method of :class:`Api` is one endpoint (``app.py`` maps routes to them and runs
them in worker threads): the answers are the ones the CLI prints with ``--json`` (``status
--json``, ``handoff list | read | export | inspect | import``, ``durable list``), plus small
summaries the page needs. Every id that comes in is checked here, by shape, before any file
is touched: a malformed or path-like id (``../``, an absolute path, a NUL) is
:class:`InvalidInput` (HTTP 400), an unknown one :class:`NotFound` (404).

Active memory is ``handoff active`` for each session of this worktree (``handoff/memory/``); the evidence
search is ``handoff search --json`` (``handoff/search/``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autopilot import __version__, paths
from autopilot.errors import BridgeError
from autopilot.handoff.memory import observe
from autopilot.handoff.memory import recover as memory_recover
from autopilot.handoff.memory import store as memory_store
from autopilot.handoff.memory import view as memory_view
from autopilot.handoff.packets import export as packet_export
from autopilot.handoff.packets import receive, shared
from autopilot.handoff.packets.store import archive_dir, belongs, listed, packets_dir
from autopilot.handoff.search import index as search_index
from autopilot.handoff.search import retention, retrieval
from autopilot.handoff.sources import SESSION_ID, Limits, catalog, check_session_id
from autopilot.handoff.sources.project import Project, git_state
from autopilot.knowledge.durable import feed as durable_feed
from autopilot.knowledge.durable import store as durable
from autopilot.knowledge.durable import view as durable_view
from autopilot.loop import control, summary
from autopilot.loop.state import all_runs, read_run
from autopilot.loop.threads import own_threads

if TYPE_CHECKING:
    from autopilot.dashboard.shapes import Overview, Packets, PacketView
    from autopilot.handoff.packets.shapes import Exported, Imported, ListedPacket, Preview
    from autopilot.handoff.search.shapes import Answer as SearchAnswer
    from autopilot.handoff.sources.shapes import Identity, Listing, Page
    from autopilot.knowledge.durable.shapes import Listing as DurableListing
    from autopilot.knowledge.durable.shapes import Rule
    from autopilot.loop.shapes import CorruptRun, ListedRun, Resumed, RunList, RunReport, Stopped

AGENTS = catalog.AGENTS
PACKET_ID = re.compile(r"(?:sha256:)?[0-9a-f]{12,64}")
PACKETS_SHOWN = 200
READINESS_TIMEOUT_S = 120  # doctor asks the real claude and codex for their versions


class InvalidInput(BridgeError):
    """A request whose ids or fields are malformed: refused before anything is read (HTTP 400)."""


class NotFound(BridgeError):
    """A well-formed id that names nothing here (HTTP 404)."""


def _shape(value: Any, pattern: re.Pattern[str], what: str) -> str:
    if not isinstance(value, str) or not pattern.fullmatch(value):
        shown = repr(value)[:80]
        raise InvalidInput(f"{shown} is not a {what}")
    return value


def _agent(value: Any, what: str = "agent") -> str:
    if value not in AGENTS:
        raise InvalidInput(f"{repr(value)[:40]} is not an {what}: claude or codex")
    return str(value)


class Api:
    """The dashboard's endpoints for one project directory (the one it was started in)."""

    def __init__(self, project_dir: str | None = None, *, approvals: bool = True) -> None:
        self.project_dir = os.path.realpath(project_dir or os.getcwd())
        self.approvals = approvals  # False when started inside an agent's shell: nobody there may approve
        self.durable = durable.Log()
        self._packet_rows: dict[tuple[str, int, int], tuple[str | None, ListedPacket | None]] = {}
        self._lock = threading.Lock()

    # -- the project -----------------------------------------------------------------------------

    def project(self) -> Project:
        """The project the dashboard was started in (a BridgeError outside a git repository)."""
        return Project(self.project_dir)

    def overview(self) -> Overview:
        """What the header shows: the project, run counts by status, packets, durable counts."""
        identity: Identity | dict[str, str]
        try:
            identity = self.project().identity()
        except BridgeError as exc:
            identity = {"error": str(exc), "directory": self.project_dir}
        runs = all_runs()
        by_status: dict[str, int] = {}
        for r in runs:
            by_status[str(r.get("status"))] = by_status.get(str(r.get("status")), 0) + 1
        return {
            "version": __version__,
            "project": identity,
            "runs": {"total": len(runs), "byStatus": by_status},
            "packets": {"total": len(self._packet_files())},
            "durable": self.durable.listing()["counts"],
            "approvals": {
                "enabled": self.approvals,
                "why": None
                if self.approvals
                else "this dashboard was started inside an agent's shell: approving and revoking are off",
            },
        }

    # -- autopilot runs --------------------------------------------------------------------------

    def runs(self) -> RunList:
        """Every run on this machine, summarised (``status --json --all``)."""
        return summary.every_run()

    def _state(self, run: Any) -> ListedRun | CorruptRun:
        name = _shape(run, summary.RUN_NAME, "run id")
        state = read_run(paths.autopilot_home() / "runs" / name)
        if state is None:
            raise NotFound(f"no run {name} under $AUTOPILOT_HOME/runs")
        return state

    def run(self, run: Any) -> RunReport:
        """One run in full (``status --json``): summary, findings, criteria, calls."""
        return summary.report(self._state(run))

    def _workspace(self, run: Any) -> str:
        """The workspace a run belongs to, when it is still there and still maps to this run."""
        state = self._state(run)
        workspace = state.get("workspace")
        if not isinstance(workspace, str) or not os.path.isdir(workspace):
            raise BridgeError(f"the workspace of run {run} ({workspace}) is gone", hint="nothing to stop or resume")
        if paths.run_dir(workspace).name != os.path.basename(state["run_dir"]):
            raise BridgeError(f"run {run} records a workspace ({workspace}) whose run is another one")
        return workspace

    def stop(self, run: Any, reason: Any = None) -> Stopped:
        """What `/codex-stop` does: the run goes back to idle, spend kept (``codex-bridge stop``)."""
        text = reason if isinstance(reason, str) and reason.strip() else "stopped from the dashboard"
        return control.stop(text[:500], cwd=self._workspace(run))

    def resume(self, run: Any) -> Resumed:
        """What `/autopilot resume` does (``codex-bridge resume``)."""
        return control.resume(cwd=self._workspace(run))

    # -- handover: sources and packets -----------------------------------------------------------

    def sources(self, agent: Any, *, latest: bool = False) -> Listing:
        """This worktree's sessions of one agent (``handoff list``); ``latest`` filters, it never chooses. The
        reviewer's own Codex threads are left out, counted (``hidden``)."""
        agent = _agent(agent)
        hide = own_threads() if agent == "codex" else ()
        return catalog.sessions(agent, self.project(), Limits.from_env(), latest=latest, hide=hide)

    def session(self, agent: Any, session: Any, *, limit: Any = 20, before: Any = None) -> Page:
        """One page of a session's events, newest first (``handoff read``)."""
        limit = _int(limit, "limit")
        before = None if before in (None, "") else _int(before, "before")
        return catalog.read(
            _agent(agent),
            self.project(),
            _shape(session, SESSION_ID, "session id"),
            Limits.from_env(),
            limit=limit,
            before=before,
        )

    def export(self, agent: Any, session: Any, to: Any, *, preview: bool = False) -> Preview | Exported:
        """A packet from one explicitly chosen session (``handoff export``; ``preview`` writes nothing)."""
        answer = packet_export.export(
            _agent(agent),
            _shape(session, SESSION_ID, "session id"),
            _agent(to, "agent to hand over to"),
            self.project(),
            Limits.from_env(),
            preview=bool(preview),
        )
        if not preview:
            # as `handoff export` does: the evidence index learns the packet; a failure there never fails
            # the export (`handoff search` catches up)
            with contextlib.suppress(BridgeError, OSError, sqlite3.Error):
                search_index.add_packet(answer["packet"])
        return answer

    def _packet_files(self) -> list[os.DirEntry[str]]:
        try:
            entries = list(os.scandir(packets_dir()))
        except OSError:
            return []
        return [e for e in entries if e.name.endswith(".json") and not e.name.endswith(".evidence.json")]

    def packets(self, *, limit: Any = PACKETS_SHOWN) -> Packets:
        """This project's stored packets, newest first (``handoff packets``); each file is read once per change."""
        limit = _int(limit, "limit")
        project = self.project()
        repo_id = project.repo_id
        rows: list[ListedPacket] = []
        pulled = shared.origins(repo_id)  # a teammate's packets this repository pulled (`share pull`)
        with self._lock:  # one reader fills the cache; a request during the start-up read waits for it
            for entry in self._packet_files():
                st = entry.stat()
                key = (entry.name, st.st_size, st.st_mtime_ns)  # packets are written once: a changed file is re-read
                if key not in self._packet_rows:
                    self._packet_rows[key] = listed(Path(entry.path))
                repo, row = self._packet_rows[key]
                if row is not None and belongs(repo, row, repo_id, pulled):
                    rows.append(row)
        rows.sort(key=lambda r: str(r.get("createdAt") or ""), reverse=True)
        return {"project": project.identity(), "packets": rows[:limit], "total": len(rows)}

    def warm(self) -> None:
        """Read every packet's listing row once (at start, in a thread), so the first page load is fast too."""
        with contextlib.suppress(OSError, BridgeError):  # the first real request will say what is wrong
            self.packets(limit=0)

    def packet(self, packet_id: Any) -> PacketView:
        """A packet re-verified (``handoff inspect``), with git drift now when it is this worktree's."""
        ref = _shape(packet_id, PACKET_ID, "packet id")
        try:
            found = receive.inspect(ref)
        except BridgeError as exc:
            if str(exc).startswith("no packet"):
                raise NotFound(str(exc)) from None
            raise
        repo = found["contents"]["repository"]
        try:
            project = self.project()
        except BridgeError as exc:
            return {**found, "driftNow": {"comparable": False, "why": str(exc)}}
        if repo.get("repoId") != project.repo_id or repo.get("worktreeId") != project.worktree_id:
            why = f"made in {repo.get('worktree')}, not in this dashboard's worktree {project.worktree}"
            return {**found, "driftNow": {"comparable": False, "why": why}}
        d = receive.drift(repo, git_state(project.worktree), project.worktree)
        stale = receive.stale_claims(found["contents"], d)
        return {**found, "driftNow": {"comparable": True, "gitDrift": d, "staleClaims": stale}}

    def import_packet(self, packet_id: Any, to: Any, session: Any, new_session: Any = False) -> Imported:
        """Import a packet into an explicitly chosen receiving session (``handoff import [--new-session]``)."""
        return receive.import_packet(
            _shape(packet_id, PACKET_ID, "packet id"),
            to=_agent(to, "receiving agent"),
            session=_shape(session, SESSION_ID, "receiving session id"),
            cwd=self.project().worktree,
            new_session=new_session is True,
        )

    # -- the three memories ----------------------------------------------------------------------

    def active_memory(self) -> dict[str, Any]:
        """The active memory of this worktree's sessions (``handoff active`` for each), newest first."""
        worktree = self.project().worktree
        views = [memory_view.view(memory_store.SessionStore(a, s, worktree)) for a, s in observe.sessions_of(worktree)]
        views.sort(key=lambda v: str(v.get("lastObservedAt") or ""), reverse=True)
        return {"available": True, "worktree": worktree, "sessions": views}

    def recover(self, body: dict[str, Any]) -> dict[str, Any]:
        """Rebuild what a session's hooks missed from its transcript (``handoff recover``), then its view."""
        agent, session = body.get("agent"), body.get("session")
        if agent not in observe.AGENTS or not isinstance(session, str):
            raise InvalidInput("recover needs an agent (claude or codex) and a session id")
        check_session_id(session)
        worktree = self.project().worktree
        added = memory_recover.recover(agent, session, worktree)
        return {"recovered": added, "view": memory_view.view(memory_store.SessionStore(agent, session, worktree))}

    def readiness(self) -> dict[str, Any]:
        """What ``codex-bridge doctor --json`` says about this machine and project (each failing check with its fix).

        Run as the command itself (it lives above the dashboard, and asks the real binaries for their versions),
        within a bounded time.
        """
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "autopilot", "doctor", "--json"],
                cwd=self.project_dir,
                capture_output=True,
                text=True,
                timeout=READINESS_TIMEOUT_S,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            raise BridgeError(f"doctor did not answer within {READINESS_TIMEOUT_S} s") from None
        try:
            answer: dict[str, Any] = json.loads(proc.stdout)
        except ValueError:
            raise BridgeError(f"doctor printed no JSON (exit {proc.returncode}): {proc.stderr.strip()[:300]}") from None
        return answer

    def archives(self) -> dict[str, Any]:
        """This project's packets that `handoff prune` moved to the archive (`search --archived` finds them)."""
        repo_id = self.project().repo_id
        rows = retention.archived_packets(repo_id)
        return {"archive": str(archive_dir()), "total": len(rows), "packets": rows[:PACKETS_SHOWN]}

    def search(self, query: Any, *, limit: Any = 10, archived: Any = False) -> SearchAnswer:
        """The evidence search for ``query`` in this worktree (``handoff search --json``)."""
        if not isinstance(query, str) or not query.strip() or len(query) > 500 or "\x00" in query:
            raise InvalidInput("a search needs 1 to 500 characters of text")
        limit = _int(limit, "limit")
        return retrieval.search(
            query,
            cwd=self.project().worktree,
            limit=min(max(limit, 1), 50),
            feed=durable_feed.sync,
            archived=archived is True,
        )

    def durable_list(self, status: Any = None) -> DurableListing:
        """Every rule and decision (``durable list``)."""
        if status not in (None, "", *durable_view.STATUSES):
            raise InvalidInput(f"{repr(status)[:40]} is not a status")
        return self.durable.listing(status or None)

    def propose(self, body: dict[str, Any]) -> Rule:
        """A candidate by hand, or from a packet's constraint (``durable propose``); approves nothing."""
        by = str(body["by"]) if isinstance(body.get("by"), str) and body["by"].strip() else "dashboard"
        if body.get("packet") is not None:
            ref = _shape(body.get("packet"), PACKET_ID, "packet id")
            return self.durable.propose_from_packet(ref, _int(body.get("constraint", 0), "constraint"), by=by)
        supersedes = body.get("supersedes") or None
        if supersedes is not None:
            _shape(supersedes, durable_view.ID, "rule id")
        kind = body.get("kind", "rule")
        if kind not in durable_view.KINDS:
            raise InvalidInput(f"{repr(kind)[:40]} is not a kind: rule or decision")
        text, why = body.get("text"), body.get("why")
        if not isinstance(text, str) or (why is not None and not isinstance(why, str)):
            raise InvalidInput("a proposal needs its text")
        scope = None if body.get("global") is True else durable.project_scope(self.project().worktree)
        return self.durable.propose(
            kind, text, by=by, channel="dashboard", why=why, supersedes=supersedes, project=scope
        )

    def decide(self, action: str, rule: Any, body: dict[str, Any]) -> Rule:
        """Approve or revoke as the person named in ``body`` who gave their approval passphrase (``secret``)."""
        if not self.approvals:
            raise BridgeError(
                "approving and revoking are off: this dashboard was started inside an agent's shell",
                hint="start `codex-bridge dashboard` yourself, in your own terminal",
            )
        rid = _shape(rule, durable_view.ID, "rule id")
        if rid not in self.durable.view()["rules"]:
            raise NotFound(f"no rule or decision {rid}")
        return self.durable.decide(
            action,
            rid,
            person=body.get("person"),  # type: ignore[arg-type]  # checked by durable.check_person
            secret=body.get("secret"),  # type: ignore[arg-type]  # checked by durable.secret.verify
            channel="dashboard",
            reason=body.get("reason") if isinstance(body.get("reason"), str) else None,
        )


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise InvalidInput(f"{what} must be a whole number")
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and re.fullmatch(r"[0-9]{1,9}", value):
        number = int(value)
    else:
        raise InvalidInput(f"{what} must be a whole number, not {repr(value)[:40]}")
    if number < 0:
        raise InvalidInput(f"{what} must not be negative")
    return number
