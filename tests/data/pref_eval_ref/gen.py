"""Generate the inputs of the pref_eval reference cases (deterministic).

python tests/data/pref_eval_ref/gen.py OUTDIR

Each case: graded qrels (0..G, some queries with no relevant document, some
judged docs never retrieved), runs with heavy score ties, a query missing
from one run, a run query absent from the qrels.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np


def make_case(out: Path, name: str, *, nq: int, nruns: int, ndocs: int, pool: int, maxg: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    d = out / name
    d.mkdir(parents=True, exist_ok=True)
    qids = [f"q{100 + 7 * i}" for i in range(nq)]
    rng.shuffle(qids)  # qrels order is not sorted order
    lines = []
    for qi, q in enumerate(qids):
        docs = rng.choice(pool, size=min(pool, 3 * ndocs // 2), replace=False)
        for dd in docs:
            g = int(rng.integers(0, maxg + 1)) if rng.random() < 0.6 else 0
            if qi == 1:
                g = 0  # a query without relevant documents
            lines.append(f"{q} 0 D{dd} {g}")
    rng.shuffle(lines)
    (d / "qrels").write_text("\n".join(lines) + "\n")
    for r in range(nruns):
        rl = []
        for qi, q in enumerate(qids + ["qextra"]):
            if r == 1 and qi == 0:
                continue  # query missing from this run
            n = int(rng.integers(ndocs // 2, ndocs + 1))
            docs = rng.choice(pool, size=n, replace=False)
            scores = np.round(rng.normal(size=n), 1 if r % 2 else 3)  # ties
            for k, (dd, s) in enumerate(zip(docs, scores)):
                rl.append(f"{q} Q0 D{dd} {k + 1} {s} tag{r}")
        rng.shuffle(rl)
        (d / f"input.sys{chr(65 + r)}").write_text("\n".join(rl) + "\n")


if __name__ == "__main__":
    out = Path(sys.argv[1])
    make_case(out, "small", nq=6, nruns=3, ndocs=12, pool=30, maxg=3, seed=1)
    make_case(out, "medium", nq=15, nruns=6, ndocs=60, pool=150, maxg=4, seed=2)
    make_case(out, "binary", nq=10, nruns=4, ndocs=40, pool=80, maxg=1, seed=3)
