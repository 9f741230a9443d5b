"""Counts: runid, num_q, num_ret, num_rel, num_rel_ret, num_nonrel_judged_ret.

Per query (trec_eval ``m_num_*.c``):

* ``num_ret`` = |retrieved| (after ``-M``/``-J``);
* ``num_rel`` = |{d in qrels : rel(d) ≥ l}|;
* ``num_rel_ret`` = |{retrieved judged d : rel(d) ≥ l}| (for l ≤ -1: the judged
  retrieved documents, as trec_eval's ``form_res_rels.c``);
* ``num_nonrel_judged_ret`` = |{retrieved d : 0 ≤ rel(d) < l}|.

Summaries are sums; ``num_q`` is the number of evaluated queries; ``runid``
the run tag of the run file's last line.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .params import REL, Param

from .base import EvalContext, measure
from .nicknames import trec_order

if TYPE_CHECKING:
    from ..collection import Ranked

NUMRET_REL = Param("rel", int, doc="count only the retrieved documents with grade ≥ rel "
                   "(not given: every retrieved document)", low=0)


def _col(v: np.ndarray) -> np.ndarray:
    return np.asarray(v, dtype=np.float64).reshape(-1, 1)


@measure("runid", trec_order("runid"), "Run tag of the run file's last line.",
         formula="tag (6th column) of the run file's last line", aggregate="runid", value_type="str", summary_only=True,
         uses_level=False,
         nicknames=frozenset({"official", "all_trec", "set", "prefs", "all_prefs", "qrels_jg"}),
         citation="trec_eval 10 (NIST; Buckley)")
def runid(r: Ranked, params: tuple, ctx: EvalContext) -> list[str]:
    return [r.tag] * r.nq


@measure("num_q", trec_order("num_q"), "Number of queries evaluated (summary only).",
         formula="|Q| (queries with results and relevance info; all qrels topics with -c)", aggregate="count",
         value_type="int", summary_only=True, uses_level=False, irm="NumQ", irm_per_query=True, empty_value=1.0,
         citation="trec_eval 10 (NIST; Buckley)")
def num_q(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return _col(np.ones(r.nq))


@measure("num_ret", trec_order("num_ret"), "Number of documents retrieved.",
         formula="|Ret|", aggregate="sum", value_type="int", zero_if_missing=True,
         uses_level=False, irm="NumRet", keywords=(NUMRET_REL,), citation="trec_eval 10 (NIST; Buckley)")
def num_ret(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    rel = ctx.opts.get("rel")
    if rel is not None:  # ir-measures' NumRet(rel=k): retrieved documents with grade ≥ k
        return _col(r.per_query_sum(r.grade >= max(int(rel), 0)))
    return _col(r.num_ret)


def _num_rel_summary(values: np.ndarray, r, ctx: EvalContext) -> np.ndarray:
    # trec_eval m_num_rel.c: under -c the summary is recomputed from the qrels
    # of every topic as the count of grades > 0, whatever -l is.
    if ctx.complete:
        return np.array([float(r.count_judged(r.jgrade > 0).sum())])
    # trec_eval adds to an accumulator that starts at +0.0 (a sum of -0.0 z-scores, -Z, prints 0.0000)
    return 0.0 + np.cumsum(values, axis=0)[-1] if len(values) else np.zeros(values.shape[1])


@measure("num_rel", trec_order("num_rel"), "Number of relevant documents in the qrels (rel ≥ l).",
         formula="|Rel|", aggregate="sum", value_type="int", irm="NumRel", keywords=(REL,), empty_value=None,
         summarize=_num_rel_summary, citation="trec_eval 10 (NIST; Buckley)")
def num_rel(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return _col(r.num_rel(ctx.level))


@measure("num_rel_ret", trec_order("num_rel_ret"), "Number of relevant documents retrieved.",
         formula="|Rel ∩ Ret|", aggregate="sum", value_type="int", citation="trec_eval 10 (NIST; Buckley)")
def num_rel_ret(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return _col(r.num_rel_ret(ctx.level))


@measure("num_nonrel_judged_ret", trec_order("num_nonrel_judged_ret"),
         "Number of judged non-relevant documents retrieved (0 ≤ rel < l).",
         formula="|{d ∈ Ret : 0 ≤ rel(d) < l}|", aggregate="sum", value_type="int",
         citation="trec_eval 10 (NIST; Buckley)")
def num_nonrel_judged_ret(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return _col(r.per_query_sum((r.grade >= 0) & (r.grade < ctx.level)))
