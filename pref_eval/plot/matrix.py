"""zbench's K×K comparison matrix for one query.

For the K documents of a query (in input order), ``W[i, j]`` is the
(fractional) number of times document i beat document j: a judgment
``(a, b, s)`` (s = 1: b better) adds ``s`` to ``W[b, a]`` and ``1 - s`` to
``W[a, b]``, as zbench builds its W matrix (``zbench_reference.md`` (b)),
without zbench's 0.5 diagonal. The plotted cell is the share of the pair's
comparisons that the row document won,

    P[i, j] = W[i, j] / (W[i, j] + W[j, i]),

blank where the pair was never compared. The same matrix is drawn twice:
documents in input order, and sorted by zELO score (highest first), where a
consistent set of judgments shows as a matrix whose upper triangle is mostly
wins.
"""
from __future__ import annotations

import numpy as np

from ..errors import UsageError


def win_matrix(judgments, qid: str) -> tuple[list[str], np.ndarray]:
    """``(docnos, W)`` for query ``qid`` of a :class:`~pref_eval.zelo.judgments.Judgments`."""
    if qid not in judgments.docs:
        raise UsageError(f"query {qid!r} is not in the judgments (queries: {_few(judgments.queries)})")
    q, a, b, s, w = judgments.arrays()
    qi = judgments.queries.index(qid)
    sel = q == qi
    a, b, s, w = a[sel], b[sel], s[sel], w[sel]
    docs = list(judgments.docs[qid])
    k = len(docs)
    wins = np.zeros((k, k))
    np.add.at(wins, (b, a), w * s)
    np.add.at(wins, (a, b), w * (1.0 - s))
    return docs, wins


def share_matrix(wins: np.ndarray) -> np.ndarray:
    """``P = W / (W + Wᵀ)``, NaN where a pair was never compared (and on the diagonal)."""
    total = wins + wins.T
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(total > 0, wins / np.where(total > 0, total, 1.0), np.nan)
    np.fill_diagonal(p, np.nan)
    return p


def zelo_order(judgments, qid: str, docs: list[str], scores: dict[str, float] | None = None,
               prior: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Indices of ``docs`` by zELO score, highest first, and the scores.

    ``scores`` (``{docno: score}``, e.g. from a ``zelo_fit`` TSV) is used when
    given; otherwise the query is fitted with :func:`pref_eval.zelo.fit.fit_bt`
    (weak prior ``prior``). Ties keep input order.
    """
    if scores is None:
        from ..zelo.fit import fit_bt

        q, a, b, s, w = judgments.arrays()
        qi = judgments.queries.index(qid)
        sel = q == qi
        res = fit_bt(np.array([len(docs)]), np.zeros(int(sel.sum()), dtype=np.int64), a[sel], b[sel],
                     s[sel], w[sel], prior=prior, compute_se=False)
        x = np.asarray(res.score, dtype=float)
    else:
        missing = [d for d in docs if d not in scores]
        if missing:
            raise UsageError(f"query {qid!r}: {len(missing)} judged document(s) have no score in the "
                             f"scores file (e.g. {missing[0]!r})")
        x = np.array([scores[d] for d in docs], dtype=float)
    order = np.argsort(-x, kind="stable")
    return order, x


def draw_matrix(plt, docs: list[str], share: np.ndarray, order: np.ndarray, scores: np.ndarray,
                qid: str, size: tuple[float, float], title: str | None = None):
    """Figure with two panels: input order and zELO order."""
    k = len(docs)
    fig, axes = plt.subplots(1, 2, figsize=size, layout="constrained")
    cmap = plt.get_cmap("RdBu").with_extremes(bad="#eeeeee")
    panels = [(np.arange(k), "input order"), (order, "by zELO score (highest first)")]
    im = None
    for ax, (idx, label) in zip(axes, panels, strict=False):
        m = share[np.ix_(idx, idx)]
        im = ax.imshow(np.ma.masked_invalid(m), cmap=cmap, vmin=0.0, vmax=1.0, interpolation="nearest")
        ax.set_title(label, fontsize=10)
        ax.set_xlabel("column document")
        ax.set_ylabel("row document")
        if k <= 40:
            names = [docs[i] for i in idx]
            fs = 7 if k <= 20 else 5
            ax.set_xticks(range(k), names, rotation=90, fontsize=fs)
            ax.set_yticks(range(k), names, fontsize=fs)
        else:
            ax.set_xticks([])
            ax.set_yticks([])
    fig.colorbar(im, ax=list(axes), shrink=0.8, label="share of comparisons the row document won")
    judged = int(np.isfinite(share).sum() // 2)
    fig.suptitle(title or f"query {qid}: {k} documents, {judged} compared pairs")
    return fig


def _few(items, n: int = 5) -> str:
    items = list(items)
    more = f", … ({len(items)} in all)" if len(items) > n else ""
    return ", ".join(items[:n]) + more
