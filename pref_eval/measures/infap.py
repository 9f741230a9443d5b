"""Inferred average precision (trec_eval ``m_infap.c``).

Documents are unpooled (absent from the qrels), pooled but unjudged
(negative grade), judged relevant (rel ≥ l) or judged non-relevant. Walking
the ranking, at the relevant document at 0-based rank j, with ``r`` judged
relevant (this one included), ``n`` judged non-relevant and ``u`` pooled
unjudged documents seen so far, and ε = 1e-5:

    c_j = 1                                   if j = 0
    c_j = 1/(j+1) + (j/(j+1)) · ((r−1+n+u)/j) · ((r−1+ε)/(r−1+n+2ε))   otherwise

    infAP = (1/R) Σ_j c_j     (0 when R = 0)

Yilmaz & Aslam, "Estimating average precision with incomplete and imperfect
judgments", CIKM 2006.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .params import REL
from .base import EvalContext, measure
from .nicknames import trec_order
from .rankutil import cum_within

if TYPE_CHECKING:
    from ..collection import Ranked

INFAP_EPSILON = 0.00001


@measure("infAP", trec_order("infAP"), "Inferred AP (sampled judgments; negative grade = pooled, unjudged).",
         formula="(1/R) Σ_rel [1/(j+1) + (j/(j+1))·((r−1+n+u)/j)·((r−1+ε)/(r−1+n+2ε))]",
         irm="infAP", keywords=(REL,), citation="Yilmaz & Aslam, CIKM 2006")
def infap(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    from ..collection import UNJUDGED

    g, lvl = r.grade, ctx.level
    rel = (g >= 0) & (g >= lvl)
    nonrel = (g >= 0) & (g < lvl)
    at = np.flatnonzero(rel)
    rs = cum_within(r, rel, at=at) - 1         # relevant above (excl. this one)
    ns = cum_within(r, nonrel, at=at)
    us = cum_within(r, g == UNJUDGED, at=at)
    fj = r.pos[rel].astype(np.float64)
    eps = INFAP_EPSILON
    with np.errstate(divide="ignore", invalid="ignore"):
        c = (1.0 / (fj + 1.0)
             + (fj / (fj + 1.0)) * ((rs + ns + us) / fj) * ((rs + eps) / ((rs + ns) + 2 * eps)))
    c = np.where(fj == 0, 1.0, c)
    contrib = np.zeros(len(g))
    contrib[rel] = c
    s = r.per_query_sum(contrib)
    R = r.num_rel(lvl)
    return np.divide(s, R, out=s.copy(), where=R > 0).reshape(-1, 1)
