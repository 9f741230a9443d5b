"""Binary preference: bpref, gm_bpref (trec_eval ``m_bpref.c``, ``m_gm_bpref.c``).

Only judged documents take part: documents absent from the qrels and pooled
but unjudged ones (negative grade) are skipped. With R = |{d : rel(d) ≥ l}|
and N = |{d : 0 ≤ rel(d) < l}| from the qrels, and n(r) the number of
judged non-relevant documents retrieved above the relevant document r:

    bpref = (1/R) Σ_{retrieved relevant r} (1 − min(n(r), R) / min(N, R))

where a relevant document with n(r) = 0 contributes 1 (this avoids 0/0 when
N = 0); bpref = 0 when R = 0. ``gm_bpref`` is the geometric mean over
queries of max(bpref, 1e-5) (summary only).

Buckley & Voorhees, "Retrieval evaluation with incomplete information",
SIGIR 2004.
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


def bpref_values(r: Ranked, level: int) -> np.ndarray:
    """Per-query bpref (see the module docstring)."""
    g = r.grade
    nonrel = (g >= 0) & (g < level)
    rel = (g >= 0) & (g >= level)
    idx = np.flatnonzero(rel)  # only the relevant retrieved documents contribute
    above = cum_within(r, nonrel, at=idx)  # inclusive, but equals "above" at a relevant doc
    R = r.num_rel(level)
    N = r.count_judged((r.jgrade >= 0) & (r.jgrade < level)).astype(np.int64)
    q = r.qidx[idx]
    Rq, Nq = R[q], N[q]
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.minimum(above, Rq) / np.minimum(Nq, Rq).astype(np.float64)
    contrib = np.where(above > 0, 1.0 - frac, 1.0)
    # bincount adds in input order, so leaving out the zeros of the other documents keeps every bit
    s = np.bincount(q, weights=contrib, minlength=r.nq).astype(np.float64, copy=False)
    return np.divide(s, R, out=s.copy(), where=R > 0)


@measure("bpref", trec_order("bpref"), "Binary preference (judged documents only).",
         formula="(1/R) Σ_{rel r} (1 − min(n_r, R)/min(N, R))", irm="Bpref", keywords=(REL,),
         citation="Buckley & Voorhees, SIGIR 2004")
def bpref(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return bpref_values(r, ctx.level).reshape(-1, 1)


@measure("gm_bpref", trec_order("gm_bpref"), "Geometric mean of bpref over queries (floor 1e-5).",
         formula="exp(mean_q ln max(bpref_q, 1e-5))", aggregate="gmean", summary_only=True,
         citation="Buckley & Voorhees, SIGIR 2004")
def gm_bpref(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return bpref_values(r, ctx.level).reshape(-1, 1)
