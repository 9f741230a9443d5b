"""Document level: fit zELO scores from each judge (same prior) and compare them per query.

Each judge's judgments are fitted by :func:`pref_eval.zelo.fit.fit_bt` exactly as
``zelo_fit`` would (same ``prior``, weights as in the file; a pair named
without a judgment is not fitted), on the union of all judges' documents. Per
query, on the documents both judges judged (at least two):

* Kendall's tau_b between the two score vectors (``scipy.stats.kendalltau``);
* top-1 agreement: both fits put the same document first;
* top-k overlap: |top_k(reference) ∩ top_k(other)| / k with k = min(top_k, documents);
* top-1 in the reference's interval: the reference's score of the other
  judge's top document is at least the reference's top score minus z times its
  standard error (z = 1.959964, a 95 % interval).

Documents with equal scores are ordered at random, independently in the two fits, and the three top figures
are their expectations over those orders (:func:`top_counts`): with p_i, q_i the probabilities that
document i is in the reference's and the other's top k, top-1 agreement = sum_i p_i q_i (k = 1) and top-k
overlap = sum_i p_i q_i / k; top-1 in the interval = sum_ij q_i p_j [x_i >= x_j - z se_j] (x, se: the
reference's scores and standard errors). Without ties these are the plain figures; with ties they no longer
depend on the order of the judgment lines (which decided before session 12).

Scores are rounded to 9 decimals first, so that documents the fit scores equally (e.g. equal records
in a round robin) are ties, not ordered by the last floating-point bits. Each figure is averaged over
the queries compared; intervals by the bootstrap over queries.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .matching import Matched
from .records import Bootstrap, Record, count, per_query_sums, statistic

LEVEL = "document"
Z95 = 1.959963984540054
DECIMALS = 9  # scores equal to 9 decimals are ties (the fit stops at a gradient of 1e-9)


def top_counts(x: np.ndarray, k: int) -> tuple[np.ndarray, int]:
    """P(item i is among the top ``k`` of ``x``) when ties are broken uniformly at random, as integer numerators
    over one denominator m (so that sums of them are exact): 1 above the k-th value, (k - number above) / m for
    the m items equal to it, 0 below."""
    thr = np.sort(x)[::-1][k - 1]
    above = x > thr
    tied = x == thr
    m = int(tied.sum())
    return above.astype(np.int64) * m + tied.astype(np.int64) * (k - int(above.sum())), m


def fit_judges(mt: Matched, n_docs: int, doc_q: np.ndarray, prior: float = 0.5,
               doc_name: Sequence[str] | None = None) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Fit every judge on the shared document space.

    Returns ``(scores, ses, judged)``: ``scores[j]``/``ses[j]`` per global
    document (natural-log scale, centred per query), ``judged[j]`` True for
    documents in a judgment of judge j. ``doc_name`` (each global document's
    docno): fit in zelo_fit's canonical order (documents by id, judgments
    sorted), so the scores do not depend on the order of the judgment lines.
    """
    from ..zelo.fit import fit_bt, id_ranks

    nq = len(mt.queries)
    order = np.lexsort((np.arange(n_docs), doc_q))
    pos = np.empty(n_docs, dtype=np.int64)
    pos[order] = np.arange(n_docs)
    sizes = np.bincount(doc_q, minlength=nq)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    rank = None
    if doc_name is not None:
        laid = [doc_name[i] for i in order.tolist()]  # documents in fit order, query by query
        rank = id_ranks([laid[offsets[k]:offsets[k + 1]] for k in range(nq)])
    scores, ses, judged = [], [], []
    for j in mt.votes:
        rows = (j.member == 0) & (j.judgment >= 0)
        lo, hi, q = j.lo[rows], j.hi[rows], j.q[rows]
        s = j.score[rows]
        w = np.asarray(j.table.weight, dtype=np.float64)[j.judgment[rows]]
        a = pos[lo] - offsets[q]
        b = pos[hi] - offsets[q]
        res = fit_bt(sizes, q, a, b, s, w, prior=prior, doc_rank=rank)
        sc = res.score[pos]
        se = res.se[pos]
        jd = np.zeros(n_docs, dtype=bool)
        jd[lo] = True
        jd[hi] = True
        scores.append(sc)
        ses.append(se)
        judged.append(jd)
    return scores, ses, judged


def document_records(mt: Matched, n_docs: int, doc_q: np.ndarray, boot: Bootstrap, prior: float = 0.5,
                     top_k: int = 10, doc_name: Sequence[str] | None = None) -> list[Record]:
    """Per-query comparisons of every judge's zELO fit with the reference's (the first judge)."""
    from scipy.stats import kendalltau

    doc_q = np.asarray(doc_q, dtype=np.int64)
    nq = len(mt.queries)
    scores, ses, judged = fit_judges(mt, n_docs, doc_q, prior, doc_name)
    by_q = np.argsort(doc_q, kind="stable")
    bounds = np.searchsorted(doc_q[by_q], np.arange(nq + 1))
    out: list[Record] = []
    for k in range(1, len(mt.names)):
        a, b = mt.names[0], mt.names[k]
        tau = np.full(nq, np.nan)
        top1 = np.full(nq, np.nan)
        topk = np.full(nq, np.nan)
        inside = np.full(nq, np.nan)
        for qi in range(nq):
            d = by_q[bounds[qi]:bounds[qi + 1]]
            d = d[judged[0][d] & judged[k][d]]
            if len(d) < 2:
                continue
            xr, xk = np.round(scores[0][d], DECIMALS), np.round(scores[k][d], DECIMALS)
            t = kendalltau(xr, xk).statistic
            tau[qi] = t
            # ties broken uniformly at random, independently in the two fits, in expectation (no dependence on
            # the order of the judgment lines)
            (n1r, m1r), (n1k, m1k) = top_counts(xr, 1), top_counts(xk, 1)
            top1[qi] = int(n1r @ n1k) / (m1r * m1k)
            kk = min(top_k, len(d))
            (nr, mr), (nk, mk) = top_counts(xr, kk), top_counts(xk, kk)
            topk[qi] = int(nr @ nk) / (mr * mk * kk)
            ser = ses[0][d]
            ok = (xr[:, None] >= (xr - Z95 * ser)[None, :]).astype(np.int64)  # [i, j]: i inside top j's interval
            inside[qi] = int(n1k @ ok @ n1r) / (m1k * m1r)
        compared = np.isfinite(top1)
        out.append(count(a, b, LEVEL, "queries", int(compared.sum())))
        qidx = np.arange(nq)
        for name, v in (("kendall_tau_b", tau), ("top1_agreement", top1), (f"top{top_k}_overlap", topk),
                        ("top1_in_ref_interval", inside)):
            ok = np.isfinite(v)
            T = per_query_sums(qidx[ok], nq, [v[ok], np.ones(int(ok.sum()))])
            out.append(statistic(boot, a, b, LEVEL, name, T, lambda S: S[..., 0] / S[..., 1], lambda S: S[..., 1]))
    return out
