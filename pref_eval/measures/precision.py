"""Precision family: P, relative_P, Rprec, Rprec_mult, success (trec_eval).

* ``P.k`` = |rel in top k| / k — k even when fewer were retrieved.
* ``relative_P.k`` = |rel in top k| / min(k, R).
* ``Rprec`` = |rel in top R| / R.
* ``Rprec_mult.x`` = |rel in top round(x·R)| / round(x·R).
* ``success.k`` = 1 if a relevant document is in the top k.
"""
from __future__ import annotations

import numpy as np

from .base import EvalContext, measure
from .nicknames import trec_order

CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


def rel_in_top(r, level: int, k) -> np.ndarray:
    """Per query, number of relevant docs among ranks < k (k scalar or per-query array)."""
    kk = np.asarray(k)
    lim = kk[r.qidx] if kk.ndim else kk
    return r.per_query_sum((r.grade >= level) & (r.pos < lim))


@measure("P", trec_order("P"), "Precision at cutoff k.", formula="P@k = |Rel ∩ Ret[:k]| / k",
         param_kind="cutoffs", defaults=CUTS, irm="P@")
def precision(r, params: tuple, ctx: EvalContext) -> np.ndarray:
    return np.column_stack([rel_in_top(r, ctx.level, int(k)) / float(k) for k in params])
