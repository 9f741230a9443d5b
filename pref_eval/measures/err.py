"""Expected reciprocal rank: ERR, ERR@k (gdeval's definition).

ERR@k = Σ_{i=1}^{k} (R_i / i) · Π_{j<i} (1 − R_j),  R_i = (2^{g_i} − 1) / 2^{g_max}

with g_i the qrels grade of the document at rank i (0 for unjudged,
unpooled and negative grades) and g_max = 4, as in TREC Web track's
``gdeval.pl`` (its ``$MAX_JUDGMENT``); a grade above 4 is an error, as in
gdeval. The cascade model: a user scans down, stops at rank i with
probability R_i. ``ERR`` without a cutoff runs over the whole list.
The ranking is pref_eval's (score descending, ties by docno descending),
which is also gdeval's. A query without a relevant document gets 0
(gdeval omits the query; its value would be 0).

Chapelle, Metzler, Zhang & Grinspan, "Expected reciprocal rank for graded
relevance", CIKM 2009.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import EvaluationError
from .params import CUTOFF
from .base import EvalContext, measure
from .cascade import cut_mask, exclusive_level_product

if TYPE_CHECKING:
    from ..collection import Ranked

CMZG2009 = "Chapelle, Metzler, Zhang & Grinspan, CIKM 2009 (gdeval.pl, TREC Web track)"
MAX_JUDGMENT = 4
ORDER_ERR = 1000


def err_values(r: Ranked, cutoff: int | None) -> np.ndarray:
    """Per-query ERR@cutoff of run ``r`` (``cutoff`` None: the whole list)."""
    g = np.maximum(np.asarray(r.grade, dtype=np.int64), 0)
    if len(g) and int(g.max()) > MAX_JUDGMENT:
        raise EvaluationError(f"ERR: relevance grade {int(g.max())} above gdeval's maximum {MAX_JUDGMENT}")
    stop = (2.0 ** np.arange(MAX_JUDGMENT + 1) - 1.0) / 2.0**MAX_JUDGMENT
    decay = exclusive_level_product(g, 1.0 - stop, r.ptr, r.qidx)
    w = np.where(cut_mask(r.pos, cutoff), stop[g] * decay / (r.pos + 1.0), 0.0)
    return r.per_query_sum(w)


@measure("ERR", ORDER_ERR, "Expected reciprocal rank over the whole list (gdeval's gains).",
         formula="Σ_i (R_i/i) Π_{j<i}(1−R_j),  R = (2^g − 1)/2^4", citation=CMZG2009,
         uses_level=False, irm="ERR")
def err(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return err_values(r, None).reshape(-1, 1)


@measure("ERR_cut", ORDER_ERR + 1, "Expected reciprocal rank at cutoff k (gdeval's ERR@k).",
         formula="Σ_{i≤k} (R_i/i) Π_{j<i}(1−R_j),  R = (2^g − 1)/2^4", citation=CMZG2009,
         param_kind="cutoffs", defaults=(20,), uses_level=False, irm="ERR@",
         keywords=(CUTOFF,))
def err_cut(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return np.column_stack([err_values(r, int(k)) for k in params])
