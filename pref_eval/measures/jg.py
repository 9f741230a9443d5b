"""Judgment-group measures of trec_eval (``-R qrels_jg``): map_avgjg, P_avgjg, Rprec_mult_avgjg.

A ``qrels_jg`` file holds several sets of relevance judgments per query,
one per judgment group (JG, the qrels ``iter`` column; e.g. one per
assessor). Each measure is the ordinary measure computed against each JG's
judgments separately, then averaged over the query's JGs (the plain value
when there is one JG), then averaged over queries:

* ``map_avgjg`` = mean_JG AP_JG, AP_JG = Σ_{relevant retrieved at rank i}
  (rel found up to i / i) / R_JG (0 when none retrieved; ``inf`` when R_JG = 0,
  which ``-l`` ≤ −1 allows, as trec_eval);
* ``P_avgjg.k`` = mean_JG |Rel_JG ∩ Ret[:k]| / k;
* ``Rprec_mult_avgjg.x`` = mean_JG |Rel_JG ∩ Ret[:c]| / c with
  c = (long)(x·R_JG + 0.9) (0 when c = 0); with ``-l`` ≤ −1 the count is
  lowered by the documents the JG did not judge (trec_eval's walk from the
  judged count, as ``Rprec_mult``), never below 0.

Relevant means grade ≥ ``-l``; R_JG counts the JG's grades ≥ max(l, 0).
The ranking is the run's (score descending, ties docno descending, ``-M``);
with ``-J`` each JG's ranking keeps only the documents that JG judged.
"""
from __future__ import annotations

from typing import TYPE_CHECKING


import numpy as np

from ..records import record
from ..io.keys import exact_pair_keys, lookup_sorted
from .base import EvalContext, measure
from .nicknames import trec_order
from .precision import CUTS, R_MULT
from .rankutil import c_long

if TYPE_CHECKING:
    from ..collection import Ranked
    from ..io.prefs import QrelsJG


@record(frozen=True)
class JudgmentGroups:
    """Every JG of every evaluated query, with the run's ranking labelled per JG.

    ``gq`` query index of each JG (JGs ordered by query, then jg id bytes);
    ``njg`` JGs per query; flat per (JG, retrieved doc) entries ``eg`` (JG),
    ``pos`` (0-based rank in that JG's ranking), ``grade`` (the JG's grade,
    -1 not judged by that JG, -2 judged with a negative grade); ``jg_of`` and
    ``jrel`` every judgment of the evaluated queries.
    """

    nq: int
    gq: np.ndarray
    njg: np.ndarray
    eg: np.ndarray
    pos: np.ndarray
    grade: np.ndarray
    num_ret: np.ndarray
    jg_of: np.ndarray
    jrel: np.ndarray

    @property
    def ng(self) -> int:
        return len(self.gq)

    def num_rel(self, level: int) -> np.ndarray:
        return np.bincount(self.jg_of, weights=self.jrel >= max(int(level), 0),
                           minlength=self.ng).astype(np.int64)

    def average(self, per_jg: np.ndarray) -> np.ndarray:
        """Per query: Σ over its JGs (in order), divided by the number of JGs when > 1."""
        s = np.bincount(self.gq, weights=per_jg, minlength=self.nq)
        return np.where(self.njg > 1, s / np.maximum(self.njg, 1), s)


def judgment_groups(qj: QrelsJG, ranked: Ranked, *, judged_only: bool = False) -> JudgmentGroups:
    """Label ``ranked`` (a :class:`~pref_eval.collection.Ranked`) with every JG's grades."""
    qids = ranked.qids
    nq = len(qids)
    loc = np.minimum(np.searchsorted(qids, qj.qid), max(nq - 1, 0))
    sel = np.flatnonzero(qids[loc] == qj.qid)
    jq = loc[sel].astype(np.int64)
    _, jinv = np.unique(qj.jg[sel], return_inverse=True)
    jinv = jinv.reshape(-1).astype(np.int64)
    ug, g = np.unique(jq * (int(jinv.max()) + 1 if len(jinv) else 1) + jinv, return_inverse=True)
    g = g.reshape(-1).astype(np.int64)
    ng = len(ug)
    gq = np.zeros(ng, dtype=np.int64)
    gq[g] = jq
    njg = np.bincount(gq, minlength=nq).astype(np.int64)
    # expand the ranking once per JG of its query
    nret = np.diff(ranked.ptr)
    sizes = nret[gq]
    eg = np.repeat(np.arange(ng, dtype=np.int64), sizes)
    off = np.arange(int(sizes.sum()), dtype=np.int64) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    ridx = ranked.ptr[gq][eg] + off if len(eg) else np.zeros(0, dtype=np.int64)
    rdoc = ranked.docno[ridx] if ranked.docno is not None else np.zeros(0, dtype="S1")
    jdoc = qj.docno[sel]
    jk, ek = exact_pair_keys(g, jdoc, eg, rdoc)
    jo = np.argsort(jk, kind="stable")
    sjk = jk[jo]
    found, hc = lookup_sorted(sjk, ek)
    # the bogus document of a topic missing under -c has an empty docno: never judged
    found &= rdoc != b""
    jrel = qj.rel[sel].astype(np.int64)
    gr = jrel[jo[hc]] if len(sjk) else np.zeros(len(ek), dtype=np.int64)
    grade = np.where(found, np.where(gr < 0, -2, gr), -1)
    if judged_only:
        keep = grade >= 0
        eg, grade = eg[keep], grade[keep]
        cnt = np.bincount(eg, minlength=ng)
        pos = np.arange(len(eg)) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    else:
        pos = off
    num_ret = np.bincount(eg, minlength=ng).astype(np.int64)
    return JudgmentGroups(nq=nq, gq=gq, njg=njg, eg=eg, pos=pos.astype(np.int64), grade=grade,
                          num_ret=num_ret, jg_of=g, jrel=jrel)


def _jg(ctx: EvalContext) -> JudgmentGroups:
    return ctx.required("qrels_jg", "judgment-group measures (*_avgjg) need -R qrels_jg")


def _rel_in_top(jg: JudgmentGroups, level: int, k: np.ndarray) -> np.ndarray:
    """Per JG: relevant documents among its first ``k`` (per-JG array)."""
    m = (jg.grade >= level) & (jg.pos < k[jg.eg])
    return np.bincount(jg.eg, weights=m, minlength=jg.ng)


_SETS = frozenset({"qrels_jg"})
_CITE = "trec_eval 10, -R qrels_jg"


@measure("map_avgjg", trec_order("map_avgjg"), "Average precision per judgment group, averaged over groups.",
         formula="mean_JG Σ_{rel ret at i} (rel up to i / i) / R_JG", nicknames=_SETS, citation=_CITE)
def map_avgjg(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    jg = _jg(ctx)
    rel = jg.grade >= ctx.level
    cum = np.cumsum(rel)
    base = np.concatenate([[0], cum])[np.concatenate([[0], np.cumsum(jg.num_ret)])[:-1]]
    upto = cum - base[jg.eg] if len(cum) else cum
    prec = np.where(rel, upto / (jg.pos + 1.0), 0.0)
    s = np.bincount(jg.eg, weights=prec, minlength=jg.ng)
    found = np.bincount(jg.eg, weights=rel, minlength=jg.ng)
    R = jg.num_rel(ctx.level)
    # trec_eval divides whenever something relevant was found: with -l ≤ -1 a JG without a judged grade
    # ≥ 0 (R = 0) can still find the documents it did not judge, and its AP is sum / 0 = inf (printed `inf`)
    with np.errstate(divide="ignore"):
        ap = np.divide(s, R, out=np.zeros(jg.ng), where=found > 0)
    return jg.average(ap).reshape(-1, 1)


@measure("P_avgjg", trec_order("P_avgjg"), "Precision at k per judgment group, averaged over groups.",
         formula="mean_JG |Rel_JG ∩ Ret[:k]| / k", param_kind="cutoffs", defaults=CUTS,
         nicknames=_SETS, citation=_CITE)
def p_avgjg(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    jg = _jg(ctx)
    cols = []
    for k in params:
        kk = np.full(jg.ng, int(k), dtype=np.int64)
        cols.append(jg.average(_rel_in_top(jg, ctx.level, kk) / float(k)))
    return np.column_stack(cols)


@measure("Rprec_mult_avgjg", trec_order("Rprec_mult_avgjg"),
         "Precision after x·R_JG documents per judgment group, averaged over groups.",
         formula="mean_JG |Rel_JG ∩ Ret[:c]| / c,  c = (long)(x·R_JG + 0.9)", param_kind="floats",
         defaults=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0), nicknames=_SETS, citation=_CITE,
         trec_params=(R_MULT,))
def rprec_mult_avgjg(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    jg = _jg(ctx)
    R = jg.num_rel(ctx.level).astype(np.float64)
    # as Rprec_mult: trec_eval walks up from the JG's num_rel_ret (judged only); with -l ≤ -1 the
    # walk also counts the documents that JG did not judge, so it runs `offset` below and stops at 0
    offset: np.ndarray = np.zeros(jg.ng)
    if int(ctx.level) < 0:
        offset = np.bincount(jg.eg, weights=(jg.grade >= int(ctx.level)) & (jg.grade < 0), minlength=jg.ng)
    cols = []
    for x in params:
        c = c_long(float(x) * R + 0.9)
        found = np.maximum(_rel_in_top(jg, ctx.level, c) - offset, 0.0)
        v = np.divide(found, c, out=np.zeros(jg.ng), where=c > 0)
        cols.append(jg.average(v))
    return np.column_stack(cols)
