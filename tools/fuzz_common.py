"""The command line and the loop the in-process differential fuzz tools share (tools/fuzz_stats.py,
tools/fuzz_compare.py, tools/fuzz_ranx.py; fuzz_trec_eval / fuzz_pref_eval, which drive a peer's checkout, share
``fuzz_pref_eval.fuzz_arguments`` instead).

    --seconds S   stop after S seconds of CPU of this process (default 20)
    --cases N     run N cases (no time bound)
    --seed S      the seed of the cases (case i is made from (S, i) alone)
    --case S:I    one case again, its findings printed in full
    --only A,B    a subset of the tool's checks

Findings are printed as found, one JSON line each (cut at 4,000 characters but with ``--case``), so a long run stopped
early keeps them; the summary (cases, findings, CPU seconds, the count of every outcome) goes to stderr. Exit 0 when
nothing differs, 1 otherwise, 2 for a bad option (one line).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence

#: run_case(seed, index, checks, counts, findings): one case's checks, outcomes counted, findings appended
RunCase = Callable[[int, int, list, Counter, list], None]


def outcome(counts: Counter, findings: list, case_id: str) -> Callable:
    """The ``out(name, ok, ctx, got, want)`` of a case: ok None counts a documented class, True/False a check."""
    def out(name, ok, ctx, got, want) -> None:
        if ok is None:
            counts[name] += 1
            return
        counts[f"{name}_{'same' if ok else 'DIFFERENT'}"] += 1
        if not ok:
            findings.append({"case": case_id, "check": name, "input": ctx, "ours": got, "oracle": want})
    return out


def main(prog: str, doc: str, checks: Sequence[str], run_case: RunCase, argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0, help="stop after this many seconds of CPU (default 20)")
    ap.add_argument("--cases", type=int, default=0, help="run this many cases (no time bound)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--case", help="one case SEED:INDEX")
    ap.add_argument("--only", default=",".join(checks), help=f"comma-separated subset of {','.join(checks)}")
    args = ap.parse_args(argv)
    todo = [c for c in args.only.split(",") if c]
    bad = [c for c in todo if c not in checks]
    if bad:
        print(f"{prog}: unknown check {bad[0]!r}; expected some of {','.join(checks)}", file=sys.stderr)
        return 2
    seed = args.seed
    if args.case:
        try:
            seed, index = (int(v) for v in args.case.split(":"))
        except ValueError:
            print(f"{prog}: --case expects SEED:INDEX (two integers), got {args.case!r}", file=sys.stderr)
            return 2
    counts: Counter = Counter()
    findings: list = []
    t0 = time.process_time()
    if args.case:
        run_case(seed, index, todo, counts, findings)
        ran = 1
        for f in findings:
            print(json.dumps(f, default=str), flush=True)
    else:
        ran = 0
        while (ran < args.cases) if args.cases else (time.process_time() - t0 < args.seconds):
            before = len(findings)
            run_case(seed, ran, todo, counts, findings)
            for f in findings[before:]:  # as found: a long run stopped early keeps them
                print(json.dumps(f, default=str)[:4000], flush=True)
            ran += 1
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    print(f"{prog}: {ran} cases (seed {seed}), {len(findings)} findings, {time.process_time() - t0:.1f} s CPU: "
          f"{summary}", file=sys.stderr)
    return 1 if findings else 0
