"""zbench's three benchmark measures of a run against zELO scores, fixed.

All functions take, for one query, aligned arrays ``run`` (the system's
scores) and ``gt`` (the zELO scores, natural-log scale) over the candidate
documents in candidate order, and return a float (NaN when undefined).
``compat="zbench"`` reproduces zbench's ``benchmark.py`` (commit 7e9d787)
exactly; the default fixes its traps (see docs/differences-zelo.md):

* :func:`ndcg_exp` -- NDCG with gains exp(gt) (zELO log-odds -> odds),
  discount 1/log2(rank + 1), optional cutoff ``k``. Default: tied run scores
  get the average DCG over all orders of the tied group (McSherry & Najork,
  ECIR 2008). zbench: ``np.argsort(run)[::-1]`` (ties: numpy's order, reversed).
* :func:`pairwise_accuracy` -- share of document pairs ordered as zELO orders
  them. Default: pairs tied in ``gt`` are excluded, a pair tied in ``run``
  counts 1/2; NaN when no pair is left. zbench: every tie counts as wrong,
  denominator n(n-1)/2, ZeroDivisionError at n = 1 (here NaN).
* :func:`recall_at_k` -- |top-k of run  ∩  top-``k_gt`` of gt| / min(k_gt, n);
  ties broken by candidate order (earlier first). zbench: ties broken by
  later candidate first, denominator k_gt even when n < k_gt.

:func:`align` pairs a run's ranked docnos with a ``{docno: score}`` table.
zbench's hidden default ``document_limit=10`` (only the first 10 candidates)
is a parameter ``limit`` of :func:`align` here, default None (all).
"""
from __future__ import annotations

from collections.abc import Sequence
from itertools import compress

import numpy as np

from .. import libm

from ..errors import EvaluationError, shown


def align(docnos: Sequence[str], run_scores: Sequence[float] | np.ndarray, zelo: dict, *, limit: int | None = None,
          strict: bool = False) -> tuple[np.ndarray, np.ndarray, int]:
    """Aligned ``(run, gt, n_missing)`` arrays for one query.

    ``docnos``/``run_scores``: the run's candidates in candidate order (for a
    TREC run, the order of the file or of the ranking). Only the first
    ``limit`` candidates are used when ``limit`` is set (zbench's
    ``document_limit``). Candidates without a zELO score are dropped and
    counted (``strict=True`` raises instead, as zbench does).
    """
    docnos = list(docnos)
    run_scores = np.asarray(run_scores, dtype=float)
    if limit:
        docnos, run_scores = docnos[:limit], run_scores[:limit]
    # the table's own lookups mapped over the docnos: C iteration, no interpreter loop per document (session 29)
    if len(zelo) >= len(docnos):  # every candidate may be scored (a reranker's candidates are the pool)
        scores = list(map(zelo.get, docnos))
        if not scores.count(None):
            return run_scores.copy(), np.array(scores, dtype=float), 0
    found = np.fromiter(map(zelo.__contains__, docnos), dtype=bool, count=len(docnos))
    keep = np.flatnonzero(found)
    missing = len(docnos) - len(keep)
    if missing and strict:
        first = docnos[int(np.argmin(found))]
        raise EvaluationError(f"document {shown(first)} has no zELO score")
    gt = np.array(list(map(zelo.__getitem__, compress(docnos, found.tolist()))), dtype=float)
    return run_scores[keep], gt, missing


def _discounts(n: int) -> np.ndarray:
    return 1.0 / libm.log2(np.arange(n) + 2)


def ndcg_exp(run: Sequence[float] | np.ndarray, gt: Sequence[float] | np.ndarray, k: int | None = None, *,
             compat: str | None = None) -> float:
    """NDCG with gains exp(gt); see the module docstring for ties and ``compat``."""
    run = np.asarray(run, dtype=float)
    gt = np.asarray(gt, dtype=float)
    n = len(gt)
    if n == 0:
        return float("nan")
    if compat == "zbench":
        import math

        gl = [math.exp(x) for x in gt.tolist()]
        order = np.argsort(run)[::-1]
        pred = np.array(gl)[order]
        ideal = np.array(sorted(gl, reverse=True))
        pos = np.log2(np.arange(n) + 2)
        return float(np.sum(pred / pos) / np.sum(ideal / pos))
    gains = libm.exp(gt - gt.max())  # NDCG is a ratio: the common factor exp(-max) cancels, no overflow
    disc = _discounts(n)
    if k is not None:
        disc = np.where(np.arange(n) < k, disc, 0.0)
    order = np.argsort(-run, kind="stable")
    rs = run[order]
    g = gains[order]
    # groups of tied run scores: average gain times the group's discounts
    start = np.r_[True, rs[1:] != rs[:-1]]
    gid = np.cumsum(start) - 1
    gmean = np.bincount(gid, g) / np.bincount(gid)
    dcg = float(np.sum(gmean[gid] * disc))
    idcg = float(np.sum(np.sort(gains)[::-1] * disc))
    return dcg / idcg if idcg > 0 else float("nan")


def pairwise_accuracy(run: Sequence[float] | np.ndarray, gt: Sequence[float] | np.ndarray, *,
                      compat: str | None = None) -> float:
    """Share of correctly ordered pairs; see the module docstring."""
    run = np.asarray(run, dtype=float)
    gt = np.asarray(gt, dtype=float)
    n = len(gt)
    if n < 2:
        return float("nan")
    i, j = np.triu_indices(n, 1)
    dr = np.sign(run[i] - run[j])
    dg = np.sign(gt[i] - gt[j])
    if compat == "zbench":
        correct = int(np.count_nonzero((run[i] - run[j]) * (gt[i] - gt[j]) > 0))
        return (2 * correct) / (n * (n - 1))
    valid = dg != 0
    if not valid.any():
        return float("nan")
    score = np.where(dr[valid] == 0, 0.5, (dr[valid] == dg[valid]).astype(float))
    return float(score.mean())


def pairwise_counts(run: Sequence[float] | np.ndarray, gt: Sequence[float] | np.ndarray) -> dict:
    """Explicit pair counts: concordant, discordant, tied in run only, tied in gt, both."""
    run = np.asarray(run, dtype=float)
    gt = np.asarray(gt, dtype=float)
    i, j = np.triu_indices(len(gt), 1)
    dr = np.sign(run[i] - run[j])
    dg = np.sign(gt[i] - gt[j])
    return {
        "concordant": int(np.count_nonzero((dr * dg) > 0)),
        "discordant": int(np.count_nonzero((dr * dg) < 0)),
        "tied_run": int(np.count_nonzero((dr == 0) & (dg != 0))),
        "tied_gt": int(np.count_nonzero((dg == 0) & (dr != 0))),
        "tied_both": int(np.count_nonzero((dr == 0) & (dg == 0))),
    }


def recall_at_k(run: Sequence[float] | np.ndarray, gt: Sequence[float] | np.ndarray, k: int, k_gt: int | None = None, *,
                compat: str | None = None) -> float:
    """Overlap of the run's top ``k`` with zELO's top ``k_gt`` (default ``k``)."""
    run = np.asarray(run, dtype=float)
    gt = np.asarray(gt, dtype=float)
    n = len(gt)
    if k_gt is None:
        k_gt = k
    if k <= 0 or k_gt <= 0:
        raise ValueError("k and k_gt must be positive")
    if compat == "zbench":
        # python sorted() is stable ascending; reversing puts later ties first
        t = sorted(range(n), key=lambda x: gt[x])[::-1][:k_gt]
        r = sorted(range(n), key=lambda x: run[x])[::-1][:k]
        return len(set(t) & set(r)) / k_gt
    if n == 0:
        return float("nan")
    t_idx = np.argsort(-gt, kind="stable")[:k_gt]
    r_idx = np.argsort(-run, kind="stable")[:k]
    return len(np.intersect1d(t_idx, r_idx)) / min(k_gt, n)
