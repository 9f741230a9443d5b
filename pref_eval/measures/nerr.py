"""nERR@k as NTCIREVAL computes it (NTCIR's WWW tasks report it beside MSnDCG@k and Q@k).

ERR@k = Σ_{i≤k} (1/i) R_i Π_{j<i} (1 − R_j),  R_i = g_i / (H + 1)

with g_i the grade of the document at rank i (0 for unjudged and judged
non-relevant documents; NTCIREVAL's gains ``-g 1:2:...:H``, the grades) and H
= ``max_rel``, the highest grade of the collection (NTCIREVAL's last ``-g``
level): dividing by H + 1 rather than H keeps a stop short of certain at the
most relevant grade. nERR@k = ERR@k / ERR@k of the ideal list (the judged
documents of grade ≥ 1 in decreasing grade). A query without a relevant
document gets 0 (NTCIREVAL skips it, "no rel doc"); a grade above H is an
error (NTCIREVAL has no gain for it). ``ERR@k`` here is gdeval's, with
R_i = (2^g − 1)/16: another measure.

Chapelle, Metzler, Zhang & Grinspan, "Expected reciprocal rank for graded
relevance", CIKM 2009 (ERR); Sakai, NTCIREVAL
(http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html), its stopping
probability and normalisation.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import EvaluationError, UsageError
from .base import EvalContext, measure
from .cascade import exclusive_level_product
from .cwl import CUT_REQ
from .params import JUDGED_ONLY, NOT_GIVEN, Param

if TYPE_CHECKING:
    from ..collection import Ranked

ORDER_NERR = 1060
NTCIR_ERR = ("Chapelle, Metzler, Zhang & Grinspan, CIKM 2009; NTCIREVAL's nERR@k "
             "(http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html)")
MAX_REL = Param("max_rel", int, NOT_GIVEN, "highest grade H of the collection (NTCIREVAL's -g 1:...:H); required",
                low=1)


def _validate(text: str, options: dict) -> None:
    if "max_rel" not in options:
        raise UsageError(f"measure {text!r}: needs max_rel, the highest grade of the collection (NTCIREVAL's "
                         "-g 1:2:3 is max_rel=3), e.g. nERR(max_rel=3)@10")


def _err(level: np.ndarray, ptr: np.ndarray, qidx: np.ndarray, pos: np.ndarray, nq: int, stop: np.ndarray,
         k: int) -> np.ndarray:
    decay = exclusive_level_product(level, 1.0 - stop, ptr, qidx)
    w = np.where(pos < k, stop[level] * decay / (pos + 1.0), 0.0)
    return np.bincount(qidx, weights=w, minlength=nq)


def nerr_values(r: Ranked, h: int, cutoffs: tuple) -> np.ndarray:
    """Per-query nERR@k (one column per k) with NTCIREVAL's stopping probability grade/(h + 1)."""
    g = np.maximum(np.asarray(r.grade, dtype=np.int64), 0)
    jg = np.maximum(np.asarray(r.jgrade, dtype=np.int64), 0)  # judged side, sorted descending: the ideal list
    top = max(int(g.max()) if len(g) else 0, int(jg.max()) if len(jg) else 0)
    if top > h:
        raise EvaluationError(f"nERR: relevance grade {top} above max_rel={h} (the highest grade of the collection)")
    stop = np.arange(top + 1, dtype=np.float64) / (h + 1.0)  # the grades present only: one pass per grade
    jq = r.jqidx()
    jpos = np.arange(len(jg)) - r.jptr[:-1][jq]
    cols = []
    for k in cutoffs:
        run = _err(g, r.ptr, r.qidx, r.pos, r.nq, stop, int(k))
        ideal = _err(jg, r.jptr, jq, jpos, r.nq, stop, int(k))
        cols.append(np.divide(run, ideal, out=np.zeros(r.nq), where=ideal > 0))
    return np.column_stack(cols)


@measure("nERR", ORDER_NERR, "Normalised ERR at cutoff k with NTCIREVAL's stopping probability grade/(H + 1).",
         formula="ERR@k / ideal ERR@k,  ERR@k = Σ_{i≤k} (R_i/i) Π_{j<i}(1−R_j),  R = g/(H+1)", citation=NTCIR_ERR,
         param_kind="cutoffs", defaults=(10,), uses_level=False, irm="nERR@", keywords=(CUT_REQ, MAX_REL, JUDGED_ONLY),
         validate=_validate)
def nerr(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    opts = getattr(ctx, "opts", None) or {}
    if "max_rel" not in opts:
        raise UsageError("nERR needs max_rel, the highest grade of the collection: use the ir-measures syntax, "
                         "e.g. nERR(max_rel=3)@10")
    return nerr_values(r, int(opts["max_rel"]), params)
