"""pref_eval.py's sub-sampling options, seeded (numpy ``default_rng``).

* ``--query_fraction f``: keep ``max(int(|Q|·f), 1)`` queries, drawn without
  replacement among the evaluated queries.
* ``--label_fraction f``: in each query keep ``max(int(n·f), 1)`` of its n
  relevant documents; policy ``random`` draws them, policy ``pool`` keeps the
  ones found in the most run lines over all runs (ties: docid descending).
  Non-relevant judgments are kept (they only matter to registry measures).

pref_eval.py used Python's unseeded ``random``: its samples cannot be
reproduced, ours are the same for the same ``--seed``.
"""
from __future__ import annotations

import numpy as np

from ..io.qrels import Qrels
from .data import PrefQrels, prepare_qrels


def _subset(q: Qrels, keep: np.ndarray) -> Qrels:
    return Qrels(qid=q.qid[keep], iter=q.iter[keep], docno=q.docno[keep], rel=q.rel[keep], line=q.line[keep],
                 source=q.source)


def sample_queries(q: Qrels, pq: PrefQrels, fraction: float, rng: np.random.Generator,
                   binary: float | None, floor: float | None) -> tuple[Qrels, PrefQrels]:
    n = len(pq.qorder)
    k = max(int(n * fraction), 1)
    if k >= n:
        return q, pq
    chosen = np.sort(rng.choice(n, size=k, replace=False))
    keep = np.isin(q.qid, pq.qorder[chosen])
    q2 = _subset(q, keep)
    return q2, prepare_qrels(q2, binary, floor)


def sample_labels(q: Qrels, pq: PrefQrels, fraction: float, policy: str, rng: np.random.Generator,
                  runs: list, binary: float | None, floor: float | None) -> tuple[Qrels, PrefQrels]:
    kept = pq.qrels  # one row per relevant (qid, docno), sorted by qid, docno
    drop_q: list[np.ndarray] = []
    drop_d: list[np.ndarray] = []
    if policy == "pool" and len(kept.qid):
        keys = np.char.add(np.char.add(kept.qid, b"\x00"), kept.docno)
        counts = np.zeros(len(keys), np.int64)
        for r in runs:
            rk = np.char.add(np.char.add(r.qid, b"\x00"), r.docno)
            pos = np.searchsorted(keys, rk)
            pc = np.minimum(pos, len(keys) - 1)
            hit = keys[pc] == rk
            counts += np.bincount(pc[hit], minlength=len(keys))
    starts = np.flatnonzero(np.concatenate([[True], kept.qid[1:] != kept.qid[:-1]])) if len(kept.qid) else []
    bounds = list(starts) + [len(kept.qid)]
    for a, b in zip(bounds[:-1], bounds[1:], strict=False):
        n = b - a
        k = max(int(n * fraction), 1)
        if k >= n:
            continue
        idx = np.arange(a, b)
        if policy == "pool":
            # most frequent first, ties by docid descending; keep the first k
            order = sorted(idx.tolist(), key=lambda i: (int(counts[i]), kept.docno[i]), reverse=True)
            drop = np.array(order[k:], dtype=np.int64)
        else:
            drop = np.sort(rng.choice(idx, size=n - k, replace=False))
        drop_q.append(kept.qid[drop])
        drop_d.append(kept.docno[drop])
    if not drop_q:
        return q, pq
    dk = np.char.add(np.char.add(np.concatenate(drop_q), b"\x00"), np.concatenate(drop_d))
    qk = np.char.add(np.char.add(q.qid, b"\x00"), q.docno)
    q2 = _subset(q, ~np.isin(qk, dk))
    return q2, prepare_qrels(q2, binary, floor)
