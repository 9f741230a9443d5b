"""Novelty and diversity measures over subtopic qrels (TREC Web track ``ndeval``'s definitions).

The qrels' second column is the subtopic s (read with
``read_qrels(..., subtopics=True)``, which the measures below ask for).
J(d, s) = 1 when d's grade for s is ≥ l (``rel``, default 1), else 0.
A query's subtopics S are those with at least one J = 1 (ndeval's "actual
subtopics"); every measure is 0 for a query with S = ∅. d_i is the
document at rank i: score descending, ties by docno **ascending** (pyndeval's
order, hence ir-measures'; ndeval itself uses the ranks of the file, or with
``-traditional`` docno descending) and c_s(i) the number of
documents above rank i relevant to s. The novelty gain at rank i is

    G_i = Σ_s J(d_i, s) (1 − α)^{c_s(i)}      (α = ``alpha``, default 0.5)

* α-DCG@k = Σ_{i≤k} G_i / log2(i+1), divided by the "ideal ideal"
  Σ_{i≤k} |S| (1−α)^{i−1} / log2(i+1) (collection-independent);
  α-nDCG@k divides the undivided sum by the same sum over the ideal ranking
  (Clarke et al., SIGIR 2008).
* ERR-IA@k = Σ_{i≤k} G_i / i over Σ_{i≤k} |S|(1−α)^{i−1} / i; nERR-IA@k
  divides by the ideal ranking's Σ G*_i / i (Chapelle et al., CIKM 2009, in
  ndeval's binary form).
* NRBP = (1 − (1−α)β)/|S| · Σ_i G_i β^{i−1} over the whole list
  (β = ``beta``, default 0.5); nNRBP = NRBP / NRBP(ideal) (Clarke, Kolla &
  Vechtomova, ICTIR 2009). nNRBP of a query without a relevant subtopic is
  NaN (ndeval's 0/0, kept because ndeval, pyndeval and ir-measures report it;
  the mean over queries is then NaN too), and so is every query's with α = 0,
  β = 1 (the factor 1 − (1−α)β is 0: NRBP is 0 for every ranking, the ideal's
  too).
* P-IA@k = Σ_{i≤k} Σ_s J(d_i, s) / (k |S|) (Agrawal et al., WSDM 2009).
* AP-IA = (1/|S|) Σ_s (1/R_s) Σ_{i: J(d_i,s)=1} |{j ≤ i : J(d_j,s)=1}| / i,
  R_s = number of documents with J(d, s) = 1 (ndeval's MAP-IA).
* S-recall@k = |{s : some d_i, i ≤ k, has J(d_i,s)=1}| / |S| (Zhai, Cohen &
  Lafferty, SIGIR 2003).

The ideal ranking is ndeval's greedy one: at each rank the judged document
with the largest G (ties: the greatest docno), then the (1−α) factors of its
subtopics apply. It is built for all queries at once, one vectorised step
per rank (steps = the largest number of relevant documents of a query, or
the largest cutoff when only cutoff measures need it).

**ndeval's k = 1 rule**, reproduced: ndeval divides by the ideal-ideal sum
only from rank 2 on, so α-DCG@1 = G_1 and ERR-IA@1 = G_1 (undivided);
α-nDCG@1 and nERR-IA@1 are unaffected (both sides undivided). pyndeval and
ir-measures give the same numbers. Cutoffs above 20 (ndeval's ``DEPTH``)
follow the same formulas.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import math

import numpy as np

from .. import libm

from ..records import record
from ..errors import UsageError
from ..io.keys import exact_pair_keys
from .base import EvalContext, measure
from .params import CUTOFF, REL, Param

if TYPE_CHECKING:
    from ..collection import Ranked

CLARKE2008 = "Clarke, Kolla, Cormack, Vechtomova, Ashkan, Büttcher & MacKinnon, SIGIR 2008 (ndeval)"
CHAPELLE2009 = "Chapelle, Metzler, Zhang & Grinspan, CIKM 2009 (ndeval's ERR-IA)"
CKV2009 = "Clarke, Kolla & Vechtomova, ICTIR 2009 (ndeval)"
AGRAWAL2009 = "Agrawal, Gollapudi, Halverson & Ieong, WSDM 2009 (ndeval)"
ZCL2003 = "Zhai, Cohen & Lafferty, SIGIR 2003 (ndeval's strec)"


@record(frozen=True)
class SubtopicLabels:
    """The run's ranking labelled with subtopic judgments (flat arrays).

    ``pe``: flat retrieved index of each (document, relevant subtopic) pair,
    in rank order; ``ps`` its subtopic (global id); ``pc`` how many earlier
    pairs of the same subtopic (c_s); ``nsub`` |S| per query; ``sq`` query of
    each subtopic; ``nrel_s`` R_s per subtopic; ideal side: ``cand_q`` query
    of each relevant judged document (by docno descending inside a query),
    ``cp_cand``/``cp_sid`` its (document, subtopic) pairs.
    """

    pe: np.ndarray
    ps: np.ndarray
    pc: np.ndarray
    nsub: np.ndarray
    sq: np.ndarray
    nrel_s: np.ndarray
    cand_q: np.ndarray
    cp_cand: np.ndarray
    cp_sid: np.ndarray


def _rank_within(groups: np.ndarray) -> np.ndarray:
    """For a sorted ``groups`` array: 0, 1, 2 … inside each run of equal values."""
    n = len(groups)
    if not n:
        return np.zeros(0, dtype=np.int64)
    start = np.concatenate([[True], groups[1:] != groups[:-1]])
    idx = np.arange(n)
    return idx - np.maximum.accumulate(np.where(start, idx, 0))


def _ndeval_subtopic_rank(labels: np.ndarray) -> np.ndarray:
    """The rank of each distinct subtopic label in ndeval's order: ndeval indexes a topic's subtopics by their
    number (``rel[subtopic]``) and sums gains over them in that order. Labels that are not all integers keep
    their byte order."""
    try:
        values = [int(x) for x in labels.tolist()]  # one per distinct label, not per judgment
    except (TypeError, ValueError):
        return np.arange(len(labels), dtype=np.int64)
    rank = np.empty(len(labels), dtype=np.int64)
    rank[np.argsort(values, kind="stable")] = np.arange(len(labels))
    return rank


def subtopic_labels(r: Ranked, level: int) -> SubtopicLabels:
    """Label run ``r`` (a :class:`~pref_eval.collection.Ranked`) with its subtopic judgments."""
    st = r.judgments.subtopics if r.judgments is not None else None
    if st is None:
        raise UsageError("diversity measures need subtopic qrels (qid subtopic docno grade); "
                         "the qrels were read without subtopics")
    nq = r.nq
    qids = r.qids
    loc = np.minimum(np.searchsorted(qids, st.qid), max(nq - 1, 0))
    inq = (qids[loc] == st.qid) if nq else np.zeros(len(st.qid), dtype=bool)
    rel = inq & (np.asarray(st.rel, dtype=np.int64) >= level)
    jq = loc[rel].astype(np.int64)
    jdoc = st.docno[rel]
    labels, sinv = np.unique(st.iter[rel], return_inverse=True)
    sinv = _ndeval_subtopic_rank(labels)[sinv.reshape(-1)]
    ns = int(sinv.max()) + 1 if len(sinv) else 1
    usid, sid = np.unique(jq * ns + sinv, return_inverse=True)
    sid = sid.reshape(-1).astype(np.int64)
    sq = (usid // ns).astype(np.int64)
    nsub = np.bincount(sq, minlength=nq).astype(np.int64)
    nrel_s = np.bincount(sid, minlength=len(usid)).astype(np.float64)
    # retrieved side: pairs (retrieved entry, subtopic)
    rdoc = r.docno if r.docno is not None else np.zeros(0, dtype="S1")
    jk, ek = exact_pair_keys(jq, jdoc, r.qidx, rdoc)
    jo = np.lexsort((sid, jk))  # a document's subtopics in ndeval's order (G_i summed as ndeval sums it)
    sjk = jk[jo]
    # every judgment key may repeat (one per subtopic): find the range of each retrieved key
    lo = np.searchsorted(sjk, ek, side="left")
    hi = np.searchsorted(sjk, ek, side="right")
    cnt = (hi - lo) * (rdoc != b"") if len(rdoc) else hi - lo
    pe = np.repeat(np.arange(len(ek), dtype=np.int64), cnt)
    off = np.arange(int(cnt.sum()), dtype=np.int64) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    ps = sid[jo[np.repeat(lo, cnt) + off]] if len(pe) else np.zeros(0, dtype=np.int64)
    o = np.lexsort((pe, ps))
    pc = np.empty(len(pe), dtype=np.int64)
    pc[o] = _rank_within(ps[o])
    # ideal side: distinct relevant judged documents, by docno descending inside a query, each one's subtopics
    # ascending: a candidate's score is summed in ndeval's order, and its greedy choice compares those sums
    # exactly (another order moved a near-tie by one ulp: fuzz f32, nNRBP(alpha=0.9, beta=0.3) 0.8274 vs 0.8284)
    do = np.lexsort((-sid, jdoc, jq))[::-1]
    dq, dd = jq[do], jdoc[do]
    newdoc = np.concatenate([[True], (dq[1:] != dq[:-1]) | (dd[1:] != dd[:-1])]) if len(do) else np.zeros(0, bool)
    cand_of = np.cumsum(newdoc) - 1
    order = np.argsort(dq[newdoc], kind="stable")  # queries ascending, docno descending inside
    rank_of = np.empty(len(order), dtype=np.int64)
    rank_of[order] = np.arange(len(order))
    cand_q = dq[newdoc][order]
    cp_cand = rank_of[cand_of] if len(do) else np.zeros(0, dtype=np.int64)
    return SubtopicLabels(pe=pe, ps=ps, pc=pc, nsub=nsub, sq=sq, nrel_s=nrel_s, cand_q=cand_q,
                          cp_cand=cp_cand, cp_sid=sid[do])


def ideal_gains(lab: SubtopicLabels, nq: int, alpha: float, steps: int | None) -> np.ndarray:
    """``(nq, T)`` gains G*_t of ndeval's greedy ideal ranking (T = ``steps`` or until every relevant doc is placed)."""
    ncand = len(lab.cand_q)
    per_q = np.bincount(lab.cand_q, minlength=nq)
    T = int(per_q.max()) if ncand else 0
    if steps is not None:
        T = min(T, int(steps))
    out = np.zeros((nq, max(T, 0)))
    if T == 0:
        return out
    g = np.ones(len(lab.nrel_s))
    alive = np.ones(ncand, dtype=bool)
    damp = 1.0 - alpha
    for t in range(T):
        score = np.bincount(lab.cp_cand, weights=g[lab.cp_sid], minlength=ncand)
        score = np.where(alive, score, -1.0)
        best = np.full(nq, -1.0)
        np.maximum.at(best, lab.cand_q, score)
        # the first candidate of its query (docno descending) reaching the best score
        hit = alive & (score == best[lab.cand_q])
        idx = np.flatnonzero(hit)
        q = lab.cand_q[idx]
        first = np.concatenate([[True], q[1:] != q[:-1]]) if len(idx) else np.zeros(0, bool)
        pick = idx[first]
        out[lab.cand_q[pick], t] = score[pick]
        alive[pick] = False
        chosen = np.zeros(ncand, dtype=bool)
        chosen[pick] = True
        hitpairs = chosen[lab.cp_cand]
        g[lab.cp_sid[hitpairs]] *= damp
    return out


def novelty_gain(r: Ranked, lab: SubtopicLabels, alpha: float) -> np.ndarray:
    """G_i per retrieved entry (flat)."""
    return np.bincount(lab.pe, weights=libm.power(1.0 - alpha, lab.pc), minlength=len(r.qidx))


def _div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.zeros(len(num)), where=den > 0)


def _nonzero_terms(alpha: float, k: int) -> int:
    """How many of the first k weights (1 - alpha)^i can be nonzero in floating point: beyond
    i = 1080 / -log2(1 - alpha) (2^-1080 underflows to 0.0) every term of the sum is exactly 0,
    so a cutoff far beyond the run (``@100000000``) costs no cutoff-length arrays."""
    if not 0.0 < alpha < 1.0:
        return min(k, 1) if alpha >= 1.0 else k  # alpha = 1: only (1 - alpha)^0 = 1; alpha = 0: every term 1
    return min(k, int(math.ceil(1080.0 / -math.log2(1.0 - alpha))) + 8)


_BLOCK = 1 << 20


def _ideal_ideal(nsub: np.ndarray, alpha: float, k: int, disc) -> np.ndarray:
    """nsub * sum_{i<k} (1 - alpha)^i disc(i): every subtopic at every one of the first k ranks (the
    terms that underflow to 0 are left out: :func:`_nonzero_terms`); ``disc(stop, start)`` the discounts
    of ranks start..stop-1. Summed a block of 2^20 ranks at a time (alpha = 0 at a huge cutoff: bounded memory)."""
    n = _nonzero_terms(alpha, k)
    total = 0.0
    for start in range(0, n, _BLOCK):
        stop = min(n, start + _BLOCK)
        total += float((libm.power(1.0 - alpha, np.arange(start, stop)) * disc(stop, start)).sum())
    return nsub * total


def _log_disc(n: int, start: int = 0) -> np.ndarray:
    """1 / log2(i + 2) for the ranks i = start..n-1 (0-based)."""
    return 1.0 / libm.log2(np.arange(start, n) + 2)


def _recip_disc(n: int, start: int = 0) -> np.ndarray:
    """1 / (i + 1) for the ranks i = start..n-1 (0-based)."""
    return 1.0 / (np.arange(start, n) + 1.0)


def cut_sum(r: Ranked, per_entry: np.ndarray, k: int) -> np.ndarray:
    return r.per_query_sum(np.where(r.pos < k, per_entry, 0.0))


def _cascade_at_k(r, lab, raw, disc, alpha: float, cutoffs, normalise: bool) -> np.ndarray:
    """Σ of ``raw`` to depth k over its normaliser, one column per k (α-DCG and ERR-IA share it);
    ``disc(n)``: the first n rank discounts.

    ``normalise``: the greedy ideal ranking's gains under ``disc``; otherwise
    the ideal-ideal value (ndeval's k = 1 rule: undivided).
    """
    kmax = max(int(k) for k in cutoffs)
    ideal = ideal_gains(lab, r.nq, alpha, kmax) if normalise else None
    cols = []
    for k in cutoffs:
        k = int(k)
        v = cut_sum(r, raw, k)
        if ideal is not None:
            den = (ideal[:, :k] * disc(min(k, ideal.shape[1]))).sum(axis=1)
        elif k == 1:  # ndeval's k = 1 rule (module doc): undivided
            den = np.where(lab.nsub > 0, 1.0, 0.0)
        else:
            den = _ideal_ideal(lab.nsub, alpha, k, disc)
        cols.append(_div(v, den))
    return np.column_stack(cols)


def alpha_dcg(r: Ranked, level: int, alpha: float, cutoffs: Sequence[float], normalise: bool) -> np.ndarray:
    """α-DCG@k (``normalise=False``: ideal-ideal divided) or α-nDCG@k, one column per k."""
    lab = subtopic_labels(r, level)
    G = novelty_gain(r, lab, alpha)
    return _cascade_at_k(r, lab, G * (1.0 / libm.log2(r.pos + 2)), _log_disc, alpha, cutoffs, normalise)


def err_ia(r: Ranked, level: int, alpha: float, cutoffs: Sequence[float], normalise: bool) -> np.ndarray:
    """ERR-IA@k (ideal-ideal divided) or nERR-IA@k (ideal ranking divided)."""
    lab = subtopic_labels(r, level)
    G = novelty_gain(r, lab, alpha)
    return _cascade_at_k(r, lab, G / (r.pos + 1.0), _recip_disc, alpha, cutoffs, normalise)


def nrbp(r: Ranked, level: int, alpha: float, beta: float, normalise: bool) -> np.ndarray:
    """NRBP (or nNRBP) over the whole list."""
    lab = subtopic_labels(r, level)
    G = novelty_gain(r, lab, alpha)
    v = r.per_query_sum(G * libm.power(beta, r.pos))
    scale = (1.0 - (1.0 - alpha) * beta)
    if normalise:
        ideal = ideal_gains(lab, r.nq, alpha, None)
        den = (ideal * libm.power(beta, np.arange(ideal.shape[1]))).sum(axis=1)
        # ndeval divides unconditionally: 0/0 = NaN for a query without a relevant subtopic, and for every
        # query when the factor 1 − (1−α)β is 0 (α = 0, β = 1: NRBP and the ideal's NRBP are both 0)
        if scale == 0.0:
            return np.full((len(v), 1), np.nan)
        return np.divide(v, den, out=np.full(len(v), np.nan), where=den > 0).reshape(-1, 1)
    return _div(scale * v, lab.nsub.astype(np.float64)).reshape(-1, 1)


def p_ia(r: Ranked, level: int, cutoffs: Sequence[float]) -> np.ndarray:
    """P-IA@k."""
    lab = subtopic_labels(r, level)
    cnt = np.bincount(lab.pe, minlength=len(r.qidx)).astype(np.float64)
    return np.column_stack([_div(cut_sum(r, cnt, int(k)), int(k) * lab.nsub.astype(np.float64))
                            for k in cutoffs])


def ap_ia(r: Ranked, level: int) -> np.ndarray:
    """AP-IA (ndeval's MAP-IA per query)."""
    lab = subtopic_labels(r, level)
    prec = (lab.pc + 1.0) / (r.pos[lab.pe] + 1.0)
    per_s = np.bincount(lab.ps, weights=prec, minlength=len(lab.nrel_s))
    ap_s = _div(per_s, lab.nrel_s)
    tot = np.bincount(lab.sq, weights=ap_s, minlength=r.nq)
    return _div(tot, lab.nsub.astype(np.float64)).reshape(-1, 1)


def s_recall(r: Ranked, level: int, cutoffs: Sequence[float]) -> np.ndarray:
    """S-recall@k: subtopics covered in the top k over |S|."""
    lab = subtopic_labels(r, level)
    first = lab.pc == 0  # the first document of its subtopic
    cols = []
    for k in cutoffs:
        m = first & (r.pos[lab.pe] < int(k))
        cov = np.bincount(r.qidx[lab.pe[m]], minlength=r.nq).astype(np.float64)
        cols.append(_div(cov, lab.nsub.astype(np.float64)))
    return np.column_stack(cols)


# ------------------------------------------------------------------ registry
ALPHA, BETA = 0.5, 0.5
DIV_CUTS = (5, 10, 20)
ORDER_DIV = 1100
_SUB = frozenset({"subtopics"})
ALPHA_P = Param("alpha", float, ALPHA, "redundancy intolerance α", low=0.0, high=1.0)
BETA_P = Param("beta", float, BETA, "patience β (NRBP's rank decay; above 1 the series diverges)", low=0.0, high=1.0)
# ir-measures' judged_only for these measures keeps every document of the qrels, negative grades included
IN_QRELS_ONLY = Param("judged_only", bool, False, "keep only the documents present in the qrels (any grade)")
_CUT_KW = (CUTOFF, REL, IN_QRELS_ONLY)


def _opt(ctx: EvalContext, name: str, default: float) -> float:
    """A declared keyword parameter of the request (ir-measures syntax), else its default."""
    opts = getattr(ctx, "opts", None) or {}
    return float(opts.get(name, default))


def _ranking(r, ctx: EvalContext):
    """The ranking the measure sees: with ``judged_only``, the documents absent from the qrels removed."""
    if (getattr(ctx, "opts", None) or {}).get("judged_only"):
        from ..collection import NONPOOL, subset_ranked

        return subset_ranked(r, r.grade != NONPOOL)
    return r


def _div_measure(name: str, k: int, text: str, **kw):
    """Register a diversity measure: subtopic qrels; pyndeval's tie order (score desc, docno asc)."""
    return measure(name, ORDER_DIV + k, text, needs=_SUB, tie_order="docno_asc", **kw)


@_div_measure("alpha_DCG", 0, "α-DCG@k over subtopic qrels, divided by the ideal-ideal sum (ndeval).",
              formula="Σ_{i≤k} G_i/log2(i+1) / Σ_{i≤k} |S|(1−α)^(i−1)/log2(i+1), G_i = Σ_s J(d_i,s)(1−α)^c_s(i)",
              citation=CLARKE2008, param_kind="cutoffs", defaults=DIV_CUTS, irm="alpha_DCG@",
              keywords=(*_CUT_KW, ALPHA_P))
def m_alpha_dcg(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return alpha_dcg(_ranking(r, ctx), ctx.level, _opt(ctx, "alpha", ALPHA), params, False)


@_div_measure("alpha_nDCG", 1, "α-nDCG@k over subtopic qrels: α-DCG over the greedy ideal ranking's (ndeval).",
              formula="Σ_{i≤k} G_i/log2(i+1) / Σ_{i≤k} G*_i/log2(i+1), G* of ndeval's greedy ideal",
              citation=CLARKE2008, param_kind="cutoffs", defaults=DIV_CUTS, irm="alpha_nDCG@",
              keywords=(*_CUT_KW, ALPHA_P))
def m_alpha_ndcg(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return alpha_dcg(_ranking(r, ctx), ctx.level, _opt(ctx, "alpha", ALPHA), params, True)


@_div_measure("ERR_IA", 2, "Intent-aware ERR@k, divided by the ideal-ideal sum (ndeval).",
              formula="Σ_{i≤k} G_i/i / Σ_{i≤k} |S|(1−α)^(i−1)/i", citation=CHAPELLE2009,
              param_kind="cutoffs", defaults=DIV_CUTS, irm="ERR_IA@", keywords=_CUT_KW)
def m_err_ia(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return err_ia(_ranking(r, ctx), ctx.level, ALPHA, params, False)


@_div_measure("nERR_IA", 3, "Intent-aware ERR@k over the greedy ideal ranking's (ndeval).",
              formula="Σ_{i≤k} G_i/i / Σ_{i≤k} G*_i/i", citation=CHAPELLE2009,
              param_kind="cutoffs", defaults=DIV_CUTS, irm="nERR_IA@", keywords=_CUT_KW)
def m_nerr_ia(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return err_ia(_ranking(r, ctx), ctx.level, ALPHA, params, True)


@_div_measure("NRBP", 4, "Novelty- and rank-biased precision over the whole list (ndeval).",
              formula="(1−(1−α)β)/|S| · Σ_i G_i β^(i−1)", citation=CKV2009, irm="NRBP",
              keywords=(REL, ALPHA_P, BETA_P))
def m_nrbp(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return nrbp(_ranking(r, ctx), ctx.level, _opt(ctx, "alpha", ALPHA), _opt(ctx, "beta", BETA), False)


@_div_measure("nNRBP", 5, "NRBP divided by the greedy ideal ranking's NRBP (ndeval).",
              formula="Σ_i G_i β^(i−1) / Σ_i G*_i β^(i−1)  (NaN without relevant subtopic, or α = 0 and β = 1)",
              citation=CKV2009,
              irm="nNRBP", empty_value=None,
              keywords=(REL, ALPHA_P, BETA_P))
def m_nnrbp(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return nrbp(_ranking(r, ctx), ctx.level, _opt(ctx, "alpha", ALPHA), _opt(ctx, "beta", BETA), True)


@_div_measure("P_IA", 6, "Intent-aware precision at k (ndeval).",
              formula="Σ_{i≤k} Σ_s J(d_i,s) / (k|S|)", citation=AGRAWAL2009,
              param_kind="cutoffs", defaults=DIV_CUTS, irm="P_IA@", keywords=_CUT_KW)
def m_p_ia(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return p_ia(_ranking(r, ctx), ctx.level, params)


@_div_measure("AP_IA", 7, "Intent-aware average precision (ndeval's MAP-IA per query).",
              formula="(1/|S|) Σ_s (1/R_s) Σ_{i: J(d_i,s)} |{j≤i: J(d_j,s)}|/i", citation=AGRAWAL2009,
              irm="AP_IA", keywords=(REL, IN_QRELS_ONLY))
def m_ap_ia(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return ap_ia(_ranking(r, ctx), ctx.level)


@_div_measure("StRecall", 8, "Subtopic recall at k (ndeval's strec).",
              formula="|{s : ∃ i ≤ k, J(d_i,s)}| / |S|", citation=ZCL2003,
              param_kind="cutoffs", defaults=DIV_CUTS, irm="StRecall@", keywords=(CUTOFF, REL))
def m_strecall(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return s_recall(_ranking(r, ctx), ctx.level, params)
