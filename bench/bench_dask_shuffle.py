"""What ``pref_eval.dask.fit_judgments``'s shuffle by query costs, against ``partitioned_by_query=True``.

    python bench/bench_dask_shuffle.py [--queries 2000] [--docs 100] [--cycles 4] [--partitions 8] [--repeat 3]

The judgments of ``zelo_simulate``'s cycle design (``--queries`` × ``--docs`` × ``--cycles`` judgments, the
queries one after the other), in a pandas frame cut into ``--partitions`` partitions on query boundaries (so
both ways are right and give the same rows): fitted with the default (shuffled by query, order kept) and with
``partitioned_by_query=True`` (no shuffle; a split query refused), ``.compute()`` on

* dask's synchronous scheduler: this process's CPU seconds (user + system) and wall seconds;
* a ``LocalCluster`` of 2 worker processes (1 thread each; distributed's own shuffle; after one warm-up
  fit): the CPU seconds of the workers (their ``getrusage`` before and after, through ``Client.run``) plus
  this process's, and wall.

Best of ``--repeat`` runs each. Writes bench/RESULTS-dask.md. The load average at the start is recorded: other
work on the machine inflates wall times (CPU times less).
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _timing import load, write_result  # noqa: E402


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _worker_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def frame(queries: int, docs: int, cycles: int):
    import numpy as np
    import pandas as pd

    from pref_eval.zelo.simulate import cycle_judgments

    _, q, a, b, s = cycle_judgments(queries, docs, cycles, 1.5, 0)
    return pd.DataFrame(dict(qid=[f"q{x}" for x in q], doc_a=[f"d{x}" for x in a], doc_b=[f"d{x}" for x in b],
                             score=np.asarray(s, dtype=np.float64)))


def partitioned(pdf, parts: int):
    import dask.dataframe as dd

    qids = list(dict.fromkeys(pdf["qid"]))
    per = -(-len(qids) // parts)
    blocks = [pdf[pdf["qid"].isin(set(qids[k:k + per]))] for k in range(0, len(qids), per)]
    return dd.concat([dd.from_pandas(b, npartitions=1, sort=False) for b in blocks])


def timed(fn, repeat: int, cpu) -> tuple[float, float, object]:
    best_cpu = best_wall = float("inf")
    out = None
    for _ in range(repeat):
        c0, t0 = cpu(), time.perf_counter()
        out = fn()
        best_wall = min(best_wall, time.perf_counter() - t0)
        best_cpu = min(best_cpu, cpu() - c0)
    return best_cpu, best_wall, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=2000)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--cycles", type=int, default=4)
    ap.add_argument("--partitions", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    import dask
    import distributed

    from pref_eval.dask import fit_judgments

    start_load = load()
    pdf = frame(args.queries, args.docs, args.cycles)
    ddf = partitioned(pdf, args.partitions)
    rows = []
    results = {}
    with dask.config.set(scheduler="synchronous"):
        for name, by_query in (("partitioned_by_query=True", True), ("default (shuffle)", False)):
            cpu, wall, out = timed(lambda b=by_query: fit_judgments(ddf, partitioned_by_query=b).compute(),
                                   args.repeat, _cpu)
            results[("sync", by_query)] = out
            rows.append(("synchronous", name, cpu, wall))
    os.environ["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                os.environ.get("PYTHONPATH", "")])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=40) as cluster, \
            distributed.Client(cluster) as client:

        def cluster_cpu() -> float:
            return _cpu() + sum(client.run(_worker_cpu).values())

        fit_judgments(ddf.partitions[0]).compute()  # warm up: the workers import pref_eval

        for name, by_query in (("partitioned_by_query=True", True), ("default (shuffle)", False)):
            cpu, wall, out = timed(lambda b=by_query: fit_judgments(ddf, partitioned_by_query=b).compute(),
                                   args.repeat, cluster_cpu)
            results[("cluster", by_query)] = out
            rows.append(("LocalCluster, 2 processes", name, cpu, wall))
    keys = [sorted(zip(o["qid"], o["docno"], o["score"], o["se"], strict=True)) for o in results.values()]
    same = all(k == keys[0] for k in keys)
    if not same:
        raise SystemExit("the four fits differ")

    lines = [f"`python bench/bench_dask_shuffle.py --queries {args.queries} --docs {args.docs} --cycles "
             f"{args.cycles} --partitions {args.partitions} --repeat {args.repeat}`: {len(pdf):,} judgments, "
             f"{args.queries:,} queries, {ddf.npartitions} partitions on query boundaries; best of "
             f"{args.repeat}; at the start: {start_load}. The four fits give the same rows.", "",
             "| scheduler | fit_judgments | CPU s | wall s |", "|---|---|---|---|"]
    lines += [f"| {s} | {n} | {c:.2f} | {w:.2f} |" for s, n, c, w in rows]
    by = {(s, n): c for s, n, c, _ in rows}
    for s in ("synchronous", "LocalCluster, 2 processes"):
        a, b = by[(s, "partitioned_by_query=True")], by[(s, "default (shuffle)")]
        lines.append(f"\n{s}: the shuffle costs {b - a:+.2f} CPU s ({(b / a - 1) * 100:+.0f} %).")
    text = "\n".join(lines)
    print(text)
    print(write_result("dask", "pref_eval.dask.fit_judgments: the shuffle by query", text))


if __name__ == "__main__":
    main()
