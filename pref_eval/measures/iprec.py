"""Interpolated precision: iprec_at_recall, 11pt_avg (trec_eval ``m_iprec_at_recall.c``,
``m_11pt_avg.c``).

Interpolated precision at rank i is IP(i) = max_{j ≥ i} P@j (precision at
every later rank, the last one included). A recall point x is turned into a
number of relevant documents

    c = lround(x·R)            trec_eval 10 (halves away from zero)
    c = (long)(x·R + 0.9)      trec_eval 9.x (``--trec-eval-9``)

and ``iprec_at_recall_x`` = IP(rank of the c-th relevant retrieved document)
if 1 ≤ c ≤ |Rel ∩ Ret|; 0 if c > |Rel ∩ Ret|; and max_j P@j for c = 0
(which is |Rel ∩ Ret|/|Ret| = 0 when nothing relevant is retrieved, 0/0 =
NaN when nothing at all is retrieved, printed ``-nan`` as trec_eval does).

trec_eval assigns the points while walking the ranking backwards, the
parameters in reverse order; for parameters not in ascending order (possible
for ``11pt_avg``, whose parameters are not sorted) a point that can no longer
be reached takes the final value max_j P@j, and so do all points before it.
That walk is reproduced exactly (a loop over parameters, vectorised over
queries).

``11pt_avg`` = mean of those values over its parameters (default 0, .1, …, 1),
summed in reverse parameter order as trec_eval does.

In ir-measures syntax (``IPrec@x``, ``IPrec(recall=x)``) the 9.x rounding is
used, as pytrec_eval (trec_eval 9.x, ir-measures' provider for IPrec) computes it.

van Rijsbergen, *Information Retrieval*, 1979, ch. 7; Buckley & Voorhees 2005.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .params import JUDGED_ONLY, RECALL, REL, Param
from .base import EvalContext, measure
from .nicknames import trec_order
from .rankutil import c_long, cum_within, lround, suffix_max

if TYPE_CHECKING:
    from ..collection import Ranked

POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def recall_cut(x: float, R: np.ndarray, trec9: bool) -> np.ndarray:
    """Number of relevant documents for recall point ``x`` (see module doc)."""
    t = float(x) * R.astype(np.float64)
    return c_long(t + 0.9) if trec9 else lround(t)


def iprec_matrix(r: Ranked, points: tuple, level: int, trec9: bool) -> np.ndarray:
    """(nq, len(points)) interpolated precision, columns in ``points`` order."""
    rel = r.grade >= level
    idx = np.flatnonzero(rel)
    k = cum_within(r, rel, at=idx)               # relevant in top pos+1, at each relevant doc
    if level < 0:
        # trec_eval's walk starts from num_rel_ret (judged documents only) and counts down at
        # every rank with grade ≥ level, unjudged ones included: it is `offset` lower and stops at 0.
        k = k - r.rel_offset(level)[r.qidx[idx]]
        keep = k >= 1
        idx, k = idx[keep], k[keep]
    q = r.qidx[idx]
    prec = k / (r.pos[idx] + 1.0)                # P at each relevant doc
    ip = suffix_max(prec, q)                     # IP at the n-th relevant doc
    nrr = np.bincount(q, minlength=r.nq).astype(np.int64)
    start = np.concatenate([[0], np.cumsum(nrr)])[:-1]
    nret = r.num_ret.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        final_norel = np.zeros(r.nq) / nret      # 0/|Ret|: NaN when nothing retrieved
    if trec9:
        # 9.x never evaluates a topic missing from the run (-c averages it as 0)
        final_norel = np.where(r.present, final_norel, 0.0)
    final = np.where(nrr > 0, ip[np.minimum(start, max(len(ip) - 1, 0))] if len(ip) else 0.0,
                     final_norel)
    R = r.num_rel(level)
    n = len(points)
    out = np.zeros((r.nq, n))
    skipping = np.ones(r.nq, bool)   # still in trec_eval's "cutoff > num_rel_ret" prologue
    blocked = np.zeros(r.nq, bool)
    kpos = nrr.copy()                # the walk can still match cutoffs ≤ kpos
    for j in range(n - 1, -1, -1):
        c = recall_cut(points[j], R, trec9)
        skip_now = skipping & (c > nrr)
        skipping = skip_now
        active = ~skip_now
        match = active & ~blocked & (c >= 1) & (c <= kpos)
        blocked = blocked | (active & ~match)
        if len(ip):
            at = np.minimum(start + np.maximum(c, 1) - 1, len(ip) - 1)
            out[:, j] = np.where(match, ip[at], 0.0)
        kpos = np.where(match, c, kpos)
        out[:, j] = np.where(active & blocked, final, out[:, j])
        out[:, j] = np.where(skip_now, 0.0, out[:, j])
    return out


#: the recall points of iprec_at_recall / 11pt_avg (trec_eval computes any number: > 1 gives 0, < 0 as 0)
RECALL_POINTS = Param("recall", float, doc="recall points x", low=0.0, high=1.0, count=(1, None))

@measure("iprec_at_recall", trec_order("iprec_at_recall"),
         "Interpolated precision at recall points (v10: lround(x·R); --trec-eval-9: (long)(x·R+0.9)).",
         formula="max_{j ≥ rank of c-th rel} P@j,  c = lround(x·R)", param_kind="floats",
         defaults=POINTS, empty_value=None, irm="IPrec@", keywords=(RECALL, REL, JUDGED_ONLY),
         citation="van Rijsbergen 1979", trec_params=(RECALL_POINTS,))
def iprec_at_recall(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return iprec_matrix(r, tuple(params), ctx.level, ctx.trec9 or ctx.irm)


@measure("11pt_avg", trec_order("11pt_avg"), "Interpolated precision averaged over recall points.",
         formula="(1/|X|) Σ_{x∈X} iprec_at_recall_x", param_kind="raw", defaults=POINTS, empty_value=float("nan"),
         citation="Salton & McGill 1983", trec_params=(RECALL_POINTS,))
def eleven_pt_avg(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    pts = tuple(params)
    if not pts:
        from ..errors import UsageError

        raise UsageError("11pt_avg: no cutoff values")
    m = iprec_matrix(r, pts, ctx.level, ctx.trec9)
    s = np.zeros(r.nq)
    for j in range(len(pts) - 1, -1, -1):
        s = s + m[:, j]
    return (s / float(len(pts))).reshape(-1, 1)
