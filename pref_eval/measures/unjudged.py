"""Judgment coverage: trec_eval's ``unj`` and ir-measures' ``Judged``.

* ``unj.k`` (trec_eval 10, defaults 5,10,20) = |{unjudged or unpooled
  documents in the top k}| / k, k even when fewer were retrieved (the rest
  counts as judged). A "red flag" measure; ``-l`` does not apply.
* ``judged.k`` = ir-measures' ``Judged@k`` (not a trec_eval measure):
  |{documents in the top k that appear in the qrels}| / min(k, |Ret|); a
  document with a negative grade (pooled, unjudged) counts as judged;
  0 for an empty list. ``Judged`` without a cutoff is the whole list.
  MacAvaney et al., OpenNIR / ir-measures (Sakai & Kando 2008 for the idea
  of condensed lists).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..collection import NONPOOL
from .params import CUTOFF
from .base import EvalContext, measure
from .nicknames import TREC_TABLE, trec_order

if TYPE_CHECKING:
    from ..collection import Ranked



def _in_top(r, mask: np.ndarray, k: int) -> np.ndarray:
    return r.per_query_sum(mask & (r.pos < k))


@measure("unj", trec_order("unj"), "Fraction of unjudged documents in the top k.",
         formula="|{d ∈ Ret[:k] : unjudged}| / k", citation="trec_eval 10",
         param_kind="cutoffs", defaults=(5, 10, 20), zero_if_missing=True, uses_level=False)
def unj(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    mask = r.grade < 0
    return np.column_stack([_in_top(r, mask, int(k)) / float(k) for k in params])


@measure("judged", len(TREC_TABLE), "Fraction of the top k that has a judgment (ir-measures' Judged@k).",
         formula="|{d ∈ Ret[:k] : d ∈ qrels}| / min(k, |Ret|)",
         citation="ir-measures (MacAvaney et al., ECIR 2022)", param_kind="cutoffs",
         defaults=(5, 10, 20), uses_level=False, irm="Judged@",
         keywords=(CUTOFF,), tie_order="docno_asc")
def judged(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    mask = r.grade != NONPOOL
    nret = r.num_ret
    cols = []
    for k in params:
        den = np.minimum(nret, int(k)).astype(np.float64)
        cols.append(np.divide(_in_top(r, mask, int(k)), den, out=np.zeros(r.nq), where=den > 0))
    return np.column_stack(cols)
