"""``zelo_eval -R SCORES RUN`` on a large zELO score file: CPU time of the command as a user runs it (session 29,
s39: ``bench_measures.align`` without an interpreter loop per document).

    python bench/bench_zelo_eval_scores.py [--queries 2000] [--repeat 5] [--before DIR] [--write]

Writes a seeded score file (zelo_fit's TSV: 100 scored documents a query) and two TREC runs over its queries: a
reranker's (the same 100 documents a query, every one scored) and a first stage's (1,000 documents a query, 100 of
them scored: 900 left out and warned), then runs ``python -m pref_eval.cli.eval -R scores.tsv RUN -q -Q`` on each,
``--repeat`` times, and prints the least user+sys CPU seconds of the child (``resource.getrusage(RUSAGE_CHILDREN)``).
``--before DIR``: a checkout of older code (C extensions built in place) timed the same way, round-robin with this
one, every output compared byte for byte, and the ratio this / before. ``--write``: the table into
bench/RESULTS-zelo.md between ``<!-- zelo-eval-scores:begin -->`` and ``<!-- zelo-eval-scores:end -->``.
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


def _files(tmp: str, queries: int) -> None:
    import numpy as np

    rng = np.random.default_rng(3)
    with open(os.path.join(tmp, "scores.tsv"), "w", encoding="utf-8") as f:
        f.write("qid\tdocno\tscore\tse\n")
        for q in range(queries):
            f.write("".join(f"q{q}\td{q}_{i}\t{s:.6f}\t0.1\n" for i, s in enumerate(rng.normal(size=100))))
    for name, depth in (("reranker", 100), ("first-stage", 1000)):
        with open(os.path.join(tmp, f"{name}.run"), "w", encoding="utf-8") as f:
            for q in range(queries):
                f.write("".join(f"q{q} Q0 d{q}_{d} {r + 1} {depth - r}.5 {name}\n"
                                for r, d in enumerate(rng.permutation(depth))))


def _once(code: str, argv: list[str], cwd: str, out: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out, "wb") as fh:
        subprocess.run([sys.executable, "-m", *argv], check=True, env={**os.environ, "PYTHONPATH": code}, cwd=cwd,
                       stdout=fh)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--before", default=None, help="a checkout of older code, timed the same way")
    ap.add_argument("--write", action="store_true", help="write the table into bench/RESULTS-zelo.md")
    args = ap.parse_args()
    load0 = load()
    sides = ([("before", os.path.abspath(args.before))] if args.before else []) + [("this checkout", ROOT)]
    labels = {"reranker": "reranker run (100 documents a query, all scored)",
              "first-stage": "first-stage run (1,000 documents a query, 100 scored)"}
    best: dict[tuple[str, str], float] = {}
    same = True
    with tempfile.TemporaryDirectory() as tmp:
        _files(tmp, args.queries)
        for run in labels:
            outs = [os.path.join(tmp, f"out{k}.tsv") for k in range(len(sides))]
            argv = ["pref_eval.cli.eval", "-R", "scores.tsv", f"{run}.run", "-q", "-Q"]
            for _ in range(args.repeat):
                for k, (name, code) in enumerate(sides):
                    cpu = _once(code, argv, tmp, outs[k])
                    best[run, name] = min(best.get((run, name), cpu), cpu)
            if len(sides) > 1:
                same = same and filecmp.cmp(outs[0], outs[1], shallow=False)
    names = [name for name, _ in sides]
    head = "| run | " + " | ".join(f"{n} CPU s" for n in names) + (" | ratio |" if len(sides) > 1 else " |")
    rule = "|---|" + "---:|" * (len(names) + (len(sides) > 1))
    rows = [f"| {labels[run]} | " + " | ".join(f"{best[run, n]:.2f}" for n in names)
            + (f" | {best[run, names[1]] / best[run, names[0]]:.2f} |" if len(sides) > 1 else " |") for run in labels]
    before = " --before DIR" if args.before else ""
    command = f"python bench/bench_zelo_eval_scores.py --queries {args.queries} --repeat {args.repeat}{before} --write"
    text = "\n".join([
        f"`zelo_eval -R scores.tsv RUN -q -Q` (the default zndcg, zndcg@10, zacc, zrecall@10 per query) on a score "
        f"file of {args.queries:,} queries × 100 documents; CPU s = user + sys of the command, least of {args.repeat} "
        f"(round-robin){'; outputs byte-identical' if len(sides) > 1 and same else ''}"
        f"{'; ratio = this checkout / before' if len(sides) > 1 else ''}. " + stamp(load0, load(), command),
        "", head, rule, *rows])
    print(text)
    if not same:
        sys.exit("the outputs differ")
    if args.write:
        write_result("zelo", "zELO", text, marker="zelo-eval-scores")


if __name__ == "__main__":
    main()
