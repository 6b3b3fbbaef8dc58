"""A packet's evidence as search documents: each with its role, outcome, paths, symbols and causal links.

Input is a verified packet and its evidence index (``packets.store.load``). Every evidence
entry of the packet's own session becomes one document; a tool call and its result (the two
references a test run, a failed command or an edit cites) become one, ``E4+E5``. Its
*role* comes from the claims that cite it (``test``, ``command``, ``edit``, ``objective``,
``constraint``, ``next-action``, ``pending``, ``blocker``, ``hypothesis``, ``message``,
``summary``), its *outcome* from what the command reported (``transcripts.validation``,
re-read from the excerpt where the packet records none), ``applied`` for an edit,
and ``claimed-fixed`` for a message that says something was fixed or passes (a claim,
never proof). *Causal links* follow the session's order: an edit is ``tested-by`` the next
test run; a test run ``tests`` the edits since the previous run and, when it failed, is
``fixed-by`` the applied edits after it (a failed command that is not a test run, by the applied
edits after it until it or a test run runs again: those of a file it names when there are some);
a "fixed" claim is ``based-on`` the last run before it that passed or failed (one that ran no test
proves nothing either way).
Symbols come from edit inputs and patches (and the definition that encloses an edit in the
file as the export saw it): an edit's are what it changed, not its patch's context lines; other
evidence's come from its text (test output, tracebacks, messages). Inherited references
(``P1.E3``) are indexed from their own packet, not again here. The excerpts were redacted
when the packet was built.
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING, Any

from autopilot.handoff.memory.autopilot import task_at
from autopilot.handoff.packets import claims
from autopilot.handoff.search import terms
from autopilot.handoff.transcripts.validation import basis as validation_basis
from autopilot.handoff.transcripts.validation import classify, kind_of
from autopilot.redact import is_secret_path

if TYPE_CHECKING:
    from autopilot.handoff.packets.shapes import Claim, EvidenceIndex, EvidenceItem, Packet
    from autopilot.handoff.search.shapes import Document

# A claim group's role; a reference cited by several groups takes the first role in ROLE_ORDER.
ROLES = {
    "objective": "objective",
    "constraints": "constraint",
    "nextAction": "next-action",
    "filesChanged": "edit",
    "validations": "test",
    "pendingCommands": "pending",
    "failedAttempts": "command",
    "abandonedApproaches": "approach",
    "blockers": "blocker",
    "hypotheses": "hypothesis",
    "latestMessages": "message",
    "compactionSummaries": "summary",
}
ROLE_ORDER: tuple[str, ...] = ("test", "command", "edit", "pending", "blocker", "objective", "next-action")
ROLE_ORDER += ("approach", "constraint", "hypothesis", "message", "summary")
FIXED_CLAIM = re.compile(
    r"\b(?:fixed|(?:all |both |the )?tests? (?:now )?pass(?:es|ed)?|passes now|works now|resolved|is green)\b", re.I
)
_TOOL_KEYS = frozenset({"file_path", "old_string", "new_string", "replace_all", "content", "command", "description"})
FIXES_MAX = 5  # the edits after a failed command that count as its fix
READ_SOURCE_MAX = 1 << 20  # the most of a changed file read to name the definition an edit sits in


def _line(entry: EvidenceItem) -> int:
    pointer = entry.get("pointer") or {}
    if isinstance(pointer.get("line"), int):
        return int(pointer["line"])
    found = re.match(r"L(\d+)", str(entry.get("event") or ""))
    return int(found.group(1)) if found else 0


def from_packet(pid: str, packet: Packet, evidence: EvidenceIndex) -> list[Document]:
    """The documents of one packet, in the shape :func:`autopilot.handoff.search.index.add_documents` takes."""
    source, repo = packet["source"], packet["repository"]
    entries = {e["ref"]: e for e in evidence.get("entries") or [] if isinstance(e, dict) and e.get("ref")}
    cited: dict[str, list[tuple[str, Claim]]] = {}
    pairs: dict[str, str] = {}  # a call's ref -> its result's ref
    for group, _, claim in claims.walk(packet):
        refs = [r for r in claim.get("refs") or [] if r in entries]
        if group in ("validations", "failedAttempts") and len(refs) == 2:
            pairs[refs[0]] = refs[1]
        for ref in refs:
            cited.setdefault(ref, []).append((group, claim))
    results = set(pairs.values())
    worktree = repo.get("worktree") or ""
    dirty = {d["path"]: d.get("contentHash") for d in repo.get("dirty") or [] if isinstance(d, dict)}
    docs: list[Document] = []
    for ref, entry in entries.items():
        if ref in results:
            continue  # indexed with its call
        result = entries.get(pairs.get(ref, ""))
        docs.append(_document(pid, ref, entry, result, cited.get(ref, []), worktree))
    _link(docs)
    tasks = [(str(t[0]), t[1]) for t in (packet.get("activeMemory") or {}).get("tasks") or [] if len(t) == 2]
    for doc in docs:
        task = task_at(tasks, doc.get("time"))
        if task:
            doc["task"] = task
        doc["git"] = {"head": repo.get("head"), "dirty": {p: dirty[p] for p in doc["files"] if p in dirty}}
        doc["kind"], doc["origin"], doc["agent"] = "evidence", pid, source.get("agent")
        doc["session"] = source.get("threadId") or source.get("sessionId")
        doc["repoId"], doc["worktreeId"], doc["worktree"] = repo.get("repoId"), repo.get("worktreeId"), worktree
        doc["branch"] = repo.get("sessionBranch") or repo.get("branch")
        doc["source"] = {"path": source.get("transcript"), "hash": source.get("hash")}
    return docs


def _document(
    pid: str,
    ref: str,
    entry: EvidenceItem,
    result: EvidenceItem | None,
    cited: list[tuple[str, Claim]],
    worktree: str,
) -> Document:
    roles = sorted({ROLES[g] for g, _ in cited}, key=ROLE_ORDER.index) or [str(entry.get("kind") or "event")]
    if roles[0] == "command" and kind_of(str(cited[0][1].get("input") or "")):
        roles[0] = "test"  # a failed test run is listed among failed attempts: it is still a test run
    role = roles[0]
    text = str(entry.get("excerpt") or "")
    pointer = {"event": entry.get("event"), **(entry.get("pointer") or {})}
    doc: Document = {
        "ref": ref if result is None else f"{ref}+{result['ref']}",
        "role": role,
        "roles": roles,
        "time": entry.get("timestamp"),
        "seq": _line(entry),
        "pointer": pointer,
        "text": text if result is None else f"{text}\n{result.get('excerpt') or ''}",
    }
    if result is not None:
        doc["resultPointer"] = {"event": result.get("event"), **(result.get("pointer") or {})}
    fallback: Claim = cited[0][1] if cited else {}
    claim = next((c for g, c in cited if ROLES[g] == role), fallback)
    files: list[str] = []
    symbols: list[str] = []
    if role == "edit":
        path = next((c.get("path") for g, c in cited if g == "filesChanged" and c.get("path")), None)
        if path:
            files.append(path)
        symbols += _edit_symbols(text, path, worktree)
        doc["outcome"] = {"status": claim.get("status") or "applied", "tool": claim.get("tool")}
    elif role in ("test", "command"):
        doc["outcome"] = _run_outcome(claim, result)
        doc["command"] = claim.get("command") or claim.get("input")
    elif role == "approach":
        doc["after"] = [str(r) for r in claim.get("after") or []]  # the failed run it gave up after (linked below)
    elif entry.get("kind") == "assistant" and FIXED_CLAIM.search(text):
        doc["outcome"] = {"status": "claimed-fixed", "basis": "the assistant says so: a claim, not proof"}
    for p in terms.paths(doc["text"]):
        rel = _relative(p, worktree)
        if rel not in files:
            files.append(rel)
    doc["paths"] = files
    doc["files"] = [p for p in files if not os.path.isabs(p) and _exists(worktree, p)]
    # an edit's symbols are what it changed (its context lines are unchanged code); other evidence's, its text's
    found = symbols if role == "edit" else symbols + terms.symbols(doc["text"])
    doc["symbols"] = list(dict.fromkeys(found))[: terms.MAX_SYMBOLS]
    doc["symbols"] = [s for s in doc["symbols"] if s not in _TOOL_KEYS]
    return doc


def _run_outcome(claim: Claim, result: EvidenceItem | None) -> dict[str, Any]:
    command = str(claim.get("command") or claim.get("input") or "")
    status, basis = claim.get("outcome"), claim.get("outcomeBasis")
    if not basis:  # a failed attempt, or a packet from before outcomes were read from the output: read it now
        text = str((result or {}).get("excerpt") or claim.get("error") or claim.get("output") or "")
        code = claim.get("exitCode")
        if not isinstance(code, int):
            code = 1 if claim.get("outcome") == "failed" or "error" in claim else 0
        judged = classify(command, code, text)
        status = {"pass": "passed", "fail": "failed"}.get(judged["outcome"], judged["outcome"])
        basis = f"{validation_basis(judged, code)} (read when indexed)"
    return {"status": status, "basis": basis, "exitCode": claim.get("exitCode"), "command": command}


def _edit_symbols(text: str, path: str | None, worktree: str) -> list[str]:
    """Identifiers an edit or patch changes, and the definition it sits in (from the file as it is)."""
    body = text.split(": ", 1)[1] if ": " in text else text
    try:
        args = json.loads(body)
    except ValueError:
        args = None
    changed: list[str] = []
    if isinstance(args, dict):
        changed = [str(args[k]) for k in ("new_string", "old_string", "content") if isinstance(args.get(k), str)]
        for edit in args.get("edits") or []:
            if isinstance(edit, dict):
                changed += [str(edit.get(k) or "") for k in ("new_string", "old_string")]
    else:  # a patch: its removed and added lines, and the functions its hunks name ("@@ def f")
        lines = body.split("\n")
        changed = ["\n".join(x[1:] for x in lines if x[:1] in ("-", "+") and not x.startswith(("---", "+++")))]
        changed += [x[2:] for x in lines if x.startswith("@@ ")]
    found: list[str] = []
    for chunk in changed:
        found += [s for s in terms.symbols(chunk, definitions=True) if s not in _TOOL_KEYS]
        found += [w for w in terms.IDENT.findall(chunk) if len(w) > 3 and w not in _TOOL_KEYS and "_" in w]
    if path and changed and not is_secret_path(path):
        source = _read(worktree, path)
        for chunk in changed:
            name = terms.enclosing(source, chunk.strip("\n").split("\n", 1)[0]) if source else None
            if name:
                found.insert(0, name)
    return list(dict.fromkeys(found))


def _read(worktree: str, path: str) -> str:
    full = path if os.path.isabs(path) else os.path.join(worktree, path)
    try:
        with open(full, encoding="utf-8", errors="replace") as fh:
            return fh.read(READ_SOURCE_MAX)
    except OSError:
        return ""


def _relative(path: str, worktree: str) -> str:
    if worktree and os.path.isabs(path) and path.startswith(worktree.rstrip("/") + "/"):
        return os.path.relpath(path, worktree)
    return path


def _exists(worktree: str, path: str) -> bool:
    return bool(worktree) and os.path.exists(os.path.join(worktree, path))


def _link(docs: list[Document]) -> None:
    """Causal links in session order: edit -> tested-by -> test; failed test -> fixed-by -> edits; claim -> based-on."""
    ordered = sorted(docs, key=lambda d: d["seq"])
    runs = [d for d in ordered if d["role"] == "test"]
    for doc in ordered:
        doc["links"] = []
    previous = 0
    for run in runs:
        edits = [d for d in ordered if d["role"] == "edit" and previous < d["seq"] < run["seq"]]
        run["links"] += [{"rel": "tests", "ref": e["ref"]} for e in edits]
        for e in edits:
            e["links"].append({"rel": "tested-by", "ref": run["ref"]})
            # a run's result holds for the files it tested: when they change, so does its freshness
            run["files"] += [f for f in e["files"] if f not in run["files"]]
        previous = run["seq"]
    # Only an edit that took effect can have fixed anything: one still pending or only proposed when the session
    # was read, or refused, never did.
    applied = [d for d in ordered if d["role"] == "edit" and (d.get("outcome") or {}).get("status") == "applied"]
    for i, run in enumerate(runs):
        if (run.get("outcome") or {}).get("status") != "failed":
            continue
        until = runs[i + 1]["seq"] if i + 1 < len(runs) else float("inf")
        fixes = [d for d in applied if run["seq"] < d["seq"] < until]
        run["links"] += [{"rel": "fixed-by", "ref": e["ref"]} for e in fixes]
        for e in fixes:
            e["links"].append({"rel": "fixes", "ref": run["ref"]})
    for command in (
        d for d in ordered if d["role"] == "command" and (d.get("outcome") or {}).get("status") == "failed"
    ):
        # a failed command that is not a test run (a script, a type check): the applied edits after it, until that
        # command (or a test run) ran again, are what fixed it; those of a file the command or its output names,
        # when there are any (the others are then other work)
        again = [d for d in ordered if d["seq"] > command["seq"] and (d["role"] == "test" or _same_command(d, command))]
        until = again[0]["seq"] if again else float("inf")
        said = str(command.get("text") or "")
        after = [d for d in applied if command["seq"] < d["seq"] < until]
        fixes = ([d for d in after if _names_a_file_of(said, d)] or after)[:FIXES_MAX]
        command["links"] += [{"rel": "fixed-by", "ref": e["ref"]} for e in fixes]
        for e in fixes:
            e["links"].append({"rel": "fixes", "ref": command["ref"]})
    decisive = [r for r in runs if (r.get("outcome") or {}).get("status") in ("passed", "failed")]
    for doc in ordered:
        if (doc.get("outcome") or {}).get("status") == "claimed-fixed":
            before = [r for r in decisive if r["seq"] < doc["seq"]]
            if before:
                doc["links"].append({"rel": "based-on", "ref": before[-1]["ref"]})
                doc["files"] += [f for f in before[-1]["files"] if f not in doc["files"]]
    for doc in ordered:  # an approach given up: the failed run it followed, which links the attempt's edits
        runs_before = set(doc.pop("after", []))
        tried = next((d for d in ordered if runs_before & set(d["ref"].split("+"))), None) if runs_before else None
        if tried is not None:
            doc["links"].append({"rel": "gave-up-after", "ref": tried["ref"]})
            doc["files"] += [f for f in tried["files"] if f not in doc["files"]]
    by_ref = {d["ref"]: d for d in docs}
    for doc in ordered:  # what a run or a claim is about: its command, and the files and symbols of its edits
        doc["subject"] = _subject(doc, by_ref)


def _names_a_file_of(text: str, edit: Document) -> bool:
    """Whether ``text`` names a file ``edit`` changed (its path as recorded, or its file name; one the edit created
    counts too, though the worktree no longer has it)."""
    changed = [*(edit.get("files") or []), *(edit.get("paths") or [])]
    return any(f in text or os.path.basename(f) in text for f in changed if f)


def _same_command(doc: Document, command: Document) -> bool:
    return bool(doc.get("command")) and " ".join(str(doc["command"]).split()) == " ".join(
        str(command["command"]).split()
    )


def _subject(doc: Document, by_ref: dict[str, Document]) -> list[str]:
    keys = [f"path:{p}" for p in doc["files"]] + [f"symbol:{s}" for s in doc["symbols"][:8]]
    if doc.get("command"):
        keys.append("command:" + " ".join(str(doc["command"]).split()))
    for link in doc["links"]:
        if link["rel"] in ("tests", "based-on"):
            target = by_ref.get(link["ref"]) or {}
            keys += [k for k in target.get("subject") or _subject({**target, "links": []}, by_ref) if k not in keys]
    return keys
