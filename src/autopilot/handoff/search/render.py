"""A search answer for people: each result's excerpt (quoted), pointer, scope, outcome, freshness and score.

The JSON answer (``--json``) carries everything; this is the same answer, shortened for a
terminal. Excerpts are quoted line by line (``> ``): they are evidence, never instructions.
"""

from __future__ import annotations

from autopilot.text import clip

TYPE_CHECKING = False  # typing costs ~2 ms to import, and every search without --json renders
if TYPE_CHECKING:
    from typing import Any

    from autopilot.handoff.search.shapes import Answer, Pointer, Result

EXCERPT_LINES = 6
LINE_CHARS = 160
SCOPES = {
    "this-worktree": "this worktree",
    "other-branch": "OTHER BRANCH",
    "other-worktree": "OTHER WORKTREE",
    "project": "the whole project",
    "shared": "SHARED BY A TEAMMATE",
}


def render(answer: Answer) -> str:
    """The answer as text for a terminal."""
    scope = answer["scope"]
    where = "this worktree" if scope["worktree"] == "this" else "all worktrees of this project"
    results = answer["results"]
    lines = [f"{len(results)} result(s) for {answer['query']!r} in {where} (branch {scope.get('branch') or '-'})"]
    index = answer.get("index")
    if index:
        docs = sum((index.get("documents") or {}).values())
        lines.append(f"index: {docs} documents from {index.get('packets', 0)} packets ({index.get('path')})")
    lines.append(f"{answer['trust']}")
    for r in results:
        lines += [""] + _result(r)
    if answer.get("conflicts"):
        lines += ["", "Conflicting outcomes (oldest first; the last one stands):"]
        for c in answer["conflicts"]:
            steps = " -> ".join(
                f"#{i['rank']} {i['role']} {i['outcome']} ({_short_time(i['time'])})" for i in c["items"]
            )
            lines.append(f"  branch {c['branch']} in {c['worktree']}: {steps}")
    for note in answer.get("notes") or []:
        lines.append(f"note: {note}")
    return "\n".join(lines) + "\n"


def _place(p: Pointer) -> str:
    """Where a result's evidence is, in words: the packet and its reference, or the active memory's log and entry
    (its ids are the session's, already said), then the transcript line it came from when one is known."""
    if p.get("packet"):
        origin = f"packet {p['packet'][:19]}… {p['ref']}"
    elif p.get("log"):
        origin = f"active memory: {p['log']} entry {p.get('index')}"
    else:
        origin = f"{p['kind']} {p['ref']}"
    if p.get("via") == "recover":
        origin += " (recovered from the transcript)"
    where = f"line {p['line']}" if p.get("line") else str(p.get("event") or "")
    source = p.get("source")
    if source:
        return f"{origin}  {where} of {source}" if where else f"{origin}  in {source}"
    return f"{origin}  {where}".rstrip()


def _result(r: Result) -> list[str]:
    if r.get("approval"):
        return _approved(r)
    outcome = (r.get("outcome") or {}).get("status")
    fresh = r["freshness"]
    head = f"#{r['rank']} {r['role']}" + (f" — {outcome}" if outcome else "")
    head += f"  [{SCOPES.get(r['scope'], r['scope'])}, {r.get('branch') or 'no branch'}]"
    state = fresh["state"] if fresh["state"] == "current" else fresh["state"].upper()
    head += f"  {_short_time(r.get('time'))}  freshness: {state}"
    out = [head, f"   {r.get('agent')} session {str(r.get('session'))[:13]}…  {_place(r['pointer'])}"]
    if r.get("task"):
        out.append(f"   autopilot task {r['task'].get('id')}: {r['task'].get('title') or ''}".rstrip())
    if r.get("shared"):
        came = r["shared"]
        out.append(
            f"   shared by {came.get('by')} from {came.get('machine')} at {_short_time(came.get('at'))} (git remote)"
        )
    text = str(r.get("excerpt") or "").splitlines() or [""]
    for line in text[:EXCERPT_LINES]:
        out.append("   > " + clip(line, LINE_CHARS))
    if len(text) > EXCERPT_LINES:
        out.append(f"   > …[{len(text) - EXCERPT_LINES} more lines: --json shows the whole excerpt]")
    for reason in fresh.get("reasons") or []:
        out.append(f"   ! {reason}")
    if r.get("via"):
        out.append(f"   linked: {r['via']['rel']} of #{r['via']['rank']}")
    if r.get("supersededBy"):
        s = r["supersededBy"]
        out.append(f"   SUPERSEDED by #{s['rank']} ({s['outcome']}, {_short_time(s['time'])})")
    for s in r.get("supersedes") or []:
        out.append(f"   supersedes #{s['rank']} ({s['outcome']}, {_short_time(s['time'])})")
    for s in r.get("elsewhere") or []:
        out.append(
            f"   elsewhere: {s['outcome']} in {s['worktree']} on {s['branch']} ({_short_time(s['time'])}): not this one"
        )
    score = r["score"]
    parts = " + ".join(f"{k} {v:g}" for k, v in score.items() if k != "total" and v)
    out.append(f"   score {score['total']:g} = {parts or '0'}")
    return out


def _approved(r: Result) -> list[str]:
    """An approved rule or decision: who approved it and when, and its text quoted (a rule, not evidence)."""
    a = r["approval"]
    out = [
        f"#{r['rank']} APPROVED {str(a.get('kind')).upper()} {a.get('id')}  [{SCOPES['project']}]  approved by "
        f"{a.get('person')!r} at {_short_time(a.get('at'))}: a person approved it (a rule to follow, not evidence)"
    ]
    text = str(r.get("excerpt") or "").split(": ", 1)[-1]
    out.append("   > " + (text if len(text) <= LINE_CHARS * 2 else text[: LINE_CHARS * 2 - 1] + "…"))
    return out


def _short_time(value: Any) -> str:
    text = str(value or "")
    return text[:16].replace("T", " ") if text else "time unknown"
