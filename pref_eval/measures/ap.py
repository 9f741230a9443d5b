"""Average precision: map, gm_map, map_cut (trec_eval ``m_map.c`` ...).

AP = (1/R) Σ_{k : d_k relevant} P@k, with R = |{d : rel(d) ≥ l}| from the
qrels (0 when R = 0). ``map_cut.k`` sums only over ranks ≤ k (still / R).
``gm_map`` is the geometric mean over queries of max(AP, 1e-5).
Buckley & Voorhees, "Retrieval system evaluation", TREC book 2005.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import libm

from .params import CUTOFF, JUDGED_ONLY, REL
from .base import EvalContext, measure
from .nicknames import trec_order

if TYPE_CHECKING:
    from ..collection import Ranked


def _prec_at_rel(r, level: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the relevant retrieved docs and the precision at each.

    Works on the relevant positions only (a few % of a run), so no
    run-sized float temporaries: the running count of relevant docs inside
    a query is the index among relevant positions minus the count of
    relevant positions before the query's first row.
    """
    idx = np.flatnonzero(r.grade >= level)
    before = np.searchsorted(idx, r.ptr[:-1])
    q = r.qidx[idx]
    within = np.arange(1, len(idx) + 1, dtype=np.int64) - before[q]
    return idx, within / (r.pos[idx].astype(np.int64) + 1)


def ap_values(r: Ranked, level: int, cutoff: int | None = None) -> np.ndarray:
    """Per-query AP (summed in rank order, as trec_eval, then divided by R)."""
    idx, prec = _prec_at_rel(r, level)
    q = r.qidx[idx]
    if cutoff is not None:
        keep = r.pos[idx] < cutoff
        q, prec = q[keep], prec[keep]
    s = np.bincount(q, weights=prec, minlength=r.nq)
    R = r.num_rel(level)
    if cutoff is not None:  # m_map_cut.c returns on num_rel 0
        return np.divide(s, R, out=np.zeros(r.nq), where=R > 0)
    # m_map.c / m_gm_map.c divide whenever a document at the level was retrieved: with -l <= -1 an unjudged one
    # counts there but not in R, so a topic judged only below 0 gets sum / 0 = inf (as trec_eval prints it)
    with np.errstate(divide="ignore"):
        return np.divide(s, R, out=np.zeros(r.nq), where=(R > 0) | (s > 0))


@measure("map", trec_order("map"), "Mean average precision.",
         formula="AP = (1/R) Σ_{k: rel(d_k)≥l} P@k", irm="AP", keywords=(REL, JUDGED_ONLY),
         citation="Buckley & Voorhees 2005")
def map_(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return ap_values(r, ctx.level).reshape(-1, 1)


@measure("gm_map", trec_order("gm_map"), "Geometric mean of AP over queries (floor 1e-5).",
         formula="exp(mean_q ln max(AP_q, 1e-5))", aggregate="gmean", summary_only=True,
         citation="Robertson, CIKM 2006 (GMAP)")
def gm_map(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return ap_values(r, ctx.level).reshape(-1, 1)


@measure("map_cut", trec_order("map_cut"), "AP with the sum cut at rank k (divided by R).",
         formula="(1/R) Σ_{k'≤k: rel} P@k'", param_kind="cutoffs",
         defaults=(5, 10, 15, 20, 30, 100, 200, 500, 1000), irm="AP@", keywords=(CUTOFF, REL, JUDGED_ONLY),
         citation="Buckley & Voorhees 2005")
def map_cut(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return np.column_stack([ap_values(r, ctx.level, int(k)) for k in params])


@measure("yaap", trec_order("yaap"), "Yet Another Average Precision (Robertson's smoothed AP).",
         formula="ln((1 + S) / (1 + R − S)), S = Σ_{k: rel(d_k)≥l} P@k (AP·R, unnormalised)",
         empty_value=None, bounds=None, citation="Robertson, 'On Smoothing Average Precision', ECIR 2012")
def yaap(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    # trec_eval m_yaap.c: log((1.0 + sum) / (1.0 + num_rel - sum)). With -l ≤ -1 unjudged documents count
    # in S but not in R, so the denominator can reach 0 (log of inf: inf) or go negative (glibc: -nan).
    idx, prec = _prec_at_rel(r, ctx.level)
    s = np.bincount(r.qidx[idx], weights=prec, minlength=r.nq)
    R = r.num_rel(ctx.level).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (1.0 + s) / (1.0 + R - s)
        out = libm.log(ratio)
    # C's log of a negative number is -nan as glibc prints it (its NaN has the sign bit set)
    out[ratio < 0] = -np.nan
    return out.reshape(-1, 1)
