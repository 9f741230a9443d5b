"""zelo_compare -P on a large per-query table: CPU time of the command as a user runs it (session 25, a35).

    python bench/bench_compare_rows.py [--runs 100] [--queries 1000] [--measures 10] [--repeat 5]
                                       [--before DIR] [--write]

Writes a seeded per-query TSV (``run qid measure value``, beta-distributed values with 4 decimals) of
runs x queries x measures rows to a scratch directory, then runs
``python -m pref_eval.cli.compare -P FILE --tests t -o jsonl --output OUT -Q`` ``--repeat`` times and prints the
least user+sys CPU seconds of the child (``resource.getrusage(RUSAGE_CHILDREN)``; the least of several runs: the
machine may be loaded) and its peak memory. ``--before DIR``: a checkout of older code (C extensions built in
place) timed the same way, round-robin with this one, and both outputs compared byte for byte. ``--write``: the
table into bench/RESULTS-stats.md between ``<!-- compare-rows:begin -->`` and ``<!-- compare-rows:end -->``.
"""
from __future__ import annotations

import argparse
import filecmp
import os
import resource
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import load, stamp, write_result  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _table(path: str, runs: int, queries: int, measures: int) -> None:
    import numpy as np

    x = np.round(np.random.default_rng(7).beta(2, 5, (runs, queries, measures)), 4)
    with open(path, "w", encoding="utf-8") as f:
        f.write("run\tqid\tmeasure\tvalue\n")
        for r in range(runs):
            f.write("".join(f"run{r:03d}\t{q + 1000}\tm{m}\t{x[r, q, m]}\n"
                            for q in range(queries) for m in range(measures)))


def _once(code: str, table: str, out: str) -> tuple[float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "pref_eval.cli.compare", "-P", table, "--tests", "t", "-o", "jsonl",
                    "--output", out, "-Q"], check=True, env={**os.environ, "PYTHONPATH": code},
                   cwd=os.path.dirname(table))  # (not a checkout: `python -m` puts the working directory first)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), after.ru_maxrss


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--measures", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--before", default=None, help="a checkout of older code, timed the same way")
    ap.add_argument("--write", action="store_true", help="write the table into bench/RESULTS-stats.md")
    args = ap.parse_args()
    load0 = load()
    sides = ([("before", os.path.abspath(args.before))] if args.before else []) + [("this checkout", ROOT)]
    with tempfile.TemporaryDirectory() as tmp:
        table = os.path.join(tmp, "perquery.tsv")
        _table(table, args.runs, args.queries, args.measures)
        best: dict[str, float] = {}
        peak: dict[str, int] = {}
        for _ in range(args.repeat):
            for k, (name, code) in enumerate(sides):
                cpu, rss = _once(code, table, os.path.join(tmp, f"out{k}.jsonl"))
                best[name] = min(best.get(name, cpu), cpu)
                peak[name] = rss  # (RUSAGE_CHILDREN's peak: the largest child so far)
        same = len(sides) < 2 or filecmp.cmp(os.path.join(tmp, "out0.jsonl"), os.path.join(tmp, "out1.jsonl"),
                                              shallow=False)
    rows = [f"| {name} | {best[name]:.2f} |" for name, _ in sides]
    before = " --before DIR" if args.before else ""
    command = f"python bench/bench_compare_rows.py --repeat {args.repeat}{before} --write"
    text = "\n".join([
        f"`zelo_compare -P FILE --tests t -o jsonl --output OUT -Q` on {args.runs} runs × {args.queries:,} queries × "
        f"{args.measures} measures ({args.runs * args.queries * args.measures:,} rows, "
        f"{args.runs * (args.runs - 1) // 2:,} pairs per measure); CPU s = user + sys of the command, least of "
        f"{args.repeat} (round-robin){'; outputs byte-identical' if len(sides) > 1 and same else ''}. "
        + stamp(load0, load(), command),
        "", "| code | CPU s |", "|---|---:|", *rows])
    print(text)
    if not same:
        sys.exit("the outputs differ")
    if args.write:
        write_result("stats", "Significance tests", text, marker="compare-rows")


if __name__ == "__main__":
    main()
