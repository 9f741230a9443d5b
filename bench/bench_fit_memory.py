"""zelo_fit's peak memory with ``-o FILE`` (the TSV written a block of queries at a time) against ``-o -``.

Run:  python bench/bench_fit_memory.py [--queries 100000] [--write]

Q queries x 100 documents x 4 random cycles (bench/gen_judgments.py: 400 judgments a query, so the default
100,000 queries are 40 M judgments, a 2.9 GB file written to a temporary directory), then
``zelo_fit -J FILE -o OUT`` and ``zelo_fit -J FILE -o -`` (standard output into a file), one run each, peak
resident memory of each process by GNU time (bench/_timing.py). Prints the sentence docs/zelo_fit.md quotes
(the two peaks, whether the two outputs are the same bytes, the date, the machine, the load); ``--write`` puts
it into docs/zelo_fit.md between ``<!-- fit-memory:begin -->`` and ``<!-- fit-memory:end -->``. About
3 minutes of CPU time and 0.8 GB of memory at the default size.
"""
from __future__ import annotations

import argparse
import filecmp
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import ROOT, cmd, load, machine, run  # noqa: E402
from gen_judgments import write  # noqa: E402

DOC = os.path.join(ROOT, "docs", "zelo_fit.md")
BEGIN, END = "<!-- fit-memory:begin -->", "<!-- fit-memory:end -->"


def measure(queries: int) -> tuple[int, float, float, bool]:
    """(judgments, peak MB with -o FILE, peak MB with -o -, same bytes)."""
    with tempfile.TemporaryDirectory(prefix="fit-memory-") as tmp:
        judgments = os.path.join(tmp, "j.jsonl")
        n = write(judgments, queries)
        out_file, out_stdout = os.path.join(tmp, "file.tsv"), os.path.join(tmp, "stdout.tsv")
        _, peak_file = run(cmd("zelo_fit", "-J", judgments, "-o", out_file, "-Q"))
        with open(out_stdout, "wb") as fh:
            _, peak_stdout = run(cmd("zelo_fit", "-J", judgments, "-o", "-", "-Q"), stdout=fh)
        return n, peak_file, peak_stdout, filecmp.cmp(out_file, out_stdout, shallow=False)


def sentence(n: int, peak_file: float, peak_stdout: float, same: bool, load0: str, load1: str,
             command: str) -> str:
    import time

    day = time.strftime("%Y-%m-%d", time.gmtime())
    return (f"on {n / 1e6:g} M judgments the peak is {peak_file:.0f} MB with `-o FILE` and {peak_stdout:.0f} MB "
            f"with `-o -`, {'the same bytes' if same else 'DIFFERENT BYTES'} (measured {day} (UTC) on {machine()}; "
            f"{load0} at the start, {load1} at the end: `{command}`)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=100_000, help="queries of 100 documents (default 100,000)")
    ap.add_argument("--write", action="store_true", help="write the sentence into docs/zelo_fit.md")
    args = ap.parse_args()
    load0 = load()
    n, peak_file, peak_stdout, same = measure(args.queries)
    command = "python bench/bench_fit_memory.py" + ("" if args.queries == 100_000 else f" --queries {args.queries}")
    text = sentence(n, peak_file, peak_stdout, same, load0, load(), command)
    print(text)
    if args.write:
        with open(DOC, encoding="utf-8") as fh:
            doc = fh.read()
        if BEGIN not in doc or END not in doc:
            sys.exit(f"{DOC}: no {BEGIN} ... {END} markers")
        doc = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: f"{BEGIN}{text}{END}", doc, flags=re.S)
        with open(DOC, "w", encoding="utf-8") as fh:
            fh.write(doc)


if __name__ == "__main__":
    main()
