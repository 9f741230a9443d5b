"""pref_eval.py's metrics, per run and query, and their pairwise differences.

Binary unless stated (relevant = grade > 0 after -b/-f); ``p_k`` = rank of
the k-th retrieved relevant document, m = relevant documents of the query;
no depth limit except ``--topk`` (see docs/zelo_eval.md):

* ``ap[@K]`` = Σ_{k: p_k ≤ K} k/p_k / m (Buckley & Voorhees);
* ``rbp[@γ[,K]]`` = (1−γ) Σ_{p_k ≤ K} γ^(p_k−1), γ = 0.5 by default, no
  residual (Moffat & Zobel 2008);
* ``rr[@K]`` = 1/p_1 (0 if none, or p_1 > K);
* ``ndcg[@K]`` = Σ_{p ≤ K} g/log2(p+1) / Σ_{i<K} g_(i)/log2(i+2), linear
  gains = grades, ideal over every relevant document (Järvelin & Kekäläinen 2002);
* ``rp`` = #{p_k ≤ m}/m; ``p@K`` = #{p_k ≤ K}/K; ``r@K`` = #{p_k ≤ K}/m.

Preference lines carry differences, computed as pref_eval.py does so the
floats agree: counts are subtracted before dividing (p@K, r@K, rp) and nDCG
is (DCG_i − DCG_j)/IDCG. ``rr@K`` differences are real differences
(pref_eval.py printed 0.0 for them).
"""
from __future__ import annotations


import numpy as np

from ..records import record
from .data import BIG, RelVectors, seg_sum
from .names import PrefMeasure


@record(frozen=True)
class MetricValues:
    """``value`` (R, nq); ``num``/``den`` when the difference is taken on the numerator."""

    value: np.ndarray
    num: np.ndarray | None = None
    den: np.ndarray | float | None = None

    def diff(self, run_i: np.ndarray, run_j: np.ndarray) -> np.ndarray:
        if self.num is not None:
            return (self.num[run_i] - self.num[run_j]) / self.den
        return self.value[run_i] - self.value[run_j]


def _qsum(rv: RelVectors, A: np.ndarray) -> np.ndarray:
    """Per-query sums, sequential in slot order (see :func:`.data.seg_sum`)."""
    return seg_sum(A, rv.slot_query(), rv.nq)


def _log2_table(n: int) -> np.ndarray:
    """``math.log2(i)`` for i < n (libm's, as pref_eval.py computes it)."""
    import math

    return np.array([0.0] + [math.log2(i) for i in range(1, n)])


def compute_metric(rv: RelVectors, pm: PrefMeasure) -> MetricValues:
    """Values of one pref_eval metric for every run and query."""
    X = rv.ranks
    found = X < BIG
    m = rv.m.astype(np.float64)
    k = pm.k
    within = found & (k >= X) if k > 0 else found
    if pm.base == "ap":
        idx = (rv.slot_index() + 1).astype(np.float64)
        term = np.where(within, idx[None, :] * (1.0 / np.maximum(X, 1)), 0.0)
        return MetricValues(_qsum(rv, term) / m)
    if pm.base == "rbp":
        g = pm.gamma
        maxr = int(np.max(np.where(within, X, 0), initial=0))
        powers = np.array([g ** i for i in range(maxr + 1)])  # Python's pow, as pref_eval.py
        term = np.where(within, powers[np.where(within, X - 1, 0)], 0.0)
        return MetricValues((1.0 - g) * _qsum(rv, term))
    if pm.base == "rr":
        first = X[:, rv.slot_ptr[:-1]] if rv.nq else np.zeros((X.shape[0], 0), np.int64)
        ok = (first < BIG) & ((first <= k) if k > 0 else True)
        return MetricValues(np.where(ok, 1.0 / np.maximum(first, 1), 0.0))
    if pm.base == "ndcg":
        maxr = int(np.max(np.where(found, X, 0), initial=0))
        idx = rv.slot_index()
        lg = _log2_table(max(maxr, int(idx.max(initial=0)) + 1) + 3)
        dterm = np.where(within, rv.gains / lg[np.where(within, X, 1) + 1], 0.0)
        dcg = _qsum(rv, dterm)
        iterm = rv.ideal / lg[idx + 2]
        if k > 0:
            iterm = np.where(idx < k, iterm, 0.0)
        idcg = seg_sum(iterm[None, :], rv.slot_query(), rv.nq)[0]
        return MetricValues(dcg / idcg, num=dcg, den=idcg)
    if pm.base in ("rp", "p", "r"):
        cut = m[rv.slot_query()] if pm.base == "rp" else float(k)
        cnt = _qsum(rv, (found & (cut >= X)).astype(np.float64))
        den = float(k) if pm.base == "p" else m
        return MetricValues(cnt / den, num=cnt, den=den)
    raise ValueError(pm.base)


def registry_values(pm: PrefMeasure, results: list, qidx: np.ndarray) -> MetricValues:
    """Values of a registry measure from the engine's RunResults, in evaluation order."""
    req = pm.request
    if req is None:  # a registry measure carries its request
        raise RuntimeError("internal error: a registry measure without its request")
    name = req.columns()[pm.column]
    from ..engine import label_of

    label = label_of(req, name)
    rows = []
    for res in results:
        col = next(c for c in res.columns if c.name == label or c.name == name)
        rows.append(np.asarray(col.values, dtype=np.float64)[qidx])
    return MetricValues(np.array(rows).reshape(len(results), len(qidx)))
