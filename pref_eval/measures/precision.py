"""Precision family: P, relative_P, Rprec, Rprec_mult, success (trec_eval).

Notation: ``rel(d) ≥ l`` is relevant (``-l``), R = |{d in qrels : rel(d) ≥ l}|,
``|Rel ∩ Ret[:k]|`` the relevant documents among the top k retrieved.

* ``P.k`` = |Rel ∩ Ret[:k]| / k — k even when fewer were retrieved
  (``m_P.c``).
* ``relative_P.k`` = |Rel ∩ Ret[:k]| / min(k, R); 0 when R = 0 (``m_rel_P.c``).
* ``Rprec`` = |Rel ∩ Ret[:min(R, |Ret|)]| / R; 0 when R = 0 or nothing
  retrieved (``m_Rprec.c``).
* ``Rprec_mult.x`` = |Rel ∩ Ret[:c]| / c with c = (long)(x·R + 0.9) (C
  truncation, in trec_eval 9 and 10 alike); 0 when c = 0 (``m_Rprec_mult.c``).
  Defaults x = 0.2, 0.4, …, 2.0.
* ``success.k`` = 1 if some relevant document is in the top k, else 0
  (``m_success.c``); defaults 1, 5, 10.

R-precision: Buckley & Voorhees, "Evaluating evaluation measure stability",
SIGIR 2000; success: TREC QA / web track usage.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .params import CUTOFF, JUDGED_ONLY, REL, Param
from .base import EvalContext, measure
from .nicknames import trec_order
from .rankutil import c_long

if TYPE_CHECKING:
    from ..collection import Ranked

#: x of Rprec_mult (and Rprec_mult_avgjg): > 0 (x = 0 is precision at rank 0); ≤ 10⁶ keeps x·R + 0.9 a C long
#: for any R a collection has (trec_eval's cast of a larger double is undefined)
R_MULT = Param("x", float, doc="multiple of R: precision after (long)(x·R + 0.9) documents", low=0.0, high=1e6,
               low_open=True, count=(1, None))
CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


def rel_in_top(r: Ranked, level: int, k: int | np.ndarray) -> np.ndarray:
    """Per query, number of relevant docs among ranks < k (k scalar or per-query array)."""
    kk = np.asarray(k)
    lim = kk[r.qidx] if kk.ndim else kk
    return r.per_query_sum((r.grade >= level) & (r.pos < lim))


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    den = np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros(len(den)), where=den > 0)


@measure("P", trec_order("P"), "Precision at cutoff k.", formula="P@k = |Rel ∩ Ret[:k]| / k",
         param_kind="cutoffs", defaults=CUTS, irm="P@", keywords=(CUTOFF, REL, JUDGED_ONLY),
         citation="van Rijsbergen 1979")
def precision(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return np.column_stack([rel_in_top(r, ctx.level, int(k)) / float(k) for k in params])


@measure("relative_P", trec_order("relative_P"),
         "Precision at k relative to the best possible: divided by min(k, R).",
         formula="|Rel ∩ Ret[:k]| / min(k, R)  (0 if R = 0)", param_kind="cutoffs",
         defaults=CUTS, citation="trec_eval 10 (NIST; Buckley)")
def relative_precision(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    R = r.num_rel(ctx.level)
    return np.column_stack([_safe_div(rel_in_top(r, ctx.level, int(k)), np.minimum(int(k), R))
                            for k in params])


@measure("Rprec", trec_order("Rprec"), "Precision after R documents retrieved.",
         formula="|Rel ∩ Ret[:min(R, |Ret|)]| / R", irm="Rprec", keywords=(REL, JUDGED_ONLY),
         citation="Buckley & Voorhees, SIGIR 2000")
def rprec(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    R = r.num_rel(ctx.level)
    look = np.minimum(R, r.num_ret)
    v = _safe_div(rel_in_top(r, ctx.level, look), R)
    return np.where(look > 0, v, 0.0).reshape(-1, 1)


@measure("Rprec_mult", trec_order("Rprec_mult"),
         "Precision after x·R documents retrieved (c = (long)(x·R + 0.9)).",
         formula="|Rel ∩ Ret[:c]| / c,  c = (long)(x·R + 0.9)", param_kind="floats",
         defaults=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0), citation="trec_eval 10 (NIST; Buckley)",
         trec_params=(R_MULT,))
def rprec_mult(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    R = r.num_rel(ctx.level).astype(np.float64)
    # trec_eval walks up from num_rel_ret (judged only); with -l ≤ -1 the walk also
    # counts unjudged documents, so it runs `offset` below the relevant count and stops at 0.
    offset = r.rel_offset(ctx.level)
    cols = []
    for x in params:
        c = c_long(float(x) * R + 0.9)
        cols.append(_safe_div(np.maximum(rel_in_top(r, ctx.level, c) - offset, 0.0), c))
    return np.column_stack(cols)


@measure("success", trec_order("success"), "1 if a relevant document is in the top k.",
         formula="[ |Rel ∩ Ret[:k]| > 0 ]", param_kind="cutoffs", defaults=(1, 5, 10),
         irm="Success@", keywords=(CUTOFF, REL, JUDGED_ONLY), citation="trec_eval 10 (NIST; Buckley)")
def success(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return np.column_stack([(rel_in_top(r, ctx.level, int(k)) > 0).astype(np.float64)
                            for k in params])
