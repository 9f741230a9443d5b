"""Generate a synthetic TREC run + qrels for the reader/collection benchmark.

    python bench/gen_runs.py --queries 10000 --depth 1000 --out /tmp/bench10m [--seed 1]

writes ``<out>/run`` (queries × depth lines, rank order, six fields
``qid Q0 docno rank score tag``), ``<out>/qrels`` (``--judged`` judgments per
query: part of them from the run's top 100, the rest from the corpus; grades
0..3 and a few -1) . Scores have 6 significant digits so some ties occur
(tie-breaking by docno is exercised). Deterministic for a given seed.
"""
from __future__ import annotations

import argparse
import os

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--judged", type=int, default=200)
    ap.add_argument("--corpus", type=int, default=8_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    os.makedirs(a.out, exist_ok=True)
    qids = np.arange(1, a.queries + 1) * 3 + 100  # not contiguous, strcmp order != numeric
    with open(os.path.join(a.out, "run"), "w") as run, open(os.path.join(a.out, "qrels"), "w") as qrels:
        for q in qids:
            docs = rng.choice(a.corpus, size=a.depth + a.judged, replace=False)
            rdocs = docs[: a.depth]
            scores = np.sort(rng.gamma(2.0, 4.0, size=a.depth))[::-1]
            run.write("".join(f"{q} Q0 doc{d:08d} {i} {s:.6g} bench\n"
                              for i, (d, s) in enumerate(zip(rdocs.tolist(), scores.tolist(), strict=False), 1)))
            ntop = a.judged // 4
            jd = np.concatenate([rdocs[rng.choice(min(100, a.depth), size=min(ntop, a.depth, 100), replace=False)],
                                 docs[a.depth: a.depth + a.judged - min(ntop, a.depth, 100)]])
            gr = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3], size=len(jd))
            qrels.write("".join(f"{q} 0 doc{d:08d} {g}\n" for d, g in zip(jd.tolist(), gr.tolist(), strict=False)))


if __name__ == "__main__":
    main()
