"""A maintained detector list against the project's redactor: what it would add on the corpus, what it would cost.

Issue 35 asks to prefer a maintained list, consumed as data with its licence respected, to a hand list. This bench
measures gitleaks' default rules (MIT; its ``config/gitleaks.toml``, given with ``--gitleaks``: the file is not
vendored) run as Python regular expressions, each gated by its keywords as gitleaks gates them and held to its
entropy: on the secret corpus (``tests/support/secret_corpus.py``), how many shapes it matches and how many of the
shapes the redactor leaks (``--baseline`` commit's redactor, loaded from git history) it would catch; over the
ordinary text of ``bench_false_positives.py`` (site-packages, ``git log -p``, the transcript fixtures), how many
spans per MB it matches, by rule. The translation from Go's RE2 (``(?i)`` in the middle of a pattern, ``\\z``,
POSIX classes) is ours; no gitleaks code is used.

Usage: .venv/bin/python bench/bench_maintained_lists.py --gitleaks PATH/gitleaks.toml [--baseline COMMIT]
"""

from __future__ import annotations

import argparse
import math
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))


def translate(rx: str) -> str:
    """A gitleaks (RE2) pattern as Python reads it: a ``(?i)`` past the start scoped to the rest of its group."""
    rx = rx.replace(r"\z", r"\Z").replace("[[:alnum:]]", "[A-Za-z0-9]").replace("[:alnum:]", "A-Za-z0-9")
    at = rx.find("(?i)", 1)
    while at > 0:
        depth, end = 0, at + 4
        while end < len(rx):
            c = rx[end]
            if c == "\\":
                end += 2
                continue
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
            end += 1
        rx = rx[:at] + "(?i:" + rx[at + 4 : end] + ")" + rx[end:]
        at = rx.find("(?i)", 1)
    return rx


def bits(value: str) -> float:
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in Counter(value).values()) if n else 0.0


def load(path: Path) -> list[tuple[str, re.Pattern[str], list[str], float | None, int | None]]:
    rules = []
    for r in tomllib.loads(path.read_text(encoding="utf-8"))["rules"]:
        if "regex" in r:
            keywords = [k.lower() for k in r.get("keywords", [])]
            rules.append((r["id"], re.compile(translate(r["regex"])), keywords, r.get("entropy"), r.get("secretGroup")))
    return rules


def scan(rules: list, text: str) -> list[tuple[str, str]]:
    lowered, hits = text.lower(), []
    for rid, pattern, keywords, entropy, group in rules:
        if keywords and not any(k in lowered for k in keywords):
            continue
        for m in pattern.finditer(text):
            secret = m.group(group) if group else next((g for g in m.groups() if g), m.group(0))
            if not entropy or bits(secret or "") >= entropy:
                hits.append((rid, secret or ""))
    return hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gitleaks", type=Path, required=True, help="gitleaks' config/gitleaks.toml")
    parser.add_argument("--baseline", default="main", help="the redactor whose leaks are counted (default: main)")
    args = parser.parse_args()
    from bench_false_positives import baseline_src, fixture_files, git_log, site_files
    from tests.support.secret_corpus import shapes

    rules = load(args.gitleaks)
    corpus = shapes()
    with tempfile.TemporaryDirectory(prefix="bench-lists-") as tmp:
        src = baseline_src(args.baseline, Path(tmp) / "base")
        probe = (
            "import json, sys; sys.path.insert(0, sys.argv[1]); from autopilot.redact import redact; "
            "print(json.dumps([redact(t)[0] for t in json.loads(sys.stdin.read())]))"
        )
        import json

        outs = json.loads(
            subprocess.run(
                [sys.executable, "-c", probe, str(src)],
                input=json.dumps([s.text for s in corpus]),
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        leaking = [s for s, out in zip(corpus, outs, strict=True) if any(n in out for n in s.needles)]
        caught = [s.name for s in leaking if any(any(n in hit for n in s.needles) for _, hit in scan(rules, s.text))]
        matched = sum(bool(scan(rules, s.text)) for s in corpus)
        print(f"## gitleaks' {len(rules)} rules against the redactor at {args.baseline}\n")
        print(f"- the corpus: {len(corpus)} shapes; gitleaks matches something in {matched}")
        print(f"- the redactor at {args.baseline} leaks {len(leaking)}; gitleaks would catch {len(caught)}: {caught}")
        (Path(tmp) / "log").mkdir()
        sources = {
            "site-packages": site_files(Path(sys.prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
                                        / "site-packages"),
            "git log -p": git_log(args.baseline, Path(tmp) / "log"),
            "transcript fixtures": fixture_files(),
        }  # fmt: skip
        by_rule: Counter[str] = Counter()
        started = time.process_time()
        for name, files in sources.items():
            size, spans = 0, 0
            for path in files:
                try:
                    text = Path(path).read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    continue
                size += len(text)
                hits = scan(rules, text)
                spans += len(hits)
                by_rule.update(rid for rid, _ in hits)
            print(f"- {name}: {size / 1e6:.1f} MB, {spans:,} spans, {spans / (size / 1e6):.2f} per MB")
        print(f"- by rule: {', '.join(f'{rid} {n}' for rid, n in by_rule.most_common(12))}")
        print(f"\n(scanned in {time.process_time() - started:.0f} s of CPU)")


if __name__ == "__main__":
    main()
