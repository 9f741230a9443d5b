"""Rank-biased precision: rbp, rbp_resid (trec_eval 10 ``m_rbp.c``, ``m_rbp_resid.c``).

* ``rbp.p=x[,grade=gain…]`` = (1 − p) Σ_{i ≥ 1} g(d_i) p^{i−1} over the whole
  retrieved list, p = 0.9 by default. Gains are the grades or the
  ``grade=gain`` parameters (see :mod:`.gains`); when any gain level of the
  query lies outside [0, 1] they are rescaled to (g − min)/(max − min) over
  the query's gain levels (levels 0 … its max grade, plus the listed ones),
  so a 0..3 scale uses g/3. trec_eval reads ``min``/``max`` uninitialised;
  its Linux builds start them at 0, which is what we do (min ≤ 0 ≤ max).
* ``rbp_resid`` = p^{|Ret|} + (1 − p) Σ_{unjudged d_i} p^{i−1}: the score
  RBP could still gain (tail beyond the list plus unjudged or unpooled
  documents in it); 0 when every retrieved document is judged.

In ir-measures syntax, ``RBP(p=0.8, rel=k)@n``: p defaults to 0.8 (ir-measures'
default), ``rel=k`` gives binary gains (grade ≥ k → 1, else 0), as C/W/L's
``cwl_eval`` RBP computes it — ir-measures' provider, so the same value:
cwl_eval clips negative grades to 0, so with ``rel=0`` every judged document
counts, and it reads the top 1,000 documents of a query (its depth) with the
C/W/L weights normalised over those 1,000 ranks,
W(i) = p^(i−1) / Σ_{j=1}^{1000} p^(j−1), so RBP(rel=k) = Σ_{i≤1000} g_i p^(i−1)
· (1 − p) / (1 − p^1000): Moffat & Zobel's value to the last bit for p ≤ 0.96
(p^1000 < 2⁻⁵³), 4·10⁻⁵ above it at p = 0.99, 58 % at p = 0.999, and at p = 1
the mean gain of the top 1,000 (Σ g / 1000). Without ``rel`` the graded gains
above are used over the whole list, as trec_eval's ``rbp`` (p = 1 refused:
(1 − p)·Σ is 0 for every ranking); ``@n`` (or ``cutoff=n``) sums over the top n
documents only (ir-measures has no cutoff for RBP). p = 0 gives the first
document's gain.

p^{i−1} is formed by repeated multiplication, as trec_eval does.
Moffat & Zobel, "Rank-biased precision for measurement of retrieval
effectiveness", ACM TOIS 27(1), article 2, 2008.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..collection import NONPOOL
from .base import EvalContext, measure
from .gains import setup_gains
from .nicknames import trec_order
from .params import GAIN, TRUNCATE, Param

if TYPE_CHECKING:
    from ..collection import Ranked

MZ2008 = "Moffat & Zobel, ACM TOIS 27(1), 2008"
P_IRM = Param("p", float, 0.8, "persistence (ir-measures' default 0.8; trec_eval's rbp.p default is 0.9; "
              "0: the first document's gain; 1 only with rel= (cwl_eval's mean gain of the top 1,000): "
              "without rel, (1 − p)·Σ is 0)", low=0.0, high=1.0)
#: trec_eval syntax ``rbp.p=x`` / ``rbp_resid.p=x``: p = 0 and 1 give 0 for every ranking there
P_TREC = Param("p", float, 0.9, "persistence (trec_eval's default 0.9)", low=0.0, high=1.0, low_open=True,
               high_open=True)
CWL_DEPTH = 1000  # cwl_eval's depth: the ranks RBP(rel=k)'s weights are normalised over


def _p1_needs_rel(text: str, options: dict) -> None:
    """RBP(p=1) is defined only in cwl_eval's form (weights normalised over its 1,000 ranks)."""
    from ..errors import UsageError

    if options.get("rel") is None and float(options.get("p", 0.8)) >= 1.0:
        raise UsageError(f"measure {text!r}: p = 1 needs rel= (cwl_eval's RBP: the mean gain of the top "
                         "1,000); graded RBP without rel is (1 − p)·Σ g p^(i−1) = 0 for every ranking, "
                         "so p must be < 1 there")
REL_IRM = Param("rel", int, doc="binary gains: 1 for grade ≥ rel, else 0 (C/W/L's RBP); "
                "not given: graded gains rescaled as trec_eval's rbp", low=0)


def persistence(params: tuple) -> float:
    """The ``p`` parameter, default 0.9 (written at most once, in (0, 1): :data:`P_TREC`, checked when the
    name is parsed; trec_eval would compute with any value, the last one written)."""
    return next((float(v) for name, v in params if name == "p"), 0.9)


def powers(p: float, n: int) -> np.ndarray:
    """1, p, p·p, … (n+1 values) by sequential multiplication."""
    steps = np.full(n + 1, p)
    steps[0] = 1.0
    return np.cumprod(steps)


def _rescale(gain: np.ndarray) -> np.ndarray:
    lo, hi = min(0.0, float(gain.min())), max(0.0, float(gain.max()))
    if lo < 0 or hi > 1:
        return (gain - lo) / (hi - lo)
    return gain


@measure("rbp", trec_order("rbp"), "Rank-biased precision (persistence p, default 0.9).",
         formula="(1−p) Σ_i g(d_i) p^(i−1), gains rescaled to [0,1]", citation=MZ2008,
         param_kind="gains", uses_level=False, irm="RBP", keywords=(P_IRM, REL_IRM, TRUNCATE),
         trec_params=(GAIN, P_TREC),
         validate=_p1_needs_rel)
def rbp(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    p = float(ctx.opts.get("p", persistence(params)))
    pw = powers(p, int(r.num_ret.max()) if r.nq and len(r.pos) else 0)
    rel = ctx.opts.get("rel")
    if rel is not None:  # RBP(rel=k): binary relevance, grade ≥ k (Moffat & Zobel's original definition)
        # cwl_eval clips negative qrels grades to 0 first: with rel ≤ 0 every judged document counts
        g = ((r.grade >= int(rel)) if rel > 0 else (r.grade != NONPOOL)) & (r.pos < CWL_DEPTH)
        s = r.per_query_sum(np.where(g, pw[r.pos], 0.0))
        if p >= 1.0:  # W(i) = 1/1000: the mean gain of the top 1,000
            return (s / CWL_DEPTH).reshape(-1, 1)
        # (1 − p)/(1 − p^1000) = 1/Σ_{j<1000} p^j; the denominator is 1.0 exactly for p ≤ 0.96
        return ((1.0 - p) * s / (1.0 - p ** CWL_DEPTH)).reshape(-1, 1)
    g = setup_gains(r, params, transform=_rescale).result_gain
    w = np.where(g != 0, g * pw[r.pos], 0.0)
    return ((1.0 - p) * r.per_query_sum(w)).reshape(-1, 1)


@measure("rbp_resid", trec_order("rbp_resid"), "RBP residual: the mass of the tail and of unjudged documents.",
         formula="p^|Ret| + (1−p) Σ_{unjudged d_i} p^(i−1)", citation=MZ2008,
         param_kind="gains", uses_level=False, trec_params=(P_TREC,))
def rbp_resid(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    p = persistence(params)
    nret = r.num_ret.copy()
    pw = powers(p, int(nret.max()) + 1 if r.nq else 1)
    unj = r.grade < 0
    s = r.per_query_sum(np.where(unj, pw[r.pos], 0.0))
    n_unj = r.per_query_sum(unj)
    # trec_eval -c: a topic the run lacks is scored on its placeholder ranking, one unpooled
    # document (none under -J or -M 0: r's rows already hold it, as for utility), then zeroed
    # only when the printed name is the bare "rbp_resid".
    bogus = ~r.present & bool(params) & (not ctx.trec9)
    val = np.where(n_unj > 0, pw[nret] + (1.0 - p) * s, 0.0)
    val = np.where(~r.present & ~bogus, 0.0, val)
    return val.reshape(-1, 1)
