"""Synthetic judgment files for the zelo_fit benchmarks.  Run:  python bench/gen_judgments.py Q OUT [--format F]

Q queries x 100 documents x 4 random cycles (400 judgments per query; each the mean of 3
Bradley-Terry votes, pref_eval.zelo.simulate.cycle_judgments, seed 1; true scores N(0, 1), or
N(0, sigma^2) with ``--sigma``), written as canonical JSONL
(``{"qid", "doc_a", "doc_b", "score"}``) or Clarke's 4-column text (``topic docA docB winner``,
the winner by the majority of the votes). Vectorised, so 10 M judgments take seconds.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def write(path: str, queries: int, fmt: str = "jsonl", docs: int = 100, cycles: int = 4, chunk: int = 2000,
          sigma: float = 1.0) -> int:
    """Write the file in blocks of ``chunk`` queries; returns the number of judgments."""
    from pref_eval.zelo.simulate import cycle_judgments

    n = 0
    with open(path, "w") as fh:
        for q0 in range(0, queries, chunk):
            nq = min(chunk, queries - q0)
            _, q, a, b, s = cycle_judgments(nq, docs, cycles, sigma, seed=1 + q0)
            qs = np.char.add("q", (q + q0).astype(str))
            da, db = np.char.add("d", a.astype(str)), np.char.add("d", b.astype(str))
            if fmt == "jsonl":
                sc = [repr(float(x)) for x in s.tolist()]
                lines = [f'{{"qid": "{qq}", "doc_a": "{aa}", "doc_b": "{bb}", "score": {ss}}}'
                         for qq, aa, bb, ss in zip(qs.tolist(), da.tolist(), db.tolist(), sc, strict=True)]
            else:
                win = np.where(s > 0.5, db, da)
                lines = [" ".join(t) for t in zip(qs.tolist(), da.tolist(), db.tolist(), win.tolist(), strict=True)]
            fh.write("\n".join(lines) + "\n")
            n += len(lines)
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("queries", type=int)
    ap.add_argument("out")
    ap.add_argument("--format", choices=["jsonl", "clarke4"], default="jsonl")
    ap.add_argument("--sigma", type=float, default=1.0, help="SD of the true Bradley-Terry scores (default 1)")
    args = ap.parse_args()
    print(write(args.out, args.queries, args.format, sigma=args.sigma), "judgments", file=sys.stderr)


if __name__ == "__main__":
    main()
