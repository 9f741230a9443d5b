"""nDCG family: ndcg, ndcg_cut, ndcg_rel, Rndcg, dcg, ideal_dcg, G, binG (trec_eval 10).

Gains are the qrels grades (linear; 0 for unjudged and unpooled documents),
or the ``grade=gain`` parameters (``ndcg.1=3,2=9``; see :mod:`.gains` for the
level sort, including trec_eval's comparator quirk), discount 1/log2(rank+1).
``-l`` does not apply (except binG and Rndcg's "no relevant document" test).

* ``dcg`` = Σ_{i ≤ |Ret|} g(d_i)/log2(i+1) over the whole retrieved list.
* ``ideal_dcg`` = the same over the ideal list of *all* judged documents
  with positive gain, in decreasing gain (not cut at |Ret|).
* ``ndcg`` = dcg / ideal_dcg (0 when ideal_dcg = 0).
* ``ndcg_cut.k`` = DCG@k / IDCG@k with raw grades (no gain map), the ideal
  also cut at k.

In ir-measures syntax, ``nDCG(gains={grade: gain, ...})`` (with or without
``@k``) maps the grades first (grade 0 included; unlisted grades keep gain = grade, gains ≤ 0
and unjudged documents count 0), as ir-measures does by rewriting the qrels; ``nDCG(dcg='exp-log2')@k``
uses gain 2^g − 1 for g > 0 (Burges et al., ICML 2005; the definition of
gdeval, the TREC Web track's script, which ir-measures runs for it; gdeval
prints no value for a query without relevant document, we give 0).
Järvelin & Kekäläinen, "Cumulated gain-based evaluation of IR techniques",
ACM TOIS 20(4):422-446, 2002.

Experimental measures of trec_eval (Buckley, 2008), defined by its help text:

* ``ndcg_rel`` = mean, over the R' ideal positions with positive gain, of
  nDCG at the rank of each retrieved document with positive gain (the
  documents not retrieved contribute dcg/ideal_dcg at the end of the list).
* ``Rndcg`` = mean of nDCG taken at each rank where the ideal gain changes
  (the "R levels"), and at the end of the list when it is longer.
* ``G`` = Σ_i g(d_i) / log2(2 + C_i − S_i) / Σ ideal gains, with S_i the gain
  retrieved up to rank i and C_i the ideal gain up to rank i counted with a
  floor of 1 per rank.
* ``binG`` = (1/R) Σ_{relevant d_i} 1/log2(2 + #non-relevant above d_i).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import libm

from .base import EvalContext, measure
from .gains import GainSetup, discounted, seg_cumsum, setup_gains
from .nicknames import trec_order
from .params import CUTOFF, GAIN, JUDGED_ONLY, Param

if TYPE_CHECKING:
    from ..collection import Ranked

CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
JK2002 = "Järvelin & Kekäläinen, ACM TOIS 20(4), 2002"


DCG = Param("dcg", str, "log2", "gain form: 'log2' (gain = grade) or 'exp-log2' (gain = 2^grade − 1)",
            choices=("log2", "exp-log2"))
GAINS = Param("gains", dict, doc="grade → gain map, e.g. {0: 0, 1: 1, 2: 3} (unlisted grades keep their grade; "
              "{} maps none)")


def _no_gains_with_exp(text: str, opts: dict) -> None:
    if opts.get("gains") and opts.get("dcg") == "exp-log2":
        from ..errors import UsageError

        raise UsageError(f"measure {text!r}: gains= and dcg='exp-log2' cannot be combined")


def _mapped_gains(grade: np.ndarray, opts: dict) -> np.ndarray:
    """Gain of each grade under the ir-measures options (negative grades and gains ≤ 0 → 0).

    A gain map applies to every judged grade, 0 included (``gains={0: 1}`` gives judged
    non-relevant documents gain 1, as ir-measures' rewritten qrels do); unjudged documents
    (negative ``grade``) have gain 0.
    """
    g = grade.astype(np.float64)
    if opts.get("dcg") == "exp-log2":
        out = libm.exp2(grade) - 1.0
    elif opts.get("gains"):  # an empty map ({}) maps nothing: gain = grade
        keys = np.array([k for k, _ in opts["gains"]], dtype=np.float64)
        vals = np.array([v for _, v in opts["gains"]], dtype=np.float64)
        hit = np.searchsorted(keys, g)
        hitc = np.minimum(hit, len(keys) - 1)
        out = np.where(keys[hitc] == g, vals[hitc], g)
    else:
        out = g
    return np.where((grade >= 0) & (out > 0), out, 0.0)


def mapped_ndcg(r: Ranked, opts: dict, cutoffs: tuple | None) -> np.ndarray:
    """nDCG (whole list if ``cutoffs`` is None, else one column per k) with mapped gains.

    The ideal ranking sorts the query's judged gains (after mapping) in
    decreasing order; it is cut at k too.
    """
    gain = _mapped_gains(r.grade, opts)
    jq = r.jqidx()
    jgain = _mapped_gains(r.jgrade, opts)
    order = np.lexsort((-jgain, jq))
    jgain = jgain[order]
    jpos = np.arange(len(jgain)) - r.jptr[:-1][jq]
    iw = discounted(jgain, jpos)
    cols = []
    for k in (cutoffs if cutoffs is not None else (None,)):
        d = _dcg(r, gain, None if k is None else int(k))
        w = iw if k is None else iw * (jpos < int(k))
        i = np.bincount(jq, weights=w, minlength=r.nq)
        cols.append(np.where(i > 0, _ratio(d, i), d))
    return np.column_stack(cols)


def _custom(ctx: EvalContext) -> bool:
    return bool(ctx.opts.get("gains")) or ctx.opts.get("dcg", "log2") != "log2"


def _dcg(r, gain: np.ndarray, cutoff: int | None = None) -> np.ndarray:
    w = discounted(gain, r.pos)
    if cutoff is not None:
        w = w * (r.pos < cutoff)
    return r.per_query_sum(w)


def _idcg(gs: GainSetup, nq: int, cutoff: int | None = None) -> np.ndarray:
    w = discounted(gs.ideal, gs.ipos)
    if cutoff is not None:
        w = w * (gs.ipos < cutoff)
    return np.bincount(gs.iqidx, weights=w, minlength=nq)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.zeros(len(num)), where=den > 0)


@measure("dcg", trec_order("dcg"), "Discounted cumulative gain over the whole retrieved list.",
         formula="Σ_i g(d_i)/log2(i+1)", citation=JK2002, param_kind="gains", trec_params=(GAIN,), bounds=None,
         uses_level=False)
def dcg(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    gs = setup_gains(r, params)
    return _dcg(r, gs.result_gain).reshape(-1, 1)


@measure("ideal_dcg", trec_order("ideal_dcg"), "DCG of the ideal ranking of all judged documents.",
         formula="Σ_i g*_i/log2(i+1), g* = judged gains > 0 sorted", citation=JK2002,
         bounds=None, empty_value=None,
         param_kind="gains", trec_params=(GAIN,), uses_level=False)
def ideal_dcg(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    gs = setup_gains(r, params)
    return _idcg(gs, r.nq).reshape(-1, 1)


@measure("ndcg", trec_order("ndcg"), "Normalized DCG over the whole list (ideal not cut).",
         formula="dcg / ideal_dcg", citation=JK2002, param_kind="gains", trec_params=(GAIN,), uses_level=False,
         irm="nDCG", keywords=(DCG, GAINS, JUDGED_ONLY), validate=_no_gains_with_exp)
def ndcg(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    if _custom(ctx):
        return mapped_ndcg(r, ctx.opts, None)
    gs = setup_gains(r, params)
    return _ratio(_dcg(r, gs.result_gain), _idcg(gs, r.nq)).reshape(-1, 1)


@measure("ndcg_cut", trec_order("ndcg_cut"), "nDCG at cutoff k with raw grades as gains.",
         formula="DCG@k / IDCG@k", citation=JK2002, param_kind="cutoffs", defaults=CUTS,
         uses_level=False, irm="nDCG@", keywords=(CUTOFF, DCG, GAINS, JUDGED_ONLY), validate=_no_gains_with_exp)
def ndcg_cut(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    if _custom(ctx):
        return mapped_ndcg(r, ctx.opts, params)
    gain = np.where(r.grade > 0, r.grade, 0).astype(np.float64)
    pos_j = r.jgrade > 0
    jq = r.jqidx()[pos_j]
    jpos = np.arange(len(r.jgrade))[pos_j] - r.jptr[:-1][jq]
    iw = discounted(r.jgrade[pos_j].astype(np.float64), jpos)
    cols = []
    for k in params:
        d = _dcg(r, gain, int(k))
        i = np.bincount(jq, weights=iw * (jpos < int(k)), minlength=r.nq)
        cols.append(np.where(i > 0, _ratio(d, i), d))
    return np.column_stack(cols)


def _ideal_at_ranks(gs: GainSetup, qidx: np.ndarray, pos: np.ndarray, cum_ideal: np.ndarray) -> np.ndarray:
    """For retrieved docs of queries ``qidx`` at ranks ``pos``: ideal DCG through rank min(pos, J-1)."""
    J = gs.ideal_len[qidx]
    k = np.minimum(pos, J - 1)
    idx = gs.iptr[:-1][qidx] + k
    return np.where(J > 0, cum_ideal[np.clip(idx, 0, max(len(cum_ideal) - 1, 0))] if len(cum_ideal) else 0.0, 0.0)


@measure("ndcg_rel", trec_order("ndcg_rel"), "nDCG averaged over the relevant (gain > 0) documents.",
         formula="(1/R') Σ_{rel} nDCG@rank(rel); unretrieved: dcg/ideal_dcg at the end",
         citation="trec_eval 9 (Buckley 2008), experimental", param_kind="gains", trec_params=(GAIN,), uses_level=False)
def ndcg_rel(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    gs = setup_gains(r, params)
    w = discounted(gs.result_gain, r.pos)
    cum_dcg = seg_cumsum(w, r.ptr)
    total_dcg = r.per_query_sum(w)
    del w
    # only the documents with a positive gain count: the running sums are taken there (no full-length
    # temporaries beyond the running DCG)
    pg = np.flatnonzero(gs.result_gain > 0)
    qg = r.qidx[pg]
    cum_ideal = seg_cumsum(discounted(gs.ideal, gs.ipos), gs.iptr)
    at = _ideal_at_ranks(gs, qg, r.pos[pg], cum_ideal)
    with np.errstate(divide="ignore", invalid="ignore"):
        per_doc = cum_dcg[pg] / at
        del cum_dcg
        s = np.bincount(qg, weights=per_doc, minlength=r.nq)
        nrr = np.bincount(qg, minlength=r.nq)
        J = gs.ideal_len.astype(np.float64)
        total_ideal = np.bincount(gs.iqidx, weights=discounted(gs.ideal, gs.ipos), minlength=r.nq)
        s = s + (J - nrr) * total_dcg / total_ideal
        return np.where(s > 0, s / J, 0.0).reshape(-1, 1)


@measure("Rndcg", trec_order("Rndcg"), "nDCG averaged at the ranks where the ideal gain changes.",
         formula="mean of nDCG@R_j over the R-level boundaries of the ideal ranking; 0 if R = 0 (rel ≥ l)",
         citation="trec_eval 9 (Buckley 2008), experimental", param_kind="gains", trec_params=(GAIN,))
def rndcg(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    gs = setup_gains(r, params)
    nq = r.nq
    w = discounted(gs.result_gain, r.pos)
    cum_dcg = seg_cumsum(w, r.ptr)
    iw = discounted(gs.ideal, gs.ipos)
    cum_ideal = seg_cumsum(iw, gs.iptr)
    J = gs.ideal_len
    nret = r.num_ret
    alive = gs.top > 0

    def dcg_before(q: np.ndarray, b: np.ndarray) -> np.ndarray:
        """DCG of retrieved ranks < min(b, |Ret|) for queries q."""
        upto = np.minimum(b, nret[q])
        idx = r.ptr[:-1][q] + upto - 1
        safe = np.clip(idx, 0, max(len(cum_dcg) - 1, 0))
        return np.where(upto > 0, cum_dcg[safe] if len(cum_dcg) else 0.0, 0.0)

    # boundaries inside the ideal list (b < J): ideal gain differs from the previous one
    prev = np.empty(len(gs.ideal))
    if len(gs.ideal):
        prev[1:] = gs.ideal[:-1]
        starts = gs.ipos == 0
        prev[starts] = gs.top[gs.iqidx[starts]]
    change = gs.ideal != prev
    bq, bb = gs.iqidx[change], gs.ipos[change]
    bideal = np.where(bb > 0, cum_ideal[np.flatnonzero(change) - 1] if len(cum_ideal) else 0.0, 0.0)
    # the boundary where the ideal runs out (b = J), for queries with an ideal walk
    eq = np.flatnonzero(alive)
    eb = J[eq]
    total_ideal = np.bincount(gs.iqidx, weights=iw, minlength=nq)
    q_all = np.concatenate([bq, eq])
    b_all = np.concatenate([bb, eb])
    ideal_all = np.concatenate([bideal, total_ideal[eq]])
    o = np.lexsort((b_all, q_all))
    q_all, b_all, ideal_all = q_all[o], b_all[o], ideal_all[o]
    keep = ideal_all > 0
    q_all, b_all, ideal_all = q_all[keep], b_all[keep], ideal_all[keep]
    contrib = dcg_before(q_all, b_all) / ideal_all
    s = np.bincount(q_all, weights=contrib, minlength=nq)
    n = np.bincount(q_all, minlength=nq).astype(np.float64)
    # a retrieved list longer than the ideal walk adds nDCG at its end
    extra = alive & (nret > J + 1) & (total_ideal > 0)
    total_dcg = r.per_query_sum(w)
    s = np.where(extra, s + np.divide(total_dcg, total_ideal, out=np.zeros(nq), where=extra), s)
    n = n + extra
    with np.errstate(divide="ignore", invalid="ignore"):
        val = s / n
    val = np.where(r.num_rel(ctx.level) == 0, 0.0, val)
    return val.reshape(-1, 1)


@measure("G", trec_order("G"), "Normalized gain G (experimental).",
         formula="Σ_i g(d_i)/log2(2 + C_i − S_i) / Σ g*",
         citation="trec_eval 9 (Buckley 2008), experimental", param_kind="gains", trec_params=(GAIN,), uses_level=False)
def g_measure(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    """Rank i costs the ideal gain at rank i (at least 1) while the ideal list lasts, then 1; C_i and S_i are
    the running cost and gain. Computed with two full-length arrays (the costs, their running sums): the
    ranks inside the ideal list are gathered per query, the sums taken at the documents with a gain."""
    gs = setup_gains(r, params)
    nq = r.nq
    counts = np.diff(r.ptr)
    inside = np.minimum(np.where(gs.top > 0, gs.ideal_len, 0), counts)  # ranks within the ideal list
    cost = np.ones(len(r.pos))
    m = int(inside.sum())
    if m:
        qq = np.repeat(np.arange(nq), inside)
        k = np.arange(m) - np.repeat(np.cumsum(inside) - inside, inside)
        cost[r.ptr[:-1][qq] + k] = np.maximum(gs.ideal[gs.iptr[:-1][qq] + k], 1.0)
        del qq, k
    sum_cost = seg_cumsum(cost, r.ptr)
    del cost
    nz = np.flatnonzero(gs.result_gain != 0)
    qz = r.qidx[nz]
    gain = gs.result_gain[nz]
    # running gain at the documents with a gain: the zero gains in between add +0.0 (no change)
    zptr = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(np.bincount(qz, minlength=nq), out=zptr[1:])
    sum_res = seg_cumsum(gain, zptr)
    arg = 2.0 + sum_cost[nz] - sum_res  # < 0 with negative gains: log2 is NaN
    with np.errstate(divide="ignore", invalid="ignore"):
        lg = libm.log2(arg)
    # C's log2 (glibc on x86) returns the negative default NaN, printed "-nan"; numpy's log2 gives +NaN or
    # -NaN depending on the CPU's SIMD path (+NaN on AVX2, -NaN with AVX-512): set the sign as C does
    lg[arg < 0] = -np.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        w = gain / lg
    del sum_cost
    res_g = np.bincount(qz, weights=w, minlength=nq)  # the per-query sum without its +0.0 terms
    sum_ideal = np.bincount(gs.iqidx, weights=gs.ideal, minlength=nq)
    return _ratio(res_g, sum_ideal).reshape(-1, 1)


@measure("binG", trec_order("binG"), "Binary G (experimental).",
         formula="(1/R) Σ_{rel d_i} 1/log2(2 + #nonrel above d_i)",
         citation="trec_eval 9 (Buckley 2008), experimental")
def bin_g(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    rel = r.grade >= ctx.level
    so_far = seg_cumsum(rel.astype(np.float64), r.ptr)
    w = np.zeros(len(r.pos))
    w[rel] = 1.0 / libm.log2(3.0 + r.pos[rel] - so_far[rel])
    s = r.per_query_sum(w)
    R = r.num_rel(ctx.level)
    nrr = r.per_query_sum(rel)
    with np.errstate(divide="ignore"):  # m_binG.c: sum / num_rel once one was retrieved (inf for R 0 at -l <= -1)
        return np.divide(s, R, out=np.zeros(r.nq), where=nrr > 0).reshape(-1, 1)
