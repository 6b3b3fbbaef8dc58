"""What a long autopilot run's Codex conversation costs, with and without the bound on its history.

Runs the real bridge in-process against the scripted Responses server, which bills as a provider does
(scripted/billing.py: ~4 characters a token, the whole conversation every call, the repeated prefix cached in
128-token blocks). One run is a plan, then CALLS / 2 rounds of: grow feature.py by a dozen functions, review,
verdict (continue), commit. The same run is repeated for each history bound (`AUTOPILOT_MAX_HISTORY_TOKENS`;
0: unbounded, the behaviour before the bound). Prints, per bound: the largest history any call carried,
restarts, total input and cached tokens, the dollars at gpt-6.2-sol's price, and the input of the last
ten calls against the first ten (flat: linear growth; rising: quadratic). With --plot PATH it draws calls
against tokens, unbounded and bounded (matplotlib if it is installed, else an SVG drawn here).

Writes nothing outside a temp dir (and PATH).
Usage: python bench/bench_conversation.py [--calls 100] [--bounds 0,2500,5000,10000,20000] [--plot FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from autopilot.cli import main as bridge  # noqa: E402
from autopilot.loop.backends import Usage  # noqa: E402
from autopilot.loop.budget import charge_budget  # noqa: E402
from autopilot.scripted.responses_server import ResponsesServer, reply_json  # noqa: E402

MODEL = "gpt-6.2-sol"
PLAN = {
    "summary": "grow a module",
    "tasks": [{"id": "T1", "title": "Add the steps", "description": "add step functions", "acceptance": ["done"]}],
}
APPROVE = {"decision": "approve", "summary": "looks right", "issues": []}
CONTINUE = {"decision": "continue", "reason": "add more", "next_task_id": "T1", "progressed": True, "criteria": []}


def answer(body: dict) -> dict:
    name = ((body.get("text") or {}).get("format") or {}).get("name", "")
    return reply_json(CONTINUE if name.endswith("verdict") else APPROVE)


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b"}
    subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, env={**env, "GIT_COMMITTER_EMAIL": "b@b"}
    )


def run(calls: int, bound: int) -> list[dict[str, int]]:
    """One run of ``calls`` review and verdict calls under ``bound``; the server's bill for each call (plan aside)."""
    with tempfile.TemporaryDirectory(prefix="bench-conversation-") as tmp, ResponsesServer(responder=answer) as srv:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        git(repo, "init", "-q")
        (repo / "README.md").write_text("# bench\n")
        git(repo, "add", ".")
        git(repo, "commit", "-qm", "init")
        saved = dict(os.environ)
        os.environ.update(
            AUTOPILOT_HOME=str(Path(tmp) / "home"),
            OPENAI_BASE_URL=srv.url,
            OPENAI_API_KEY="bench",
            AUTOPILOT_BACKEND="openai",
            AUTOPILOT_MODEL=MODEL,
            AUTOPILOT_MAX_HISTORY_TOKENS=str(bound),
        )
        os.environ.pop("CLAUDE_CODE_SESSION_ID", None)
        try:
            quiet = contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO())
            with quiet[0], quiet[1]:
                srv.push(reply_json(PLAN))
                args = ["--goal", "grow a module", "--max-iterations", str(calls), "--budget", "1000"]
                assert bridge(["-C", str(repo), "plan", *args]) == 0
                for n in range(calls // 2):
                    with open(repo / "feature.py", "a") as fh:
                        fh.writelines(
                            f"def step_{n}_{i}(x):\n    return x * {i} + {n}  # step {n}\n" for i in range(12)
                        )
                    assert bridge(["-C", str(repo), "review"]) == 0
                    assert bridge(["-C", str(repo), "verdict"]) == 0
                    git(repo, "add", "-A")
                    git(repo, "commit", "-qm", f"step {n}")
        finally:
            os.environ.clear()
            os.environ.update(saved)
        return srv.bills[1:]


def usd(bills: list[dict[str, int]]) -> float:
    total = 0.0
    for b in bills:
        total += charge_budget(MODEL, Usage(b["input_tokens"], b["cached_tokens"], b["output_tokens"]))[0]
    return total


def plot(path: Path, series: dict[str, list[dict[str, int]]]) -> str:
    """Calls against the input each call was billed for, one line per bound; matplotlib if installed, else SVG."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return _svg(path.with_suffix(".svg"), series)
    fig, (per_call, total) = plt.subplots(1, 2, figsize=(11, 4.2))
    for label, bills in series.items():
        inputs = [b["input_tokens"] for b in bills]
        running = [sum(inputs[: n + 1]) for n in range(len(inputs))]
        per_call.plot(range(1, len(inputs) + 1), inputs, label=label)
        total.plot(range(1, len(running) + 1), running, label=label)
    per_call.set(title="input billed per call", xlabel="call", ylabel="tokens")
    total.set(title="input billed so far", xlabel="call", ylabel="tokens")
    for ax in (per_call, total):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return str(path)


def _svg(path: Path, series: dict[str, list[dict[str, int]]]) -> str:
    width, height, pad = 640, 360, 50
    top = max(b["input_tokens"] for bills in series.values() for b in bills)
    lines = []
    for n, (label, bills) in enumerate(series.items()):
        step = (width - 2 * pad) / max(1, len(bills) - 1)
        points = " ".join(
            f"{pad + i * step:.1f},{height - pad - (height - 2 * pad) * b['input_tokens'] / top:.1f}"
            for i, b in enumerate(bills)
        )
        color = ("#c0392b", "#2471a3", "#229954", "#7d3c98")[n % 4]
        lines.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{points}"/>')
        lines.append(f'<text x="{pad + 10}" y="{pad + 18 * n}" fill="{color}">{label}</text>')
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
        f'font-size="12"><rect width="100%" height="100%" fill="white"/>'
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="black"/>'
        f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="black"/>'
        f'<text x="{width / 2}" y="{height - 15}">call</text>'
        f'<text x="5" y="{pad - 10}">input tokens (max {top:,})</text>' + "".join(lines) + "</svg>"
    )
    path.write_text(svg)
    return str(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--bounds", default="0,2500,5000,10000,20000")
    parser.add_argument("--plot", type=Path, help="write the calls-against-tokens chart here (.png)")
    args = parser.parse_args()
    bounds = [int(b) for b in args.bounds.split(",")]
    results = {}
    print(f"{args.calls} calls (review and verdict of a growing file), scripted server billing as a provider does")
    print(
        f"{'bound':>8} | {'max history':>11} | {'restarts':>8} | {'input':>10} | {'cached':>10} | {'USD':>7} | "
        f"{'last 10 / first 10':>18} | s"
    )
    for bound in bounds:
        started = time.perf_counter()
        bills = run(args.calls, bound)
        inputs = [b["input_tokens"] for b in bills]
        restarts = sum(1 for b in bills[1:] if b["history_tokens"] == 0)
        results[bound] = bills
        print(
            f"{bound or 'none':>8} | {max(b['history_tokens'] for b in bills):>11,} | {restarts:>8} | "
            f"{sum(inputs):>10,} | {sum(b['cached_tokens'] for b in bills):>10,} | {usd(bills):>7.4f} | "
            f"{sum(inputs[-10:]) / sum(inputs[:10]):>18.2f} | {time.perf_counter() - started:.0f}"
        )
    if args.plot:
        shown = {"unbounded (before)": results[bounds[0]]}
        default = 10_000 if 10_000 in results else bounds[-1]
        shown[f"bounded at {default:,} (after)"] = results[default]
        print(f"plot: {plot(args.plot, shown)}")
    print(
        json.dumps({str(b): [[x["input_tokens"], x["history_tokens"]] for x in bills] for b, bills in results.items()})
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
