"""Compatibility with an ideal ranking: Compat (Clarke, Vtyurina & Smucker, TOIS 2021; CIKM 2020).

The ideal ranking I of a query lists its judged documents with grade > 0 by
grade descending; documents of equal grade are ordered by the run's score
(an unretrieved document counts as score 0), then by their order in the
qrels file — the ideal most compatible with the run, as ir-measures'
compat provider builds it. R is the run (score descending, ties by docno
ascending, as ir-measures). With rank-biased overlap at depth
D = max(|R|, |I|) and persistence p (default 0.95),

    RBO(R, I) = Σ_{i=1}^{D} p^{i−1} |R[:i] ∩ I[:i]| / i  /  Σ_{i=1}^{D} p^{i−1}

Compat = RBO(R, I) / RBO(I, I) (``normalize=True``, the default; 0 when I is
empty) or RBO(R, I) (``normalize=False``). p ∈ [0, 1]: p = 0 weighs the first
ranks only (p^0 = 1), p = 1 every depth alike (the average overlap over D). Vectorised: a document in both
lists enters every prefix from rank m = max(rank in R, rank in I) on, so
Σ_i p^{i−1}|R[:i] ∩ I[:i]|/i = Σ_d (S(D) − S(m_d − 1)) with
S(j) = Σ_{i≤j} p^{i−1}/i.

``compatibility`` is the same measure as Clarke's own script
(claclark/Compatibility ``compatibility.py``) computes it on preference qrels
(``topic Q0 docno value``, higher value preferred, e.g. win counts): RBO sums
run to a fixed depth of 1000 (numerator and normaliser alike), and ideal ties
are broken by the run's rank, documents the run lacks last; p defaults to
0.95 and must lie in [0.01, 0.99] (the script's range). Values must be
integers here (the script also takes decimals).

Clarke, Vtyurina & Smucker, "Assessing top-k preferences", ACM TOIS 39(3),
2021; Clarke, Smucker & Vtyurina, "Offline evaluation by maximum similarity
to an ideal ranking", CIKM 2020.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import libm

from ..io.keys import exact_pair_keys, lookup_sorted
from .base import EvalContext, measure
from .params import Param

if TYPE_CHECKING:
    from ..collection import Ranked

ORDER_COMPAT = 1300
CITE = "Clarke, Smucker & Vtyurina, CIKM 2020; Clarke, Vtyurina & Smucker, TOIS 39(3) 2021"
P_COMPAT = Param("p", float, 0.95, "persistence of the rank-biased overlap (0: top-1 agreement; 1: average "
                 "overlap over the depth D)", low=0.0, high=1.0)
NORMALIZE = Param("normalize", bool, True, "divide by the ideal ranking's own RBO")


def _prefix_weights(p: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``S[j] = Σ_{i≤j} p^{i−1}/i`` and ``N[j] = Σ_{i≤j} p^{i−1}`` for j = 0 … n."""
    w = libm.power(p, np.arange(n))
    S = np.concatenate([[0.0], np.cumsum(w / np.arange(1, n + 1))])
    N = np.concatenate([[0.0], np.cumsum(w)])
    return S, N


def ideal_positions(r: Ranked, ties: str = "score") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(iq, ipos, ret_idx)``: per ideal document its query, 0-based ideal rank and retrieved flat index (-1).

    Equal grades are ordered by the run: ``ties="score"`` by score descending
    (unretrieved = 0, ir-measures), ``"rank"`` by rank (unretrieved after every
    retrieved one, Clarke's compatibility.py); then by qrels line.
    """
    qi = r.judgments
    nq = r.nq
    empty = np.zeros(0, dtype=np.int64)
    if qi is None or not nq or not len(qi.grade):
        return empty, empty, empty
    qq = np.searchsorted(qi.qids, r.qids)
    qq_ok = (qq < qi.nq) & (qi.qids[np.minimum(qq, qi.nq - 1)] == r.qids)
    counts = np.where(qq_ok, qi.ptr[np.minimum(qq + 1, qi.nq)] - qi.ptr[np.minimum(qq, qi.nq - 1)], 0)
    jq = np.repeat(np.arange(nq), counts)
    jidx = (np.arange(len(jq)) - np.repeat(np.cumsum(counts) - counts, counts)
            + np.repeat(qi.ptr[np.minimum(qq, qi.nq - 1)], counts))
    keep = qi.grade[jidx] > 0
    jq, jidx = jq[keep], jidx[keep]
    # retrieved flat index of each ideal document
    rdoc = r.docno if r.docno is not None else np.zeros(0, dtype="S1")
    jk, ek = exact_pair_keys(jq, qi.docno[jidx], r.qidx, rdoc)
    eo = np.argsort(ek, kind="stable")
    found, h = lookup_sorted(ek[eo], jk)
    ret = np.where(found, eo[h] if len(eo) else 0, -1)
    if ties == "score":
        tie = -np.where(ret >= 0, r.score[np.maximum(ret, 0)] if len(rdoc) else 0.0, 0.0)
    else:
        rank = r.pos[np.maximum(ret, 0)].astype(np.int64) if len(rdoc) else np.zeros(len(ret), dtype=np.int64)
        tie = np.where(ret >= 0, rank, np.int64(np.iinfo(np.int64).max))
    line = qi.line[jidx]
    o = np.lexsort((line, tie, -qi.grade[jidx], jq))
    jq, ret = jq[o], ret[o]
    cnt = np.bincount(jq, minlength=nq)
    ipos = np.arange(len(jq)) - np.repeat(np.cumsum(cnt) - cnt, cnt)
    return jq, ipos, ret


def compat_values(r: Ranked, p: float, normalize: bool) -> np.ndarray:
    """Per-query Compat of run ``r`` (module doc)."""
    nq = r.nq
    iq, ipos, ret = ideal_positions(r)
    nideal = np.bincount(iq, minlength=nq)
    depth = np.maximum(r.num_ret, nideal).astype(np.int64)
    S, N = _prefix_weights(p, int(depth.max()) if nq else 0)
    both = ret >= 0
    m = np.maximum(ipos[both], r.pos[ret[both]]) if both.any() else np.zeros(0, dtype=np.int64)
    qb = iq[both]
    num = np.bincount(qb, weights=S[depth[qb]] - S[m], minlength=nq)
    if normalize:
        best = np.bincount(iq, weights=S[depth[iq]] - S[ipos], minlength=nq)
        return np.divide(num, best, out=np.zeros(nq), where=best > 0)
    return np.divide(num, N[depth], out=np.zeros(nq), where=depth > 0)


@measure("Compat", ORDER_COMPAT, "Compatibility: rank-biased overlap with the ideal ranking (normalised).",
         formula="RBO(R, I)/RBO(I, I), RBO = Σ_{i≤D} p^(i−1)|R[:i]∩I[:i]|/i / Σ p^(i−1), I: grade desc",
         citation=CITE, uses_level=False, irm="Compat", keywords=(P_COMPAT, NORMALIZE), tie_order="docno_asc")
def compat(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    opts = getattr(ctx, "opts", None) or {}
    return compat_values(r, float(opts.get("p", 0.95)), bool(opts.get("normalize", True))).reshape(-1, 1)


DEPTH = 1000


def compatibility_values(r: Ranked, p: float, normalize: bool) -> np.ndarray:
    """Clarke's ``compatibility.py``: RBO at a fixed depth of 1000, ideal ties by the run's rank."""
    nq = r.nq
    iq, ipos, ret = ideal_positions(r, ties="rank")
    S, N = _prefix_weights(p, DEPTH)
    both = ret >= 0
    m = np.maximum(ipos[both], r.pos[ret[both]]) if both.any() else np.zeros(0, dtype=np.int64)
    ok = m < DEPTH
    num = np.bincount(iq[both][ok], weights=S[DEPTH] - S[m[ok]], minlength=nq)
    if normalize:
        inside = ipos < DEPTH
        best = np.bincount(iq[inside], weights=S[DEPTH] - S[ipos[inside]], minlength=nq)
        return np.divide(num, best, out=np.zeros(nq), where=best > 0)
    return num / N[DEPTH]


P_CLARKE = Param("p", float, 0.95, "persistence of the rank-biased overlap", low=0.01, high=0.99)


@measure("compatibility", ORDER_COMPAT + 1,
         "Compatibility as Clarke's compatibility.py computes it (preference qrels: higher value preferred)."
         " Not an ir-measures measure: the name only uses its syntax.",
         formula="RBO_1000(R, I)/RBO_1000(I, I), I: value desc, ties by the run's rank (unretrieved last)",
         citation="Clarke, Vtyurina & Smucker, TOIS 39(3) 2021 (claclark/Compatibility)", uses_level=False,
         irm="compatibility", keywords=(P_CLARKE, NORMALIZE), tie_order="docno_asc")
def compatibility(r: Ranked, params: tuple, ctx: EvalContext) -> np.ndarray:
    opts = getattr(ctx, "opts", None) or {}
    return compatibility_values(r, float(opts.get("p", 0.95)), bool(opts.get("normalize", True))).reshape(-1, 1)
