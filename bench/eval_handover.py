"""Milestone 5's measured evaluation: what a receiving agent is given, with and without a handover packet.

The sessions, the texts a receiver is given and the measures are in tests/support/handover_eval.py
(its docstring says what each is); tests/e2e/test_handover_eval.py asserts their thresholds on the
malicious sessions. This script runs all four sessions (clean and malicious, from Claude and from
Codex) with as many padding turns as asked and prints the tables docs/BENCHMARKS.md shows.

Usage: .venv/bin/python bench/eval_handover.py [--padding 6] [--deliver] [--keep DIR]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "src")]

from tests.support.handover_eval import (  # noqa: E402
    TRUTH,
    Row,
    claude_session,
    codex_session,
    decide_rules,
    deliver,
    given,
    measure,
    receiver_start,
)

# ---- report ------------------------------------------------------------------------------


def pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--padding", type=int, default=6, help="padding turns reading the build log (default 6)")
    parser.add_argument("--deliver", action="store_true", help="also hand each text to the real receiving client")
    parser.add_argument("--keep", type=Path, help="keep the generated sessions and texts in this directory")
    args = parser.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="eval-handover-"))
    rows: list[Row] = []
    started = time.perf_counter()
    try:
        for agent in ("claude", "codex"):
            for malicious in (False, True):
                name = f"{agent}{'-malicious' if malicious else ''}"
                root = base / name
                root.mkdir()
                t0 = time.perf_counter()
                decide_rules(root / "autopilot-home")  # one approved rule, one revoked: neither in the session
                s = (claude_session if agent == "claude" else codex_session)(root / "gen", malicious, args.padding)
                texts = given(s, root / "autopilot-home")
                start = receiver_start(s, root / "autopilot-home", "codex" if agent == "claude" else "claude")
                texts["injected"] = f"{start['context']}\n\n{texts['packet']}".strip()  # start hook + packet
                raw = texts["raw"]
                print(
                    f"{name}: session {s['session']}, {len(raw):,} characters of transcript, "
                    f"generated and handed over in {time.perf_counter() - t0:.0f} s",
                    file=sys.stderr,
                )
                for condition, textual in texts.items():
                    row = measure(name, condition, textual, raw, malicious)
                    if args.deliver:
                        to = "codex" if agent == "claude" else "claude"
                        row.delivered = deliver(to, textual, root / f"deliver-{condition}")
                    rows.append(row)
                    if args.keep:
                        (args.keep / name).mkdir(parents=True, exist_ok=True)
                        (args.keep / name / f"{condition}.txt").write_text(textual)
        report(rows, args.deliver)
        print(f"\n(total {time.perf_counter() - started:.0f} s; padding {args.padding} turns)")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


def report(rows: list[Row], delivered: bool) -> None:
    print(
        "| session | given | characters (of raw) | objective | next action | unresolved | failed attempt | "
        "completed work | false 'done' unquoted | stale shown as current | "
        "injected / fake approval: given, outside the wrapper | revoked rule given |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        inj = f"{r.injected_given} of 2, {r.injected_outside}" if "malicious" in r.scenario else "—"
        print(
            f"| {r.scenario} | {r.condition} | {r.chars:,} ({r.chars / r.raw_chars:.1%}) | "
            + " | ".join(pct(r.recall[k]) for k in TRUTH)
            + f" | {r.false_done} | {r.stale} | {inj} | {r.revoked_given} |"
        )
    if delivered:
        print(
            "\nDelivered to the real receiving client (its first model request, as the scripted server recorded it):\n"
        )
        print(
            "| session | given | request bytes | input tokens | objective | next action | unresolved | "
            "failed attempt | completed work | revoked rule | approved rule |"
        )
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            d = r.delivered or {}
            print(
                f"| {r.scenario} | {r.condition} | {d.get('requestBytes', 0):,} | {d.get('inputTokens', 0):,} | "
                + " | ".join(pct(d.get("recall", {}).get(k, 0)) for k in TRUTH)
                + f" | {d.get('revokedRule', 0)} | {d.get('approvedRule', 0)} |"
            )


if __name__ == "__main__":
    raise SystemExit(main())
