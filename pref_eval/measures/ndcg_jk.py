"""Järvelin & Kekäläinen's original nDCG@k (NTCIREVAL's ``nDCG@k``, beside its ``MSnDCG@k``).

DCG@k = Σ_{i ≤ k} g(d_i) / disc(i),  disc(i) = 1 for i ≤ b, log_b(i) for i > b

nDCG@k = DCG@k / DCG@k of the ideal list (every judged document of positive
gain, in decreasing gain). The first b ranks are not discounted (a user
reads the top b at once; b = ``b``, default 2, NTCIREVAL's ``-logb``). The
nDCG of trec_eval, ir-measures and NTCIREVAL's ``MSnDCG`` ("Microsoft's",
Burges et al. 2005) divides every rank by log2(i + 1) instead: there ranks 1
and 2 differ, here they do not, and nDCG_JK is the larger at every rank > 2
(log_b(i) < log2(i + 1)), so the two may order runs differently.

Gains: the grade, or ``gains={grade: gain}`` as nDCG's (unlisted grades keep
their grade, gains ≤ 0 and unjudged documents count 0). A query without a
judged document of positive gain gets 0 (NTCIREVAL skips it, "no rel doc").
The logarithms are the C library's (``libm``), as NTCIREVAL's.

Järvelin & Kekäläinen, "Cumulated gain-based evaluation of IR techniques",
ACM TOIS 20(4):422-446, 2002 (DCG with base b, section 2.2); NTCIREVAL
(http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import libm
from .base import EvalContext, measure
from .cwl import CUT_REQ
from .ndcg import GAINS, JK2002, _mapped_gains
from .params import JUDGED_ONLY, Param

if TYPE_CHECKING:
    from ..collection import Ranked

ORDER_JK = 1070
LOG_BASE = Param("b", float, 2.0, "log base b: ranks ≤ b are not discounted, rank i > b divided by log_b(i) "
                 "(NTCIREVAL's -logb)", low=1.0, high=1e100, low_open=True)


def discount(pos: np.ndarray, b: float) -> np.ndarray:
    """disc(i) for 0-based ranks ``pos``: 1 at i ≤ b, else log(i)/log(b) (the C library's log, per distinct i)."""
    i = pos.astype(np.int64) + 1
    late = i > b
    out = np.ones(len(i))
    if late.any():
        out[late] = libm.log(i[late].astype(np.float64)) / libm.log(np.array([b]))[0]
    return out


def jk_values(r: Ranked, opts: dict, cutoffs: tuple) -> np.ndarray:
    """Per-query nDCG_JK@k, one column per k."""
    b = float(opts.get("b", 2.0))
    gain = _mapped_gains(r.grade, opts)
    jq = r.jqidx()
    jgain = _mapped_gains(r.jgrade, opts)
    jgain = jgain[np.lexsort((-jgain, jq))]
    jpos = np.arange(len(jgain)) - r.jptr[:-1][jq]
    run_w = gain / discount(r.pos, b)
    ideal_w = jgain / discount(jpos, b)
    cols = []
    for k in cutoffs:
        d = np.bincount(r.qidx, weights=np.where(r.pos < int(k), run_w, 0.0), minlength=r.nq)
        i = np.bincount(jq, weights=np.where(jpos < int(k), ideal_w, 0.0), minlength=r.nq)
        cols.append(np.divide(d, i, out=np.zeros(r.nq), where=i > 0))
    return np.column_stack(cols)


@measure("ndcg_jk_cut", ORDER_JK, "Original nDCG at cutoff k (Järvelin & Kekäläinen: ranks ≤ b undiscounted, "
         "then log_b; NTCIREVAL's nDCG@k).", formula="Σ_{i≤k} g_i/disc(i) / ideal,  disc(i) = max(1, log_b(i))",
         citation=JK2002 + "; NTCIREVAL (http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html)",
         param_kind="cutoffs", defaults=(10, 1000), uses_level=False, irm="nDCG_JK@",
         keywords=(CUT_REQ, LOG_BASE, GAINS, JUDGED_ONLY))
def ndcg_jk_cut(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    return jk_values(r, ctx.opts, params)
