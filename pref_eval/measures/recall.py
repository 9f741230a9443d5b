"""Recall at cutoffs (trec_eval ``m_recall.c``).

``recall.k`` = |Rel ∩ Ret[:k]| / R with R = |{d in qrels : rel(d) ≥ l}|;
0 when R = 0. Defaults k = 5, 10, 15, 20, 30, 100, 200, 500, 1000.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .params import CUTOFF, JUDGED_ONLY, REL
from .base import EvalContext, measure
from .nicknames import trec_order
from .precision import CUTS, rel_in_top

if TYPE_CHECKING:
    from ..collection import Ranked


@measure("recall", trec_order("recall"), "Recall at cutoff k.",
         formula="R@k = |Rel ∩ Ret[:k]| / R  (0 if R = 0)", param_kind="cutoffs",
         defaults=CUTS, irm="R@", keywords=(CUTOFF, REL, JUDGED_ONLY), citation="van Rijsbergen 1979")
def recall(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    R = r.num_rel(ctx.level).astype(np.float64)
    return np.column_stack([np.divide(rel_in_top(r, ctx.level, int(k)), R, out=np.zeros(r.nq),
                                      where=R > 0) for k in params])
