"""The t-test's p-values: CPU time per value of the double-precision tail against the correctly rounded array path.

    python bench/bench_t_tail.py [--values 100000] [--repeat 5] [--write]

Session 26 (m36): ``pref_eval.stats.paired.t_test`` took its p-values from ``special.t_two_sided`` one value at a
time in double precision (up to ~100 ulps off at df 52, ~5e6 at df 1e7: ``tools/t_ulp_histogram.py --grid``);
now from ``t_tail.t_two_sided_array`` (double-double on the whole array, the nearest double). Two seeded sets of
``--values`` (t, df): the t statistics of paired differences of beta-distributed values over 53 queries
(df 52, as bench/bench_compare.py), |t| log-uniform from 1e-8 to 40 with df drawn from 1, 2, 3, 4.5, 7, 10,
30, 100, 1e3 ... 1e7 (the grid of tests/test_t_tail_oracle.py); and the worst case of the array path, 10,000
values whose df are all distinct (one 45-digit beta function each). Each timed in this process (CPU seconds,
``time.process_time``, least of ``--repeat`` rounds, the two paths alternating); the values that differ and the
elements the array path sends to the 45-digit fallback are counted. ``--write``: the table into
bench/RESULTS-stats.md between ``<!-- t-tail:begin -->`` and ``<!-- t-tail:end -->``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from _timing import load, stamp, write_result  # noqa: E402

from pref_eval.stats import special  # noqa: E402
from pref_eval.stats.t_tail import t_two_sided_array  # noqa: E402

DFS = (1.0, 2.0, 3.0, 4.5, 7.0, 10.0, 30.0, 100.0, 1e3, 1e4, 1e5, 1e6, 1e7)


def cases(n: int) -> list[tuple[str, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(2026)
    d = np.round(rng.beta(2, 5, (n, 53)), 4) - np.round(rng.beta(2, 5, (n, 53)), 4)
    t = np.mean(d, axis=1) / (np.std(d, axis=1, ddof=1) / np.sqrt(53))
    grid_t = 10 ** rng.uniform(-8, np.log10(40), n)
    distinct = min(n, 10_000)  # one 45-digit B(df/2, 1/2) per distinct df: the array path's worst case
    return [("t statistics, df 52", t, np.full(n, 52.0)),
            ("t from 1e-8 to 40, df 1 to 1e7", grid_t, rng.choice(DFS, n)),
            ("t statistics, every df distinct (1 to 10,000)", t[:distinct], np.arange(1.0, distinct + 1))]


def _cpu(fn) -> tuple[float, np.ndarray]:
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--values", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--write", action="store_true", help="write the table into bench/RESULTS-stats.md")
    args = ap.parse_args()
    load0 = load()
    rows = []
    for name, t, df in cases(args.values):
        old_best = new_best = float("inf")
        for _ in range(args.repeat):
            cpu, old = _cpu(lambda t=t, df=df: np.array([special.t_two_sided(float(a), float(b))
                                                         for a, b in zip(t.tolist(), df.tolist(), strict=True)]))
            old_best = min(old_best, cpu)
            cpu, new = _cpu(lambda t=t, df=df: t_two_sided_array(t, df))
            new_best = min(new_best, cpu)
        fallen: list[float] = []
        exact = special.t_two_sided_exact

        def counted(a: float, b: float, fallen=fallen, exact=exact) -> float:  # count the fallbacks
            fallen.append(a)
            return exact(a, b)

        special.t_two_sided_exact = counted
        try:
            t_two_sided_array(t, df)
        finally:
            special.t_two_sided_exact = exact
        rows.append(f"| {name} | {t.size:,} | {old_best:.3f} | {new_best:.3f} | {new_best / old_best:.2f} | "
                    f"{int(np.sum(old != new)):,} | {len(fallen)} |")
    command = f"python bench/bench_t_tail.py --values {args.values} --repeat {args.repeat} --write"
    text = "\n".join([
        "| values | n | `t_two_sided` per value, CPU s | `t_two_sided_array`, CPU s | ratio | values that differ | "
        "45-digit fallbacks |", "|---|---:|---:|---:|---:|---:|---:|", *rows, "",
        f"CPU seconds in one process, least of {args.repeat} rounds (the two paths alternating). "
        + stamp(load0, load(), command)])
    print(text)
    if args.write:
        write_result("stats", "Significance tests", text, marker="t-tail")


if __name__ == "__main__":
    main()
