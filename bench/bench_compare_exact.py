"""zelo_compare --wilcoxon-method exact on tied differences, as users run it (whole process).

Run:  python bench/bench_compare_exact.py [--before DIR] [--repeat N] [--write]

Per-query values rounded to 0.1 (beta(2, 5) plus a run offset), so that the differences of a pair
of runs tie in |d| and hit zero: every pair's Wilcoxon test under ``exact`` then takes the exact
sign-flip distribution of its own ranks (``method: "permutation"``). One measure; all pairs of
S systems on Q topics; ``zelo_compare -P FILE --tests wilcoxon --wilcoxon-method exact -o jsonl``.
Reported: the CPU time (user + sys) of the whole process, best of N runs (after one untimed run
of the first case, for the cached bytecode: ``_timing.bytecode_env``). ``--before DIR`` times the
same command of another checkout (e.g. ``git archive`` of an older main, built with
``setup.py build_ext --inplace``) and checks that both write the same bytes. ``--write`` puts
the table into bench/RESULTS-stats.md between its ``compare-exact`` markers.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import ROOT, bytecode_env, load, run  # noqa: E402

CASES = ((50, 10), (50, 30), (200, 10), (200, 30))


def _children_cpu() -> float:
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def write_values(path: str, topics: int, systems: int, seed: int = 14) -> None:
    """The per-query TSV of ``zelo_eval -q -o tsv``: values rounded to 0.1, one measure."""
    rng = np.random.default_rng(seed)
    X = np.clip(np.round(rng.beta(2, 5, (systems, topics)) + np.linspace(0, 0.1, systems)[:, None], 1), 0, 1)
    with open(path, "w") as fh:
        fh.write("run\tqid\tmeasure\tvalue\n")
        for s in range(systems):
            for q in range(topics):
                fh.write(f"sys{s:02d}\tq{q}\tm\t{X[s, q]:.1f}\n")


def time_cpu(checkout: str, argv: list[str], out: str, repeat: int, env: dict, warm: bool) -> tuple[float, bytes]:
    full = [sys.executable, os.path.join(checkout, "bin", "zelo_compare"), *argv, "--output", out]
    if warm:
        run(full, env=env)  # untimed: the checkout's bytecode cache, the file cache
    best = float("inf")
    for _ in range(repeat):
        c0 = _children_cpu()
        run(full, env=env)
        best = min(best, _children_cpu() - c0)
    with open(out, "rb") as fh:
        return best, fh.read()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", help="another checkout to time the same command in (its bin/zelo_compare)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--write", action="store_true", help="write the table into bench/RESULTS-stats.md")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-compare-exact-")
    env = bytecode_env(os.path.join(tmp, "pycache"))
    load0 = load()
    rows = []
    for topics, systems in CASES:
        path = os.path.join(tmp, f"pq{topics}x{systems}.tsv")
        write_values(path, topics, systems)
        argv = ["-P", path, "--tests", "wilcoxon", "--wilcoxon-method", "exact", "-o", "jsonl"]
        after, out_after = time_cpu(ROOT, argv, os.path.join(tmp, "after.jsonl"), args.repeat, env,
                                     warm=topics == CASES[0][0] and systems == CASES[0][1])
        assert out_after.count(b'"method": "permutation"') == systems * (systems - 1) // 2, "not every pair tied"
        cells = [f"{topics}", f"{systems}", f"{systems * (systems - 1) // 2}"]
        if args.before:
            before, out_before = time_cpu(args.before, argv, os.path.join(tmp, "before.jsonl"),
                                          1 if topics > 50 else args.repeat, env,
                                          warm=topics == CASES[0][0] and systems == CASES[0][1])
            if out_before != out_after:
                raise SystemExit(f"{topics} topics x {systems} systems: the two checkouts write different output")
            cells += [f"{before:.2f}", f"{after:.2f}", f"{before / after:.1f}"]
        else:
            cells += [f"{after:.2f}"]
        rows.append("| " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    head = "| topics | systems | pairs |" + (" before CPU s | after CPU s | ratio |" if args.before else " CPU s |")
    text = (head + "\n" + "|---" * (head.count("|") - 1) + "|\n" + "\n".join(rows)
            + f"\n\n`zelo_compare -P FILE --tests wilcoxon --wilcoxon-method exact -o jsonl` on values rounded to 0.1 "
            f"(every pair ties: `method: \"permutation\"`); CPU s = user + sys of the whole process, best of "
            f"{args.repeat} (`before`: one run at 200 topics); identical output before and after; "
            f"{load0} at the start, {load()} at the end "
            f"(`python bench/bench_compare_exact.py{' --before DIR' if args.before else ''} --repeat {args.repeat}"
            f"{' --write' if args.write else ''}`).")
    print(text)
    if args.write:
        path = os.path.join(ROOT, "bench", "RESULTS-stats.md")
        with open(path) as fh:
            doc = fh.read()
        begin, end = "<!-- compare-exact:begin -->", "<!-- compare-exact:end -->"
        doc = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: f"{begin}\n{text}\n{end}", doc, flags=re.S)
        with open(path, "w") as fh:
            fh.write(doc)


if __name__ == "__main__":
    main()
