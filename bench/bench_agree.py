"""Benchmark of zelo_agree's pair level.  Run:  python bench/bench_agree.py [--pairs N] [--repeat R]

Two judges on the same N pairs (default 1,000,000: 1,000 queries x 1,000 pairs of 300 documents),
judge B writes every other pair in the reverse order and has 10 % ties and 5 % missing judgments.
Timed: flattening both judgment tables to votes, matching on (qid, unordered pair), and every
pair-level statistic with 1,000 bootstrap resamples of the queries (pref_eval.agree.report's pair
level without reading files). Reading is timed separately (llmlog text, the reader zelo_fit uses).
"""
from __future__ import annotations

import argparse
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from pref_eval.agree.matching import Vocabulary, judge_votes, match  # noqa: E402
from pref_eval.agree.pairlevel import pair_level  # noqa: E402
from pref_eval.agree.records import Bootstrap  # noqa: E402
from pref_eval.zelo.judgments import Judgments  # noqa: E402


def tables(n_pairs: int, n_queries: int = 1000, n_docs: int = 300, seed: int = 0):
    rng = np.random.default_rng(seed)
    per_q = n_pairs // n_queries
    tabs = []
    q = np.repeat(np.arange(n_queries), per_q)
    # distinct unordered pairs per query: i < j from a random sample of the n_docs*(n_docs-1)/2 pairs
    iu, ju = np.triu_indices(n_docs, 1)
    pick = np.concatenate([rng.choice(len(iu), per_q, replace=False) for _ in range(n_queries)])
    a, b = iu[pick], ju[pick]
    p = rng.random(len(q))
    names = [f"q{i}" for i in range(n_queries)] + [f"d{j:04d}" for j in range(n_docs)]
    for k in range(2):
        t = Judgments()
        s = (rng.random(len(q)) < p).astype(float)
        aa, bb = a.copy(), b.copy()
        if k == 1:
            s[rng.random(len(q)) < 0.1] = 0.5
            rev = np.arange(len(q)) % 2 == 1
            aa[rev], bb[rev] = b[rev], a[rev]
            s[rev] = 1.0 - s[rev]
            miss = rng.random(len(q)) < 0.05
        else:
            miss = np.zeros(len(q), dtype=bool)
        # through the table's vectorised entry (what a reader's fast path calls); codes index ``names``
        t.add_columns(names, q, n_queries + aa, n_queries + bb, s, keep=~miss, missing=miss)
        t.format = "jsonl"
        if len(t) != int((~miss).sum()):
            raise RuntimeError(f"bench table holds {len(t)} judgments, expected {int((~miss).sum())}")
        tabs.append(t)
    return tabs


def pair_report(tabs):
    vocab = Vocabulary()
    judges = [judge_votes(name, t, vocab) for name, t in zip(("A", "B"), tabs, strict=True)]
    mt = match(judges, vocab)
    return pair_level(mt, Bootstrap(len(mt.queries), 1000, 0))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--read", action="store_true", help="also time reading an llmlog file of the pairs")
    args = ap.parse_args()
    tabs = tables(args.pairs)
    times, cpu = [], []
    for _ in range(args.repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        recs = pair_report(tabs)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    kappa = next(r for r in recs if r.statistic == "cohen_kappa")
    print(f"pairs={args.pairs} judges=2 resamples=1000 pair level: wall s "
          + " ".join(f"{t:.2f}" for t in times) + f" (best {min(times):.2f}); CPU s "
          + " ".join(f"{t:.2f}" for t in cpu) + f" (best {min(cpu):.2f}); load average {os.getloadavg()[0]:.1f}; "
          f"kappa={kappa.value:.4f} n={kappa.n}")
    if args.read:
        from pref_eval.io.judgments import read_judgments

        t = tabs[1]
        tq, ta, tb, ts, _ = (c.tolist() for c in t.arrays())  # once: the list properties copy the column
        with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as fh:
            for qi, ai, bi, si in zip(tq, ta, tb, ts, strict=True):
                qid = t.queries[qi]
                da, db = t.docs[qid][ai], t.docs[qid][bi]
                mark = "=" if si == 0.5 else "!"
                if si == 1.0:
                    da, db = db, da
                fh.write(f"@ {qid} {da} {db} {mark}\n")
            path = fh.name
        t0 = time.perf_counter()
        read_judgments(path, "llmlog")
        print(f"reading {len(tq)} llmlog lines: {time.perf_counter() - t0:.2f} s")
        os.unlink(path)


if __name__ == "__main__":
    main()
