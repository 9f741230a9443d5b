"""Reciprocal rank (trec_eval ``m_recip_rank.c``).

``recip_rank`` = 1 / rank of the first relevant retrieved document (rank
1-based, over the whole ranking: no cutoff); 0 if none is retrieved.
Voorhees, "The TREC-8 Question Answering Track Report", TREC 1999.
"""
from __future__ import annotations

import numpy as np

from .base import EvalContext, measure
from .nicknames import trec_order
from .rankutil import first_pos


@measure("recip_rank", trec_order("recip_rank"), "Reciprocal rank of the first relevant document.",
         formula="1 / rank(first d with rel(d) ≥ l)  (0 if none)", irm="RR",
         citation="Voorhees, TREC-8 QA track report, 1999")
def recip_rank(r, params: tuple, ctx: EvalContext) -> np.ndarray:
    f = first_pos(r, r.grade >= ctx.level)
    return np.divide(1.0, f + 1.0, out=np.zeros(r.nq), where=f >= 0).reshape(-1, 1)
