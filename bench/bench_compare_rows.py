"""zelo_compare -P and zelo_plot -P on a large per-query table: CPU time of the commands as a user runs them
(session 25, a35; session 26, p36: both inputs, the ratio; session 28, s38: pref_eval.py's wide lines, the plots;
session 29, s39: the baseline, the runi/runj layout).

    python bench/bench_compare_rows.py [--runs 100] [--queries 1000] [--measures 10] [--wide-runs 45]
                                       [--repeat 5] [--before DIR] [--write]

Writes a seeded per-query table (``run qid measure value``, beta-distributed values with 4 decimals) of
runs x queries x measures rows to a scratch directory -- as ``zelo_eval -q -o tsv`` writes it, as a CSV
(pandas' ``to_csv`` of an ir-measures / ranx per-query frame, ``run,qid,measure,value``) and as
``zelo_eval -q -o jsonl``'s JSON lines --, and pref_eval.py's wide JSON lines (``pref_eval.py -q``: a
``"type": "preference"`` line per pair of ``--wide-runs`` runs and query with rpp, sgnLP and ndcg@5, a
``"type": "metric"`` line per run and query with ndcg@5; also with ``--baseline sys00 -o text``) and the same
runs' runi/runj TSV (``zelo_eval -q -o tsv``: rpp per pair and query, ndcg@5 per run and query), then runs
``python -m pref_eval.cli.compare -P FILE --tests t -o jsonl --output OUT -Q`` on each, and
``python -m pref_eval.cli.plot systems|pairs -P TSV -m m0 -o OUT.svg -Q`` on the TSV, ``--repeat`` times, and
prints the least user+sys CPU seconds of the child (``resource.getrusage(RUSAGE_CHILDREN)``; the least of
several runs: the machine may be loaded). ``--before DIR``: a checkout of older code (C extensions built in
place) timed the same way, round-robin with this one, every output compared byte for byte, and the ratio
this / before. ``--write``: the table into bench/RESULTS-stats.md between ``<!-- compare-rows:begin -->`` and
``<!-- compare-rows:end -->``.
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


def _table(path: str, runs: int, queries: int, measures: int, sep: str = "\t") -> None:
    """The table as TSV/CSV (``sep``), or as ``zelo_eval -q -o jsonl``'s JSON lines (``sep`` = "jsonl")."""
    import numpy as np

    x = np.round(np.random.default_rng(7).beta(2, 5, (runs, queries, measures)), 4)
    with open(path, "w", encoding="utf-8") as f:
        if sep != "jsonl":
            f.write(sep.join(["run", "qid", "measure", "value"]) + "\n")
        line = ('{{"run": "run{r:03d}", "qid": "{q}", "measure": "m{m}", "value": {v}}}\n' if sep == "jsonl" else
                f"run{{r:03d}}{sep}{{q}}{sep}m{{m}}{sep}{{v}}\n")
        for r in range(runs):
            f.write("".join(line.format(r=r, q=q + 1000, m=m, v=x[r, q, m])
                            for q in range(queries) for m in range(measures)))


def _wide(path: str, runs: int, queries: int) -> None:
    """pref_eval.py's JSON lines: a preference line per pair and query (rpp, sgnLP, ndcg@5 differences), then a
    metric line per run (ndcg@5), query by query."""
    import numpy as np

    rng = np.random.default_rng(11)
    ndcg = np.round(rng.random((runs, queries)), 4)
    rpp = np.round(rng.normal(0, 0.5, (runs, runs, queries)), 4)
    with open(path, "w", encoding="utf-8") as f:
        for q in range(queries):
            lines = [f'{{"qid": "q{q}", "runi": "sys{i:02d}", "runj": "sys{j:02d}", "sample": 0, "type": "preference", '
                     f'"rpp": {rpp[i, j, q]}, "sgnLP": {int(np.sign(rpp[j, i, q]))}, '
                     f'"ndcg@5": {ndcg[i, q] - ndcg[j, q]}}}\n' for i in range(runs) for j in range(i + 1, runs)]
            lines += [f'{{"qid": "q{q}", "run": "sys{i:02d}", "sample": 0, "type": "metric", "ndcg@5": {ndcg[i, q]}}}\n'
                      for i in range(runs)]
            f.write("".join(lines))


def _pairs(path: str, runs: int, queries: int) -> None:
    """``zelo_eval -q -o tsv``'s runi/runj layout of a preference measure: a row per pair and query (rpp) and a
    row per run and query (ndcg@5, runj empty)."""
    import numpy as np

    rng = np.random.default_rng(13)
    ndcg = np.round(rng.random((runs, queries)), 4)
    rpp = np.round(rng.normal(0, 0.5, (runs, runs, queries)), 4)
    with open(path, "w", encoding="utf-8") as f:
        f.write("runi\trunj\tqid\tmeasure\tvalue\n")
        for q in range(queries):
            f.write("".join(f"sys{i:02d}\tsys{j:02d}\tq{q}\trpp\t{rpp[i, j, q]}\n"
                            for i in range(runs) for j in range(i + 1, runs)))
            f.write("".join(f"sys{i:02d}\t\tq{q}\tndcg@5\t{ndcg[i, q]}\n" for i in range(runs)))


def _once(code: str, argv: list[str], cwd: str) -> tuple[float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", *argv], check=True, env={**os.environ, "PYTHONPATH": code},
                   cwd=cwd)  # (not a checkout: `python -m` puts the working directory first)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), after.ru_maxrss


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--measures", type=int, default=10)
    ap.add_argument("--wide-runs", type=int, default=45)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--before", default=None, help="a checkout of older code, timed the same way")
    ap.add_argument("--write", action="store_true", help="write the table into bench/RESULTS-stats.md")
    args = ap.parse_args()
    load0 = load()
    sides = ([("before", os.path.abspath(args.before))] if args.before else []) + [("this checkout", ROOT)]
    compare = ["pref_eval.cli.compare", "-P", "{file}", "--tests", "t", "-o", "jsonl", "--output", "{out}", "-Q"]
    plot = ["pref_eval.cli.plot", "{kind}", "-P", "{file}", "-m", "m0", "-o", "{out}", "-Q"]
    inputs = [("`zelo_compare -P` TSV (`zelo_eval -q -o tsv`)", "perquery.tsv", "\t", compare, "jsonl"),
              ("`zelo_compare -P` CSV (a per-query frame's `to_csv`)", "perquery.csv", ",", compare, "jsonl"),
              ("`zelo_compare -P` JSON lines (`zelo_eval -q -o jsonl`)", "perquery.jsonl", "jsonl", compare, "jsonl"),
              ("`zelo_compare -P` pref_eval.py's wide JSON lines", "wide.jsonl", "wide", compare, "jsonl"),
              ("`zelo_compare -P` the wide lines `--baseline sys00 -o text`", "wide.jsonl", None,
               [*compare[:3], "--baseline", "sys00", "--tests", "t", "-o", "text", *compare[7:]], "txt"),
              ("`zelo_compare -P` runi/runj TSV (`zelo_eval -q -o tsv`, rpp)", "pairs.tsv", "pairs", compare, "jsonl"),
              *((f"`zelo_plot {kind} -P` TSV", "perquery.tsv", None, [a.replace("{kind}", kind) for a in plot], "svg")
                for kind in ("systems", "pairs"))]
    best: dict[tuple[str, str], float] = {}
    same = True
    with tempfile.TemporaryDirectory() as tmp:
        for label, file, sep, argv, ext in inputs:
            table = os.path.join(tmp, file)
            if sep == "wide":
                _wide(table, args.wide_runs, args.queries)
            elif sep == "pairs":
                _pairs(table, args.wide_runs, args.queries)
            elif sep is not None:
                _table(table, args.runs, args.queries, args.measures, sep)
            outs = [os.path.join(tmp, f"out{k}.{ext}") for k in range(len(sides))]
            for _ in range(args.repeat):
                for k, (name, code) in enumerate(sides):
                    cpu, _rss = _once(code, [a.replace("{file}", table).replace("{out}", outs[k]) for a in argv], tmp)
                    best[label, name] = min(best.get((label, name), cpu), cpu)
            if len(sides) > 1:
                same = same and filecmp.cmp(outs[0], outs[1], shallow=False)
    names = [name for name, _ in sides]
    head = "| input | " + " | ".join(f"{n} CPU s" for n in names) + (" | ratio |" if len(sides) > 1 else " |")
    rule = "|---|" + "---:|" * (len(names) + (len(sides) > 1))
    rows = [f"| {label} | " + " | ".join(f"{best[label, n]:.2f}" for n in names)
            + (f" | {best[label, names[1]] / best[label, names[0]]:.2f} |" if len(sides) > 1 else " |")
            for label, *_ in inputs]
    before = " --before DIR" if args.before else ""
    command = f"python bench/bench_compare_rows.py --repeat {args.repeat}{before} --write"
    head = head.replace("| input |", "| command and input |")
    text = "\n".join([
        f"`zelo_compare -P FILE --tests t -o jsonl --output OUT -Q` and `zelo_plot systems|pairs -P FILE -m m0 -o "
        f"OUT.svg -Q` on {args.runs} runs × {args.queries:,} queries × "
        f"{args.measures} measures ({args.runs * args.queries * args.measures:,} rows, "
        f"{args.runs * (args.runs - 1) // 2:,} pairs per measure); the wide lines: {args.wide_runs} runs × "
        f"{args.queries:,} queries ({args.wide_runs * (args.wide_runs - 1) // 2 * args.queries:,} preference lines "
        f"with rpp, sgnLP, ndcg@5 and {args.wide_runs * args.queries:,} metric lines); CPU s = user + sys of the "
        "command, least of "
        f"{args.repeat} (round-robin){'; outputs byte-identical' if len(sides) > 1 and same else ''}"
        f"{'; ratio = this checkout / before' if len(sides) > 1 else ''}. "
        + stamp(load0, load(), command),
        "", head, rule, *rows])
    print(text)
    if not same:
        sys.exit("the outputs differ")
    if args.write:
        write_result("stats", "Significance tests", text, marker="compare-rows")


if __name__ == "__main__":
    main()
