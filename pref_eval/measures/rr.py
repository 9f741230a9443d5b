"""Reciprocal rank (trec_eval ``m_recip_rank.c``).

``recip_rank`` = 1 / rank of the first relevant retrieved document (rank
1-based, over the whole ranking: no cutoff); 0 if none is retrieved.
``recip_rank_cut.k`` (ir-measures' ``RR@k``, MS MARCO's MRR@10) = the same
over the top k only, with ties in score ordered by docno *ascending*, as MS
MARCO's evaluation script (ir-measures' provider for ``RR@k``) orders them.
Voorhees, "The TREC-8 Question Answering Track Report", TREC 1999.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .params import CUTOFF, JUDGED_ONLY, REL
from .base import EvalContext, measure
from .nicknames import TREC_TABLE, trec_order
from .rankutil import first_pos

if TYPE_CHECKING:
    from ..collection import Ranked


@measure("recip_rank", trec_order("recip_rank"), "Reciprocal rank of the first relevant document.",
         formula="1 / rank(first d with rel(d) ≥ l)  (0 if none)", irm="RR", keywords=(REL, JUDGED_ONLY),
         citation="Voorhees, TREC-8 QA track report, 1999")
def recip_rank(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    f = first_pos(r, r.grade >= ctx.level)
    return np.divide(1.0, f + 1.0, out=np.zeros(r.nq), where=f >= 0).reshape(-1, 1)


@measure("recip_rank_cut", len(TREC_TABLE) + 1, "Reciprocal rank of the first relevant document in the top k.",
         formula="1 / rank(first d in Ret[:k] with rel(d) ≥ l)  (0 if none); ties by docno ascending",
         irm="RR@", keywords=(CUTOFF, REL, JUDGED_ONLY), param_kind="cutoffs", defaults=(10,),
         tie_order="docno_asc",
         citation="Voorhees, TREC-8 QA track report, 1999; MS MARCO (Nguyen et al., 2016) MRR@10")
def recip_rank_cut(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    f = first_pos(r, r.grade >= ctx.level)
    return np.column_stack([np.divide(1.0, f + 1.0, out=np.zeros(r.nq), where=(f >= 0) & (f < int(k)))
                            for k in params])
