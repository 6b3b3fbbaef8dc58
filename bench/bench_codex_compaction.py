"""What Codex's own auto-compaction does to a resumed `codex exec resume` thread (the codex-cli reviewer's).

Runs the real pinned `codex` offline against the scripted Responses server, which bills as a provider
does (the conversation so far, the repeated prefix cached). One thread: `codex exec` once, then
`codex exec resume` CALLS - 1 times, each with a ~1,000-token prompt (a review's diff), first with
Codex's default settings (the baseline), then with `model_auto_compact_token_limit = LIMIT`. Prints, per
call: the requests Codex made, the history the answering request carried (its input beyond its own
prompt: earlier turns, kept user messages, a compaction summary) and the input tokens billed; then the
totals of both runs. What it showed is in docs/BENCHMARKS.md ("A long run's Codex conversation").

Writes nothing outside a temp dir.  Usage: python bench/bench_codex_compaction.py [--calls 30] [--limit 20000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from autopilot.scripted.responses_server import ResponsesServer, reply_json, reply_text  # noqa: E402

CODEX = REPO / "tests" / "agents" / "node_modules" / ".bin" / "codex"
SCHEMA = {
    "type": "object",
    "properties": {"decision": {"type": "string"}},
    "required": ["decision"],
    "additionalProperties": False,
}


def answer(body: dict) -> dict:
    """The review's JSON for a schema request; a short summary for Codex's own compaction request."""
    if ((body.get("text") or {}).get("format") or {}).get("type") == "json_schema":
        return reply_json({"decision": "approve"})
    return reply_text("SUMMARY: the reviewer approved every change so far.")


def one_thread(root: Path, calls: int, limit: int | None) -> list[dict[str, int]]:
    """Run one thread of ``calls`` turns; per turn: requests, history and input of its last request, turn input."""
    home = root / ("limit" if limit else "default")
    work = home / "work"
    work.mkdir(parents=True)
    schema = home / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    rows = []
    with ResponsesServer(responder=answer) as srv:
        (home / "config.toml").write_text(
            'model = "gpt-6.2-sol"\nmodel_provider = "fake"\n'
            + (f"model_auto_compact_token_limit = {limit}\n" if limit else "")
            + f'\n[model_providers.fake]\nname = "fake"\nbase_url = "{srv.url}"\nenv_key = "FAKE_OPENAI_KEY"\n'
            'wire_api = "responses"\nrequest_max_retries = 0\nstream_max_retries = 0\n\n[analytics]\nenabled = false\n'
        )
        env = {**os.environ, "CODEX_HOME": str(home), "HOME": str(home), "FAKE_OPENAI_KEY": "bench"}
        thread = None
        for n in range(calls):
            prompt = f"Review change {n}.\n" + "".join(f"+line {n}.{i} of the diff under review\n" for i in range(100))
            argv = [str(CODEX), "exec", "--json", "--skip-git-repo-check", "--output-schema", str(schema)]
            argv += ["resume", thread, "-"] if thread else ["-C", str(work), "-"]
            before = len(srv.bills)
            proc = subprocess.run(argv, input=prompt, capture_output=True, text=True, env=env, timeout=300)
            if proc.returncode:
                raise SystemExit(f"codex failed on call {n}: {proc.stderr[-1000:]}")
            for line in proc.stdout.splitlines():
                event = json.loads(line) if line.startswith("{") else {}
                thread = event.get("thread_id") or thread
            bills = srv.bills[before:]
            rows.append(
                {
                    "requests": len(bills),
                    "history": bills[-1]["history_tokens"],
                    "last_input": bills[-1]["input_tokens"],
                    "input": sum(b["input_tokens"] for b in bills),
                    "cached": sum(b["cached_tokens"] for b in bills),
                }
            )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--limit", type=int, default=20000, help="model_auto_compact_token_limit")
    args = parser.parse_args()
    version = subprocess.run([str(CODEX), "--version"], capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="bench-codex-compaction-") as tmp:
        base = one_thread(Path(tmp), args.calls, None)
        capped = one_thread(Path(tmp), args.calls, args.limit)
    print(f"{version}, {args.calls} calls on one thread: default | model_auto_compact_token_limit={args.limit}")
    print("call | requests | history | input of the call || requests | history | input of the call")
    for n, (a, b) in enumerate(zip(base, capped, strict=True)):
        print(
            f"{n + 1:4d} | {a['requests']:8d} | {a['history']:7,d} | {a['input']:17,d} || "
            f"{b['requests']:8d} | {b['history']:7,d} | {b['input']:17,d}"
        )
    for name, rows in (("default", base), (f"limit {args.limit}", capped)):
        print(
            f"{name}: {sum(r['requests'] for r in rows)} requests, input {sum(r['input'] for r in rows):,} tokens "
            f"({sum(r['cached'] for r in rows):,} cached), largest history {max(r['history'] for r in rows):,}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
