"""Start-up of every command on the shipped sample, as users run it (whole process, wall clock).

Run:  python bench/bench_startup.py [--repeat N]

Each command is run N times (default 7) as a new process on the files shipped in the
repository; the table gives the best wall time and its ratio to ``python3 -c 'import numpy'``
measured the same way in the same run (issue #13 targets: <= 1.3x for zelo_trec, zelo_eval,
pref_aggregate, zelo_fit; <= 3x zelo_compare; <= 6x zelo_plot). Writes
bench/RESULTS-startup.md and the README table between its markers.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import best, cmd, load, write_result  # noqa: E402

TARGETS = {"zelo_compare": 3.0, "zelo_plot": 6.0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-startup-")
    prefs = os.path.join(tmp, "prefs.jsonl")
    with open(prefs, "w") as fh:
        import subprocess

        subprocess.run(cmd("zelo_eval", "-R", "qrels/dl19-sample.qrels", "-q", "runs/bm25.run", "runs/dense.run",
                           "runs/rerank.run"), stdout=fh, check=True, cwd=os.path.dirname(os.path.dirname(
                               os.path.abspath(__file__))))
    scores = os.path.join(tmp, "s.tsv")
    subprocess.run(cmd("zelo_fit", "-J", "judgments/dl19-sample.judge", "-o", scores), check=True,
                   cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cases = [
        ("zelo_trec", cmd("zelo_trec", "-m", "official", "qrels/dl19-sample.qrels", "runs/rerank.run")),
        ("zelo_eval", cmd("zelo_eval", "-R", "qrels/dl19-sample.qrels", "runs/bm25.run", "runs/dense.run",
                          "runs/rerank.run")),
        ("pref_aggregate", cmd("pref_aggregate", "-P", prefs)),
        ("zelo_fit", cmd("zelo_fit", "-J", "judgments/dl19-sample.judge")),
        ("zelo_compare", cmd("zelo_compare", "-R", "qrels/dl19-sample.qrels", "-m", "map", "runs/bm25.run",
                             "runs/dense.run", "runs/rerank.run")),
        ("zelo_plot", cmd("zelo_plot", "scores", "-S", scores, "-o", os.path.join(tmp, "p.png"))),
    ]
    load0 = load()
    base, _ = best([sys.executable, "-c", "import numpy"], args.repeat)
    rows = [f"| `python3 -c 'import numpy'` | {base:.3f} | 1.00 | |"]
    for name, argv in cases:
        t, _ = best(argv, args.repeat)
        target = TARGETS.get(name, 1.3)
        rows.append(f"| `{name}` | {t:.3f} | {t / base:.2f} | ≤ {target:g} |")
    text = ("| command (shipped sample) | best wall s | × import numpy | target |\n|---|---|---|---|\n"
            + "\n".join(rows) + f"\n\nBest of {args.repeat} runs each; {load0} at the start, {load()} at the end "
            "(`python bench/bench_startup.py`).")
    print(text)
    write_result("startup", "Start-up on the shipped sample (bench/bench_startup.py)", text)


if __name__ == "__main__":
    main()
