"""zelo_fit as users run it: the whole command (read, fit with standard errors, write the TSV).

Run:  python bench/bench_zelo_cli.py [--repeat N] [--big]

Inputs from bench/gen_judgments.py: 1,000 queries x 100 documents x 4 cycles (400,000
judgments) as canonical JSONL and as Clarke's 4-column text, and 5,300 queries as JSONL
(issue #13 targets: <= 1.0 s and <= 4 s wall on a 2-core machine). ``--big`` adds 25,000
queries (10 M judgments; target: peak memory <= 2 GB). Whole process: best wall time of N runs
(after one untimed run, with cached bytecode: ``_timing.bytecode_env``), the CPU time (user+sys)
of that best run, and the peak resident memory. Writes bench/RESULTS-zelo-cli.md and the README
table; a target missed is marked **no**.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import bytecode_env, cmd, load, run, stamp, write_result  # noqa: E402
from gen_judgments import write  # noqa: E402


def _children_cpu() -> float:
    """User + system CPU seconds of the waited-for child processes so far."""
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--big", action="store_true")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-zelo-cli-")
    env = bytecode_env(os.path.join(tmp, "pycache"))
    cases = [(1000, "jsonl", "≤ 1.0 s"), (1000, "clarke4", "≤ 1.0 s"), (5300, "jsonl", "≤ 4 s")]
    if args.big:
        cases.append((25000, "jsonl", "≤ 2 GB"))
    load0 = load()
    rows = []
    for nq, fmt, target in cases:
        path = os.path.join(tmp, f"j{nq}.{fmt}")
        n = write(path, nq, fmt)
        out = os.path.join(tmp, "out.tsv")
        argv = cmd("zelo_fit", "-J", path, "-o", out)
        if nq <= 5300:
            run(argv, env=env)  # untimed: writes the bytecode cache, warms the file cache
        best_t, best_cpu, mem = float("inf"), 0.0, 0.0
        for _ in range(1 if nq > 5300 else args.repeat):
            c0 = _children_cpu()
            t, m = run(argv, env=env)
            mem = max(mem, m)
            if t < best_t:
                best_t, best_cpu = t, _children_cpu() - c0
        limit = float(target.split()[1])
        ok = mem <= limit * 1024 if target.endswith("GB") else best_t <= limit
        rows.append(f"| {nq:,} | {n:,} | {fmt} | {best_t:.2f} | {best_cpu:.2f} | {mem:.0f} | {target} | "
                    f"{'yes' if ok else '**no**'} |")
        os.unlink(path)
    text = ("| queries | judgments | format | best wall s | its CPU s | peak MB | target | met? |\n"
            "|---|---|---|---|---|---|---|---|\n"
            + "\n".join(rows) + f"\n\n`zelo_fit -J FILE -o OUT` (standard errors, TSV); best of {args.repeat}. "
            + stamp(load0, load(), f"python bench/bench_zelo_cli.py --repeat {args.repeat}"
                    + (" --big" if args.big else "")))
    print(text)
    write_result("zelo-cli", "zelo_fit end to end (bench/bench_zelo_cli.py)", text)


if __name__ == "__main__":
    main()
