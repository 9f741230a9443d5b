"""Accuracy (ir-measures' definition): how often a retrieved relevant document is above a retrieved non-relevant one.

Over the top k of the ranking (the whole ranking without a cutoff), with
relevant = grade ≥ rel (default 1; unjudged documents count as grade 0,
negative grades are not relevant), n_j the number of non-relevant documents
above the j-th relevant one, R' the relevant and N' the non-relevant
documents in the top k:

    Accuracy = 1 − Σ_{j=1}^{R'} n_j / (N' · R')

— the share of (relevant, non-relevant) pairs of the list in the right order.
A query with R' = 0 scores 0 (ir-measures leaves it out); with N' = 0 (every
retrieved document relevant) it scores 1 (ir-measures divides by zero).
ir-measures, ``accuracy`` provider (diagnostic measure); the pairwise
accuracy is the AUC of the ranking (Hanley & McNeil, Radiology 1982).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..collection import NONPOOL
from .base import EvalContext, measure
from .params import REL, TRUNCATE
from .rankutil import cum_within

if TYPE_CHECKING:
    from ..collection import Ranked

ORDER_ACC = 1310
CITE = "ir-measures' Accuracy (MacAvaney, Macdonald & Ounis, ECIR 2022); AUC: Hanley & McNeil 1982"


def accuracy_values(r: Ranked, level: int, cutoff: int | None) -> np.ndarray:
    g = np.where(np.asarray(r.grade) == NONPOOL, 0, r.grade)
    inside = np.ones(len(g), dtype=bool) if cutoff is None else r.pos < int(cutoff)
    rel = (g >= level) & inside
    non = (~(g >= level)) & inside
    above = cum_within(r, non) - non  # non-relevant strictly above (inside the cut)
    s = r.per_query_sum(np.where(rel, above, 0))
    R = r.per_query_sum(rel)
    N = r.per_query_sum(non)
    val = np.where(N > 0, 1.0 - np.divide(s, N * R, out=np.zeros(r.nq), where=(N * R) > 0), 1.0)
    return np.where(R > 0, val, 0.0)


@measure("Accuracy", ORDER_ACC, "Share of (relevant, non-relevant) retrieved pairs in the right order.",
         formula="1 − Σ_j n_j/(N'R'), n_j non-relevant above the j-th relevant (top k)", citation=CITE,
         irm="Accuracy", keywords=(TRUNCATE, REL))
def accuracy(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return accuracy_values(r, ctx.level, None).reshape(-1, 1)  # a cutoff truncates the ranking first
