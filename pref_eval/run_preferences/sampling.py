"""pref_eval.py's sub-sampling options, seeded (numpy ``default_rng``).

* ``--query_fraction f``: keep ``max(int(|Q|·f), 1)`` queries, drawn without
  replacement among the evaluated queries (their ids in sorted order, so the
  draw does not depend on the order of the qrels lines).
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


def _pair_keys(sides: list[tuple[np.ndarray, np.ndarray]]) -> list[np.ndarray]:
    """Exact int64 keys of the (qid, docno) pairs of every side: equal keys iff equal pairs.

    (Concatenating the two byte strings is not a key: numpy drops a trailing NUL separator, so query
    ``1`` with document ``0d1`` met query ``10`` with document ``d1``, and the concatenations do not sort
    as the pairs do -- the pool counts were looked up in an unsorted array.)
    """
    qs = np.concatenate([s[0] for s in sides])
    ds = np.concatenate([s[1] for s in sides])
    _, qi = np.unique(qs, return_inverse=True)
    _, di = np.unique(ds, return_inverse=True)
    nd = int(di.max()) + 1 if len(di) else 1
    k = qi.reshape(-1).astype(np.int64) * nd + di.reshape(-1).astype(np.int64)
    return np.split(k, np.cumsum([len(s[0]) for s in sides])[:-1])


def sample_queries(q: Qrels, pq: PrefQrels, fraction: float, rng: np.random.Generator,
                   binary: float | None, floor: float | None) -> tuple[Qrels, PrefQrels]:
    n = len(pq.qorder)
    k = max(int(n * fraction), 1)
    if k >= n:
        return q, pq
    # drawn among the query ids in sorted order, not in the file's order: the same seed keeps the same
    # queries whatever the order of the qrels lines
    keep = np.isin(q.qid, np.sort(pq.qorder)[rng.choice(n, size=k, replace=False)])
    q2 = _subset(q, keep)
    return q2, prepare_qrels(q2, binary, floor)


def sample_labels(q: Qrels, pq: PrefQrels, fraction: float, policy: str, rng: np.random.Generator,
                  runs: list, binary: float | None, floor: float | None) -> tuple[Qrels, PrefQrels]:
    kept = pq.qrels  # one row per relevant (qid, docno), sorted by qid, docno
    drop_q: list[np.ndarray] = []
    drop_d: list[np.ndarray] = []
    if policy == "pool" and len(kept.qid):
        from ..io.keys import lookup_sorted

        keys, *run_keys = _pair_keys([(kept.qid, kept.docno)] + [(r.qid, r.docno) for r in runs])
        order = np.argsort(keys, kind="stable")
        counts = np.zeros(len(keys), np.int64)
        for rk in run_keys:
            hit, pos = lookup_sorted(keys[order], rk)
            counts += np.bincount(order[pos[hit]], minlength=len(keys))
    starts: np.ndarray | list[int] = (np.flatnonzero(np.concatenate([[True], kept.qid[1:] != kept.qid[:-1]]))
                                      if len(kept.qid) else [])
    bounds = list(starts) + [len(kept.qid)]
    for a, b in zip(bounds[:-1], bounds[1:], strict=False):
        n = b - a
        k = max(int(n * fraction), 1)
        if k >= n:
            continue
        idx = np.arange(a, b)
        if policy == "pool":
            # most frequent first, ties by docid descending; keep the first k
            ranked = sorted(idx.tolist(), key=lambda i: (int(counts[i]), kept.docno[i]), reverse=True)
            drop = np.array(ranked[k:], dtype=np.int64)
        else:
            drop = np.sort(rng.choice(idx, size=n - k, replace=False))
        drop_q.append(kept.qid[drop])
        drop_d.append(kept.docno[drop])
    if not drop_q:
        return q, pq
    dk, qk = _pair_keys([(np.concatenate(drop_q), np.concatenate(drop_d)), (q.qid, q.docno)])
    q2 = _subset(q, ~np.isin(qk, dk))
    # every query keeps >= 1 relevant document, and its place: the order is not that of the first
    # relevant line left (pref_eval.py drops labels from its dict of queries, whose order stays)
    return q2, prepare_qrels(q2, binary, floor, order=pq.qorder)
