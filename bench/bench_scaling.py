"""Scaling: serial vs --jobs 2 vs a dask LocalCluster (2 worker processes), wall time and peak memory.

Run:  python bench/bench_scaling.py [--fit 1000,10000,100000] [--runs 1,10,100] [--lines 1000000] [--no-write]
      python bench/bench_scaling.py --quick     # reduced sizes: < 5 minutes on a quiet 2-core machine

* zelo_fit on Q queries x 100 documents x 4 cycles (bench/gen_judgments.py, JSONL);
* zelo_eval -o tsv -m official on R runs of L lines each (bench/gen_runs.py; L/1000 queries
  x 1000 documents, one qrels);
* zelo_eval -M preferences (preference mode: every pair of runs) on P of those runs (``--pref-runs``).

``--quick`` is ``--fit 1000,10000 --runs 1,10,100 --lines 100000 --pref-runs 10``: a tenth of
the issue's sizes (1k/10k/100k queries, 1/10/100 runs of 1 M lines). The result text names the sizes
measured and how long the whole script ran (data generation and the cluster's start included).

Each configuration runs once as a new process; ``--scheduler`` submits to a LocalCluster of
two worker processes started by this script (its workers' memory is not in the peak column,
which is the command's own process). Defaults are the issue's sizes; on a loaded machine pass
smaller ones and say so. Writes bench/RESULTS-scaling.md and the README table (``--no-write``: prints it
only).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import cmd, load, run, stamp, write_result  # noqa: E402
from gen_judgments import write  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]



def _linked(base: str, rundir: str, n: int) -> list[str]:
    """``n`` names of the run file ``base`` in ``rundir`` (hard links: no extra disk)."""
    paths = []
    for k in range(n):
        p = os.path.join(rundir, f"run{k}")
        if not os.path.exists(p):
            os.link(base, p)
        paths.append(p)
    return paths

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fit", default="1000,10000,100000", help="query counts for zelo_fit")
    ap.add_argument("--runs", default="1,10,100", help="run counts for zelo_eval")
    ap.add_argument("--lines", type=int, default=1_000_000, help="lines per run")
    ap.add_argument("--pref-runs", default="", help="run counts for zelo_eval -M preferences (default none)")
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument("--no-write", action="store_true", help="print the table, write no file")
    ap.add_argument("--quick", action="store_true",
                    help="--fit 1000,10000 --runs 1,10,100 --lines 100000 --pref-runs 10 (< 5 min quiet)")
    args = ap.parse_args()
    t0 = time.monotonic()
    if args.quick:
        args.fit, args.runs, args.lines, args.pref_runs = "1000,10000", "1,10,100", 100_000, "10"
    tmp = tempfile.mkdtemp(prefix="bench-scaling-")
    cluster = None
    if not args.no_dask:
        from distributed import LocalCluster

        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None, silence_logs=40)
    modes = [("serial", []), ("--jobs 2", ["--jobs", "2"])]
    if cluster is not None:
        modes.append(("LocalCluster", ["--scheduler", cluster.scheduler_address]))
    load0 = load()
    rows = []
    out = os.path.join(tmp, "out")
    for nq in _ints(args.fit):
        path = os.path.join(tmp, f"j{nq}.jsonl")
        n = write(path, nq)
        cells = []
        for _, extra in modes:
            t, mem = run(cmd("zelo_fit", "-J", path, "-o", out, *extra))
            cells.append(f"{t:.1f} s / {mem:.0f} MB")
        rows.append(f"| zelo_fit | {nq:,} queries ({n:,} judgments) | " + " | ".join(cells) + " |")
        os.unlink(path)
    rundir = os.path.join(tmp, "runs")
    subprocess.run([sys.executable, os.path.join(HERE, "gen_runs.py"), "--queries", str(max(args.lines // 1000, 1)),
                    "--depth", "1000", "--out", rundir], check=True, stdout=subprocess.DEVNULL)
    base = os.path.join(rundir, "run")
    for nr in _ints(args.runs):
        paths = _linked(base, rundir, nr)
        cells = []
        for _, extra in modes:
            t, mem = run(cmd("zelo_eval", "-R", os.path.join(rundir, "qrels"), "-o", "tsv", "-m", "official",
                             "--output", out, *extra, *paths))
            cells.append(f"{t:.1f} s / {mem:.0f} MB")
        rows.append(f"| zelo_eval | {nr} run(s) × {args.lines:,} lines | " + " | ".join(cells) + " |")
    for nr in _ints(args.pref_runs):
        paths = _linked(base, rundir, nr)
        cells = []
        for _, extra in modes:
            t, mem = run(cmd("zelo_eval", "-R", os.path.join(rundir, "qrels"), "-M", "preferences",
                             "--output", out, *extra, *paths))
            cells.append(f"{t:.1f} s / {mem:.0f} MB")
        rows.append(f"| zelo_eval -M preferences | {nr} runs × {args.lines:,} lines | " + " | ".join(cells) + " |")
    if cluster is not None:
        cluster.close()
    head = "| command | size | " + " | ".join(m for m, _ in modes) + " |\n|---|---|" + "---|" * len(modes)
    full = args.fit == "1000,10000,100000" and args.runs == "1,10,100" and args.lines == 1_000_000
    size = ("the issue's sizes" if full else
            f"reduced sizes: zelo_fit on {args.fit} queries, zelo_eval on {args.runs} runs of {args.lines:,} lines "
            "(the issue asks for 1k/10k/100k queries and 1/10/100 runs of 1 M lines)")
    again = ("--quick" if args.quick else f"--fit {args.fit} --runs {args.runs} --lines {args.lines}"
             + (f" --pref-runs {args.pref_runs}" if args.pref_runs else ""))
    text = (head + "\n" + "\n".join(rows) + f"\n\nMeasured at {size}. Wall time / peak memory of the command's "
            "process, one run each; the whole script ran "
            f"{(time.monotonic() - t0) / 60:.1f} min (data generation included). "
            + stamp(load0, load(), f"python bench/bench_scaling.py {again}"))
    print(text)
    if not args.no_write:
        write_result("scaling", "Scaling: serial, --jobs 2, LocalCluster (bench/bench_scaling.py)", text)


if __name__ == "__main__":
    main()
