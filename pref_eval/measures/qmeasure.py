"""Q-measure and Q@k: NTCIR's graded-relevance AP (Sakai; NTCIREVAL's ``Q-measure`` and ``Q@k``).

Q = (1/R) Σ_r I(r) BR(r),  BR(r) = (β·cg(r) + count(r)) / (β·cg*(r) + r)

with I(r) = 1 when the document at rank r is relevant (gain > 0), count(r)
the relevant documents in the top r, cg(r) the cumulative gain of the top r,
cg*(r) that of the ideal list (every judged document of positive gain, in
decreasing gain; it stays at the total gain below rank R), R the number of
judged documents of positive gain and β ≥ 0 the patience parameter
(default 1; β = 0 gives AP). The blended ratio BR(r) mixes precision and
the normalised cumulative gain, so a relevant document found late still
counts, and BR(r) ≤ 1 since cg(r) ≤ cg*(r).

``Q@k`` (NTCIREVAL's cutoff form) sums over the ranks r ≤ k and divides by
min(k, R), as NTCIREVAL's ``AP@k`` does (trec_eval's ``map_cut`` and
ir-measures' ``AP@k`` divide by R).

Gains: the qrels grade (NTCIREVAL's ``-g 1:2:3`` for grades 1-3: a document
of grade g gains g), or ``gains={grade: gain}`` (ir-measures' nDCG map:
unlisted grades keep their grade, gains ≤ 0 and unjudged documents count 0
and are not relevant). A query without a document of positive gain gets 0
(NTCIREVAL skips it with "no rel doc").

trec_eval syntax: ``Q.beta=0.5,3=100`` (as ``rbp.p=0.95`` and ``ndcg.1=3``:
β and ``grade=gain`` pairs, printed ``Q_beta=0.5,3=100``); ``Q_cut.k`` takes
cutoffs only (β and gains in the ir-measures syntax, ``Q(beta=0.5)@10``).

Sakai, "New performance metrics based on multigrade relevance: their
application to question answering", NTCIR-4 (2004); Sakai, "On the
reliability of information retrieval metrics based on graded relevance",
Information Processing & Management 43(2), 2007 (β); NTCIREVAL
(http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .base import EvalContext, measure
from .gains import seg_cumsum
from .ndcg import GAINS, _mapped_gains
from .params import CUTOFF, GAIN, JUDGED_ONLY, Param
from ..records import record

if TYPE_CHECKING:
    from ..collection import Ranked

SAKAI = ("Sakai, NTCIR-4 2004 (Q-measure); Sakai, IP&M 43(2) 2007 (β); NTCIREVAL "
         "(http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html)")
ORDER_Q = 1050
BETA = Param("beta", float, 1.0, "patience β of the blended ratio (0: AP; NTCIREVAL's -beta)",
             low=0.0, high=1e100)


@record(frozen=True)
class Blended:
    """The relevant documents of a ranking (flat, query-major, in rank order) with their blended ratio.

    ``q`` query index, ``pos`` 0-based rank, ``count`` relevant documents up to the rank, ``grade`` the qrels
    grade, ``br`` the blended ratio; per query ``R`` (judged documents of positive gain) and ``total`` (their
    gain, the ideal list's cumulative gain at its end).
    """

    q: np.ndarray
    pos: np.ndarray
    count: np.ndarray
    grade: np.ndarray
    gain: np.ndarray
    br: np.ndarray
    R: np.ndarray
    total: np.ndarray


def blended(r: Ranked, opts: dict) -> Blended:
    """The blended ratio BR(r) = (β·cg(r) + count(r)) / (β·cg*(r) + r) at every relevant document of ``r``.

    Gains are the grades or ``opts['gains']`` (:func:`~.ndcg._mapped_gains`), β ``opts['beta']`` (default 1).
    """
    beta = float(opts.get("beta", 1.0))
    gain = _mapped_gains(r.grade, opts)
    jq = r.jqidx()
    jgain = _mapped_gains(r.jgrade, opts)
    order = np.lexsort((-jgain, jq))
    ideal_cum = seg_cumsum(jgain[order], r.jptr)  # per query: the ideal list's cumulative gain
    R = np.bincount(jq, weights=jgain > 0, minlength=r.nq).astype(np.int64)
    total = np.bincount(jq, weights=jgain, minlength=r.nq)
    rel = gain > 0
    idx = np.flatnonzero(rel)
    cg = seg_cumsum(gain, r.ptr)[idx]
    q = r.qidx[idx]
    before = np.searchsorted(idx, r.ptr[:-1])
    count = (np.arange(1, len(idx) + 1, dtype=np.int64) - before[q]).astype(np.float64)
    pos = r.pos[idx].astype(np.int64)
    ideal = ideal_cum[r.jptr[:-1][q] + np.minimum(pos, R[q] - 1)] if len(idx) else np.zeros(0)
    br = (beta * cg + count) / (beta * ideal + (pos + 1.0))
    return Blended(q=q, pos=pos, count=count, grade=np.asarray(r.grade)[idx], gain=gain[idx], br=br, R=R,
                   total=total)


def trec_options(opts: dict, params: tuple) -> dict:
    """``opts`` with the trec_eval syntax's pairs (``Q.beta=0.5,3=100``) as the keywords ``beta`` and ``gains``."""
    if not params:
        return opts
    out = dict(opts)
    gains = {int(k): float(v) for k, v in params if k != "beta"}
    if gains:
        out["gains"] = tuple(sorted(gains.items()))
    out.update((k, float(v)) for k, v in params if k == "beta")
    return out


def q_values(r: Ranked, opts: dict, cutoffs: tuple | None) -> np.ndarray:
    """Per-query Q-measure (one column, ``cutoffs`` None) or Q@k (one column per k)."""
    b = blended(r, opts)
    cols = []
    for k in (cutoffs if cutoffs is not None else (None,)):
        keep = slice(None) if k is None else b.pos < int(k)
        s = np.bincount(b.q[keep], weights=b.br[keep], minlength=r.nq)
        den = b.R if k is None else np.minimum(b.R, int(k))
        cols.append(np.divide(s, den, out=np.zeros(r.nq), where=den > 0))
    return np.column_stack(cols)


@measure("Q", ORDER_Q, "Q-measure (Sakai; NTCIR's graded AP): mean blended ratio at the relevant documents.",
         formula="(1/R) Σ_r I(r)·(β·cg(r) + count(r)) / (β·cg*(r) + r)", citation=SAKAI, uses_level=False,
         irm="Q", keywords=(BETA, GAINS, JUDGED_ONLY), param_kind="gains", trec_params=(GAIN, BETA))
def q_measure(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return q_values(r, trec_options(ctx.opts, params), None)


@measure("Q_cut", ORDER_Q + 1, "Q-measure at cutoff k (NTCIREVAL's Q@k: divided by min(k, R)).",
         formula="(1/min(k,R)) Σ_{r≤k} I(r)·(β·cg(r) + count(r)) / (β·cg*(r) + r)", citation=SAKAI,
         param_kind="cutoffs", defaults=(10, 1000), uses_level=False, irm="Q@",
         keywords=(CUTOFF, BETA, GAINS, JUDGED_ONLY))
def q_cut(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return q_values(r, ctx.opts, params)
