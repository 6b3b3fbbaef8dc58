"""Approved rules to the agents: in the hooks that inject the active memory, changed ones only, labelled.

The rules in force in a worktree are the administrator's managed rules (:mod:`.managed`) first, then
the person's approved rules and decisions for its repository (and those for every project), each with
its approver and approval time, then the team's (shared through the git remote and approved by a
signature git verified: the ``signed`` channel of :mod:`.view`), each with who approved it on their
machine, its signer and the commit. Candidates never are: nothing proposed reaches an agent until a person
approves it. Before a turn (the moments the active memory is injected: a session's start, after a
compaction or ``/clear``, and the first prompt after a rule changed) the session gets the rules it does
not know yet, and a one-line "no longer applies: …" for each rule it was given that was revoked,
superseded or removed since; after a compaction or ``/clear`` it gets them all again. What a session
knows is in its active-memory directory, ``rules.jsonl`` (one record per delivery, appended) and
``rules.mark`` (the stamp :func:`autopilot.handoff.memory.observe.rules_stamp` the hooks' fast path compares).

The rules come before the active memory's facts in the same ``additionalContext`` and share the hook's
output cap: the rules take at most :data:`RULES_CHARS`, withdrawals first, and what does not fit comes
next time. The rule text is quoted (JSON string syntax) under a header that says who approved it.

When a running session is given rules between its turns (the first prompt after a change), the person sees one
``systemMessage`` line naming them and any withdrawn, whatever made the change: nothing reaches a running
session unseen. At a session's start (``startup`` or ``resume``) the person also hears, in one ``systemMessage`` line,
when the approved set changed since their last session (``durable/seen.json``), and when the log or its
view was tampered with or the administrator's rules were refused: a same-user process that rewrites
the files under the home directory cannot be stopped by anything local, but it is noticed, unless it
rewrites ``seen.json`` (or the home) too: that file is the person's user's like the rest, so the notice
catches what does not know the bridge's files, not what is written to defeat it (docs/durable.md).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from autopilot.clock import now_ms
from autopilot.digest import sha256_hex
from autopilot.errors import BridgeError
from autopilot.fsutil import atomic_write
from autopilot.handoff.memory import observe
from autopilot.handoff.memory.inject import hook_answer as facts_answer
from autopilot.handoff.memory.inject import session_store
from autopilot.handoff.memory.store import SessionStore
from autopilot.handoff.packets.memory import after_tool
from autopilot.handoff.sources.project import Project
from autopilot.knowledge.durable import managed
from autopilot.knowledge.durable.anchor import fingerprint as anchor_fingerprint
from autopilot.knowledge.durable.view import APPROVED, PASSPHRASE, REVOKED, SIGNED, SUPERSEDED, Reader, applies, home
from autopilot.output import one_line, quoted

if TYPE_CHECKING:
    from collections.abc import Callable

    from autopilot.handoff.memory.autopilot import RunOf
    from autopilot.knowledge.durable.shapes import Claim, InForce, Managed, View

    Vouch = Callable[[str, list[Claim]], set[str]]  # the repository's check of the team's signed rules

RULES = observe.RULES
RULES_CHARS = 4000  # of the hook's output cap (hooks.TEXT_CAP, 9,500), before the active memory's facts
TEXT_CHARS = 1000  # one rule's text in an injection
WITHDRAWN_CHARS = 160  # the old text in a "no longer applies" line
NOTICE_CHARS = 600
SEPARATOR = "\n\n"
UNDELIVERED = "-"  # a rules.mark no stamp equals: something is left to deliver
HEADER = (
    "codex-autopilot rules for this project: instructions a person approved (not evidence, not the agent's "
    "own notes). Follow them; each says who approved it and when."
)
MANAGED_TITLE = "Managed by this machine's administrator ({path}), above the person's own:"
APPROVED_TITLE = "Approved by the person with their approval passphrase:"
SHARED_TITLE = (
    "Shared by the team through the project's git remote, in commits SSH-signed by a signer the repository's "
    ".codex-autopilot/allowed_signers lists:"
)
TIERS = ("managed", "approved", "shared")
UNSIGNED_WHY = (
    "without the person's signature",
    "signed for another text",
    "which is not an anchor",
    "does not verify",
)
WITHDRAWN_TITLE = "Withdrawn (do not follow these any more):"


def _q(text: str, limit: int) -> str:
    """``text`` quoted as a JSON string on one line, cut to ``limit`` (``output.quoted``)."""
    return quoted(text, limit)


def _fingerprint(tier: str, rid: str, kind: str, text: str, by: str, at: str) -> str:
    return sha256_hex("\0".join((tier, rid, kind, text, by or "", at or "")).encode())[:16]


def in_force(
    worktree: str, view: View | None = None, vouch: Vouch | None = None
) -> tuple[list[InForce], Managed, list[str]]:
    """The rules in force in ``worktree`` (managed first, then approved, oldest approval first), the managed tier's
    state (``path``, ``refused``), and the team's rules left out because ``vouch`` (the repository's check of the
    commit and key a ``signed`` line names: ``knowledge/share/vouch.py``, passed by the adapters) did not vouch for
    them. Without ``vouch`` no shared rule is in force: a log line alone never makes one."""
    view = Reader().view() if view is None else view
    try:
        repo_id: str | None = Project(worktree).repo_id
    except BridgeError:  # not a git repository: only the rules for every project hold
        repo_id = None
    tier = managed.load()
    items = [_held(r["id"], r["kind"], r["text"], "managed", "the administrator", r["modified"]) for r in tier["rules"]]
    approved = [r for r in view["rules"].values() if r["status"] == APPROVED and applies(r, repo_id)]
    approved.sort(key=lambda r: ((r.get("approved") or {}).get("at") or "", r["id"]))
    claims: list[Claim] = [
        {
            "id": r["id"],
            "commit": str((r.get("approved") or {}).get("commit") or ""),
            "key": str((r.get("approved") or {}).get("key") or ""),
            "share": str(((r.get("source") or {}).get("share") or {}).get("id") or ""),
        }
        for r in approved
        if (r.get("approved") or {}).get("channel") == SIGNED
    ]
    vouched = vouch(worktree, claims) if vouch is not None and claims else set()
    unvouched = [c["id"] for c in claims if c["id"] not in vouched]
    for r in approved:
        if r["id"] in unvouched:
            continue
        decision = r.get("approved") or {}
        kind, text = str(r.get("kind") or "rule"), str(r.get("text") or "")
        signed = decision.get("channel") == SIGNED  # the team's: approved by a signature git verified
        item = _held(
            r["id"],
            kind,
            text,
            "shared" if signed else "approved",
            str(decision.get("person") or ""),
            str(decision.get("at") or ""),
        )
        if signed:
            item["commit"] = str(decision.get("commit") or "")
            item["approvedBy"] = str(((r.get("source") or {}).get("share") or {}).get("approvedBy") or "")
        items.append(item)
    return items, tier, unvouched


def _held(rid: str, kind: str, text: str, tier: str, by: str, at: str) -> InForce:
    """A rule in force, with the fingerprint a session compares to tell it changed."""
    fp = _fingerprint(tier, rid, kind, text, by, at)
    return {"id": rid, "kind": kind, "text": text, "tier": tier, "by": by, "at": at, "fp": fp}


def _line(item: InForce) -> str:
    text = _q(item["text"], TEXT_CHARS)
    if item["tier"] == "managed":
        return f"- {item['id']} ({item['kind']}): {text}"
    if item["tier"] == "shared":
        return (
            f"- {item['id']} ({item['kind']}, approved by {_q(item.get('approvedBy') or '', 80)} on their machine, "
            f"signed by {_q(item['by'], 80)} in commit {item.get('commit', '')[:12]}, delivered here at {item['at']}): "
            f"{text}"
        )
    return f"- {item['id']} ({item['kind']}, approved by {_q(item['by'], 80)} at {item['at']}): {text}"


def _withdrawal(rid: str, old_text: str, view: View, tier: Managed) -> str:
    """One "no longer applies" line: the rule, its old text, and why (revoked, superseded, removed)."""
    rule = view["rules"].get(rid)
    if rid.startswith("M-"):
        why = f"the administrator's rules were refused: {tier['refused']}" if tier.get("refused") else None
        why = why or "removed from the administrator's rules"
    elif rule is None:
        why = "no longer in the durable log"
    elif rule["status"] == REVOKED:
        revoked = rule.get("revoked") or {}
        why = f"revoked by {_q(str(revoked.get('person') or ''), 80)} at {revoked.get('at')}"
        if revoked.get("channel") == SIGNED:
            why += f" (a signed revocation shared in commit {str(revoked.get('commit') or '')[:12]})"
        if revoked.get("reason"):
            why += f": {_q(str(revoked['reason']), 200)}"
    elif rule["status"] == SUPERSEDED:
        why = f"superseded by {rule.get('supersededBy')}"
    else:
        why = f"now {rule['status']}"
    return f"- no longer applies: {rid} {_q(old_text, WITHDRAWN_CHARS)} ({why})"


def _known(store: SessionStore) -> tuple[dict[str, list[str]], dict[str, str]]:
    """What the session was given and still holds (id -> [fingerprint, text]), and every rule it was ever given."""
    records = store.read(RULES, "known").records
    if not records:
        return {}, {}
    last = records[-1]
    known, ever = last.get("known"), last.get("ever")
    return (dict(known) if isinstance(known, dict) else {}), (dict(ever) if isinstance(ever, dict) else {})


def before_turn(
    store: SessionStore, event: str, data: dict[str, Any], room: int, vouch: Vouch | None = None
) -> tuple[str, list[str]]:
    """The rules block for this turn (empty when the session knows them all) and the notices for the person."""
    stamp = observe.rules_stamp()  # taken first: a change after it makes the next prompt due again
    view = Reader().view()
    items, tier, unvouched = in_force(store.worktree, view, vouch)
    source = data.get("source") if event == "SessionStart" else None
    reset = source in ("compact", "clear")
    known, ever = _known(store)
    if reset:
        known = {}
    force = {i["id"]: i for i in items}
    withdrawn = [rid for rid in (ever if reset else known) if rid not in force]
    fresh = [i for i in items if (known.get(i["id"]) or [""])[0] != i["fp"]]
    notices = _notices(view, tier, items) if source in ("startup", "resume", None) and event == "SessionStart" else []
    if unvouched:
        notices.append(
            f"codex-autopilot: {len(unvouched)} rule(s) the durable log says the team signed do not verify in this "
            f"repository (no such commit, not its record, or not a trusted key's signature): not delivered "
            f"({', '.join(unvouched[:4])}; codex-bridge share list)"
        )
    mid_session = event != "SessionStart"  # a change delivered between turns: the person hears of it now
    if not fresh and not withdrawn:
        atomic_write(store.dir / observe.RULES_MARK, stamp + "\n", durable=False)
        return "", notices
    limit = min(RULES_CHARS, room)
    lines = [HEADER]
    used = len(HEADER)
    left = 0
    gone_lines = []
    for rid in withdrawn:
        text = (known.get(rid) or ["", ""])[1] or ever.get(rid, "")
        line = _withdrawal(rid, str(text), view, tier)
        if used + len(WITHDRAWN_TITLE) + len(line) + 2 > limit:
            left += 1
            continue
        gone_lines.append(line)
        used += len(line) + 1
        known.pop(rid, None)
    if gone_lines:
        used += len(WITHDRAWN_TITLE) + 1
    shown: list[InForce] = []
    blocks: dict[str, list[str]] = {name: [] for name in TIERS}
    titles = {"managed": MANAGED_TITLE.format(path=tier["path"]), "approved": APPROVED_TITLE, "shared": SHARED_TITLE}
    for item in fresh:
        line = _line(item)
        title = titles[item["tier"]]
        extra = len(line) + 1 + (0 if blocks[item["tier"]] else len(title) + 1)
        if used + extra > limit:
            left += 1
            continue
        blocks[item["tier"]].append(line)
        used += extra
        shown.append(item)
    for tier_name in TIERS:
        if blocks[tier_name]:
            lines += [titles[tier_name], *blocks[tier_name]]
    if gone_lines:
        lines += [WITHDRAWN_TITLE, *gone_lines]
    for item in shown:
        known[item["id"]] = [item["fp"], item["text"][:WITHDRAWN_CHARS]]
        ever[item["id"]] = item["text"][:WITHDRAWN_CHARS]
    if not shown and not gone_lines:
        atomic_write(store.dir / observe.RULES_MARK, UNDELIVERED + "\n", durable=False)
        return "", notices
    if left:
        lines.append(f"({left} more rule change(s) next turn: codex-bridge durable list --status approved)")
    block = "\n".join(lines)
    if mid_session:
        notices.append(_changed_now(shown, withdrawn[: len(gone_lines)]))
    _record(store, event, source, [i["id"] for i in shown], withdrawn[: len(gone_lines)], known, ever, left, block)
    atomic_write(store.dir / observe.RULES_MARK, (UNDELIVERED if left else stamp) + "\n", durable=False)
    return block, notices


def _record(
    store: SessionStore,
    event: str,
    source: Any,
    delivered: list[str],
    withdrawn: list[str],
    known: dict[str, list[str]],
    ever: dict[str, str],
    left: int,
    block: str,
) -> None:
    record: dict[str, Any] = {
        "v": observe.VERSION,
        "kind": "rules",
        "at": now_ms(),
        "agent": store.agent,
        "session": store.session,
        "event": event,
        "delivered": delivered,
        "withdrawn": withdrawn,
        "omitted": left,
        "bytes": len(block.encode("utf-8")),  # what the session's context got (codex-bridge report adds them up)
        "chars": len(block),
        "known": known,
        "ever": ever,
    }
    if source in ("compact", "clear"):
        record["reset"] = source
    store.append(RULES, [record])


# -- the person's notice at a session's start ------------------------------------------------------------


def _notices(view: View, tier: Managed, items: list[InForce]) -> list[str]:
    """The one line the person sees at a session's start, when something changed or is wrong (else nothing)."""
    approved = {
        rid: _fingerprint(
            "approved",
            rid,
            str(r.get("kind") or "rule"),
            str(r.get("text") or ""),
            str((r.get("approved") or {}).get("person") or ""),
            str((r.get("approved") or {}).get("at") or ""),
        )
        for rid, r in view["rules"].items()
        if r["status"] == APPROVED
    }
    now_managed = {i["id"]: i["fp"] for i in items if i["tier"] == "managed"}
    seen_path = home() / "seen.json"
    seen: dict[str, Any] | None
    try:
        loaded = json.loads(seen_path.read_bytes())
        seen = loaded if isinstance(loaded, dict) else {}
    except (OSError, ValueError):
        seen = None
    parts: list[str] = []
    got = (seen or {}).get("approved")
    before: dict[str, Any] = got if isinstance(got, dict) else {}
    changes = _changes(before, approved, view)
    got = (seen or {}).get("managed")
    was_managed: dict[str, Any] = got if isinstance(got, dict) else {}
    if changes:
        parts.append("the approved rules changed since your last session: " + "; ".join(changes))
    got = (seen or {}).get("managedLast")
    last_managed = dict(got) if isinstance(got, dict) else was_managed
    if now_managed:
        last_managed = now_managed
    if last_managed and not now_managed:  # said at every session start until they are back
        why = tier.get("refused") or f"{tier['path']} is gone or holds no rule"
        parts.append(
            f"the administrator's {len(last_managed)} rule(s) that were in force are missing ({why}): "
            "your sessions run without them; tell your administrator if they did not remove them"
        )
    elif now_managed != was_managed:
        parts.append(f"the administrator's rules changed ({len(now_managed)} in force)")
    integrity = view["integrity"]
    if integrity.get("viewRebuilt"):
        parts.append("rules.json disagreed with the log and was rebuilt from it")
    forged = [r for r in integrity.get("refusedLines") or [] if _is_unsigned(r["why"])]
    if forged:
        parts.append(
            f"{len(forged)} decision(s) in the durable log are not signed by your approval key (written by something "
            "else, or edited): none of them is delivered"
        )
    if (
        integrity.get("chainBreaks")
        or len(integrity.get("refusedLines") or []) > len(forged)
        or integrity.get("malformedLines")
    ):
        parts.append(
            f"the durable log has {len(integrity.get('chainBreaks') or [])} broken link(s), "
            f"{len(integrity.get('refusedLines') or [])} refused and {integrity.get('malformedLines') or 0} "
            "malformed line(s): was it edited by hand?"
        )
    parts += _anchor_notices(view, (seen or {}).get("anchors"))
    last = (seen or {}).get("lastHash")
    if isinstance(last, str) and last != view["lastHash"] and not _still_in_log(last):
        parts.append("the durable log was rewritten since your last session (a line it had is gone)")
    if tier.get("refused"):
        parts.append(f"the administrator's rules were not used: {tier['refused']}")
    passphrase, set_at = _passphrase()
    if seen is not None and passphrase != (seen or {}).get("passphrase"):
        parts.append(
            f"the approval passphrase was {'removed' if passphrase is None else f'set or changed ({set_at})'}: "
            f"if that was not you, remove {home() / PASSPHRASE} and set your own (codex-bridge durable secret)"
        )
    if approved or now_managed or seen is not None or passphrase is not None:
        atomic_write(
            seen_path,
            json.dumps(
                {
                    "at": now_ms(),
                    "approved": approved,
                    "managed": now_managed,
                    "managedLast": last_managed,
                    "lastHash": view["lastHash"],
                    "passphrase": passphrase,
                    "anchors": view["anchors"]["trusted"],
                },
                sort_keys=True,
            )
            + "\n",
            durable=False,
        )
    if not parts:
        return []
    line = "codex-autopilot: " + "; ".join(parts) + " (codex-bridge durable list)"
    if len(line) > NOTICE_CHARS:
        line = line[: NOTICE_CHARS - 30] + "… (codex-bridge durable list)"
    return [one_line(line)]


def _is_unsigned(why: str) -> bool:
    """Whether a refused line is a decision that is not the person's (``view.unverified``)."""
    return any(w in why for w in UNSIGNED_WHY)


def _anchor_notices(view: View, seen_trusted: Any) -> list[str]:
    """What the person hears of their approval keys: a reset not confirmed (every session start, with what waits on
    it), a key trusted since their last session (once), and anchors that hold nothing."""
    anchors = view["anchors"]
    parts = []
    for key, at in anchors["pending"].items():
        waiting = sum(1 for r in view["rules"].values() for d in r.get("pending") or [] if d.get("key") == key)
        parts.append(
            f"the approval passphrase was set at {at[:16]} without the one before it (removed, forgotten, or replaced "
            f"by something else): the {waiting} decision(s) made with it are not delivered until you confirm it at "
            "your terminal (codex-bridge durable confirm); if you did not set it, something running as you did: set "
            "your own (codex-bridge durable secret) and do not confirm"
        )
    if isinstance(seen_trusted, list) and seen_trusted:  # (the first key: the passphrase's own line says it was set)
        for key in anchors["trusted"]:
            if key in seen_trusted:
                continue
            confirmed = anchors["confirmedResets"].get(key)
            how = f"confirmed at {confirmed[:16]} after a reset" if confirmed else "set with the one before it"
            parts.append(f"a new approval key ({anchor_fingerprint(key)}) was {how}: if that was not you, say so")
    if anchors["problems"]:
        parts.append("the approval anchors hold entries that count for nothing: " + "; ".join(anchors["problems"][:3]))
    return parts


def _changed_now(shown: list[InForce], withdrawn: list[str]) -> str:
    """The person's line when a session is given rules between its turns: what it follows now, and what no longer.

    Whatever made the change (the person's approval, a teammate's signed push, or a line a same-user process wrote
    into the log), nothing reaches a running session without the person seeing this line in it.
    """
    parts = [f"{i['id']} ({i['tier']}, approved by {_q(i['by'], 40)} at {i['at'][:16]})" for i in shown[:4]]
    if len(shown) > 4:
        parts.append(f"and {len(shown) - 4} more")
    line = "codex-autopilot: "
    if parts:
        line += "this session now follows " + "; ".join(parts)
    if withdrawn:
        line += ("; " if parts else "") + "no longer follows " + ", ".join(withdrawn[:6])
    line += " (codex-bridge durable list)"
    return one_line(line if len(line) <= NOTICE_CHARS else line[: NOTICE_CHARS - 30] + "… (codex-bridge durable list)")


def _passphrase() -> tuple[str | None, str | None]:
    """A fingerprint of the passphrase's hash record (None: none is set) and when it was set."""
    try:
        data = (home() / PASSPHRASE).read_bytes()
    except OSError:
        return None, None
    try:
        rec = json.loads(data)
        at = str(rec.get("set")) if isinstance(rec, dict) else None
    except ValueError:
        at = None
    return sha256_hex(data)[:16], at


def _changes(before: dict[str, Any], now: dict[str, str], view: View) -> list[str]:
    out = []
    for rid, fp in now.items():
        if before.get(rid) == fp:
            continue
        rule = view["rules"][rid]
        decision = rule.get("approved") or {}
        verb = "approved" if rid not in before else "changed"
        if decision.get("channel") == SIGNED:  # the team's, through the git remote: the signature is what decided
            verb = "shared by the team, signed"
        out.append(f"{rid} {verb} by {_q(str(decision.get('person') or ''), 40)} ({str(decision.get('at'))[:16]})")
    for rid in before:
        if rid in now:
            continue
        left = view["rules"].get(rid)
        status = left["status"] if left else "gone from the log"
        revoked = left.get("revoked") if left else None
        who = revoked.get("person") if revoked else None
        out.append(f"{rid} {status}" + (f" by {_q(str(who), 40)}" if who else ""))
    if len(out) > 4:
        out = [*out[:4], f"and {len(out) - 4} more"]
    return out


def _still_in_log(last_hash: str) -> bool:
    return any(sha256_hex(line) == last_hash for line in Reader().lines())


# -- the hook answer: rules, then the active memory's facts ----------------------------------------------

TURN_EVENTS = ("SessionStart", "UserPromptSubmit")  # the events that carry context into a turn


def hook_answer(
    agent: str, event: str, data: dict[str, Any], room: int, run_of: RunOf | None = None, vouch: Vouch | None = None
) -> dict[str, Any] | None:
    """The hook JSON for ``event``: the rules block and the changed facts in ``additionalContext`` (rules first,
    within ``room`` characters together), the person's notice as ``systemMessage``; None when there is nothing.
    ``run_of`` reads a worktree's autopilot run for the memory (the adapters pass loop's; knowledge never reads it)."""
    store = session_store(agent, data)
    if store is None:
        return None
    if event not in TURN_EVENTS:  # a compaction or a tool call: the memory's own work, never rules
        seeded = after_tool(agent, data) if event == "PostToolUse" else []
        answer = facts_answer(agent, event, data, room=room, run_of=run_of)
        if seeded:
            said = [*(([answer["systemMessage"]]) if answer and answer.get("systemMessage") else []), *seeded]
            answer = {**(answer or {}), "systemMessage": "\n".join(said)}
        return answer
    rules, notices = before_turn(store, event, data, room, vouch)
    left = room - (len(rules) + len(SEPARATOR) if rules else 0)
    facts = facts_answer(agent, event, data, room=left, run_of=run_of) if left > 0 else None
    text = ((facts or {}).get("hookSpecificOutput") or {}).get("additionalContext")
    context = SEPARATOR.join(t for t in (rules, text) if t)
    notices = [*notices, *([facts["systemMessage"]] if facts and facts.get("systemMessage") else [])]
    out: dict[str, Any] = {}
    if context:
        out["hookSpecificOutput"] = {"hookEventName": event, "additionalContext": context}
    if notices:
        out["systemMessage"] = "\n".join(notices)
    return out or None
