"""Yan et al. (SIGIR 2022) Figure 3 in full, plus pref_eval's adaptive strategy, as a Markdown table.

    python bench/figure3.py --reps 1000 --seed 0 [--jobs 2] [--write-docs]

Runs every row of ``zelo_simulate figure3`` (T = 1,000; K = 100; Case A and B)
and prints the paper's figures beside ours. With ``--write-docs`` the table
replaces the block between the figure3 markers in docs/zelo_simulate.md, so
the figures in the docs always come from this script.
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pref_eval.zelo.figure3 import LABELS, ROWS, figure3  # noqa: E402

# Yan et al., Figure 3 and Section 4 (1,000 simulations each)
PAPER = {
    ("dts", "A"): "124 (959 single, 922 other)", ("dts", "B"): "710 / 7 (357 other)",
    ("mergedts", "A"): "108 (1503 other)", ("mergedts", "B"): "581 / 58 (914 other)",
    ("round-efficient", "A"): "141 (559 single, 1632 other)", ("round-efficient", "B"): "680 / 89 (606 other)",
    ("tournament", "A"): "502", ("tournament", "B"): "666 / 94",
    ("tournament-final", "A"): "510", ("tournament-final", "B"): "733 / 81",
}
PAPER_COMPS = {
    ("dts", "A"): "1000; 4–24", ("dts", "B"): "1000; 4–20", ("mergedts", "A"): "1000; 31–93",
    ("mergedts", "B"): "1000; 28–81", ("round-efficient", "A"): "1000; 2–5", ("round-efficient", "B"): "1000; 2–5",
    ("tournament", "A"): "599–759; 2–5", ("tournament", "B"): "592–764; 2–5",
    ("tournament-final", "A"): "624–781; 3–6", ("tournament-final", "B"): "616–795; 3–6",
}


def _one(args):
    algo, reps, seed = args
    t0 = time.time()
    rows = figure3(reps, seed, (algo,))
    return algo, rows, time.time() - t0


def table(results: dict, reps: int, seed: int) -> str:
    out = [f"`python bench/figure3.py --reps {reps} --seed {seed}` (T = 1,000 comparisons, K = 100):", "",
           "| algorithm | case | paper: found (one / both) | pref_eval: found (one / both) | returned one item | "
           "other items returned | paper: comparisons; assessors | pref_eval: comparisons (median); assessors |",
           "|---|---|---|---|---|---|---|---|"]
    for algo in ROWS:
        for r in results.get(algo, []):
            c = r["case"]
            ours = str(r["found"]) if c == "A" else f"{r['one_found']} / {r['both_found']}"
            comps = (f"{r['comparisons_min']}–{r['comparisons_max']} ({r['comparisons_median']:g}); "
                     f"{r['assessors_min']}–{r['assessors_max']}")
            out.append(f"| {LABELS[algo]} | {c} | {PAPER.get((algo, c), '—')} | {ours} | {r['returned_one']} | "
                       f"{r['nonbest_returned']} | {PAPER_COMPS.get((algo, c), '—')} | {comps} |")
    return "\n".join(out) + "\n"


def _merge_rows(doc: str, text: str) -> str:
    """The docs table with the rows of ``text`` put in (same label and case: replaced), in ROWS order."""
    m = re.search(r"<!-- figure3:begin -->\n(.*?)<!-- figure3:end -->", doc, flags=re.S)
    old = m.group(1).splitlines() if m else []
    new = text.splitlines()

    def rows(lines):
        return {tuple(c.strip() for c in ln.split("|")[1:3]): ln for ln in lines if ln.startswith("| ") and
                not ln.startswith("| algorithm") and "---" not in ln}

    merged = {**rows(old), **rows(new)}
    order = [LABELS[a] for a in ROWS]
    body = sorted(merged.items(), key=lambda kv: (order.index(kv[0][0]) if kv[0][0] in order else 99, kv[0][1]))
    head = [ln for ln in old if not ln.startswith("| ") or ln.startswith("| algorithm")]
    head = [ln for ln in head if ln.strip()] or new[:1]
    table_head = [ln for ln in new if ln.startswith("| algorithm") or ln.startswith("|---")]
    return "\n".join([head[0], "", *table_head, *[ln for _, ln in body]]) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--algorithms", default=",".join(ROWS))
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--update-rows", action="store_true",
                    help="with --write-docs: replace or add only the rows of --algorithms in the docs table")
    a = ap.parse_args()
    algos = [x for x in a.algorithms.split(",") if x]
    results = {}
    with ProcessPoolExecutor(a.jobs) as ex:
        for algo, rows, secs in ex.map(_one, [(x, a.reps, a.seed) for x in algos]):
            results[algo] = rows
            print(f"{algo}: {secs:.0f} s", file=sys.stderr)
    text = table(results, a.reps, a.seed)
    print(text)
    if a.write_docs:
        doc = ROOT / "docs" / "zelo_simulate.md"
        s = doc.read_text()
        if a.update_rows:
            text = _merge_rows(s, text)
        new, n = re.subn(r"(<!-- figure3:begin -->\n).*?(<!-- figure3:end -->)", lambda m: m.group(1) + text +
                         m.group(2), s, flags=re.S)
        if n != 1:
            sys.exit("docs/zelo_simulate.md has no figure3 markers")
        doc.write_text(new)


if __name__ == "__main__":
    main()
