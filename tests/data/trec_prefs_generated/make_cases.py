"""Generate the random inputs of this folder (deterministic: fixed seeds).

    python make_cases.py            # writes *.prefs, *.qrels*, *.run here

The expected outputs were then produced with trec_eval 10.0 (see README.md).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _run(rng, qids, pools, tag, *, extra=30, tie_round=1, drop=0.3):
    lines = []
    for q in qids:
        docs = [d for d in pools[q] if rng.random() > drop]
        docs += [f"U{q}-{i}" for i in range(int(rng.integers(0, extra)))]
        rng.shuffle(docs)
        scores = np.round(rng.normal(10, 2, len(docs)), tie_round)
        for i, (d, s) in enumerate(zip(docs, scores)):
            lines.append(f"{q} Q0 {d} {i + 1} {s} {tag}")
    return "\n".join(lines) + "\n"


def make_prefs(seed: int, nq: int, name: str, *, dup_lines: bool = False):
    rng = np.random.default_rng(seed)
    qids = [f"q{seed}{i:02d}" for i in range(nq)]
    pools, out = {}, []
    for q in qids:
        pool = [f"D{q}-{i}" for i in range(int(rng.integers(4, 25)))]
        pools[q] = pool
        for j in range(int(rng.integers(1, 5))):
            jg = f"jg{j}"
            docs = list(rng.choice(pool, size=int(rng.integers(2, len(pool) + 1)), replace=False))
            true = {d: rng.random() for d in docs}
            nonrel = {d for d in docs if true[d] < 0.3}
            nsub = 1 if rng.random() < 0.5 else int(rng.integers(2, 5))
            for s in range(nsub):
                sub = docs if nsub == 1 else list(rng.choice(docs, size=int(rng.integers(1, len(docs) + 1)), replace=False))
                buckets = int(rng.integers(2, 5))
                for d in sub:
                    lvl = 0 if d in nonrel else 1 + int(true[d] * buckets)
                    out.append(f"{q} {jg} sub{s} {d} {lvl}")
                    if dup_lines and rng.random() < 0.1:
                        out.append(f"{q} {jg} sub{s} {d} {lvl}")
    rng.shuffle(out)
    (HERE / f"{name}.prefs").write_text("\n".join(out) + "\n")
    (HERE / f"{name}.run").write_text(_run(rng, qids, pools, f"run{seed}"))


def make_qrels_jg(seed: int, nq: int, name: str, *, grades=(-1, 0, 0, 0, 1, 2, 3)):
    rng = np.random.default_rng(seed)
    qids = [str(400 + seed * 10 + i) for i in range(nq)]
    pools, out = {}, []
    for q in qids:
        pool = [f"DOC-{q}-{i:03d}" for i in range(int(rng.integers(5, 80)))]
        pools[q] = pool
        for j in range(int(rng.integers(1, 4))):
            docs = rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)
            for d in docs:
                out.append(f"{q} {j} {d} {int(rng.choice(grades))}")
    rng.shuffle(out)
    (HERE / f"{name}.qrels").write_text("\n".join(out) + "\n")
    (HERE / f"{name}.run").write_text(_run(rng, qids, pools, f"jg{seed}", extra=60, tie_round=0))


if __name__ == "__main__":
    make_prefs(1, 8, "case1")
    make_prefs(2, 10, "case2", dup_lines=True)
    make_qrels_jg(3, 9, "case3", grades=(0, 0, 0, 1, 2, 3))  # used with -R qrels_prefs
    make_qrels_jg(4, 12, "case4", grades=(-1, 0, 0, 1, 1, 2))  # used with -R qrels_jg
    # found by tools/fuzz_trec_eval.py: -l -1 / -l -2 (judgment groups with only negative grades, R = 0)
    make_qrels_jg(5, 12, "case5", grades=(-2, -1, -1, -1, 0, 1, 2))  # used with -R qrels_jg -l-1, -l-2
