"""The cost report: spend and tokens of every model call in every run's events.jsonl, grouped, and checked
against the runs' own totals.

Every model call is one line of ``events.jsonl`` (``run/reviewer.py``): its phase, model, tokens
(``input`` counts cached input too, as state.json does), USD and the id of the run it was charged to.
A run's state.json keeps the same totals (``token_usage`` per phase; ``plan_usd`` for the plan,
``budget_used_usd`` for reviews and verdicts) until a new plan resets them, while the old calls stay
in events.jsonl. So calls are attributed by run id: the calls of each run now in a state.json must
add up to its totals exactly (tokens to the token, USD to within float rounding of 10-decimal
amounts); calls of replaced runs and failed plans are reported as "earlier runs"; lines written
before events carried run ids are counted apart. Lines that are not a call (a Claude StopFailure)
are skipped; lines that cannot be read are counted, never fatal.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson

from autopilot import paths
from autopilot.errors import BridgeError
from autopilot.run.budget import add_usd
from autopilot.run.migrations import PHASES

GROUPS = ("day", "run", "model", "phase")
USD_TOLERANCE = 1e-9  # sums of 10-decimal amounts in another order may differ in the last float bits
NO_RUN_ID = "(no run id)"
DEFAULT_MODEL = "(codex default)"


@dataclass
class Totals:
    """What a group of calls used and cost."""

    calls: int = 0
    failed: int = 0
    input: int = 0
    cached: int = 0
    output: int = 0
    usd: float = 0.0

    def add(self, call: Call) -> None:
        """Count one call in."""
        self.calls += 1
        self.failed += call.failed
        self.input += call.input
        self.cached += call.cached
        self.output += call.output
        self.usd = add_usd(self.usd, call.usd)


@dataclass
class Call:
    """One model call as events.jsonl recorded it."""

    ts: str
    phase: str
    model: str
    run_id: str | None
    run_dir: str
    input: int
    cached: int
    output: int
    usd: float
    failed: bool


@dataclass
class Run:
    """One run directory: the run its state.json holds now, and every call its events.jsonl logged."""

    dir: str
    state: dict[str, Any] | None
    calls: list[Call] = field(default_factory=list)


def parse_since(text: str | None) -> str | None:
    """``--since`` as the events' own timestamp format (UTC), so strings compare in time order; a date means
    its midnight UTC, a time without a zone is UTC."""
    if text is None:
        return None
    raw = text.strip()
    try:
        moment = datetime.fromisoformat(raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw)
    except ValueError:
        raise BridgeError(
            f"--since must be a date (YYYY-MM-DD) or an ISO time (YYYY-MM-DDTHH:MM), not {text!r}"
        ) from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


OTHER, MALFORMED = "other", "malformed"


def _call(raw: object, run_dir: str) -> Call | str:
    """The call a decoded line records, else OTHER (an event that is not a call) or MALFORMED."""
    if not isinstance(raw, dict):
        return MALFORMED
    if "tokens" not in raw:
        return OTHER if isinstance(raw.get("phase"), str) and isinstance(raw.get("ts"), str) else MALFORMED
    tokens, usd, ts, phase = raw.get("tokens"), raw.get("usd"), raw.get("ts"), raw.get("phase")
    if not isinstance(tokens, dict) or not isinstance(ts, str) or phase not in PHASES:
        return MALFORMED
    counts = [tokens.get(k, 0) for k in ("input", "cached", "output")]
    if any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in counts):
        return MALFORMED
    if isinstance(usd, bool) or not isinstance(usd, (int, float)) or not usd >= 0:
        return MALFORMED
    run_id, model = raw.get("run_id"), raw.get("model")
    return Call(
        ts=ts,
        phase=str(phase),
        model=model if isinstance(model, str) and model else DEFAULT_MODEL,
        run_id=run_id if isinstance(run_id, str) and run_id else None,
        run_dir=run_dir,
        input=counts[0],
        cached=counts[1],
        output=counts[2],
        usd=float(usd),
        failed=str(raw.get("outcome") or "ok") != "ok",
    )


def _state(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def read_runs(root: Path | None = None) -> tuple[list[Run], dict[str, int]]:
    """Every run directory under ``$AUTOPILOT_HOME/runs`` with its calls, and counts of the lines that were not
    calls (``other``) or could not be read (``malformed``)."""
    root = root if root is not None else paths.autopilot_home() / "runs"
    counts = {"files": 0, OTHER: 0, MALFORMED: 0}
    runs: list[Run] = []
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return runs, counts
    for entry in entries:
        if not entry.is_dir():
            continue
        run = Run(entry.path, _state(Path(entry.path) / "state.json"))
        try:
            with open(os.path.join(entry.path, "events.jsonl"), "rb") as fh:
                counts["files"] += 1
                for line in fh:
                    if not line.strip():
                        continue
                    try:
                        found = _call(orjson.loads(line), entry.name)
                    except orjson.JSONDecodeError:
                        found = MALFORMED
                    if isinstance(found, Call):
                        run.calls.append(found)
                    else:
                        counts[found] += 1
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise BridgeError(f"cannot read {entry.path}/events.jsonl ({exc.strerror or exc})") from None
        runs.append(run)
    return runs, counts


def check(run: Run) -> dict[str, Any]:
    """How the calls logged for the run in ``run.state`` compare with its totals: ``match``, ``mismatch`` (with
    each differing field) or ``unverified`` (no plan call carries its id: planned before events had run ids)."""
    state = run.state or {}
    run_id = state.get("run_id")
    mine = [c for c in run.calls if c.run_id == run_id] if run_id else []
    result: dict[str, Any] = {"run_id": run_id, "workspace": state.get("workspace"), "run_dir": run.dir}
    if not any(c.phase == "plan" for c in mine):
        return {**result, "result": "unverified", "differences": []}
    differences = []
    usage = state.get("token_usage") or {}
    for phase in PHASES:
        calls = [c for c in mine if c.phase == phase]
        logged = {
            "input": sum(c.input for c in calls),
            "cached": sum(c.cached for c in calls),
            "output": sum(c.output for c in calls),
            "calls": len(calls),
        }
        kept = usage.get(phase) or {}
        differences += [
            {"field": f"token_usage.{phase}.{key}", "events": value, "state": kept.get(key)}
            for key, value in logged.items()
            if kept.get(key) != value
        ]
    for key, phases in (("plan_usd", ("plan",)), ("budget_used_usd", ("review", "verdict"))):
        logged_usd = 0.0
        for c in mine:
            if c.phase in phases:
                logged_usd = add_usd(logged_usd, c.usd)
        kept_usd = state.get(key)
        if not isinstance(kept_usd, (int, float)) or abs(logged_usd - float(kept_usd)) > USD_TOLERANCE:
            differences.append({"field": key, "events": logged_usd, "state": kept_usd})
    return {**result, "result": "mismatch" if differences else "match", "differences": differences}


def _key(call: Call, by: str) -> str:
    if by == "day":
        return call.ts[:10]
    if by == "model":
        return call.model
    if by == "phase":
        return call.phase
    return call.run_id or f"{NO_RUN_ID} {call.run_dir}"


def _first(run: Run, key: str, by: str) -> str:
    """When the group's first call in ``run`` was made."""
    return min((c.ts for c in run.calls if _key(c, by) == key), default="")


def _run_label(key: str, run: Run) -> dict[str, Any]:
    """Who a run-id row is: the run ``run``'s state.json holds now, an earlier run of its directory (re-planned,
    or a plan that failed), or calls logged without a run id."""
    state = run.state or {}
    if key.startswith(NO_RUN_ID):
        return {"run": "no run id", "workspace": state.get("workspace"), "goal": None}
    if state.get("run_id") == key:
        return {"run": "current", "workspace": state.get("workspace"), "goal": state.get("goal")}
    return {"run": "earlier", "workspace": state.get("workspace"), "goal": None}


def report(*, by: str = "day", since: str | None = None, root: Path | None = None) -> dict[str, Any]:
    """Spend and tokens grouped ``by`` day, run, model or phase (calls at or after ``since``), their total, and
    every current run's check against its state.json (always over all its calls)."""
    if by not in GROUPS:
        raise BridgeError(f"--by must be one of {', '.join(GROUPS)}, not {by!r}")
    start = parse_since(since)
    runs, counts = read_runs(root)
    groups: dict[str, Totals] = {}
    home: dict[str, Run] = {}  # group key -> the run directory its calls came from (for --by run)
    total = Totals()
    without_run_id = 0
    for run in runs:
        for call in run.calls:
            if start is not None and call.ts < start:
                continue
            key = _key(call, by)
            groups.setdefault(key, Totals()).add(call)
            home.setdefault(key, run)
            total.add(call)
            without_run_id += call.run_id is None
    rows = []
    # Days, models and phases by name; runs in the order they started.
    order = sorted(groups, key=lambda k: (home[k].dir, _first(home[k], k, by)) if by == "run" else k)
    for key in order:
        row: dict[str, Any] = {"key": key, **asdict(groups[key])}
        if by == "run":
            row.update(_run_label(key, home[key]))
        rows.append(row)
    checks = [check(run) for run in runs if (run.state or {}).get("run_id")]
    return {
        "by": by,
        "since": start,
        "rows": rows,
        "total": asdict(total),
        "runs": {
            "checked": sum(c["result"] != "unverified" for c in checks),
            "matching": sum(c["result"] == "match" for c in checks),
            "unverified": sum(c["result"] == "unverified" for c in checks),
            "mismatches": [c for c in checks if c["result"] == "mismatch"],
        },
        "lines": {**counts, "calls": sum(len(r.calls) for r in runs), "without_run_id": without_run_id},
    }


def table(result: dict[str, Any]) -> list[str]:
    """The report as a table for people, with what the check and the skipped lines say under it."""
    heads = ("calls", "failed", "input", "cached", "output", "USD")
    rows = [
        (_label(r, result["by"]), f"{r['calls']:,}", f"{r['failed']:,}", f"{r['input']:,}", f"{r['cached']:,}")
        + (f"{r['output']:,}", f"{r['usd']:.4f}")
        for r in result["rows"]
    ]
    t = result["total"]
    rows.append(
        ("total", f"{t['calls']:,}", f"{t['failed']:,}", f"{t['input']:,}", f"{t['cached']:,}")
        + (f"{t['output']:,}", f"{t['usd']:.4f}")
    )
    width = max(len(result["by"]), *(len(r[0]) for r in rows))
    widths = [max(len(h), *(len(r[i + 1]) for r in rows)) for i, h in enumerate(heads)]

    def line(cells: tuple[str, ...]) -> str:
        return f"{cells[0]:<{width}}  " + "  ".join(f"{c:>{w}}" for c, w in zip(cells[1:], widths, strict=True))

    since = f" since {result['since'][:19].replace('T', ' ')} UTC" if result["since"] else ""
    out = [f"Codex spend by {result['by']}{since} (input counts cached input too)", line((result["by"], *heads))]
    out += [line(r) for r in rows[:-1]] + ["-" * len(line(rows[-1])), line(rows[-1])]
    out += notes(result)
    return out


def _label(row: dict[str, Any], by: str) -> str:
    if by != "run":
        return str(row["key"])
    if row["run"] == "no run id":
        return str(row["key"])
    place = os.path.basename(str(row.get("workspace") or "")) or "?"
    what = (row.get("goal") or "")[:40] if row["run"] == "current" else "earlier run (re-planned or failed plan)"
    return f"{row['key'][:8]} {place}: {what}"


def notes(result: dict[str, Any]) -> list[str]:
    """The lines under the table: the check against state.json, and what was not counted."""
    runs, lines = result["runs"], result["lines"]
    out = []
    if runs["checked"]:
        out.append(
            f"{runs['matching']} of {runs['checked']} runs match their state.json to the token and the cent"
            + ("" if not runs["mismatches"] else ": " + "; ".join(_mismatch(m) for m in runs["mismatches"]))
        )
    if runs["unverified"]:
        out.append(f"{runs['unverified']} runs were planned before events carried run ids; not checked")
    if lines["without_run_id"]:
        out.append(f"{lines['without_run_id']} calls were logged before events carried run ids")
    if lines["malformed"]:
        out.append(f"{lines['malformed']} lines of events.jsonl could not be read and were skipped")
    if not result["rows"]:
        out.append("no model calls recorded" + (" in that time" if result["since"] else ""))
    return out


def _mismatch(found: dict[str, Any]) -> str:
    first = found["differences"][0]
    return f"{os.path.basename(found['run_dir'])} {first['field']}: events {first['events']}, state {first['state']}"
