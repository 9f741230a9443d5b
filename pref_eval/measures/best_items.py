"""Best-item evaluation: BestRR, BestSuccess@k (``zelo_eval -B FILE``).

Given per query a set B of best-known items — the best passages found by a
preference-judging process (Yan et al., "Human preferences as dueling
bandits", SIGIR 2022, section 5.4; Arabzadeh, Vtyurina, Yan & Clarke,
"Shallow pooling for sparse labels", IRJ 2022) or the top of a zELO fit
(:mod:`pref_eval.io.best_items`):

* BestRR = 1 / rank of the first document of B in the run (0 if none);
* BestSuccess@k = 1 if a document of B is among the top k, else 0.

The same as ``RR`` and ``Success@k`` with B as binary qrels; a query with no
best item scores 0. The run's ranking is pref_eval's (score descending,
ties by docno descending).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..io.keys import exact_pair_keys, lookup_sorted
from .base import EvalContext, measure
from .params import CUTOFF
from .rankutil import first_pos

if TYPE_CHECKING:
    from ..collection import Ranked
    from ..io.best_items import BestItems

ORDER_BEST = 1500
CITE = "Yan, Luo, Clarke, Craswell, Voorhees & Castells, SIGIR 2022 (5.4); Arabzadeh et al., IRJ 25(4) 2022"
_NEEDS = frozenset({"best"})


def is_best(r: Ranked, best: BestItems) -> np.ndarray:
    """Per retrieved document (flat): whether it is a best item of its query."""
    nq = r.nq
    loc = np.minimum(np.searchsorted(r.qids, best.qid), max(nq - 1, 0))
    ok = (r.qids[loc] == best.qid) if nq else np.zeros(len(best.qid), dtype=bool)
    rdoc = r.docno if r.docno is not None else np.zeros(0, dtype="S1")
    bk, ek = exact_pair_keys(loc[ok], best.docno[ok], r.qidx, rdoc)
    found, _ = lookup_sorted(np.sort(bk), ek)
    return found & (rdoc != b"") if len(rdoc) else found


def _best(ctx: EvalContext):
    return ctx.required("best", "best-item measures need a best-item set: zelo_eval -B FILE (qrels of the best "
                        "items, or a zELO score file), or pref_eval.evaluate(..., best=...)")


@measure("BestRR", ORDER_BEST, "Reciprocal rank of the first best-known item (-B)."
         " Not an ir-measures measure: the name only uses its syntax.",
         formula="1 / rank(first d ∈ B)  (0 if none)", citation=CITE, uses_level=False, irm="BestRR",
         needs=_NEEDS)
def best_rr(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    f = first_pos(r, is_best(r, _best(ctx)))
    return np.divide(1.0, f + 1.0, out=np.zeros(r.nq), where=f >= 0).reshape(-1, 1)


@measure("BestSuccess", ORDER_BEST + 1, "1 if a best-known item (-B) is in the top k."
         " Not an ir-measures measure: the name only uses its syntax.",
         formula="[∃ d ∈ B among the top k]", citation=CITE, param_kind="cutoffs", defaults=(1, 5, 10),
         uses_level=False, irm="BestSuccess@", keywords=(CUTOFF,), needs=_NEEDS)
def best_success(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    f = first_pos(r, is_best(r, _best(ctx)))
    return np.column_stack([((f >= 0) & (f < int(k))).astype(np.float64) for k in params])
