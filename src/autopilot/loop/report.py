"""The cost report: spend and tokens of every model call in every run's events.jsonl, grouped, and checked
against the runs' own totals.

Every model call is one line of ``events.jsonl`` (``loop/reviewer.py``): its phase, model, tokens
(``input`` counts cached input too, as state.json does), USD and the id of the run it was charged to.
A run's state.json keeps the same totals (``token_usage`` per phase; ``plan_usd`` for the plan,
``budget_used_usd`` for reviews and verdicts) until a new plan resets them, while the old calls stay
in events.jsonl. So calls are attributed by run id: the calls of each run now in a state.json must
add up to its totals exactly (tokens to the token; USD to the 1e-10 dollar every logged amount is
rounded to); calls of replaced runs and failed plans are reported as "earlier runs"; lines written
before events carried run ids are counted apart. Lines that are not a call (a Claude StopFailure)
are skipped; lines that cannot be read are counted, never fatal.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from autopilot import clock, paths
from autopilot.errors import BridgeError
from autopilot.loop.migrations import PHASES
from autopilot.loop.state import Store

if TYPE_CHECKING:
    from typing_extensions import TypeIs

    from autopilot.loop.shapes import CostReport, CostRow, Difference, RunCheck, RunLabel, RunRow, Spent

GROUPS = ("day", "run", "model", "phase")
# Money is added in whole units of 1e-10 USD: every amount the bridge logs is rounded to 10 decimals
# (budget.charge_budget), so integer sums are exact in any order and equal the runs' own add_usd totals.
UNITS_PER_USD = 10**10
NO_RUN_ID = "(no run id)"
DEFAULT_MODEL = "(codex default)"
OTHER, MALFORMED = "other", "malformed"


@dataclass
class Totals:
    """What a group of calls used and cost (``units``: USD in 1e-10)."""

    calls: int = 0
    failed: int = 0
    input: int = 0
    cached: int = 0
    output: int = 0
    units: int = 0

    def add(self, call: Call) -> None:
        """Count one call in."""
        self.calls += 1
        self.failed += call.failed
        self.input += call.input
        self.cached += call.cached
        self.output += call.output
        self.units += call.units

    def as_dict(self) -> Spent:
        """The totals as JSON shows them, USD as a number."""
        return {
            "calls": self.calls,
            "failed": self.failed,
            "input": self.input,
            "cached": self.cached,
            "output": self.output,
            "usd": self.units / UNITS_PER_USD,
        }


@dataclass(slots=True)
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
    units: int
    failed: bool


@dataclass
class Run:
    """One run directory: the run its state.json holds now, and every call its events.jsonl logged."""

    dir: str
    state: dict[str, Any] | None  # as state.json has it, unmigrated (a report changes no run)
    calls: list[Call] = field(default_factory=list)


def parse_since(text: str | None) -> str | None:
    """``--since`` as the events' own timestamp format (UTC), so strings compare in time order; a date means
    its midnight UTC, a time without a zone is UTC."""
    if text is None:
        return None
    try:
        moment = clock.parse(text)
    except ValueError:
        raise BridgeError(
            f"--since must be a date (YYYY-MM-DD) or an ISO time (YYYY-MM-DDTHH:MM), not {text!r}"
        ) from None
    return clock.iso_us(moment)


def _call(raw: object, run_dir: str) -> Call | str:
    """The call a decoded line records, else OTHER (an event that is not a call) or MALFORMED.

    Types are checked exactly (``type(x) is int``: a JSON true is not a token count) and cheaply: a report
    reads every line ever logged.
    """
    if type(raw) is not dict:
        return MALFORMED
    tokens = raw.get("tokens")
    ts, phase = raw.get("ts"), raw.get("phase")
    if tokens is None:
        return OTHER if type(phase) is str and type(ts) is str else MALFORMED
    if type(tokens) is not dict or type(ts) is not str or phase not in PHASES:
        return MALFORMED
    inp, cached, out, usd = tokens.get("input", 0), tokens.get("cached", 0), tokens.get("output", 0), raw.get("usd")
    if type(inp) is not int or type(cached) is not int or type(out) is not int or min(inp, cached, out) < 0:
        return MALFORMED
    if (type(usd) is not float and type(usd) is not int) or not 0 <= usd < 1e9:  # NaN fails both comparisons
        return MALFORMED
    run_id, model = raw.get("run_id"), raw.get("model")
    return Call(
        ts,
        phase,
        model if type(model) is str and model else DEFAULT_MODEL,
        run_id if type(run_id) is str and run_id else None,
        run_dir,
        inp,
        cached,
        out,
        round(usd * UNITS_PER_USD),
        raw.get("outcome", "ok") != "ok",
    )


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
        run = Run(entry.path, Store.peek(entry.path))
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


def check(run: Run) -> RunCheck:
    """How the calls logged for the run in ``run.state`` compare with its totals: ``match``, ``mismatch`` (with
    each differing field) or ``unverified`` (no plan call carries its id: planned before events had run ids)."""
    state = run.state or {}
    run_id = state.get("run_id")
    logged = {phase: Totals() for phase in PHASES}
    for call in run.calls:
        if run_id and call.run_id == run_id:
            logged[call.phase].add(call)
    workspace = state.get("workspace")
    if not logged["plan"].calls:
        return {"run_id": run_id, "workspace": workspace, "run_dir": run.dir, "result": "unverified", "differences": []}
    differences: list[Difference] = []
    usage = state.get("token_usage") or {}
    for phase, totals in logged.items():
        kept = usage.get(phase) or {}
        for key in ("input", "cached", "output", "calls"):
            if kept.get(key) != getattr(totals, key):
                differences.append(
                    {"field": f"token_usage.{phase}.{key}", "events": getattr(totals, key), "state": kept.get(key)}
                )
    for key, units in (
        ("plan_usd", logged["plan"].units),
        ("budget_used_usd", logged["review"].units + logged["verdict"].units),
    ):
        kept_usd = state.get(key)
        if (
            isinstance(kept_usd, bool)
            or not isinstance(kept_usd, (int, float))
            or round(kept_usd * UNITS_PER_USD) != units
        ):
            differences.append({"field": key, "events": units / UNITS_PER_USD, "state": kept_usd})
    verdict = "mismatch" if differences else "match"
    return {"run_id": run_id, "workspace": workspace, "run_dir": run.dir, "result": verdict, "differences": differences}


KEYS: dict[str, Callable[[Call], str]] = {
    "day": lambda call: call.ts[:10],  # UTC, as logged
    "model": lambda call: call.model,
    "phase": lambda call: call.phase,
    "run": lambda call: call.run_id or f"{NO_RUN_ID} {call.run_dir}",
}


def _run_label(key: str, run: Run) -> RunLabel:
    """Who a run-id row is: the run ``run``'s state.json holds now, an earlier run of its directory (re-planned,
    or a plan that failed), or calls logged without a run id."""
    state = run.state or {}
    if key.startswith(NO_RUN_ID):
        return {"run": "no run id", "workspace": state.get("workspace"), "goal": None}
    if state.get("run_id") == key:
        return {"run": "current", "workspace": state.get("workspace"), "goal": state.get("goal")}
    return {"run": "earlier", "workspace": state.get("workspace"), "goal": None}


def report(*, by: str = "day", since: str | None = None, root: Path | None = None) -> CostReport:
    """Spend and tokens grouped ``by`` day, run, model or phase (calls at or after ``since``), their total, and
    every current run's check against its state.json (always over all its calls)."""
    if by not in GROUPS:
        raise BridgeError(f"--by must be one of {', '.join(GROUPS)}, not {by!r}")
    start = parse_since(since)
    runs, counts = read_runs(root)
    key_of = KEYS[by]
    groups: dict[str, Totals] = {}
    home: dict[str, tuple[Run, str]] = {}  # group key -> its run directory and first call (for --by run)
    without_run_id = 0
    for run in runs:
        for call in run.calls:  # in the order they were logged
            if start is not None and call.ts < start:
                continue
            key = key_of(call)
            totals = groups.get(key)
            if totals is None:
                totals = groups[key] = Totals()
                home[key] = (run, call.ts)
            totals.add(call)
            without_run_id += call.run_id is None
    total = Totals()
    for totals in groups.values():
        for name in ("calls", "failed", "input", "cached", "output", "units"):
            setattr(total, name, getattr(total, name) + getattr(totals, name))
    rows: list[CostRow | RunRow] = []
    # Days, models and phases by name; runs by directory, then in the order they started.
    order = sorted(groups, key=lambda k: (home[k][0].dir, home[k][1]) if by == "run" else k)
    for key in order:
        if by == "run":
            rows.append({"key": key, **groups[key].as_dict(), **_run_label(key, home[key][0])})
        else:
            rows.append({"key": key, **groups[key].as_dict()})
    checks = [check(run) for run in runs if (run.state or {}).get("run_id")]
    return {
        "by": by,
        "since": start,
        "rows": rows,
        "total": total.as_dict(),
        "runs": {
            "checked": sum(c["result"] != "unverified" for c in checks),
            "matching": sum(c["result"] == "match" for c in checks),
            "unverified": sum(c["result"] == "unverified" for c in checks),
            "mismatches": [c for c in checks if c["result"] == "mismatch"],
        },
        "lines": {
            "files": counts["files"],
            "other": counts[OTHER],
            "malformed": counts[MALFORMED],
            "calls": sum(len(r.calls) for r in runs),
            "without_run_id": without_run_id,
        },
    }


def table(result: CostReport) -> list[str]:
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


def _is_run_row(row: CostRow | RunRow) -> TypeIs[RunRow]:
    """Whether a row is a run's (``--by run``: it says which run it is)."""
    return "run" in row


def _label(row: CostRow | RunRow, by: str) -> str:
    if by != "run" or not _is_run_row(row):
        return str(row["key"])
    if row["run"] == "no run id":
        return str(row["key"])
    place = os.path.basename(str(row.get("workspace") or "")) or "?"
    what = (row.get("goal") or "")[:40] if row["run"] == "current" else "earlier run (re-planned or failed plan)"
    return f"{row['key'][:8]} {place}: {what}"


def notes(result: CostReport) -> list[str]:
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


def _mismatch(found: RunCheck) -> str:
    first = found["differences"][0]
    return f"{os.path.basename(found['run_dir'])} {first['field']}: events {first['events']}, state {first['state']}"
