"""Yan et al. (SIGIR 2022) Figure 3 in full, plus pref_eval's adaptive strategy, as a Markdown table.

    python bench/figure3.py --reps 1000 --seed 0 [--jobs 2] [--write-docs]

Runs every row of ``zelo_simulate figure3`` (T = 1,000; K = 100; Case A and B)
and prints the paper's figures beside ours. With ``--write-docs`` the table
replaces the block between the figure3 markers in docs/zelo_simulate.md, so
the figures in the docs always come from this script. ``--prose`` runs nothing: it prints the
figures the page's prose and its tournament table quote from the stored table, one phrase per line
(tests/test_docs.py checks each is on the page).
"""
from __future__ import annotations

import argparse
import math
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
CASE_K = 100  # items of Yan et al.'s Case A and B matrices
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


def _n(v: float) -> str:
    """A count as the prose writes it: 1,623; 654.5."""
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:g}"


def _match_win(p: float, lead: int, cap: int) -> float:
    """P(a match is won) against an opponent beaten with probability p per judgment: judged one at a time until one
    side leads by ``lead`` or ``cap`` judgments are made, then the majority (a tie counted lost)."""
    def go(n: int, d: int) -> float:
        if abs(d) >= lead or n == cap:
            return float(d > 0)
        return p * go(n + 1, d + 1) + (1 - p) * go(n + 1, d - 1)

    return go(0, 0)


def prose_figures() -> list[str]:
    """The phrases of docs/zelo_simulate.md that quote the figure3 table as the docs store it (module docstring)."""
    text = (ROOT / "docs" / "zelo_simulate.md").read_text(encoding="utf-8")
    block = text.split("<!-- figure3:begin -->\n")[1].split("<!-- figure3:end -->")[0]
    cells = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in block.splitlines()
             if ln.startswith("| ") and not ln.startswith("| algorithm")]

    def row(prefix: str, case: str) -> list[list[float]]:
        """The numbers of each cell of the row whose label starts with ``prefix``."""
        (r,) = [r for r in cells if r[0].startswith(prefix) and r[1] == case]
        return [[float(x) for x in re.findall(r"\d+(?:\.\d+)?", c)] for c in r]

    dts_a, dts_b = row("Double", "A"), row("Double", "B")
    mg_a, mg_b = row("MergeDTS", "A"), row("MergeDTS", "B")
    re_a, re_b = row("Round", "A"), row("Round", "B")
    cl_a, cl_b = row("Clarke et al. (k=1", "A"), row("Clarke et al. (k=1", "B")
    fi_a, fi_b = row("Clarke et al. (extra", "A"), row("Clarke et al. (extra", "B")
    ad_a, ad_b = row("pref_eval adaptive (", "A"), row("pref_eval adaptive (", "B")
    nc_a, nc_b = row("pref_eval adaptive, no cap", "A"), row("pref_eval adaptive, no cap", "B")
    # cells: 2 paper found, 3 ours, 4 returned one, 5 others, 6 paper comparisons; assessors, 7 ours (with median)
    out = [f"best found {_n(dts_a[3][0])} vs {_n(dts_a[2][0])}, a single item returned {_n(dts_a[4][0])} vs "
           f"{_n(dts_a[2][1])}, other items returned {_n(dts_a[5][0])} vs {_n(dts_a[2][2])}; Case B "
           f"{_n(dts_b[3][0])} / {_n(dts_b[3][1])} vs {_n(dts_b[2][0])} / {_n(dts_b[2][1])} and {_n(dts_b[5][0])} vs "
           f"{_n(dts_b[2][2])} other items. Our \"assessors\" range ({_n(dts_a[7][3])}–{_n(dts_a[7][4])}, "
           f"{_n(dts_b[7][3])}–{_n(dts_b[7][4])}) is a little narrower than the paper's ({_n(dts_a[6][1])}–"
           f"{_n(dts_a[6][2])}, {_n(dts_b[6][1])}–{_n(dts_b[6][2])})",
           f"{_n(re_a[3][0])} vs {_n(re_a[2][0])}, {_n(re_a[5][0])} vs {_n(re_a[2][2])} other items; Case B "
           f"{_n(re_b[3][0])} / {_n(re_b[3][1])} vs {_n(re_b[2][0])} / {_n(re_b[2][1])}; assessors "
           f"{_n(re_a[7][3])}–{_n(re_a[7][4])} as in the paper. It returned a single item {_n(re_a[4][0])} times "
           f"against the paper's {_n(re_a[2][1])}",
           f"({_n(mg_a[3][0])} vs {_n(mg_a[2][0])}; Case B one found {_n(mg_b[3][0])} vs {_n(mg_b[2][0])})",
           f"({_n(mg_a[5][0])} vs {_n(mg_a[2][1])} others on Case A)",
           f"({_n(mg_b[3][1])} vs {_n(mg_b[2][1])})",
           f"({_n(mg_a[7][3])}–{_n(mg_a[7][4])} vs {_n(mg_a[6][1])}–{_n(mg_a[6][2])})",
           f"{_n(cl_a[3][0])} / {_n(fi_a[3][0])} vs {_n(cl_a[2][0])} / {_n(fi_a[2][0])} (Case A) and "
           f"{_n(cl_b[3][0])} / {_n(cl_b[3][1])}, {_n(fi_b[3][0])} / {_n(fi_b[3][1])} vs {_n(cl_b[2][0])} / "
           f"{_n(cl_b[2][1])}, {_n(fi_b[2][0])} / {_n(fi_b[2][1])} (Case B)",
           f"in {_n(ad_a[3][0])} of 1,000 runs — Clarke et al.'s tournament {_n(cl_a[3][0])} here, {_n(cl_a[2][0])} in "
           f"the paper — with fewer comparisons (median {_n(ad_a[7][2])} against {_n(cl_a[7][2])}, at most "
           f"{_n(ad_a[7][1])} against {_n(cl_a[7][1])})",
           f"in {_n(ad_b[3][0])} of 1,000 runs (tournament: {_n(cl_b[3][0])} + {_n(cl_b[3][1])} = "
           f"{_n(cl_b[3][0] + cl_b[3][1])}) with fewer comparisons too (median {_n(ad_b[7][2])} against "
           f"{_n(cl_b[7][2])}, at most {_n(ad_b[7][1])} against {_n(cl_b[7][1])})",
           f"Case A improves to {_n(nc_a[3][0])} but Case B needs more comparisons than the tournament (median "
           f"{_n(nc_b[7][2])})"]
    # the arithmetic of the text around the table (binomial standard deviations, the adaptive strategy's match)
    win = _match_win(0.75, lead=2, cap=5)
    out += [f"has a standard deviation of about {math.sqrt(1000 * 0.25):.0f})",
            f"has a binomial standard deviation of about {math.sqrt(1000 * 0.25):.0f}, near 100 or 900 about "
            f"{math.sqrt(1000 * 0.09):.1f})",
            f"P(Binomial(5, 0.75) ≥ 3) ≈ {sum(math.comb(5, k) * 0.75 ** k * 0.25 ** (5 - k) for k in (3, 4, 5)):.2f}",
            f"is won with probability {win:.2f}, and {win:.2f}⁷ ≈ {round(win, 2) ** 7:.2f}"]
    # the double elimination against it: the table's adaptive row (Case A); a double elimination of K items plays
    # about 2 (K - 1) matches (every item but the winner loses two lives), so judgments / 2(K - 1) a match
    matches = 2 * (CASE_K - 1)
    out.append(f"Clarke et al.'s tournament finds it in {_n(cl_a[3][0])} of 1,000 runs); a second life and an "
               f"all-pairs final lift that to {_n(ad_a[3][0])} of 1,000 (the table below) for a median of "
               f"{_n(ad_a[7][2])} judgments, about 2 × {CASE_K - 1} matches of {ad_a[7][2] / matches:.1f} judgments, "
               f"fewer than the tournament's {_n(cl_a[7][2])}")
    # the tournament table above the figure3 table repeats the Clarke et al. rows: found, comparisons, and the mean
    # size of the returned top set: the best items in it (Case B: one or both of the two) plus the other items
    sizes = {}
    for case, plain, final in (("A", cl_a, fi_a), ("B", cl_b, fi_b)):
        for r, label in ((plain, f"{case}, pref_eval, seed 0 |"),
                         (final, f"{case}, pref_eval, seed 0, `--final-phase` |")):
            found = r[3][0] + (r[3][1] if case == "B" else 0)
            both = r[3][1] if case == "B" else r[3][0]
            best = r[3][0] + (2 * r[3][1] if case == "B" else 0)
            sizes[label] = size = (best + r[5][0]) / 1000
            out.append(f"| {label} {_n(found)} | {_n(both)} | {_n(r[7][0])}–{_n(r[7][1])} ({_n(r[7][2])}) | "
                       f"{size:.2f} |")
    out.append(f"(mean top-set size {sizes['A, pref_eval, seed 0 |']:.2f} → "
               f"{sizes['A, pref_eval, seed 0, `--final-phase` |']:.2f})")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--algorithms", default=",".join(ROWS))
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--update-rows", action="store_true",
                    help="with --write-docs: replace or add only the rows of --algorithms in the docs table")
    ap.add_argument("--prose", action="store_true", help="print the prose's figures from the stored table, run nothing")
    a = ap.parse_args()
    if a.prose:
        print("\n".join(prose_figures()))
        return
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
