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

"best s" is the best wall time of --repeat runs, "cpu s" the process CPU
time of that run (BLAS may use several threads, so it can exceed the wall
time); on a shared machine the load average printed first matters.
"""
from __future__ import annotations

import argparse
import platform
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=63)
    ap.add_argument("--queries", type=int, default=53)
    ap.add_argument("--measures", type=int, default=20)
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3, help="best of N timings")
    ap.add_argument("--skip-slow", action="store_true", help="skip bootstrap and Tukey")
    args = ap.parse_args()

    t0 = time.perf_counter()
    import numpy as np
    import pandas as pd
    import scipy
    import scipy.stats  # noqa: F401
    import statsmodels

    from pref_eval.stats import compare
    t_import = time.perf_counter() - t0

    R, M, Q = args.runs, args.measures, args.queries
    rng = np.random.default_rng(2024)
    X = np.round(rng.beta(2, 5, (R, M, Q)) + np.linspace(0, 0.05, R)[:, None, None], 4)
    r, m, q = np.meshgrid(np.arange(R), np.arange(M), np.arange(Q), indexing="ij")
    df = pd.DataFrame({"run": np.array([f"run{i:02d}" for i in range(R)])[r.ravel()],
                       "qid": np.array([f"q{k}" for k in range(Q)])[q.ravel()],
                       "measure": np.array([f"m{j}" for j in range(M)])[m.ravel()],
                       "value": X.ravel()})
    pairs = R * (R - 1) // 2
    cases = [("t,wilcoxon,sign + holm", dict(tests="t,wilcoxon,sign"), 2.0),
             (f"randomization B={args.resamples} + holm", dict(tests="randomization", resamples=args.resamples), 10.0)]
    if not args.skip_slow:
        cases += [(f"bootstrap BCa B={args.resamples} + holm", dict(tests="bootstrap", resamples=args.resamples), None),
                  (f"tukey HSD B={args.resamples}", dict(tests="tukey", resamples=args.resamples), None)]
    print(f"# {R} runs x {Q} queries x {M} measures = {pairs} pairs x {M} measures = {pairs * M} comparisons")
    print(f"# python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
          f"pandas {pd.__version__}, statsmodels {statsmodels.__version__}; {platform.machine()}, "
          f"{__import__('os').cpu_count()} CPU(s)")
    print(f"# import numpy/scipy.stats/pandas/statsmodels/pref_eval.stats: {t_import:.2f} s")
    print(f"# load average before: {' '.join(f'{x:.1f}' for x in __import__('os').getloadavg())}")
    print(f"{'case':<40} {'best s':>8} {'cpu s':>8} {'target':>8} {'records':>9}")
    for name, kw, target in cases:
        best = cpu = float("inf")
        n = 0
        for _ in range(args.repeat if target else 1):
            t, c = time.perf_counter(), time.process_time()
            res = compare(df, **kw)
            wall = time.perf_counter() - t
            if wall < best:
                best, cpu = wall, time.process_time() - c
            n = len(res.records)
        tgt = f"<= {target:g}" if target else "-"
        flag = "" if target is None or best <= target else "  OVER TARGET"
        print(f"{name:<40} {best:>8.2f} {cpu:>8.2f} {tgt:>8} {n:>9}{flag}")


if __name__ == "__main__":
    main()
