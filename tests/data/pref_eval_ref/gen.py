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


def make_corner(out: Path, name: str, *, seed: int) -> None:
    """Corner cases (u21): one-document queries, a query judged only with negative grades, huge grades
    (1000000), subtopic columns 1/2 (a document under two subtopics), two identical runs, a run that
    misses one query and retrieves a single document for another, whole rankings of tied scores."""
    rng = np.random.default_rng(seed)
    d = out / name
    d.mkdir(parents=True, exist_ok=True)
    lines = ["c1 0 D1 1", "c2 0 D1 -1", "c2 0 D2 -5", "c3 0 D1 1000000", "c3 0 D2 3", "c3 0 D3 0",
             "c4 1 D1 2", "c4 2 D1 1", "c4 1 D2 1", "c4 2 D3 3", "c5 Q0 D4 1", "c5 Q0 D5 2", "c5 Q0 D6 1000000"]
    for q in ("c6", "c7"):
        for i in range(25):
            lines.append(f"{q} 0 D{i} {int(rng.choice([-1, 0, 0, 1, 2, 3]))}")
    rng.shuffle(lines)
    (d / "qrels").write_text("\n".join(lines) + "\n")
    qids = ["c1", "c2", "c3", "c4", "c5", "c6", "c7", "cx"]
    runs = []
    for r in range(3):
        rl = []
        for q in qids:
            if r == 2 and q == "c5":
                continue  # a query this run misses
            n = 1 if q in ("c1", "c2") or (r == 2 and q == "c3") else int(rng.integers(2, 20))
            docs = rng.choice(30, size=n, replace=False)
            tied = q == "c6"
            for k, dd in enumerate(docs):
                s = 1.0 if tied else float(np.round(rng.normal(), 1))
                rl.append(f"{q} Q0 D{dd} {k + 1} {s} tag{r}")
        runs.append(rl)
    runs.append(list(runs[0]))  # an identical copy of the first run
    for r, rl in enumerate(runs):
        (d / f"input.sys{chr(65 + r)}").write_text("\n".join(rl) + "\n")


if __name__ == "__main__":
    out = Path(sys.argv[1])
    make_case(out, "small", nq=6, nruns=3, ndocs=12, pool=30, maxg=3, seed=1)
    make_case(out, "medium", nq=15, nruns=6, ndocs=60, pool=150, maxg=4, seed=2)
    make_case(out, "binary", nq=10, nruns=4, ndocs=40, pool=80, maxg=1, seed=3)
    make_corner(out, "corner", seed=4)
