"""zbench's zELO fit reproduced bit for bit (``zelo_fit --compat zbench``).

zbench (github.com/zeroentropy-ai/zbench, ``annotation.step4`` and
``utils.calculate_elos``; described in shared/specs/zbench_reference.md):

* W per query over **all** documents of the dataset, in dataset order:
  W[i, i] = 0.5, then for each scored pair (a, b, s) in file order
  W[b, a] += s and W[a, b] += 1 - s (duplicates add up; s from the
  ``zbench`` vote rule, a 0 vote counting for A).
* x = 0; for t = 0, 1, ...: S[i, j] = sigma(x_j - x_i),
  num_i = sum_j W[i, j] S[i, j], den_i = sum_j W[j, i] S[j, i],
  x += (1 + t)^(-1/8) (log num - log den); x -= mean(x);
  loss_t = -sum_{i,j} W[i, j] (x_i - log(e^x_i + e^x_j)); stop when
  t >= 2 and |loss_{t-1} - loss_t| < 1e-4, or after 1000 iterations.

The arithmetic is done with the same numpy operations in the same order so
that the floating-point results are identical; it is dense and per query
(O(N^2) per iteration), i.e. as slow as zbench -- use it to check old results.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..log import Log


def zbench_win_matrix(n: int, a: Iterable[int], b: Iterable[int], s: Iterable[float]) -> np.ndarray:
    """zbench's W: 0.5 on the diagonal, judgments added in order."""
    w = np.zeros((n, n))
    for i in range(n):
        w[i, i] = 0.5
    for ai, bi, si in zip(a, b, s, strict=False):
        w[int(bi), int(ai)] += si
        w[int(ai), int(bi)] += 1 - si
    return w


def zbench_loss(w: np.ndarray, x: np.ndarray) -> float:
    """Negative log-likelihood including the diagonal, zbench's stable form."""
    n = len(x)
    col = x.reshape(-1, 1)
    row = x.reshape(1, -1)
    m = np.maximum(col, row)
    lse = m + np.log(np.exp(col - m) + np.exp(row - m))
    diff = np.broadcast_to(col, (n, n)) - lse
    return -float(np.sum(w * diff))


def zbench_fit(w: np.ndarray, *, epsilon: float = 1e-4,
               max_iters: int = 1000) -> tuple[np.ndarray, list[float], bool]:
    """Run zbench's damped fixed-point iteration; returns ``(x, losses, converged)``."""
    n = len(w)
    x = np.zeros(n)
    losses: list[float] = []
    for t in range(max_iters):
        d = x.reshape(1, n) - x.reshape(n, 1)
        s = 1.0 / (1.0 + np.exp(-d))
        num = np.sum(w * s, axis=1)
        den = np.sum(w.T * s.T, axis=1)
        lr = float((1.0 + t) ** (-0.125))
        x += (np.log(num) - np.log(den)) * lr
        x -= np.mean(x)
        losses.append(zbench_loss(w, x))
        if len(losses) > 2 and abs(losses[-2] - losses[-1]) < epsilon:
            break
    converged = not (len(losses) >= 2 and abs(losses[-2] - losses[-1]) > epsilon)
    return x, losses, converged


def zbench_fit_queries(sizes: np.ndarray, q: np.ndarray, a: np.ndarray, b: np.ndarray, s: np.ndarray,
                       queries: list[str], log: Log | None = None) -> np.ndarray:
    """``zelo_fit --compat zbench``: :func:`zbench_fit` per query on its win matrix; the scores, query after query.

    Query ``k`` owns ``sizes[k]`` documents (its block of the result) and the judgments with ``q == k``;
    ``log`` (a :class:`pref_eval.log.Log`) gets a progress line and a warning per query not converged.
    """
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    score = np.zeros(offsets[-1])
    order = np.argsort(q, kind="stable")
    bounds = np.searchsorted(q[order], np.arange(len(sizes) + 1))
    for k, qid in enumerate(queries):
        if log is not None:
            log.progress("zbench fit", k + 1, len(queries))
        idx = order[bounds[k]:bounds[k + 1]]
        w = zbench_win_matrix(int(sizes[k]), a[idx], b[idx], s[idx])
        if sizes[k] == 0:
            continue
        x, losses, ok = zbench_fit(w)
        if not ok and log is not None:
            log.warn(f"query {qid}: zbench iteration not within epsilon after {len(losses)} iterations")
        score[offsets[k]:offsets[k + 1]] = x
    return score
