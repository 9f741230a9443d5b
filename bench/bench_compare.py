"""Benchmark of zelo_compare's statistics (issue 5 speed targets).

    python bench/bench_compare.py [--runs 63] [--queries 53] [--measures 20] [--resamples 10000] [--repeat 3]

Synthetic per-query values (beta-distributed, 4 decimals, like IR measures)
for R runs x Q queries x M measures; all R(R-1)/2 pairs of runs per measure.
Times pref_eval.stats.compare() (after importing scipy/statsmodels/pandas, so
import time is reported separately) and prints a table:

* t, Wilcoxon, sign + Holm                       (target <= 2 s)
* randomization (B resamples) + Holm             (target <= 10 s)
* bootstrap (B resamples, BCa) + Holm            (no target)
* randomised Tukey HSD (B resamples)             (no target)

"best s" is the best wall time of --repeat round-robin runs, "cpu s" the best
process CPU time (BLAS may use several threads, so it can exceed the wall
time); on a shared machine the load average printed first matters.
``--write`` puts the table (with the date, the CPU model and the load average)
into README.md between ``<!-- compare:begin -->`` and ``<!-- compare:end -->``
and into bench/RESULTS-stats.md.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import load, stamp, write_result  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=63)
    ap.add_argument("--queries", type=int, default=53)
    ap.add_argument("--measures", type=int, default=20)
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3, help="best of N timings (round-robin over the cases)")
    ap.add_argument("--skip-slow", action="store_true", help="skip bootstrap and Tukey")
    ap.add_argument("--write", action="store_true", help="write the table into README.md (Significance tests) "
                    "and bench/RESULTS-stats.md between the markers")
    args = ap.parse_args()
    load0 = load()

    t0, c0 = time.perf_counter(), time.process_time()
    import numpy as np
    import pandas as pd
    import scipy
    import scipy.stats  # noqa: F401
    import statsmodels

    from pref_eval.stats import compare
    t_import, c_import = time.perf_counter() - t0, time.process_time() - c0

    R, M, Q = args.runs, args.measures, args.queries
    rng = np.random.default_rng(2024)
    X = np.round(rng.beta(2, 5, (R, M, Q)) + np.linspace(0, 0.05, R)[:, None, None], 4)
    r, m, q = np.meshgrid(np.arange(R), np.arange(M), np.arange(Q), indexing="ij")
    df = pd.DataFrame({"run": np.array([f"run{i:02d}" for i in range(R)])[r.ravel()],
                       "qid": np.array([f"q{k}" for k in range(Q)])[q.ravel()],
                       "measure": np.array([f"m{j}" for j in range(M)])[m.ravel()],
                       "value": X.ravel()})
    pairs = R * (R - 1) // 2
    cases = [("t + Wilcoxon + sign, Holm", dict(tests="t,wilcoxon,sign"), 2.0),
             (f"randomization, B = {args.resamples:,}, Holm", dict(tests="randomization", resamples=args.resamples),
              10.0)]
    if not args.skip_slow:
        cases += [(f"bootstrap BCa, B = {args.resamples:,}, Holm", dict(tests="bootstrap", resamples=args.resamples),
                   None),
                  (f"randomised Tukey HSD, B = {args.resamples:,}", dict(tests="tukey", resamples=args.resamples),
                   None)]
    print(f"# {R} runs x {Q} queries x {M} measures = {pairs} pairs x {M} measures = {pairs * M} comparisons")
    versions = (f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
                f"pandas {pd.__version__}, statsmodels {statsmodels.__version__}")
    print(f"# {versions}; {platform.machine()}, {os.cpu_count()} CPU(s)")
    print(f"# import numpy/scipy.stats/pandas/statsmodels/pref_eval.stats: {t_import:.2f} s")
    print(f"# {load0}")
    best = {name: [float("inf"), float("inf"), 0] for name, _, _ in cases}
    for k in range(args.repeat):  # round-robin; the untargeted (slow) cases once
        for name, kw, target in cases:
            if target is None and k > 0:
                continue
            t, c = time.perf_counter(), time.process_time()
            res = compare(df, **kw)
            wall, cpu = time.perf_counter() - t, time.process_time() - c
            b = best[name]
            b[0], b[1], b[2] = min(b[0], wall), min(b[1], cpu), len(res.records)
    load1 = load()
    print(f"{'case':<40} {'best s':>8} {'cpu s':>8} {'target':>8} {'records':>9}")
    rows = [f"| imports (numpy, scipy.stats, pandas, statsmodels, pref_eval.stats) | {t_import:.2f} | {c_import:.2f} "
            "| | |"]
    for name, _, target in cases:
        wall, cpu, n = best[name]
        tgt = f"≤ {target:g} s" if target else ""
        ok = "" if target is None else ("yes" if wall <= target else "**no**")
        flag = "" if target is None or wall <= target else "  OVER TARGET"
        print(f"{name:<40} {wall:>8.2f} {cpu:>8.2f} {tgt:>8} {n:>9}{flag}")
        rows.append(f"| {name} ({n:,} records) | {wall:.2f} | {cpu:.2f} | {tgt} | {ok} |")
    again = ("python bench/bench_compare.py"
             + "".join(f" --{k} {v}" for k, v, d in (("runs", R, 63), ("queries", Q, 53), ("measures", M, 20),
                                                     ("resamples", args.resamples, 10_000)) if v != d)
             + f" --repeat {args.repeat}" + (" --skip-slow" if args.skip_slow else "") + " --write")
    text = ("| case | best wall s | best CPU s | issue target | met? |\n|---|---:|---:|---|---|\n" + "\n".join(rows)
            + f"\n\n{R} runs × {Q} queries × {M} measures, all {pairs:,} pairs per measure ({pairs * M:,} "
            f"comparisons), synthetic beta-distributed values; time of `pref_eval.stats.compare()` in one process "
            f"after the imports (first row), best of {args.repeat} round-robin runs (untargeted cases: one); CPU = "
            f"process time, all threads (BLAS may use both cores); targets on wall time; {versions}. "
            + stamp(load0, load1, again))
    print("\n" + text)
    if args.write:
        print("wrote", write_result("stats", "zelo_compare / pref_eval.stats — measured speed", text, "compare"),
              file=sys.stderr)


if __name__ == "__main__":
    main()
